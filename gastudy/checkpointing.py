"""Activation checkpointing (course sections CK-1 … CK-4).

This module owns the marker base class for the repeated per-layer blocks of a model.
Only subclasses of :class:`CheckpointLayer` count toward ``every_n_layers``.
"""

from __future__ import annotations

from torch import nn


class CheckpointLayer(nn.Module):
    """Marker base class for a model's repeated per-layer block (CK-3).

    A model's transformer blocks (or any repeated unit) subclass this instead of
    ``nn.Module``. ``enable_checkpointing`` counts only these layers when it picks
    every n-th one; other modules are left alone.
    """
