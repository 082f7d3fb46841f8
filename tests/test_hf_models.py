"""Hugging Face models from tiny configs (nothing downloaded): checkpointing and batches (CK-3, MB-4).

- GPT-2 with its key/value cache on (the config default): enable_checkpointing turns the cache
  off, so the recompute in backward does not append to it a second time, and gives it back.
- The matrix: GPT-2, a Llama-style and a BERT-style model, padded and padding-free, every n from
  1 to the layer count. Gradients are bit-identical to no checkpointing in float64, and the
  checkpointed layers and saved-for-backward bytes equal transformers' own
  ``activation_checkpointing_enable(every_n_layers=n)`` (and its deprecated spelling
  ``gradient_checkpointing_enable``).
"""

from __future__ import annotations

import copy
import warnings

import pytest
import torch

transformers = pytest.importorskip("transformers")

from gastudy.check.verify import verify_one_update  # noqa: E402
from gastudy.core.checkpointing import (  # noqa: E402
    checkpointed_layers,
    checkpointing,
    disable_checkpointing,
    enable_checkpointing,
    marked_layers,
)
from gastudy.core.engine import Accumulator, model_inputs  # noqa: E402
from gastudy.core.groups import make_groups  # noqa: E402
from gastudy.core.loss import summed_loss  # noqa: E402
from gastudy.memory.saved import saved_bytes  # noqa: E402

LAYERS = 3
VOCAB = 40
CPU = torch.device("cpu")


def gpt2():
    config = transformers.GPT2Config(vocab_size=VOCAB, n_positions=64, n_embd=16, n_layer=LAYERS, n_head=2,
                                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    return transformers.GPT2LMHeadModel(config)


def llama():
    config = transformers.LlamaConfig(vocab_size=VOCAB, hidden_size=16, intermediate_size=32, num_hidden_layers=LAYERS,
                                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64)
    return transformers.LlamaForCausalLM(config)


def bert():
    config = transformers.BertConfig(vocab_size=VOCAB, hidden_size=16, num_hidden_layers=LAYERS, num_attention_heads=2,
                                     intermediate_size=32, max_position_embeddings=64, hidden_dropout_prob=0.0,
                                     attention_probs_dropout_prob=0.0)
    return transformers.BertForMaskedLM(config)


MODELS = {"gpt2": (gpt2, "causal"), "llama": (llama, "causal"), "bert": (bert, "masked")}
LENGTHS = [7, 4, 6]


def build(name):
    torch.manual_seed(0)
    return MODELS[name][0]().double().train()


def padded_batch(task, lengths=LENGTHS, seed=0):
    """A right-padded batch as a collator gives it: attention_mask, -100 on padding (and, for a
    masked LM, on every position that is not a target); no sample ids, pad token 0."""
    g = torch.Generator().manual_seed(seed)
    T = max(lengths)
    ids = torch.zeros((len(lengths), T), dtype=torch.long)
    mask = torch.zeros_like(ids)
    for r, n in enumerate(lengths):
        ids[r, :n] = torch.randint(1, VOCAB, (n,), generator=g)
        mask[r, :n] = 1
    labels = ids.masked_fill(mask == 0, -100)
    if task == "masked":
        chosen = torch.rand(ids.shape, generator=g) < 0.4
        labels = labels.masked_fill(~chosen, -100)
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def packed_batch(lengths=LENGTHS, seed=0):
    """transformers' own padding-free collator (DataCollatorWithFlattening), on token ids only."""
    g = torch.Generator().manual_seed(seed)
    features = [{"input_ids": torch.randint(1, VOCAB, (n,), generator=g).tolist()} for n in lengths]
    return dict(transformers.DataCollatorWithFlattening()(features))


def gradients(model, batch, task, **call):
    model.zero_grad(set_to_none=True)
    loss_sum, items = summed_loss(model(**model_inputs(batch, CPU), **call), batch, task)
    (loss_sum / items).backward()
    return {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}


def assert_bit_identical(got, expected):
    assert got.keys() == expected.keys()
    different = [n for n in expected if not torch.equal(got[n], expected[n])]
    assert not different, f"gradients differ in {different[:5]}"


# --------------------------------------------------------------------------- GPT-2 and its cache


@pytest.mark.parametrize("padded", [True, False], ids=["padded", "unpadded"])
def test_gpt2_checkpointing_turns_the_cache_off_and_gradients_equal(padded):
    model = build("gpt2")
    assert model.config.use_cache is True  # the config default: the cache is on
    batch = padded_batch("causal", LENGTHS if padded else [6, 6, 6])
    reference = copy.deepcopy(model)
    expected = gradients(reference, batch, "causal")
    state = enable_checkpointing(model, 1)
    assert state.layers == [1, 2, 3] and model.config.use_cache is False
    assert_bit_identical(gradients(model, batch, "causal"), expected)  # backward used to fail (44 vs 22)
    disable_checkpointing(model)
    assert model.config.use_cache is True and checkpointed_layers(model) == []
    with checkpointing(model, 2):
        assert model.config.use_cache is False and checkpointed_layers(model) == [1, 3]
    assert model.config.use_cache is True and checkpointed_layers(model) == []
    model.config.use_cache = False  # a user who turned it off keeps it off
    enable_checkpointing(model, 1)
    disable_checkpointing(model)
    assert model.config.use_cache is False


def test_gpt2_update_with_checkpointing_equals_the_update_without():
    model = build("gpt2")
    batches = [padded_batch("causal", lengths, seed) for seed, lengths in enumerate([[5, 3], [7, 2], [4, 6]])]
    weights = []
    for every_n in (None, 2):
        net = copy.deepcopy(model)
        if every_n:
            enable_checkpointing(net, every_n)
        engine = Accumulator(net, torch.optim.SGD(net.parameters(), lr=0.1), accumulation_steps=3)
        result = engine.update(next(iter(make_groups(batches, 3))))
        weights.append({n: p.detach().clone() for n, p in net.named_parameters()})
        assert result.applied and result.samples == 6
    assert_bit_identical(weights[1], weights[0])


def test_a_real_padding_free_collator_becomes_groups_and_verifies_at_fp64():
    model = build("gpt2")
    model.config.use_cache = False  # padding-free attention needs it off (transformers skips the packed mask with a cache)
    microbatches = [packed_batch([5, 3, 6], seed) for seed in range(4)]
    groups = make_groups(microbatches, 4)
    group = next(iter(groups))
    assert groups.ids_assigned and group.sample_ids == list(range(12))
    assert group.items == [(5 - 1) + (3 - 1) + (6 - 1)] * 4
    report = verify_one_update(model, microbatches=microbatches, task="causal")
    assert report.passed, report.reasons
    assert report.config["precision"] == "fp64" and report.max_rel_diff < 1e-12


# --------------------------------------------------------------------------- the matrix


def hf_enable(model, spelling, n):
    """transformers' own checkpointing with every_n_layers = n, in one of its two spellings."""
    if spelling == "activation_checkpointing_enable":
        model.activation_checkpointing_enable(every_n_layers=n)
    else:
        with pytest.warns(FutureWarning, match="gradient_checkpointing_enable` is deprecated"):
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False},
                                                every_n_layers=n)


@pytest.fixture(scope="module")
def references():
    """Per (model, layout): the model, the batch and its gradients without checkpointing."""
    out = {}
    for name, (_, task) in MODELS.items():
        for layout in ("padded", "packed"):
            if layout == "packed" and name == "bert":
                continue
            model = build(name)
            batch = padded_batch(task) if layout == "padded" else packed_batch()
            # no checkpointing, and no cache: training never wants one (a cache also disables the
            # packed-sequence mask in transformers 5.24, so padding-free rows would see each other)
            call = {"use_cache": False} if task == "causal" else {}
            out[name, layout] = (model, batch, gradients(copy.deepcopy(model), batch, task, **call))
    return out


@pytest.mark.parametrize("n", range(1, LAYERS + 1))
@pytest.mark.parametrize("layout", ["padded", "packed"])
@pytest.mark.parametrize("name", list(MODELS))
def test_checkpointing_matches_no_checkpointing_and_transformers_own(references, name, layout, n):
    if layout == "packed" and name == "bert":
        pytest.skip("BERT has no padding-free mode: BertModel builds its attention mask with "
                    "create_bidirectional_mask, which takes no position_ids (transformers 5.24), so the "
                    "sequences of a packed row would attend to each other")
    model, batch, expected = references[name, layout]
    task = MODELS[name][1]
    chosen = [k for k in range(1, LAYERS + 1) if (k - 1) % n == 0]

    ours = copy.deepcopy(model)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no note, no warning: nothing to offload was asked for
        state = enable_checkpointing(ours, n)
    assert len(marked_layers(ours)) == LAYERS and state.layers == checkpointed_layers(ours) == chosen
    assert_bit_identical(gradients(ours, batch, task), expected)
    our_bytes = saved_bytes(ours, batch, task)

    for spelling in ("activation_checkpointing_enable", "gradient_checkpointing_enable"):
        theirs = copy.deepcopy(model)
        hf_enable(theirs, spelling, n)
        assert checkpointed_layers(theirs) == chosen, spelling
        their_bytes = saved_bytes(theirs, batch, task)
        assert our_bytes.by_layer == their_bytes.by_layer, spelling
        assert our_bytes.total == their_bytes.total and our_bytes.tensors == their_bytes.tensors, spelling
        if spelling == "activation_checkpointing_enable":
            assert_bit_identical(gradients(theirs, batch, task), expected)

    # and the saved bytes follow n: a checkpointed layer keeps less than any layer without
    # checkpointing (and without a cache), every other layer keeps a whole layer's activations
    # (≥ the smallest plain layer: a storage shared by the layers, such as Llama's rotary
    # cos/sin, counts once, in the first layer that saves it)
    plain = copy.deepcopy(model)
    plain.config.use_cache = False
    plain = saved_bytes(plain, batch, task)
    smallest = min(plain.layer(k) for k in range(1, LAYERS + 1))
    for k in range(1, LAYERS + 1):
        if k in chosen:
            assert our_bytes.layer(k) < smallest / 4, (k, our_bytes.by_layer, plain.by_layer)
        else:
            assert our_bytes.layer(k) >= smallest, (k, our_bytes.by_layer, plain.by_layer)
