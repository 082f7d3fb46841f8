# Exercise 03.3 — the loss already divides by num_items_in_batch (the group's items),
# so it is scaled for accumulation: the engine must use it as is.
answer = True
