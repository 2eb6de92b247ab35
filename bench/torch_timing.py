# SPDX-License-Identifier: MIT
"""The PyTorch peers' timers (bench/*_torch.py). `timed`: one warm-up call, then CUDA events around
each of `reps` calls; returns the median in milliseconds and the last call's result.
`interleaved`: several callables timed in alternation (each round times every one once)."""
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


def interleaved(methods, reps, warmup):
    """`methods`: name → callable. `warmup` calls of each, then `reps` rounds, each timing every
    method once in order (CUDA events around the call). Returns name → dict(median_us, min_us,
    max_us) in the order of `methods`."""
    for f in methods.values():
        for _ in range(warmup):
            f()
    torch.cuda.synchronize()
    times = {name: [] for name in methods}
    for _ in range(reps):
        for name, f in methods.items():
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            f()
            e.record()
            e.synchronize()
            times[name].append(s.elapsed_time(e) * 1e3)
    return {name: dict(median_us=statistics.median(t), min_us=min(t), max_us=max(t)) for name, t in times.items()}
