#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""llm-compressor 0.14's AWQ scale search on the GPU, on the W and X qs_bench_gpu_awq wrote with
--tensor-out (W BF16 N×K, X FP32 rows×K), beside our device search (gpu_awq.json in --out).

The search is AWQModifier._compute_best_scale (modifiers/transform/awq/base.py), a method of a
pydantic Modifier that reads the session (active_session), its hooks' caches and the observers'
registry. Loading only base.py under stub parent packages (types.ModuleType with __path__, so that
llmcompressor/__init__.py does not run) does not get it: base.py imports llmcompressor.core, whose
lifecycle imports llmcompressor.recipe, which imports llmcompressor.modifiers — the whole package
(datasets, pandas, transformers…). So what is timed is an exact PyTorch re-implementation of that
method's loop — the same ops in the same order and dtypes, on the GPU (`reimplementation` below):
  _compute_layer_means (|W| / (chunk amax + 1e-6), sum over rows in FP64, / rows), x_mean = x_sum /
  count, per grid point (_get_grid_search_params) the scales, W·s copied into the layer's dtype, the
  memoryless_minmax observer (amin/amax per group) and compressed-tensors' calculate_qparams, the
  fused fake quantization (_quantize_dequantize: x/scale + zp, clamp, round, (q − zp)·scale), / s back
  to the layer's dtype, the parent's forward F.linear(X, Ŵ) and _compute_loss's mse_loss(sum)/numel.
With --wheels DIR (the unpacked llmcompressor and compressed-tensors wheels) the script also tries
the real method with the whole package importable from DIR, as scripts/gptq/make-awq-golden.py
drives it; when that import works the real method is timed too and its grid losses are compared
with the re-implementation's (`real_vs_reimplementation_max_rel`); when it fails the JSON says why.
Checked on the CPU against the real method (torch 2.15, compressed-tensors 0.20, llm-compressor
0.14, 256×512, 32 and 64 rows): the same grid losses bit for bit in FP32 and BF16.
The layer's dtype: FP32 (what our CPU reference and the goldens use) and BF16 (a BF16 model's layer).
Uses bench/torch_timing.py's `timed` (CUDA events, median of --repeats after a warm-up).
Writes awq_torch.json.

Usage: awq_torch.py --data DIR [--out DIR] [--wheels DIR] [--n N] [--k K] [--rows 64,512] [--grid 20]
                    [--group 128] [--repeats N] [--dtypes float32,bfloat16] [--device cuda|cpu]
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_timing import timed  # noqa: E402  bench/torch_timing.py, beside this script


def grid_params(n_grid, duo):
    """AWQModifier._get_grid_search_params."""
    if duo == "both":
        n = int(n_grid / 2)
        return [(i / (n - 1), d) for i in range(n) for d in [False, True]]
    if duo is False:
        return [(i / (n_grid - 1), False) for i in range(n_grid)]
    return [(0.0, False)] + [(i / (n_grid - 2), True) for i in range(n_grid - 1)]


def layer_means(weight, chunk_size):
    """AWQModifier._compute_layer_means for one layer (group or channel strategy)."""
    weight = weight.clone()
    orig_shape = weight.shape
    weight = weight.reshape(-1, chunk_size)
    weight.abs_()
    weight.div_(weight.amax(dim=1, keepdim=True) + 1e-6)
    weight = weight.reshape(orig_shape)
    return weight.sum(0, dtype=torch.float64) / weight.size(0)


def qparams(ws, bits, group, symmetric):
    """memoryless_minmax (_get_min_max over each group) + compressed-tensors' calculate_qparams."""
    n, k = ws.shape
    observed = ws.reshape(n, k // group, group) if group else ws.reshape(n, 1, k)
    min_vals = torch.amin(observed, dim=-1)
    max_vals = torch.amax(observed, dim=-1)
    min_vals = torch.min(min_vals, torch.zeros_like(min_vals))
    max_vals = torch.max(max_vals, torch.zeros_like(max_vals))
    bit_min = torch.tensor(-(1 << (bits - 1)), device=ws.device)
    bit_max = torch.tensor((1 << (bits - 1)) - 1, device=ws.device)
    bit_range = bit_max - bit_min
    if symmetric:
        max_val_pos = torch.max(torch.abs(min_vals), torch.abs(max_vals))
        scales = max_val_pos / (bit_range.to(max_val_pos.dtype) / 2)
        zero_points = torch.zeros(scales.shape, device=ws.device, dtype=min_vals.dtype)
    else:
        scales = (max_vals - min_vals) / bit_range.to(max_vals.dtype)
        zero_points = bit_min - (min_vals / scales)
        zero_points = torch.clamp(zero_points, bit_min, bit_max)
    eps = torch.finfo(scales.dtype).eps
    scales = torch.where(scales == 0, torch.tensor(eps, dtype=scales.dtype, device=ws.device), scales)
    zero_points = torch.round(torch.clamp(zero_points, -128, 127)).to(torch.int8)  # zp_dtype int8
    return scales, zero_points, bit_min, bit_max


def fake_quantize(ws, scale, zp, bit_min, bit_max, group, symmetric):
    """_process_group / _apply_quantize_op → _quantize_dequantize (INT, no global scale)."""
    n, k = ws.shape
    x = ws.unflatten(-1, (k // group, group)) if group else ws.unsqueeze(1)
    scale = scale.unsqueeze(-1)
    zp = zp.unsqueeze(-1)
    scaled = x / scale
    scaled += zp.to(x.dtype)  # the initialised layer has a zero point in both modes (0 when symmetric)
    quantized = torch.round(torch.clamp(scaled, bit_min, bit_max))
    dequant = quantized.to(scale.dtype)
    dequant = dequant - zp.to(scale.dtype)
    dequant = dequant * scale
    return dequant.flatten(start_dim=-2).to(ws.dtype) if group else dequant.squeeze(1).to(ws.dtype)


def search(w, x, x_sum, count, bits, group, symmetric, n_grid, duo, fp16_outputs, losses):
    best_error, best_scales = float("inf"), None
    x_mean = x_sum / count
    w_mean = layer_means(w, group if group else w.shape[1]) if duo else None
    for ratio, use_duo in grid_params(n_grid, duo):
        if use_duo:
            scales = (x_mean.pow(ratio) / (w_mean.pow(1 - ratio) + 1e-4)).clamp(min=1e-4)
        else:
            scales = x_mean.pow(ratio).clamp(min=1e-4).view(-1)
        scales = scales / (scales.max() * scales.min()).sqrt()
        scales[torch.isinf(scales)] = 1
        scales[torch.isnan(scales)] = 1
        sv = scales.view(1, -1)
        weight = torch.empty_like(w)
        weight.copy_(w * sv)  # balance_layer.weight.data.copy_(orig * s): the layer's dtype
        scale, zp, bmin, bmax = qparams(weight, bits, group, symmetric)
        weight = (fake_quantize(weight, scale, zp, bmin, bmax, group, symmetric) / sv).to(w.dtype)
        out = torch.nn.functional.linear(x, weight)
        loss = torch.tensor(0.0, device=w.device)
        loss += torch.nn.functional.mse_loss(fp16_outputs, out, reduction="sum")
        loss = (loss / fp16_outputs.numel()).item()
        losses.append(loss)
        if loss < best_error:
            best_error, best_scales = loss, scales.clone()
    return best_scales


def real_search_factory(wheels):
    """The real AWQModifier._compute_best_scale (whole package from `wheels`), or the import error."""
    if wheels:
        sys.path.insert(0, wheels)
    try:
        from compressed_tensors.quantization import (QuantizationArgs, QuantizationScheme,
                                                     disable_quantization)
        from compressed_tensors.quantization.lifecycle.initialize import initialize_module_for_quantization
        from llmcompressor.modifiers.transform.awq import AWQModifier
        from llmcompressor.modifiers.transform.awq.mappings import ResolvedMapping
        from llmcompressor.utils.helpers import calibration_forward_context
    except Exception as e:  # noqa: BLE001 - any missing dependency
        return None, f"{type(e).__name__}: {e}"

    def run(w, x, x_sum, count, bits, group, symmetric, n_grid, duo, losses):
        n, k = w.shape
        lin = torch.nn.Linear(k, n, bias=False, device=w.device, dtype=w.dtype)
        lin.weight.data.copy_(w)
        qa = dict(num_bits=bits, symmetric=symmetric)
        qa.update(dict(strategy="group", group_size=group) if group else dict(strategy="channel"))
        initialize_module_for_quantization(lin, QuantizationScheme(targets=["Linear"],
                                                                   weights=QuantizationArgs(**qa)))
        lin.apply(disable_quantization)
        mod = AWQModifier(n_grid=n_grid, duo_scaling=duo)
        mapping = ResolvedMapping(smooth_name="smooth", smooth_layer=torch.nn.Identity(), balance_layers=[lin],
                                  balance_names=["w"], parent=lin, parent_name="w")
        mod._smooth_activation_stats["smooth"] = [x_sum, count]
        with torch.no_grad(), calibration_forward_context(lin):
            fp = [lin(x)]
            mod._run_samples = lambda module: [lin(x)]
            compute = mod._compute_loss
            mod._compute_loss = lambda a_, b_: losses.append(compute(a_, b_)) or losses[-1]
            return mod._compute_best_scale(mapping, fp, {lin: w.clone()})

    return run, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="qs_bench_gpu_awq --tensor-out DIR")
    ap.add_argument("--out", default=".")
    ap.add_argument("--wheels", default="", help="unpacked llmcompressor + compressed-tensors wheels")
    # Shape, rows, grid and group default to gpu_awq.json's in --out (else 14336, 4096, 64,512, 20, 128).
    ap.add_argument("--n", type=int)
    ap.add_argument("--k", type=int)
    ap.add_argument("--rows")
    ap.add_argument("--grid", type=int)
    ap.add_argument("--group", type=int)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--dtypes", default="float32,bfloat16")
    ap.add_argument("--device", default="cuda")
    a = ap.parse_args()
    ours_path = os.path.join(a.out, "gpu_awq.json")
    ours = json.load(open(ours_path)) if os.path.exists(ours_path) else None
    mine = ours or {"n": 14336, "k": 4096, "n_grid": 20, "group": 128, "results": [{"rows": 64}, {"rows": 512}]}
    a.n = a.n or mine["n"]
    a.k = a.k or mine["k"]
    a.grid = a.grid or mine["n_grid"]
    a.group = a.group or mine["group"]
    a.rows = a.rows or ",".join(str(e["rows"]) for e in mine["results"])
    dev = torch.device(a.device)
    n, k = a.n, a.k
    rows = [int(r) for r in a.rows.split(",") if r]
    raw = np.fromfile(os.path.join(a.data, "w_bf16.bin"), dtype=np.uint16).astype(np.int32)
    w32 = (torch.from_numpy(raw).to(dev) << 16).view(torch.float32).reshape(n, k)  # BF16 bits → FP32 exactly
    xall = torch.from_numpy(np.fromfile(os.path.join(a.data, "x_f32.bin"), dtype=np.float32)).to(dev)
    xall = xall.reshape(-1, k)
    real, real_error = real_search_factory(a.wheels) if a.wheels else (None, "no --wheels given")
    if xall.shape[0] < max(rows):
        sys.exit(f"{a.data}/x_f32.bin holds {xall.shape[0]} rows, fewer than {max(rows)}")

    def clock(fn):
        if dev.type == "cuda":
            return timed(fn, a.repeats)
        ts, out = [], None
        for _ in range(a.repeats):
            t0 = time.perf_counter()
            out = fn()
            ts.append(1e3 * (time.perf_counter() - t0))
        return statistics.median(ts), out

    results = []
    for dtype_name in [d for d in a.dtypes.split(",") if d]:
        dt = getattr(torch, dtype_name)
        w = w32.to(dt)
        for r in rows:
            x = xall[:r].to(dt)
            x_sum = x.abs().float().sum(dim=0)  # the activation hook's FP32 Σ|x|, before the search
            count = torch.tensor(r, device=dev)
            fp = torch.nn.functional.linear(x, w)
            args = (w, x, x_sum, count, 4, a.group, True, a.grid, True)
            losses = []
            ms, _ = clock(lambda: search(*args, fp, losses.clear() or losses))
            entry = {"dtype": dtype_name, "rows": r, "reimplementation_median_ms": ms, "losses": list(losses),
                     "best": int(np.argmin(losses))}
            if real is not None:
                rl = []
                rms, _ = clock(lambda: real(*args, rl.clear() or rl))
                entry["real_median_ms"] = rms
                entry["real_losses"] = list(rl)
                entry["real_vs_reimplementation_max_rel"] = max(
                    abs(p - q) / abs(q) if q else abs(p) for p, q in zip(losses, rl))
            mine = next((e for e in ours["results"] if e["rows"] == r), None) if ours else None
            if mine:
                entry["ours_device_median_ms"] = mine["device_median_ms"]
                entry["torch_over_ours"] = ms / mine["device_median_ms"]
                ol = [p["loss"] for p in mine["grid"]]
                entry["ours_vs_torch_loss_max_rel"] = max(abs(p - q) / abs(p) for p, q in zip(ol, losses))
                entry["best_equal_to_ours"] = entry["best"] == mine["best"]
            print(json.dumps({key: v for key, v in entry.items() if "losses" not in key}))
            results.append(entry)
    doc = {"benchmark": "awq_torch", "torch": torch.__version__,
           "device": torch.cuda.get_device_name() if dev.type == "cuda" else "cpu", "n": n, "k": k,
           "group": a.group, "bits": 4, "n_grid": a.grid, "duo_scaling": True, "repeats": a.repeats,
           "timed": "reimplementation of llm-compressor 0.14 AWQModifier._compute_best_scale's loop (same ops, "
                    "same dtype, on the GPU; its grid losses equal the real method's bit for bit on the CPU); "
                    "fp16_outputs = parent(X) computed before the method, not timed",
           "why_reimplementation": "base.py imports llmcompressor.core → recipe → llmcompressor.modifiers: the "
                                   "whole package; stub parent packages cannot load the method alone",
           "real_method": "timed too" if real is not None else f"not available: {real_error}",
           "results": results}
    os.makedirs(a.out, exist_ok=True)
    json.dump(doc, open(os.path.join(a.out, "awq_torch.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
