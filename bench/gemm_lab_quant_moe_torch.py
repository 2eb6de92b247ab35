#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch's ways beside qs_bench_gpu_gemmlab_quant_moe (issue 22), on the same GPU in the same run:
  copy     a 1 GiB device-to-device copy (best of 10): the memory floor, and the check of our
           roofline's copy ceiling (within 10 %)
  peak     torch.matmul BF16 on 8192³ and 8192×8192×16384 (median of 10, best): the check of our
           BF16 ceiling (within 10 %)
  moe      16 experts × (M=16, N=2048, K=7168) BF16: torch.bmm (16×16×7168 @ 16×7168×2048) and
           the per-expert loop of torch.matmul; the copy floor of one step's bytes
  w4a16    the PyTorch way: unpack the INT4 nibbles, subtract the zero points and multiply the
           g128 scales with torch ops, then torch.matmul — N=4096, K=14336 over M = 1 … 8192
Timing as ours: CUDA events around each call, warm-up, median of --repeats (≥ 20). With --ours
(qs_bench_gpu_gemmlab_quant_moe's JSON) it prints ours beside PyTorch and the issue's bars."""
import argparse
import json
import os
import statistics

import torch


def timed(fn, reps, warmup):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for s, e in ev:
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) * 1e3 for s, e in ev]  # µs


def copy_gbps(reps):
    n = 1 << 30
    a = torch.ones(n, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    t = min(timed(lambda: b.copy_(a), reps, 3))
    return 2.0 * n / (t * 1e-6) / 1e9


def bf16_peak(reps):
    best = 0.0
    for m, n, k in ((8192, 8192, 8192), (8192, 8192, 16384)):
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        t = statistics.median(timed(lambda: torch.matmul(x, w.t()), reps, 3))
        best = max(best, 2.0 * m * n * k / (t * 1e-6) / 1e12)
    return best


def moe(experts, m, n, k, reps, warmup, gbps):
    x = torch.randn(experts, m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(experts, k, n, device="cuda", dtype=torch.bfloat16) * 0.02
    y = torch.empty(experts, m, n, device="cuda", dtype=torch.bfloat16)
    bmm = statistics.median(timed(lambda: torch.bmm(x, w, out=y), reps, warmup))

    def loop():
        for e in range(experts):
            torch.matmul(x[e], w[e], out=y[e])

    lp = statistics.median(timed(loop, reps, warmup))
    step_bytes = 2.0 * experts * (m * k + k * n + m * n)
    return dict(experts=experts, m=m, n=n, k=k, bmm_us=bmm, loop_us=lp, launches_bmm=1, launches_loop=experts,
                step_bytes=step_bytes, copy_floor_us=step_bytes / (gbps * 1e9) * 1e6)


def w4a16(ms, n, k, group, reps, warmup):
    g = torch.Generator(device="cuda").manual_seed(0)
    packed = torch.randint(0, 256, (n, k // 2), device="cuda", dtype=torch.uint8, generator=g)
    scales = torch.rand(n, k // group, device="cuda", generator=g) * 1e-3 + 1e-3
    zeros = torch.randint(-8, 8, (n, k // group), device="cuda", generator=g).to(torch.int8)
    x = torch.randn(max(ms), k, device="cuda", dtype=torch.bfloat16)

    def dequant():
        lo = (packed & 0xF).to(torch.int8)
        hi = (packed >> 4).to(torch.int8)
        q = torch.stack((lo, hi), dim=-1).reshape(n, k)
        q = torch.where(q >= 8, q - 16, q)
        q = q.reshape(n, k // group, group) - zeros.unsqueeze(-1)
        return (q.to(torch.float32) * scales.unsqueeze(-1)).reshape(n, k).to(torch.bfloat16)

    pts = []
    for m in ms:
        xm = x[:m]
        us = statistics.median(timed(lambda: torch.matmul(xm, dequant().t()), reps, warmup))
        pts.append(dict(format="w4a16", m=m, n=n, k=k, group=group, time_us=us,
                        tflops=2.0 * m * n * k / (us * 1e-6) / 1e12))
        print(f"w4a16 torch {m:6d} {us:10.2f} us", flush=True)
    return pts


def compare(ours_path, doc):
    with open(ours_path) as f:
        ours = json.load(f)
    out = {}
    peaks = ours["quantized"].get("peaks")
    if peaks:
        c = peaks["copy_gbps"] / doc["copy_gbps"]
        b = peaks["tflops"].get("bf16", 0.0) / doc["bf16_peak_tflops"]
        out["copy_ratio"], out["bf16_peak_ratio"] = c, b
        out["ceilings_within_10pct"] = abs(c - 1) <= 0.10 and abs(b - 1) <= 0.10
        print(f"ceilings: copy ours/torch {c:.3f}, BF16 peak ours/torch {b:.3f}: "
              f"{'within' if out['ceilings_within_10pct'] else 'NOT within'} 10 %")
    bar = ours.get("moe_bar", {})
    if bar:
        out["moe_batched_us"], out["moe_loop_us"] = bar["batched_bf16_us"], bar["loop_bf16_us"]
        out["moe_bar_met"] = bar["met"]
        print(f"MoE BF16 per step: ours strided-batched {bar['batched_bf16_us']:.1f} µs, ours loop "
              f"{bar['loop_bf16_us']:.1f} µs; torch.bmm {doc['moe']['bmm_us']:.1f} µs, torch loop "
              f"{doc['moe']['loop_us']:.1f} µs; copy floor {doc['moe']['copy_floor_us']:.1f} µs; bar (≤ 200 µs): "
              f"{'met' if bar['met'] else 'MISSED'}")
    theirs = {p["m"]: p["time_us"] for p in doc["w4a16"]}
    rows = []
    for p in ours["quantized"]["points"]:
        if p["format"] == "w4a16" and p["m"] in theirs:
            rows.append(dict(m=p["m"], ours_us=p["time_us"], torch_us=theirs[p["m"]],
                             ratio=p["time_us"] / theirs[p["m"]]))
            print(f"w4a16 M={p['m']:6d} ours {p['time_us']:10.2f} torch {theirs[p['m']]:10.2f} "
                  f"ratio {rows[-1]['ratio']:.3f}")
    out["w4a16"] = rows
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--k", type=int, default=14336)
    ap.add_argument("--m-sweep", default=",".join(str(1 << i) for i in range(14)))
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--ours", default="", help="qs_bench_gpu_gemmlab_quant_moe's gpu_gemmlab_quant_moe.json to compare with")
    a = ap.parse_args()
    reps = max(20, a.repeats)
    ms = [int(v) for v in a.m_sweep.split(",")]
    gbps = copy_gbps(10)
    print(f"device copy: {gbps:.1f} GB/s", flush=True)
    peak = bf16_peak(10)
    print(f"BF16 matmul peak: {peak:.1f} TFLOP/s", flush=True)
    m = moe(16, 16, 2048, 7168, reps, a.warmup, gbps)
    print(f"MoE: bmm {m['bmm_us']:.1f} us, loop {m['loop_us']:.1f} us, copy floor {m['copy_floor_us']:.1f} us",
          flush=True)
    doc = dict(benchmark="gemm_lab_quant_moe_torch", torch=torch.__version__, device=torch.cuda.get_device_name(),
               cuda=torch.version.cuda, repeats=reps, warmup=a.warmup, copy_gbps=gbps, bf16_peak_tflops=peak,
               moe=m, w4a16=w4a16(ms, a.n, a.k, 128, reps, a.warmup),
               timing="CUDA events around each call; warm-up; median (copy: best of 10)")
    if a.ours and os.path.exists(a.ours):
        doc["comparison"] = compare(a.ours, doc)
    with open(os.path.join(a.out, "gemm_lab_quant_moe_torch.json"), "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
