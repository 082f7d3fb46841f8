"""Chapter 09's questionnaire: memory over a whole group, the planner, and the fixed part."""

from __future__ import annotations

from gastudy.course.i18n import t
from gastudy.course.questionnaire import Question


def questions() -> list[Question]:
    """The questions of chapter 09, in the course language."""
    return [
        Question(t("A run with the new batch size finishes one forward pass without running out "
                   "of memory. What has that check not seen?"),
                 t("The gradients, which appear at the first backward and are as large as the "
                   "weights, and AdamW's state, which is created only at the first update. The "
                   "peak of training comes later, so watch a whole group and the groups after it."),
                 choices=(t("nothing: the forward pass is where the peak is"),
                          t("only the time per update"),
                          t("the gradients and the optimizer state")),
                 right=2),
        Question(t("A model has 1,000,000 float32 parameters and trains with AdamW. Counting "
                   "weights, gradients and AdamW's two moments, how many bytes is the fixed part? "
                   "(Ignore the small step counters.)"),
                 t("Four tensors of the weights' size, 4 bytes per element: "
                   "4 × 1,000,000 × 4 = 16,000,000 bytes. None of it shrinks when m shrinks."),
                 number=16_000_000),
        Question(t("Compared with group 1, how high does a later group's memory sit, counting "
                   "exact tensor bytes?"),
                 t("Higher by exactly the optimizer state. In group 1 the forward and backward "
                   "passes ran before any optimizer state existed; from the first update on, "
                   "AdamW's state stays and every later group's activations and gradients come on "
                   "top of it."),
                 choices=(t("higher by exactly the optimizer state"),
                          t("lower, because the allocator's cache is warm"),
                          t("the same, because the group is the same size"),
                          t("higher by one more copy of the gradients")),
                 right=0),
        Question(t("On the GPU, the CUDA allocator rounds every block up to a multiple of 512 "
                   "bytes. How many bytes does torch.cuda.memory_allocated count for a tensor of "
                   "200 float32 values?"),
                 t("The tensor holds 200 × 4 = 800 bytes, and the next multiple of 512 is 1024. "
                   "The count is exact about blocks, not about the tensors' own sizes."),
                 number=1024),
        Question(t("How many microbatch sizes m does the planner measure for B = 16 samples per "
                   "update on D = 1?"),
                 t("Every divisor of B ÷ D = 16 keeps m × A × D = B exactly: 1, 2, 4, 8 and "
                   "16, so 5 candidates."),
                 number=5),
        Question(t("The target is B = m × A × D = 32 on D = 2 replicas, and the planner picks "
                   "m = 4. What is A?"),
                 t("A = B ÷ (m × D) = 32 ÷ (4 × 2) = 4. Shrinking m raises A, so the "
                   "effective batch stays on target."),
                 number=4),
        Question(t("Weights, gradients and AdamW's state alone exceed the memory budget. What can "
                   "bring the run under it?"),
                 t("Only a change to the fixed part, such as another optimizer, another precision "
                   "or sharding; this changes the experiment, so record it. A smaller m and a "
                   "larger A shrink activations only."),
                 choices=(t("a smaller m with a larger A"),
                          t("a change to the fixed part: optimizer, precision or sharding"),
                          t("a larger A with the same m")),
                 right=1),
        Question(t("Why does halving m not halve the peak memory?"),
                 t("Only the activations grow with the samples in a microbatch. The weights, the "
                   "gradients and the optimizer state have the same size for every m, so they "
                   "stay in the peak.")),
    ]
