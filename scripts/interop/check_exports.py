"""Loads Quantscope's exports with the real toolkits (issue 26, step 5) and writes a small JSON
summary (tests/interop/golden/export_checks.json) that tests/core/plan/test_export_interop.cpp asserts.

Run through scripts/interop/check-exports.sh, which prepares the virtual environment. Checks:
  ct_<case>       quantscope-cli writes a compressed-tensors checkpoint of stories260K; the
                  toolkit's ModelCompressor decompresses it (into a LlamaForCausalLM built as
                  toolkit_goldens.py builds it) and every module's weight is compared with what
                  `quantscope-cli decode` gives, in the toolkit's output dtype (BF16 for NVFP4,
                  ours rounded to it): max |diff|, and an FNV-1a 64 hash of our decoded FP32
                  bytes (the C++ test recomputes the hash from its own decode).
  llmcompressor   llm-compressor's Recipe parses our recipe YAML into its modifiers.
  quark           Quark's QConfig.from_dict parses our quantization_config into its spec
                  objects; the specs' own to_dict must give back the weight entries we wrote.
A check that cannot run (a package that does not install or import) is recorded with the reason.
"""
import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

LM = [{"pattern": "lm_head", "dialect": "exact"}]


def rule(patterns, spec, dialect="fnmatch", overrides=None, name=""):
    r = {"patterns": patterns if isinstance(patterns, list) else [patterns], "dialect": dialect, "specs": [spec]}
    if name:
        r["name"] = name
    if overrides:
        r["overrides"] = overrides
    return r


def recipe(*rules, exclude=None):
    return {"quantscope_recipe": 1, "rules": list(rules), "exclude": exclude if exclude is not None else LM}


INT4G4 = {"method": "int", "bits": 4, "granularity": "group", "group": 4}
INT4G4A = dict(INT4G4, symmetric=False)
INT8CH = {"method": "int", "bits": 8, "granularity": "channel"}
INT8CHA = dict(INT8CH, symmetric=False)
INT4CH = {"method": "int", "bits": 4, "granularity": "channel"}
FP8CH = {"method": "fp8", "granularity": "channel"}
ALL = "*"

# The matrix (docs/formats.md "Checked by the toolkits"). kind:
#   ct           a compressed-tensors checkpoint, decompressed by ModelCompressor (and, with hf,
#                loaded by transformers' from_pretrained), compared with `quantscope-cli decode`;
#                each module's scheme as compressed-tensors resolved it is compared with the
#                recipe's (resolved in Python by the recipe's rule: exclude, then first rule).
#   quark_ckpt   a Quark real_quantized checkpoint, dequantized by Quark's own
#                StaticScaledRealQuantizer (unpack + kernel.dequantize) and compared with decode;
#                Quark's importer is tried too and its outcome recorded.
#   quark_config Quark's config only (its INT8 checkpoint layout is not written): every module is
#                resolved by Quark's own setup_config_per_layer and get_layer_quant_config on a
#                stories260K LlamaForCausalLM and compared with the recipe's scheme.
#   refused      our export must refuse; `key` is the phrase the C++ test asserts in our message.
# Every case: recipe, format, activations, default_excludes (false: --no-default-excludes),
# checkpoint ("stories" or "demo").
OVERLAP = recipe(rule("*layers.0.*", INT8CH, name="layer 0 int8"),
                 rule("*down_proj", INT4G4, name="down int4 g4",
                      overrides={"model.layers.1.mlp.down_proj": {"bits": 8}}),
                 rule(ALL, INT4G4, name="rest int4 g4"))
CASES = {
    # 1. one scheme per format
    "ct_w4a16_group4_sym": dict(kind="ct", recipe=recipe(rule(ALL, INT4G4)), hf=True),
    "ct_w4a16_group4_asym": dict(kind="ct", recipe=recipe(rule(ALL, INT4G4A))),
    "ct_w8a16_channel_sym": dict(kind="ct", recipe=recipe(rule(ALL, INT8CH))),
    "ct_w8a16_channel_asym": dict(kind="ct", recipe=recipe(rule(ALL, INT8CHA))),
    "ct_w8a8_fp8_channel": dict(kind="ct", recipe=recipe(rule(ALL, FP8CH)), activations="fp8-dynamic", hf=True),
    "ct_fp8_channel_weight_only": dict(kind="ct", recipe=recipe(rule(ALL, FP8CH))),
    "ct_nvfp4a16": dict(kind="ct", recipe=recipe(rule(ALL, {"method": "nvfp4"}),
                                                 exclude=LM + [{"pattern": ".*down_proj", "dialect": "re"}]),
                        nvfp4_global=True),
    "quark_int4_channel_sym": dict(kind="quark_ckpt", recipe=recipe(rule(ALL, INT4CH))),
    "quark_int4_group4_sym": dict(kind="quark_ckpt", recipe=recipe(rule(ALL, INT4G4))),
    "quark_int4_group4_asym_order": dict(kind="quark_ckpt", recipe=recipe(rule(ALL, INT4G4A)), pack="order"),
    "quark_w4a8_progressive": dict(kind="quark_ckpt", recipe=recipe(rule(ALL, {"method": "progressive"})),
                                   activations="fp8-dynamic"),
    # 2. mixed
    "ct_mixed_layer0_int8_rest_w4a16": dict(kind="ct", recipe=recipe(rule("*layers.0.*", INT8CH),
                                                                      rule(ALL, INT4G4)), hf=True),
    # 3. overlapping rules with an override
    "ct_overlap_override": dict(kind="ct", recipe=OVERLAP),
    "quark_overlap_override_config": dict(kind="quark_config", recipe=OVERLAP),
    # 4. ragged shapes
    "refused_ct_w4a16_group128": dict(kind="refused", recipe=recipe(rule(ALL, dict(INT4G4, group=128))),
                                      key="is not a multiple of group 128", ct_group128=True),
    "refused_quark_int4_group128": dict(kind="refused", format="quark",
                                        recipe=recipe(rule(ALL, dict(INT4G4, group=128))),
                                        key="is not a multiple of group 128", quark_group128=True),
    "refused_fp8_block128": dict(kind="refused", format="fp8-block",
                                 recipe=recipe(rule(ALL, {"method": "fp8", "granularity": "block", "block": 128})),
                                 key="FP8 blocks of 128 do not tile it"),
    "refused_ct_fp8_block128": dict(kind="refused",
                                    recipe=recipe(rule(ALL, {"method": "fp8", "granularity": "block", "block": 128})),
                                    key="FP8 blocks of 128 do not tile it"),
    # 5. fused groups with different schemes
    "refused_ct_fused_qk_int8_v_int4": dict(kind="refused", recipe=recipe(rule(["*q_proj", "*k_proj"], INT8CH),
                                                                          rule(ALL, INT4G4)),
                                            key="fused group model.layers.0.self_attn.{q,k,v}_proj"),
    # 6. static activation scales
    "refused_ct_fp8_static": dict(kind="refused", recipe=recipe(rule(ALL, FP8CH)), activations="fp8-static",
                                  key="static input scales come from calibration data"),
    # 7. the head: stories260K stores lm_head.weight (equal to embed_tokens, tie_word_embeddings true)
    "ct_lm_head_quantized": dict(kind="ct", default_excludes=False, hf=True,
                                 recipe=recipe(rule("lm_head", INT8CH, dialect="exact"), rule(ALL, INT4G4),
                                               exclude=[{"pattern": "model.embed_tokens", "dialect": "exact"}])),
    # 9. MoE experts of the demo checkpoint
    "ct_demo_moe_experts_w4a16": dict(kind="ct", checkpoint="demo",
                                      recipe=recipe(rule(r"model\.layers\.\d+\.mlp\.experts\.\d+\..*",
                                                         {"method": "int", "bits": 4, "granularity": "group",
                                                          "group": 128}, dialect="re"))),
}


def fnv1a64(data: bytes) -> str:
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def case_opts(c):
    return {"format": c.get("format", "compressed-tensors" if c["kind"] in ("ct", "refused") else "quark"),
            "activations": c.get("activations", "none"), "default_excludes": c.get("default_excludes", True),
            "pack_method": c.get("pack", "reorder"), "checkpoint": c.get("checkpoint", "stories")}


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()[-400:]}")
    return r.stdout


def export_cmd(cli, name, c, ckpt, tmp, out=None, config_only=False):
    o = case_opts(c)
    rpath = os.path.join(tmp, name + ".recipe.json")
    json.dump(c["recipe"], open(rpath, "w"))
    cmd = [cli, "export", "--recipe", rpath, "--format", o["format"], "--activations", o["activations"],
           "--pack-method", o["pack_method"], "--checkpoint", ckpt, "--quiet", "--device", "cpu"]
    if not o["default_excludes"]:
        cmd.append("--no-default-excludes")
    cmd += [out] if config_only else ["--out-dir", out]
    return cmd


def our_decode(cli, ckpt, module, tmp):
    import numpy as np
    out = os.path.join(tmp, module + ".npy")
    run([cli, "decode", ckpt, "--tensor", module, "--out", out])
    return np.load(out).astype("<f4")


def recipe_resolve(rec, module):
    """The recipe's rule (docs/formats.md "Recipes"): exclude first, then the first matching rule;
    returns the spec with the override applied, or None."""
    def match(p, dialect):
        if dialect == "exact":
            return module == p
        if dialect == "re":
            return re.fullmatch(p, module) is not None
        return fnmatch.fnmatchcase(module, p)
    for e in rec.get("exclude", []):
        e = e if isinstance(e, dict) else {"pattern": e}
        if match(e["pattern"], e.get("dialect", "fnmatch")):
            return None
    for r in rec["rules"]:
        if any(match(p, r.get("dialect", "fnmatch")) for p in r["patterns"]):
            spec = dict(r["specs"][0])
            spec.update(r.get("overrides", {}).get(module, {}))
            return spec
    return None


def expected_weight(spec):
    """The recipe's weight scheme as comparable fields (bits, type, strategy, group, symmetric)."""
    if spec is None:
        return None
    m = spec["method"]
    if m == "int":
        g = spec.get("granularity", "group")
        return {"type": "int", "bits": spec.get("bits", 4), "strategy": g,
                "group": spec.get("group", 128) if g == "group" else None, "symmetric": spec.get("symmetric", True)}
    if m == "fp8":
        return {"type": "float", "bits": 8, "strategy": spec.get("granularity", "channel"), "group": None,
                "symmetric": True}
    if m == "nvfp4":
        return {"type": "float", "bits": 4, "strategy": "tensor_group", "group": 16, "symmetric": True}
    return {"method": m}


def ct_weight_fields(scheme):
    if scheme is None or scheme.weights is None:
        return None
    w = scheme.weights
    return {"type": str(getattr(w.type, "value", w.type)), "bits": w.num_bits,
            "strategy": str(getattr(w.strategy, "value", w.strategy)), "group": w.group_size,
            "symmetric": w.symmetric}


def skeleton(ckpt_dir):
    """An nn.Module tree with an nn.Linear at every 2-D weight of a checkpoint whose architecture
    transformers does not know (the demo MoE), for ModelCompressor."""
    import torch
    from safetensors import safe_open
    idx = os.path.join(ckpt_dir, "model.safetensors.index.json")
    files = sorted(set(json.load(open(idx))["weight_map"].values())) if os.path.exists(idx) else ["model.safetensors"]
    root = torch.nn.Module()
    for fn in files:
        with safe_open(os.path.join(ckpt_dir, fn), "pt") as f:
            for k in f.keys():
                shape = f.get_slice(k).get_shape()
                if not k.endswith(".weight") or len(shape) != 2:
                    continue
                parts = k[: -len(".weight")].split(".")
                m = root
                for p in parts[:-1]:
                    if not hasattr(m, p):
                        m.add_module(p, torch.nn.Module())
                    m = getattr(m, p)
                lin = torch.nn.Linear(shape[1], shape[0], bias=False, dtype=torch.bfloat16)
                with torch.no_grad():
                    lin.weight.copy_(f.get_tensor(k).to(torch.bfloat16))
                m.add_module(parts[-1], lin)
    return root


def load_stored(out):
    from safetensors.torch import load_file
    idx = os.path.join(out, "model.safetensors.index.json")
    files = sorted(set(json.load(open(idx))["weight_map"].values())) if os.path.exists(idx) else ["model.safetensors"]
    stored = {}
    for fn in files:
        stored.update(load_file(os.path.join(out, fn)))
    return stored


def ct_check(name, c, cli, paths, tmp):
    import numpy as np
    import torch
    from compressed_tensors.compressors import ModelCompressor
    from compressed_tensors.quantization import (QuantizationConfig, QuantizationStatus,
                                                 apply_quantization_config)
    import toolkit_goldens as tg

    o = case_opts(c)
    src = paths[o["checkpoint"]]
    out = os.path.join(tmp, name)
    run(export_cmd(cli, name, c, src["ckpt"], tmp, out))
    stored = load_stored(out)
    full_cfg = json.load(open(os.path.join(out, "config.json")))
    cfg = full_cfg["quantization_config"]
    if o["checkpoint"] == "stories":
        model = tg.load_model(src["dir"], json.load(open(os.path.join(src["dir"], "config.json")))["num_hidden_layers"])
    else:
        model = skeleton(src["dir"])
    qc = QuantizationConfig.model_validate({k: v for k, v in cfg.items() if k in QuantizationConfig.model_fields})
    apply_quantization_config(model, qc)
    comp = ModelCompressor(quantization_config=qc)
    names = sorted({k.rsplit(".", 1)[0] for k in stored if k.endswith(("weight_packed", "weight_scale"))})
    # Which scheme compressed-tensors' own matching gave every Linear, against the recipe's.
    resolution, wrong = {}, []
    for n, m in model.named_modules():
        if isinstance(m, torch.nn.Linear):
            theirs = ct_weight_fields(getattr(m, "quantization_scheme", None))
            want = expected_weight(recipe_resolve(c["recipe"], n))
            if not o["default_excludes"] or not (n == "lm_head" or "embed" in n):
                pass
            elif want is not None:
                want = None  # kept dense by default
            resolution[n] = theirs
            if theirs != want:
                wrong.append({"module": n, "toolkit": theirs, "recipe": want})
    global_scales = nvfp4_global_check(model, stored, tmp) if c.get("nvfp4_global") else None
    with torch.no_grad():
        for n in names:  # the stored tensors on the modules, as the loader puts them
            m = model.get_submodule(n)
            for pname in list(dict(m.named_parameters(recurse=False))) + list(dict(m.named_buffers(recurse=False))):
                if pname != "weight" and f"{n}.{pname}" not in stored:
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
    comp.decompress_model(model)
    modules, worst, all_bytes, ours_by = {}, 0.0, b"", {}
    for n in names:
        w = model.get_submodule(n).weight.detach()
        theirs = w.to(torch.float32).numpy()
        ours = our_decode(cli, out, n, tmp)
        ours_by[n] = ours
        # Compared in the toolkit's output dtype (NVFP4 decompresses to BF16): ours rounded to it.
        ours_t = torch.from_numpy(ours).to(w.dtype).to(torch.float32).numpy()
        diff = float(np.max(np.abs(theirs.astype(np.float64) - ours_t.astype(np.float64)))) \
            if ours.size and theirs.shape == ours_t.shape else (0.0 if not ours.size else float("inf"))
        modules[n] = {"shape": list(ours.shape), "toolkit_dtype": str(w.dtype).replace("torch.", ""),
                      "max_abs_diff": diff, "ours_fnv1a64": fnv1a64(ours.tobytes())}
        worst = max(worst, diff)
        all_bytes += ours.tobytes()
    res = {"status": "passed" if worst == 0.0 and modules and not wrong else "failed",
           "recipe": c["recipe"], "activations": o["activations"], "default_excludes": o["default_excludes"],
           "checkpoint": o["checkpoint"], "format": cfg.get("format"),
           "toolkit": "compressed_tensors.compressors.ModelCompressor.decompress_model",
           "modules": modules, "max_abs_diff": worst, "ours_fnv1a64": fnv1a64(all_bytes),
           "resolution_equals_recipe": not wrong, "resolution_mismatches": wrong,
           "quantized_by_toolkit": sorted(k for k, v in resolution.items() if v is not None),
           "tie_word_embeddings_written": full_cfg.get("tie_word_embeddings")}
    if global_scales is not None:
        res["nvfp4_global_scale"] = global_scales
        if not global_scales["equal"]:
            res["status"] = "failed"
    if c.get("hf") and o["checkpoint"] == "stories":
        res["transformers"] = hf_check(out, ours_by)
        if res["transformers"].get("status") == "differs":
            res["status"] = "failed"  # loaded, but not our weights
        elif res["transformers"].get("status") != "ok":
            # transformers 5.24's CompressedTensorsDequantize conversion cannot load a checkpoint
            # with several config groups (it dequantizes some modules with another group's scheme,
            # "size of tensor a (32) must match the size of tensor b (16)"), while compressed-
            # tensors' own matching and ModelCompressor give every module the recipe's scheme and
            # our weights: recorded, not counted against the export.
            res["transformers"]["known_loader_limit"] = (
                "transformers 5.24 CompressedTensorsDequantize with several config_groups; compressed-tensors' "
                "own resolution and decompression of this file pass")
    return res


def nvfp4_global_check(model, stored, tmp):
    """One weight_global_scale per fused group (q/k/v, gate/up), as llm-compressor's
    update_fused_layer_weight_global_scales makes it: each member's own gparam (compressed-tensors'
    generate_gparam over its min/max), then the helper, compared with what we stored."""
    import torch
    from compressed_tensors.quantization.utils.helpers import generate_gparam
    helper, why = None, None
    try:
        from llmcompressor.modifiers.utils import update_fused_layer_weight_global_scales as helper
    except Exception as e:  # noqa: BLE001
        # llm-compressor 0.14 has no such helper: observers/fusion.py FusionHandler links the
        # members' observers and computes the global scale from the group's joint min/max.
        why = (f"{type(e).__name__}: {e} -- llm-compressor 0.14 replaced it by observers/fusion.py "
               "FusionHandler (the group's joint min/max); that rule is applied with compressed-tensors' "
               "generate_gparam")
    out = {"helper": "llmcompressor.modifiers.utils.update_fused_layer_weight_global_scales" if helper else None,
           "helper_unavailable": why, "groups": {}, "equal": True}
    with torch.no_grad():
        for name, mod in model.named_modules():
            if not name.endswith(("self_attn", "mlp")):
                continue
            members = [f"{name}.{m}" for m in (("q_proj", "k_proj", "v_proj") if name.endswith("self_attn")
                                               else ("gate_proj", "up_proj"))]
            mine = {}
            for mn in members:
                lin = model.get_submodule(mn)
                w = lin.weight.detach().float()
                g = generate_gparam(torch.minimum(w.min(), torch.zeros(())).reshape(1),
                                    torch.maximum(w.max(), torch.zeros(())).reshape(1))
                mine[mn] = g
                if hasattr(lin, "weight_global_scale"):
                    lin.weight_global_scale.data.copy_(g.reshape(lin.weight_global_scale.shape))
            if helper is not None:
                helper(mod)
                theirs = {mn: model.get_submodule(mn).weight_global_scale.detach().float().reshape(-1)[0].item()
                          for mn in members}
            else:  # FusionHandler's rule: one gparam over the group's joint min/max
                ws = [model.get_submodule(mn).weight.detach().float() for mn in members]
                lo = torch.minimum(torch.stack([w.min() for w in ws]).min(), torch.zeros(())).reshape(1)
                hi = torch.maximum(torch.stack([w.max() for w in ws]).max(), torch.zeros(())).reshape(1)
                theirs = dict.fromkeys(members, generate_gparam(lo, hi).item())
            ours = {mn: stored[f"{mn}.weight_global_scale"].float().reshape(-1)[0].item() for mn in members
                    if f"{mn}.weight_global_scale" in stored}
            if not ours:
                continue
            eq = all(ours[mn] == theirs[mn] for mn in ours) and len(set(ours.values())) == 1
            out["groups"][name] = {"ours": sorted(set(ours.values())), "toolkit": sorted(set(theirs.values())),
                                   "members_own": {k: v.item() for k, v in mine.items()}, "equal": eq}
            out["equal"] = out["equal"] and eq
    return out


def hf_check(folder, ours_by):
    """transformers' own loader (AutoModelForCausalLM.from_pretrained with CompressedTensorsConfig
    (run_compressed=False): decompresses while loading); Linear weights against our decode, and
    one forward pass on a few tokens."""
    import logging
    import numpy as np
    import torch
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging as hf_logging
    from transformers.utils.quantization_config import CompressedTensorsConfig
    hf_logging.set_verbosity_error()
    logging.disable(logging.WARNING)
    try:
        m = AutoModelForCausalLM.from_pretrained(folder, quantization_config=CompressedTensorsConfig(run_compressed=False))
    except Exception as e:  # noqa: BLE001
        return {"status": "load failed", "message": f"{type(e).__name__}: {e}"}
    finally:
        logging.disable(logging.NOTSET)
    worst, differ = 0.0, {}
    for n, ours in ours_by.items():
        w = m.get_submodule(n).weight.detach()
        ours_t = torch.from_numpy(ours).to(w.dtype).float().numpy()
        t = w.float().numpy()
        d = float(np.max(np.abs(t.astype(np.float64) - ours_t.astype(np.float64)))) if t.shape == ours_t.shape \
            else float("inf")
        worst = max(worst, d)
        if d != 0.0:
            differ[n] = d
    with torch.no_grad():
        logits = m(torch.tensor([[1, 400, 30, 260, 13]])).logits
    return {"status": "ok" if worst == 0.0 and bool(torch.isfinite(logits).all()) else "differs",
            "loader": "AutoModelForCausalLM.from_pretrained(CompressedTensorsConfig(run_compressed=False))",
            "model_class": type(m).__name__, "dtype": str(next(m.parameters()).dtype).replace("torch.", ""),
            "modules_compared": len(ours_by), "max_abs_diff": worst, "modules_differing": differ,
            "lm_head_is_embed_tokens": m.lm_head.weight.data_ptr() == m.model.embed_tokens.weight.data_ptr(),
            "forward_tokens": [1, 400, 30, 260, 13], "logits_shape": list(logits.shape),
            "logits_finite": bool(torch.isfinite(logits).all())}


def quark_ckpt_check(name, c, cli, paths, tmp):
    """Quark's own dequantization of our real_quantized checkpoint: for each module a
    StaticScaledRealQuantizer (the class Quark's importer puts on a QParamsLinear) per weight
    stage, built from the QTensorConfig that QConfig.from_dict gives for our config, holding our
    stored weight / scale / zero point; its forward unpacks (Pack_4_bits.unpack) and runs
    quark.torch.kernel.dequantize. Stages in reverse (W4A8: INT4 then FP8), as Quark's
    SequentialQuantize does."""
    import numpy as np
    import torch
    from quark.torch.export.nn.modules.realquantizer import StaticScaledRealQuantizer
    from quark.torch.quantization.config.config import QConfig
    o = case_opts(c)
    src = paths["stories"]
    out = os.path.join(tmp, name)
    run(export_cmd(cli, name, c, src["ckpt"], tmp, out))
    stored = load_stored(out)
    cfg = json.load(open(os.path.join(out, "config.json")))["quantization_config"]
    qcfg = QConfig.from_dict(cfg)
    reorder = cfg["export"]["pack_method"] == "reorder"
    wspec = qcfg.global_quant_config.weight
    stages = wspec if isinstance(wspec, list) else [wspec]
    names = sorted({k.rsplit(".", 1)[0] for k in stored if k.endswith(".weight_scale")})
    modules, worst, all_bytes = {}, 0.0, b""
    with torch.no_grad():
        for n in names:
            K = json.load(open(os.path.join(src["dir"], "config.json")))["intermediate_size" if "down_proj" in n
                                                                          else "hidden_size"]
            x = stored[f"{n}.weight"]
            for i, spec in reversed(list(enumerate(stages))):
                sfx = "" if len(stages) == 1 or i == 0 else f"_{i + 1}"
                q = StaticScaledRealQuantizer(spec, None, reorder, True, torch.float32, torch.device("cpu"),
                                              tuple(stored[f"{n}.weight_scale{sfx}"].shape),
                                              tuple(stored[f"{n}.weight_zero_point{sfx}"].shape)
                                              if f"{n}.weight_zero_point{sfx}" in stored else None)
                q.scale = stored[f"{n}.weight_scale{sfx}"].clone()
                if f"{n}.weight_zero_point{sfx}" in stored:
                    q.zero_point = stored[f"{n}.weight_zero_point{sfx}"].clone()
                elif hasattr(q, "zero_point"):
                    q.zero_point = None
                x = q(x)
                if x.ndim == 2 and x.shape[1] > K:
                    x = x[:, :K]  # Quark's unpack keeps the packing pad of K (tests/interop/golden/NOTES.md)
            theirs = x.float().numpy()
            ours = our_decode(cli, out, n, tmp)
            d = float(np.max(np.abs(theirs.astype(np.float64) - ours.astype(np.float64)))) \
                if theirs.shape == ours.shape else float("inf")
            modules[n] = {"shape": list(ours.shape), "toolkit_dtype": "float32", "max_abs_diff": d,
                          "ours_fnv1a64": fnv1a64(ours.tobytes())}
            worst = max(worst, d)
            all_bytes += ours.tobytes()
    res = {"status": "passed" if worst == 0.0 and modules else "failed", "recipe": c["recipe"],
           "activations": o["activations"], "default_excludes": o["default_excludes"], "checkpoint": "stories",
           "format": "quark real_quantized", "pack_method": cfg["export"]["pack_method"],
           "toolkit": "quark StaticScaledRealQuantizer.forward (Pack_4_bits.unpack + kernel.dequantize)",
           "weight_stages": [s.to_dict()["dtype"] for s in stages],
           "modules": modules, "max_abs_diff": worst, "ours_fnv1a64": fnv1a64(all_bytes)}
    res["quark_importer"] = quark_import(out, src)
    return res


def quark_import(folder, src):
    import toolkit_goldens as tg
    from quark.torch.export.api import import_model_from_safetensors
    layers = json.load(open(os.path.join(src["dir"], "config.json")))["num_hidden_layers"]
    try:
        import_model_from_safetensors(tg.load_model(src["dir"], layers), folder)
        return {"status": "imported"}
    except Exception as e:  # noqa: BLE001
        return {"status": "refused by Quark's importer (as for Quark's own export of this model)",
                "message": f"{type(e).__name__}: {str(e)[:400]}"}


def quark_setting(qt):
    """Quark's resolved weight QTensorConfig as the comparable fields of expected_weight."""
    if qt is None or qt.weight is None:
        return None
    w = qt.weight[0] if isinstance(qt.weight, list) else qt.weight
    d = w.to_dict()
    dt = d["dtype"]
    strategy = {"per_channel": "channel", "per_group": "group", "per_tensor": "tensor"}.get(d["qscheme"], d["qscheme"])
    return {"type": "int" if dt.startswith(("int", "uint")) else "float", "bits": int(re.sub(r"\D", "", dt)[:1] or 0)
            if not dt.startswith("int") else int(dt[3:]), "strategy": strategy,
            "group": d["group_size"] if strategy == "group" else None, "symmetric": d["symmetric"]}


def quark_config_check(name, c, cli, paths, tmp):
    """Quark's config for the checkpoint's modules (its INT8 checkpoint layout is not written);
    every module resolved by Quark's own code against the recipe's scheme."""
    import torch
    import toolkit_goldens as tg
    from quark.torch.export.main_export.quant_config_parser import get_layer_quant_config
    from quark.torch.quantization.config.config import QConfig
    from quark.torch.quantization.model_transformation import setup_config_per_layer
    o = case_opts(c)
    src = paths["stories"]
    path = os.path.join(tmp, name + ".quantization_config.json")
    run(export_cmd(cli, name, c, src["ckpt"], tmp, path, config_only=True))
    ours = json.load(open(path))
    qcfg = QConfig.from_dict(ours)
    model = tg.load_model(src["dir"], json.load(open(os.path.join(src["dir"], "config.json")))["num_hidden_layers"])
    per_layer = {}
    setup_config_per_layer(qcfg, dict(model.named_modules()), per_layer)
    modules, wrong = {}, []
    for n, m in model.named_modules():
        if not isinstance(m, (torch.nn.Linear, torch.nn.Embedding)):
            continue
        a = quark_setting(per_layer.get(n))
        b = quark_setting(get_layer_quant_config(qcfg, type(m), n))
        want = expected_weight(recipe_resolve(c["recipe"], n))
        if n == "lm_head" or isinstance(m, torch.nn.Embedding):
            want = None if o["default_excludes"] else want
        modules[n] = {"setup_config_per_layer": a, "get_layer_quant_config": b, "recipe": want}
        if not (a == b == want):
            wrong.append(n)
    return {"status": "passed" if not wrong else "failed", "recipe": c["recipe"], "activations": o["activations"],
            "default_excludes": o["default_excludes"], "format": "quark config",
            "toolkit": "quark QConfig.from_dict + model_transformation.setup_config_per_layer + "
                       "quant_config_parser.get_layer_quant_config on transformers' LlamaForCausalLM",
            "layer_quant_config_order": list(ours["layer_quant_config"]), "exclude": ours["exclude"],
            "resolution": modules, "mismatches": wrong,
            "note": "config only: Quark's real_quantized layout written here holds INT4 and W4A8 only, so the "
                    "INT8 rules of this recipe are refused for a Quark checkpoint"}


def refused_check(name, c, cli, paths, tmp):
    o = case_opts(c)
    out = os.path.join(tmp, name)
    r = subprocess.run(export_cmd(cli, name, c, paths["stories"]["ckpt"], tmp, out), capture_output=True, text=True)
    msg = r.stderr.strip().removeprefix("quantscope-cli export: error: ")
    res = {"status": "refused" if r.returncode != 0 and c["key"] in msg and not os.path.exists(out) else "failed",
           "recipe": c["recipe"], "activations": o["activations"], "default_excludes": o["default_excludes"],
           "format": o["format"], "exit_code": r.returncode, "message": msg, "key": c["key"]}
    if c.get("ct_group128"):
        res["toolkit_on_same_case"] = ct_group128(paths)
    if c.get("quark_group128"):
        res["toolkit_on_same_case"] = quark_group128(paths)
    return res


def ct_group128(paths):
    """compressed-tensors 0.20 itself on W4A16 group 128 over stories260K (K = 64 / 172)."""
    import torch
    import toolkit_goldens as tg
    from compressed_tensors.quantization import QuantizationConfig, apply_quantization_config
    from loguru import logger
    seen = []
    hid = logger.add(lambda m: seen.append(str(m).strip()), level="WARNING")
    try:
        model = tg.load_model(paths["stories"]["dir"], 5)
        qc = QuantizationConfig.model_validate({
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
                "num_bits": 4, "type": "int", "symmetric": True, "strategy": "group", "group_size": 128}}},
            "ignore": ["lm_head"], "format": "pack-quantized"})
        try:
            apply_quantization_config(model, qc)
            m = model.get_submodule("model.layers.0.self_attn.q_proj")
            outcome = {"raised": None, "q_proj_weight_scale_shape": list(m.weight_scale.shape)}
        except Exception as e:  # noqa: BLE001
            outcome = {"raised": f"{type(e).__name__}: {e}"}
    finally:
        logger.remove(hid)
    outcome["warnings"] = sorted({re.sub(r"^.*? - ", "", s) for s in seen})[:3]
    outcome["note"] = ("compressed-tensors 0.20 does not raise: apply_quantization_config warns (strategy_cdiv) and "
                       "gives ceil(K/128) = 1 group per row, a group that is not 128 wide; the error our "
                       "message quotes is that of the toolkit's decompression in earlier releases")
    return outcome


def quark_group128(paths):
    """Quark's own PerGroup observer on q_proj (K = 64) with group 128."""
    import torch
    from quark.torch.quantization.config.config import QTensorConfig
    from quark.torch.quantization.config.type import Dtype, QSchemeType
    from quark.torch.quantization.observer.observer import PerGroupMinMaxObserver
    import toolkit_goldens as tg
    w = tg.load_model(paths["stories"]["dir"], 5).get_submodule("model.layers.0.self_attn.q_proj").weight.detach()
    from quark.torch.quantization.config.type import RoundType, ScaleType, ZeroPointType
    spec = QTensorConfig(dtype=Dtype.int4, observer_cls=PerGroupMinMaxObserver, symmetric=True,
                         round_method=RoundType.half_even, scale_type=ScaleType.float,
                         zero_point_type=ZeroPointType.int32,
                         qscheme=QSchemeType.per_group, ch_axis=1, group_size=128, is_dynamic=False)
    try:
        obs = PerGroupMinMaxObserver(spec, device=torch.device("cpu"))
        obs(w)
        return {"raised": None}
    except Exception as e:  # noqa: BLE001
        return {"raised": f"{type(e).__name__}: {str(e)[:300]}"}


def llmc_check(cli, tmp, overlay):
    if overlay:
        sys.path.insert(0, overlay)
    c = CASES["ct_w4a16_group4_sym"]
    rpath = os.path.join(tmp, "llmc.recipe.json")
    json.dump(c["recipe"], open(rpath, "w"))
    yaml_path = os.path.join(tmp, "recipe.yaml")
    run([cli, "export", "--recipe", rpath, "--format", "llm-compressor", yaml_path])
    import llmcompressor
    from llmcompressor.recipe import Recipe
    recipe_obj = Recipe.create_instance(yaml_path)
    mods = []
    for m in recipe_obj.modifiers:
        d = {"type": type(m).__name__}
        for attr in ("targets", "ignore", "scheme"):
            if getattr(m, attr, None) is not None:
                v = getattr(m, attr)
                d[attr] = v if isinstance(v, (str, list, dict)) else str(v)
        cg = getattr(m, "config_groups", None)
        if cg:
            d["config_groups"] = {k: (g.model_dump(mode="json") if hasattr(g, "model_dump") else str(g))
                                  for k, g in cg.items()}
        mods.append(d)
    ok = any(d["type"] == "QuantizationModifier" for d in mods)
    import compressed_tensors
    return {"status": "passed" if ok else "failed", "llmcompressor": llmcompressor.__version__,
            "compressed_tensors_seen": compressed_tensors.__version__,
            "yaml": open(yaml_path).read(), "modifiers": mods}


def quark_check(cli, tmp):
    from quark.torch.quantization.config.config import QConfig
    rpath = os.path.join(tmp, "w4a8.recipe.json")
    json.dump(recipe(rule(ALL, {"method": "progressive"}), exclude=[{"pattern": "*lm_head"}]), open(rpath, "w"))
    qc_path = os.path.join(tmp, "quantization_config.json")
    run([cli, "export", "--recipe", rpath, "--format", "quark", "--activations", "fp8-dynamic", qc_path])
    ours = json.load(open(qc_path))
    cfg = QConfig.from_dict(ours)
    g = cfg.global_quant_config
    weight = g.weight if isinstance(g.weight, list) else [g.weight]
    back = [w.to_dict() for w in weight]
    same = back == ours["global_quant_config"]["weight"]
    return {"status": "passed" if same else "failed", "config_class": type(cfg).__name__,
            "weight_dtypes": [str(getattr(w, "dtype", None)) for w in weight],
            "layer_config_class": type(g).__name__,
            "weight_spec_classes": [type(w).__name__ for w in weight],
            "input_spec_class": type(g.input_tensors).__name__ if g.input_tensors is not None else None,
            "weight_to_dict_equals_ours": same, "exclude": list(cfg.exclude)}


KINDS = {"ct": ct_check, "quark_ckpt": quark_ckpt_check, "quark_config": quark_config_check,
         "refused": refused_check}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True, help="quantscope-cli")
    ap.add_argument("--shared", required=True, help="the stories260K folder")
    ap.add_argument("--out", required=True, help="the summary JSON")
    ap.add_argument("--llmc-overlay", default="", help="a --target folder holding llmcompressor")
    ap.add_argument("--note", action="append", default=[], help="install notes to record")
    ap.add_argument("--only", action="append", default=[], help="run these checks only, merged into an existing --out")
    args = ap.parse_args()
    import toolkit_goldens as tg
    summary = {"tool": "scripts/interop/check_exports.py", "versions": tg.versions(), "notes": args.note,
               "checks": {}}
    if args.llmc_overlay and os.path.isdir(args.llmc_overlay):
        sys.path.append(args.llmc_overlay)  # after the venv: compressed-tensors 0.20 wins
    with tempfile.TemporaryDirectory() as tmp:
        demo = os.path.join(tmp, "demo")
        run([args.cli, "demo", demo])
        paths = {"stories": {"dir": args.shared, "ckpt": os.path.join(args.shared, "model.safetensors")},
                 "demo": {"dir": demo, "ckpt": demo}}
        jobs = [(n, lambda n=n: KINDS[CASES[n]["kind"]](n, CASES[n], args.cli, paths, tmp)) for n in CASES]
        jobs += [("llmcompressor", lambda: llmc_check(args.cli, tmp, args.llmc_overlay)),
                 ("quark", lambda: quark_check(args.cli, tmp))]
        for name, job in jobs:
            if args.only and name not in args.only:
                continue
            try:
                summary["checks"][name] = job()
            except Exception as e:  # recorded, never hidden
                summary["checks"][name] = {"status": "could not run", "reason": f"{type(e).__name__}: {e}",
                                           "traceback_tail": traceback.format_exc().strip().splitlines()[-4:]}
            print(f"{name}: {summary['checks'][name]['status']}", file=sys.stderr)
    if args.only:  # re-run checks into an existing summary (e.g. after a check could not run)
        old = json.load(open(args.out)) if os.path.exists(args.out) else {"checks": {}}
        old["checks"].update(summary["checks"])
        old["notes"] = list(dict.fromkeys(old.get("notes", []) + summary["notes"]))
        summary = old
    with open(args.out, "w") as f:
        json.dump(summary, f, indent=1, sort_keys=False)
        f.write("\n")


if __name__ == "__main__":
    main()
