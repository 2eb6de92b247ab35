#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The output-aware error golden: tr(ΔW G ΔWᵀ) computed by NumPy from a capture's Gram and our Ŵ.

For a few stories260K modules and specs: quantscope-cli quantize --save writes Ŵ's codes, decode
gives Ŵ in FP32, and NumPy computes, in float64 from the stored FP32 values,
    error = Σ_r (W − Ŵ)_r G (W − Ŵ)_rᵀ,  reference = Σ_r W_r G W_rᵀ.
tests/cli asserts that `quantize --capture` reports the same numbers (relative 1e-9).
Usage: make-output-error-golden.py CLI MODEL.safetensors CAPTURE.safetensors OUT.json
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

CASES = [
    ("model.layers.0.self_attn.q_proj", {"method": "int", "bits": 4, "group": 32}),
    ("model.layers.0.self_attn.q_proj", {"method": "int", "bits": 3, "granularity": "channel"}),
    ("model.layers.2.mlp.down_proj", {"method": "int", "bits": 4, "group": 32, "symmetric": False}),
    ("model.layers.4.self_attn.o_proj", {"method": "fp8", "granularity": "channel"}),
    ("model.layers.3.mlp.gate_proj", {"method": "mxfp4"}),
]
DTYPES = {"F32": np.float32, "F16": np.float16, "I32": np.int32}


def read_safetensors(path):
    """A minimal safetensors reader (header + raw little-endian data), independent of our C++ one."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    meta = header.pop("__metadata__", {})
    tensors = {}
    for name, e in header.items():
        b, t = e["data_offsets"]
        tensors[name] = np.frombuffer(data[b:t], dtype=DTYPES[e["dtype"]]).reshape(e["shape"])
    return tensors, meta


def main():
    cli, model, capture, out = sys.argv[1:5]
    weights, _ = read_safetensors(model)
    cap, meta = read_safetensors(capture)
    modules = json.loads(meta["modules"])
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for module, spec in CASES:
            spec_path = os.path.join(tmp, "spec.json")
            with open(spec_path, "w") as f:
                json.dump(spec, f)
            saved = os.path.join(tmp, "q.safetensors")
            what = os.path.join(tmp, "w.npy")
            report = json.loads(subprocess.run(
                [cli, "quantize", model, "--tensor", module + ".weight", "--spec", spec_path, "--device", "cpu",
                 "--capture", capture, "--save", saved, "--json", "--quiet"],
                check=True, stdout=subprocess.PIPE, text=True).stdout)
            subprocess.run([cli, "decode", saved, "--tensor", module + ".weight", "--out", what], check=True,
                           stdout=subprocess.DEVNULL)
            w = weights[module + ".weight"].astype(np.float64)
            w_hat = np.load(what).astype(np.float64).reshape(w.shape)
            g = cap[modules[module]["stats"] + ".input_gram"].astype(np.float64)
            d = w - w_hat
            error = float(np.einsum("ij,jk,ik->", d, g, d))
            reference = float(np.einsum("ij,jk,ik->", w, g, w))
            results.append({"module": module, "spec": spec, "error": error, "reference": reference,
                            "relative": error / reference,
                            "cli_error": report["metrics"]["output_error"]["error"]})
            print(f"{module} {json.dumps(spec)}: numpy {error:.12g}, cli {results[-1]['cli_error']:.12g}")
    golden = {"what": "tr(dW G dW^T) by NumPy (float64) from the capture's Gram and quantscope's decoded W^",
              "model": "stories260K model.safetensors (../shared/data)", "capture": os.path.basename(capture),
              "tokens": int(meta["tokens"]), "cases": results}
    with open(out, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
