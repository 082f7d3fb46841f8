"""Chapter 08's questionnaire: activation checkpointing, what it keeps, what it costs, offload."""

from __future__ import annotations

from gastudy.course.i18n import t
from gastudy.course.questionnaire import Question


def questions() -> list[Question]:
    """The questions of chapter 08, in the course language."""
    return [
        Question(t("In tiny-gpt, the sequence length T is multiplied by 8 while m stays fixed. "
                   "How do the bytes kept for backward change?"),
                 t("They grow by more than 8×: most activations hold one vector per token, which "
                   "is linear in T, but each layer also keeps tiny-gpt's explicit m × T × T "
                   "attention mask, which is quadratic in T. Attention on PyTorch's math backend "
                   "would add the m × heads × T × T probabilities, is_causal=True or not; only a "
                   "fused kernel (flash, memory-efficient) keeps no T × T tensor."),
                 choices=(t("exactly 8×, because every activation holds one vector per token"),
                          t("more than 8×, because of a part that grows like T²"),
                          t("less than 8×, because the weights do not grow"),
                          t("they do not change, because only m matters")),
                 right=1),
        Question(t("What does a checkpointed layer keep for backward?"),
                 t("Only its input. During the backward pass the layer's forward runs again from "
                   "that input to rebuild the activations it needs, just before they are used."),
                 choices=(t("all its activations, moved to host memory"),
                          t("nothing at all"),
                          t("its output and its gradients"),
                          t("only its input")),
                 right=3),
        Question(t("A model has 8 repeated blocks and uses every_n_layers = 3. How many blocks are "
                   "checkpointed?"),
                 t("The first block and every third after it are checkpointed: blocks 1, 4 and 7, "
                   "so 3 blocks. Embeddings and the output head are never counted."),
                 number=3),
        Question(t("Every layer of a 4-layer tiny-gpt is checkpointed (every_n_layers = 1), with m = 4, T = 64, "
                   "hidden 128 and float32. How many bytes do the checkpointed layers keep, "
                   "without the attention mask?"),
                 t("layers × m × T × hidden × bytes = 4 × 4 × 64 × 128 × 4 = 524,288 bytes. "
                   "Each layer keeps one input tensor of m × T × hidden elements; the mask is "
                   "one more input, shared by all layers. The source's formula, without m, "
                   "gives one sample's share."),
                 number=524288),
        Question(t("A backward pass costs about two forward passes. Checkpointing every layer adds "
                   "one more forward of every layer. About how many times the compute of an "
                   "update without checkpointing is that? (Give a ratio, such as 1.5.)"),
                 t("Without checkpointing an update costs about 1 + 2 = 3 forwards; with it "
                   "about 4, so the ratio is 4 ÷ 3 ≈ 1.33: up to about a third more compute. "
                   "The chapter holds the measured CPU seconds from both sides: above 1× (more "
                   "work), below 2× (one more forward, less than a whole step)."),
                 number=4 / 3, rel_tol=0.03),
        Question(t("On a machine without a GPU, what does save_on_cpu(pin_memory=False) do with a "
                   "tensor that autograd saves?"),
                 t("Nothing useful: tensor.cpu() returns the very same tensor when it is already "
                   "on the CPU, so nothing is copied and nothing is freed. That is why gastudy "
                   "leaves offload off on a CPU."),
                 choices=(t("it keeps the same tensor: nothing is copied and nothing is freed"),
                          t("it copies the tensor to pinned memory and frees the original"),
                          t("it writes the tensor to disk until the backward pass"),
                          t("it drops the tensor and recomputes it during the backward pass")),
                 right=0),
        Question(t("A Hugging Face model has a module with its own gradient_checkpointing flag "
                   "that is not a GradientCheckpointingLayer. You call "
                   "activation_checkpointing_enable(every_n_layers=4). What happens to that "
                   "module?"),
                 t("Transformers switches every such module on, whatever every_n_layers is; only "
                   "the GradientCheckpointingLayer blocks follow it. gastudy's enable_checkpointing "
                   "leaves such modules as it found them. It matters when the module checkpoints "
                   "its own work by that flag; on GPT-2 the flag changes nothing kept."),
                 choices=(t("it stays off, because every_n_layers = 4 skips it"),
                          t("it is switched on only when it is the first layer"),
                          t("it is switched on, whatever n is")),
                 right=2),
        Question(t("Why does combining checkpointing with accumulation keep less memory than "
                   "either one alone?"),
                 t("They reduce different factors: accumulation puts fewer samples in each "
                   "forward pass (a smaller m), and checkpointing keeps fewer bytes per sample. "
                   "The two savings multiply.")),
    ]
