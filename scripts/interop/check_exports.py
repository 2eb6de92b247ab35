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
import json
import os
import subprocess
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

CT_CASES = {
    # name: (recipe rule spec, exclude entries, --activations)
    "ct_w4a16_group4_sym": ({"method": "int", "bits": 4, "granularity": "group", "group": 4},
                            [{"pattern": "lm_head", "dialect": "exact"}], "none"),
    "ct_w8a16_channel_asym": ({"method": "int", "bits": 8, "granularity": "channel", "symmetric": False},
                              [{"pattern": "lm_head", "dialect": "exact"}], "none"),
    "ct_w8a8_fp8_channel": ({"method": "fp8", "granularity": "channel"},
                            [{"pattern": "lm_head", "dialect": "exact"}], "fp8-dynamic"),
    "ct_nvfp4a16": ({"method": "nvfp4"}, [{"pattern": "lm_head", "dialect": "exact"},
                                          {"pattern": ".*down_proj", "dialect": "re"}], "none"),
}


def fnv1a64(data: bytes) -> str:
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def recipe_json(spec, exclude):
    return {"quantscope_recipe": 1, "rules": [{"patterns": ["*"], "dialect": "fnmatch", "specs": [spec]}],
            "exclude": exclude}


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()[-400:]}")
    return r.stdout


def our_decode(cli, ckpt, module, tmp):
    import numpy as np
    out = os.path.join(tmp, module + ".npy")
    run([cli, "decode", ckpt, "--tensor", module, "--out", out])
    return np.load(out).astype("<f4")


def ct_check(name, cli, stories, tmp):
    import numpy as np
    import torch
    from compressed_tensors.compressors import ModelCompressor
    from compressed_tensors.quantization import (QuantizationConfig, QuantizationStatus,
                                                 apply_quantization_config)
    from safetensors.torch import load_file
    import toolkit_goldens as tg

    spec, exclude, act = CT_CASES[name]
    rpath = os.path.join(tmp, name + ".recipe.json")
    json.dump(recipe_json(spec, exclude), open(rpath, "w"))
    out = os.path.join(tmp, name)
    run([cli, "export", "--recipe", rpath, "--format", "compressed-tensors", "--activations", act,
         "--checkpoint", os.path.join(stories, "model.safetensors"), "--out-dir", out, "--quiet"])
    stored = load_file(os.path.join(out, "model.safetensors"))
    cfg = json.load(open(os.path.join(out, "config.json")))["quantization_config"]
    layers = json.load(open(os.path.join(stories, "config.json")))["num_hidden_layers"]
    model = tg.load_model(stories, layers)
    qc = QuantizationConfig.model_validate({k: v for k, v in cfg.items() if k in QuantizationConfig.model_fields})
    apply_quantization_config(model, qc)
    comp = ModelCompressor(quantization_config=qc)
    names = sorted({k.rsplit(".", 1)[0] for k in stored if k.endswith(("weight_packed", "weight_scale"))})
    with torch.no_grad():
        for n in names:  # the stored tensors on the modules, as the loader puts them
            m = model.get_submodule(n)
            # Only what was stored: parameters the scheme added but the file lacks go, and so
            # does the dense weight when the file holds it packed.
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
    modules, worst, all_bytes = {}, 0.0, b""
    for n in names:
        w = model.get_submodule(n).weight.detach()
        theirs = w.to(torch.float32).numpy()
        ours = our_decode(cli, out, n, tmp)
        # Compared in the toolkit's output dtype (NVFP4 decompresses to BF16): ours rounded to it,
        # as tests/core/io/test_toolkit_goldens.cpp compares with the goldens.
        ours_t = torch.from_numpy(ours).to(w.dtype).to(torch.float32).numpy()
        diff = float(np.max(np.abs(theirs.astype(np.float64) - ours_t.astype(np.float64)))) if ours.size else 0.0
        modules[n] = {"shape": list(ours.shape), "toolkit_dtype": str(w.dtype).replace("torch.", ""),
                      "max_abs_diff": diff, "ours_fnv1a64": fnv1a64(ours.tobytes())}
        worst = max(worst, diff)
        all_bytes += ours.tobytes()
    return {"status": "passed" if worst == 0.0 and modules else "failed",
            "recipe": recipe_json(spec, exclude), "activations": act, "format": cfg.get("format"),
            "modules": modules, "max_abs_diff": worst, "ours_fnv1a64": fnv1a64(all_bytes)}


def llmc_check(cli, tmp, overlay):
    if overlay:
        sys.path.insert(0, overlay)
    spec, exclude, _ = CT_CASES["ct_w4a16_group4_sym"]
    rpath = os.path.join(tmp, "llmc.recipe.json")
    json.dump(recipe_json(spec, exclude), open(rpath, "w"))
    yaml_path = os.path.join(tmp, "recipe.yaml")
    run([cli, "export", "--recipe", rpath, "--format", "llm-compressor", yaml_path])
    import llmcompressor
    from llmcompressor.recipe import Recipe
    recipe = Recipe.create_instance(yaml_path)
    mods = []
    for m in recipe.modifiers:
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
    json.dump(recipe_json({"method": "progressive"}, [{"pattern": "*lm_head"}]), open(rpath, "w"))
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True, help="quantscope-cli")
    ap.add_argument("--shared", required=True, help="the stories260K folder")
    ap.add_argument("--out", required=True, help="the summary JSON")
    ap.add_argument("--llmc-overlay", default="", help="a --target folder holding llmcompressor")
    ap.add_argument("--note", action="append", default=[], help="install notes to record")
    args = ap.parse_args()
    import toolkit_goldens as tg
    summary = {"tool": "scripts/interop/check_exports.py", "versions": tg.versions(), "notes": args.note,
               "checks": {}}
    with tempfile.TemporaryDirectory() as tmp:
        jobs = [(n, lambda n=n: ct_check(n, args.cli, args.shared, tmp)) for n in CT_CASES]
        jobs += [("llmcompressor", lambda: llmc_check(args.cli, tmp, args.llmc_overlay)),
                 ("quark", lambda: quark_check(args.cli, tmp))]
        for name, job in jobs:
            try:
                summary["checks"][name] = job()
            except Exception as e:  # recorded, never hidden
                summary["checks"][name] = {"status": "could not run", "reason": f"{type(e).__name__}: {e}",
                                           "traceback_tail": traceback.format_exc().strip().splitlines()[-4:]}
            print(f"{name}: {summary['checks'][name]['status']}", file=sys.stderr)
    with open(args.out, "w") as f:
        json.dump(summary, f, indent=1, sort_keys=False)
        f.write("\n")


if __name__ == "__main__":
    main()
