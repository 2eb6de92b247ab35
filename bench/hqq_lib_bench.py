#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The released `hqq` package (pip install hqq) on the tensor qs_bench_gpu_hqq writes with
--tensor-out (raw BF16, 4096×14336 by default), with the settings of its cases: HQQ 4-bit g64
axis 1 (the headline; hqq_base_quant_config: optimize, round_zero for 4-bit), 3-bit g64 axis 1
and 4-bit g64 axis 0, through `Quantizer.quantize(W, nbits, channel_wise=True, group_size=64,
optimize=True, round_zero=(nbits == 4), axis, bitpack=False, compute_dtype=float16,
device="cuda")` — on CUDA the library's optimiser runs in FP16 (our `compute fp16`); bitpack off so
it writes uint8 codes as qs_bench_gpu_hqq does.
Timing as the C++ bench: CUDA events, L2 flushed (a 256 MiB buffer written, another read) and
~1 ms device spin before each repeat, median of --repeats after --warmup. The relative Frobenius
error of Ŵ = (W_q − zero)·scale against W (FP64) is reported beside the time. Writes
OUT/hqq_lib_bench.json."""
import argparse
import json
import os
import statistics
import sys

import numpy as np
import torch

try:
    import hqq
    from hqq.core.quantize import Quantizer
except Exception as ex:  # the caller (scripts/device-run.sh) prints this line and goes on
    print(f"hqq_lib_bench: the released hqq package is not importable ({ex!r}): skipped")
    sys.exit(3)

CASES = [("hqq4_g64_a1_fp16", 4, 64, 1), ("hqq3_g64_a1_fp16", 3, 64, 1), ("hqq4_g64_a0_fp16", 4, 64, 0)]


def quantize(w, nbits, group, axis):
    return Quantizer.quantize(w, nbits=nbits, channel_wise=True, group_size=group, optimize=True,
                              round_zero=(nbits == 4), axis=axis, bitpack=False, compute_dtype=torch.float16,
                              view_as_float=False, device="cuda")


def rel_frobenius(w, w_q, meta):
    wh = (w_q.double() - meta["zero"].double()) * meta["scale"].double()
    wd = w.double()
    wh = wh.reshape(wd.shape)
    return (torch.linalg.norm(wd - wh) / torch.linalg.norm(wd)).item()


def bench(fn, reps, warm, flush):
    ts = []
    for r in range(warm + reps):
        flush[0].fill_(1)
        flush[1].sum(dtype=torch.int64)
        torch.cuda._sleep(2_000_000)
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        if r >= warm:
            ts.append(s.elapsed_time(e))
    ts.sort()
    return dict(median_ms=statistics.median(ts), p10_ms=ts[len(ts) // 10], p90_ms=ts[len(ts) * 9 // 10],
                min_ms=ts[0], repeats=reps, warmup=warm)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--tensor", required=True, help="raw BF16 file written by qs_bench_gpu_hqq --tensor-out")
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--cols", type=int, default=14336)
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--only", default="", help="comma-separated case names (default: all)")
    args = ap.parse_args()
    dev = torch.device("cuda")
    raw = np.fromfile(args.tensor, dtype=np.uint16)
    assert raw.size == args.rows * args.cols, (raw.size, args.rows, args.cols)
    w = torch.from_numpy(raw.view(np.int16)).to(dev).view(torch.bfloat16).view(args.rows, args.cols)
    flush = (torch.empty(256 << 20, dtype=torch.uint8, device=dev), torch.ones(256 << 20, dtype=torch.uint8, device=dev))
    doc = dict(benchmark="hqq_lib_bench", hqq=getattr(hqq, "__version__", "unknown"), torch=torch.__version__,
               device=torch.cuda.get_device_name(), rows=args.rows, cols=args.cols, dtype="BF16",
               work="Quantizer.quantize(optimize=True, bitpack=False, compute_dtype=float16, device='cuda'): "
                    "the whole HQQ optimisation, uint8 codes, FP16 scale and zero",
               timing="CUDA events; 256 MiB written and another 256 MiB read and ~1 ms device spin before each "
                      "repeat; median after warm-up",
               results=[])
    only = set(filter(None, args.only.split(",")))
    for name, nbits, group, axis in CASES:
        if only and name not in only:
            continue
        try:
            res = bench(lambda: quantize(w, nbits, group, axis), args.repeats, args.warmup, flush)
            w_q, meta = quantize(w, nbits, group, axis)
            res.update(case=name, nbits=nbits, group=group, axis=axis, rel_frobenius=rel_frobenius(w, w_q, meta))
            print(f"{name:18s} hqq library {res['median_ms']:9.4f} ms (p10 {res['p10_ms']:.4f}, p90 {res['p90_ms']:.4f})"
                  f"  rel_fro {res['rel_frobenius']:.6f}", flush=True)
        except Exception as ex:  # report and go on
            res = dict(case=name, error=repr(ex)[:500])
            print(f"{name}: {ex!r}"[:300], flush=True)
        doc["results"].append(res)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "hqq_lib_bench.json"), "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
