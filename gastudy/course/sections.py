"""Map from every section ID of the source documents to the notebook that teaches it.

A section's title is English, marked for translation (:func:`~gastudy.course.i18n.N_`); show it
with :func:`~gastudy.course.i18n.translated`."""

from __future__ import annotations

from gastudy.course.i18n import N_

NOTEBOOKS: dict[str, str] = {
    "00_start_here": "How the course works, environment check, section map, glossary",
    "01_microbatch_backward_update": "Microbatch, backward, update; zero_grad mistakes; logging axes",
    "02_effective_batch": "m × A × D, the effective batch and the per-replica share",
    "03_loss_normalization": "Counting supervised items and normalizing the loss once",
    "04_accumulation_group": "A full group: denominator first, memory, last group, scheduler",
    "05_mixed_precision": "fp16 with a gradient scaler, bf16, skipped updates, clipping order",
    "06_data_parallel": "Data parallel: no_sync, the global denominator, duplicated samples",
    "07_same_batch_different_experiment": "BatchNorm, rounding, updates per epoch, throughput",
    "08_checkpointing": "Activation checkpointing: saved bytes, every_n_layers, offload",
    "09_memory_check_and_decide": "Phase timeline and the memory planner",
    "10_verify_and_record": "Verify one update; the run record",
    "11_troubleshooting_clinic": "Five symptoms, their detectors and fixes",
    "12_questions": "Questions learners ask, answered with measurements",
    "13_make_it_fit": "Make it fit: m, A, checkpointing and precision chosen together, one update verified",
}

SECTIONS: dict[str, tuple[str, str]] = {
    "GA-1": (N_("Accumulating A microbatches gives a larger effective batch"), "01_microbatch_backward_update"),
    "GA-2": (N_("Accumulation is not faster than a real large batch"), "07_same_batch_different_experiment"),
    "GA-3": (N_("The two knobs: per-device batch size and accumulation steps"), "01_microbatch_backward_update"),
    "GA-4": (N_("Normalize a custom loss by the items of all microbatches"), "03_loss_normalization"),
    "GA-5": (N_("Counting items: the causal shift, shift_labels, masked LM, classification"), "03_loss_normalization"),
    "GA-6": (N_("Declaring whether a loss is already normalized (loss_is_scaled_for_ga)"), "03_loss_normalization"),
    "CK-1": (N_("What the forward keeps for backward, and what checkpointing drops"), "08_checkpointing"),
    "CK-2": (N_("Checkpointing costs time and saves memory; combined with accumulation"), "08_checkpointing"),
    "CK-3": (N_("Partial checkpointing with every_n_layers"), "08_checkpointing"),
    "CK-4": (N_("Offloading saved activations to pinned host memory"), "08_checkpointing"),
    "MB-1": (N_("Microbatch, backward and update are different things"), "01_microbatch_backward_update"),
    "MB-2": (N_("Effective batch m × A × D without counting devices twice"), "02_effective_batch"),
    "MB-3": (N_("Normalize by the items actually evaluated (512/1536 example)"), "03_loss_normalization"),
    "MB-4": (N_("Organizing a full group; the short last group"), "04_accumulation_group"),
    "MB-5": (N_("Mixed precision with a gradient scaler"), "05_mixed_precision"),
    "MB-6": (N_("The scheduler follows the update, not the microbatch"), "04_accumulation_group"),
    "MB-7": (N_("Data parallel: averaging, global denominator, no_sync, sample ids"), "06_data_parallel"),
    "MB-8": (N_("Same effective batch does not mean the same experiment"), "07_same_batch_different_experiment"),
    "MB-9": (N_("Check memory over a whole group, then decide"), "09_memory_check_and_decide"),
    "MB-10": (N_("Verify one update before a campaign; keep a record"), "10_verify_and_record"),
    "MB-11": (N_("Troubleshooting the five classic symptoms"), "11_troubleshooting_clinic"),
    "MB-12": (N_("Practical questions"), "12_questions"),
}


def notebook_for(section: str) -> str:
    """The notebook (file stem) that teaches ``section``; ``KeyError`` lists valid IDs."""
    try:
        return SECTIONS[section][1]
    except KeyError:
        raise KeyError(f"unknown section {section!r}; known: {', '.join(SECTIONS)}") from None
