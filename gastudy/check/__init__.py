"""Checking an update from outside the loop that made it (course: MB-8, MB-10, MB-11).

``steps`` (what the optimizer consumed, per step) · ``verify`` (one update against the big
batch) · ``replicas`` (the same on D processes) · ``diagnostics`` (the five detectors) ·
``pitfalls`` (the wrong loops they are proven against) · ``clinic`` (each pitfall against its
detector, before and after the fix) · ``loop`` (``check_loop``: the user's own train_step, run
once on a copy against the big batch, its symptom named by the detectors).
"""
