#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch's peers of the fused MXFP4 / NVFP4 × BF16 GEMM (issue 43), on the same GPU in the same
run as qs_bench_gpu_fp4_fused:
  bf16                torch.matmul of BF16 weights of the same shape
  mxfp4_dequant_mm    the packed codes (uint8 [N, K/2], element 2j in the low nibble) unpacked,
                      looked up as E2M1 values, times 2^(byte − 127) per 32 (UE8M0 bytes), as BF16,
                      then torch.matmul: PyTorch's way on H100/H200, which have no FP4 matmul
  nvfp4_dequant_mm    the same with E4M3 block scales per 16 and the FP32 global scale (divided)
  *_scaled_mm         torch._scaled_mm on FP4 operands where the device has them (sm_100 and
                      newer, torch with float4_e2m1fn_x2): tried, else recorded as unavailable
N = 4096, K = 14336 over M ∈ {1, 2, 4, 8, 16}. The methods interleave: each repeat times every
method once (CUDA events around the call); median, min, max of --repeats. Each dequantize + matmul
output is checked against the FP64 product of the exact Ŵ (worst |Δ| / max |y|). With --ours
(gpu_fp4_fused.json) it prints the docs/perf.md "Fused FP4 GEMM (issue 43)" table."""
import argparse
import json
import os

import torch

from torch_timing import interleaved  # bench/torch_timing.py, beside this script

E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]


def operands(n, k, max_m):
    g = torch.Generator(device="cuda").manual_seed(0xF4)
    packed = torch.randint(0, 256, (n, k // 2), device="cuda", dtype=torch.int32, generator=g).to(torch.uint8)
    mx_scales = torch.randint(120, 125, (n, k // 32), device="cuda", dtype=torch.int32, generator=g).to(torch.uint8)
    nv_scales = torch.randint(0x30, 0x50, (n, k // 16), device="cuda", dtype=torch.int32, generator=g).to(torch.uint8)
    x = torch.randn(max_m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    return packed, mx_scales, nv_scales, x


def dequant(packed, scales, fmt, global_scale, lut):
    """Ŵ as BF16 [N, K] (MXFP4 exact; NVFP4: fp32(value·b) / global rounded once to BF16)."""
    lo, hi = packed & 0xF, packed >> 4
    codes = torch.stack((lo, hi), dim=-1).reshape(packed.shape[0], -1).long()
    v = lut[codes]
    if fmt == "mxfp4":
        s = torch.exp2(scales.float() - 127.0).repeat_interleave(32, dim=1)
        return (v * s).to(torch.bfloat16)
    b = scales.view(torch.float8_e4m3fn).float().repeat_interleave(16, dim=1)
    return ((v * b) / global_scale).to(torch.bfloat16)


def exact_w(packed, scales, fmt, global_scale):
    lut = torch.tensor(E2M1, device="cuda", dtype=torch.float64)
    lo, hi = packed & 0xF, packed >> 4
    v = lut[torch.stack((lo, hi), dim=-1).reshape(packed.shape[0], -1).long()]
    if fmt == "mxfp4":
        return v * torch.exp2(scales.double() - 127.0).repeat_interleave(32, dim=1)
    return v * scales.view(torch.float8_e4m3fn).double().repeat_interleave(16, dim=1) / global_scale


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--k", type=int, default=14336)
    ap.add_argument("--m-sweep", default="1,2,4,8,16")
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--ours", default="", help="qs_bench_gpu_fp4_fused's gpu_fp4_fused.json")
    a = ap.parse_args()
    ms = [int(v) for v in a.m_sweep.split(",")]
    reps = max(20, a.repeats)
    packed, mxs, nvs, x = operands(a.n, a.k, max(ms))
    global_scale = 100.0
    lut = torch.tensor(E2M1, device="cuda", dtype=torch.float32)
    w_bf16 = dequant(packed, mxs, "mxfp4", 1.0, lut)  # a BF16 weight of the same shape
    cap = torch.cuda.get_device_capability()
    doc = dict(benchmark="gemm_fp4_torch", torch=torch.__version__, device=torch.cuda.get_device_name(),
               cuda=torch.version.cuda, capability=list(cap), n=a.n, k=a.k, repeats=reps, warmup=a.warmup,
               timing="CUDA events around each call; the methods interleaved per repeat; median, min, max",
               points=[])
    if cap[0] < 10 or not hasattr(torch, "float4_e2m1fn_x2"):
        doc["scaled_mm_fp4"] = (f"unavailable: sm_{cap[0]}{cap[1]} has no FP4 tensor cores (torch._scaled_mm "
                                "takes FP4 operands on sm_100 and newer)")
    else:
        doc["scaled_mm_fp4"] = "not timed here: this script's operands are for sm_90's dequantize + matmul"
    print(f"torch._scaled_mm FP4: {doc['scaled_mm_fp4']}", flush=True)
    wx = {f: exact_w(packed, s, f, global_scale) for f, s in (("mxfp4", mxs), ("nvfp4", nvs))}
    for m in ms:
        xm = x[:m]
        methods = {
            "bf16_matmul": lambda: torch.matmul(xm, w_bf16.t()),
            "mxfp4_dequant_mm": lambda: torch.matmul(xm, dequant(packed, mxs, "mxfp4", 1.0, lut).t()),
            "nvfp4_dequant_mm": lambda: torch.matmul(xm, dequant(packed, nvs, "nvfp4", global_scale, lut).t()),
        }
        point = dict(m=m)
        for f in ("mxfp4", "nvfp4"):
            ref = torch.matmul(xm.double(), wx[f].t())
            got = methods[f + "_dequant_mm"]().double()
            point[f + "_check"] = float((got - ref).abs().max() / ref.abs().max().clamp_min(1e-300))
        point.update(interleaved(methods, reps, a.warmup))
        doc["points"].append(point)
        print(f"M={m:4d} " + " ".join(f"{n} {point[n]['median_us']:9.2f} us" for n in methods) +
              f" (vs FP64: mxfp4 {point['mxfp4_check']:.2e}, nvfp4 {point['nvfp4_check']:.2e})", flush=True)
    if a.ours and os.path.exists(a.ours):
        doc["table"] = table(a.ours, doc)
    with open(os.path.join(a.out, "gemm_fp4_torch.json"), "w") as f:
        json.dump(doc, f, indent=1)


def table(ours_path, doc):
    with open(ours_path) as f:
        ours = json.load(f)
    by = {}
    for p in ours["dense"]["points"]:
        by.setdefault(p["m"], {})[p["format"]] = p
    rows = []
    cell = lambda v, f="{:.1f}": "—" if v is None else f.format(v)  # noqa: E731
    print("| M | BF16 cuBLASLt µs | torch.matmul µs | MXFP4 fused µs | MXFP4 unfused µs | torch MXFP4 dequant+mm µs | "
          "NVFP4 fused µs | NVFP4 unfused µs | torch NVFP4 dequant+mm µs | roofline % (MX / NV fused) | "
          "fused speed-up vs BF16 (MX / NV) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for p in doc["points"]:
        o = by.get(p["m"], {})
        t = lambda name: o.get(name, {}).get("time_us")  # noqa: E731
        bf = t("bf16")
        row = dict(m=p["m"], bf16_cublaslt_us=bf, torch_matmul_us=p["bf16_matmul"]["median_us"])
        for f in ("mxfp4", "nvfp4"):
            row[f + "_fused_us"], row[f + "_unfused_us"] = t(f), t(f + "-unfused")
            row[f + "_torch_us"] = p[f + "_dequant_mm"]["median_us"]
            row[f + "_roofline"] = o.get(f, {}).get("weight_roofline_fraction")
            row[f + "_speedup"] = (bf / row[f + "_fused_us"]) if bf and row[f + "_fused_us"] else None
        rows.append(row)
        pct = lambda v: cell(None if v is None else 100 * v, "{:.0f}")  # noqa: E731
        print(f"| {p['m']} | {cell(bf)} | {cell(row['torch_matmul_us'])} | {cell(row['mxfp4_fused_us'])} | "
              f"{cell(row['mxfp4_unfused_us'])} | {cell(row['mxfp4_torch_us'])} | {cell(row['nvfp4_fused_us'])} | "
              f"{cell(row['nvfp4_unfused_us'])} | {cell(row['nvfp4_torch_us'])} | "
              f"{pct(row['mxfp4_roofline'])} / {pct(row['nvfp4_roofline'])} | "
              f"{cell(row['mxfp4_speedup'], '{:.2f}×')} / {cell(row['nvfp4_speedup'], '{:.2f}×')} |")
    return rows


if __name__ == "__main__":
    main()
