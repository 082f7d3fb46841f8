"""The Hugging Face bridge: the source documents' APIs next to gastudy, checked against it.

The guides the course follows are Hugging Face documents (GA-1…GA-6, CK-1…CK-4). This module
lets a chapter run their APIs for real — ``TrainingArguments``, ``Trainer``, a custom
``compute_loss``, ``loss_is_scaled_for_ga``, Accelerate's ``accumulate()``, gradient
checkpointing — on a tiny causal LM built from a config (nothing is downloaded), and compare
the gradient the optimizer consumed with the gradient gastudy's engine computes on the same
samples.

Everything here needs the optional ``hf`` extra (transformers, accelerate). Without it,
:func:`hf_available` is False and :func:`hf_cell` prints :func:`skip_note` instead of failing,
so every chapter still runs. The imports of transformers/accelerate happen inside the
functions: importing this module is cheap.

Typical notebook cell::

    if hf_cell("TrainingArguments ↔ m and A"):
        from transformers import TrainingArguments
        ...
        check(compare_with_gastudy(grads, model, microbatches).passed, "...")

Course: 01 §3 (GA-3), 03 §3-§4 (GA-4, GA-6), 04 (Accelerate), 08 (CK, via H4's cells).
"""

from __future__ import annotations

import copy
import importlib.util
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from gastudy.check.verify import compare_gradients
from gastudy.core.data import PAD, Sample, pad_collate
from gastudy.course.datasets import BOS, EOS, VOCAB_SIZE
from gastudy.course.labs.updates import engine_gradient

HF_PACKAGES = ("transformers", "accelerate")
HF_INSTALL = 'pip install -c requirements/constraints.txt -e ".[hf]"'
# Keys of a course batch that a Hugging Face model or Trainer does not take.
COURSE_ONLY_KEYS = frozenset({"sample_ids"})
# Largest accepted relative gradient difference between a Hugging Face run and gastudy (fp32):
# the same float32 operations in a different order differ by ~1e-7 relative; 1e-5 leaves room.
BRIDGE_TOLERANCE = 1e-5


# Set to 1 to run the course as if the hf extra were absent (every Hugging Face cell skips):
# how the skip path is tested, and a way to keep a workshop on one path.
NO_HF_ENV = "GASTUDY_NO_HF"


def missing_hf_packages() -> list[str]:
    """The packages of the ``hf`` extra that cannot be imported here (empty when all are present);
    all of them when the environment variable ``GASTUDY_NO_HF`` is ``1``.
    Course: 00 (environment), every Hugging Face cell."""
    if os.environ.get(NO_HF_ENV) == "1":
        return list(HF_PACKAGES)
    return [name for name in HF_PACKAGES if importlib.util.find_spec(name) is None]


def hf_available() -> bool:
    """True when transformers and accelerate are importable (the ``hf`` extra is installed).
    Course: every Hugging Face cell."""
    return not missing_hf_packages()


def skip_note(what: str) -> str:
    """The sentence a Hugging Face cell prints instead of running: what is skipped, what is
    missing and how to install it. Course: every Hugging Face cell."""
    from gastudy.course.i18n import t

    missing = ", ".join(missing_hf_packages()) or t("nothing")
    why = (t("{variable}=1 is set", variable=NO_HF_ENV) if os.environ.get(NO_HF_ENV) == "1"
           else t("missing here: {missing}; install it with: {command}", missing=missing, command=HF_INSTALL))
    return t("⤼ skipped: {what}. This cell runs the Hugging Face APIs for real and needs the optional "
             "'hf' extra ({why}). The rest of the chapter does not depend on it.", what=what, why=why)


def hf_cell(what: str) -> bool:
    """Gate for a Hugging Face cell: True when it can run; otherwise print :func:`skip_note`
    and return False (the cell then does nothing, and the notebook goes on). Course: every
    Hugging Face cell."""
    if hf_available():
        return True
    print(skip_note(what))
    return False


def quiet_transformers() -> None:
    """Silence transformers' advisory logging (config notes, progress bars) so a cell shows
    only what the course prints. Course: every Hugging Face cell."""
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()


def tiny_causal_lm(seed: int = 0, layers: int = 2, hidden: int = 32, heads: int = 2, max_len: int = 64) -> nn.Module:
    """A tiny GPT-2 causal LM built from a config — no download — over the course's vocabulary.

    ``GPT2LMHeadModel(GPT2Config(...))`` with ``VOCAB_SIZE`` tokens, ``layers`` blocks of width
    ``hidden``, dropout off (gradients are compared exactly) and the course's pad/bos/eos ids.
    Its forward takes ``input_ids``, ``attention_mask`` and ``labels`` and returns an output
    with ``.logits`` (and ``.loss`` when labels are given), so gastudy's :class:`Accumulator`
    trains it unchanged. It supports ``gradient_checkpointing_enable``. Weights are drawn
    from ``torch.manual_seed(seed)``; the global RNG is restored afterwards. Raises
    ``ModuleNotFoundError`` (with the install command) without the ``hf`` extra.
    Course: every Hugging Face cell.
    """
    if not hf_available():
        raise ModuleNotFoundError(skip_note("a tiny Hugging Face model"))
    quiet_transformers()
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(vocab_size=VOCAB_SIZE, n_positions=max_len, n_embd=hidden, n_layer=layers, n_head=heads,
                        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, pad_token_id=PAD, bos_token_id=BOS,
                        eos_token_id=EOS)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = GPT2LMHeadModel(config)
    return model.train()


def hf_batch(batch: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A course batch in the dict format a Hugging Face model and Trainer take.

    Keeps ``input_ids``, ``attention_mask``, ``labels`` (-100 = ignored; the model shifts
    them itself), and for a packed batch ``position_ids`` and ``shift_labels``; drops the
    course's bookkeeping (``sample_ids``). Raises ``ValueError`` for a batch without
    ``input_ids`` (the classifier batches of the course have no Hugging Face counterpart here).
    Course: 01 §3, 03.
    """
    if "input_ids" not in batch:
        raise ValueError(f"a Hugging Face causal LM needs input_ids; this batch has {sorted(batch)} "
                         "(use the AdditionDataset batches, not the classifier's)")
    return {k: v for k, v in batch.items() if k not in COURSE_ONLY_KEYS}


def hf_collate(samples: Sequence[Sample]) -> dict[str, torch.Tensor]:
    """A Trainer ``data_collator``: the course's padded collator, then :func:`hf_batch`.
    Course: 01 §3, 03."""
    return hf_batch(pad_collate(samples))


def gastudy_gradient(model: nn.Module, microbatches: Sequence[Mapping[str, torch.Tensor]],
                     normalization: str = "tokens", task: str = "causal") -> dict[str, torch.Tensor]:
    """The gradient gastudy's engine hands the optimizer for ONE group of ``microbatches``.

    Runs :class:`~gastudy.core.engine.Accumulator` (with ``normalization``) on a deep copy of
    ``model`` and records the gradients at the step
    (:func:`gastudy.course.labs.updates.engine_gradient`); ``model`` itself is not touched. Returns ``{parameter name: gradient}``. Course: every Hugging Face cell.
    """
    return engine_gradient(copy.deepcopy(model).train(), list(microbatches), task, normalization)


@dataclass
class BridgeComparison:
    """How a Hugging Face run's gradient compares with gastudy's on the same samples.

    ``max_abs``/``max_rel``: the largest absolute difference, and that ÷ the largest gastudy
    entry; ``ratio``: ‖gastudy‖ ÷ ‖hf‖ (1 when they agree, A when the Hugging Face loss was
    divided once too often); ``passed``: ``max_rel <= tolerance``. Course: every Hugging Face cell.
    """

    normalization: str
    max_abs: float
    max_rel: float
    ratio: float
    tolerance: float

    @property
    def passed(self) -> bool:
        return self.max_rel <= self.tolerance

    def __str__(self) -> str:
        from gastudy.course.i18n import t

        text = (t("the Hugging Face gradient matches gastudy's ({normalization} normalization): relative gap "
                  "{gap} (tolerance {tol}), norm ratio {ratio}") if self.passed else
                t("the Hugging Face gradient differs from gastudy's ({normalization} normalization): relative gap "
                  "{gap} (tolerance {tol}), norm ratio {ratio}"))
        return text.format(normalization=self.normalization, gap=f"{self.max_rel:.1e}", tol=f"{self.tolerance:g}",
                           ratio=f"{self.ratio:.4g}")


def compare_with_gastudy(grads: Mapping[str, torch.Tensor], model: nn.Module,
                         microbatches: Sequence[Mapping[str, torch.Tensor]], normalization: str = "tokens",
                         tolerance: float = BRIDGE_TOLERANCE) -> BridgeComparison:
    """Compare ``grads`` (what a Hugging Face run's optimizer consumed) with gastudy's gradient
    for the same ``microbatches`` (course batches, with ``sample_ids``) from the same starting
    ``model``. Raises ``ValueError`` if the parameter names differ. Course: every Hugging Face cell.
    """
    ours = gastudy_gradient(model, microbatches, normalization)
    max_abs, max_rel = compare_gradients(grads, ours)
    norm = lambda g: float(torch.sqrt(sum((t.double() ** 2).sum() for t in g.values())))  # noqa: E731
    theirs = norm(grads)
    return BridgeComparison(normalization, max_abs, max_rel, norm(ours) / theirs if theirs else float("inf"),
                            tolerance)


def one_update_settings() -> dict[str, Any]:
    """The ``TrainingArguments`` settings, other than the two batch knobs, that make a Trainer
    run ONE update comparable with gastudy on the CPU: plain SGD at a constant learning rate,
    no gradient clipping, samples in order, nothing logged, saved or reported, a fresh
    temporary ``output_dir``. Course: 01 §3 (GA-3), 03, 08 (CK)."""
    return dict(output_dir=tempfile.mkdtemp(prefix="gastudy-hf-"), max_steps=1, learning_rate=1e-3, optim="sgd",
                lr_scheduler_type="constant", max_grad_norm=0.0, report_to="none", use_cpu=True,
                save_strategy="no", logging_strategy="no", remove_unused_columns=False,
                train_sampling_strategy="sequential", disable_tqdm=True, dataloader_num_workers=0)


def training_arguments(per_device_train_batch_size: int, gradient_accumulation_steps: int, **overrides: Any) -> Any:
    """``TrainingArguments(per_device_train_batch_size=m, gradient_accumulation_steps=A,
    **one_update_settings())``; ``overrides`` replace any setting (e.g.
    ``gradient_checkpointing=True``). Course: 01 §3 (GA-3), 03, 08 (CK)."""
    quiet_transformers()
    from transformers import TrainingArguments

    settings = {**one_update_settings(), **overrides}
    return TrainingArguments(per_device_train_batch_size=per_device_train_batch_size,
                             gradient_accumulation_steps=gradient_accumulation_steps, **settings)


def trainer_gradient(model: nn.Module, samples: Sequence[Sample], args: Any, trainer_class: type | None = None,
                     compute_loss_func: Callable[..., torch.Tensor] | None = None) -> dict[str, torch.Tensor]:
    """Run ``Trainer.train()`` for ONE optimizer update on a deep copy of ``model`` and return the
    gradient its optimizer step consumed (a ``TrainerCallback`` copies it just before the step).

    ``samples`` are course samples (``AdditionDataset`` items), batched in order by
    :func:`hf_collate`; ``args`` come from :func:`training_arguments`. ``trainer_class`` is a
    ``Trainer`` subclass (default ``Trainer``), ``compute_loss_func`` the Trainer's custom-loss
    hook ``f(outputs, labels, num_items_in_batch=None)``. Raises ``ValueError`` when the samples
    do not fill one update (m × A). Course: 01 §3, 03 §3-§4.
    """
    quiet_transformers()
    from transformers import PrinterCallback, Trainer, TrainerCallback

    need = args.per_device_train_batch_size * args.gradient_accumulation_steps
    if len(samples) < need:
        raise ValueError(f"one update needs m × A = {need} samples, got {len(samples)}")
    grads: dict[str, torch.Tensor] = {}

    class GrabGradient(TrainerCallback):
        def on_pre_optimizer_step(self, args, state, control, model=None, **kwargs):  # noqa: ARG002
            grads.update({n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None})

    trainer = (trainer_class or Trainer)(model=copy.deepcopy(model), args=args, train_dataset=list(samples[:need]),
                                         data_collator=hf_collate, callbacks=[GrabGradient()],
                                         compute_loss_func=compute_loss_func)
    trainer.remove_callback(PrinterCallback)  # the course prints its own comparison, not the Trainer's log
    trainer.train()
    return grads


def fresh_accelerator(gradient_accumulation_steps: int) -> Any:
    """An ``accelerate.Accelerator(gradient_accumulation_steps=A, cpu=True)`` with Accelerate's
    process-wide state reset first, so a notebook can build one per cell with another A.
    Course: 04 (Accelerate's ``accumulate()``)."""
    from accelerate import Accelerator
    from accelerate.state import AcceleratorState, GradientState

    AcceleratorState._reset_state(True)
    GradientState._reset_state()
    return Accelerator(gradient_accumulation_steps=gradient_accumulation_steps, cpu=True)
