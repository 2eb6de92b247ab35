#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes tests/data/gptq/synthetic-1024-fp.gptq.safetensors: llm-compressor's own GPTQ with the
floating-point targets (FP8 E4M3 per tensor and per channel, NVFP4, MXFP4) on the K = 1024 layer of
make-gptq-golden-large.py (the same generator, imported from it; tests/core/numerics/gptq_synthetic.h
generates it alike), the golden that tests/core/numerics/test_gptq_fp.cpp compares with.

Per configuration: llm-compressor 0.14's `memoryless_minmax` weight observer on the original weight
(compressed-tensors 0.20's calculate_qparams; for NVFP4 its generate_gparam global scale of the whole
weight, for MXFP4 its E8M0 exponents), then `quantize_weight` (CPU, eager: fake_quantize per column),
a fresh copy of H per call. Stored, per configuration `<cfg>`:
  <cfg>.codes   uint8: FP8 E4M3 bit patterns [128, 1024], or E2M1 nibbles two a byte, low nibble first
                [128, 512] (the code of each of llm-compressor's Ŵ under its column's scale)
  <cfg>.scale   the observer's scale: FP32 (FP8), E4M3 bytes (NVFP4 block scales), E8M0 bytes (MXFP4)
  <cfg>.global_scale  FP32 [1] (NVFP4 only)
and in the metadata each configuration's arguments and llm-compressor's loss.

`--sensitivity` writes nothing: it reruns each configuration with H perturbed by one FP32 ulp
(H·(1 ± 2⁻²³), a seeded symmetric sign pattern) and prints how many rows of llm-compressor's own
result change — the tie sensitivity that bounds how far two correct implementations may differ
(FP8's fine grid near 0 makes it far larger than INT4's or FP4's).

Usage (llm-compressor 0.14 with torch, compressed-tensors, safetensors, numpy):
  /tmp/qs-llmc-venv/bin/python scripts/gptq/make-gptq-golden-fp.py [--out PATH] [--sensitivity]
"""
import argparse
import importlib.util
import json
import os
import sys

import torch
from safetensors.torch import save_file

os.environ.setdefault("LLMCOMPRESSOR_DISABLE_GPTQ_TRITON", "1")
from compressed_tensors.quantization import QuantizationArgs  # noqa: E402
from llmcompressor.modifiers.gptq.gptq_quantize import quantize_weight  # noqa: E402
from llmcompressor.observers import Observer  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
_spec = importlib.util.spec_from_file_location("golden_large", os.path.join(HERE, "make-gptq-golden-large.py"))
large = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(large)
N, K, R = large.N, large.K, large.R

FP8 = dict(num_bits=8, type="float", symmetric=True)
NVFP4 = dict(num_bits=4, type="float", strategy="tensor_group", group_size=16, symmetric=True,
             scale_dtype=torch.float8_e4m3fn, zp_dtype=torch.float8_e4m3fn)
MXFP4 = dict(num_bits=4, type="float", strategy="group", group_size=32, symmetric=True, scale_dtype=torch.uint8,
             zp_dtype=torch.uint8)
# name: (target, quantization args, block size); dampening 0.01
CONFIGS = {
    "fp8_tensor": ("fp8", dict(FP8, strategy="tensor"), 128),
    "fp8_channel_weight_b64": ("fp8", dict(FP8, strategy="channel", actorder="weight"), 64),
    "nvfp4": ("nvfp4", NVFP4, 128),
    "mxfp4_static": ("mxfp4", dict(MXFP4, actorder="static"), 128),
}


def jsonable(qa):
    return {k: (str(v).replace("torch.", "") if isinstance(v, torch.dtype) else v) for k, v in qa.items()}


def observe(w, args):
    obs = Observer.load_from_registry("memoryless_minmax", base_name="weight", args=args)
    obs(w)
    qp = obs.get_qparams()
    return qp["scale"], qp["zero_point"], qp["global_scale"]


def sensitivity(w, h):
    gen = torch.Generator().manual_seed(0)
    e = torch.triu(torch.randint(0, 2, h.shape, generator=gen).to(torch.float32) * 2 - 1)
    hp = h * (1 + (e + torch.triu(e, 1).T) * 2.0 ** -23)
    for name, (_target, qa, block) in CONFIGS.items():
        args = QuantizationArgs(**qa)
        scale, zp, gs = observe(w, args)
        gs = None if gs is None else gs.reshape(-1)[:1]
        q0, l0, _ = quantize_weight(w.clone()[None], h.clone()[None], scale[None], zp[None], gs, args, block, 0.01)
        q1, l1, _ = quantize_weight(w.clone()[None], hp.clone()[None], scale[None], zp[None], gs, args, block, 0.01)
        diff = q0[0] != q1[0]
        print(f"{name}: H vs H·(1 ± 2^-23): {int(diff.sum())} values differ in {int(diff.any(1).sum())} of {N} rows; "
              f"loss {float(l0[0]):.6g} vs {float(l1[0]):.6g}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "tests/data/gptq/synthetic-1024-fp.gptq.safetensors"))
    ap.add_argument("--sensitivity", action="store_true")
    a = ap.parse_args()
    w_np, g_np = large.layer()
    w = torch.from_numpy(w_np)
    h = 2.0 * torch.from_numpy(g_np).to(torch.float32)
    if a.sensitivity:
        sensitivity(w, h)
        return
    out, cfg_meta = {}, {}
    for name, (target, qa, block) in CONFIGS.items():
        args = QuantizationArgs(**qa)
        scale, zp, gs = observe(w, args)
        q, loss, fb = quantize_weight(w.clone()[None], h.clone()[None], scale[None], zp[None],
                                      None if gs is None else gs.reshape(-1)[:1], args, block, 0.01)
        q = q[0]
        # the effective scale of every element, as column_scale_window forms it
        if scale.numel() == 1:
            eff = scale.reshape(1, 1).expand(N, K)
        elif scale.shape[-1] == 1:
            eff = scale.expand(N, K)
        else:
            eff = scale.repeat_interleave(args.group_size, dim=1)
        if gs is not None:
            eff = eff / gs.reshape(1, 1)
        v = q / eff
        if target == "fp8":
            codes = v.to(torch.float8_e4m3fn)
            recon = codes.to(torch.float32) * eff
            out[f"{name}.codes"] = codes.view(torch.uint8).contiguous()
            out[f"{name}.scale"] = scale.to(torch.float32).reshape(-1).contiguous()
        else:
            grid = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])
            mag = (v.abs().unsqueeze(-1) - grid).abs().argmin(-1)
            neg = torch.signbit(v)  # a negative zero keeps its sign bit, as cast_to_fp4's sign(x) · 0 does
            recon = torch.where(neg, -grid[mag], grid[mag]) * eff
            nib = mag | torch.where(neg, 8, 0)
            out[f"{name}.codes"] = (nib[:, 0::2] | (nib[:, 1::2] << 4)).to(torch.uint8).contiguous()
            if target == "nvfp4":
                out[f"{name}.scale"] = scale.to(torch.float8_e4m3fn).view(torch.uint8).contiguous()
                out[f"{name}.global_scale"] = gs.reshape(1).to(torch.float32).contiguous()
            else:
                e = torch.log2(scale.to(torch.float64)) + 127
                assert torch.equal(e, e.round()), "an MXFP4 scale that is not a power of two"
                out[f"{name}.scale"] = e.to(torch.uint8).contiguous()
        bad = (recon != q).sum().item()
        if bad:
            print(f"{name}: {bad} values of llm-compressor's result are off their column's grid", file=sys.stderr)
        cfg_meta[name] = {"target": target, "args": jsonable(qa), "block_size": block, "dampening": 0.01,
                          "loss": float(loss[0]), "rtn_fallback": bool(fb[0])}
        print(f"{name}: loss {float(loss[0]):.6g}")
    meta = {"format": "quantscope-gptq-golden-fp", "rows": str(N), "cols": str(K), "samples": str(R),
            "configs": json.dumps(cfg_meta), "llmcompressor": __import__("llmcompressor").__version__,
            "compressed_tensors": __import__("compressed_tensors").__version__, "torch": torch.__version__}
    save_file(out, a.out, metadata=meta)
    print(f"wrote {a.out}: {os.path.getsize(a.out)} bytes")


if __name__ == "__main__":
    main()
