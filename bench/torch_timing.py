# SPDX-License-Identifier: MIT
"""The PyTorch peers' timer (bench/*_torch.py): one warm-up call, then CUDA events around each of
`reps` calls; returns the median in milliseconds and the last call's result."""
import statistics

import torch


def timed(fn, reps):
    fn()
    torch.cuda.synchronize()
    ts, out = [], None
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        out = fn()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e))
    return statistics.median(ts), out
