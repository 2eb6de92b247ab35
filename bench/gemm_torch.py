#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch's matmul of qs_bench_gpu_gemm's shapes (X [2048, 4096] · W [14336, 4096]ᵀ) on the same
GPU, beside the paired simulation: BF16 (what a W4A16 deployment computes after dequantizing),
FP32 and FP64 (the simulation's reference precision). CUDA events, median of --repeats."""
import argparse
import json
import os
import statistics

import torch


def timed(fn, reps):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e))
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--tokens", type=int, default=2048)
    ap.add_argument("--n", type=int, default=14336)
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=20)
    a = ap.parse_args()
    g = torch.Generator(device="cuda").manual_seed(0)
    res = []
    for dt in (torch.bfloat16, torch.float32, torch.float64):
        x = torch.randn(a.tokens, a.k, device="cuda", generator=g).to(dt)
        w = torch.randn(a.n, a.k, device="cuda", generator=g).to(dt)
        ms = timed(lambda: x @ w.T, a.repeats)
        res.append(dict(dtype=str(dt).replace("torch.", ""), median_ms=ms, tokens=a.tokens, n=a.n, k=a.k))
        print(f"torch matmul {res[-1]['dtype']:9s} {ms:9.3f} ms", flush=True)
    with open(os.path.join(a.out, "gemm_torch.json"), "w") as f:
        json.dump(dict(benchmark="gemm_torch", torch=torch.__version__, device=torch.cuda.get_device_name(),
                       tf32=torch.backends.cuda.matmul.allow_tf32, results=res), f, indent=1)


if __name__ == "__main__":
    main()
