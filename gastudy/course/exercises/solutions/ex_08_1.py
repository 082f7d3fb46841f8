# Exercise 08.1 — which layers does every_n_layers=3 checkpoint in 12 layers? (CK-3)
from gastudy.core.checkpointing import layer_selection

selection = layer_selection(12, 3)                        # one bool per layer
answer = [k for k, on in enumerate(selection, 1) if on]   # [1, 4, 7, 10]
