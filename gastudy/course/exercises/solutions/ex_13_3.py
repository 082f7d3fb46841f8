# Exercise 13.3 — make it fit: split the batch, checkpoint every block, accumulate (MB-9, CK-3)
import torch.nn.functional as F

from gastudy import enable_checkpointing
from gastudy.course.exercises.ch13 import fit_exercise

fit = fit_exercise()
print(f"budget {fit.budget_bytes:,} bytes, fixed part {fit.fixed_bytes:,}")
for m in (8, 16, 32):   # what one microbatch keeps for backward: as it is, and every block checkpointed
    print(f"m = {m:>2}: {fit.kept(m):>9,} bytes plain, {fit.kept(m, every_n_layers=1):>9,} checkpointed")
M = 16                  # the largest m whose checkpointed microbatch fits beside the fixed part


def train_step(model, optimizer, microbatches, scheduler):
    [batch] = microbatches                        # ONE batch of 32 samples: too big as it is
    enable_checkpointing(model, every_n_layers=1)  # every block keeps only its input
    items = int((batch["labels"][:, 1:] != -100).sum())  # the whole batch's items, before any backward
    for i in range(0, len(batch["input_ids"]), M):
        mb = {k: v[i:i + M] for k, v in batch.items()}    # a microbatch of M samples
        logits = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"]).logits
        loss_sum = F.cross_entropy(logits[:, :-1].flatten(0, 1), mb["labels"][:, 1:].flatten(),
                                   ignore_index=-100, reduction="sum")
        (loss_sum / items).backward()
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()


answer = train_step
