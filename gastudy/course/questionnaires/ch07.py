"""Chapter 07's questionnaire: same effective batch, different experiment (MB-8, GA-2)."""

from __future__ import annotations

from gastudy.course.i18n import t
from gastudy.course.questionnaire import Question


def questions() -> list[Question]:
    """The questions of chapter 07, in the course language."""
    return [
        Question(t("Three MLPs differ only in their normalization layer. Which one gives an "
                   "accumulated gradient that is far from the big-batch gradient, well above "
                   "rounding?"),
                 t("BatchNorm normalizes each forward pass with the statistics of that pass's "
                   "samples, so A microbatches are normalized differently from one big batch. "
                   "LayerNorm normalizes each sample on its own, and the plain MLP has no "
                   "normalization, so both match the big batch within rounding."),
                 choices=(t("the plain MLP without normalization"),
                          t("the MLP with LayerNorm"),
                          t("the MLP with BatchNorm"),
                          t("all three: accumulation always changes the gradient")),
                 right=2),
        Question(t("Does SyncBatchNorm remove BatchNorm's gap under gradient accumulation?"),
                 t("No. SyncBatchNorm shares the batch statistics across the replicas of one "
                   "forward pass; the microbatches of one accumulation group run in separate "
                   "forward passes, so each still gets its own statistics."),
                 choices=(t("yes: it shares the statistics across the microbatches of a group"),
                          t("no: it shares statistics across replicas, not across microbatches"),
                          t("yes, but only when the loss is normalized by tokens")),
                 right=1),
        Question(t("For one update of tiny-gpt in float32, about how large is the relative gap "
                   "between the accumulated gradient and the big-batch gradient?"),
                 t("About 1e-7: adding the same numbers in a different order rounds differently. "
                   "It is near 1e-16 in float64 and near 1e-3 in bf16, so the verifier uses a "
                   "tolerance for each precision, never bit equality."),
                 choices=(t("about 1e-7"),
                          t("exactly 0, because the samples are the same"),
                          t("about 1e-16"),
                          t("about 1e-1")),
                 right=0),
        Question(t("An epoch has 1000 samples, m = 8, D = 1, and the short last group is "
                   "kept. How many updates does one epoch make with A = 16?"),
                 t("The global batch is m × A × D = 8 × 16 × 1 = 128 samples, and ceil(1000 ÷ 128) "
                   "= 8 updates, the last one short. With A = 1 the same epoch makes 125 updates."),
                 number=8),
        Question(t("With 1000 samples, m = 8 and D = 1, A = 4 makes 32 updates per epoch. You switch "
                   "to A = 8 and keep a warm-up written as 32 updates. How many epochs does the "
                   "warm-up now last?"),
                 t("With A = 8 one epoch makes ceil(1000 ÷ 64) = 16 updates, so 32 updates take 2 "
                   "epochs. A schedule written in updates covers other samples when the global "
                   "batch changes: decide what to keep and write it down."),
                 number=2),
        Question(t("The same 32 samples fit in memory as one batch. Which split of one update is "
                   "usually the fastest?"),
                 t("One real batch, m × A = 32 × 1, wherever every microbatch pays a fixed cost c₀ "
                   "(its kernel launches, its pass over the weights, its Python overhead): A "
                   "microbatches take t(A) = A·c₀ + B·c₁. Measured here, 1 × 32 was several times "
                   "slower. A split can win only where small microbatches compute each sample "
                   "faster, so measure it where you train."),
                 choices=(t("1 × 32, because small microbatches use less memory"),
                          t("4 × 8, because it balances memory and speed"),
                          t("32 × 1, one real batch"),
                          t("all splits take the same time, since the samples are the same")),
                 right=2),
        Question(t("A model has dropout 0.1, and verify_one_update fails on one accumulated update "
                   "of it. What do you do first?"),
                 t("Verify a copy built with dropout 0: every forward draws new masks, so the "
                   "microbatches and the big batch drop different units and their gradients differ "
                   "whatever the loss weighting. check_loop does it for you: it switches dropout off "
                   "on its copies and says so in a note."),
                 choices=(t("accept the gap: dropout makes accumulation wrong"),
                          t("verify a copy with dropout 0"),
                          t("divide the loss by A once more"),
                          t("use a larger tolerance")),
                 right=1),
        Question(t("Why does the course compare two finished runs by their metrics, and not by "
                   "their weights?"),
                 t("Accumulation adds in a different order than one big batch, so the weights "
                   "differ by rounding, and AdamW divides by the square root of a running second "
                   "moment, so these small differences grow over many updates. Equal weights "
                   "cannot be expected; one update is verified against a tolerance, and finished "
                   "runs are compared by quality.")),
    ]
