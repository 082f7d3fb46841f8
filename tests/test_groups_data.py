import json
from pathlib import Path

import pytest
import torch

from gastudy.core.data import (
    AdditionDataset,
    MicrobatchStream,
    concat_microbatches,
    decode,
    packed_collate,
    pad_collate,
    split_batch,
)
from gastudy.core.groups import make_groups

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
    dup = MicrobatchStream(ds, 3, replicas=2, rank=1, shard=False, seed=5).indices(0)
    assert dup == MicrobatchStream(ds, 3, replicas=2, rank=0, shard=False, seed=5).indices(0)


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
