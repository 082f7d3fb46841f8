"""Chapter 12's questionnaire: the learners' questions, answered with the course's measurements."""

from __future__ import annotations

from gastudy.course.i18n import t
from gastudy.course.questionnaire import Question


def questions() -> list[Question]:
    """The questions of chapter 12, in the course language."""
    return [
        Question(t("When is accumulating A microbatches the same as one batch A times larger?"),
                 t("Within rounding, when the loss is normalized over the whole group and no layer "
                   "mixes the samples of a batch. BatchNorm mixes them, and no loss weighting "
                   "repairs that."),
                 choices=(t("always, bit for bit"),
                          t("never: accumulation always changes the gradient a lot"),
                          t("within rounding, with a group-normalized loss and no layer that mixes "
                            "samples")),
                 right=2),
        Question(t("You train on 8 GPUs with tensor parallelism of 2 (each model is split over 2 "
                   "GPUs), m = 2 and A = 8. How many samples does one update see?"),
                 t("The 8 GPUs hold 8 ÷ 2 = 4 data-parallel replicas, so m × A × D = "
                   "2 × 8 × 4 = 64. GPUs that split one model add no samples; counting all 8 would "
                   "claim 128."),
                 number=64),
        Question(t("22 samples are cut into microbatches of m = 2 and grouped with A = 4. With "
                   "the policy drop, how many samples does the epoch skip?"),
                 t("22 samples make 11 microbatches: 2 full groups use 8 of them, and the short "
                   "last group of 3 microbatches, 6 samples, is skipped. With keep it runs as a "
                   "third update with its own denominator; either way, record those samples."),
                 number=6),
        Question(t("Does activation checkpointing change the gradients?"),
                 t("No: the recomputation runs the same operations on the same inputs, so the "
                   "gradient is the same. It changes memory and time, not the mathematics."),
                 choices=(t("yes, the recomputed activations are approximations"),
                          t("no, it changes only memory and time"),
                          t("only when it is combined with accumulation")),
                 right=1),
        Question(t("With fp16, the scaled gradients of an update overflow. What happens, and what "
                   "should the scheduler do?"),
                 t("GradScaler skips the optimizer step and lowers its scale. The update was "
                   "attempted but not applied, so the scheduler must not step for it: count "
                   "attempted and applied updates apart."),
                 choices=(t("the step is skipped and the scale lowered; the scheduler follows "
                            "applied updates only"),
                          t("the step runs with clipped gradients; the scheduler steps as usual"),
                          t("training stops with an error"),
                          t("the step is skipped; the scheduler steps anyway to stay on time")),
                 right=0),
        Question(t("An epoch has 1024 samples, m = 4 and D = 1. How many optimizer steps does it "
                   "make with A = 8?"),
                 t("One step per update of m × A × D = 32 samples: 1024 ÷ 32 = 32 steps, where "
                   "A = 1 makes 256. That is another training (8× fewer, larger updates), and the "
                   "steps not made save time only where one step is a sizeable share of a "
                   "microbatch's work — a tiny model with a tiny microbatch."),
                 number=32),
        Question(t("When does the Hugging Face Trainer divide the summed loss by the group's "
                   "supervised tokens?"),
                 t("When it can pass the count to the loss: the model's forward accepts loss "
                   "kwargs, or you give a compute_loss_func. Otherwise it divides each "
                   "microbatch's own mean loss by gradient_accumulation_steps, the ÷A "
                   "normalization."),
                 choices=(t("always, whatever the model"),
                          t("never: it always divides by gradient_accumulation_steps"),
                          t("only when average_tokens_across_devices is off"),
                          t("when the model accepts loss kwargs or a compute_loss_func is given")),
                 right=3),
        Question(t("Checkpointing or accumulation: which one changes your training, and when "
                   "would you use each?"),
                 t("Checkpointing keeps the same batch and the same gradient; accumulation splits "
                   "the batch, so it matches the big batch only within rounding, and not with "
                   "BatchNorm. Checkpoint when one sample's activations are too large, accumulate "
                   "for a larger batch than fits, and combine them when neither is enough.")),
    ]
