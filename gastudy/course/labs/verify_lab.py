"""Chapter 10 — verify one update, then keep a record (course section MB-10).

The labs of ``notebooks/10_verify_and_record.ipynb``:

- :class:`VerifyLab`: the one-update verifier on the learner's configuration — model, m, A,
  D, precision, normalization. D = 1 runs :func:`gastudy.check.verify.verify_one_update`; D > 1
  runs :func:`gastudy.check.replicas.verify_replicas_worker` on the course's warm pool of D
  local processes (:func:`gastudy.course.demos.ddp.warm_pool`).
- :func:`expected_verdict`: what the derivation of the chapter says the verifier must answer for a
  setting (so the chapter checks the verdict on every setting the lab allows, failing ones too);
- :class:`RecordLab`: a short real training run (:func:`gastudy.run.train.train`) whose run record
  gets the observed memory peak, is shown, and is saved under the stage it belongs to
  (preparation, trial, accepted), then read back; :func:`expected_record` counts, from m, A
  and the last-group policy alone, the updates and the short group the record must show.
"""

from __future__ import annotations

import html
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gastudy.check.verify import VerifyReport, verify_one_update
from gastudy.core.precision import PRECISIONS
from gastudy.core.record import RunRecord
from gastudy.course import mistakes
from gastudy.course.i18n import t
from gastudy.course.models import MODEL_NAMES
from gastudy.course.widgets import Lab, rtl_attr, show_html, show_table
from gastudy.memory.probes import MemoryProbe
from gastudy.memory.saved import format_bytes

STAGES = ("preparation", "trial", "accepted")
_DEFAULT_ROOT: list[Path] = []  # one temporary folder per process, made on first use


def default_root() -> Path:
    """The folder records go to when none is given: one temporary folder per process (MB-10).

    The notebook never writes into the repository; pass ``root="runs"`` to keep records.
    """
    if not _DEFAULT_ROOT:
        _DEFAULT_ROOT.append(Path(tempfile.mkdtemp(prefix="gastudy-runs-")))
    return _DEFAULT_ROOT[0]


def verify(model: str = "tiny-gpt", micro_batch: int = 2, accumulation_steps: int = 4, replicas: int = 1,
           precision: str = "fp32", normalization: str = "tokens", seed: int = 0) -> VerifyReport:
    """Verify one update of m × A × D (course: MB-10, MB-7 for D > 1).

    D = 1: :func:`gastudy.check.verify.verify_one_update`. D > 1: a real run on D local processes
    (DDP, gloo), checked against the single-process big batch over all m × A × D samples.
    Returns the :class:`VerifyReport` (rank 0's). Raises ``ValueError`` for bad settings and
    :class:`gastudy.parallel.launch.WorkerError` when a process fails.
    """
    normalization = mistakes.normalization(normalization)
    if replicas == 1:
        return verify_one_update(model, micro_batch, accumulation_steps, precision, normalization, seed=seed)
    from gastudy.check.replicas import check_replica_settings, verify_replicas_worker
    from gastudy.core.workloads import workload
    from gastudy.course.demos.ddp import run_on_replicas

    check_replica_settings(replicas, micro_batch, accumulation_steps, precision, normalization)
    ranks = run_on_replicas(verify_replicas_worker, replicas, model=workload(model), micro_batch=micro_batch,
                            accumulation_steps=accumulation_steps, precision=precision,
                            normalization=normalization, seed=seed)
    return ranks[0]["report"]


@dataclass(frozen=True)
class Expected:
    """What the derivation of chapter 10 predicts for one setting: ``passes`` and ``why`` (a
    sentence in the course language). MB-10."""

    passes: bool
    why: str


def expected_verdict(model: str = "tiny-gpt", micro_batch: int = 2, accumulation_steps: int = 4, replicas: int = 1,
                     normalization: str = "tokens", seed: int = 0, **_: object) -> Expected:
    """The verdict :func:`verify` must give for this setting, from the derivation, not from running it.

    The accumulated gradient Σᵢ ∇ℓᵢ ÷ N equals the big batch's when the split changes nothing but
    the order of a sum: one microbatch in all (A·D = 1) is the big batch itself; a BatchNorm
    layer normalizes each microbatch with its own statistics (fails); ``tokens`` weighs every
    supervised item 1 ÷ N (passes); ``steps`` and ``mean`` weigh every microbatch alike, which is
    the same only when every microbatch of the group holds the same number nᵢ of supervised items
    (counted here on the verifier's own controlled set, every replica's share). The precision
    only moves the tolerance. Other controls (``precision``) are accepted and ignored. MB-10.
    """
    from gastudy.check.verify import controlled_microbatches, has_batchnorm
    from gastudy.core.counting import count_supervised
    from gastudy.core.workloads import workload

    work = workload(model)
    if micro_batch * accumulation_steps * replicas == micro_batch:
        return Expected(True, t("one microbatch in all: the update is the big batch itself"))
    if has_batchnorm(work.build(seed=seed)):
        return Expected(False, t("BatchNorm normalizes each microbatch with its own statistics"))
    if normalization == "tokens":
        return Expected(True, t("÷ N weighs every supervised item 1 ÷ N, however the samples are split"))
    counts = [count_supervised(mb, work.task) for rank in range(replicas)
              for mb in controlled_microbatches(work, micro_batch, accumulation_steps, seed=seed, replicas=replicas,
                                                rank=rank)]
    if len(set(counts)) == 1:
        return Expected(True, t("every microbatch holds {n} supervised items, so weighing microbatches alike weighs "
                                "every item alike", n=counts[0]))
    return Expected(False, t("microbatches hold {counts} supervised items: weighing them alike is not ÷ N",
                             counts=", ".join(map(str, counts))))


def check_name(name: str) -> str:
    """The name of a verifier check (:class:`gastudy.check.verify.Check` ``.name``, English in the
    library) in the current course language; an unknown name is returned as is. Course: MB-10, MB-7."""
    return {
        "gradient equals the big batch": t("gradient equals the big batch"),
        "same sample ids": t("same sample ids"),
        "finite gradients": t("finite gradients"),
        "gradients zero at the group boundary": t("gradients zero at the group boundary"),
        "exactly one optimizer step": t("exactly one optimizer step"),
        "exactly one scheduler step": t("exactly one scheduler step"),
        "gradient equals the single-process big batch": t("gradient equals the single-process big batch"),
        "same gradient on every replica": t("same gradient on every replica"),
        "sample ids distinct across replicas": t("sample ids distinct across replicas"),
        "global denominator = the big batch's supervised items":
            t("global denominator = the big batch's supervised items"),
    }.get(name, name)


def verdict_lines(report: VerifyReport) -> list[str]:
    """The verdict under the table, in the current course language: ``PASSED``, or ``FAILED`` and
    the reasons. The reasons (what was measured) come from the library and stay English. MB-10."""
    if report.passed:
        return [t("PASSED")]
    return [t("FAILED:"), *(f"- {reason}" for reason in report.reasons)]


class VerifyLab(Lab):
    """The one-update verifier on your configuration: every check, its measurement, the verdict (MB-10).

    The check names and the verdict are in the course language; the measured details and the
    failure reasons are the library's English sentences (:mod:`gastudy.check.verify`).
    """

    def __init__(self, model: str = "tiny-gpt", micro_batch: int = 2, accumulation_steps: int = 4,
                 replicas: int = 1, precision: str = "fp32", normalization: str = "tokens"):
        import ipywidgets as w

        from gastudy.course.mistakes import NORMALIZATIONS

        self.title = t("MB-10 · Verify one update on a small controlled set before any campaign")
        super().__init__(
            model=w.Dropdown(options=MODEL_NAMES, value=model, description=t("model")),
            micro_batch=w.IntSlider(value=micro_batch, min=2, max=8, description="m"),
            accumulation_steps=w.IntSlider(value=accumulation_steps, min=1, max=8, description="A"),
            replicas=w.IntSlider(value=replicas, min=1, max=3, description=t("D (processes)")),
            precision=w.Dropdown(options=PRECISIONS, value=precision, description=t("precision")),
            normalization=w.Dropdown(options=list(NORMALIZATIONS), value=normalization, description=t("normalization")),
        )

    def compute(self, **values) -> VerifyReport:
        return verify(**values)

    def render(self, result: VerifyReport) -> None:
        show_table([{"check": check_name(c.name), "ok": "✓" if c.ok else "✗", "measured": c.detail}
                    for c in result.checks],
                   headers={"check": t("check"), "ok": t("ok"), "measured": t("measured")}, english=["measured"])
        lines = verdict_lines(result)
        show_html(f"<p{rtl_attr()}><b>{html.escape(lines[0])}</b>"
                  + "".join(f'<br><span dir="ltr" lang="en">{html.escape(line)}</span>' for line in lines[1:]) + "</p>",
                  "\n" + "\n".join(lines))


@dataclass
class RecordResult:
    """A short run's record (with the observed peak), where it was saved, and the record read back.

    Course: MB-10.
    """

    record: RunRecord
    json_path: Path
    markdown_path: Path
    reloaded: RunRecord


@dataclass(frozen=True)
class ExpectedRecord:
    """What a run record must show for ``dataset_size`` samples in microbatches of m, A per
    group, counted without running anything (MB-4, MB-10): the ``microbatches``, ``updates`` and
    ``samples`` trained on (a dropped short group's are not), and the short last group's samples
    (``short_samples``, recorded whether it is kept or dropped; 0 when the microbatches fill whole
    groups — a group is short when it has fewer than A microbatches, whatever their sizes; the
    last microbatch may hold fewer than m)."""

    microbatches: int
    updates: int
    samples: int
    short_samples: int


def expected_record(micro_batch: int = 4, accumulation_steps: int = 4, last_group: str = "keep",
                    dataset_size: int = 150, **_: object) -> ExpectedRecord:
    """The counts a one-epoch run record of :func:`record_run` must hold for these settings
    (``stage`` and other controls are accepted and ignored). MB-10."""
    microbatches = -(-dataset_size // micro_batch)
    full, rest = divmod(microbatches, accumulation_steps)
    short = dataset_size - full * accumulation_steps * micro_batch if rest else 0
    if last_group == "keep" or not short:
        return ExpectedRecord(microbatches, full + (short > 0), dataset_size, short)
    return ExpectedRecord(full * accumulation_steps, full, dataset_size - short, short)


def record_run(model: str = "tiny-gpt", micro_batch: int = 4, accumulation_steps: int = 4, last_group: str = "keep",
               precision: str = "fp32", normalization: str = "tokens", dataset_size: int = 150,
               stage: str = "trial", root: str | Path | None = None, seed: int = 0) -> RecordResult:
    """Train briefly, add the observed peak, save the run record under ``root/stage`` and read it back.

    The run is :func:`gastudy.run.train.train` on generated data (one epoch of ``dataset_size``
    samples). ``peak_memory_bytes["cpu"]`` is the process's peak resident memory during the
    run (:class:`gastudy.memory.probes.MemoryProbe`). ``root`` defaults to :func:`default_root`, so
    running the notebook never writes into the repository. Course: MB-10.
    Raises ``ValueError`` for an unknown ``stage`` or bad training settings.
    """
    from gastudy.run.train import TrainConfig, train

    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; keep runs apart as one of {', '.join(STAGES)}")
    config = TrainConfig(model=model, micro_batch=micro_batch, accumulation_steps=accumulation_steps,
                         last_group=last_group, precision=precision,
                         normalization=mistakes.normalization(normalization),
                         dataset_size=dataset_size, seed=seed, progress=False).validate()
    probe = MemoryProbe("cpu")
    probe.release()
    probe.reset_peak()
    run = train(config)
    record = run.record
    record.peak_memory_bytes = {"cpu": probe.peak_bytes()}
    record.notes.append(f"peak: {probe.note}")
    record.notes.append(f"stage: {stage} — keep preparation, trials and accepted results in separate folders")
    folder = Path(root if root is not None else default_root()) / stage
    json_path, md_path = record.save(folder, f"{model}-m{micro_batch}-A{accumulation_steps}")
    return RecordResult(record, json_path, md_path, RunRecord.load(json_path))


class RecordLab(Lab):
    """A short run, its record (with last-group handling and peak), shown and saved (MB-10).

    The record itself (its Markdown and JSON) stays English: it is a file written for tools and
    for whoever repeats the run, and its field names are the library's. The line under it is in
    the course language.
    """

    def __init__(self, micro_batch: int = 4, accumulation_steps: int = 4, last_group: str = "keep",
                 stage: str = "trial"):
        import ipywidgets as w

        self.title = t("MB-10 · The run record: everything needed to interpret or repeat the run")
        stages = {"preparation": t("preparation"), "trial": t("trial"), "accepted": t("accepted")}
        super().__init__(
            micro_batch=w.IntSlider(value=micro_batch, min=1, max=8, description="m"),
            accumulation_steps=w.IntSlider(value=accumulation_steps, min=1, max=8, description="A"),
            last_group=w.Dropdown(options=[(t("keep"), "keep"), (t("drop"), "drop")], value=last_group,
                                  description=t("last group")),
            stage=w.Dropdown(options=[(stages[s], s) for s in STAGES], value=stage, description=t("stage")),
        )

    def compute(self, micro_batch: int, accumulation_steps: int, last_group: str, stage: str) -> RecordResult:
        self.report_progress(0.0, t("training m={m}, A={A}", m=micro_batch, A=accumulation_steps))
        return record_run(micro_batch=micro_batch, accumulation_steps=accumulation_steps, last_group=last_group,
                          stage=stage)

    def render(self, result: RecordResult) -> None:
        from IPython.display import Markdown, display

        display(Markdown(result.record.to_markdown()))
        peak = result.record.peak_memory_bytes.get("cpu", 0)
        line = t("observed peak {peak}; saved to {json} and {markdown}", peak=format_bytes(peak),
                 json=result.json_path, markdown=result.markdown_path.name)
        show_html(f"<p{rtl_attr()}>{html.escape(line)}</p>", line)
