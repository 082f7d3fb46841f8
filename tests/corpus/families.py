"""Hugging Face ``Trainer`` set-ups for model families other than causal LMs (transformers 5.x).

Tiny models built from configs (nothing downloaded), dropout 0, random token ids of 16 lengths
from 3 to 12, m = 2, A = 4, on the CPU; each Trainer is the default one (``Trainer(model, args,
train_dataset, data_collator)``) unless its name says otherwise. The collators do what
``DataCollatorWithPadding`` (classifiers), ``DataCollatorForTokenClassification`` and
``DataCollatorForSeq2Seq`` (without ``model=``: the model builds its decoder inputs from the
labels) do: pad ``input_ids`` with 0 and ``attention_mask`` on the right, labels with -100 where
they are sequences, stacked where they are one class per sample.
"""

from __future__ import annotations

import tempfile

import torch
import torch.nn.functional as F
import transformers
from transformers import Trainer, TrainingArguments

VOCAB, M, A = 40, 2, 4
LENGTHS = [3, 9, 5, 12, 4, 7, 10, 6, 8, 5, 11, 4, 6, 7, 9, 3]
BERT = dict(vocab_size=VOCAB, hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
            max_position_embeddings=64, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)


def arguments(**overrides) -> TrainingArguments:
    return TrainingArguments(output_dir=tempfile.mkdtemp(prefix="gastudy-families-"), per_device_train_batch_size=M,
                             gradient_accumulation_steps=A, report_to="none", use_cpu=True, disable_tqdm=True,
                             **overrides)


def _pad(rows: list[dict], key: str, value: int) -> torch.Tensor:
    width = max(len(r[key]) for r in rows)
    out = torch.full((len(rows), width), value, dtype=torch.long)
    for i, r in enumerate(rows):
        out[i, :len(r[key])] = torch.as_tensor(r[key])
    return out


def _mask(rows: list[dict]) -> torch.Tensor:
    return (_pad(rows, "input_ids", -1) != -1).long()


def class_collate(rows):
    return {"input_ids": _pad(rows, "input_ids", 0), "attention_mask": _mask(rows),
            "labels": torch.tensor([r["label"] for r in rows])}


def token_collate(rows):
    return {"input_ids": _pad(rows, "input_ids", 0), "attention_mask": _mask(rows), "labels": _pad(rows, "labels", -100)}


def seq2seq_collate(model):
    """``DataCollatorForSeq2Seq(tokenizer, model=model)``: the targets padded with -100 and the
    decoder inputs the model builds from them (``prepare_decoder_input_ids_from_labels``), so a
    ``compute_loss_func``, which takes the labels away from the model, still has a decoder input."""

    def collate(rows):
        batch = token_collate(rows)
        batch["decoder_input_ids"] = model.prepare_decoder_input_ids_from_labels(labels=batch["labels"])
        return batch

    return collate


def qa_collate(rows):
    return {"input_ids": _pad(rows, "input_ids", 0), "attention_mask": _mask(rows),
            "start_positions": torch.zeros(len(rows), dtype=torch.long),
            "end_positions": torch.ones(len(rows), dtype=torch.long)}


def _ids(seed: int) -> list[list[int]]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randint(1, VOCAB, (n,), generator=g).tolist() for n in LENGTHS]


def class_data(classes: int = 3) -> list[dict]:
    g = torch.Generator().manual_seed(1)
    return [{"input_ids": ids, "label": int(torch.randint(0, classes, (1,), generator=g))} for ids in _ids(0)]


def token_data(tags: int = 5) -> list[dict]:
    g = torch.Generator().manual_seed(2)
    return [{"input_ids": ids, "labels": torch.randint(0, tags, (len(ids),), generator=g).tolist()} for ids in _ids(0)]


def seq2seq_data() -> list[dict]:
    """Targets of their own lengths (half the source's, at least 2)."""
    g = torch.Generator().manual_seed(3)
    return [{"input_ids": ids, "labels": torch.randint(1, VOCAB, (max(2, len(ids) // 2),), generator=g).tolist()}
            for ids in _ids(0)]


def sequence_classifier(seed: int = 0) -> transformers.BertForSequenceClassification:
    torch.manual_seed(seed)
    return transformers.BertForSequenceClassification(transformers.BertConfig(num_labels=3, **BERT))


def token_classifier(seed: int = 0) -> transformers.BertForTokenClassification:
    torch.manual_seed(seed)
    return transformers.BertForTokenClassification(transformers.BertConfig(num_labels=5, **BERT))


def t5(seed: int = 0) -> transformers.T5ForConditionalGeneration:
    torch.manual_seed(seed)
    return transformers.T5ForConditionalGeneration(transformers.T5Config(
        vocab_size=VOCAB, d_model=16, d_kv=8, d_ff=32, num_layers=2, num_heads=2, dropout_rate=0.0,
        decoder_start_token_id=0, pad_token_id=0))


def bart(seed: int = 0) -> transformers.BartForConditionalGeneration:
    torch.manual_seed(seed)
    return transformers.BartForConditionalGeneration(transformers.BartConfig(
        vocab_size=VOCAB, d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=64, dropout=0.0,
        attention_dropout=0.0, activation_dropout=0.0, pad_token_id=0, bos_token_id=1, eos_token_id=2,
        decoder_start_token_id=2, forced_eos_token_id=None))


def question_answering(seed: int = 0) -> transformers.BertForQuestionAnswering:
    torch.manual_seed(seed)
    return transformers.BertForQuestionAnswering(transformers.BertConfig(**BERT))


def summed_over_items(outputs, labels, num_items_in_batch=None):
    """A ``compute_loss_func`` that sums the per-item cross entropy ÷ ``num_items_in_batch``
    (the Trainer's own count: labels ≠ -100) — what the Trainer's docs ask of one."""
    logits = outputs.logits.float()
    logits = logits.flatten(0, -2) if logits.dim() > 2 else logits
    return F.cross_entropy(logits, labels.flatten().to(logits.device), ignore_index=-100,
                           reduction="sum") / num_items_in_batch


FAMILIES = {  # name: (model builder, data, collator of the model)
    "sequence classification": (sequence_classifier, class_data, lambda model: class_collate),
    "token classification": (token_classifier, token_data, lambda model: token_collate),
    "seq2seq T5": (t5, seq2seq_data, seq2seq_collate),
    "seq2seq BART": (bart, seq2seq_data, seq2seq_collate),
    "question answering": (question_answering, class_data, lambda model: qa_collate),
}


def trainer(family: str, *, loss=None, accepts_loss_kwargs: bool | None = None, samples: int = 16,
            optimizers=(None, None), **overrides) -> Trainer:
    """The family's default Trainer over its first ``samples`` samples; ``loss`` as its
    ``compute_loss_func``; ``accepts_loss_kwargs`` set on the model before the Trainer is built
    (transformers reads it there); ``optimizers`` as the Trainer takes them."""
    build, data, collate = FAMILIES[family]
    model = build()
    if accepts_loss_kwargs is not None:
        model.accepts_loss_kwargs = accepts_loss_kwargs
    return Trainer(model=model, args=arguments(**overrides), train_dataset=data()[:samples],
                   data_collator=collate(model), compute_loss_func=loss, optimizers=optimizers)


def applied_over_big_batch(family: str, **kwargs) -> float:
    """The ground truth, without gastudy: k such that the update the Trainer applied is k × the
    big batch's gradient. One update of plain SGD (lr 1, no clipping, a constant schedule) over
    exactly m·A = 8 samples, so that whatever order its sampler draws them in, the update holds
    all of them; the big batch is the same 8 samples in one batch through the model's own loss
    (its mean), on a second model built from the same seed. 1.0 for a right update, A for the sum
    of A microbatch means."""
    build, data, collate = FAMILIES[family]
    t = trainer(family, samples=M * A, max_steps=1, max_grad_norm=0.0, **kwargs)
    model = t.model
    before = [p.detach().clone() for p in model.parameters()]
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    t.optimizer, t.lr_scheduler = optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, lambda _: 1.0)
    t.train()
    applied = torch.cat([(b - p.detach()).flatten() for b, p in zip(before, model.parameters())]).double()
    reference = build()
    assert all(torch.equal(b, p) for b, p in zip(before, reference.parameters()))
    reference.train()
    reference(**collate(reference)(data()[:M * A])).loss.backward()
    big = torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).flatten()
                     for p in reference.parameters()]).double()
    return float(applied @ big / (big @ big))
