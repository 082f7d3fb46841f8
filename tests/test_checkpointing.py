"""Partial activation checkpointing and offload (CK-3, CK-4): selection rule, recomputation,
gradient equality, and the CPU offload no-op."""

import copy
import warnings

import pytest
import torch
from torch import nn

import gastudy.core.checkpointing as ck
from gastudy.core.checkpointing import (
    CheckpointLayer,
    checkpointed_layers,
    checkpointing,
    disable_checkpointing,
    enable_checkpointing,
    layer_selection,
    marked_layers,
)
from gastudy.course.models import Block, build_model

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


def lm_batch(m=3, T=12, vocab=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (m, T), generator=g)


def grads_of(model, ids):
    model.zero_grad(set_to_none=True)
    logits = model(ids).logits
    torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1)).backward()
    return {n: p.grad.clone() for n, p in model.named_parameters()}


class SelfCheckpointing(nn.Module):
    """A checkpoint-capable module that is *not* a marked layer (its own switch)."""

    def __init__(self, on=True):
        super().__init__()
        self.gradient_checkpointing = on
        self.lin = nn.Linear(8, 8)


class Mixed(nn.Module):
    """Marked layers interleaved with other checkpoint-capable and plain modules."""

    def __init__(self):
        super().__init__()
        self.first = SelfCheckpointing(True)
        self.blocks = nn.ModuleList([Block(8, 2) for _ in range(3)])
        self.middle = SelfCheckpointing(False)
        self.more = nn.Sequential(Block(8, 2), nn.Linear(8, 8), Block(8, 2), Block(8, 2))


@pytest.mark.parametrize("n, expected", [(1, [1, 2, 3, 4, 5, 6, 7]), (2, [1, 3, 5, 7]), (3, [1, 4, 7]), (4, [1, 5])])
def test_layer_selection_rule(n, expected):
    chosen = layer_selection(7, n)
    assert [k for k, on in enumerate(chosen, 1) if on] == expected
    assert len(chosen) == 7


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, None])
def test_every_n_layers_must_be_positive_int(bad):
    with pytest.raises(ValueError, match="every_n_layers must be a whole number"):
        layer_selection(4, bad)


@pytest.mark.parametrize("n, expected", [(1, [1, 2, 3, 4, 5, 6]), (2, [1, 3, 5]), (3, [1, 4]), (4, [1, 5])])
def test_only_marked_layers_count_and_others_stay(n, expected):
    model = Mixed()
    assert len(marked_layers(model)) == 6
    state = enable_checkpointing(model, every_n_layers=n)
    assert state.layers == checkpointed_layers(model) == expected
    assert model.first.gradient_checkpointing is True and model.middle.gradient_checkpointing is False
    disable_checkpointing(model)
    assert checkpointed_layers(model) == []
    assert model.first.gradient_checkpointing is True and model.middle.gradient_checkpointing is False


def test_reenabling_replaces_the_previous_choice_and_context_restores():
    model = build_model("tiny-gpt", layers=4)
    enable_checkpointing(model, 1)
    enable_checkpointing(model, 3)
    assert checkpointed_layers(model) == [1, 4]
    with checkpointing(model, every_n_layers=2):
        assert checkpointed_layers(model) == [1, 3]
    with checkpointing(model, every_n_layers=None):
        assert checkpointed_layers(model) == []
    assert checkpointed_layers(model) == [1, 4]


def test_model_without_marked_layers_is_refused():
    with pytest.raises(ValueError, match="CheckpointLayer"):
        enable_checkpointing(nn.Linear(2, 2))


class CountingBlock(Block):
    """Counts how often its forward body runs (forward + recomputation)."""

    calls = 0

    def forward(self, x, mask):
        type(self).calls += 1
        return super().forward(x, mask)


def counting_model(layers=4):
    model = build_model("tiny-gpt", layers=layers)
    model.blocks = nn.ModuleList(CountingBlock(32, 2) for _ in range(layers))
    return model


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_checkpointed_layers_recompute_once_and_nothing_nests(n, monkeypatch):
    model = counting_model(4)
    enable_checkpointing(model, n)
    checkpoint_calls = []
    real = ck.checkpoint
    monkeypatch.setattr(ck, "checkpoint", lambda *a, **k: checkpoint_calls.append(k) or real(*a, **k))
    hook_calls = []
    model.blocks[0].register_forward_hook(lambda *_: hook_calls.append(1))
    CountingBlock.calls = 0
    grads_of(model, lm_batch())
    chosen = len(checkpointed_layers(model))
    assert CountingBlock.calls == 4 + chosen  # each checkpointed layer runs once more in backward
    assert len(checkpoint_calls) == chosen  # super().forward() inside a wrapped forward does not nest
    assert all(k == {"use_reentrant": False} for k in checkpoint_calls)
    assert hook_calls == [1]  # hooks stay outside the recomputation


def test_no_checkpoint_in_eval_mode_or_without_grad():
    model = counting_model(4)
    enable_checkpointing(model, 1)
    model.eval()
    CountingBlock.calls = 0
    grads_of(model, lm_batch())
    assert CountingBlock.calls == 4  # eval mode: no recomputation
    model.train()
    assert model.blocks[0].checkpoints_now()
    CountingBlock.calls = 0
    with torch.no_grad():
        assert not model.blocks[0].checkpoints_now()
        model(lm_batch())
    assert CountingBlock.calls == 4


@pytest.mark.parametrize("offload", [False, True])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_gradients_equal_without_checkpointing(n, offload):
    ref = build_model("tiny-gpt", dtype=torch.float64, layers=4)
    model = copy.deepcopy(ref)
    ids = lm_batch()
    expected = grads_of(ref, ids)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        enable_checkpointing(model, n, offload=offload)
    got = grads_of(model, ids)
    for name in expected:
        torch.testing.assert_close(got[name], expected[name], rtol=1e-12, atol=1e-12, msg=name)


def test_offload_on_cpu_is_accepted_harmless_and_says_so():
    model = build_model("tiny-gpt")
    with pytest.warns(UserWarning, match="nothing to move"):
        state = enable_checkpointing(model, 2, offload=True)
    assert "nothing to move" in state.note and state.layers == [1, 3]
    assert all(layer.checkpoint_offload for k, layer in enumerate(marked_layers(model), 1) if k in (1, 3))
    assert enable_checkpointing(model, 2).note == ""


@cuda
@pytest.mark.parametrize("offload", [False, True])
@pytest.mark.parametrize("n", [1, 2, 4])
def test_gradients_equal_on_cuda(n, offload):
    ref = build_model("tiny-gpt", dtype=torch.float64, layers=4).cuda()
    model = copy.deepcopy(ref)
    ids = lm_batch().cuda()
    expected = grads_of(ref, ids)
    state = enable_checkpointing(model, n, offload=offload)
    assert state.note == ""
    got = grads_of(model, ids)
    for name in expected:
        torch.testing.assert_close(got[name], expected[name], rtol=1e-10, atol=1e-10, msg=name)


def test_hugging_face_layers_are_recognised():
    transformers = pytest.importorskip("transformers")
    if ck._hf_layer_class() is None:
        pytest.skip("this transformers version has no GradientCheckpointingLayer")
    config = transformers.LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=4,
                                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32)
    torch.manual_seed(0)
    ref = transformers.LlamaForCausalLM(config).double().train()
    model = copy.deepcopy(ref)
    ids = lm_batch(2, 8, 32)
    state = enable_checkpointing(model, 2)
    assert state.num_layers == 4 and state.layers == [1, 3]
    ref.zero_grad()
    ref(input_ids=ids, labels=ids).loss.backward()
    model(input_ids=ids, labels=ids).loss.backward()
    for (name, p), q in zip(ref.named_parameters(), model.parameters()):
        torch.testing.assert_close(q.grad, p.grad, rtol=1e-10, atol=1e-10, msg=name)


def test_a_minimal_marked_layer_checkpoints_with_equal_gradients():
    class Plain(CheckpointLayer):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            return torch.tanh(self.lin(x))

    model = nn.Sequential(Plain(), Plain())
    x = torch.randn(3, 4, dtype=torch.float64)
    model.double()
    model(x).sum().backward()
    expected = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    assert enable_checkpointing(model, 1).layers == [1, 2]
    model(x).sum().backward()
    for p, e in zip(model.parameters(), expected):
        torch.testing.assert_close(p.grad, e, rtol=1e-12, atol=1e-12)
