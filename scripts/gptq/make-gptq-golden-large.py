#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes tests/data/gptq/synthetic-1024.gptq.safetensors: llm-compressor's own GPTQ on a layer with
K = 1024 (eight blocks of 128, where the stories260K golden has at most two), the golden that
tests/core/numerics/test_gptq.cpp `Gptq.LargeLayerEqualsLlmCompressorUpToTies` and the GPU test
compare with.

The layer is generated, not stored: both this script and the test compute it from splitmix64 with
operations that round alike in NumPy and C++ (IEEE doubles, no fused multiply-add):
  u_i  = (splitmix64(seed + i) >> 11) · 2⁻⁵³
  W    [128 × 1024] FP32: f32(((u − 0.5)³) · 0.8), columns j ≡ 5 (mod 61) × 8
  X    [256 × 1024]: floor(u · 17) − 8, columns j ≡ 11 (mod 97) × 16 (integers); then, in column
       order, x[0, j] += 1 until Σ_t x_tj² differs from every earlier column's (no ties in diag(H),
       which act order sorts by and torch's argsort would break in its own order)
  G    = XᵀX / 256: integer sums, exact in FP32 and FP64, so H = 2·G is the same on both sides.
Per configuration, llm-compressor 0.14's `quantize_weight` (CPU, eager) with the observer's scale and
zero point (compressed-tensors' calculate_qparams on each group's min/max, its memoryless_minmax),
a fresh copy of H per call (quantize_weight factorizes it in place). Stored: `<cfg>.codes` as two
4-bit codes a byte (code + 8, low nibble first: [128, 512] uint8), and in the metadata each
configuration's arguments and llm-compressor's loss.

Usage (llm-compressor 0.14 with torch, compressed-tensors, safetensors, numpy):
  /tmp/qs-llmc-venv/bin/python scripts/gptq/make-gptq-golden-large.py [--out PATH]
"""
import argparse
import json
import os

import numpy as np
import torch
from safetensors.torch import save_file

os.environ.setdefault("LLMCOMPRESSOR_DISABLE_GPTQ_TRITON", "1")
from compressed_tensors.quantization import QuantizationArgs  # noqa: E402
from compressed_tensors.quantization.utils import calculate_qparams  # noqa: E402
from llmcompressor.modifiers.gptq.gptq_quantize import quantize_weight  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
N, K, R = 128, 1024, 256
MASK = (1 << 64) - 1

CONFIGS = {
    "w4g128": (dict(num_bits=4, strategy="group", group_size=128, symmetric=True), 128),
    "w4g128_asym": (dict(num_bits=4, strategy="group", group_size=128, symmetric=False), 128),
    "w4g64_weight": (dict(num_bits=4, strategy="group", group_size=64, symmetric=True, actorder="weight"), 128),
    "w4ch_b32": (dict(num_bits=4, strategy="channel", symmetric=True), 32),
}


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def uniforms(seed, count):
    return np.array([(splitmix64(seed + i) >> 11) * 2.0 ** -53 for i in range(count)], dtype=np.float64)


def layer():
    u = uniforms(1, N * K).reshape(N, K)
    d = u - 0.5
    w = ((d * d * d) * 0.8).astype(np.float32)
    w[:, np.arange(K) % 61 == 5] *= np.float32(8.0)
    ux = uniforms(2, R * K).reshape(R, K)
    x = np.floor(ux * 17.0) - 8.0
    x[:, np.arange(K) % 97 == 11] *= 16.0
    xi = x.astype(np.int64)
    # diag(H) without ties (act order sorts by it, and torch's argsort does not keep the order of
    # equal keys): in column order, x[0, j] += 1 until Σ_t x_tj² differs from every earlier column's
    seen = set()
    for j in range(K):
        d = int((xi[:, j] * xi[:, j]).sum())
        while d in seen:
            xi[0, j] += 1
            d = int((xi[:, j] * xi[:, j]).sum())
        seen.add(d)
    g = (xi.T @ xi).astype(np.float64) / R
    return w, g


def observe(w, args):
    if args.strategy == "group":
        wg = w.reshape(N, K // args.group_size, args.group_size)
        return calculate_qparams(wg.amin(-1), wg.amax(-1), args)
    return calculate_qparams(w.amin(-1, keepdim=True), w.amax(-1, keepdim=True), args)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "tests/data/gptq/synthetic-1024.gptq.safetensors"))
    a = ap.parse_args()
    w_np, g_np = layer()
    w = torch.from_numpy(w_np)
    h = 2.0 * torch.from_numpy(g_np).to(torch.float32)
    out, cfg_meta = {}, {}
    for name, (qa, block) in CONFIGS.items():
        args = QuantizationArgs(**qa)
        scale, zp = observe(w, args)
        q, loss, fb = quantize_weight(w.clone()[None], h.clone()[None], scale[None], zp[None], None, args, block, 0.01)
        q = q[0]
        if args.strategy == "group":
            s_full = scale.repeat_interleave(args.group_size, dim=1)
            z_full = zp.repeat_interleave(args.group_size, dim=1)
        else:
            s_full, z_full = scale.expand(N, K), zp.expand(N, K)
        codes = (torch.round(q / s_full) + z_full.to(torch.float32)).clamp(-8, 7).to(torch.int64) + 8
        packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).to(torch.uint8).contiguous()
        out[f"{name}.codes"] = packed
        cfg_meta[name] = {"args": qa, "block_size": block, "dampening": 0.01, "loss": float(loss[0]),
                          "rtn_fallback": bool(fb[0])}
        print(f"{name}: loss {float(loss[0]):.6g}")
    meta = {"format": "quantscope-gptq-golden-large", "rows": str(N), "cols": str(K), "samples": str(R),
            "configs": json.dumps(cfg_meta), "llmcompressor": __import__("llmcompressor").__version__,
            "torch": torch.__version__}
    save_file(out, a.out, metadata=meta)
    print(f"wrote {a.out}: {os.path.getsize(a.out)} bytes")


if __name__ == "__main__":
    main()
