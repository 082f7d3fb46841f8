"""Chapter 01's questionnaire: microbatch, backward and update; zero_grad slips; logging units."""

from __future__ import annotations

from gastudy.course.i18n import t
from gastudy.course.questionnaire import Question


def questions() -> list[Question]:
    """The questions of chapter 01, in the course language."""
    return [
        Question(t("The sample <bos> 12+7= 19 <eos> is written as 9 tokens. How many of its "
                   "positions carry a label other than -100?"),
                 t("3: the two digits of the answer and <eos>. The prompt positions are labelled "
                   "-100, so the cross-entropy skips them and they are not supervised items."),
                 number=3),
        Question(t("What does loss.backward() do to the .grad tensors during gradient "
                   "accumulation?"),
                 t("It adds this microbatch's contribution to what .grad already holds. It does "
                   "not change the parameters; only optimizer.step() does that, once per group."),
                 choices=(t("it replaces them with this microbatch's gradient"),
                          t("it adds this microbatch's gradient to them"),
                          t("it applies them to the parameters and then clears them"),
                          t("it averages them with the previous microbatch's gradient")),
                 right=1),
        Question(t("On one device, per_device_train_batch_size=4 and "
                   "gradient_accumulation_steps=8. How many updates does one epoch of 100 samples "
                   "make?"),
                 t("m = 4 and A = 8, so a full update holds m × A = 32 samples; 100 samples need "
                   "⌈100/32⌉ = 4 updates, and the last one holds only 4 samples."),
                 number=4),
        Question(t("With A = 4, optimizer.zero_grad() is called by mistake inside the microbatch "
                   "loop, so only the last microbatch's share reaches the optimizer. What sets how "
                   "large it is, compared with the big-batch gradient?"),
                 t("How the microbatches' shares line up: with cosine ρ between them it is about "
                   "1/√(A(1 + (A − 1)ρ)) of the big batch — 1/A = 1/4 when they point the same way, "
                   "1/√A = 1/2 when they are unrelated, and more than 1/2 when they oppose, as near a "
                   "minimum. 1/A and 1/√A are two regimes, not bounds."),
                 choices=(t("nothing: it is always exactly 1/4"),
                          t("it always lies between 1/4 and 1/2"),
                          t("how the shares line up: 1/4 if aligned, 1/2 if unrelated, more if they "
                            "oppose"),
                          t("it is the same size, only noisier")),
                 right=2),
        Question(t("A loop forgets to call zero_grad between accumulation groups. Counting updates "
                   "from 1, which update is the first to receive a wrong gradient?"),
                 t("Update 2. The first group starts from zero gradients, so update 1 is right; "
                   "from then on, every update also contains the previous group's gradient."),
                 number=2),
        Question(t("The same 32 samples are run as m × A = 8 × 4 and as 32 × 1. About how many "
                   "times more activation memory does the 32 × 1 split keep for backward?"),
                 t("About 4 times (32 / 8): activations scale with the microbatch, and a split's "
                   "peak is its largest microbatch, not the whole group."),
                 number=4),
        Question(t("Why does the sum G1 + G2 + G3 + G4 of an accumulation group equal the gradient "
                   "of one batch holding all 4 microbatches?"),
                 t("The parameters do not change during the group, so every microbatch is "
                   "evaluated at the same point, and each backward adds its share of the group's "
                   "loss (its summed loss divided by the group's supervised items). The gradient "
                   "is linear, so the shares add up to the big batch's gradient, up to rounding.")),
        Question(t("Run 1 updates after every microbatch (A = 1); run 2 accumulates A = 4 "
                   "microbatches. Why is it misleading to compare their losses at \"step 100\"?"),
                 t("Step can mean microbatches, updates, samples or tokens. At update 100, run 2 "
                   "has seen 4 times more samples than run 1, so it only seems to learn faster; "
                   "compare against samples or tokens, and say which axis you used.")),
    ]
