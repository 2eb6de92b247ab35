#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The PyTorch way of qs_bench_gpu_milo's work, written from the numerical contract
(docs/numerics.md "MiLo" and "HQQ"): 20 passes of { HQQ milo-code on W − U·V (3-bit, g64, axis
0, FP16 tensors as MiLo runs it on CUDA: min/max init, σ capped at 2e4, no zero rounding, the
proximal z-update with the l_p shrink, p = 0.7, β = 10·1.01^i, at most 20 iterations, stop when the
mean |W − W_r| stops improving); E = W − Ŵ; U, S, V = torch.svd_lowrank(E, q=r, niter=2);
U·V = (U·√S)(√S·Vᵀ); ε = ‖E − U·V‖ } on the same tensors (the BF16 file --tensor wrote by
qs_bench_gpu_milo, and the MiniLM matrices from QUANTSCOPE_MINILM), ranks 32 and 512. TF32 off
(torch's default for matmul). CUDA events, median of --repeats after one warm-up. Reports the time,
the final ε and, against gpu_milo.json, the ratio to our whole call (Engine::milo's wall time, its
host work included as PyTorch's is; the device part alone beside it) and the final ε's relative
difference."""
import argparse
import json
import os
import struct

import numpy as np
import torch

from spectrum_torch import timed  # one warm-up, CUDA events, median (the same way)


def hqq_milo_code(W, bits=3, group=64, iters=20):
    """HQQ milo-code on W (FP16, axis 0): returns Ŵ in FP32."""
    shape = W.shape
    Wg = W.reshape(group, -1)  # axis 0: a group is `group` elements numel/group apart
    qmax = 2 ** bits - 1
    mn = Wg.min(dim=0, keepdim=True)[0]
    mx = Wg.max(dim=0, keepdim=True)[0]
    sigma = (qmax / (mx - mn)).clamp(max=2e4)
    z = -mn * sigma
    beta, kappa, p = 1e1, 1.01, 0.7
    best = float("inf")
    for _ in range(iters):
        Wq = torch.round(Wg * sigma + z).clamp(0, qmax)
        Wr = (Wq - z) / sigma
        We = Wg - Wr
        We = torch.sign(We) * torch.nn.functional.relu(We.abs() - (1.0 / beta) * torch.pow(We.abs() + 1e-8, p - 1))
        z_new = torch.mean(Wq - (Wg - We) * sigma, dim=0, keepdim=True)
        beta *= kappa
        err = float(torch.abs(Wg - Wr).mean())
        if err < best:
            best = err
            z = z_new
        else:
            break
    Wq = torch.round(Wg * sigma + z).clamp(0, qmax)
    return ((Wq - z) / sigma).reshape(shape).float()


def milo(W, rank, passes=20):
    W32 = W.float()
    UV = torch.zeros_like(W32)
    eps = []
    for _ in range(passes):
        What = hqq_milo_code((W32 - UV).half())
        E = W32 - What
        U, S, V = torch.svd_lowrank(E, q=rank, niter=2)
        s = S.sqrt()
        UV = (U * s) @ (V * s).T
        eps.append(torch.linalg.norm(E - UV))
    return torch.stack(eps).cpu().tolist()


def load_safetensors(path, name):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        meta = header[name]
        b, e = meta["data_offsets"]
        f.seek(8 + n + b)
        raw = f.read(e - b)
    if meta["dtype"] == "F32":
        return torch.tensor(np.frombuffer(raw, dtype=np.float32).reshape(meta["shape"]).copy())
    assert meta["dtype"] == "BF16", meta["dtype"]
    u16 = np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16
    return torch.tensor(u16.view(np.float32).reshape(meta["shape"]).copy()).bfloat16()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--tensor", required=True)
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--cols", type=int, default=14336)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    raw = np.fromfile(a.tensor, dtype=np.uint16).astype(np.uint32) << 16
    inputs = [("student_t_4096x14336_bf16", torch.tensor(raw.view(np.float32).reshape(a.rows, a.cols)).bfloat16())]
    m = os.environ.get("QUANTSCOPE_MINILM", "")
    if m and os.path.exists(m):
        for name in ("encoder.layer.0.intermediate.dense.weight", "embeddings.word_embeddings.weight.bf16"):
            inputs.append(("minilm:" + name, load_safetensors(m, name)))
    ours = {}
    path = os.path.join(a.out, "gpu_milo.json")
    if os.path.exists(path):
        for r in json.load(open(path))["results"]:
            ours[r["case"]] = r
    results = []
    for tname, W in inputs:
        W = W.cuda()
        for rank in (32, 512):
            r = min(rank, min(W.shape))
            ms, eps = timed(lambda: milo(W, r), a.repeats)
            case = f"{tname}_r{rank}"
            o = ours.get(case)
            row = {"case": case, "torch_ms": ms, "final_eps": eps[-1], "eps": eps}
            line = f"{case:64s} torch {ms:9.2f} ms  final eps {eps[-1]:.6g}"
            if o:
                # Whole call against whole call: Engine::milo's host clock (its host work included,
                # as the events around milo() include PyTorch's); the device part alone beside it.
                ours_ms = o.get("wall_median_ms", o["device_median_ms"])
                row["ours_ms"] = ours_ms
                row["ours_device_ms"] = o["device_median_ms"]
                row["speedup"] = ms / ours_ms
                row["final_eps_rel_diff"] = (o["final_eps"] - eps[-1]) / eps[-1]
                line += f"  ours {ours_ms:8.2f} ms whole call ({o['device_median_ms']:.2f} on the device; {row['speedup']:.1f}x)  eps ours/torch - 1 = {row['final_eps_rel_diff']:+.2e}"
            print(line, flush=True)
            results.append(row)
    json.dump({"benchmark": "milo_torch", "device": torch.cuda.get_device_name(), "torch": torch.__version__,
               "results": results}, open(os.path.join(a.out, "milo_torch.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
