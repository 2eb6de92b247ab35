#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch's GEMMs beside qs_bench_gpu_gemmlab (issue 21), on the same GPU in the same run:
Y[M,N] = X[M,K]·W[N,K]ᵀ for N = 4096, K = 14336 over M = 1, 2, 4, …, 8192 —
  bf16         torch.matmul(x, w.t()), BF16 in and out
  fp8          torch._scaled_mm E4M3 × E4M3 → BF16, tensor-wise FP32 scales
  fp8-rowwise  torch._scaled_mm with scale_a [M, 1] and scale_b [1, N] FP32 (row-wise) → BF16
  int8         torch._int_mm INT8 × INT8 → INT32 (padded to the smallest M it accepts where it
               refuses one; the point says so)
Timing as ours: CUDA events around each call, warm-up, median and spread (min, p10, p90, max) of
--repeats (≥ 20), rotating operand copies while the working set is under 2× L2. PyTorch gives
cuBLAS and cuBLASLt a 32 MiB workspace on sm_90 unless CUBLAS_WORKSPACE_CONFIG /
CUBLASLT_WORKSPACE_SIZE say otherwise (recorded in the JSON); ours uses 32 MiB too. With --ours
(qs_bench_gpu_gemmlab's JSON) it prints ours / PyTorch per point and the issue's bar (≤ 10 % slower
at M ≥ 16, ≤ 3 µs slower below). --round K writes gemm_lab_torch.round<K>.json (the rounds of
scripts/device-run.sh; bench/gemm_lab_rounds.py tallies them)."""
import argparse
import ctypes
import json
import math
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm_lab_rounds import bar_met, ours_us as ours_compared_us  # noqa: E402


def l2_bytes():
    try:
        return int(torch.cuda.get_device_properties(0).L2_cache_size)
    except AttributeError:
        return 50 << 20


def copies_for(ws_bytes):
    return int(min(16, max(1, math.ceil(2 * l2_bytes() / max(ws_bytes, 1)))))


def timed(fn, copies, reps, warmup):
    for i in range(warmup):
        fn(i % copies)
    torch.cuda.synchronize()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for r, (s, e) in enumerate(ev):
        c = (r + warmup) % copies
        s.record()
        fn(c)
        e.record()
    torch.cuda.synchronize()
    return spread([s.elapsed_time(e) * 1e3 for s, e in ev])  # µs


def kernels_of(fn):
    """The GPU kernels one call runs (names, from torch.profiler), so that a run records which kernel
    PyTorch's library picked beside the configuration ours reports."""
    try:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn(0)
            torch.cuda.synchronize()
        names = [e.key for e in prof.key_averages() if getattr(e, "device_type", None) is not None
                 and "CUDA" in str(e.device_type)]
        return names or [e.key for e in prof.key_averages()]
    except Exception as e:  # the profiler is a diagnostic: its absence must not stop the timing
        return [f"unavailable: {type(e).__name__}"]


def blas_libraries():
    """cuBLAS / cuBLASLt as loaded in this process: path and version (cublasLtGetVersion)."""
    out = {}
    try:
        out["preferred_blas_library"] = str(torch.backends.cuda.preferred_blas_library())
    except Exception:
        pass
    try:
        with open("/proc/self/maps") as f:
            paths = sorted({ln.split()[-1] for ln in f if "libcublas" in ln})
        out["loaded"] = paths
        for path in paths:
            if "libcublasLt" in path:
                lib = ctypes.CDLL(path)
                lib.cublasLtGetVersion.restype = ctypes.c_size_t
                out["cublaslt_version"] = int(lib.cublasLtGetVersion())
    except Exception as e:
        out["error"] = f"{type(e).__name__}: {e}"
    return out


def spread(times):
    """Median, min, p10, p90, max (linear between order statistics, as ours: sim/gemm_bench.h)."""
    t = sorted(times)

    def at(q):
        x = q * (len(t) - 1)
        lo, hi = math.floor(x), math.ceil(x)
        return t[lo] + (x - lo) * (t[hi] - t[lo])

    return dict(time_us=at(0.5), time_min_us=t[0], time_p10_us=at(0.1), time_p90_us=at(0.9), time_max_us=t[-1])


def randn_like_ours(shape, scale, dtype, g):
    x = torch.randn(*shape, device="cuda", generator=g) * scale
    if dtype == torch.int8:
        x = x.round().clamp(-127, 127)
        x[x == 0] = 1
        return x.to(torch.int8)
    if dtype == torch.float8_e4m3fn:
        x = torch.where(x.abs() < 2 ** -6, torch.full_like(x, 2 ** -6), x).clamp(-448, 448)
    return x.to(dtype)


def run_format(fmt, ms, n, k, reps, warmup, g):
    dt = {"bf16": torch.bfloat16, "fp8": torch.float8_e4m3fn, "fp8-rowwise": torch.float8_e4m3fn,
          "int8": torch.int8}[fmt]
    scale = 0.02 if fmt == "bf16" else (64.0 if fmt.startswith("fp8") else 32.0)
    xscale = 1.0 if fmt == "bf16" else scale
    ein = 2 if fmt == "bf16" else 1
    mmax = max(ms) + 32
    ws = ein * (n + min(ms)) * k + 4 * min(ms) * n
    copies = copies_for(ws)
    W = [randn_like_ours((n, k), scale, dt, g) for _ in range(copies)]
    X = [randn_like_ours((mmax, k), xscale, dt, g) for _ in range(copies)]
    sa_t = torch.tensor(1.5e-2, device="cuda")
    sb_t = torch.tensor(2.5e-4, device="cuda")
    sb_row = (2.5e-4 * (1 + 0.125 * (torch.arange(n, device="cuda") % 9))).float().reshape(1, n)
    pts = []
    for m in ms:
        sa_row = (1.5e-2 * (1 + 0.25 * (torch.arange(m, device="cuda") % 5))).float().reshape(m, 1)

        def make(mp):
            if fmt == "bf16":
                return lambda c: torch.matmul(X[c][:mp], W[c].t())
            if fmt == "fp8":
                return lambda c: torch._scaled_mm(X[c][:mp], W[c].t(), scale_a=sa_t, scale_b=sb_t,
                                                  out_dtype=torch.bfloat16)
            if fmt == "fp8-rowwise":
                sa = sa_row if mp == m else torch.ones(mp, 1, device="cuda")
                return lambda c: torch._scaled_mm(X[c][:mp], W[c].t(), scale_a=sa, scale_b=sb_row,
                                                  out_dtype=torch.bfloat16)
            return lambda c: torch._int_mm(X[c][:mp], W[c].t())

        tries = sorted({m, -(-m // 8) * 8, -(-m // 16) * 16, 17 if m <= 16 else m, -(-m // 32) * 32})
        fn, mp, err = None, None, None
        for cand in tries:
            try:
                f = make(cand)
                f(0)
                torch.cuda.synchronize()
                fn, mp = f, cand
                break
            except RuntimeError as e:
                err = str(e).splitlines()[0]
        if fn is None:
            pts.append(dict(format=fmt, m=m, n=n, k=k, error=err))
            print(f"{fmt:12s} {m:6d}  refused: {err}", flush=True)
            continue
        if os.environ.get("QS_GEMMLAB_TRACE"):  # when each point's timed phase starts (UTC ms), as ours
            print(f"trace {fmt} M={m} timed from {int(time.time() * 1000)} ms", file=sys.stderr, flush=True)
        sp = timed(fn, copies, reps, warmup)
        kernels = kernels_of(fn)
        us = sp["time_us"]
        flops = 2.0 * m * n * k
        bytes_ = ein * (m * k + n * k) + (4 if fmt == "int8" else 2) * m * n
        p = dict(format=fmt, m=m, n=n, k=k, **sp, tflops=flops / (us * 1e-6) / 1e12,
                 gbps=bytes_ / (us * 1e-6) / 1e9, padded=mp != m, copies=copies, kernels=kernels)
        if mp != m:
            p["padded_m"] = mp
            p["note"] = f"refused M={m}: {err}"
        pts.append(p)
        print(f"{fmt:12s} {m:6d} {us:10.2f} us {p['tflops']:8.1f} TFLOP/s" + (f"  (padded to {mp})" if mp != m else "")
              + "  " + " | ".join(kernels), flush=True)
    return pts


def compare(ours_path, torch_pts):
    with open(ours_path) as f:
        ours = json.load(f)["result"]["points"]
    theirs = {(p["format"], p["m"]): p for p in torch_pts if "time_us" in p}
    rows, ok = [], True
    print(f"{'format':12s} {'M':>6s} {'ours us':>10s} {'torch us':>10s} {'ratio':>7s}  bar")
    for p in ours:
        t = theirs.get((p["format"], p["m"]))
        if not t:
            continue
        # _int_mm stops at INT32: ours is compared without its post-scale kernel (epilogue_us),
        # and the total is reported beside it.
        ours_us = ours_compared_us(p)
        ratio = ours_us / t["time_us"]
        bar = bar_met(p["m"], ours_us, t["time_us"])
        ok = ok and bar
        rows.append(dict(format=p["format"], m=p["m"], ours_us=ours_us, ours_total_us=p["time_us"],
                         torch_us=t["time_us"], ratio=ratio, ours_padded=p["padded"], torch_padded=t["padded"],
                         bar_met=bar))
        print(f"{p['format']:12s} {p['m']:6d} {ours_us:10.2f} {t['time_us']:10.2f} {ratio:7.3f}  "
              f"{'ok' if bar else 'MISSED'}" + (f"  (with the post-scale {p['time_us']:.2f})" if ours_us != p["time_us"] else ""))
    print("bar (≤ 10 % slower at M ≥ 16, ≤ 3 µs below):", "met" if ok else "missed")
    return rows, ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--k", type=int, default=14336)
    ap.add_argument("--m-sweep", default=",".join(str(1 << i) for i in range(14)))
    ap.add_argument("--formats", default="bf16,fp8,fp8-rowwise,int8")
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--ours", default="", help="qs_bench_gpu_gemmlab's gpu_gemmlab.json to compare with")
    ap.add_argument("--round", type=int, default=0, help="K > 0: write gemm_lab_torch.round<K>.json")
    a = ap.parse_args()
    reps = max(20, a.repeats)
    ms = [int(v) for v in a.m_sweep.split(",")]
    g = torch.Generator(device="cuda").manual_seed(0)
    pts = []
    for fmt in a.formats.split(","):
        pts += run_format(fmt, ms, a.n, a.k, reps, a.warmup, g)
    blas = blas_libraries()  # after the GEMMs, so that the libraries they loaded are listed
    print("blas:", json.dumps(blas), flush=True)
    doc = dict(benchmark="gemm_lab_torch", torch=torch.__version__, device=torch.cuda.get_device_name(),
               cuda=torch.version.cuda, n=a.n, k=a.k, repeats=reps, warmup=a.warmup,
               timing="CUDA events around each call; warm-up; median and spread (min, p10, p90, max); rotating "
                      "operand copies under 2x L2",
               workspace=dict(CUBLAS_WORKSPACE_CONFIG=os.environ.get("CUBLAS_WORKSPACE_CONFIG"),
                              CUBLASLT_WORKSPACE_SIZE=os.environ.get("CUBLASLT_WORKSPACE_SIZE"),
                              default="32 MiB on sm_90 (PyTorch's default for cuBLAS and cuBLASLt on Hopper)"),
               round=a.round, blas=blas, points=pts)
    if a.ours and os.path.exists(a.ours):
        doc["comparison"], doc["bar_met"] = compare(a.ours, pts)
    name = f"gemm_lab_torch.round{a.round}.json" if a.round > 0 else "gemm_lab_torch.json"
    with open(os.path.join(a.out, name), "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
