"""Chapter 10's questionnaire: verifying one update, checking your own loop, the run record."""

from __future__ import annotations

from gastudy.course.i18n import t
from gastudy.course.questionnaire import Question


def questions() -> list[Question]:
    """The questions of chapter 10, in the course language."""
    return [
        Question(t("In the one-update verifier's weighted-loss check, what is the gradient at "
                   "optimizer.step compared with?"),
                 t("It compares the gradient at optimizer.step with the gradient of one big batch "
                   "of the same m × A × D samples, computed on an exact copy of the model. They "
                   "must agree within the tolerance of the precision, measured by the relative "
                   "gap."),
                 choices=(t("the weights after the update, bit for bit"),
                          t("the big-batch gradient of the same samples, within a tolerance"),
                          t("the gradient of the last microbatch"),
                          t("the loss after a short training run")),
                 right=1),
        Question(t("One update has A = 4 microbatches of 3, 5, 2 and 6 samples. The loop divides "
                   "each microbatch's mean loss by A. How many times its correct weight does one "
                   "sample of the microbatch of 2 get?"),
                 t("The correct weight is 1 ÷ 16, since the group holds 16 samples. The mean ÷ A "
                   "gives 1 ÷ (4 × 2) = 1 ÷ 8, twice too much, so the verifier fails this loop."),
                 number=2),
        Question(t("verify(replicas=2) runs with m = 2 and A = 4. How many samples does the "
                   "single-process big batch that it checks against hold?"),
                 t("m × A × D = 2 × 4 × 2 = 16 samples: 8 per replica. The reference sees all of "
                   "them in one forward pass."),
                 number=16),
        Question(t("A training loop calls clip_grad_norm_ after every backward, inside the "
                   "microbatch loop. What does check_loop report?"),
                 t("Clipping per microbatch: each clip acts on a partial sum of the gradient. The "
                   "clip belongs once per update, after the last backward and before "
                   "optimizer.step."),
                 choices=(t("a double division of the loss"),
                          t("nothing: clipping more often is only safer"),
                          t("clipping per microbatch, with the line of the clip"),
                          t("a zero_grad in the wrong place")),
                 right=2),
        Question(t("nanoGPT's loop divides each microbatch's mean loss by "
                   "gradient_accumulation_steps. On blocks whose documents end early, what does "
                   "its gradient become?"),
                 t("A mean of microbatch means, the steps normalization of chapter 03: the "
                   "microbatches hold different numbers of targets but get equal weight. On blocks "
                   "where every target is supervised, the same loop passes."),
                 choices=(t("a mean of microbatch means, which depends on the split"),
                          t("the correct token-normalized gradient"),
                          t("a gradient A times too small")),
                 right=0),
        Question(t("Which of these mistakes can check_loop NOT see?"),
                 t("It checks one update, so it cannot see what differs only between updates, such "
                   "as the learning-rate values. It does see a clip before unscale_, a clip per "
                   "microbatch and, with replicas=2, a per-replica denominator."),
                 choices=(t("a clip before unscale_ with GradScaler"),
                          t("a per-replica denominator, with replicas=2"),
                          t("clipping inside the microbatch loop"),
                          t("a wrong learning-rate value from one update to the next")),
                 right=3),
        Question(t("A short float32 run writes its record. Which counts must be equal in it?"),
                 t("Updates attempted, updates applied and scheduler steps: in float32 no update "
                   "is skipped, and the scheduler steps once per applied update. With fp16 an "
                   "overflow can skip an update, which is why the record counts them apart."),
                 choices=(t("updates applied and backward passes"),
                          t("updates attempted, updates applied and scheduler steps"),
                          t("scheduler steps and microbatches")),
                 right=1),
        Question(t("Your own model passed on a toy set of the course. Why must you still run the "
                   "verifier on your model with your own microbatches?"),
                 t("The usual mistakes hide in your collator, padding, -100 labels and loss, which "
                   "the course's models do not have. Only your model with your own batch dicts "
                   "tests that code.")),
    ]
