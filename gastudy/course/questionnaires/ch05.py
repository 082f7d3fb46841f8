"""Chapter 05's questionnaire: fp16 with a gradient scaler, bf16, skipped updates, clip order."""

from __future__ import annotations

from gastudy.course.i18n import t
from gastudy.course.questionnaire import Question


def questions() -> list[Question]:
    """The questions of chapter 05, in the course language."""
    return [
        Question(t("Which autocast precision needs a gradient scaler?"),
                 t("fp16: float16 has a small exponent range, so small gradients underflow to zero "
                   "unless the loss is scaled up. bf16 has the exponent range of fp32, so its "
                   "gradients do not underflow."),
                 choices=(t("bf16"),
                          t("fp16"),
                          t("both fp16 and bf16"),
                          t("neither: autocast keeps the gradients in float32")),
                 right=1),
        Question(t("A group runs with the scale 65,536 and the scaler finds an inf gradient. What "
                   "scale does the next group use?"),
                 t("32,768: the scaler skips the update and halves the scale, once, in "
                   "scaler.update() after the step attempt."),
                 number=32768),
        Question(t("Where does gradient clipping go in an fp16 accumulation group?"),
                 t("After scaler.unscale_, which runs once after the last backward, and before "
                   "scaler.step: clipping must see the true gradient, not the gradient times the "
                   "scale."),
                 choices=(t("after every microbatch's backward"),
                          t("after the last backward, before scaler.unscale_"),
                          t("after scaler.unscale_, before scaler.step"),
                          t("after scaler.step, before scaler.update")),
                 right=2),
        Question(t("Clipping is done by mistake before unscale_, with max_norm = 1.0 and the scale "
                   "65,536, and the true gradient norm is above 1. How many times smaller than "
                   "max_norm is the norm of the gradient the optimizer receives?"),
                 t("65,536 times: the scaled gradient is capped at max_norm, then divided by the "
                   "scale, so the optimizer gets max_norm / scale. SGD all but stops learning, and "
                   "the cap no longer means anything."),
                 number=65536),
        Question(t("An fp16 run attempts 8 updates and the scaler finds an overflow in one of "
                   "them. How many times does the scheduler step?"),
                 t("7: the schedule follows applied updates, and only 7 of the 8 attempted "
                   "updates were applied. The log should count attempted and applied updates "
                   "separately."),
                 number=7),
        Question(t("What happens if scaler.unscale_(optimizer) is moved inside the microbatch "
                   "loop?"),
                 t("PyTorch refuses: a scaler allows one unscale_ per optimizer between two "
                   "scaler.update() calls, so the second microbatch raises a RuntimeError. Dividing .grad "
                   "by the scale by hand would fail silently instead."),
                 choices=(t("nothing changes: unscale_ is idempotent"),
                          t("the update is silently skipped"),
                          t("the gradient is divided by the scale once per microbatch, with no "
                            "error"),
                          t("the second microbatch raises a RuntimeError")),
                 right=3),
        Question(t("In a plain PyTorch loop, how do you recognise that scaler.step() skipped the "
                   "update, so that the scheduler must not step?"),
                 t("After scaler.update(), scaler.get_scale() is smaller than the scale the group "
                   "used: the scaler lowers the scale only after a skipped step."),
                 choices=(t("scaler.step() returns False"),
                          t("the scale after scaler.update() is lower than the group's scale"),
                          t("the loss of the group is NaN"),
                          t("optimizer.zero_grad() raises an error")),
                 right=1),
        Question(t("Why must every microbatch of a group use the same loss scale?"),
                 t(".grad holds the sum of the scaled gradients of all microbatches, and "
                   "unscale_ divides that sum by one number. If the scale changed inside the "
                   "group, the microbatches would be weighted differently and the unscaled "
                   "gradient would be wrong.")),
    ]
