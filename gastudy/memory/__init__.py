"""Measuring memory and time on this machine (course: GA-1, GA-2, CK-1…CK-4, MB-9).

``saved`` (bytes autograd keeps for backward) · ``probes`` (device memory, current and peak) ·
``workload`` (what a measurement runs) · ``timeline`` (memory after every phase of real
updates) · ``planner`` (the largest m whose measured peak fits a budget) · ``timing``
(seconds per update and per sample). Builds on :mod:`gastudy.core` only.
"""
