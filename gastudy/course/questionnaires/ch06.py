"""Chapter 06's questionnaire: data parallel, the global denominator, no_sync, sample ids, FSDP2."""

from __future__ import annotations

from gastudy.course.i18n import t
from gastudy.course.questionnaire import Question


def questions() -> list[Question]:
    """The questions of chapter 06, in the course language."""
    return [
        Question(t("What does DistributedDataParallel (DDP) do with the gradients of the D "
                   "replicas?"),
                 t("It all-reduces them to their mean over the D replicas, so every replica steps "
                   "with the same gradient. That averaging is why each replica's loss is "
                   "multiplied by D in the correct update."),
                 choices=(t("it sums them"),
                          t("it averages them over the D replicas"),
                          t("it keeps each replica's gradient separate until the step"),
                          t("it keeps the largest one")),
                 right=1),
        Question(t("Two replicas hold 700 and 500 supervised items in one accumulation group. What "
                   "denominator does every replica divide its summed loss by, before multiplying "
                   "by D?"),
                 t("The global denominator 700 + 500 = 1200: the supervised items of the whole "
                   "group on all replicas, exchanged before the first backward. Multiplying by "
                   "D = 2 then cancels DDP's mean."),
                 number=1200),
        Question(t("With no_sync around all but the last microbatch, one update makes 3 gradient "
                   "all-reduce calls (one per bucket). With A = 4, how many does it make without "
                   "no_sync?"),
                 t("12: without no_sync DDP all-reduces after every backward, A = 4 times per "
                   "update, although only the sum after the last microbatch is used."),
                 number=12),
        Question(t("A loop runs each microbatch's forward outside model.no_sync() and only its "
                   "backward inside. What happens?"),
                 t("DDP prepares the all-reduce during a forward run with synchronization on, so "
                   "every backward still communicates: A times the traffic. The gradient stays "
                   "right, which is why the mistake goes unnoticed."),
                 choices=(t("one all-reduce per update, as intended"),
                          t("the gradient is wrong by a factor of A"),
                          t("the right gradient, but an all-reduce after every microbatch"),
                          t("DDP raises an error at the first backward")),
                 right=2),
        Question(t("FSDP2 with the default reshard_after_forward=True shards tiny-gpt into 5 "
                   "modules (4 blocks and the root). With A = 4, how many all-gathers does one "
                   "update make?"),
                 t("A × (5 + 4) = 36: on every microbatch each of the 5 modules gathers its "
                   "weights for the forward, and each of the 4 blocks again for the backward. "
                   "Under both sync policies, accumulation does not reduce this traffic."),
                 number=36),
        Question(t("Under FSDP2's deferred sync policy, how much of the gradient does each replica "
                   "hold during an accumulation group?"),
                 t("The whole, unsharded gradient, until the last backward reduce-scatters it: one "
                   "reduce-scatter per module per update, but none of the gradient memory that "
                   "sharding was meant to save. The every policy keeps only 1/D of it."),
                 choices=(t("the whole, unsharded gradient"),
                          t("a 1/D shard of it"),
                          t("none: gradients are sent away after every backward")),
                 right=0),
        Question(t("Why is it hard to notice that every replica reads the same samples, and how do "
                   "you detect it?"),
                 t("Nothing crashes and the loss looks normal, but the update holds only m × A "
                   "distinct samples instead of m × A × D. Compare the sample ids of each "
                   "replica's group before the first backward, as the engine does.")),
        Question(t("Two replicas hold 300 and 100 supervised items. Each divides its summed loss by "
                   "its own count, and DDP averages the gradients. How many times more does one item "
                   "of the second replica weigh than one of the first?"),
                 t("3 times: with Iᵣ items on replica r, each of them weighs 1 ÷ (D·Iᵣ), so 1/200 "
                   "against 1/600. With the global denominator every item weighs 1 ÷ N = 1/400, "
                   "as in the big batch."),
                 number=3),
        Question(t("What goes wrong if each replica divides its summed loss by its own supervised "
                   "items instead of the global denominator?"),
                 t("DDP then averages D local means: a mean of means, biased whenever the replicas "
                   "hold different numbers of items. It is exact only when every replica holds "
                   "the same count.")),
    ]
