"""Bring-your-own-model batches, from real Hugging Face tools and hostile (MB-4, MB-10).

Real transformers 5.24 collators (a tiny WordLevel tokenizer built in memory, nothing is
downloaded) feed a DataLoader → make_groups → Accumulator / verify_one_update on tiny float64
models built from configs; then the inputs a user gets wrong: int32 tensors, lists instead of
tensors, left padding, packed rows with the cache on, mixed formats or ids, a pad token outside
the vocabulary, sequences longer than the model's positions. Each must either give the exact
big-batch gradient or a clear error before anything changes.
"""

from __future__ import annotations

import copy
import warnings

import pytest
import torch

transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from gastudy.check.verify import reference_gradients, verify_one_update  # noqa: E402
from gastudy.core.data import concat_microbatches, pad_collate, padding_side_of, split_batch  # noqa: E402
from gastudy.core.engine import Accumulator  # noqa: E402
from gastudy.core.groups import make_groups  # noqa: E402
from gastudy.core.loss import summed_loss  # noqa: E402

transformers.logging.set_verbosity_error()
WORDS = 30
VOCAB = {"[PAD]": 0, "[UNK]": 1, **{f"w{i}": i + 2 for i in range(WORDS)}}
A = 4


@pytest.fixture(scope="module")
def tok():
    model = tokenizers.models.WordLevel(VOCAB, unk_token="[UNK]")
    tk = tokenizers.Tokenizer(model)
    tk.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    return transformers.PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="[PAD]", unk_token="[UNK]")


@pytest.fixture(scope="module")
def features(tok):
    g = torch.Generator().manual_seed(0)
    lengths = torch.randint(3, 12, (2 * A,), generator=g)
    texts = [" ".join(f"w{int(t)}" for t in torch.randint(0, WORDS, (int(n),), generator=g)) for n in lengths]
    return [{"input_ids": tok(t)["input_ids"]} for t in texts]


def gpt2(**overrides):
    config = transformers.GPT2Config(vocab_size=len(VOCAB), n_positions=32, n_embd=16, n_layer=2, n_head=2,
                                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, pad_token_id=0,
                                     bos_token_id=2, eos_token_id=3, **overrides)
    torch.manual_seed(0)
    return transformers.GPT2LMHeadModel(config).double()


def llama():
    config = transformers.LlamaConfig(vocab_size=len(VOCAB), hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64,
                                      pad_token_id=0, bos_token_id=2, eos_token_id=3)
    torch.manual_seed(0)
    return transformers.LlamaForCausalLM(config).double()


def loader(collator, feats, m=2):
    return list(torch.utils.data.DataLoader(feats, batch_size=m, collate_fn=collator))


def with_labels(feats):
    return [{"input_ids": f["input_ids"], "labels": list(f["input_ids"])} for f in feats]


def verify(model, batches):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return verify_one_update(model, microbatches=batches, task="causal")


# --------------------------------------------------------------------------- real collators
def test_language_modeling_collator_batch_encodings_verify_to_float64_precision(tok, features):
    batches = loader(transformers.DataCollatorForLanguageModeling(tok, mlm=False), features)
    assert type(batches[0]).__name__ == "BatchEncoding" and "sample_ids" not in batches[0]
    report = verify(gpt2(), batches)
    assert report.passed, str(report)
    assert report.rel_error < 1e-12 and report.tolerance == 1e-12
    assert report.record.notes and "numbered by position" in report.record.notes[0]
    assert "sample_ids" not in batches[0]  # the caller's BatchEncoding is not modified


def test_seq2seq_collator_pads_labels_with_minus_100_and_verifies(tok, features):
    batches = loader(transformers.DataCollatorForSeq2Seq(tok), with_labels(features))
    assert int((batches[0]["labels"] == -100).sum()) == int((batches[0]["attention_mask"] == 0).sum())
    assert verify(gpt2(), batches).max_rel_diff < 1e-12


def test_engine_update_on_a_dataloader_equals_the_float64_big_batch(tok, features):
    """DataLoader → make_groups → Accumulator: the applied SGD step (lr 1) is the big-batch
    gradient, and result.loss the big batch's token-weighted mean loss."""
    batches = loader(transformers.DataCollatorForLanguageModeling(tok, mlm=False), features)
    model = gpt2()
    ref_model = copy.deepcopy(model)
    ref = reference_gradients(ref_model, batches)
    big = concat_microbatches(batches)
    with torch.no_grad():
        loss_sum, items = summed_loss(ref_model(input_ids=big["input_ids"], attention_mask=big["attention_mask"]), big)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    engine = Accumulator(model, torch.optim.SGD(model.parameters(), lr=1.0), accumulation_steps=A)
    groups = make_groups(torch.utils.data.DataLoader(features, batch_size=2,
                                                     collate_fn=transformers.DataCollatorForLanguageModeling(tok, mlm=False)), A)
    (result,) = [engine.update(g) for g in groups]
    assert groups.ids_assigned and result.samples == 2 * A
    step = max(float((before[n] - p.detach() - ref[n]).abs().max()) for n, p in model.named_parameters())
    assert step < 1e-13
    assert result.loss == pytest.approx(float(loss_sum / items), rel=1e-14)


def test_int32_tensors_from_a_numpy_pipeline_train_like_int64(tok, features):
    """Before: cross_entropy raised 'expected target dtype to be Long' on int32 labels."""
    batches = loader(transformers.DataCollatorForLanguageModeling(tok, mlm=False), features)
    narrow = [{k: v.to(torch.int32) for k, v in b.items()} for b in batches]
    report = verify(gpt2(), narrow)
    assert report.passed and report.max_rel_diff < 1e-12
    with pytest.raises(TypeError, match="labels must be integer"):
        summed_loss(torch.zeros(1, 3, 4), {"labels": torch.zeros(1, 3)})


def test_a_collator_without_labels_is_a_clear_error(tok, features):
    batches = loader(transformers.DataCollatorWithPadding(tok), features)
    with pytest.raises(KeyError, match=r"no 'labels'.*DataCollatorForLanguageModeling\(tokenizer, mlm=False\)"):
        list(make_groups(batches, A))


def test_flattening_collator_needs_the_cache_off_and_then_verifies(features):
    """transformers 5.24 separates the sequences of a padding-free row only without a cache:
    with use_cache=True (GPT-2's default) they attend to each other, so the verifier fails —
    and now says why; with use_cache=False the update equals the big batch."""
    batches = loader(transformers.DataCollatorWithFlattening(), with_labels(features))
    assert set(batches[0]) == {"input_ids", "labels", "position_ids"}
    on = verify(gpt2(), batches)
    assert not on.passed and on.max_rel_diff > 1e-3
    assert any("use_cache=True" in r and "model.config.use_cache = False" in r for r in on.reasons)
    off = verify(gpt2(use_cache=False), batches)
    assert off.passed and off.max_rel_diff < 1e-12, str(off)


# --------------------------------------------------------------------------- left padding
def test_left_padded_batches_split_on_their_side(tok, features):
    left = copy.deepcopy(tok)
    left.padding_side = "left"
    batches = loader(transformers.DataCollatorForLanguageModeling(left, mlm=False), features)
    assert padding_side_of(batches[0]) == "left" or padding_side_of(batches[1]) == "left"
    samples = [s for b in batches for s in split_batch(b)]
    assert [s["input_ids"].tolist() for s in samples] == [f["input_ids"] for f in features]
    big = concat_microbatches(batches)
    assert padding_side_of(big) == "left" and int(big["attention_mask"].sum()) == sum(len(f["input_ids"]) for f in features)
    # the padded rows' first tokens are predicted from a padding position (their labels are not -100)
    # and their number depends on the partition: a named failure, on a rotary model too
    for model in (llama(), gpt2()):
        report = verify(model, batches)
        assert not report.passed and report.max_rel_diff > 1e-3
        assert any("left-padded" in r and "padding_side = 'right'" in r for r in report.reasons)
    # with those first labels set to -100 a rotary model is shift-invariant: left padding agrees with
    # the big batch up to the rounding of the rotation angles (computed in float32 by transformers) ...
    first_off = []
    for b in batches:
        labels = b["labels"].clone()
        labels[torch.arange(len(labels)), b["attention_mask"].argmax(dim=1)] = -100
        first_off.append({**b, "labels": labels})
    assert verify(llama(), first_off).max_rel_diff < 1e-6
    # ... while GPT-2's absolute positions still see each sample at another offset
    assert not verify(gpt2(), first_off).passed
    with pytest.raises(ValueError, match="neither right- nor left-padded"):
        split_batch({"input_ids": torch.ones(1, 3, dtype=torch.long), "labels": torch.ones(1, 3, dtype=torch.long),
                     "attention_mask": torch.tensor([[1, 0, 1]])})


# --------------------------------------------------------------------------- hostile batches
def test_mixed_formats_and_mixed_ids_are_refused(tok, features):
    padded = loader(transformers.DataCollatorForLanguageModeling(tok, mlm=False), features)
    packed = loader(transformers.DataCollatorWithFlattening(), with_labels(features))
    with pytest.raises(ValueError, match="mix formats .*2: packed"):
        verify(gpt2(use_cache=False), padded[:2] + packed[2:])
    numbered = [{**dict(padded[0]), "sample_ids": torch.tensor([0, 1])}, *padded[1:]]
    with pytest.raises(ValueError, match="batch 1 has no 'sample_ids' but the batches before it had"):
        list(make_groups(numbered, A))
    with pytest.raises(ValueError, match="batch 1 has 'sample_ids' but the batches before it had none"):
        list(make_groups([padded[0], numbered[0]], A))


def test_lists_instead_of_tensors_are_a_clear_type_error(tok, features):
    batches = loader(transformers.DataCollatorForLanguageModeling(tok, mlm=False), features)
    as_lists = [{k: v.tolist() for k, v in b.items()} for b in batches]
    with pytest.raises(TypeError, match=r"batch 0: 'input_ids' is a list.*return_tensors='pt'"):
        list(make_groups(as_lists, A))
    with pytest.raises(TypeError, match="not a tensor"):
        verify(gpt2(), as_lists)


def test_pad_collate_arguments_are_checked_and_lists_accepted():
    rows = [{"input_ids": [5, 6, 7], "labels": [5, 6, 7]}, {"input_ids": [8], "labels": [8]}]
    for bad in (None, -1, 1.5, True):
        with pytest.raises(ValueError, match="pad_token_id must be a token id"):
            pad_collate(rows, pad_token_id=bad)
    with pytest.raises(ValueError, match="no samples"):
        pad_collate([])
    with pytest.raises(KeyError, match=r"samples \[1\] have no 'labels'"):
        pad_collate([rows[0], {"input_ids": [1]}])
    with pytest.raises(ValueError, match="one class per sample .0-d. in every sample, or a sequence in every"):
        pad_collate([{"input_ids": [1, 2], "labels": [1, 2]}, {"input_ids": [3, 4], "labels": 3}])
    seq2seq = pad_collate([{"input_ids": [1, 2, 3], "labels": [7]}, {"input_ids": [4], "labels": [8, 9]}], 0)
    assert seq2seq["labels"].tolist() == [[7, -100], [8, 9]] and seq2seq["input_ids"].tolist() == [[1, 2, 3], [4, 0, 0]]
    classes = pad_collate([{"input_ids": [1, 2], "labels": 2}, {"input_ids": [3], "labels": 0}], 0)
    assert classes["labels"].tolist() == [2, 0] and classes["attention_mask"].tolist() == [[1, 1], [1, 0]]
    right = pad_collate(rows, pad_token_id=0)
    left = pad_collate(rows, pad_token_id=0, padding_side="left")
    assert right["input_ids"].tolist() == [[5, 6, 7], [8, 0, 0]] and left["input_ids"].tolist() == [[5, 6, 7], [0, 0, 8]]
    assert left["labels"].tolist() == [[5, 6, 7], [-100, -100, 8]] and left["attention_mask"].tolist() == [[1, 1, 1], [0, 0, 1]]


def test_pad_token_outside_the_vocabulary_is_named_before_any_forward(features):
    model = gpt2()
    rows = with_labels(features)
    batches = [pad_collate(rows[i:i + 2], pad_token_id=len(VOCAB) + 5) for i in range(0, 2 * A, 2)]
    weights = {k: v.clone() for k, v in model.state_dict().items()}
    engine = Accumulator(model, torch.optim.SGD(model.parameters(), lr=1.0), accumulation_steps=A)
    with pytest.raises(ValueError, match=r"microbatch \d: input_ids \[37\] outside the model's vocabulary of 32 "
                                         r"tokens; they sit only on padding"):
        engine.update(next(iter(make_groups(batches, A))))
    assert all(torch.equal(weights[k], v) for k, v in model.state_dict().items()) and engine.counters.updates_attempted == 0
    tokens = [{**b, "input_ids": b["input_ids"].masked_fill(b["attention_mask"] == 1, 40)} for b in batches]
    with pytest.raises(ValueError, match="tokenizer and the model disagree"):
        verify(model, tokens)


def test_sequences_longer_than_the_models_positions(features):
    long = [{"input_ids": list(range(2, 32)) + [2, 3, 4, 5], "labels": list(range(2, 32)) + [2, 3, 4, 5]}] * 2
    batches = [pad_collate(long, pad_token_id=0)] * A
    with pytest.raises(ValueError, match="sequences of 34 positions, but the model has 32.*max_length=32"):
        verify(gpt2(), batches)
    # rotary positions extrapolate: a Llama with max_position_embeddings=64 is not refused at 70 tokens
    longer = [{"input_ids": [5] * 70, "labels": [5] * 70}]
    report = verify(llama(), [pad_collate(longer, pad_token_id=0)] * 2)
    assert report.max_rel_diff < 1e-10


def test_group_of_only_ignored_labels_raises_before_any_change(tok, features):
    batches = loader(transformers.DataCollatorForLanguageModeling(tok, mlm=False), features)
    ignored = [{**b, "labels": torch.full_like(b["labels"], -100)} for b in batches]
    model = gpt2()
    weights = {k: v.clone() for k, v in model.state_dict().items()}
    engine = Accumulator(model, torch.optim.SGD(model.parameters(), lr=1.0), accumulation_steps=A)
    with pytest.raises(Exception, match="no supervised item") as err:
        engine.update(next(iter(make_groups(ignored, A))))
    assert type(err.value).__name__ == "EmptyGroupError"
    assert all(torch.equal(weights[k], v) for k, v in model.state_dict().items())
    assert all(p.grad is None for p in model.parameters())
    with pytest.raises(Exception, match="no supervised item"):
        verify(model, ignored)


def test_verify_raising_midway_leaves_the_callers_model_rng_and_settings(features):
    model = gpt2()
    model.transformer.h[0].attn.c_attn.weight.requires_grad_(False)
    model.eval()
    weights = {k: v.clone() for k, v in model.state_dict().items()}
    rng, det = torch.get_rng_state(), torch.are_deterministic_algorithms_enabled()
    rows = with_labels(features)
    batches = [pad_collate(rows[i:i + 2], pad_token_id=0) for i in range(0, 2 * A, 2)]
    batches[3] = {**batches[3], "input_ids": batches[3]["input_ids"] + 100}
    with pytest.raises(ValueError, match="microbatch 3"):
        verify(model, batches)
    assert all(torch.equal(weights[k], v) for k, v in model.state_dict().items())
    assert not model.training and not model.transformer.h[0].attn.c_attn.weight.requires_grad
    assert all(p.grad is None for p in model.parameters())
    assert torch.equal(rng, torch.get_rng_state()) and torch.are_deterministic_algorithms_enabled() == det


def test_engine_warns_on_packed_rows_with_the_cache_on(features):
    """Accumulator.update trains what it is given; a padding-free row on a model with
    use_cache=True (transformers' default config, which the Trainer turns off) is named."""
    batches = loader(transformers.DataCollatorWithFlattening(), with_labels(features))
    for cache, expect in ((True, 1), (False, 0)):
        model = gpt2(use_cache=cache)
        engine = Accumulator(model, torch.optim.SGD(model.parameters(), lr=0.1), accumulation_steps=A)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            engine.update(next(iter(make_groups(batches, A))))
        named = [w for w in caught if "use_cache=True" in str(w.message) and "attend to each other" in str(w.message)]
        assert len(named) == expect and engine.counters.updates_applied == 1


def test_microbatches_with_different_inputs_or_miscounted_ids_are_refused():
    """Before: token_type_ids in some microbatches only gave a silently wrong big batch (verify
    failed with relative difference 1.1 on a BERT-style model) or a bare KeyError; 3 ids for 2
    rows made the group count 9 samples."""
    g = torch.Generator().manual_seed(0)
    rows = [{"input_ids": torch.randint(2, 32, (n,), generator=g)} for n in (3, 5, 4, 6, 2, 7, 3, 4)]
    rows = [{**r, "labels": r["input_ids"].clone()} for r in rows]
    typed = [{**r, "token_type_ids": torch.ones_like(r["input_ids"])} for r in rows]
    plain = [pad_collate(rows[i:i + 2], pad_token_id=0) for i in range(0, 8, 2)]
    tt = [pad_collate(typed[i:i + 2], pad_token_id=0) for i in range(0, 8, 2)]
    assert concat_microbatches(tt)["token_type_ids"].sum() == sum(len(r["input_ids"]) for r in rows)
    for mixed in (plain[:2] + tt[2:], tt[:2] + plain[2:]):
        with pytest.raises(ValueError, match="microbatch 2 has the inputs .* same inputs in every microbatch"):
            concat_microbatches(mixed)
    with pytest.raises(ValueError, match="sample 1 has no 'token_type_ids'"):
        pad_collate([typed[0], rows[1]])
    miscounted = [{**plain[0], "sample_ids": torch.tensor([0, 1, 2])}, *plain[1:]]
    with pytest.raises(ValueError, match="batch 0 has 3 sample_ids for 2 samples"):
        list(make_groups(miscounted, A))
