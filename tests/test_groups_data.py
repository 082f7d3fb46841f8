import json
from pathlib import Path

import pytest
import torch

from gastudy.core.data import (
    MicrobatchStream,
    concat_microbatches,
    packed_collate,
    pad_collate,
    split_batch,
)
from gastudy.core.groups import build_group, make_groups
from gastudy.course.datasets import AdditionDataset, decode
from gastudy.course.mistakes import unsharded_stream

DATA = Path(__file__).resolve().parent.parent / "data"


def test_groups_know_boundaries_ids_and_items_up_front():
    stream = MicrobatchStream(AdditionDataset(20, seed=0), 2, seed=0)
    groups = list(make_groups(stream, 4))
    assert [g.size for g in groups] == [4, 4, 2]
    assert [g.partial for g in groups] == [False, False, True]
    all_ids = [i for g in groups for i in g.sample_ids]
    assert sorted(all_ids) == list(range(20))
    assert groups[0].supervised_items == sum(g_items for g_items in groups[0].items)
    assert groups[0].items == [int((mb["labels"][:, 1:] != -100).sum()) for mb in groups[0].microbatches]


def test_group_sample_ids_are_read_when_asked_and_missing_ids_are_refused_at_build_time():
    mbs = list(MicrobatchStream(AdditionDataset(12, seed=0), 3, seed=0).microbatches())[:3]
    group = build_group(0, mbs, 4, "causal")
    assert group._sample_ids is None and group.samples == 9  # counted without building the list
    expected = [int(i) for mb in mbs for i in mb["sample_ids"]]
    assert group.sample_ids == expected and group.sample_ids is group.sample_ids and group.samples == 9
    two_d = {**mbs[0], "sample_ids": mbs[0]["sample_ids"].reshape(1, 3)}
    assert build_group(1, [two_d], 4, "causal").sample_ids == expected[:3]
    without = {k: v for k, v in mbs[1].items() if k != "sample_ids"}
    with pytest.raises(KeyError, match="make_groups"):
        build_group(2, [mbs[0], without], 4, "causal")


@pytest.mark.parametrize("policy, sizes", [("keep", [4, 4, 2]), ("drop", [4, 4])])
def test_short_last_group_policy_and_record(policy, sizes):
    stream = MicrobatchStream(AdditionDataset(20, seed=0), 2, seed=0)
    gs = make_groups(stream, 4, last_group=policy)
    groups = list(gs)
    assert [g.size for g in groups] == sizes
    assert gs.partial.policy == policy and gs.partial.microbatches == 2
    assert sorted(gs.partial.sample_ids) == sorted(set(range(20)) - {i for g in groups[:2] for i in g.sample_ids})


def test_full_stream_has_no_partial_record():
    gs = make_groups(MicrobatchStream(AdditionDataset(16), 2), 4)
    assert len(list(gs)) == 2 and gs.partial is None


def test_bad_group_settings():
    with pytest.raises(ValueError, match="accumulation_steps"):
        make_groups([], 0)
    with pytest.raises(ValueError, match="'keep' or 'drop'"):
        make_groups([], 2, last_group="pad")
    with pytest.raises(ValueError, match="micro_batch"):
        MicrobatchStream(AdditionDataset(4), 0)


def test_stream_shards_replicas_disjointly_and_resumes_at_a_position():
    ds = AdditionDataset(30, seed=2)
    shards = [MicrobatchStream(ds, 3, replicas=3, rank=r, seed=5).indices(1) for r in range(3)]
    assert sorted(i for s in shards for i in s) == list(range(30))
    stream = MicrobatchStream(ds, 3, seed=5)
    full = list(stream.microbatches(epoch=1))
    tail = list(stream.microbatches(epoch=1, start=4))
    assert all(torch.equal(a["sample_ids"], b["sample_ids"]) for a, b in zip(full[4:], tail))
    dup = unsharded_stream(ds, 3, replicas=2, rank=1, seed=5).indices(0)
    assert dup == unsharded_stream(ds, 3, replicas=2, rank=0, seed=5).indices(0) == stream.indices(0)


def test_collators_round_trip_and_concat():
    ds = AdditionDataset(6, seed=4)
    samples = [ds[i] for i in range(6)]
    for collate in (pad_collate, packed_collate):
        back = split_batch(collate(samples))
        assert all(torch.equal(a["input_ids"], b["input_ids"]) and torch.equal(a["labels"], b["labels"])
                   for a, b in zip(samples, back))
    big = concat_microbatches([packed_collate(samples[:3]), packed_collate(samples[3:])])
    assert torch.equal(big["shift_labels"], packed_collate(samples)["shift_labels"])


def test_generated_data_matches_the_committed_sample():
    """data/addition_sample.jsonl is the generator's output for seed 0: the data is reproducible."""
    rows = [json.loads(line) for line in (DATA / "addition_sample.jsonl").read_text().splitlines()]
    ds = AdditionDataset(len(rows), seed=0)
    for row, item in zip(rows, ds.items):
        assert row["text"] == decode(item["input_ids"].tolist())
        assert row["supervised"] == int((item["labels"] != -100).sum())


# --- batches from elsewhere (a Hugging Face collator): no sample ids, their own pad token --------

def hf_padded_batches(n_batches=5, rows=2, pad=0, seed=0):
    """What DataCollatorForLanguageModeling gives for causal LM: right-padded input_ids,
    attention_mask, labels = input_ids with -100 on padding; no sample ids."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n_batches):
        lengths = torch.randint(3, 9, (rows,), generator=g).tolist()
        T = max(lengths)
        ids = torch.full((rows, T), pad)
        mask = torch.zeros((rows, T), dtype=torch.long)
        for r, n in enumerate(lengths):
            ids[r, :n] = torch.randint(1, 20, (n,), generator=g)
            mask[r, :n] = 1
        out.append({"input_ids": ids, "attention_mask": mask, "labels": ids.masked_fill(mask == 0, -100)})
    return out


def hf_packed_batch(lengths, seed=0):
    """What DataCollatorWithFlattening gives: one row, position_ids restarting, labels with -100
    at each sequence's first position (the separator), no shift_labels, no sample ids."""
    g = torch.Generator().manual_seed(seed)
    ids = [torch.randint(1, 20, (n,), generator=g) for n in lengths]
    labels = [torch.cat([torch.tensor([-100]), x[1:]]) for x in ids]
    return {"input_ids": torch.cat(ids)[None], "labels": torch.cat(labels)[None],
            "position_ids": torch.cat([torch.arange(n) for n in lengths])[None]}


def test_batches_without_ids_become_groups_numbered_by_stream_position():
    batches = hf_padded_batches(5)
    originals = [dict(b) for b in batches]
    stream = make_groups(iter(batches), 2)
    groups = list(stream)
    assert [g.size for g in groups] == [2, 2, 1] and [g.ids_assigned for g in groups] == [True] * 3
    assert stream.ids_assigned and stream.partial.sample_ids == [8, 9]
    assert [g.sample_ids for g in groups[:2]] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert groups[0].items == [int((b["labels"][:, 1:] != -100).sum()) for b in batches[:2]]
    assert all(sorted(b) == sorted(o) and "sample_ids" not in b for b, o in zip(batches, originals))  # untouched
    with_ids = list(make_groups(MicrobatchStream(AdditionDataset(8, seed=0), 2), 2))
    assert not any(g.ids_assigned for g in with_ids)


def test_packed_batches_without_ids_count_sequences_and_round_trip():
    a, b = hf_packed_batch([4, 6, 3], seed=1), hf_packed_batch([5, 2], seed=2)
    group = next(iter(make_groups([a, b], 2)))
    assert group.sample_ids == [0, 1, 2, 3, 4] and group.ids_assigned
    assert group.items == [(4 - 1) + (6 - 1) + (3 - 1), (5 - 1) + (2 - 1)]  # the shifted count per sequence
    big = concat_microbatches(group.microbatches)
    assert big["sample_ids"].tolist() == [0, 1, 2, 3, 4]
    assert torch.equal(big["input_ids"], torch.cat([a["input_ids"], b["input_ids"]], dim=1))
    assert int((big["shift_labels"] != -100).sum()) == group.supervised_items
    starting_at_1 = split_batch({**a, "position_ids": a["position_ids"] + 1})  # a collator's position_ids_start=1
    assert [len(s["input_ids"]) for s in starting_at_1] == [4, 6, 3]


def test_pad_collate_takes_the_pad_token_and_samples_may_lack_ids():
    samples = [{"input_ids": torch.tensor([5, 6, 7]), "labels": torch.tensor([5, 6, 7])},
               {"input_ids": torch.tensor([8]), "labels": torch.tensor([8])}]
    batch = pad_collate(samples, pad_token_id=0)
    assert batch["input_ids"].tolist() == [[5, 6, 7], [8, 0, 0]] and "sample_ids" not in batch
    assert batch["labels"].tolist() == [[5, 6, 7], [8, -100, -100]]
    assert pad_collate(samples)["input_ids"][1, 1] == 13  # the default stays the course's PAD
    with pytest.raises(ValueError, match="1 of 2 samples have a 'sample_id'"):
        pad_collate([{**samples[0], "sample_id": torch.tensor(3)}, samples[1]])
    big = concat_microbatches(hf_padded_batches(2, pad=0))
    assert int(big["input_ids"][big["attention_mask"] == 0].unique().item()) == 0  # re-padded with the batch's pad


def test_microbatch_stream_order_is_explicit():
    data = AdditionDataset(10, seed=0)
    assert MicrobatchStream(data, 2).shuffle is True  # the default: a permutation per epoch
    assert MicrobatchStream(data, 2, shuffle=False).indices(0) == list(range(10))
    shuffled = MicrobatchStream(data, 2, seed=3)
    assert shuffled.indices(0) != list(range(10)) and sorted(shuffled.indices(0)) == list(range(10))
    assert shuffled.indices(0) == MicrobatchStream(data, 2, seed=3).indices(0)  # deterministic
    assert shuffled.indices(1) != shuffled.indices(0)  # a fresh permutation per epoch
    with pytest.raises(ValueError, match="shuffle must be True .* or False"):
        MicrobatchStream(data, 2, shuffle="yes")
