"""Measurements that exist only to show something in the course, beyond what the library offers:
multi-process demonstrations that start real local processes (``ddp``; ``fsdp``: sharded data
parallel, deferred vs every-microbatch sync, measured).
"""
