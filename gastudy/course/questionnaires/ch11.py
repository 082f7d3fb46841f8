"""Chapter 11's questionnaire: the five symptoms, where to look, and what each detector measures."""

from __future__ import annotations

from gastudy.course.i18n import t
from gastudy.course.questionnaire import Question


def questions() -> list[Question]:
    """The questions of chapter 11, in the course language."""
    return [
        Question(t("A custom loss is already divided by the group's items, but it is declared as "
                   "not scaled, so it is divided again by the number of microbatches. With A = 8, "
                   "by what factor is the gradient too small?"),
                 t("By 8: the second division by A shrinks the loss and the gradient by exactly A. "
                   "The detector compares the gradient the optimizer receives with the big-batch "
                   "gradient and reports this factor."),
                 number=8),
        Question(t("A group has two microbatches, with 5 and 40 supervised tokens. The loop "
                   "averages the two microbatch means. How many times its correct weight does one "
                   "token of the small microbatch get?"),
                 t("Its correct weight is 1 ÷ 45. The mean of means gives it "
                   "1 ÷ (2 × 5) = 1 ÷ 10, which is 4.5 times too much: a microbatch of 5 "
                   "tokens counts as much as one of 40."),
                 number=4.5),
        Question(t("A warm-up is written as 100 updates, but the scheduler steps after every "
                   "microbatch, with A = 4. After how many applied updates does the warm-up end?"),
                 t("After 25: the scheduler takes 4 steps per applied update, so the schedule "
                   "runs A times too fast. The detector counts scheduler steps against applied "
                   "updates."),
                 number=25),
        Question(t("zero_grad() is called inside the microbatch loop, before each backward. What "
                   "does each update see?"),
                 t("Only the last microbatch's gradient: every zero_grad throws away what the "
                   "earlier microbatches added, so accumulation has no effect."),
                 choices=(t("a gradient A times too large"),
                          t("only the last microbatch's gradient"),
                          t("the correct gradient, since zeroing is harmless"),
                          t("also the gradient of the previous group")),
                 right=1),
        Question(t("zero_grad() is never called between groups. What does each update carry?"),
                 t("Its own group's gradient plus the previous groups' gradients, because .grad is "
                   "never emptied after a step. The detector compares each update's gradient with "
                   "the group's true gradient."),
                 choices=(t("its own group's gradient plus what earlier groups left in .grad"),
                          t("only the first microbatch's gradient"),
                          t("exactly its own group's gradient")),
                 right=0),
        Question(t("How does the detector for the symptom 'the result changes with the "
                   "partitioning' test a loop?"),
                 t("It splits the same samples into several m × A layouts and compares the "
                   "gradients. A correct loop gives the same gradient for every split, to float64 "
                   "rounding; a mean of means does not."),
                 choices=(t("it runs the loop twice with different seeds"),
                          t("it compares the loss curve with a stored reference"),
                          t("it counts the bytes alive between microbatches"),
                          t("it splits the same samples into several m × A layouts and compares "
                            "the gradients")),
                 right=3),
        Question(t("Memory grows from microbatch to microbatch. Where does the clinic tell you to "
                   "look first?"),
                 t("At references kept between microbatches, for example graph-attached losses "
                   "summed over the group. Each one keeps that microbatch's activations alive; "
                   "keep only loss.item()."),
                 choices=(t("at the learning-rate schedule"),
                          t("at references kept between microbatches"),
                          t("at a double division of the loss")),
                 right=1),
        Question(t("Summing the graph-attached losses of a group and calling backward() once "
                   "gives the right gradient. Why is it still a mistake?"),
                 t("Every microbatch's activations stay alive until that single backward, so the "
                   "memory grows by about one microbatch's saved activations per microbatch. Calling "
                   "backward per microbatch frees them at once and gives the same gradient.")),
    ]
