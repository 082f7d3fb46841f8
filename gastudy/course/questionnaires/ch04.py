"""Chapter 04's questionnaire: group order, kept activations, the short last group, scheduler."""

from __future__ import annotations

from gastudy.course.i18n import t
from gastudy.course.questionnaire import Question


def questions() -> list[Question]:
    """The questions of chapter 04, in the course language."""
    return [
        Question(t("In which order does a correct accumulation group run?"),
                 t("First the group is decided: its microbatches, sample ids and denominator, all "
                   "from the labels. Then forward, normalized loss and backward for each "
                   "microbatch, with no update. Only after the last backward: clipping, the "
                   "update, and zero_grad."),
                 choices=(t("forward every microbatch, count the items, then backward each one, "
                            "then clip and step"),
                          t("per microbatch: forward, backward, clip; then step and zero_grad"),
                          t("decide the microbatches and the denominator; forward and backward "
                            "each microbatch; then clip, step and zero_grad"),
                          t("per microbatch: forward, backward and step; then zero_grad once")),
                 right=2),
        Question(t("A loop adds up the graph-attached losses (total = total + loss) and calls "
                   "backward once at the end of the group. What happens?"),
                 t("The gradient is right, but every microbatch's activations stay alive until "
                   "that final backward, so the peak memory grows with A and accumulation saves "
                   "nothing. Backward per microbatch, and log loss.detach() or loss.item()."),
                 choices=(t("the gradient is A times too large"),
                          t("the gradient is right, but the activations of every microbatch stay "
                            "in memory until the end"),
                          t("nothing: autograd frees each microbatch's activations after its "
                            "forward"),
                          t("PyTorch raises an error at the second microbatch")),
                 right=1),
        Question(t("44 samples, m = 4, A = 3, short last group dropped. How many samples are not "
                   "trained on in this epoch?"),
                 t("44 samples make 11 microbatches: 3 full groups of 3, then a last group of 2 "
                   "microbatches. Dropping it leaves out 2 × 4 = 8 samples, which the group plan "
                   "records."),
                 number=8),
        Question(t("Same data, but the short last group is kept, and a helper divides every loss "
                   "by the configured A instead of using the group's own items. By what factor is "
                   "that group's gradient scaled?"),
                 t("By size/A = 2/3 ≈ 0.67: the 2-microbatch group is under-weighted without any "
                   "warning. Kept with its true denominator, it gives a full-weight update."),
                 number=2 / 3, rel_tol=0.02),
        Question(t("A schedule is defined in updates, but the loop calls scheduler.step() after "
                   "every microbatch, with A = 4. Counting updates from k = 0, the schedule's "
                   "value at which step does update k = 2 use?"),
                 t("(k + 1) × A = 3 × 4 = 12, where stepping once per update would use step 2: the "
                   "schedule runs A times too fast, so the warm-up ends early and the decay "
                   "reaches its floor long before training ends."),
                 number=12),
        Question(t("In a plain PyTorch loop with a learning-rate scheduler, where does "
                   "scheduler.step() go?"),
                 t("Once per update, after optimizer.step() and before optimizer.zero_grad(): the "
                   "schedule is defined in updates, and the rate it sets is the one the next "
                   "update uses."),
                 choices=(t("after every loss.backward()"),
                          t("before optimizer.step(), once per update"),
                          t("after optimizer.step(), once per update")),
                 right=2),
        Question(t("With Accelerate's accumulate() and accelerator.backward(loss), which loss "
                   "gives the token-normalized update on variable-length data?"),
                 t("accelerator.backward divides the loss by A. The summed loss divided by the "
                   "group's items counted up front, times A, cancels that division; the model's "
                   "own mean loss gives the steps normalization instead."),
                 choices=(t("the model's own loss, the mean over the microbatch's targets"),
                          t("the summed loss divided by the group's items, times A"),
                          t("the summed loss divided by the microbatch's own items")),
                 right=1),
        Question(t("Why must the group's denominator be fixed before its first backward, and why "
                   "is no forward needed to fix it?"),
                 t("Each backward adds its microbatch's summed loss divided by the denominator to "
                   ".grad at once, so the denominator must already be the whole group's count. "
                   "That count comes from the labels alone, which are known before any forward.")),
    ]
