#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reference HQQ codes from the released library (pip package `hqq`, needs torch), for
test_hqq.cpp's interop test. Usage:

    hqq_interop.py MODEL.safetensors TENSOR OUT_DIR

Writes OUT_DIR/<config>.codes (uint8, one code per element, row-major) and OUT_DIR/index.json
({config: {"rel_frobenius": …, "iters": …}}) for the configurations listed in CONFIGS.

compute fp32 runs the library exactly as on a CPU (`Quantizer.quantize(..., device="cpu")`,
hqq-lib). compute fp16 (what the library does on CUDA) is reproduced on the CPU by driving the
library's own `optimize_weights_proximal_legacy_step` with FP16 tensors — torch's CPU FP16 ops
round every op to FP16 like the CUDA kernels (checked: pow with the exponent cast to FP16,
scalar multiplies in FP32, means summed in FP32). The milo-code preset (MiLo's quantizer is not
packaged) uses the same library step with MiLo's initialisation: no 1e-4 range guard, no zero
rounding.
"""
import json
import os
import struct
import sys

import numpy as np
import torch
from hqq.core.optimize import optimize_weights_proximal_legacy_step
from hqq.core.quantize import Quantizer

# name: (preset, bits, group, axis, compute)
CONFIGS = {
    "lib_b4_g64_a1_fp32": ("hqq-lib", 4, 64, 1, "fp32"),
    "lib_b3_g64_a1_fp32": ("hqq-lib", 3, 64, 1, "fp32"),
    "lib_b4_g64_a0_fp32": ("hqq-lib", 4, 64, 0, "fp32"),
    "lib_b2_g32_a1_fp32": ("hqq-lib", 2, 32, 1, "fp32"),
    "lib_b4_g64_a1_fp16": ("hqq-lib", 4, 64, 1, "fp16"),
    "lib_b3_g64_a1_fp16": ("hqq-lib", 3, 64, 1, "fp16"),
    "lib_b4_g64_a0_fp16": ("hqq-lib", 4, 64, 0, "fp16"),
    "lib_b8_g16_a0_fp16": ("hqq-lib", 8, 16, 0, "fp16"),
    "milo_b3_g64_a0_fp16": ("milo-code", 3, 64, 0, "fp16"),
    "milo_b3_g64_a0_fp32": ("milo-code", 3, 64, 0, "fp32"),
    "milo_b4_g43_a1_fp32": ("milo-code", 4, 43, 1, "fp32"),
}


def load(path, name):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        meta = header[name]
        assert meta["dtype"] == "F32", meta["dtype"]
        b, e = meta["data_offsets"]
        f.seek(8 + n + b)
        a = np.frombuffer(f.read(e - b), dtype=np.float32).reshape(meta["shape"])
    return torch.tensor(a.copy())


def init(W, preset, bits, group, axis):
    Wg = W.reshape([-1, group]) if axis == 1 else W.reshape([group, -1])
    mn = Wg.min(axis=axis, keepdim=True)[0]
    mx = Wg.max(axis=axis, keepdim=True)[0]
    qmax = round(2**bits - 1)
    denom = mx - mn
    scale = qmax / denom
    if preset == "hqq-lib":
        scale = torch.where(denom.abs() <= 1e-4, torch.full_like(scale, 1.0), scale)
    scale = scale.clamp(max=2e4)
    zero = -mn * scale
    if preset == "hqq-lib" and bits == 4:
        zero = torch.round(zero)
    return Wg, scale, zero, [0, qmax]


def run_fp16(W, preset, bits, group, axis):
    Wg, scale, zero, min_max = init(W, preset, bits, group, axis)
    W_f, scale, zero = Wg.half(), scale.half(), zero.half()
    best = torch.tensor(torch.inf, dtype=torch.float32)
    iters = 0
    for _ in range(20):
        W_r, W_q, zero, scale = optimize_weights_proximal_legacy_step(W_f, scale, zero, min_max, 10.0, 0.7, axis)
        iters += 1
        err = torch.abs(W_f - W_r).mean().float()
        if err < best:
            best = err
        else:
            break
    W_q = torch.round(Wg * scale + zero).clamp_(min_max[0], min_max[1])
    s = 1.0 / scale
    W_hat = ((W_q.half() - zero) * s).float()
    return W_q, W_hat, iters


def run_fp32(W, preset, bits, group, axis):
    if preset == "hqq-lib":
        W_q, meta = Quantizer.quantize(W, nbits=bits, channel_wise=True, group_size=group, optimize=True,
                                       round_zero=(bits == 4), axis=axis, bitpack=False, device="cpu")
        W_hat = (W_q.float() - meta["zero"]) * meta["scale"]
        return W_q, W_hat, -1
    Wg, scale, zero, min_max = init(W, preset, bits, group, axis)
    best = torch.tensor(torch.inf, dtype=torch.float32)
    iters = 0
    for _ in range(20):
        W_r, W_q, zero, scale = optimize_weights_proximal_legacy_step(Wg, scale, zero, min_max, 10.0, 0.7, axis)
        iters += 1
        err = torch.abs(Wg - W_r).mean().float()
        if err < best:
            best = err
        else:
            break
    W_q = torch.round(Wg * scale + zero).clamp_(min_max[0], min_max[1])
    W_hat = (W_q - zero) * (1.0 / scale)
    return W_q, W_hat, iters


def main():
    path, name, out = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    W = load(path, name)
    index = {}
    for key, (preset, bits, group, axis, compute) in CONFIGS.items():
        if W.numel() % group:
            continue
        fn = run_fp16 if compute == "fp16" else run_fp32
        W_q, W_hat, iters = fn(W, preset, bits, group, axis)
        codes = W_q.reshape(W.shape).to(torch.uint8).numpy()
        codes.tofile(os.path.join(out, key + ".codes"))
        W_hat = W_hat.reshape(W.shape).double()
        rel = (torch.linalg.norm(W.double() - W_hat) / torch.linalg.norm(W.double())).item()
        index[key] = {"preset": preset, "bits": bits, "group": group, "axis": axis, "compute": compute,
                      "rel_frobenius": rel, "iters": iters}
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()
