"""Chapter 12 — the questions learners ask after the course, answered by measurement (MB-12).

Every answer is computed when it is asked: :func:`ask` runs the library measurement behind
the question and fills the numbers into the answer text. Nothing in an answer is a
remembered number. :data:`QUESTIONS` lists them; :class:`QuestionsLab` browses them.

Each measurement is small (a second or two on a CPU) and names the chapter that teaches it.

Languages: the questions and the answers' sentences are written through :func:`~gastudy.course.i18n.t`,
so they come in the course language current when they are asked; the numbers are measured and
formatted before translation (Latin digits), and identifiers (``keep``, ``num_items_in_batch``)
stay as the code spells them.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from gastudy.course import mistakes
from gastudy.course.i18n import direction, language, t
from gastudy.course.widgets import Lab
from gastudy.memory.saved import format_bytes

Evidence = dict[str, Any]


@dataclass(frozen=True)
class Question:
    """One question: its key, wording, sections, chapter and the measurement that answers it.

    ``wording()`` gives the question in the current course language (also :attr:`question`);
    ``measure()`` returns ``(answer_markdown, evidence)``: the answer with measured numbers
    filled in (in the current course language), and those numbers by name. Course: MB-12.
    """

    key: str
    wording: Callable[[], str]
    sections: tuple[str, ...]
    chapter: str
    measure: Callable[[], tuple[str, Evidence]]

    @property
    def question(self) -> str:
        """The question, in the current course language."""
        return self.wording()


@dataclass
class Answer:
    """A measured answer (course: MB-12). ``evidence`` holds the numbers the text quotes."""

    key: str
    question: str
    text: str
    evidence: Evidence = field(default_factory=dict)
    sections: tuple[str, ...] = ()
    chapter: str = ""

    language: str = "en"

    def markdown(self) -> str:
        """The answer as Markdown: the question, the measured answer, where it is taught (in the
        course language it was asked in)."""
        where = t("Measured just now · sections {sections} · taught in {chapter}", sections=", ".join(self.sections),
                  chapter=f"`{self.chapter}`")
        return f"**{t('Q: {question}', question=self.question)}**\n\n{self.text}\n\n*{where}*"

    def _repr_markdown_(self) -> str:
        """:meth:`markdown`, wrapped right to left when the answer is in a right-to-left language."""
        return rtl_markdown(self.markdown(), self.language)

    def __str__(self) -> str:
        return self.markdown()


# ----------------------------------------------------------------------------- the measurements
def _same_gradient() -> tuple[str, Evidence]:
    from gastudy.check.verify import verify_one_update

    gaps = {name: verify_one_update(name, 4, 4).max_rel_diff for name in ("tiny-gpt", "ln-mlp", "bn-mlp")}
    text = t("Only when every layer treats samples independently. One update of A=4 microbatches of m=4 "
             "against one batch of 16: tiny-gpt differs by {gpt:.1e} and the LayerNorm MLP by {ln:.1e} (relative, "
             "float32 rounding), the BatchNorm MLP by {bn:.2f} — BatchNorm normalizes each microbatch with its own "
             "statistics.", gpt=gaps['tiny-gpt'], ln=gaps['ln-mlp'], bn=gaps['bn-mlp'])
    return text, {"tiny_gpt_gap": gaps["tiny-gpt"], "ln_gap": gaps["ln-mlp"], "bn_gap": gaps["bn-mlp"]}


def _divide_by_a() -> tuple[str, Evidence]:
    from gastudy.check.verify import verify_one_update

    steps = verify_one_update("tiny-gpt", 2, 4, normalization=mistakes.Steps())
    tokens = verify_one_update("tiny-gpt", 2, 4, normalization="tokens")
    items = steps.record.supervised_tokens
    text = t("Only when every microbatch has the same number of supervised items. On variable-length addition "
             "problems ({items} supervised tokens in 4 microbatches) dividing each microbatch mean by A misses the "
             "big-batch gradient by {steps:.1%} (relative); dividing the summed loss by the group's tokens misses it "
             "by {tokens:.1e}.", items=items, steps=steps.max_rel_diff, tokens=tokens.max_rel_diff)
    return text, {"steps_gap": steps.max_rel_diff, "tokens_gap": tokens.max_rel_diff,
                  "steps_passed": steps.passed, "tokens_passed": tokens.passed}


def _faster() -> tuple[str, Evidence]:
    """Accumulation against a batch that fits, and against the same m without accumulation, timed
    interleaved on one CPU thread. Each time is the CPU time of the thread doing the work
    (``time.thread_time``: what other programs on a shared machine do is not counted), and each
    ratio is the median over the rounds of two times measured in the same round.

    - ``ratio``: one batch of 16 (m × A = 16 × 1) against 16 microbatches of 1 accumulated into
      one update (1 × 16), the same samples: speed of the accumulated update ÷ the batch's.
    - ``amortized``: 16 updates of 1 sample (m = 1 without accumulation) ÷ the accumulated update's
      time — the per-update work (optimizer step, zero_grad) not done 15 times, which on this tiny
      model is a sizeable share of a 1-sample microbatch (``update_share``, t_u ÷ t_fb).
    - ``amortized_large``: the same comparison where a microbatch's forward and backward outweighs
      the per-update work (m = 32, A = 2 against 2 updates of 32). t_without ÷ t_with < 1 + t_u ÷
      t_fb, so the saving shrinks as the microbatch's compute grows (``update_share_large``, a
      noisy estimate with A = 2); on a real model, whose microbatch is many long sequences, it is a
      small fraction.
    """
    import statistics
    import time

    from gastudy.core.counting import task_of_batch
    from gastudy.core.engine import Accumulator
    from gastudy.core.groups import build_group
    from gastudy.course.labs.experiment import steady_timing
    from gastudy.memory.workload import (
        build_for_measurement,
        make_optimizer,
        synthetic_microbatches,
    )

    kwargs = {"hidden": 64, "layers": 2, "heads": 2}

    def run(m: int, accumulation_steps: int, n: int) -> tuple[Callable[[], None], int]:
        """One pass over n samples in microbatches of m, A per update, on a fresh model; the
        optimizer steps one pass makes, counted by the engine on a first, untimed pass."""
        net = build_for_measurement("tiny-gpt", "cpu", 0, kwargs)
        mbs = synthetic_microbatches(net, m, n // m, 16, 0)  # the same n samples for any m
        task = task_of_batch(mbs[0])
        engine = Accumulator(net, make_optimizer("adamw", net), accumulation_steps=accumulation_steps, task=task)
        groups = [build_group(i, mbs[i:i + accumulation_steps], accumulation_steps, task)
                  for i in range(0, len(mbs), accumulation_steps)]

        def one_pass() -> None:
            for group in groups:
                engine.update(group)

        one_pass()  # creates AdamW's state, and counts
        return one_pass, engine.counters.updates_applied

    n, large, a_large = 16, 32, 2
    with steady_timing("cpu"):
        configs = {"big": run(n, 1, n), "accumulated": run(1, n, n), "stepped": run(1, 1, n),
                   "large accumulated": run(large, a_large, large * a_large),
                   "large stepped": run(large, 1, large * a_large)}
        times: dict[str, list[float]] = {name: [] for name in configs}
        for _ in range(5):  # rounds: every configuration once in turn, so a busy spell hits them alike
            for name, (one_pass, _) in configs.items():
                start = time.thread_time()
                one_pass()
                times[name].append(time.thread_time() - start)
    steps = {name: count for name, (_, count) in configs.items()}

    def per_round(slow: str, fast: str) -> float:
        return statistics.median(a / b for a, b in zip(times[slow], times[fast]))

    def update_share(accumulated: str, stepped: str, accumulation_steps: int) -> float:
        """t_u ÷ t_fb from the two times: t_with = A·t_fb + t_u, t_without = A·(t_fb + t_u)."""
        with_, without = statistics.median(times[accumulated]), statistics.median(times[stepped])
        t_u = (without - with_) / (accumulation_steps - 1)
        return t_u / ((with_ - t_u) / accumulation_steps)

    ratio, amortized = per_round("big", "accumulated"), per_round("stepped", "accumulated")
    amortized_large = per_round("large stepped", "large accumulated")
    share = update_share("accumulated", "stepped", n)
    share_large = update_share("large accumulated", "large stepped", a_large)
    best = {name: n / min(times[name]) for name in ("big", "accumulated", "stepped")}
    text = t("No: accumulation buys memory, not speed. The same {n} samples ran at {big:.0f} samples/s as one batch "
             "(m × A = {n} × 1) and at {acc:.0f} samples/s as {n} microbatches of 1 accumulated into one update "
             "(1 × {n}): {ratio:.2f}× (CPU time of the one thread doing the work), because every microbatch pays "
             "its own overhead. Against the same microbatch without accumulation it only saves updates: {n} "
             "updates of 1 sample ({stepped_steps} optimizer steps) took {amortized:.2f}× the time of the "
             "accumulated update ({accumulated_steps} step), because on this tiny model one update's own work "
             "(optimizer step, zero_grad) costs {share:.0%} of a 1-sample microbatch's forward and backward. Where "
             "a microbatch's compute outweighs that work — m = {large}, A = {a_large}, against {a_large} updates of "
             "{large} — the same comparison gives {amortized_large:.2f}×, and on a real model with long sequences "
             "the saving is a small fraction. And fewer, larger updates are another training, not the same one "
             "sooner (chapter 07); on several devices no_sync also makes one all-reduce per update instead of A "
             "(chapter 06). Use accumulation when the batch you want does not fit.",
             n=n, big=best["big"], acc=best["accumulated"], ratio=ratio, stepped_steps=steps["stepped"],
             amortized=amortized, accumulated_steps=steps["accumulated"], share=share, large=large,
             a_large=a_large, amortized_large=amortized_large)
    return text, {"big_batch_samples_per_s": best["big"], "accumulated_samples_per_s": best["accumulated"],
                  "stepped_samples_per_s": best["stepped"], "ratio": ratio, "amortized": amortized,
                  "steps_accumulated": steps["accumulated"], "steps_without": steps["stepped"],
                  "update_share": share, "amortized_large": amortized_large, "update_share_large": share_large,
                  "large_micro_batch": large, "large_accumulation_steps": a_large,
                  "steps_large_without": steps["large stepped"]}


def _memory_saved() -> tuple[str, Evidence]:
    from gastudy.memory.planner import measure_peak

    kw = {"hidden": 128, "layers": 4, "heads": 4}
    big, small = (measure_peak(m, A, "tiny-gpt", model_kwargs=kw, groups=1) for m, A in ((16, 1), (2, 8)))
    text = t("The activations shrink with m; nothing else does. For 16 samples per update on tiny-gpt (hidden "
             "128), one microbatch's saved activations drop from {big} (m=16) to {small} (m=2, A=8), an {cut:.1f}× "
             "cut. Weights, gradients and AdamW state stay at {fixed} either way; the measured process peaks were "
             "{peak_big} and {peak_small}.", big=format_bytes(big.saved_bytes), small=format_bytes(small.saved_bytes),
             cut=big.saved_bytes / small.saved_bytes, fixed=format_bytes(big.fixed_bytes),
             peak_big=format_bytes(big.peak_bytes), peak_small=format_bytes(small.peak_bytes))
    return text, {"saved_m16": big.saved_bytes, "saved_m2": small.saved_bytes, "fixed_m16": big.fixed_bytes,
                  "fixed_m2": small.fixed_bytes, "peak_m16": big.peak_bytes, "peak_m2": small.peak_bytes}


def _learning_rate() -> tuple[str, Evidence]:
    from gastudy.core.plan import BatchPlan
    from gastudy.course.labs.experiment import count_updates

    a4, a8 = (count_updates(1000, BatchPlan(8, a)).updates for a in (4, 8))
    text = t("The course cannot give you a rule, but it can show what changed. On 1000 samples with m=8, A=4 "
             "makes {a4} updates per epoch and A=8 makes {a8}: a schedule written in updates now ends {ratio:.0f}× "
             "later in samples (each update sees {ratio:.0f}× the samples). Decide whether to keep the number of updates or the samples seen, and whether to "
             "scale the learning rate — then write that assumption into the run record.", a4=a4, a8=a8,
             ratio=a4 / a8)
    return text, {"updates_a4": a4, "updates_a8": a8}


def _scheduler() -> tuple[str, Evidence]:
    from gastudy.check.diagnostics import diagnose_schedule_drift
    from gastudy.course.clinic import default_setup
    from gastudy.course.pitfalls import correct_update, scheduler_per_microbatch

    setup = default_setup()
    wrong, right = diagnose_schedule_drift(scheduler_per_microbatch, setup), diagnose_schedule_drift(correct_update, setup)
    w, r = wrong.evidence, right.evidence
    text = t("No — once per applied update. Over {updates} updates of A={A} microbatches, a per-microbatch "
             "scheduler stepped {wrong} times and left the learning rate at {lr:.4g} instead of {expected:.4g}; stepped "
             "per update it took {right} steps, as planned.", updates=w["applied_updates"],
             A=w["accumulation_steps"], wrong=w["scheduler_steps"], lr=w['lr'][-1],
             expected=w['expected_lr'][-1], right=r["scheduler_steps"])
    return text, {"wrong_steps": w["scheduler_steps"], "right_steps": r["scheduler_steps"],
                  "applied": w["applied_updates"], "wrong_fired": wrong.fired, "right_fired": right.fired}


def _gpus() -> tuple[str, Evidence]:
    from gastudy.core.plan import BatchPlan

    plan = BatchPlan(2, 8, replicas=4, tensor_parallel=2)
    described = t("m={m} × A={A} × D={D} = {batch} samples per update ({per_replica} per replica, {devices} "
                  "devices)", m=plan.micro_batch, A=plan.accumulation_steps, D=plan.replicas,
                  batch=plan.effective_batch, per_replica=plan.per_replica, devices=plan.devices)
    text = t("Only if all 8 are data-parallel replicas. With tensor parallelism of 2, the 8 GPUs hold {replicas} "
             "replicas: {plan}. Counting every card would claim {wrong} samples per update.",
             replicas=plan.replicas, plan=described, wrong=plan.per_replica * plan.devices)
    return text, {"effective_batch": plan.effective_batch, "devices": plan.devices,
                  "wrong_count": plan.per_replica * plan.devices}


def _short_group() -> tuple[str, Evidence]:
    from gastudy.core.data import MicrobatchStream
    from gastudy.core.groups import make_groups
    from gastudy.course.datasets import AdditionDataset

    out: Evidence = {}
    for policy in ("keep", "drop"):
        stream = MicrobatchStream(AdditionDataset(22), 2, seed=0)
        groups = make_groups(stream.microbatches(0), 4, "causal", policy)
        out[f"{policy}_updates"] = sum(1 for _ in groups)
        out[f"{policy}_ids"] = groups.partial.sample_ids if groups.partial else []
    text = t("You choose, and you write it down. 22 samples in microbatches of 2 make 11 microbatches: with A=4 "
             "the last group has 3. `keep` makes {keep} updates and processes the short group with its own "
             "denominator; `drop` makes {drop} and skips samples {ids}. Either way the record lists the samples "
             "affected.", keep=out["keep_updates"], drop=out["drop_updates"], ids=out["drop_ids"])
    return text, out


def _checkpoint_gradient() -> tuple[str, Evidence]:
    from gastudy.check.verify import compare_gradients, controlled_microbatches, reference_gradients
    from gastudy.core.checkpointing import checkpointing
    from gastudy.course.models import build_model

    mbs = controlled_microbatches("tiny-gpt", 4, 2)
    model = build_model("tiny-gpt").train()
    plain = reference_gradients(model, mbs)
    with checkpointing(model, every_n_layers=1):
        ckpt = reference_gradients(model, mbs)
    max_abs, max_rel = compare_gradients(ckpt, plain)
    text = t("No. Checkpointing recomputes the same forward during backward; it changes memory and time, not the "
             "maths. On tiny-gpt the gradients with and without checkpointing every layer differ by {abs_diff:.1e} at "
             "most (relative {rel_diff:.1e}).", abs_diff=max_abs, rel_diff=max_rel)
    return text, {"max_abs_diff": max_abs, "max_rel_diff": max_rel}


def _checkpoint_or_accumulate() -> tuple[str, Evidence]:
    from gastudy.core.checkpointing import checkpointing
    from gastudy.memory.saved import saved_bytes
    from gastudy.memory.workload import build_for_measurement, synthetic_microbatches

    net = build_for_measurement("tiny-gpt", model_kwargs={"hidden": 128, "layers": 4, "heads": 4})
    out: Evidence = {}
    for m in (8, 2):
        batch = synthetic_microbatches(net, m, 1, 32)[0]
        for name, n in (("off", None), ("ckpt", 1)):
            with checkpointing(net, n):
                out[f"m{m}_{name}"] = saved_bytes(net, batch).total
    text = t("Measure both; they combine. Saved for backward per microbatch on tiny-gpt (hidden 128, sequence "
             "32): m=8 keeps {m8}, m=8 with checkpointing {m8_ckpt}, m=2 (A×4 to keep the batch) {m2}, and both "
             "together {m2_ckpt}. Accumulation costs extra passes over the weights, checkpointing costs a "
             "recomputed forward: chapter 08 times both.", m8=format_bytes(out["m8_off"]),
             m8_ckpt=format_bytes(out["m8_ckpt"]), m2=format_bytes(out["m2_off"]), m2_ckpt=format_bytes(out["m2_ckpt"]))
    return text, out


def _first_step_memory() -> tuple[str, Evidence]:
    from gastudy.memory.timeline import phase_timeline

    tl = phase_timeline(micro_batch=2, accumulation_steps=2, groups=2,
                        model_kwargs={"hidden": 128, "layers": 2, "heads": 4})
    before = max(r.optimizer_bytes for r in tl.rows if r.group == 1 and not r.phase.startswith("update"))
    after = max(r.optimizer_bytes for r in tl.rows if r.phase == "update 1")
    grads = max(r.grad_bytes for r in tl.rows)
    text = t("Because AdamW creates its state at the first step. Optimizer state was {before} through the first "
             "group's forwards and backwards and {after} after update 1 (two tensors per weight); gradients "
             "({grads}) appear at the first backward. A forward-only check sees neither — watch a whole group and "
             "the first update.", before=format_bytes(before), after=format_bytes(after), grads=format_bytes(grads))
    return text, {"optimizer_before": before, "optimizer_after": after, "gradient_bytes": grads,
                  "weight_bytes": tl.rows[0].weight_bytes}


def _fp16_skips() -> tuple[str, Evidence]:
    from gastudy.core.data import MicrobatchStream
    from gastudy.core.engine import Accumulator
    from gastudy.core.groups import make_groups
    from gastudy.course.datasets import AdditionDataset
    from gastudy.course.mistakes import inject_overflow
    from gastudy.course.models import build_model

    model = build_model("tiny-gpt", layers=2)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0 / (1 + step))
    engine = Accumulator(model, optimizer, accumulation_steps=2, precision="fp16", scheduler=scheduler)
    groups = list(make_groups(MicrobatchStream(AdditionDataset(24), 4).microbatches(0), 2))
    with inject_overflow(model):
        first = engine.update(groups[0])
    rest = [engine.update(g) for g in groups[1:]]
    c = engine.counters
    text = t("Yes, and the counters must say so. With an overflow injected into the first group, the scaler "
             "skipped that update and lowered the scale from {before:g} to {after:g}: {attempted} updates attempted, "
             "{applied} applied, {scheduler} scheduler steps — the schedule follows the applied updates.",
             before=first.scale, after=rest[0].scale, attempted=c.updates_attempted,
             applied=c.updates_applied, scheduler=c.scheduler_steps)
    return text, {"attempted": c.updates_attempted, "applied": c.updates_applied,
                  "scheduler_steps": c.scheduler_steps, "first_applied": first.applied,
                  "scale_before": first.scale, "scale_after": rest[0].scale}


def _duplicates() -> tuple[str, Evidence]:
    from gastudy.core.data import MicrobatchStream
    from gastudy.course.datasets import AdditionDataset
    from gastudy.course.mistakes import unsharded_stream
    from gastudy.parallel.agreement import check_sample_ids

    data = AdditionDataset(64)
    out: Evidence = {}
    for name, shard in (("sharded", True), ("unsharded", False)):
        ids = [(MicrobatchStream if shard else unsharded_stream)(data, 2, replicas=2, rank=r).indices(0)[:8]
               for r in range(2)]
        report = check_sample_ids(ids)
        out[f"{name}_duplicated"], out[f"{name}_extra"] = len(report.duplicated), report.extra
    text = t("Compare the sample ids every replica processed. The first 8 ids of two replicas: sharded, {sharded} "
             "ids repeat; without sharding, {unsharded} of 8 repeat and {extra} of the 16 'samples' add nothing new. "
             "Chapter 06 runs this check on a real two-process run, where the engine refuses the update.",
             sharded=out["sharded_duplicated"], unsharded=out["unsharded_duplicated"], extra=out["unsharded_extra"])
    return text, out


def _bit_identical() -> tuple[str, Evidence]:
    from gastudy.course.labs.experiment import weight_drift

    drift32 = weight_drift(2, 4, 10, torch.float32)
    drift64 = weight_drift(2, 4, 10, torch.float64)
    text = t("Because floating-point addition is not associative: A microbatches add in another order than one "
             "batch. After 10 AdamW updates of tiny-gpt trained both ways on the same samples, the largest weight "
             "difference is {fp32:.1e} in float32 and {fp64:.1e} in float64. Verify one update against a tolerance; "
             "compare finished runs by their metrics.", fp32=drift32, fp64=drift64)
    return text, {"drift_fp32": drift32, "drift_fp64": drift64}


def _offload() -> tuple[str, Evidence]:
    from gastudy.course.labs.checkpoint_lab import model_kwargs
    from gastudy.memory.saved import formula_check

    device = "cuda" if torch.cuda.is_available() else "cpu"
    plain, off = (formula_check("tiny-gpt", 8, 128, 1, offload=o, device=device, model_kwargs=model_kwargs(256, 4))
                  for o in (False, True))
    where = (t("on this GPU the device kept {kept} instead of {plain}", kept=format_bytes(off.measured_bytes),
               plain=format_bytes(plain.measured_bytes)) if device == "cuda" else
             t("on this CPU-only machine there is nothing to move: the bytes are the same with and without it "
               "({kept})", kept=format_bytes(off.measured_bytes)))
    text = t("Only when nothing else fits on the accelerator. With every layer checkpointed, what remains is each "
             "layer's input: for tiny-gpt with 4 layers, m=8, T=128 and hidden 256 that is {formula} by the formula "
             "layers × m × T × hidden × 4 bytes (measured {measured} with the shared mask). Offload moves it to "
             "pinned host memory; {where}. The price is a device→host copy in the forward and a host→device copy "
             "in the backward, on the compute stream: every update gets slower (chapter 08 times it on a GPU).",
             formula=format_bytes(plain.formula_bytes), measured=format_bytes(plain.measured_bytes), where=where)
    return text, {"device": device, "formula_bytes": plain.formula_bytes, "kept_plain": plain.measured_bytes,
                  "kept_offload": off.measured_bytes}


def _checkpoint_vs_accumulate() -> tuple[str, Evidence]:
    from gastudy.check.verify import (
        compare_gradients,
        controlled_microbatches,
        reference_gradients,
        verify_one_update,
    )
    from gastudy.core.checkpointing import checkpointing
    from gastudy.course.models import build_model

    mbs = controlled_microbatches("tiny-gpt", 8, 1)  # one batch of 8: the same samples, checkpointed or not
    model = build_model("tiny-gpt").train()
    plain = reference_gradients(model, mbs)
    with checkpointing(model, every_n_layers=1):
        ckpt = reference_gradients(model, mbs)
    ckpt_abs, _ = compare_gradients(ckpt, plain)
    accumulated = verify_one_update("tiny-gpt", 2, 4).max_rel_diff
    bn = verify_one_update("bn-mlp", 2, 4).max_rel_diff
    text = t("They answer different problems. Checkpointing keeps the batch and recomputes: its gradient equals the "
             "un-checkpointed one to {ckpt:.1e} (the same operations run again). Accumulation splits the batch: its "
             "gradient matches the big batch within rounding ({accumulated:.1e} relative on tiny-gpt) only when every "
             "layer treats samples independently — with BatchNorm it is off by {bn:.2f}. So: if one sample's "
             "activations are the problem (long sequences), checkpoint; if you want a bigger batch than fits, "
             "accumulate; if neither is enough, combine them (chapter 08 measures the product).",
             ckpt=ckpt_abs, accumulated=accumulated, bn=bn)
    return text, {"ckpt_max_abs": ckpt_abs, "accumulated_rel": accumulated, "bn_rel": bn}


def _hugging_face() -> tuple[str, Evidence]:
    from gastudy.course.bridge import hf_available, skip_note

    if not hf_available():
        return t("Not measured here: {note} Without the measurement, the rule from the Hugging Face guide: the "
                 "Trainer divides the summed loss by the group's supervised tokens (num_items_in_batch) when the "
                 "model accepts loss kwargs or a compute_loss_func is given (otherwise: each microbatch's mean ÷ "
                 "gradient_accumulation_steps); across devices average_tokens_across_devices decides whether the "
                 "count is global; a custom loss must do the same and declare it (loss_is_scaled_for_ga).",
                 note=skip_note(t("the Trainer measurement"))), {"measured": False}
    from gastudy.core.data import pad_collate
    from gastudy.course.bridge import (
        compare_with_gastudy,
        tiny_causal_lm,
        trainer_gradient,
        training_arguments,
    )
    from gastudy.course.datasets import AdditionDataset

    data = AdditionDataset(8, seed=1)
    samples = [data[i] for i in range(8)]
    microbatches = [pad_collate(samples[i:i + 2]) for i in range(0, 8, 2)]
    model = tiny_causal_lm(seed=0)
    args = training_arguments(2, 4)
    grads = trainer_gradient(model, samples, args)  # one update, the Trainer's defaults
    cmp = compare_with_gastudy(grads, model, microbatches)
    steps = compare_with_gastudy(grads, model, microbatches, "steps")
    # the same model, declared not to accept loss kwargs (a forward without **kwargs): the Trainer
    # cannot hand it num_items_in_batch and falls back to its mean loss ÷ gradient_accumulation_steps
    plain = copy.deepcopy(model)
    plain.accepts_loss_kwargs = False
    fallback = trainer_gradient(plain, samples, args)
    fallback_tokens = compare_with_gastudy(fallback, model, microbatches)
    fallback_steps = compare_with_gastudy(fallback, model, microbatches, "steps")
    across = getattr(args, "average_tokens_across_devices", None)
    text = t("Only when it can hand the count to the loss: the model's forward accepts loss kwargs (a **kwargs "
             "parameter, as Transformers' causal LMs have) or the Trainer is given a compute_loss_func. Then it "
             "counts the group's supervised tokens (num_items_in_batch) before the first backward and divides the "
             "summed loss by them: one Trainer update (per_device_train_batch_size=2, "
             "gradient_accumulation_steps=4) of a tiny GPT-2 on variable-length samples gives the gradient of "
             "gastudy's token-normalized engine to {tokens:.1e} (relative), and is {steps:.1%} away from a ÷A "
             "normalization. The same model without loss kwargs gets its own mean loss ÷ "
             "gradient_accumulation_steps: {fallback_steps:.1e} from gastudy's ÷A update, {fallback_tokens:.1%} from the "
             "token-normalized one. Across devices, average_tokens_across_devices (here {across}) decides: on, the "
             "count is summed over all processes and the loss multiplied by their number (chapter 06's global "
             "denominator); off, each device divides by its own count. A custom compute_loss must divide its summed "
             "loss by num_items_in_batch — and a Trainer subclass must say so with loss_is_scaled_for_ga = True, or "
             "the loss is divided by A once more (chapter 03).",
             tokens=cmp.max_rel, steps=steps.max_rel, fallback_steps=fallback_steps.max_rel,
             fallback_tokens=fallback_tokens.max_rel, across=across)
    return text, {"measured": True, "tokens_rel": cmp.max_rel, "tokens_passed": cmp.passed, "steps_rel": steps.max_rel,
                  "fallback_steps_passed": fallback_steps.passed, "fallback_tokens_passed": fallback_tokens.passed,
                  "fallback_tokens_rel": fallback_tokens.max_rel, "average_tokens_across_devices": across}


QUESTIONS: dict[str, Question] = {q.key: q for q in [
    Question("same-gradient", lambda: t("Is accumulating A microbatches the same as one batch A times larger?"),
             ("MB-8", "GA-1"), "07_same_batch_different_experiment", _same_gradient),
    Question("divide-by-A", lambda: t("Can I simply divide each microbatch's loss by A?"),
             ("GA-4", "MB-3"), "03_loss_normalization", _divide_by_a),
    Question("faster", lambda: t("Will accumulation make my training faster?"), ("GA-2",),
             "07_same_batch_different_experiment", _faster),
    Question("memory-saved", lambda: t("How much memory does a smaller microbatch really save?"), ("GA-1", "MB-9"),
             "09_memory_check_and_decide", _memory_saved),
    Question("learning-rate", lambda: t("If I change A, must I change the learning rate?"), ("MB-8",),
             "07_same_batch_different_experiment", _learning_rate),
    Question("scheduler", lambda: t("Should the scheduler step once per microbatch?"), ("MB-6",),
             "04_accumulation_group", _scheduler),
    Question("gpus", lambda: t("I train on 8 GPUs: is my effective batch m × A × 8?"), ("MB-2",),
             "02_effective_batch", _gpus),
    Question("short-group", lambda: t("What happens to the samples of the last, short group?"), ("MB-4",),
             "04_accumulation_group", _short_group),
    Question("checkpoint-gradient", lambda: t("Does activation checkpointing change my gradients?"), ("CK-1",),
             "08_checkpointing", _checkpoint_gradient),
    Question("checkpoint-or-accumulate",
             lambda: t("Checkpointing or a smaller microbatch: which saves more memory?"),
             ("CK-2", "GA-1"), "08_checkpointing", _checkpoint_or_accumulate),
    Question("first-step-memory", lambda: t("Why does memory jump at the first update?"), ("MB-9",),
             "09_memory_check_and_decide", _first_step_memory),
    Question("fp16-skips", lambda: t("With fp16, can an update be skipped — and does the schedule notice?"),
             ("MB-5", "MB-6"), "05_mixed_precision", _fp16_skips),
    Question("duplicates", lambda: t("How do I know each GPU sees different samples?"), ("MB-7",),
             "06_data_parallel", _duplicates),
    Question("bit-identical", lambda: t("Why are my weights not bit-identical after switching to accumulation?"),
             ("MB-8",), "07_same_batch_different_experiment", _bit_identical),
    Question("offload", lambda: t("Should I offload activations to the CPU?"), ("CK-4",), "08_checkpointing",
             _offload),
    Question("checkpoint-vs-accumulate", lambda: t("Checkpointing or accumulation: which one changes my training?"),
             ("CK-2", "MB-8"), "08_checkpointing", _checkpoint_vs_accumulate),
    Question("hugging-face", lambda: t("Does the Hugging Face Trainer normalize accumulation correctly?"),
             ("GA-3", "GA-4", "GA-6"), "03_loss_normalization", _hugging_face),
]}


def rtl_markdown(text: str, code: str | None = None) -> str:
    """``text`` (Markdown) wrapped in ``<div dir="rtl">`` when ``code`` (default: the current course
    language) is written right to left, as the Arabic edition wraps its markdown cells; else as is.
    Course: MB-12."""
    if direction(code) != "rtl":
        return text
    return f'<div dir="rtl" lang="{code or language()}">\n\n{text}\n\n</div>'


def ask(key: str) -> Answer:
    """Measure and answer question ``key`` of :data:`QUESTIONS` (course: MB-12).

    Returns an :class:`Answer` whose text quotes the numbers just measured (``evidence``).
    In a notebook it displays as Markdown. Raises ``KeyError`` listing the keys when
    ``key`` is unknown.
    """
    if key not in QUESTIONS:
        raise KeyError(f"no question {key!r}; ask one of: {', '.join(QUESTIONS)}")
    q = QUESTIONS[key]
    text, evidence = q.measure()
    return Answer(q.key, q.question, text, evidence, q.sections, q.chapter, language())


class QuestionsLab(Lab):
    """Pick a question; its measurement runs and the answer quotes the numbers (course: MB-12)."""

    def __init__(self, key: str = "same-gradient"):
        import ipywidgets as w

        self.title = t("MB-12 · Ask a question; the answer is measured now")
        options = [(q.question, q.key) for q in QUESTIONS.values()]
        super().__init__(key=w.Dropdown(options=options, value=key, description=t("question"),
                                        layout=w.Layout(width="95%")))

    def compute(self, key: str) -> Answer:
        return ask(key)

    def render(self, result: Answer) -> None:
        from IPython.display import Markdown, display

        display(Markdown(result._repr_markdown_()))
