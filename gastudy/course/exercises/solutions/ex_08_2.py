# Exercise 08.2 — predict what the checkpointed layers keep (CK-4)
from gastudy.course.labs.checkpoint_lab import model_kwargs
from gastudy.memory.saved import formula_check

checkpointed = 2                      # every_n_layers = 2 on 4 layers → layers 1 and 3
answer = checkpointed * 8 * 64 * 128 * 4          # layers × m × T × hidden × bytes (float32) = 524,288
f = formula_check("tiny-gpt", 8, 64, 2, model_kwargs=model_kwargs(128, 4))
print(answer, f.formula_bytes, f.measured_bytes, f.mask_bytes)   # measured = formula + mask
