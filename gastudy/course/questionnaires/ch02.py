"""Chapter 02's questionnaire: m × A × D samples per update, replicas, and what the product says."""

from __future__ import annotations

from gastudy.course.i18n import t
from gastudy.course.questionnaire import Question


def questions() -> list[Question]:
    """The questions of chapter 02, in the course language."""
    return [
        Question(t("The guide's example: m = 2, A = 8, D = 2. How many samples of one update does "
                   "each replica process?"),
                 t("Each replica contributes m × A = 2 × 8 = 16 samples; the update as a whole "
                   "sees m × A × D = 32 distinct samples."),
                 number=16),
        Question(t("What does D count in m × A × D?"),
                 t("D counts data-parallel replicas only: the copies of the model that each read "
                   "their own share of the samples. Devices that split one model between them add "
                   "no samples per update."),
                 choices=(t("every GPU the run uses"),
                          t("the data-parallel replicas, each with its own share of the samples"),
                          t("the tensor-parallel size times the pipeline-parallel size"),
                          t("the number of machines (nodes) in the run")),
                 right=1),
        Question(t("16 GPUs, each copy of the model split over 4 GPUs by pipeline parallelism; "
                   "m = 2, A = 8. How many samples does one update see?"),
                 t("The 16 GPUs form D = 16 / 4 = 4 replicas, so one update sees "
                   "m × A × D = 2 × 8 × 4 = 64 samples, not 2 × 8 × 16 = 256."),
                 number=64),
        Question(t("You want 512 samples per update with m = 4 on D = 8 replicas. Which A?"),
                 t("A = 512 / (m × D) = 512 / (4 × 8) = 16 microbatches per update on each "
                   "replica."),
                 number=16),
        Question(t("Two runs use the splits m × A = 32 × 1 and m × A = 4 × 8 on one replica. What "
                   "does the equal product tell you?"),
                 t("Only that both updates hold 32 samples. The memory one microbatch keeps for "
                   "backward follows m, so it differs a lot between the splits, and the speed must "
                   "be measured too."),
                 choices=(t("they need the same memory and run at the same speed"),
                          t("the 4 × 8 split needs more activation memory, because it runs more "
                            "microbatches"),
                          t("both updates process 32 samples, and nothing more")),
                 right=2),
        Question(t("With m × A fixed, what usually happens to the time of one update as m shrinks "
                   "and A grows?"),
                 t("It usually rises: many small forwards use the hardware less efficiently than "
                   "one large forward. The lab's timings vary from run to run, but the trend is "
                   "typical."),
                 choices=(t("it usually rises"),
                          t("it usually falls, because each forward is smaller"),
                          t("it stays the same, because the same samples are processed")),
                 right=0),
        Question(t("Why do devices used for tensor or pipeline parallelism not add samples to an "
                   "update?"),
                 t("They split one model (each layer, or the stack of layers) and work together on "
                   "the same samples. Only data-parallel replicas read different samples, so only "
                   "they multiply the samples per update.")),
    ]
