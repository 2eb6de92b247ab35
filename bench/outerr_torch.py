#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch's output-aware error on the tensors qs_bench_gpu_outerr wrote with --tensor-out (W BF16,
Ŵ FP32, G FP32, 14336×4096 and 4096²), same GPU, same run: ((D @ G) * D).sum() with D = W − Ŵ in
FP32 (allow_tf32 off) and in TF32 (on), start to finish from W, Ŵ, G on the device to the scalar on
the host (CUDA events, median of --repeats after a warm-up); the FP32 sum then in FP64
(.double().sum()) as well. Accuracy against our CPU FP64 reference (gpu_outerr.json), and the ratio
to our device time with G resident (the bf16x3 case). Writes outerr_torch.json."""
import argparse
import json
import os

import numpy as np
import torch

from torch_timing import timed  # bench/torch_timing.py, beside this script


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--tensors", required=True)
    ap.add_argument("--rows", type=int, default=14336)
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=20)
    a = ap.parse_args()
    ours = json.load(open(os.path.join(a.out, "gpu_outerr.json")))
    cpu = ours.get("cpu_fp64_error")
    mine = next(r for r in ours["results"] if r["case"] == "bf16x3")
    n, k = a.rows, a.cols
    raw = np.fromfile(os.path.join(a.tensors, "w_bf16.bin"), dtype=np.uint16).astype(np.int32)
    w = torch.from_numpy(raw).cuda()
    w = (w << 16).view(torch.float32).reshape(n, k)  # BF16 bits → FP32 exactly
    what = torch.from_numpy(np.fromfile(os.path.join(a.tensors, "what_f32.bin"), dtype=np.float32)).cuda().reshape(n, k)
    wb = w.to(torch.bfloat16)  # W stored as BF16 on the device, as ours is
    g = torch.from_numpy(np.fromfile(os.path.join(a.tensors, "gram_f32.bin"), dtype=np.float32)).cuda().reshape(k, k)
    torch.cuda.synchronize()
    results = []
    for name, tf32, f64sum in (("fp32", False, False), ("tf32", True, False), ("tf32_fp64_sum", True, True)):
        torch.backends.cuda.matmul.allow_tf32 = tf32

        def run():
            d = wb.float() - what
            y = (d @ g) * d
            return (y.double().sum() if f64sum else y.sum()).item()

        ms, val = timed(run, a.repeats)
        rel = abs(val - cpu) / abs(cpu) if cpu else None
        ratio = ms / mine["device_median_ms"]
        print(f"torch {name:14s} {ms:8.3f} ms  error {val:.12g}  rel.diff vs CPU FP64 {rel:.2e}  "
              f"torch / ours(bf16x3, G resident) = {ratio:.2f}")
        results.append({"case": name, "median_ms": ms, "error": val, "rel_diff_vs_cpu_fp64": rel,
                        "torch_over_ours": ratio})
    doc = {"benchmark": "outerr_torch", "torch": torch.__version__, "device": torch.cuda.get_device_name(),
           "rows": n, "cols": k, "ours_bf16x3_device_median_ms": mine["device_median_ms"], "results": results}
    json.dump(doc, open(os.path.join(a.out, "outerr_torch.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
