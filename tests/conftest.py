"""Shared test set-up: headless plotting, one thread per process (the CI machine has 2 cores and
runs two test processes), and the order files are handed to them."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")
# Inherited by every process a test starts (kernels, command lines, launched workers): two OpenMP
# threads per process on two busy cores wait for each other; a CPU dry run took 68 s instead of 11 s.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402

torch.set_num_threads(1)


def _kind(item) -> int:
    """0 for the real-browser suites, 1 for other slow tests, 2 for the rest, 3 for the notebooks."""
    if item.get_closest_marker("browser"):
        return 0
    if item.get_closest_marker("slow"):
        return 1
    return 3 if ".ipynb::" in item.nodeid else 2


def pytest_collection_modifyitems(config, items):
    """Longest kinds of file first. With ``--dist loadfile`` a file runs whole on one worker, in the
    order files are collected (``dev.py test`` keeps it: ``--no-loadscope-reorder``); a browser
    suite of three minutes started last would be the run's tail while the other worker idles.
    A file keeps its place among its kind and its tests keep their order."""
    first: dict[str, int] = {}
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        first[path] = min(first.get(path, 3), _kind(item))
    items.sort(key=lambda item: first[item.nodeid.split("::", 1)[0]])
