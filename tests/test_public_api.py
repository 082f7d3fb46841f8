"""What a user imports: a small public API, the names that moved still reachable for one release
(with a DeprecationWarning that says where they are now), and the engine's seams — a
normalization is an object it is given, the wrong ones live in the course."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import warnings

import pytest
import torch

import gastudy
from gastudy.core.engine import Accumulator, Counters
from gastudy.core.loss import Normalization, Tokens, YourLoss, as_normalization
from gastudy.core.record import RunRecord
from gastudy.course import mistakes
from tests.helpers import addition_microbatches, group_of, tiny_gpt


def test_the_public_api_is_small_and_holds_no_course():
    assert len(gastudy.__all__) <= 24
    course_names = {"AdditionDataset", "BlobDataset", "MLP", "TinyGPT", "build_model", "count_unshifted",
                    "inject_overflow", "mean_of_means", "weighted_mean"}
    assert not course_names & set(gastudy.__all__)
    for name in gastudy.__all__:
        obj = getattr(gastudy, name)
        assert (obj.__doc__ or "").strip(), f"{name} has no docstring"


@pytest.mark.parametrize("name", sorted(gastudy.MOVED_NAMES))
def test_a_moved_name_still_works_for_one_release_and_says_where_it_lives(name):
    with pytest.warns(DeprecationWarning, match=f"gastudy.{name} moved to {gastudy.MOVED_NAMES[name]}.{name}"):
        obj = getattr(gastudy, name)
    assert obj is getattr(importlib.import_module(gastudy.MOVED_NAMES[name]), name)


def test_an_old_module_path_imports_the_new_module_and_leaves_its_spec_alone():
    code = ("import warnings, sys; warnings.simplefilter('error', DeprecationWarning)\n"
            "try:\n    import gastudy.engine\nexcept DeprecationWarning as w:\n    print('warned:', w)\n"
            "warnings.simplefilter('ignore')\n"
            "import gastudy.engine as old, gastudy.core.engine as new, gastudy.launch as launch\n"
            "from gastudy.engine import Accumulator\n"
            "print(old is new, Accumulator is new.Accumulator, new.__spec__.name, launch.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "warned: gastudy.engine moved to gastudy.core.engine" in out
    assert out.strip().endswith("True True gastudy.core.engine gastudy.parallel.launch")


def test_unknown_names_are_still_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        gastudy.nope  # noqa: B018


def test_the_engine_offers_only_the_right_normalization_and_says_where_the_wrong_ones_are():
    assert isinstance(as_normalization("tokens"), Tokens) and isinstance(as_normalization(None), Tokens)
    for wrong in ("steps", "mean"):
        with pytest.raises(ValueError, match="mistakes the course shows: gastudy.course.mistakes"):
            as_normalization(wrong)
    with pytest.raises(TypeError, match="normalization must be 'tokens' or an object"):
        as_normalization(42)
    for name, cls in mistakes.NORMALIZATIONS.items():
        made = mistakes.normalization(name)
        assert isinstance(made, cls) and isinstance(made, Normalization) and made.name == name
    with pytest.raises(ValueError, match="unknown normalization 'nope'"):
        mistakes.normalization("nope")


def test_a_normalization_the_engine_is_given_is_what_it_divides_by():
    """A strategy of the caller's own: the engine calls it once per microbatch with the agreed
    denominator, and its name goes into the update's record."""
    seen = []

    class Halved:
        name = "half of tokens"

        def loss(self, output, batch, group, denominator, replicas):
            seen.append((group.index, denominator, replicas))
            return Tokens().loss(output, batch, group, denominator, replicas) / 2

    mbs = addition_microbatches(8, 2)
    losses = {}
    for label, norm in (("tokens", "tokens"), ("half", Halved())):
        model = tiny_gpt()
        engine = Accumulator(model, torch.optim.SGD(model.parameters(), lr=0.0), accumulation_steps=4,
                             normalization=norm)
        losses[label] = engine.update(group_of(mbs)).loss
    assert len(seen) == 4 and {s[1] for s in seen} == {group_of(mbs).supervised_items} and {s[2] for s in seen} == {1}
    assert losses["half"] == pytest.approx(losses["tokens"] / 2, rel=1e-12)
    model = tiny_gpt()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="either loss_fn .* or the normalization 'half of tokens'"):
        Accumulator(model, optimizer, accumulation_steps=2, normalization=Halved(), loss_fn=lambda o, b, n: o.logits.sum())
    assert isinstance(Accumulator(model, optimizer, accumulation_steps=2,
                                  loss_fn=lambda o, b, n: o.logits.sum()).normalization, YourLoss)


def test_counters_are_declared_once_and_the_record_carries_them():
    counter_fields = set(Counters().to_dict())
    record = RunRecord(model="m", task="causal", micro_batch=2, accumulation_steps=4, replicas=2, effective_batch=16,
                       precision="fp32", normalization="tokens", last_group_policy="keep",
                       **Counters.over_replicas([
                           {"microbatches": 4, "backward_passes": 4, "updates_attempted": 1, "updates_applied": 1,
                            "scheduler_steps": 1, "samples": 8, "supervised_tokens": 30},
                           {"microbatches": 4, "backward_passes": 4, "updates_attempted": 1, "updates_applied": 1,
                            "scheduler_steps": 1, "samples": 8, "supervised_tokens": 25}]).to_dict())
    d = record.to_dict()
    assert counter_fields <= set(d)
    assert (d["microbatches"], d["backward_passes"], d["samples"], d["supervised_tokens"]) == (8, 8, 16, 55)
    assert (d["updates_attempted"], d["updates_applied"], d["scheduler_steps"]) == (1, 1, 1)  # not summed
    keys = list(d)
    assert keys.index("pipeline_parallel") < keys.index("updates_attempted") < keys.index("last_group")
    old = {k: v for k, v in d.items() if k != "backward_passes"}  # a record written before it was counted
    assert RunRecord(**json.loads(json.dumps(old))).backward_passes == 0


def test_the_engine_counts_one_update_in_every_unit():
    model = tiny_gpt()
    sched_opt = torch.optim.SGD(model.parameters(), lr=0.1)
    engine = Accumulator(model, sched_opt, accumulation_steps=4,
                         scheduler=torch.optim.lr_scheduler.LambdaLR(sched_opt, lambda u: 1.0))
    group = group_of(addition_microbatches(8, 2))
    engine.update(group)
    assert engine.counters.to_dict() == {"microbatches": 4, "backward_passes": 4, "updates_attempted": 1,
                                         "updates_applied": 1, "scheduler_steps": 1, "samples": 8,
                                         "supervised_tokens": group.supervised_items}


def test_import_gastudy_warns_about_nothing():
    code = "import warnings; warnings.simplefilter('error'); import gastudy, gastudy.cli; print('ok')"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "ok\n"


def test_mistakes_stay_out_of_the_library():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        import gastudy.core.counting as counting
        import gastudy.core.precision as precision
    assert not hasattr(counting, "count_unshifted") and not hasattr(precision, "inject_overflow")
    batch = {"labels": torch.tensor([[5, 6, -100], [7, -100, -100]])}
    assert mistakes.count_unshifted(batch) == 3 and counting.count_supervised(batch) == 1


# --------------------------------------------------------------------------- a model by name: workloads
class _Points(torch.utils.data.Dataset):
    """Your own data: points in 3 dimensions, two classes, each with a sample_id."""

    def __init__(self, size: int, seed: int = 0):
        g = torch.Generator().manual_seed(seed)
        self.x, self.y = torch.randn(size, 3, generator=g), torch.randint(0, 2, (size,), generator=g)

    def __len__(self) -> int:
        return len(self.y)

    def __getitem__(self, i: int) -> dict:
        return {"inputs": self.x[i], "labels": self.y[i], "sample_id": torch.tensor(i)}


class _Classifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 2)

    def forward(self, inputs):
        return self.linear(inputs)


def _build(seed: int = 0, dtype: torch.dtype = torch.float32) -> torch.nn.Module:
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        return _Classifier().to(dtype)


def test_a_workload_of_your_own_trains_by_name_and_as_an_object():
    from gastudy.core.workloads import Workload, names, register, workload
    from gastudy.run.train import TrainConfig, train

    mine = register(Workload("my-classifier", _build, _Points, task="classification"))
    assert "my-classifier" in names() and workload("my-classifier") is mine
    runs = [train(TrainConfig(model=model, dataset_size=20, micro_batch=4, accumulation_steps=2, progress=False))
            for model in ("my-classifier", mine)]
    for run in runs:
        assert run.record.model == "my-classifier" and run.record.task == "classification"
        assert run.record.updates_attempted == 3 and run.record.samples == 20  # ⌈5 microbatches / A=2⌉
    assert all(torch.equal(a, b) for a, b in zip(runs[0].model.state_dict().values(),
                                                  runs[1].model.state_dict().values()))
    report = gastudy.verify_one_update(mine, micro_batch=3, accumulation_steps=2)
    assert report.passed and report.config["model"] == "my-classifier" and report.record.samples == 6
    with pytest.raises(TypeError, match="register takes a Workload"):
        register("my-classifier")
    with pytest.raises(ValueError, match="unknown task"):
        Workload("bad", _build, _Points, task="regression")


def test_an_unknown_model_name_says_what_is_registered():
    from gastudy.core.workloads import workload
    from gastudy.run.train import TrainConfig

    with pytest.raises(ValueError, match="unknown model 'gpt-5'; registered: tiny-gpt, ln-mlp, bn-mlp, mlp"):
        workload("gpt-5")
    with pytest.raises(ValueError, match="unknown model 'gpt-5'"):
        TrainConfig(model="gpt-5").validate()


def test_the_library_registers_nothing_and_the_course_registers_its_models():
    code = ("import gastudy, gastudy.cli\nfrom gastudy.core.workloads import names\nprint(names())\n"
            "import gastudy.course\nprint(names())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "()" and out[1] == "('tiny-gpt', 'ln-mlp', 'bn-mlp', 'mlp')"


def test_the_course_data_and_models_are_at_their_old_paths_for_one_release():
    with pytest.warns(DeprecationWarning, match="gastudy.core.data.AdditionDataset moved to gastudy.course.datasets"):
        from gastudy.core.data import AdditionDataset
    from gastudy.course.datasets import AdditionDataset as new

    assert AdditionDataset is new
    code = ("import warnings; warnings.simplefilter('ignore')\nimport gastudy.core.models as old, gastudy.course.models "
            "as new\nprint(old is new)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "True"


def test_one_name_per_thing_run_is_the_engine_s_loop_over_groups_train_a_whole_run():
    model = tiny_gpt()
    engine = Accumulator(model, torch.optim.SGD(model.parameters(), lr=0.1), accumulation_steps=2)
    groups = [group_of(addition_microbatches(4, 2)), group_of(addition_microbatches(4, 2, seed=1))]
    assert [r.group for r in engine.run(groups)] == [0, 0] and engine.counters.updates_attempted == 2
    with pytest.warns(DeprecationWarning, match="Accumulator.train is now Accumulator.run"):
        assert len(engine.train(groups[:1])) == 1
