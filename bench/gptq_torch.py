#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""llm-compressor's own GPTQ on the GPU, on the tensor and Hessian that bench/gpu_gptq.cpp uses
(the peer of docs/perf.md "GPTQ on the GPU (issue 46)"). The W (BF16 raw bytes, rows × cols) and the
calibration rows X (FP32 raw bytes, R × cols) are the files qs_bench_gpu_gptq wrote with
--tensor-out / --x-out; H = 2·XᵀX/R (FP64, rounded to FP32 as the capture stores G).

Timed, with CUDA events after a warm-up (bench/torch_timing.py): the observer (compressed-tensors'
calculate_qparams on the per-group min/max: llm-compressor's memoryless_minmax) and
llmcompressor.modifiers.gptq.gptq_quantize.quantize_weight on W and H already on the device, the
call llm-compressor's GPTQModifier makes per module. llm-compressor 0.14 picks its Triton block
kernel when Triton is present; LLMCOMPRESSOR_DISABLE_GPTQ_TRITON=1 gives its eager PyTorch one.

The wheel of llm-compressor cannot be imported whole on the GPU machine (it imports datasets,
accelerate, pandas...): --site DIR names a folder holding the unpacked llmcompressor and
compressed_tensors packages (and pydantic, loguru if the machine lacks them), and the two
modules that hold GPTQ are loaded under stub parent packages, so llmcompressor/__init__.py does
not run. Their code runs unmodified.

Usage: gptq_torch.py --w W.bf16 --x X.f32 --rows N --cols K --samples R [--site DIR] [--out F.json]
"""
import argparse
import importlib
import json
import os
import sys
import types

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_timing import timed  # noqa: E402


def load_llmcompressor_gptq(site):
    if site:
        sys.path.insert(0, site)
    root = None
    for p in sys.path:
        if os.path.isdir(os.path.join(p, "llmcompressor", "modifiers", "gptq")):
            root = p
            break
    if root is None:
        raise SystemExit("llmcompressor's package is not on the path (pass --site DIR)")
    for name in ("llmcompressor", "llmcompressor.modifiers", "llmcompressor.modifiers.gptq"):
        if name not in sys.modules:
            m = types.ModuleType(name)
            m.__path__ = [os.path.join(root, *name.split("."))]
            sys.modules[name] = m
    return importlib.import_module("llmcompressor.modifiers.gptq.gptq_quantize")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--w", required=True)
    ap.add_argument("--x", required=True)
    ap.add_argument("--rows", type=int, default=14336)
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--samples", type=int, default=512)
    ap.add_argument("--site", default="")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    gq = load_llmcompressor_gptq(a.site)
    from compressed_tensors.quantization import QuantizationArgs
    from compressed_tensors.quantization.utils import calculate_qparams
    import compressed_tensors
    ver = {}
    try:
        vmod = importlib.import_module("llmcompressor.version")
        ver["llmcompressor"] = getattr(vmod, "__version__", getattr(vmod, "version", "?"))
    except Exception as e:  # noqa: BLE001
        ver["llmcompressor"] = f"? ({e})"
    ver["compressed_tensors"] = getattr(compressed_tensors, "__version__", "?")
    dev = torch.device("cuda")
    n, k, r = a.rows, a.cols, a.samples
    bits = np.fromfile(a.w, dtype=np.uint16).astype(np.uint32) << 16
    w = torch.from_numpy(bits.view(np.float32).reshape(n, k)).to(torch.bfloat16).to(dev)
    x = torch.from_numpy(np.fromfile(a.x, dtype=np.float32).reshape(r, k)).to(dev)
    g = (x.double().T @ x.double() / r).float()
    h = 2.0 * g
    torch.backends.cuda.matmul.allow_tf32 = False
    results = []
    cases = [("4-bit g128 sym", dict(num_bits=4, strategy="group", group_size=128, symmetric=True)),
             ("4-bit g128 asym act order static", dict(num_bits=4, strategy="group", group_size=128, symmetric=False,
                                                        actorder="static"))]
    for label, qa in cases:
        args = QuantizationArgs(**qa)

        def observe():
            wf = w.float().reshape(n, k // 128, 128)
            mn = torch.amin(wf, dim=-1)
            mx = torch.amax(wf, dim=-1)
            return calculate_qparams(mn, mx, args)

        def run():
            # quantize_weight factorizes the Hessian in place (its working buffer): a fresh copy per
            # call, as GPTQModifier hands it a module's own accumulated H once. The copy is timed too
            # (about 0.1 ms for 4096² FP32).
            scale, zp = observe()
            return gq.quantize_weight(w[None], h.clone()[None], scale[None], zp[None], None, args, 128, 0.01)

        ms, out = timed(run, a.reps)
        obs_ms, _ = timed(observe, a.reps)
        q, loss, fb = out
        results.append({"case": label, "ms": ms, "observer_ms": obs_ms, "loss": float(loss[0]),
                        "rtn_fallback": bool(fb[0])})
        print(f"llm-compressor GPTQ {label} on {n}x{k}: {ms:.2f} ms (observer {obs_ms:.2f} ms), loss {float(loss[0]):.6g}",
              flush=True)
    out = {"peer": "llm-compressor quantize_weight", "triton_disabled": os.environ.get(
        "LLMCOMPRESSOR_DISABLE_GPTQ_TRITON", "") not in ("", "0"), "has_triton": bool(gq.HAS_TRITON),
        "versions": ver, "torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "rows": n, "cols": k,
        "samples": r, "results": results}
    if a.out:
        with open(a.out, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
