#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes tests/interop/golden/<case>/: checkpoints that AMD Quark and compressed-tensors
themselves quantized and exported from the real stories260K weights (issue 16, step 1).

Run through scripts/interop/make-toolkit-goldens.sh, which creates the virtual environment with
the pinned toolkit versions. Needs PyTorch, transformers, safetensors, amd-quark,
compressed-tensors; no GPU.

The model is loaded as a `LlamaForCausalLM` from the shared model.safetensors with a
Hugging Face config written here (the values of the shared config.json, which is already in
LlamaConfig form). Only the first LAYERS decoder layers are instantiated (default 2): the
per-module weight quantization of layers 0 and 1 is exactly what the full model gives (every
weight observer here looks at its own module only), and the files the toolkits write stay
small enough to commit untouched.

Each case folder holds what the toolkit wrote (model.safetensors, config.json; nothing is
rewritten by this script) plus
  expected_dequant.safetensors  <module>.weight: the toolkit's own dequantized weight, at the
                                true shape, in the toolkit's output dtype (F32 here)
  expected_codes.safetensors    <module>.codes (and stage-wise tensors, see MANIFEST.json)
  MANIFEST.json                 toolkit versions, case parameters, per-module self-checks
A case the toolkit refuses gets a folder with MANIFEST.json only (status "refused" and the
toolkit's message).
"""
import argparse
import copy
import gc
import json
import os
import re
import shutil
import sys
import traceback
from importlib.metadata import version as pkg_version

import torch
from safetensors.torch import load_file, save_file

torch.manual_seed(0)

MODULES = ["self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
           "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"]

# The values of /work/shared/data/stories260K/config.json (checked against it at run time),
# as the Hugging Face LlamaConfig the loader needs.
HF_CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
    "intermediate_size": 172, "num_hidden_layers": 5, "num_attention_heads": 8,
    "num_key_value_heads": 4, "head_dim": 8, "vocab_size": 512,
    "max_position_embeddings": 512, "rms_norm_eps": 1e-05, "rope_theta": 10000.0,
    "hidden_act": "silu", "tie_word_embeddings": True, "bos_token_id": 1, "eos_token_id": 2,
    "torch_dtype": "float32",
}


def versions():
    out = {"python": sys.version.split()[0]}
    for p in ["torch", "transformers", "safetensors", "amd-quark", "compressed-tensors", "numpy"]:
        try:
            out[p] = pkg_version(p)
        except Exception:  # noqa: BLE001
            out[p] = None
    return out


def load_model(shared, layers):
    from transformers import LlamaConfig, LlamaForCausalLM
    shared_cfg = json.load(open(os.path.join(shared, "config.json")))
    for k, v in HF_CONFIG.items():
        if k in shared_cfg and shared_cfg[k] != v:
            sys.exit(f"shared config.json differs from HF_CONFIG at {k}: {shared_cfg[k]} vs {v}")
    cfg = dict(HF_CONFIG)
    cfg["num_hidden_layers"] = layers
    config = LlamaConfig(**cfg)
    model = LlamaForCausalLM(config)
    sd = load_file(os.path.join(shared, "model.safetensors"))
    sd = {k: v for k, v in sd.items()
          if not (k.startswith("model.layers.") and int(k.split(".")[2]) >= layers)}
    missing, unexpected = model.load_state_dict(sd, strict=False)
    if missing or unexpected:
        sys.exit(f"state dict mismatch: missing {missing}, unexpected {unexpected}")
    model.eval()
    return model


def linear_names(layers):
    return [f"model.layers.{i}.{m}" for i in range(layers) for m in MODULES]


def calib_data():
    g = torch.Generator().manual_seed(1234)
    return [torch.randint(3, 512, (1, 32), generator=g) for _ in range(4)]


def save_st(path, tensors):
    save_file({k: v.detach().contiguous().cpu() for k, v in tensors.items()}, path)


def write_manifest(folder, manifest):
    with open(os.path.join(folder, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=False)
        f.write("\n")


def clean_export(folder):
    # generation_config.json is written by transformers' save_pretrained and says nothing
    # about quantization; keep the toolkit's model.safetensors and config.json only.
    for extra in ["generation_config.json"]:
        p = os.path.join(folder, extra)
        if os.path.exists(p):
            os.remove(p)


# ------------------------------------------------------------------------------------------
# AMD Quark
# ------------------------------------------------------------------------------------------

def quark_cases():
    from quark.torch.quantization.config.config import (
        FP8E4M3PerTensorSpec, Int4PerChannelSpec, Int4PerGroupSpec, ProgressiveSpec)
    cases = []
    w4a8 = dict(
        weight=ProgressiveSpec(
            first_stage=FP8E4M3PerTensorSpec(observer_method="min_max", is_dynamic=False),
            second_stage=Int4PerChannelSpec(symmetric=True, scale_type="float",
                                            round_method="half_even", ch_axis=0,
                                            is_dynamic=False)).to_quantization_spec(),
        input_tensors=FP8E4M3PerTensorSpec(observer_method="min_max",
                                           is_dynamic=True).to_quantization_spec())
    cases.append(("w4a8_progressive", w4a8, {
        "weight": "ProgressiveSpec(FP8E4M3PerTensorSpec(min_max, static), Int4PerChannelSpec("
                  "symmetric=True, scale_type=float, round_method=half_even, ch_axis=0, static))",
        "input_tensors": "FP8E4M3PerTensorSpec(min_max, dynamic)",
        "exclude": ["*lm_head"],
        "note": "the published amd/Kimi-K2.5-W4A8 spec (docs/formats.md 'The published W4A8 "
                "recipe'); its exclude list names every dense Llama linear, so on this dense "
                "model only lm_head is excluded and all 7 linears of each layer are quantized"}))
    for sym in (True, False):
        tag = "sym" if sym else "asym"
        cases.append((f"int4_channel_{tag}", dict(weight=Int4PerChannelSpec(
            symmetric=sym, scale_type="float", round_method="half_even", ch_axis=0,
            is_dynamic=False).to_quantization_spec()), {
            "weight": f"Int4PerChannelSpec(symmetric={sym}, half_even, ch_axis=0, static)",
            "exclude": ["*lm_head"], "weight_only": True}))
    for g in (4, 32):
        for sym in (True, False):
            tag = "sym" if sym else "asym"
            cases.append((f"int4_group{g}_{tag}", dict(weight=Int4PerGroupSpec(
                symmetric=sym, scale_type="float", round_method="half_even", ch_axis=1,
                group_size=g, is_dynamic=False).to_quantization_spec()), {
                "weight": f"Int4PerGroupSpec(symmetric={sym}, half_even, ch_axis=1, "
                          f"group_size={g}, static)",
                "exclude": ["*lm_head"], "weight_only": True}))
    cases.append(("fp8_w8a8", dict(
        weight=FP8E4M3PerTensorSpec(observer_method="min_max", is_dynamic=False)
        .to_quantization_spec(),
        input_tensors=FP8E4M3PerTensorSpec(observer_method="min_max", is_dynamic=False)
        .to_quantization_spec()), {
        "weight": "FP8E4M3PerTensorSpec(min_max, static)",
        "input_tensors": "FP8E4M3PerTensorSpec(min_max, static), calibrated on 4 seeded "
                         "random sequences of 32 token ids (activation scales are not golden)",
        "exclude": ["*lm_head"]}))
    return cases


def quark_stage_list(wq):
    from quark.torch.quantization.tensor_quantize import SequentialQuantize
    return list(wq) if isinstance(wq, SequentialQuantize) else [wq]


def quark_codes(module):
    """Codes exactly as Quark's export computes them before packing
    (export/nn/modules/realquantizer.py SequentialRealQuantizer.to_real_quantize_params and
    StaticScaledRealQuantizer.to_real_quantize_params): stage by stage, the stage's input cast
    back to the weight's float dtype, quark.torch.kernel.scaled_real_quantize."""
    import quark.torch.kernel  # noqa: F401
    from quark.torch.quantization.utils import calculate_qmin_qmax
    stages = quark_stage_list(module.weight_quantizer)
    x = module.weight.detach()
    dtype = x.dtype
    out = []
    for st in stages:
        qmin, qmax = calculate_qmin_qmax(st.dtype)
        zp = st.zero_point.to(torch.int) if getattr(st, "zero_point", None) is not None else None
        x = quark.torch.kernel.scaled_real_quantize(
            st.dtype.value, x.to(dtype), st.scale, zp, st.ch_axis, st.group_size,
            qmin, qmax, st.round_method, st.qscheme_str_name)
        out.append((st, x))
    return out


def quark_dequant_codes(stages, dtype):
    """Quark's own dequantization of the codes (kernel.dequantize, stages in reverse), as its
    importer and SequentialQuantize._apply_reverse_dequantization do."""
    import quark.torch.kernel  # noqa: F401
    x = stages[-1][1]
    for st, _ in reversed(stages):
        zp = st.zero_point.to(torch.int) if getattr(st, "zero_point", None) is not None else None
        x = quark.torch.kernel.dequantize(st.dtype.value, x.to(dtype), st.scale, zp,
                                          st.ch_axis, st.group_size, st.qscheme_str_name)
    return x.to(dtype)


def quark_reimport(folder, deq, args):
    """Quark's own importer (quark.torch.export.api.import_model_from_safetensors) on what it
    just exported: does it reload, and does its dequantized weight equal expected_dequant?"""
    from quark.torch.export.api import import_model_from_safetensors
    model = load_model(args.shared, args.layers)
    try:
        model = import_model_from_safetensors(model, folder)
    except Exception as e:  # noqa: BLE001
        msg = f"{type(e).__name__}: {e}"
        return {"status": "import failed", "message": [ln.strip() for ln in msg.splitlines()]}
    equal, differ = [], {}
    with torch.no_grad():
        for n in linear_names(args.layers):
            m = model.get_submodule(n)
            w = m.weight_quantizer(m.weight) if hasattr(m, "weight_quantizer") \
                else m.get_dequantized_weight()
            e = deq[f"{n}.weight"]
            if tuple(w.shape) == tuple(e.shape) and bool((w == e).all()):
                equal.append(n)
            else:
                differ[n] = list(w.shape)
    return {"status": "ok", "modules_equal_to_expected_dequant": len(equal),
            "modules_differing": differ}


def run_quark_case(name, layer_cfg, params, pack, args, vers):
    from quark.torch import ModelQuantizer, export_safetensors
    from quark.torch.quantization.config.config import QConfig, QLayerConfig
    from quark.torch.utils import create_pack_method
    folder = os.path.join(args.out, f"quark_{name}_{pack}")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    manifest = {"case": f"quark_{name}_{pack}", "toolkit": "amd-quark", "versions": vers,
                "model": f"stories260K, layers 0..{args.layers - 1} (LlamaForCausalLM, F32)",
                "params": dict(params, pack_method=pack, weight_format="real_quantized",
                               export="quark.torch.export_safetensors(model, dir, "
                                      f"custom_mode='quark', pack_method='{pack}')"),
                "status": "ok", "notes": []}
    model = load_model(args.shared, args.layers)  # fresh for every export (export is in place)
    qcfg = QConfig(global_quant_config=QLayerConfig(**copy.deepcopy(layer_cfg)),
                   exclude=list(params["exclude"]))
    try:
        model = ModelQuantizer(qcfg).quantize_model(model, calib_data())
    except Exception as e:  # noqa: BLE001
        manifest["status"] = "refused"
        manifest["refused_at"] = "ModelQuantizer.quantize_model"
        manifest["message"] = f"{type(e).__name__}: {e}"
        manifest["traceback_tail"] = traceback.format_exc().strip().splitlines()[-6:]
        write_manifest(folder, manifest)
        print(f"{manifest['case']}: refused: {manifest['message']}")
        return manifest

    deq, codes, checks = {}, {}, {}
    names = linear_names(args.layers)
    with torch.no_grad():
        for n in names:
            m = model.get_submodule(n)
            wq = m.weight_quantizer
            fq = wq(m.weight.detach())  # Quark's fake-quant output (what the model computes with)
            stages = quark_codes(m)
            deq[f"{n}.weight"] = fq.to(m.weight.dtype)
            last = stages[-1][1]
            codes[f"{n}.codes"] = last.to(torch.int8) if last.dtype == torch.int32 else last
            for i, (st, c) in enumerate(stages):
                sfx = "" if i == 0 else f"_{i + 1}"
                codes[f"{n}.weight_scale{sfx}"] = st.scale.detach().clone().reshape(st.scale.shape)
                if st.dtype.value.startswith("int") or st.dtype.value.startswith("uint"):
                    codes[f"{n}.weight_zero_point{sfx}"] = st.zero_point.detach().to(torch.int8)
                if i < len(stages) - 1:
                    codes[f"{n}.codes_stage{i + 1}"] = c
            dq = quark_dequant_codes(stages, m.weight.dtype)
            checks[n] = {"shape": list(m.weight.shape),
                         "fakequant_vs_dequant_of_codes_mismatches": int((dq != fq).sum()),
                         "fakequant_vs_dequant_max_abs": float((dq - fq).abs().max())}
            if checks[n]["fakequant_vs_dequant_of_codes_mismatches"]:
                codes[f"{n}.dequant_of_codes"] = dq
    export_safetensors(model, folder, custom_mode="quark", pack_method=pack)
    clean_export(folder)

    # Self-check: Quark's own unpack of what it wrote gives the codes back.
    exported = load_file(os.path.join(folder, "model.safetensors"))
    wspec = layer_cfg["weight"]
    last_spec = wspec[-1] if isinstance(wspec, list) else wspec
    pm = create_pack_method(qscheme=last_spec.qscheme.value, dtype=last_spec.dtype.value)
    for n in names:
        w = exported[f"{n}.weight"]
        checks[n]["stored"] = {k[len(n) + 1:]: [str(v.dtype).replace("torch.", ""),
                                                list(v.shape)]
                               for k, v in exported.items() if k.startswith(n + ".")}
        c = codes[f"{n}.codes"]
        if w.dtype == torch.int32 and c.dtype == torch.int8:
            scale_key = f"{n}.weight_scale_2" if f"{n}.weight_scale_2" in exported \
                else f"{n}.weight_scale"
            sc = exported[scale_key]
            kw = {"origin_packed_axis_size": sc.shape[-1]} if sc.dim() > 0 else {}
            try:
                # Pack_4_bits.unpack transposes per-group tensors back itself
                un = pm.unpack(w, pack == "reorder", **kw)
                same = tuple(un.shape) == tuple(c.shape) and bool((un.to(torch.int8) == c).all())
                checks[n]["quark_unpack_of_export_equals_codes"] = same
                if not same:
                    # Quark's unpack strips padding only along the packed axis' partner
                    # (origin_packed_axis_size, pack.py Pack_4_bits.unpack); record what is left
                    checks[n]["quark_unpack_shape"] = list(un.shape)
                    r, k = c.shape
                    if un.shape[0] >= r and un.shape[1] >= k:
                        checks[n]["quark_unpack_true_part_equals_codes"] = bool(
                            (un[:r, :k].to(torch.int8) == c).all())
                        pad = torch.cat([un[:r, k:].reshape(-1), un[r:, :].reshape(-1)])
                        checks[n]["quark_unpack_padding_values"] = sorted(
                            set(int(v) for v in pad.tolist()))
            except Exception as e:  # noqa: BLE001
                checks[n]["quark_unpack_of_export_equals_codes"] = f"unpack failed: {e}"
        elif w.dtype == torch.float8_e4m3fn:
            checks[n]["export_equals_codes"] = bool(
                (w.view(torch.uint8) == c.view(torch.uint8)).all())
    save_st(os.path.join(folder, "expected_dequant.safetensors"), deq)
    save_st(os.path.join(folder, "expected_codes.safetensors"), codes)
    manifest["quark_reimport"] = quark_reimport(folder, deq, args)
    manifest["modules"] = checks
    manifest["files"] = {
        "model.safetensors": "written by quark.torch.export_safetensors, untouched",
        "config.json": "written by quark.torch.export_safetensors (transformers "
                       "save_pretrained + Quark's quantization_config), untouched",
        "expected_dequant.safetensors": "<module>.weight = Quark's fake-quant output "
                                        "(module.weight_quantizer(weight)) in F32, true shape",
        "expected_codes.safetensors": "<module>.codes = final-stage codes before packing "
                                      "(INT4 as I8 at the true shape, FP8 as F8_E4M3), "
                                      "<module>.codes_stage1 = ProgressiveSpec's FP8 stage, "
                                      "<module>.weight_scale[_2] / weight_zero_point[_2] = "
                                      "Quark's in-memory qparams (untransposed, unpacked; "
                                      "per-group [N, K/g]); <module>.dequant_of_codes only "
                                      "where it differs from the fake-quant output"}
    write_manifest(folder, manifest)
    bad = [n for n, c in checks.items() if c["fakequant_vs_dequant_of_codes_mismatches"]]
    print(f"{manifest['case']}: ok; fake-quant != dequant(codes) on {len(bad)} modules")
    del model
    gc.collect()
    return manifest


# ------------------------------------------------------------------------------------------
# compressed-tensors
# ------------------------------------------------------------------------------------------

def ct_cases():
    from compressed_tensors.quantization import QuantizationArgs
    cases = []
    for bits in (4, 8):
        for strat, gs in (("group", 4), ("group", 32), ("channel", None)):
            for sym in (True, False):
                if strat == "group" and gs == 32 and bits == 8:
                    continue
                tag = f"w{bits}a16_{strat}{gs or ''}_{'sym' if sym else 'asym'}"
                w = QuantizationArgs(num_bits=bits, type="int", symmetric=sym, strategy=strat,
                                     group_size=gs if strat == "group" else None,
                                     actorder=None)
                cases.append((tag, w, None, "pack-quantized (inferred)"))
    cases.append(("w8a8_int_channel_sym", QuantizationArgs(
        num_bits=8, type="int", symmetric=True, strategy="channel"),
        QuantizationArgs(num_bits=8, type="int", symmetric=True, strategy="token",
                         dynamic=True), "int-quantized (inferred)"))
    cases.append(("w8a8_fp8_tensor", QuantizationArgs(
        num_bits=8, type="float", symmetric=True, strategy="tensor"),
        QuantizationArgs(num_bits=8, type="float", symmetric=True, strategy="token",
                         dynamic=True), "float-quantized (inferred)"))
    cases.append(("w8a8_fp8_channel", QuantizationArgs(
        num_bits=8, type="float", symmetric=True, strategy="channel"),
        QuantizationArgs(num_bits=8, type="float", symmetric=True, strategy="token",
                         dynamic=True), "float-quantized (inferred)"))
    cases.append(("nvfp4a16", QuantizationArgs(
        num_bits=4, type="float", symmetric=True, strategy="tensor_group", group_size=16,
        scale_dtype=torch.float8_e4m3fn), None, "nvfp4-pack-quantized (inferred)"))
    # Two groups with different formats: W8A8 INT8 attention (int-quantized) and 8-bit
    # weight-only MLP (pack-quantized); the top-level format becomes "mixed-precision" and
    # each module must be decoded by its own group's format.
    cases.append(("mixed_w8a8_attn_w8a16_mlp", [
        (["re:.*self_attn.*"], QuantizationArgs(num_bits=8, type="int", symmetric=True,
                                                strategy="channel"),
         QuantizationArgs(num_bits=8, type="int", symmetric=True, strategy="token",
                          dynamic=True)),
        (["re:.*mlp.*"], QuantizationArgs(num_bits=8, type="int", symmetric=True,
                                          strategy="channel"), None)],
        None, "mixed-precision: int-quantized attention, pack-quantized MLP (inferred)"))
    cases.append(("mixed_w8a8_attn_w8a16_mlp_toplevel_says_int_quantized", cases[-1][1], None,
                  "as mixed_w8a8_attn_w8a16_mlp; top-level format edited to int-quantized"))
    # K = 172 is not a multiple of 16, so down_proj is refused above; the same scheme with
    # down_proj left unquantized (as a user of the toolkit would have to) gives a golden.
    cases.append(("nvfp4a16_no_down_proj", QuantizationArgs(
        num_bits=4, type="float", symmetric=True, strategy="tensor_group", group_size=16,
        scale_dtype=torch.float8_e4m3fn), None, "nvfp4-pack-quantized (inferred)",
        ["lm_head", "re:.*down_proj$"]))
    return [c if len(c) == 5 else c + (["lm_head"],) for c in cases]


def ct_calibrate(model, names):
    """Weight qparams as llm-compressor's static memoryless min-max observer produces them:
    min/max over the strategy's reduction, then compressed-tensors' calculate_qparams (and
    generate_gparam for tensor_group). Only the reduction is written here; the scale and zero
    point math is the toolkit's."""
    from compressed_tensors.quantization.utils.helpers import calculate_qparams, generate_gparam
    with torch.no_grad():
        for n in names:
            m = model.get_submodule(n)
            args = m.quantization_scheme.weights
            W = m.weight.detach()
            strat = args.strategy.value if hasattr(args.strategy, "value") else args.strategy
            gscale = None
            if strat == "tensor":
                mn, mx = W.amin().reshape(1), W.amax().reshape(1)
            elif strat == "channel":
                mn, mx = W.amin(dim=1, keepdim=True), W.amax(dim=1, keepdim=True)
            elif strat in ("group", "tensor_group"):
                g = args.group_size
                N, K = W.shape
                ng = -(-K // g)
                if K % g:
                    # ragged last group: observe it over its real columns (llm-compressor pads
                    # nothing either; compressed-tensors' own group code decides what happens)
                    Wp = torch.nn.functional.pad(W, (0, ng * g - K), value=float("nan"))
                    Wg = Wp.reshape(N, ng, g)
                    mn = torch.nan_to_num(Wg, nan=float("inf")).amin(dim=2)
                    mx = torch.nan_to_num(Wg, nan=float("-inf")).amax(dim=2)
                else:
                    Wg = W.reshape(N, ng, g)
                    mn, mx = Wg.amin(dim=2), Wg.amax(dim=2)
                if strat == "tensor_group":
                    gscale = generate_gparam(W.amin(), W.amax())
                    m.weight_global_scale.data.copy_(gscale)
            else:
                raise ValueError(strat)
            scale, zp = calculate_qparams(mn, mx, args, global_scale=gscale)
            m.weight_scale.data = scale.to(m.weight_scale.dtype).reshape(m.weight_scale.shape)
            if hasattr(m, "weight_zero_point"):
                m.weight_zero_point.data = zp.to(m.weight_zero_point.dtype).reshape(
                    m.weight_zero_point.shape)


def hf_reload_check(folder, deq):
    """transformers' own loading path (AutoModelForCausalLM.from_pretrained with
    CompressedTensorsConfig(run_compressed=False), which decompresses while loading): does it
    load, and are its weights equal in value to expected_dequant?"""
    import logging
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging as hf_logging
    from transformers.utils.quantization_config import CompressedTensorsConfig
    hf_logging.set_verbosity_error()
    logging.disable(logging.WARNING)
    try:
        m = AutoModelForCausalLM.from_pretrained(
            folder, quantization_config=CompressedTensorsConfig(run_compressed=False),
            dtype=torch.float32)
    except Exception as e:  # noqa: BLE001
        return {"status": "load failed", "message": f"{type(e).__name__}: {e}"}
    finally:
        logging.disable(logging.NOTSET)
    equal, differ = 0, {}
    for k, v in deq.items():
        w = m.get_submodule(k[: -len(".weight")]).weight.detach()
        if tuple(w.shape) == tuple(v.shape) and bool((w.float() == v.float()).all()):
            equal += 1
        else:
            differ[k] = [str(w.dtype), list(w.shape)]
    return {"status": "ok", "modules_equal_in_value": equal, "modules_differing": differ,
            "note": "transformers casts to the model dtype (F32)"}


def run_ct_case(name, wargs, iargs, fmt_note, ignore, args, vers):
    # wargs is one QuantizationArgs (one group targeting every Linear) or a list of
    # (targets, weight args, input args) groups
    groups = wargs if isinstance(wargs, list) else [(["Linear"], wargs, iargs)]
    from compressed_tensors.compressors import ModelCompressor
    from compressed_tensors.quantization import (QuantizationConfig, QuantizationScheme,
                                                 QuantizationStatus, apply_quantization_config)
    from compressed_tensors.quantization.lifecycle.forward import fake_quantize
    folder = os.path.join(args.out, f"ct_{name}")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    manifest = {"case": f"ct_{name}", "toolkit": "compressed-tensors", "versions": vers,
                "model": f"stories260K, layers 0..{args.layers - 1} (LlamaForCausalLM, F32)",
                "params": {"config_groups": {
                               f"group_{i}": {
                                   "targets": t,
                                   "weights": json.loads(w.model_dump_json()),
                                   "input_activations": json.loads(a.model_dump_json())
                                   if a else None}
                               for i, (t, w, a) in enumerate(groups)},
                           "ignore": ignore,
                           "expected_format": fmt_note,
                           "flow": "apply_quantization_config; weight qparams by "
                                   "calculate_qparams over min/max (see toolkit_goldens.py "
                                   "ct_calibrate); ModelCompressor.from_pretrained_model(model)"
                                   ".compress_model(model); model.save_pretrained; "
                                   "compressor.update_config; then "
                                   "ModelCompressor.decompress_model on the reloaded "
                                   "checkpoint"},
                "status": "ok", "notes": []}
    model = load_model(args.shared, args.layers)
    names = [n for n in linear_names(args.layers)
             if not any(i.startswith("re:") and re.match(i[3:], n) for i in ignore)]
    try:
        qc = QuantizationConfig(
            config_groups={f"group_{i}": QuantizationScheme(
                targets=t, weights=w, input_activations=a)
                for i, (t, w, a) in enumerate(groups)},
            ignore=list(ignore), quantization_status=QuantizationStatus.INITIALIZED)
        apply_quantization_config(model, qc)
        ct_calibrate(model, names)
        fq = {}
        with torch.no_grad():
            for n in names:
                m = model.get_submodule(n)
                fq[n] = fake_quantize(m.weight.detach(), m.weight_scale, getattr(
                    m, "weight_zero_point", None), m.quantization_scheme.weights,
                    global_scale=getattr(m, "weight_global_scale", None))
        for n in names:
            model.get_submodule(n).quantization_status = QuantizationStatus.FROZEN
        compressor = ModelCompressor.from_pretrained_model(model)
        compressor.compress_model(model)
        model.save_pretrained(folder)
        compressor.update_config(folder)
        clean_export(folder)
        if name.endswith("_toplevel_says_int_quantized"):
            # The only hand edit in the goldens: issue 16's inconsistent config (top-level
            # format int-quantized, 8-bit weight-only modules stored pack-quantized), to show
            # the toolkit still decodes every module by its group's format.
            cp = os.path.join(folder, "config.json")
            cj = json.load(open(cp))
            manifest["notes"].append(
                "config.json edited after the toolkit wrote it: quantization_config.format "
                f"{cj['quantization_config']['format']!r} -> 'int-quantized' (nothing else)")
            cj["quantization_config"]["format"] = "int-quantized"
            with open(cp, "w") as f:
                json.dump(cj, f, indent=2, sort_keys=True)
    except Exception as e:  # noqa: BLE001
        manifest["status"] = "refused"
        manifest["message"] = f"{type(e).__name__}: {e}"
        manifest["traceback_tail"] = traceback.format_exc().strip().splitlines()[-6:]
        for f in os.listdir(folder):
            os.remove(os.path.join(folder, f))
        write_manifest(folder, manifest)
        print(f"{manifest['case']}: refused: {manifest['message']}")
        return manifest

    # Decompress what was written, with the toolkit, into a fresh model.
    stored = load_file(os.path.join(folder, "model.safetensors"))
    cfg = json.load(open(os.path.join(folder, "config.json")))["quantization_config"]
    model2 = load_model(args.shared, args.layers)
    qc2 = QuantizationConfig.model_validate(
        {k: v for k, v in cfg.items() if k in QuantizationConfig.model_fields})
    apply_quantization_config(model2, qc2)
    comp2 = ModelCompressor(quantization_config=qc2)
    # Put the stored tensors on the modules exactly as written (the loader's job).
    from compressed_tensors.compressors.base import get_direct_state_dict  # noqa: F401
    deq, codes, checks = {}, {}, {}
    with torch.no_grad():
        for n in names:
            m = model2.get_submodule(n)
            for pname in list(dict(m.named_parameters(recurse=False)).keys()) + \
                    list(dict(m.named_buffers(recurse=False)).keys()):
                if pname not in ("weight",) and f"{n}.{pname}" not in stored:
                    delattr(m, pname)
            if f"{n}.weight" not in stored and hasattr(m, "weight"):
                del m.weight
            for k, v in stored.items():
                if k.startswith(n + ".") and "." not in k[len(n) + 1:]:
                    pn = k[len(n) + 1:]
                    if hasattr(m, pn):
                        delattr(m, pn)
                    m.register_parameter(pn, torch.nn.Parameter(v.clone(), requires_grad=False))
            m.quantization_status = QuantizationStatus.COMPRESSED
    comp2.decompress_model(model2)
    with torch.no_grad():
        for n in names:
            m2 = model2.get_submodule(n)
            d = m2.weight.detach().clone()
            deq[f"{n}.weight"] = d
            fmt = m2.quantization_scheme.format
            fmt = fmt.value if hasattr(fmt, "value") else fmt
            checks[n] = {"format": fmt, "shape": list(d.shape),
                         "decompressed_vs_fakequant_mismatches": int((d != fq[n]).sum()),
                         "stored": {k[len(n) + 1:]: [str(v.dtype).replace("torch.", ""),
                                                     list(v.shape)]
                                    for k, v in stored.items() if k.startswith(n + ".")}}
            # Codes, unpacked by the toolkit's own helpers.
            if f"{n}.weight_packed" in stored and stored[f"{n}.weight_packed"].dtype == torch.int32:
                from compressed_tensors.compressors.pack_quantized.helpers import unpack_from_int32
                bits = m2.quantization_scheme.weights.num_bits
                shape = stored[f"{n}.weight_shape"]
                codes[f"{n}.codes"] = unpack_from_int32(
                    stored[f"{n}.weight_packed"], bits, shape).to(torch.int8)
                if f"{n}.weight_zero_point" in stored:
                    sc = stored[f"{n}.weight_scale"]
                    codes[f"{n}.weight_zero_point"] = unpack_from_int32(
                        stored[f"{n}.weight_zero_point"], bits,
                        (shape[0], sc.shape[-1]), packed_dim=0).to(torch.int8)
            elif f"{n}.weight_packed" in stored:
                from compressed_tensors.compressors.nvfp4.helpers import unpack_fp4_from_uint8
                p = stored[f"{n}.weight_packed"]
                codes[f"{n}.codes_value"] = unpack_fp4_from_uint8(
                    p, p.shape[0], p.shape[1] * 2, dtype=torch.float32)
            else:
                codes[f"{n}.codes"] = stored[f"{n}.weight"]
    save_st(os.path.join(folder, "expected_dequant.safetensors"), deq)
    if codes:
        save_st(os.path.join(folder, "expected_codes.safetensors"), codes)
    manifest["top_level_format"] = cfg.get("format")
    manifest["transformers_from_pretrained"] = hf_reload_check(folder, deq)
    manifest["modules"] = checks
    manifest["files"] = {
        "model.safetensors": "written by transformers save_pretrained after "
                             "ModelCompressor.compress_model, untouched",
        "config.json": "save_pretrained + ModelCompressor.update_config, untouched",
        "expected_dequant.safetensors": "<module>.weight = ModelCompressor.decompress_model "
                                        "output on the stored tensors, F32, true shape",
        "expected_codes.safetensors": "<module>.codes = the stored codes unpacked by the "
                                      "toolkit's helpers (I8 at the true shape; FP8 as stored); "
                                      "NVFP4: <module>.codes_value = unpack_fp4_from_uint8 "
                                      "values (F32); asymmetric: unpacked weight_zero_point"}
    write_manifest(folder, manifest)
    mism = sum(1 for c in checks.values() if c["decompressed_vs_fakequant_mismatches"])
    print(f"{manifest['case']}: ok; top-level format {cfg.get('format')}; "
          f"decompressed != fake-quant on {mism} modules")
    del model, model2
    gc.collect()
    return manifest


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default="/work/shared/data/stories260K")
    ap.add_argument("--out", required=True)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--only", choices=["quark", "ct", "all"], default="all")
    ap.add_argument("--case", default=None, help="substring filter on case names")
    ap.add_argument("--index-only", action="store_true", help="only rewrite INDEX.json")
    args = ap.parse_args()
    if args.index_only:
        write_index(args.out)
        return
    os.makedirs(args.out, exist_ok=True)
    vers = versions()
    summary = []
    if args.only in ("ct", "all"):
        for name, w, i, note, ign in ct_cases():
            if args.case and args.case not in name:
                continue
            r = run_ct_case(name, w, i, note, ign, args, vers)
            summary.append({"case": r["case"], "status": r["status"],
                            "message": r.get("message"), "top_level_format":
                            r.get("top_level_format")})
    if args.only in ("quark", "all"):
        for name, cfg, params in quark_cases():
            if args.case and args.case not in name:
                continue
            for pack in ("reorder", "order"):
                r = run_quark_case(name, cfg, params, pack, args, vers)
                summary.append({"case": r["case"], "status": r["status"],
                                "message": r.get("message")})
    print(json.dumps(summary, indent=1))
    write_index(args.out)


def write_index(out):
    """INDEX.json: every case folder with its toolkit, status, format and files, for tests."""
    index = []
    for case in sorted(os.listdir(out)):
        mp = os.path.join(out, case, "MANIFEST.json")
        if not os.path.exists(mp):
            continue
        m = json.load(open(mp))
        entry = {"case": case, "toolkit": m["toolkit"], "status": m["status"]}
        if m["status"] == "ok":
            entry["files"] = sorted(f for f in os.listdir(os.path.join(out, case))
                                    if f != "MANIFEST.json")
            entry["modules"] = sorted(m["modules"])
            if "top_level_format" in m:
                entry["top_level_format"] = m["top_level_format"]
            if m["toolkit"] == "amd-quark":
                entry["pack_method"] = m["params"]["pack_method"]
        else:
            entry["message"] = m["message"]
        index.append(entry)
    with open(os.path.join(out, "INDEX.json"), "w") as f:
        json.dump({"versions": versions(), "cases": index}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
