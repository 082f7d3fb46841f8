"""Accumulation loops of the frameworks (Accelerate, the Lightning Trainer, Fabric/litgpt), run for real.

Every ``train_step(model, optimizer, microbatches[, lr_scheduler|scheduler])`` below builds the
framework's own objects around the model copy and the optimizer that ``check_loop`` hands it — an
``Accelerator`` and ``accelerator.prepare``, a ``lightning.pytorch.Trainer`` and ``trainer.fit``,
a ``lightning.Fabric`` and ``fabric.setup``/``setup_optimizers`` — and then makes the calls of ONE
accumulated update of a public training script, in its order and with its defaults (the
installed accelerate 1.15 and lightning 2.6.6 do the work: nothing of theirs is re-implemented).
None of the scripts' code is copied; the docstring above each loop names its source
(repository, file, lines of the snapshot read). What is left out is the machinery around the
update: argument parsing, dataset download and tokenization, logging, checkpoints, evaluation.

The batches are what the scripts' collators produce for a Hugging Face causal LM: ``input_ids``
padded on the right, an ``attention_mask`` and ``labels`` = the ids with -100 on the padding
(unshifted: the model shifts them inside its loss), made with :func:`gastudy.pad_collate` from
random token ids so that no tokenizer is needed. The models are tiny Hugging Face models built
from configs (nothing is downloaded), dropout 0.
"""

from __future__ import annotations

import contextlib
import copy
import math

import lightning as L
import torch
import torch.nn.functional as F
import transformers
from accelerate import Accelerator
from accelerate.state import AcceleratorState, GradientState
from torch.utils.data import DataLoader

from gastudy.core.data import pad_collate

VOCAB = 32
PAD = 0  # also the "eos" of the tiny vocabulary: the accelerate example pads with eos
IGNORE = -100

FIXED_LENGTHS = [8] * 8  # 8 samples of 8 tokens, no padding: every microbatch has 2·7 = 14 targets
VARIABLE_LENGTHS = [3, 9, 5, 12, 4, 7, 10, 6]  # padded microbatches of 10, 15, 9, 14 targets


# =========================================================================== models and data
def tiny_gpt2(seed: int = 0) -> transformers.GPT2LMHeadModel:
    """A 2-layer GPT-2 (what ``AutoModelForCausalLM.from_config`` builds for ``gpt2``), float32, dropout 0."""
    torch.manual_seed(seed)
    config = transformers.GPT2Config(vocab_size=VOCAB, n_positions=32, n_embd=16, n_layer=2, n_head=2,
                                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=PAD,
                                     eos_token_id=PAD, pad_token_id=PAD, loss_type="ForCausalLM")
    return transformers.GPT2LMHeadModel(config)


def tiny_llama(seed: int = 0) -> transformers.LlamaForCausalLM:
    """A 2-layer Llama (the architecture of SmolLM, which Accelerate's example trains), float32;
    initializer_range 0.1 (not 0.02) so that the example's ``max_grad_norm=1.0`` fires."""
    torch.manual_seed(seed)
    config = transformers.LlamaConfig(vocab_size=VOCAB, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32,
                                      bos_token_id=PAD, eos_token_id=PAD, pad_token_id=PAD, loss_type="ForCausalLM",
                                      initializer_range=0.1)
    return transformers.LlamaForCausalLM(config)


def lm_microbatches(lengths: list[int], micro_batch: int = 2, seed: int = 0) -> list[dict[str, torch.Tensor]]:
    """Causal-LM microbatches as a language-modeling collator gives them: random ids in 1…VOCAB-1
    of the given lengths, right-padded with ``PAD``, ``attention_mask``, ``labels`` = the ids with
    -100 on the padding (unshifted), ``micro_batch`` samples each, in order."""
    g = torch.Generator().manual_seed(seed)
    samples = []
    for n in lengths:
        ids = torch.randint(1, VOCAB, (n,), generator=g)
        samples.append({"input_ids": ids, "labels": ids.clone()})
    return [pad_collate(samples[i:i + micro_batch], pad_token_id=PAD) for i in range(0, len(samples), micro_batch)]


def preshifted_microbatches(lengths: list[int], micro_batch: int = 2, seed: int = 0) -> list[dict[str, torch.Tensor]]:
    """The batches of the ``collate_fn`` in accelerate's
    ``examples/by_feature/gradient_accumulation_for_autoregressive_models.py`` (lines 94-124 at
    16cb6eb8): ``tokenizer.pad(…, padding="max_length", max_length=longest + 1)`` with the pad (=
    eos) token, then ``labels = input_ids[:, 1:]``, ``input_ids = input_ids[:, :-1]``, the
    attention mask cut the same way, and the pad token in the labels → -100. The labels are shifted
    HERE, and the model shifts them once more in its loss."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for i in range(0, len(lengths), micro_batch):
        rows = [torch.randint(1, VOCAB, (n,), generator=g) for n in lengths[i:i + micro_batch]]
        width = max(len(r) for r in rows) + 1
        ids = torch.full((len(rows), width), PAD)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for r, row in enumerate(rows):
            ids[r, :len(row)] = row
            mask[r, :len(row)] = 1
        labels = ids[:, 1:]
        out.append({"input_ids": ids[:, :-1].contiguous(), "attention_mask": mask[:, :-1].contiguous(),
                    "labels": torch.where(labels == PAD, IGNORE, labels).contiguous()})
    return out


def pretraining_blocks(micro_batches: int = 4, micro_batch: int = 2, block: int = 8,
                       seed: int = 0) -> list[dict[str, torch.Tensor]]:
    """litgpt ``pretrain.py``'s data: fixed blocks of ``block + 1`` token ids, ``input_ids`` =
    ``train_data[:, 0:block]`` and ``targets`` = ``train_data[:, 1:block + 1]`` (shifted before the
    loss, every position a target: ``task="masked"``). The two slices are taken here, by the
    collator, rather than inside the loop (lines 348-349 at 26857050)."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(micro_batches):
        train_data = torch.randint(1, VOCAB, (micro_batch, block + 1), generator=g)
        out.append({"input_ids": train_data[:, 0:block].contiguous(), "labels": train_data[:, 1:block + 1].contiguous()})
    return out


def fresh_accelerate_state() -> None:
    """Forget Accelerate's process-wide singletons (``AcceleratorState``, ``GradientState``): every
    ``train_step`` call stands for a fresh script with ONE Accelerator, as each script has."""
    AcceleratorState._reset_state(reset_partial_state=True)
    GradientState._reset_state()


# =========================================================================== 1. Accelerate: run_clm_no_trainer.py
def run_clm_optimizer(model: torch.nn.Module) -> torch.optim.Optimizer:
    """run_clm_no_trainer.py's optimizer (``optimizer_grouped_parameters`` in ``main()``): AdamW
    over two groups, weight decay ``args.weight_decay`` (default 0.0) on every parameter but the
    biases and norms, 0.0 on those; ``lr=args.learning_rate`` (default 5e-5)."""
    no_decay = ("bias", "ln_", "norm")
    decay = [p for n, p in model.named_parameters() if not any(k in n for k in no_decay) and p.requires_grad]
    rest = [p for n, p in model.named_parameters() if any(k in n for k in no_decay) and p.requires_grad]
    return torch.optim.AdamW([{"params": decay, "weight_decay": 0.0}, {"params": rest, "weight_decay": 0.0}], lr=5e-5)


def run_clm_scheduler(optimizer: torch.optim.Optimizer):
    """run_clm_no_trainer.py's ``get_scheduler(name=args.lr_scheduler_type, …)``: ``linear`` (the
    default), ``num_warmup_steps=0`` (the default) × num_processes, a training length of 10 updates."""
    return transformers.get_scheduler("linear", optimizer=optimizer, num_warmup_steps=0, num_training_steps=10)


def run_clm_no_trainer(model, optimizer, microbatches, lr_scheduler):
    """huggingface/transformers ``examples/pytorch/language-modeling/run_clm_no_trainer.py``,
    ``main()`` (the version with ``accelerator.accumulate``, read at commit 2143f93a of a mirror of
    main): ``accelerator = Accelerator(gradient_accumulation_steps=args.gradient_accumulation_steps)``,
    ``accelerator.prepare(model, optimizer, train_dataloader, eval_dataloader, lr_scheduler)``, then in
    the training loop, per batch of the prepared dataloader (``for step, batch in
    enumerate(active_dataloader)``)::

        with accelerator.accumulate(model):
            outputs = model(**batch); loss = outputs.loss        # the model's own mean loss
            accelerator.backward(loss)                            # ÷ gradient_accumulation_steps
            optimizer.step(); lr_scheduler.step(); optimizer.zero_grad()

    The prepared optimizer and scheduler step only when ``accelerator.sync_gradients`` (every A-th
    batch, or the dataloader's last). The dataloader is the update's microbatches, already
    collated (``batch_size=None``); A = their number (``--gradient_accumulation_steps``)."""
    fresh_accelerate_state()
    accelerator = Accelerator(gradient_accumulation_steps=len(microbatches))
    train_dataloader = DataLoader(microbatches, batch_size=None)
    model, optimizer, train_dataloader, lr_scheduler = accelerator.prepare(
        model, optimizer, train_dataloader, lr_scheduler)
    model.train()
    for _step, batch in enumerate(train_dataloader):
        with accelerator.accumulate(model):
            outputs = model(**batch)
            loss = outputs.loss
            accelerator.backward(loss)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()


# =========================================================================== 2. Accelerate: variable-size samples
def _gather_num_items(accelerator, batch_samples, shifted: bool) -> int:
    """The recipe's count: ``sum((batch["labels"].ne(-100)).sum() for batch in batch_samples)`` on
    this process, gathered over the processes and summed (``accelerator.gather(…).sum().item()``).
    ``shifted=True`` is the repair: ``batch["labels"][..., 1:].ne(-100)``, the targets a causal LM's
    shifted loss actually has."""
    if shifted:
        local_num_items_in_batch = sum([(batch["labels"][..., 1:].ne(IGNORE)).sum() for batch in batch_samples])
    else:
        local_num_items_in_batch = sum([(batch["labels"].ne(IGNORE)).sum() for batch in batch_samples])
    return accelerator.gather(local_num_items_in_batch).sum().item()


def accelerate_variable_size_example(shifted: bool = False):
    """huggingface/accelerate ``examples/by_feature/gradient_accumulation_for_autoregressive_models.py``,
    ``training_function`` (lines 144-262 at 16cb6eb8, the example the guide's section "Gradient
    accumulation on training samples of variable size" links to): ``Accelerator(cpu=…,
    mixed_precision=…, gradient_accumulation_steps=…)``, AdamW, ``get_constant_schedule``,
    ``accelerator.prepare(model, optimizer, train_dataloader, eval_dataloader, lr_scheduler)``; per
    update the next ``gradient_accumulation_steps`` batches are pre-loaded, ``num_items_in_batch`` =
    ``labels.ne(-100)`` summed over them and gathered (lines 227-231); per batch, ``model.no_sync``
    on all but the last when there are several processes (else a null context), ``outputs =
    model(**batch, use_cache=False, num_items_in_batch=num_items_in_batch)``, ``loss = outputs.loss
    * gradient_accumulation_steps * accelerator.num_processes``, ``accelerator.backward(loss)``;
    then ``accelerator.clip_grad_norm_(model.parameters(), max_grad_norm)`` (config 1.0),
    ``optimizer.step()``, ``lr_scheduler.step()``, ``optimizer.zero_grad()``.

    ``shifted=True`` counts ``labels[..., 1:]`` instead (the one line changed)."""

    def accelerate_num_items_in_batch(model, optimizer, microbatches, lr_scheduler):
        fresh_accelerate_state()
        gradient_accumulation_steps = len(microbatches)
        max_grad_norm = 1.0
        accelerator = Accelerator(cpu=False, mixed_precision=None, gradient_accumulation_steps=gradient_accumulation_steps)
        train_dataloader = DataLoader(microbatches, batch_size=None)
        model, optimizer, train_dataloader, lr_scheduler = accelerator.prepare(
            model, optimizer, train_dataloader, lr_scheduler)
        model.train()
        training_iterator = iter(train_dataloader)
        batch_samples = []
        for _ in range(gradient_accumulation_steps):
            batch_samples += [next(training_iterator)]
        num_items_in_batch = _gather_num_items(accelerator, batch_samples, shifted)
        for i, batch in enumerate(batch_samples):
            ctx = (model.no_sync if (i < len(batch_samples) - 1 and accelerator.num_processes > 1)
                   else contextlib.nullcontext)
            with ctx():
                outputs = model(**batch, use_cache=False, num_items_in_batch=num_items_in_batch)
                loss = outputs.loss
                loss = loss * gradient_accumulation_steps * accelerator.num_processes
                accelerator.backward(loss)
        accelerator.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        lr_scheduler.step()
        optimizer.zero_grad()

    accelerate_num_items_in_batch.__name__ = "accelerate_num_items_in_batch" + ("_shifted" if shifted else "")
    return accelerate_num_items_in_batch


def accelerate_example_optimizer(model: torch.nn.Module) -> torch.optim.Optimizer:
    """The example's ``AdamW(params=model.parameters(), lr=lr)`` with its config lr 2e-5."""
    return torch.optim.AdamW(params=model.parameters(), lr=2e-5)


def accelerate_example_scheduler(optimizer: torch.optim.Optimizer):
    """The example's ``get_constant_schedule(optimizer=optimizer)``."""
    return transformers.get_constant_schedule(optimizer=optimizer)


def accelerate_guide_skeleton(model, optimizer, microbatches, scheduler):
    """huggingface/accelerate ``docs/source/usage_guides/gradient_accumulation.md``, section
    "Gradient accumulation on training samples of variable size", "Skeleton code" (lines 250-309
    at 16cb6eb8): ``Accelerator(gradient_accumulation_steps=…)``, ``prepare(model, optimizer,
    training_dataloader, scheduler)``, the next A batches pre-loaded, ``num_items_in_batch =
    sum([(batch["labels"].ne(-100)).sum() for batch in batch_samples])`` gathered and summed; per
    batch (``model.no_sync`` only with several processes) ``loss = loss_function(outputs, targets)``
    — "the loss function should sum over samples rather than averaging" — then ``loss = (loss *
    gradient_accumulation_steps * accelerator.num_processes) / num_items_in_batch`` and
    ``accelerator.backward(loss)``; after the batches ``optimizer.step()``, ``scheduler.step()``,
    ``optimizer.zero_grad()``. For a causal LM the summing ``loss_function`` is the shifted token
    cross entropy with ``reduction="sum"`` (what the model's own loss sums)."""
    fresh_accelerate_state()
    gradient_accumulation_steps = len(microbatches)
    accelerator = Accelerator(gradient_accumulation_steps=gradient_accumulation_steps)
    training_dataloader = DataLoader(microbatches, batch_size=None)
    model, optimizer, training_dataloader, scheduler = accelerator.prepare(
        model, optimizer, training_dataloader, scheduler)

    def loss_function(outputs, targets):
        logits = outputs.logits[:, :-1]
        return F.cross_entropy(logits.flatten(0, 1), targets[:, 1:].flatten(), ignore_index=IGNORE, reduction="sum")

    training_iterator = iter(training_dataloader)
    batch_samples = []
    for _ in range(gradient_accumulation_steps):
        batch_samples += [next(training_iterator)]
    num_items_in_batch = sum([(batch["labels"].ne(IGNORE)).sum() for batch in batch_samples])
    num_items_in_batch = accelerator.gather(num_items_in_batch).sum().item()
    for i, batch in enumerate(batch_samples):
        ctx = model.no_sync if (i < len(batch_samples) - 1 and accelerator.num_processes > 1) else contextlib.nullcontext
        with ctx():
            targets = batch["labels"]
            outputs = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
            loss = loss_function(outputs, targets)
            loss = (loss * gradient_accumulation_steps * accelerator.num_processes) / num_items_in_batch
            accelerator.backward(loss)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()


# =========================================================================== 3. the Lightning Trainer
class CausalLMModule(L.LightningModule):
    """A LightningModule around a Hugging Face causal LM, as Lightning's docs write one
    (``lightning/pytorch/demos/transformer.py``, ``LightningTransformer``: the wrapped model as
    ``self.model``, ``training_step`` returns the batch's mean loss, ``configure_optimizers``
    returns the optimizer). The optimizer is the one ``check_loop`` built for this copy."""

    def __init__(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer):
        super().__init__()
        self.model = model
        self._optimizer = optimizer

    def training_step(self, batch, batch_idx):
        return self.model(**batch).loss

    def configure_optimizers(self):
        return self._optimizer


def lightning_trainer(gradient_clip_val: float | None = None, steps: list | None = None):
    """Lightning's automatic optimization with ``Trainer(accumulate_grad_batches=k)`` (docs
    ``docs/source-pytorch/common/gradient_accumulation.rst``; the installed lightning 2.6.6 does the
    rest): ``lightning/pytorch/loops/optimization/automatic.py`` divides each ``training_step``
    loss by ``accumulate_grad_batches`` (``ClosureResult.from_training_step_output``, line ~83),
    zeroes the gradients before the FIRST backward of every window (``_make_zero_grad_fn``,
    ~line 220), runs the closure (forward + backward) directly on the accumulating batches
    (~line 185) and inside ``optimizer.step(closure=…)`` on the last one (~line 192,
    ``plugins/precision/precision.py`` ``optimizer_step``/``_wrap_closure``, lines 96-123), where
    ``gradient_clip_val`` clips by norm (the default algorithm) after the closure.

    ``steps`` (a list), when given, receives the ``trainer.global_step`` after ``fit``."""

    def lightning_fit(model, optimizer, microbatches):
        trainer = L.Trainer(accelerator="cpu", devices=1, max_steps=1, accumulate_grad_batches=len(microbatches),
                            gradient_clip_val=gradient_clip_val, logger=False, enable_checkpointing=False,
                            enable_progress_bar=False, enable_model_summary=False, num_sanity_val_steps=0)
        trainer.fit(CausalLMModule(model, optimizer), train_dataloaders=DataLoader(microbatches, batch_size=None))
        if steps is not None:
            steps.append(trainer.global_step)

    lightning_fit.__name__ = "lightning_fit" + ("_clipped" if gradient_clip_val is not None else "")
    return lightning_fit


# =========================================================================== 4. Fabric, as litgpt writes it
def chunked_cross_entropy(logits: torch.Tensor, targets: torch.Tensor, chunk_size: int = 128,
                          ignore_index: int = IGNORE) -> torch.Tensor:
    """litgpt ``litgpt/utils.py`` ``chunked_cross_entropy`` (lines 302-351 at 26857050), the
    un-chunked-lm_head path: logits and targets flattened, split into chunks of ``chunk_size``
    rows, per-token cross entropy (``reduction="none"``) per chunk, the sum divided by the
    non-ignored targets (at least 1) — the microbatch's token mean; ``chunk_size=0`` is plain
    ``F.cross_entropy`` (its mean)."""
    logits = logits.reshape(-1, logits.size(-1))
    targets = targets.reshape(-1)
    if chunk_size == 0:
        return F.cross_entropy(logits, targets, ignore_index=ignore_index)
    pieces = [F.cross_entropy(lc, tc, ignore_index=ignore_index, reduction="none")
              for lc, tc in zip(logits.split(chunk_size), targets.split(chunk_size))]
    non_masked_elems = (targets != ignore_index).sum()
    return torch.cat(pieces).sum() / non_masked_elems.maximum(torch.ones_like(non_masked_elems))


def litgpt_optimizer(model: torch.nn.Module) -> torch.optim.Optimizer:
    """litgpt's ``config_hub/pretrain/debug.yaml`` optimizer: ``torch.optim.AdamW`` with lr 6e-4,
    weight_decay 0.1, betas (0.9, 0.95) (``instantiate_torch_optimizer``)."""
    return torch.optim.AdamW(model.parameters(), lr=6e-4, weight_decay=0.1, betas=(0.9, 0.95))


def litgpt_scheduler(optimizer: torch.optim.Optimizer, warmup_steps: int = 100, max_steps: int = 1000):
    """litgpt ``litgpt/finetune/full.py`` ``get_lr_scheduler`` (lines 415-419 at 26857050): a
    ``LambdaLR`` linear warmup ``step / warmup_steps`` then ``CosineAnnealingLR``, in a
    ``SequentialLR`` (``lr_warmup_steps=100`` is full.py's default)."""
    warmup = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: step / warmup_steps)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=(max_steps - warmup_steps))
    return torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, cosine], milestones=[warmup_steps])


def _fabric(model, optimizer):
    """litgpt's set-up on one device: ``L.Fabric(devices=1, strategy="auto", precision=…)`` (here
    CPU, "32-true"), ``fabric.launch()``, ``model = fabric.setup(model)``, ``optimizer =
    fabric.setup_optimizers(optimizer)`` (full.py lines 118, 158-161)."""
    fabric = L.Fabric(accelerator="cpu", devices=1, strategy="auto", precision="32-true")
    fabric.launch()
    model = fabric.setup(model)
    optimizer = fabric.setup_optimizers(optimizer)
    return fabric, model, optimizer


def litgpt_finetune_full(model, optimizer, microbatches, scheduler):
    """Lightning-AI/litgpt ``litgpt/finetune/full.py`` ``fit`` (lines 272-293 at 26857050): per
    iteration ``iter_num += 1``, ``input_ids, targets = batch["input_ids"], batch["labels"]``,
    ``is_accumulating = iter_num % gradient_accumulation_iters != 0``, then::

        with fabric.no_backward_sync(model, enabled=is_accumulating):
            logits = model(input_ids)
            loss = chunked_cross_entropy(logits[..., :-1, :], targets[..., 1:])
            fabric.backward(loss / gradient_accumulation_iters)

    and when not accumulating ``optimizer.step()``, ``optimizer.zero_grad()``,
    ``scheduler.step()``. litgpt's ``GPT`` returns the logits; the Hugging Face model here returns
    them as ``.logits`` (the one adaptation). gradient_accumulation_iters = the microbatches."""
    fabric, model, optimizer = _fabric(model, optimizer)
    gradient_accumulation_iters = len(microbatches)
    state = {"iter_num": 0, "step_count": 0}
    train_iterator = iter(microbatches)
    while state["step_count"] < 1:
        state["iter_num"] += 1
        batch = next(train_iterator)
        input_ids, targets = batch["input_ids"], batch["labels"]
        is_accumulating = state["iter_num"] % gradient_accumulation_iters != 0
        with fabric.no_backward_sync(model, enabled=is_accumulating):
            logits = model(input_ids).logits
            # shift the targets such that output n predicts token n+1
            loss = chunked_cross_entropy(logits[..., :-1, :], targets[..., 1:])
            fabric.backward(loss / gradient_accumulation_iters)
        if not is_accumulating:
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
            state["step_count"] += 1


def _litgpt_get_lr(learning_rate: float, it: int, warmup_iters: int, max_iters: int, min_lr: float) -> float:
    """litgpt ``pretrain.py`` ``get_lr`` (lines 463-474 at 26857050): linear warmup, then cosine
    decay to ``min_lr``."""
    if it < warmup_iters:
        return learning_rate * it / warmup_iters
    if it > max_iters:
        return min_lr
    ratio = (it - warmup_iters) / (max_iters - warmup_iters)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (learning_rate - min_lr)


def litgpt_pretrain(max_norm: float | None = 1.0):
    """Lightning-AI/litgpt ``litgpt/pretrain.py`` ``fit`` (lines 336-363 at 26857050): per
    iteration the learning rate of every param group set from ``get_lr(optimizer.defaults["lr"],
    iter_num, warmup_iters, max_iters, min_lr)``, ``iter_num += 1``, then::

        with fabric.no_backward_sync(model, enabled=is_accumulating):
            logits = model(input_ids)
            loss = chunked_cross_entropy(logits, targets)        # targets shifted by the data
            fabric.backward(loss / gradient_accumulation_iters)

    and when not accumulating ``fabric.clip_gradients(model, optimizer, max_norm=train.max_norm)``
    (``max_norm=1.0``, the default of pretrain.py and every config_hub/pretrain config),
    ``optimizer.step()``, ``optimizer.zero_grad()``. warmup: ``lr_warmup_steps=100`` (debug.yaml)
    × gradient_accumulation_iters, ``min_lr=6e-5``."""

    def litgpt_pretrain_step(model, optimizer, microbatches):
        fabric, model, optimizer = _fabric(model, optimizer)
        gradient_accumulation_iters = len(microbatches)
        max_iters, warmup_iters, min_lr = 10_000, 100 * gradient_accumulation_iters, 6e-5
        state = {"iter_num": 0, "step_count": 0}
        for train_data in microbatches:
            lr = _litgpt_get_lr(optimizer.defaults["lr"], state["iter_num"], warmup_iters, max_iters, min_lr)
            for param_group in optimizer.param_groups:
                param_group["lr"] = lr
            state["iter_num"] += 1
            input_ids, targets = train_data["input_ids"], train_data["labels"]
            is_accumulating = state["iter_num"] % gradient_accumulation_iters != 0
            with fabric.no_backward_sync(model, enabled=is_accumulating):
                logits = model(input_ids).logits
                loss = chunked_cross_entropy(logits, targets)
                fabric.backward(loss / gradient_accumulation_iters)
            if not is_accumulating:
                if max_norm is not None:
                    fabric.clip_gradients(model, optimizer, max_norm=max_norm)
                optimizer.step()
                optimizer.zero_grad()
                state["step_count"] += 1

    return litgpt_pretrain_step


# =========================================================================== ground truth, without gastudy
def applied_update(train_step, model, microbatches, scheduler=None, lr: float = 1.0):
    """Run ``train_step`` once on a copy of ``model`` with plain SGD (``lr``, no momentum, no decay;
    a scheduler from the factory ``scheduler`` as the 4th argument when given) and return ``(−Δθ / lr as one float64 vector, optimizer steps, gradients left non-zero)``: the
    gradient the update really applied, measured from the weights alone (a clip included)."""
    m = copy.deepcopy(model)
    m.train()
    before = [p.detach().clone() for p in m.parameters()]
    optimizer = torch.optim.SGD(m.parameters(), lr=lr)
    steps = []
    handle = optimizer.register_step_post_hook(lambda *_: steps.append(1))
    extra = () if scheduler is None else (scheduler(optimizer),)
    train_step(m, optimizer, [{k: v.clone() for k, v in mb.items()} for mb in microbatches], *extra)
    handle.remove()
    applied = torch.cat([((b - p.detach()).double() / lr).flatten() for b, p in zip(before, m.parameters())])
    leftover = any(p.grad is not None and bool(p.grad.any()) for p in m.parameters())
    return applied, len(steps), leftover


def _causal_sums(model, microbatches):
    for mb in microbatches:
        logits = model(input_ids=mb["input_ids"], attention_mask=mb.get("attention_mask")).logits[:, :-1]
        labels = mb["labels"][:, 1:]
        yield F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=IGNORE, reduction="sum"), \
            int((labels != IGNORE).sum())


def _gradient(model, loss_of) -> torch.Tensor:
    m = copy.deepcopy(model)
    m.zero_grad(set_to_none=True)
    loss_of(m).backward()
    return torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).double().flatten()
                      for p in m.parameters()])


def big_batch_gradient(model, microbatches) -> torch.Tensor:
    """Σ per-token losses ÷ N over all the microbatches (causal shift): the right gradient."""
    def loss_of(m):
        pairs = list(_causal_sums(m, microbatches))
        return sum(s for s, _ in pairs) / sum(n for _, n in pairs)
    return _gradient(model, loss_of)


def mean_of_means_gradient(model, microbatches) -> torch.Tensor:
    """Σ_i (microbatch i's token mean) ÷ A: the 'steps' normalization."""
    def loss_of(m):
        return sum(s / n for s, n in _causal_sums(m, microbatches)) / len(microbatches)
    return _gradient(model, loss_of)


def rel(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).norm() / b.norm())
