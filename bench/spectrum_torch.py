#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The PyTorch ways of qs_bench_gpu_spectrum's work on the same residual E (the FP32 file it wrote
with --tensor-out): torch.svd_lowrank (q = 512, niter 2 and 8), torch.linalg.svdvals (FP32 and
FP64) and eigvalsh of the Gram matrix (FP32 and FP64), CUDA events, median of --repeats (after one
warm-up); each method's accuracy against our FP64 values (gpu_spectrum.json: all σ by the Gram
matrix in FP64): max |Δσᵢ|/σ₁ over all σ, and the top-32's max relative error."""
import argparse
import json
import os

import numpy as np
import torch

from torch_timing import timed  # bench/torch_timing.py, beside this script


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--tensor", required=True)
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--cols", type=int, default=14336)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    ours = json.load(open(os.path.join(a.out, "gpu_spectrum.json")))
    ref = np.array(next(r["sigma"] for r in ours["results"] if r["case"] == "all_gram_eigen"))
    e = torch.from_numpy(np.fromfile(a.tensor, dtype=np.float32).reshape(a.rows, a.cols)).cuda()
    e64 = e.double()
    torch.backends.cuda.matmul.allow_tf32 = False
    cases = [
        ("svd_lowrank q512 niter2", lambda: torch.svd_lowrank(e, q=512, niter=2)[1]),
        ("svd_lowrank q512 niter8", lambda: torch.svd_lowrank(e, q=512, niter=8)[1]),
        ("svdvals fp32", lambda: torch.linalg.svdvals(e)),
        ("svdvals fp64", lambda: torch.linalg.svdvals(e64)),
        ("eigvalsh(E Eᵀ) fp32", lambda: torch.linalg.eigvalsh(e @ e.T).clamp(min=0).sqrt().flip(0)),
        ("eigvalsh(E Eᵀ) fp64", lambda: torch.linalg.eigvalsh(e64 @ e64.T).clamp(min=0).sqrt().flip(0)),
    ]
    res = []
    for name, fn in cases:
        try:
            ms, s = timed(fn, a.repeats)
            s = s.double().cpu().numpy()
            n = min(len(s), len(ref))
            all_err = float(np.max(np.abs(s[:n] - ref[:n])) / ref[0])
            top32 = float(np.max(np.abs(s[:32] - ref[:32]) / ref[:32]))
            res.append(dict(case=name, median_ms=ms, values=n, max_abs_err_over_sigma1=all_err, top32_max_rel_err=top32))
            print(f"{name:26s} {ms:9.2f} ms   all σ: max|Δ|/σ1 {all_err:.2e}   top-32 max rel {top32:.2e}", flush=True)
        except Exception as ex:  # report and go on
            res.append(dict(case=name, error=repr(ex)[:300]))
            print(f"{name}: {ex!r}"[:200], flush=True)
    with open(os.path.join(a.out, "spectrum_torch.json"), "w") as f:
        json.dump(dict(benchmark="spectrum_torch", torch=torch.__version__, device=torch.cuda.get_device_name(),
                       tf32=False, results=res), f, indent=1)


if __name__ == "__main__":
    main()
