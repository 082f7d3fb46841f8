"""Chapter 03's questionnaire: counting supervised items, tokens, steps or mean, dividing twice."""

from __future__ import annotations

from gastudy.course.i18n import t
from gastudy.course.questionnaire import Question


def questions() -> list[Question]:
    """The questions of chapter 03, in the course language."""
    return [
        Question(t("One microbatch has 512 supervised tokens with mean loss 2, another 1,536 with "
                   "mean loss 4. What is the group's loss per token, in nats?"),
                 t("(512 × 2 + 1536 × 4) / 2048 = 7168 / 2048 = 3.5: the sum of all token losses "
                   "divided by all supervised tokens. The mean of the two means, 3.0, is wrong."),
                 number=3.5),
        Question(t("In the same example (A = 2, N = 2048), the mean of means gives each token of "
                   "the 512-token microbatch the weight N/(A·nᵢ). What is that weight?"),
                 t("2048 / (2 × 512) = 2: each of its tokens counts twice. The tokens of the "
                   "1,536-token microbatch get 2048 / (2 × 1536) = 2/3, so the small microbatch "
                   "gets half the say with a quarter of the tokens."),
                 number=2),
        Question(t("What is the supervised-item count of a padded causal-LM microbatch?"),
                 t("The logits at position i predict the token at i + 1, so the labels are "
                   "shifted: count labels[..., 1:] that are not -100. Padding and prompt "
                   "positions are -100 and never count."),
                 choices=(t("the number of labels[..., 1:] that are not -100"),
                          t("the number of labels that are not -100, without any shift"),
                          t("the number of rows times the padded length"),
                          t("the number of samples in the microbatch")),
                 right=0),
        Question(t("A padded causal microbatch of 8 rows, every token supervised (no prompts). By "
                   "how many items does an unshifted count exceed the right count?"),
                 t("By 8, one per row: nothing predicts the token at position 0 of a row, but its label is "
                   "not -100 here, so the unshifted count includes it. With prompts labelled -100 "
                   "the same mistake would add nothing."),
                 number=8),
        Question(t("On variable-length text, which normalization gives the big-batch gradient?"),
                 t("Only tokens: each microbatch's summed loss divided by the supervised items of "
                   "the whole group. Steps and mean weight every microbatch's mean equally; they "
                   "agree with tokens only when the counts are equal."),
                 choices=(t("steps: each microbatch's mean divided by A"),
                          t("mean: the mean of the microbatch means"),
                          t("tokens: each summed loss divided by the group's items"),
                          t("all three give the same update")),
                 right=2),
        Question(t("A short last group holds 3 microbatches while A = 4. What is the norm of the "
                   "steps gradient divided by the norm of the mean gradient?"),
                 t("3/4 = 0.75: steps still divides by the configured A = 4, while mean divides by "
                   "the 3 microbatches the group really has. On a full group the two are the same "
                   "division."),
                 number=0.75),
        Question(t("Your loss already returns loss_sum / num_items_in_batch, but you declare "
                   "loss_is_scaled_for_ga = False, with A = 8. How many times too small are the "
                   "gradient and the logged loss?"),
                 t("8 times (exactly A): the engine or the Trainer divides your already normalized "
                   "loss by the number of microbatches once more. Declare True for such a loss."),
                 number=8),
        Question(t("Why does a gradient that is A times too small act like a learning rate cut by "
                   "A with plain SGD, but hardly change the steps of AdamW?"),
                 t("The SGD step is the learning rate times the gradient, so it shrinks by A. "
                   "AdamW divides each coordinate by the root of its own running squared "
                   "gradient, which shrinks by the same factor, so a constant scale mostly "
                   "cancels; the logged loss and gradient-norm thresholds are still wrong.")),
    ]
