"""Chapter 13's questionnaire: the budget inequality, the ladder of settings, one verified update, and
the step back to the configuration and the experiment budget."""

from __future__ import annotations

from gastudy.course.i18n import t
from gastudy.course.questionnaire import Question


def questions() -> list[Question]:
    """The questions of chapter 13, in the course language."""
    return [
        Question(t("A model has 1,000,000 float32 parameters and trains with AdamW. One sample keeps "
                   "1,000,000 bytes for backward and the budget is 48,000,000 bytes. What is the largest "
                   "m the budget inequality allows?"),
                 t("The fixed part is 1,000,000 × 16 = 16,000,000 bytes; (48,000,000 − 16,000,000) ÷ "
                   "1,000,000 = 32 samples."),
                 number=32),
        Question(t("Why is the m from the budget inequality an upper bound rather than the answer?"),
                 t("It counts the weights, the gradients, the optimizer state and what the forward keeps, "
                   "but not the temporaries the backward needs while it runs. The measured peak is higher, "
                   "so a measurement decides.")),
        Question(t("In which order does the ladder try its settings?"),
                 t("By price: as it is first, then checkpointing on every 2nd layer, then on every layer, "
                   "then offload on a GPU; a lower precision only if you accept it, because it changes the "
                   "numbers of the run."),
                 choices=(t("lower precision first, because it saves the most"),
                          t("as it is, every 2nd layer, every layer, offload; another precision only if accepted"),
                          t("every layer first, because it saves the most")),
                 right=1),
        Question(t("Checkpointing every layer makes a step cost about one more forward pass. If a backward "
                   "costs two forwards, how many times the plain step's compute is that?"),
                 t("A plain step is 1 forward + 2 for the backward = 3; with checkpointing the forward runs "
                   "once more: 4 ÷ 3 ≈ 1.33."),
                 number=4 / 3, rel_tol=0.05),
        Question(t("Weights, gradients and AdamW's state alone are over the budget. Which rung of the ladder "
                   "helps?"),
                 t("None: checkpointing and offload shrink activations, and autocast keeps float32 weights. "
                   "Change the fixed part (an optimizer with less state, sharding) or raise the budget."),
                 choices=(t("checkpointing every layer"),
                          t("offload to host memory"),
                          t("none of them")),
                 right=2),
        Question(t("A microbatch of 4 fits as it is, but you need at least 16 to keep the GPU busy. What "
                   "does the ladder do?"),
                 t("It looks for a setting under which m ≥ 16 fits: checkpointing every 2nd layer first, "
                   "then every layer. A fitting m below your floor does not count."),
                 choices=(t("it takes m = 4 and a larger A"),
                          t("it tries checkpointing until an m of at least 16 fits"),
                          t("it lowers the precision first")),
                 right=1),
        Question(t("Why verify one update after choosing a setting that fits?"),
                 t("The setting changes how the update is computed: checkpointing recomputes forwards, "
                   "offload moves tensors, a lower precision changes the arithmetic. One update compared "
                   "with the big batch shows the run still trains the same model.")),
        Question(t("A smaller budget makes you halve m between two trials. What keeps them one "
                   "experiment?"),
                 t("Doubling A, so that B = m·A·D stays: the updates per epoch, the schedule and (within "
                   "rounding) every update's gradient stay with it. The data, the seed, the precision, the "
                   "normalization and the last-group policy stay fixed too, and the run record says so."),
                 choices=(t("nothing: m is only a memory setting"),
                          t("doubling A, so that B = m·A·D and with it the updates stay the same"),
                          t("halving the learning rate with m")),
                 right=1),
    ]
