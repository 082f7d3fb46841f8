"""A whole training run (course: MB-6, MB-10): ``train`` (epochs of groups, the schedule per
applied update, the run record), ``resume`` (checkpoints at group boundaries, bit-identical
resume), ``sharded`` (the same for sharded replicas, with ``torch.distributed.checkpoint``) and
``replicas`` (the same run on D data-parallel processes).
"""
