"""The engine: everything one accumulated update needs, and nothing else (course: GA-1…GA-6, MB-1…MB-6, CK-1…CK-3).

``plan`` (m × A × D) · ``counting`` (supervised items, with the causal shift) · ``loss``
(summed loss ÷ the group's items) · ``data`` (collators, microbatch streams, generated data) ·
``groups`` (a group fixed before its first backward) · ``precision`` (autocast and the
gradient scaler) · ``replicas`` (what the engine asks of data parallelism) · ``engine``
(:class:`~gastudy.core.engine.Accumulator`) · ``record`` (the run record) · ``models`` and
``checkpointing`` (the per-layer blocks and the switch that recomputes them).

This layer imports nothing else from gastudy.
"""
