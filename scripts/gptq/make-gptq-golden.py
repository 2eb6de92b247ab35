#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes tests/data/gptq/stories260K.gptq.safetensors: llm-compressor's own GPTQ on the
stories260K modules of the committed capture (tests/data/capture/), the golden that
tests/core/numerics/test_gptq.cpp compares Quantscope's `gptq` method with.

For each module and configuration: H = 2·G in FP32 (G = the capture's `<stats>.input_gram`, what
GPTQModifier's accumulate_hessian gives for the same tokens), the observer's scale and zero
point on the original weight (llm-compressor's `memoryless_minmax` weight observer, through
compressed-tensors' calculate_qparams), then llm-compressor's
`modifiers.gptq.gptq_quantize.quantize_weight` (CPU, the eager block update) with the same
block size, dampening fraction and activation ordering. Stored per module and configuration:
`<cfg>/<module>.codes` (int8, clamp(round(Ŵ/s) + z)), `.scale` (FP32), `.zero_point` (int8,
asymmetric only) and `.fallback` when the Cholesky failed and llm-compressor fell back to RTN.

Usage (llm-compressor 0.14 in a venv that also has torch, compressed-tensors, safetensors):
  /tmp/qs-llmc-venv/bin/python scripts/gptq/make-gptq-golden.py [--out tests/data/gptq/stories260K.gptq.safetensors]
"""
import argparse
import json
import os
import sys

import torch
from safetensors import safe_open
from safetensors.torch import save_file

os.environ.setdefault("LLMCOMPRESSOR_DISABLE_GPTQ_TRITON", "1")
from compressed_tensors.quantization import QuantizationArgs  # noqa: E402
from llmcompressor.modifiers.gptq.gptq_quantize import quantize_weight  # noqa: E402
from llmcompressor.observers import Observer  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CAPTURE = os.path.join(ROOT, "tests/data/capture/stories260K.capture.safetensors")

# name: (quantization args, block size, dampening fraction, modules: "all" or a list)
LAYER0 = ["model.layers.0.self_attn.q_proj", "model.layers.2.self_attn.o_proj", "model.layers.3.mlp.up_proj"]
WITH_DOWN = LAYER0 + ["model.layers.0.mlp.down_proj"]
CONFIGS = {
    "w4g32": (dict(num_bits=4, strategy="group", group_size=32, symmetric=True), 128, 0.01, "all"),
    "w4g32_asym": (dict(num_bits=4, strategy="group", group_size=32, symmetric=False), 128, 0.01, LAYER0),
    "w3ch": (dict(num_bits=3, strategy="channel", symmetric=True), 128, 0.01, WITH_DOWN),
    "w4g16_b32_d01": (dict(num_bits=4, strategy="group", group_size=16, symmetric=True), 32, 0.1, LAYER0),
    "w4g32_weight": (dict(num_bits=4, strategy="group", group_size=32, symmetric=True, actorder="weight"), 128, 0.01,
                     LAYER0),
    "w4ch_static": (dict(num_bits=4, strategy="channel", symmetric=True, actorder="static"), 128, 0.01, WITH_DOWN),
    "w4g32_static": (dict(num_bits=4, strategy="group", group_size=32, symmetric=True, actorder="static"), 128, 0.01,
                     LAYER0),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "tests/data/gptq/stories260K.gptq.safetensors"))
    ap.add_argument("--model", default=os.path.join(ROOT, "../shared/data/stories260K/model.safetensors"))
    a = ap.parse_args()
    cap = safe_open(CAPTURE, "pt")
    modules = json.loads(cap.metadata()["modules"])
    model = safe_open(a.model, "pt")
    out, meta = {}, {"format": "quantscope-gptq-golden", "capture": "tests/data/capture/stories260K.capture.safetensors",
                     "llmcompressor": __import__("llmcompressor").__version__, "torch": torch.__version__}
    cfg_meta = {}
    for name, (qa, block, damp, which) in CONFIGS.items():
        # llm-compressor's observer refuses a K its group size does not divide (down_proj: K = 172)
        names = [m for m in modules if modules[m]["in_features"] % qa.get("group_size", 1) == 0] if which == "all" \
            else which
        cfg_meta[name] = {"args": qa, "block_size": block, "dampening": damp, "modules": names}
        for m in names:
            w = model.get_tensor(m + ".weight").to(torch.float32)
            g = cap.get_tensor(modules[m]["stats"] + ".input_gram").to(torch.float32)
            h = 2.0 * g
            args = QuantizationArgs(**qa)
            obs = Observer.load_from_registry("memoryless_minmax", base_name="weight", args=args)
            obs(w)
            qp = obs.get_qparams()
            scale, zp = qp["scale"], qp["zero_point"]
            q, _loss, fb = quantize_weight(w.clone()[None], h[None], scale[None], zp[None], None, args, block, damp)
            q = q[0]
            # codes: the grid point of each Ŵ under its column's scale (and zero point)
            n, k = w.shape
            if str(getattr(args.strategy, "value", args.strategy)) == "group":
                s_full = scale.repeat_interleave(args.group_size, dim=1)[:, :k]
                z_full = zp.repeat_interleave(args.group_size, dim=1)[:, :k]
            else:
                s_full, z_full = scale.expand(n, k), zp.expand(n, k)
            codes = torch.round(q / s_full) + z_full.to(torch.float32)
            lo, hi = -(1 << (args.num_bits - 1)), (1 << (args.num_bits - 1)) - 1
            recon = (codes - z_full) * s_full
            bad = (recon != q).sum().item()
            if bad:
                print(f"{name} {m}: {bad} values of llm-compressor's result are off their column's grid",
                      file=sys.stderr)
            out[f"{name}/{m}.codes"] = codes.clamp(lo, hi).to(torch.int8).contiguous()
            out[f"{name}/{m}.scale"] = scale.to(torch.float32).contiguous()
            if not args.symmetric:
                out[f"{name}/{m}.zero_point"] = zp.to(torch.int8).contiguous()
            if fb.any():
                out[f"{name}/{m}.fallback"] = torch.ones(1, dtype=torch.int8)
    meta["configs"] = json.dumps(cfg_meta)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    save_file(out, a.out, metadata=meta)
    print(f"wrote {a.out}: {len(out)} tensors, {os.path.getsize(a.out)} bytes")


if __name__ == "__main__":
    main()
