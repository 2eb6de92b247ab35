#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The KV-cache lab's work in PyTorch, on the capture qs_bench_gpu_kv wrote with --tensor-out
(k, v [L, Hkv, T, d], q [L, H, Q, d], metadata seq), same GPU, same run — eager and torch.compile.
The same work as our `schemes` + `sweep_701` cases (docs/perf.md "KV-cache lab (issue 41): SmolLM2-135M's own keys and values"):
  schemes: bf16, fp8 (amax/448 per layer), fp8-head, fp8-vllm (/200 K, /100 V), codebook (theory,
           per-layer refit, shared refit: the levels our lab fit, read from gpu_kv.json; the refit
           itself is not timed), codebook-norot, constopt (c 0.156, 0.195, per-layer c* from
           gpu_kv.json; WHT as a d×d matmul, groups of 32, UE8M0 scales), mxfp4, nvfp4, int4 KIVI,
           and the plan (K constopt, V fp8, first/last 2 layers BF16) — each quantize-dequantize of K
           and V on all layers, the MSE per head (FP64), and with the 128 evenly spaced queries per
           head: z = q·k/√d, log-softmax, KL(P‖P̂), max |P − P̂|, o = P·V vs ô = P̂·V̂ in FP64, the
           reference side once;
  sweep:   pow2 constOpt MSE at 701 values of c on the rotated keys of all layers (a loop over c).
Timing: CUDA events around each whole case, median of --repeats after a warm-up (compile excluded).
Accuracy: K rel MSE, KL and c* against ours (gpu_kv.json). Writes kv_torch.json."""
import argparse
import json
import math
import os

import torch

from torch_timing import timed  # bench/torch_timing.py, beside this script
from safetensors.torch import load_file


def hadamard(d, dev):
    h = torch.ones(1, 1, dtype=torch.float32, device=dev)
    while h.shape[0] < d:
        h = torch.cat([torch.cat([h, h], 1), torch.cat([h, -h], 1)], 0)
    return h / math.sqrt(d)


def e2m1_round(v):
    a = v.abs()
    q = 0.5 * (a > 0.25) + 0.5 * (a >= 0.75) + 0.5 * (a > 1.25) + 0.5 * (a >= 1.75) + (a > 2.5) + (a >= 3.5) + 2.0 * (a > 5.0)
    return torch.where(v < 0, -q, q)


def fp8(x, s):
    return (x / s).clamp(-448, 448).to(torch.float8_e4m3fn).float() * s


def pow2(t):
    return torch.where(t > 0, torch.exp2(torch.round(torch.log2(t.clamp_min(1e-38)))), torch.zeros_like(t))


def constopt(x, hd, c, unrounded=False):
    y = x @ hd
    g = y.unflatten(-1, (-1, 32))
    m = g.abs().amax(-1, keepdim=True)
    t = c * m
    s = t if unrounded else pow2(t)
    q = torch.where(s > 0, e2m1_round(g / s.clamp_min(1e-38)) * s, torch.zeros_like(g))
    return q.flatten(-2) @ hd


def codebook(x, hd, levels, rotate=True):
    n = x.double().norm(dim=-1, keepdim=True)
    nf = n.float()
    u = x / nf.clamp_min(1e-38)
    y = u @ hd if rotate else u
    lv = levels if levels.dim() == 2 else levels[None, :].expand(x.shape[0], -1)  # [L, 16]
    bounds = (lv[:, :-1].double() + lv[:, 1:].double()).div(2).float()
    idx = (y[..., None] >= bounds[:, None, None, None, :]).sum(-1)  # the boundaries ≤ y
    yh = torch.gather(lv[:, None, None, :].expand(y.shape[0], y.shape[1], y.shape[2], -1), 3, idx)
    uh = yh @ hd if rotate else yh
    return torch.where(nf > 0, nf.half().float() * uh, torch.zeros_like(uh))


def mxfp4(x):
    g = x.unflatten(-1, (-1, 32))
    amax = g.abs().amax(-1, keepdim=True)
    field = ((amax.view(torch.int32) + (1 << 21)) & 0x7F800000) >> 23
    s = torch.exp2((field - 127 - 2).clamp(-127, 127).float())
    return (e2m1_round(g / s) * s).flatten(-2)


def nvfp4(x):
    amax = x.abs().amax(dim=(1, 2, 3), keepdim=True)
    glob = 2688.0 / amax
    g = x.unflatten(-1, (-1, 16))
    b = ((g.abs().amax(-1, keepdim=True) / 6) * glob[..., None]).clamp(max=448).to(torch.float8_e4m3fn).float()
    b = torch.where(b == 0, torch.full_like(b, 0.125), b)
    eff = b / glob[..., None]
    return (e2m1_round(g / eff) * eff).flatten(-2)


def int4(x, per_channel):
    if per_channel:  # K: groups of 32 tokens per channel
        g = x.unflatten(2, (-1, 32))
        mn, mx = g.amin(3, keepdim=True), g.amax(3, keepdim=True)
    else:
        g = x.unflatten(-1, (-1, 32))
        mn, mx = g.amin(-1, keepdim=True), g.amax(-1, keepdim=True)
    s = ((mx - mn) / 15).half().float()
    z = mn.half().float()
    q = ((g - z) / torch.where(s > 0, s, torch.ones_like(s))).round().clamp(0, 15)
    out = torch.where(s > 0, q * s + z, z.expand_as(g))
    return out.flatten(2, 3) if per_channel else out.flatten(-2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--tensor", required=True)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-compile", action="store_true")
    a = ap.parse_args()
    ours = json.load(open(os.path.join(a.out, "gpu_kv.json")))
    dev = "cuda"
    t = load_file(a.tensor, device=dev)
    K, V, Qs = t["k"].float(), t["v"].float(), t["q"].float()
    L, Hkv, T, d = K.shape
    H, Q = Qs.shape[1], Qs.shape[2]
    seg = ours["capture"]["segment"]
    nq = ours["capture"]["score_queries"]
    rows = sorted({(i * (Q - 1)) // (nq - 1) for i in range(nq)})
    hd = hadamard(d, dev)
    cb = ours["codebooks"]
    theory = torch.tensor(cb["theory"], device=dev, dtype=torch.float32)
    klay = torch.tensor(cb["k_layer"], device=dev, dtype=torch.float32)
    vlay = torch.tensor(cb["v_layer"], device=dev, dtype=torch.float32)
    ksh = torch.tensor(cb["k_shared"], device=dev, dtype=torch.float32)
    vsh = torch.tensor(cb["v_shared"], device=dev, dtype=torch.float32)
    # per-layer c*, broadcast over [L, Hkv, T, groups, 1]
    cstar = torch.tensor(ours["layer_c_star"], device=dev, dtype=torch.float32)[:, None, None, None, None]

    # Queries, their causal key ranges and the mask (keys beyond the last query's are never read).
    ridx = torch.tensor(rows, device=dev)
    nk = min(T, max(rows) + 1)
    qsel = Qs[:, :, ridx, :].double()  # [L, H, nq, d]
    j = torch.arange(nk, device=dev)
    start = (ridx // seg) * seg if seg > 0 else torch.zeros_like(ridx)
    mask = (j[None, :] >= start[:, None]) & (j[None, :] <= ridx[:, None])  # [nq, nk]
    rep = H // Hkv

    def attn(k, v):
        k = k[:, :, :nk].double().repeat_interleave(rep, 1)
        v = v[:, :, :nk].double().repeat_interleave(rep, 1)
        z = (qsel @ k.transpose(-1, -2)) / math.sqrt(d)
        lp = torch.log_softmax(z.masked_fill(~mask, float("-inf")), -1)
        return lp, torch.exp(lp) @ v

    lp_ref, o_ref = attn(K, V)
    p_ref = torch.exp(lp_ref)

    def metrics(kq, vq):
        kmse = ((K - kq).double() ** 2).mean(dim=(2, 3))
        vmse = ((V - vq).double() ** 2).mean(dim=(2, 3))
        lq, o = attn(kq, vq)
        pq = torch.exp(lq)
        kl = torch.where(mask, p_ref * (lp_ref - lq), torch.zeros_like(lq)).sum(-1).clamp_min(0).mean()
        mx = (p_ref - pq).abs().amax()
        err = ((o_ref - o) ** 2).sum() / (o_ref ** 2).sum()
        return kmse.mean(), vmse.mean(), kl, mx, err

    def bnd(x, y):  # the plan's boundary layers in BF16
        b = x.bfloat16().float()
        return torch.cat([b[:2], y[2:-2], b[-2:]], 0)

    amaxK = K.abs().amax(dim=(1, 2, 3), keepdim=True)
    amaxV = V.abs().amax(dim=(1, 2, 3), keepdim=True)
    schemes = {
        "bf16": lambda: (K.bfloat16().float(), V.bfloat16().float()),
        "fp8": lambda: (fp8(K, amaxK / 448), fp8(V, amaxV / 448)),
        "fp8-head": lambda: (fp8(K, K.abs().amax(dim=(2, 3), keepdim=True) / 448),
                             fp8(V, V.abs().amax(dim=(2, 3), keepdim=True) / 448)),
        "fp8-vllm": lambda: (fp8(K, amaxK / 200), fp8(V, amaxV / 100)),
        "codebook": lambda: (codebook(K, hd, theory), codebook(V, hd, theory)),
        "codebook-layer": lambda: (codebook(K, hd, klay), codebook(V, hd, vlay)),
        "codebook-shared": lambda: (codebook(K, hd, ksh), codebook(V, hd, vsh)),
        "codebook-norot": lambda: (codebook(K, hd, theory, False), codebook(V, hd, theory, False)),
        "constopt": lambda: (constopt(K, hd, 0.156), constopt(V, hd, 0.156)),
        "constopt:c=0.195": lambda: (constopt(K, hd, 0.195), constopt(V, hd, 0.195)),
        "constopt:c=fit": lambda: (constopt(K, hd, cstar), constopt(V, hd, 0.156)),
        "mxfp4": lambda: (mxfp4(K), mxfp4(V)),
        "nvfp4": lambda: (nvfp4(K), nvfp4(V)),
        "int4": lambda: (int4(K, True), int4(V, False)),
        "plan": lambda: (bnd(K, constopt(K, hd, 0.156)), bnd(V, fp8(V, amaxV / 448))),
    }

    def all_schemes():
        return {n: metrics(*f()) for n, f in schemes.items()}

    yk = (K @ hd).reshape(-1, 32)
    m = yk.abs().amax(-1, keepdim=True)
    cs = [0.05 + 0.0005 * i for i in range(701)]
    cs_t = torch.tensor(cs, device=dev, dtype=torch.float32)  # c as a tensor: one compiled graph for all

    def sweep_c(c):
        s = pow2(c * m)
        return ((yk - e2m1_round(yk / s.clamp_min(1e-38)) * s) ** 2).sum(dtype=torch.float64)

    def sweep():
        return torch.stack([sweep_c(cs_t[i]) for i in range(len(cs))]) / yk.numel()

    res = {"date": ours["date"], "device": torch.cuda.get_device_name(), "torch": torch.__version__}
    ms, out = timed(all_schemes, a.repeats)
    ms_sw, curve = timed(sweep, a.repeats)
    res["eager"] = {"schemes_ms": ms, "sweep_701_ms": ms_sw}
    if not a.no_compile:
        cschemes = {n: torch.compile(lambda f=f: metrics(*f())) for n, f in schemes.items()}
        csweep_c = torch.compile(sweep_c)

        def all_c():
            return {n: f() for n, f in cschemes.items()}

        def sweep_cc():
            return torch.stack([csweep_c(cs_t[i]) for i in range(len(cs))]) / yk.numel()

        all_c()
        sweep_cc()  # compile outside the timing
        msc, _ = timed(all_c, a.repeats)
        msc_sw, _ = timed(sweep_cc, a.repeats)
        res["compile"] = {"schemes_ms": msc, "sweep_701_ms": msc_sw}
    ourmap = {s["name"]: s for s in ours["schemes"]}
    k2 = (K.double() ** 2).mean().item()
    res["schemes"] = [{"name": n, "k_rel": v[0].item() / k2, "kl": v[2].item(), "max_dp": v[3].item(),
                       "out_rel": v[4].item(), "ours_k_rel": ourmap.get(n, {}).get("k_rel"),
                       "ours_kl": ourmap.get(n, {}).get("kl")} for n, v in out.items()]
    res["c_star"] = cs[int(torch.argmin(curve).item())]
    res["ours_c_star"] = ours["c_star"]
    ourc = ours["cases"]
    res["ours"] = {"schemes_ms": ourc["schemes"]["median_ms"], "sweep_701_ms": ourc["sweep_701"]["median_ms"],
                   "lab_ms": ourc["lab"]["median_ms"]}
    print(json.dumps({k: res[k] for k in ("eager", "compile", "ours", "c_star", "ours_c_star") if k in res}, indent=1))
    with open(os.path.join(a.out, "kv_torch.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
