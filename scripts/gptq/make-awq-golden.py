#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes tests/data/gptq/stories260K.awq.safetensors: llm-compressor's own AWQ scale search
(AWQModifier._compute_best_scale, its grid, duo scaling, memoryless_minmax observer and
fake quantization) for stories260K modules, each searched as its own parent (the mapping of
up_proj -> down_proj and v_proj -> o_proj, where the parent is the balance layer itself), on the
captured sample of the module's input rows (tests/data/capture/). x_mean is that sample's mean |x|
(the modifier's activation hook fed with the same rows). tests/core/numerics/test_gptq.cpp
compares Quantscope's `awq` method with it.

Stored per configuration and module: `<cfg>/<module>.scales` (FP32: llm-compressor's FP64 best
scales rounded), `.best` (int32: the grid index), `.losses` (FP64, per grid point), `.codes`,
`.scale` and `.zero_point` of the smoothed weight W·diag(s*) under the modifier's observer.

Usage: /tmp/qs-llmc-venv/bin/python scripts/gptq/make-awq-golden.py [--out ...]
"""
import argparse
import json
import os

import torch  # noqa: E402
from safetensors import safe_open  # noqa: E402
from safetensors.torch import save_file  # noqa: E402

from compressed_tensors.quantization import QuantizationArgs, QuantizationScheme, disable_quantization  # noqa: E402
from compressed_tensors.quantization.lifecycle.initialize import initialize_module_for_quantization  # noqa: E402
from llmcompressor.modifiers.transform.awq import AWQModifier  # noqa: E402
from llmcompressor.modifiers.transform.awq.mappings import ResolvedMapping  # noqa: E402
from llmcompressor.observers import Observer  # noqa: E402
from llmcompressor.utils.helpers import calibration_forward_context  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CAPTURE = os.path.join(ROOT, "tests/data/capture/stories260K.capture.safetensors")
MODULES = ["model.layers.0.mlp.down_proj", "model.layers.1.self_attn.o_proj", "model.layers.2.mlp.down_proj",
           "model.layers.4.self_attn.o_proj"]
CONFIGS = {
    "w4g32": (dict(num_bits=4, strategy="group", group_size=32, symmetric=True), True, 20),
    "w4ch_asym": (dict(num_bits=4, strategy="channel", symmetric=False), True, 20),
    "w3ch_noduo": (dict(num_bits=3, strategy="channel", symmetric=True), False, 10),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "tests/data/gptq/stories260K.awq.safetensors"))
    ap.add_argument("--model", default=os.path.join(ROOT, "../shared/data/stories260K/model.safetensors"))
    a = ap.parse_args()
    cap = safe_open(CAPTURE, "pt")
    modules = json.loads(cap.metadata()["modules"])
    model = safe_open(a.model, "pt")
    out, cfg_meta = {}, {}
    for name, (qa, duo, n_grid) in CONFIGS.items():
        # llm-compressor refuses a K its group size does not divide (down_proj: K = 172)
        names = [m for m in MODULES if modules[m]["in_features"] % qa.get("group_size", 1) == 0]
        cfg_meta[name] = {"args": qa, "duo_scaling": duo, "n_grid": n_grid, "modules": names}
        for m in names:
            w = model.get_tensor(m + ".weight").to(torch.float32)
            x = cap.get_tensor(modules[m]["stats"] + ".input_sample").to(torch.float32)
            n, k = w.shape
            lin = torch.nn.Linear(k, n, bias=False)
            lin.weight.data.copy_(w)
            args = QuantizationArgs(**qa)
            initialize_module_for_quantization(lin, QuantizationScheme(targets=["Linear"], weights=args))
            # as QuantizationMixin.initialize_quantization: disabled until calibration, so the parent's
            # forward passes in the search use the weight as set (the search fake-quantizes it itself)
            lin.apply(disable_quantization)
            mod = AWQModifier(n_grid=n_grid, duo_scaling=duo)
            smooth = torch.nn.Identity()
            mapping = ResolvedMapping(smooth_name="smooth", smooth_layer=smooth, balance_layers=[lin],
                                      balance_names=[m], parent=lin, parent_name=m)
            # The hook's Σ|x| (FP32 in torch, in an order torch does not specify) taken exactly: FP64,
            # rounded once to FP32 (docs/numerics.md "AWQ": the scale search is this sensitive).
            x_sum = x.to(torch.float64).abs().sum(dim=0).to(torch.float32)
            mod._smooth_activation_stats["smooth"] = [x_sum, torch.tensor(x.shape[0])]
            mod._parent_args_cache[lin] = [{"input": x}]
            orig = {lin: lin.weight.clone()}
            # as AWQModifier._apply_smoothing: the parent runs with quantization disabled
            with torch.no_grad(), calibration_forward_context(lin):
                fp = [lin(x)]
                mod._run_samples = lambda module: [lin(x)]
                losses = []
                compute = mod._compute_loss
                mod._compute_loss = lambda a_, b_: losses.append(compute(a_, b_)) or losses[-1]
                best = mod._compute_best_scale(mapping, fp, orig)
            metrics = mod._error_metrics[-1]
            grid = mod._get_grid_search_params()
            s = best.to(torch.float64)
            ws = (orig[lin] * s.view(1, -1)).to(torch.float32)
            obs = Observer.load_from_registry("memoryless_minmax", base_name="weight", args=args)
            obs(ws)
            qp = obs.get_qparams()
            scale, zp = qp["scale"], qp["zero_point"]
            if args.strategy == "group":
                sf = scale.repeat_interleave(args.group_size, dim=1)[:, :k]
                zf = zp.repeat_interleave(args.group_size, dim=1)[:, :k]
            else:
                sf, zf = scale.expand(n, k), zp.expand(n, k)
            lo, hi = -(1 << (args.num_bits - 1)), (1 << (args.num_bits - 1)) - 1
            codes = torch.clamp(torch.round(ws / sf) + zf, lo, hi)
            out[f"{name}/{m}.scales"] = best.to(torch.float32).contiguous()
            out[f"{name}/{m}.scales64"] = best.to(torch.float64).contiguous()
            out[f"{name}/{m}.codes"] = codes.to(torch.int8).contiguous()
            out[f"{name}/{m}.scale"] = scale.to(torch.float32).contiguous()
            if not args.symmetric:
                out[f"{name}/{m}.zero_point"] = zp.to(torch.int8).contiguous()
            out[f"{name}/{m}.losses"] = torch.tensor(losses, dtype=torch.float64)
            out[f"{name}/{m}.best_error"] = torch.tensor([metrics["best_error"]], dtype=torch.float64)
            out[f"{name}/{m}.initial_error"] = torch.tensor([metrics["initial_error"]], dtype=torch.float64)
            print(name, m, "grid", len(grid), "best", metrics["best_error"], "initial", metrics["initial_error"])
    meta = {"format": "quantscope-awq-golden", "configs": json.dumps(cfg_meta),
            "llmcompressor": __import__("llmcompressor").__version__, "torch": torch.__version__}
    save_file(out, a.out, metadata=meta)
    print(f"wrote {a.out}: {len(out)} tensors, {os.path.getsize(a.out)} bytes")


if __name__ == "__main__":
    main()
