"""Shared test set-up: headless plotting, one thread (the CI machine has 2 cores)."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import torch  # noqa: E402

torch.set_num_threads(1)
