#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch's peers of the fused W4A8 GEMMs (issue 43), on the same GPU in the same run as
qs_bench_gpu_w4a8_fused:
  int_mm      torch._int_mm(X int8 [M, K], W int8ᵀ) + the scaling y = s_tok·s_ch·acc to BF16, on the
              INT4 weights unpacked to INT8 ahead of time (q − z, per channel: |q − z| ≤ 15); torch
              refuses small M on some versions ("needs to be greater than 16"): then M is padded to
              32 and the point says so
  scaled_mm   torch._scaled_mm(X e4m3, W e4m3ᵀ, scale_a = s_tok [M, 1], scale_b = s_ch [1, N],
              out_dtype = bf16): row-wise FP8 (M padded to a multiple of 16 where refused)
  bf16        torch.matmul of the BF16 weights
N = 4096, K = 14336 over M ∈ {1, 2, 4, 8, 16, 1024, 8192}. The methods interleave (each repeat times
every method once, CUDA events around the call); median, min, max of --repeats. Each method's
output is checked against an FP32 matmul of the same codes and scales (worst |Δ| / max |y|). With
--ours (gpu_w4a8_fused.json) it prints the docs/perf.md "Fused W4A8 GEMM (issue 43)" table."""
import argparse
import json
import os

import torch

from torch_timing import interleaved  # bench/torch_timing.py, beside this script


def operands(n, k, max_m):
    g = torch.Generator(device="cuda").manual_seed(48)
    q = torch.randint(-8, 8, (n, k), device="cuda", dtype=torch.int32, generator=g)
    z = torch.randint(-8, 8, (n, 1), device="cuda", dtype=torch.int32, generator=g)
    s_ch = (torch.rand(n, device="cuda", generator=g) * 1e-3 + 1e-3).float()
    w_i8 = (q - z).to(torch.int8)  # the unpacked INT8 weight (exact: |q − z| ≤ 15)
    w_bf16 = (w_i8.float() * s_ch[:, None]).to(torch.bfloat16)
    w_f8 = w_i8.float().to(torch.float8_e4m3fn)  # integers ≤ 15: exact in E4M3
    x = torch.randn(max_m, k, device="cuda")
    s_i8 = x.abs().amax(dim=1).clamp_min(1e-30) / 127
    x_i8 = torch.round(x / s_i8[:, None]).clamp(-127, 127).to(torch.int8)
    s_f8 = x.abs().amax(dim=1).clamp_min(1e-30) / 448
    x_f8 = (x / s_f8[:, None]).clamp(-448, 448).to(torch.float8_e4m3fn)
    return dict(w_i8=w_i8, w_bf16=w_bf16, w_f8=w_f8, s_ch=s_ch, x_bf16=x.to(torch.bfloat16), x_i8=x_i8, s_i8=s_i8,
                x_f8=x_f8, s_f8=s_f8)


def padded_rows(t, rows):
    if t.shape[0] >= rows:
        return t
    return torch.cat((t, t[:1].expand(rows - t.shape[0], -1)), dim=0).contiguous()


def make_int_mm(o, m):
    """(fn, padded M) for torch._int_mm + scaling, trying M first, then 32 rows."""
    for mp in (m, max(32, (m + 15) // 16 * 16)):
        x, s = padded_rows(o["x_i8"][:m], mp), padded_rows(o["s_i8"][:m, None], mp)
        wt = o["w_i8"].t()

        def fn(x=x, s=s, wt=wt):
            return (torch._int_mm(x, wt).float() * s * o["s_ch"][None, :]).to(torch.bfloat16)

        try:
            fn()
            return fn, mp
        except RuntimeError:
            continue
    return None, m


def make_scaled_mm(o, m):
    for mp in (m, (m + 15) // 16 * 16, max(32, (m + 15) // 16 * 16)):
        x, s = padded_rows(o["x_f8"][:m], mp), padded_rows(o["s_f8"][:m, None], mp).contiguous()
        wt, sb = o["w_f8"].t(), o["s_ch"][None, :].contiguous()

        def fn(x=x, s=s, wt=wt, sb=sb):
            return torch._scaled_mm(x, wt, scale_a=s, scale_b=sb, out_dtype=torch.bfloat16)

        try:
            fn()
            return fn, mp
        except (RuntimeError, TypeError):
            continue
    return None, m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--k", type=int, default=14336)
    ap.add_argument("--m-sweep", default="1,2,4,8,16,1024,8192")
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--ours", default="", help="qs_bench_gpu_w4a8_fused's gpu_w4a8_fused.json")
    a = ap.parse_args()
    ms = [int(v) for v in a.m_sweep.split(",")]
    reps = max(20, a.repeats)
    o = operands(a.n, a.k, max(ms))
    doc = dict(benchmark="gemm_w4a8_torch", torch=torch.__version__, device=torch.cuda.get_device_name(),
               cuda=torch.version.cuda, n=a.n, k=a.k, repeats=reps, warmup=a.warmup,
               timing="CUDA events around each call; the methods interleaved per repeat; median, min, max",
               points=[])
    for m in ms:
        point = dict(m=m)
        methods = {"bf16_matmul": lambda m=m: torch.matmul(o["x_bf16"][:m], o["w_bf16"].t())}
        fn, mp = make_int_mm(o, m)
        if fn is not None:
            methods["int_mm"], point["int_mm_rows"] = fn, mp
        else:
            point["int_mm_error"] = "torch._int_mm refused this shape"
        fn, mp = make_scaled_mm(o, m)
        if fn is not None:
            methods["scaled_mm_rowwise"], point["scaled_mm_rows"] = fn, mp
        else:
            point["scaled_mm_error"] = "torch._scaled_mm (row-wise) refused this shape"
        # The outputs against FP32 matmuls of the same codes and scales (rows < M only).
        w = o["w_i8"].float() * o["s_ch"][:, None]
        refs = {"int_mm": (o["x_i8"][:m].float() * o["s_i8"][:m, None]) @ w.t(),
                "scaled_mm_rowwise": (o["x_f8"][:m].float() * o["s_f8"][:m, None]) @ w.t()}
        for name, ref in refs.items():
            if name in methods:
                got = methods[name]()[:m].float()
                point[name + "_check"] = float((got - ref).abs().max() / ref.abs().max().clamp_min(1e-30))
        point.update(interleaved(methods, reps, a.warmup))
        doc["points"].append(point)
        print(f"M={m:6d} " + " ".join(f"{n} {point[n]['median_us']:9.2f} us" for n in methods) +
              "".join(f" ({n} rows {point[n + '_rows']})" for n in ("int_mm", "scaled_mm")
                      if point.get(n + "_rows", m) != m) +
              "".join(f" [{n} vs FP32: {point[n + '_check']:.2e}]" for n in refs if n + "_check" in point),
              flush=True)
    if a.ours and os.path.exists(a.ours):
        doc["table"] = table(a.ours, doc)
    with open(os.path.join(a.out, "gemm_w4a8_torch.json"), "w") as f:
        json.dump(doc, f, indent=1)


def table(ours_path, doc):
    with open(ours_path) as f:
        ours = json.load(f)
    by = {}
    for p in ours["lab"]["points"]:
        by.setdefault(p["m"], {})[p["format"]] = p
    standalone = {(r["act"], r["m"]): r for r in ours.get("fused", []) if r["group"] == 0}
    rows = []
    print("| M | BF16 cuBLASLt µs | torch.matmul µs | W4A8-INT8 unfused µs | W4A8-INT8 fused µs | fused + X quantizer "
          "µs | torch._int_mm µs | W4A8-FP8 unfused µs | W4A8-FP8 fused µs | torch._scaled_mm µs | INT8 fused vs "
          "BF16 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    cell = lambda v, f="{:.1f}": "—" if v is None else f.format(v)  # noqa: E731
    for p in doc["points"]:
        o = by.get(p["m"], {})
        t = {k: o.get(k, {}).get("time_us") for k in ("bf16", "w4a8-int8", "w4a8-int8-fused", "w4a8-fp8",
                                                       "w4a8-fp8-fused")}
        sq = standalone.get(("int8", p["m"]), {}).get("quantize_and_gemm_us")
        row = dict(m=p["m"], bf16_cublaslt_us=t["bf16"], torch_matmul_us=p["bf16_matmul"]["median_us"],
                   int8_unfused_us=t["w4a8-int8"], int8_fused_us=t["w4a8-int8-fused"], int8_fused_with_quantizer_us=sq,
                   int_mm_us=p.get("int_mm", {}).get("median_us"), fp8_unfused_us=t["w4a8-fp8"],
                   fp8_fused_us=t["w4a8-fp8-fused"], scaled_mm_us=p.get("scaled_mm_rowwise", {}).get("median_us"),
                   int8_speedup_vs_bf16=(t["bf16"] / t["w4a8-int8-fused"])
                   if t["bf16"] and t["w4a8-int8-fused"] else None)
        rows.append(row)
        print(f"| {p['m']} | {cell(t['bf16'])} | {cell(row['torch_matmul_us'])} | {cell(t['w4a8-int8'])} | "
              f"{cell(t['w4a8-int8-fused'])} | {cell(sq)} | {cell(row['int_mm_us'])} | {cell(t['w4a8-fp8'])} | "
              f"{cell(t['w4a8-fp8-fused'])} | {cell(row['scaled_mm_us'])} | "
              f"{cell(row['int8_speedup_vs_bf16'], '{:.2f}×')} |")
    return rows


if __name__ == "__main__":
    main()
