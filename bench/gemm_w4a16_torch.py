#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch's peers of the fused W4A16 GEMM (issue 43), on the same GPU in the same run as
qs_bench_gpu_w4a16_fused:
  tinygemm  torch.ops.aten._weight_int4pack_mm on weights packed by
            torch.ops.aten._convert_weight_to_int4pack (the new signature takes uint8 [N, K/2],
            two nibbles a byte, high nibble first; the old one int32 [N, K] codes; both tried),
            scales and zeros [K/g, N, 2] in BF16: ŵ = (u − 8)·s + zf with u = q + 8, zf = −z·s
  bf16      torch.matmul of the BF16 weights
  gemlite   with --gemlite DIR (the folder holding gemlite's package, scripts/vendor-deps.sh puts
            0.6.0.post2 in .vendor/gemlite): Mobius Labs' Triton W4A16 layer (GemLiteLinear, 4 bits,
            BF16 in and out) packed from the same codes, scales and zero points in HQQ's form
            ŵ = (u − z_u)·s with z_u = z + 8; its autotune cache for the device where it ships one,
            else the H100's (named in the JSON); skipped with the reason where it does not import or run
N = 4096, K = 14336, g128 over M ∈ {1, 16, 128, 1024, 8192}. The methods interleave: each repeat
times every method once (CUDA events around the call), so drifting clocks hit all alike; median
and spread (min, max) of --repeats. tinygemm's output is checked against the dequantized weights'
matmul (worst |Δ| relative to max |y|), gemlite's too. With --ours (gpu_w4a16_fused.json) it prints the
docs/perf.md "Fused W4A16 GEMM (issue 43)" table: M, BF16 cuBLASLt, torch.matmul, unfused, fused, tinygemm,
gemlite, roofline %, speed-up of fused over BF16."""
import argparse
import json
import os
import sys

import torch

from torch_timing import interleaved  # bench/torch_timing.py, beside this script


def pack_tinygemm(u, inner_k_tiles):
    """u: uint4 codes [N, K] as int32 in [0, 15]. Returns (packed, how)."""
    errors = []
    try:  # torch ≥ 2.5: uint8 [N, K/2], element 2j in the high nibble
        u8 = ((u[:, ::2] << 4) | u[:, 1::2]).to(torch.uint8)
        return torch.ops.aten._convert_weight_to_int4pack(u8, inner_k_tiles), "uint8 [N, K/2]"
    except Exception as e:  # noqa: BLE001 - the other signature
        errors.append(str(e).splitlines()[0])
    try:  # older torch: int32 [N, K]
        return torch.ops.aten._convert_weight_to_int4pack(u.to(torch.int32), inner_k_tiles), "int32 [N, K]"
    except Exception as e:  # noqa: BLE001
        errors.append(str(e).splitlines()[0])
    raise RuntimeError("_convert_weight_to_int4pack refused both signatures: " + " | ".join(errors))


def operands(n, k, group, max_m):
    g = torch.Generator(device="cuda").manual_seed(43)
    u = torch.randint(0, 16, (n, k), device="cuda", dtype=torch.int32, generator=g)
    scales = torch.rand(n, k // group, device="cuda", generator=g) * 1e-3 + 1e-3
    zeros = torch.randint(-8, 8, (n, k // group), device="cuda", generator=g).float()
    q = (u - 8).float().reshape(n, k // group, group)
    w = ((q - zeros.unsqueeze(-1)) * scales.unsqueeze(-1)).reshape(n, k).to(torch.bfloat16)
    # tinygemm's ŵ = (u − 8)·s + zf: zf = −z·s; [K/g, N, 2] BF16.
    sz = torch.stack((scales, -zeros * scales), dim=-1).transpose(0, 1).contiguous().to(torch.bfloat16)
    x = torch.randn(max_m, k, device="cuda", dtype=torch.bfloat16)
    return u, w, sz, x, scales, zeros


def gemlite_layer(folder, u, scales, zeros, group):
    """gemlite's W4A16 layer on the same codes, or (None, why). ŵ = (u − (z + 8))·s in HQQ's form
    (gemlite's pack turns it into its own u·s + (−z_u·s) in BF16, as tinygemm's zf)."""
    sys.path.insert(0, folder)
    try:
        import gemlite  # noqa: PLC0415 - only where asked
        from gemlite import DType, GemLiteLinear  # noqa: PLC0415
    except Exception as e:  # noqa: BLE001 - any import failure is the reason it is skipped
        return None, {"error": f"import gemlite failed: {type(e).__name__}: {e}"}
    info = {"version": getattr(gemlite, "__version__", "?")}
    try:
        # gemlite loads its shipped autotune cache when the device's name contains a tag it has; an
        # H200 has none, so the H100's (same architecture and SM count) is loaded and named.
        configs = os.path.join(folder, "gemlite", "configs")
        name = torch.cuda.get_device_properties(0).name.lower().replace(" ", "_")
        tags = sorted((f[:-5] for f in os.listdir(configs) if f.endswith(".json")), key=len, reverse=True)
        own = next((t for t in tags if t in name), None)
        if own is None and os.path.exists(os.path.join(configs, "h100.json")):
            GemLiteLinear.load_config(os.path.join(configs, "h100.json"))
            info["autotune_cache"] = "h100.json (none shipped for this device)"
        else:
            info["autotune_cache"] = f"{own}.json" if own else "none (autotuned on first call)"
        n, k = u.shape
        layer = GemLiteLinear(4, group_size=group, in_features=k, out_features=n, input_dtype=DType.BF16,
                              output_dtype=DType.BF16)
        layer.pack(u.to(torch.uint8), scales.to(torch.bfloat16).contiguous(),
                   (zeros + 8).to(torch.bfloat16).contiguous(), bias=None)
        return layer, info
    except Exception as e:  # noqa: BLE001
        info["error"] = f"gemlite's layer failed: {type(e).__name__}: {e}"
        return None, info


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--k", type=int, default=14336)
    ap.add_argument("--group", type=int, default=128)
    ap.add_argument("--m-sweep", default="1,16,128,1024,8192")
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--inner-k-tiles", type=int, default=8)
    ap.add_argument("--ours", default="", help="qs_bench_gpu_w4a16_fused's gpu_w4a16_fused.json")
    ap.add_argument("--gemlite", default="", help="folder holding gemlite's package (.vendor/gemlite)")
    a = ap.parse_args()
    ms = [int(v) for v in a.m_sweep.split(",")]
    reps = max(20, a.repeats)
    u, w, sz, x, scales, zeros = operands(a.n, a.k, a.group, max(ms))
    doc = dict(benchmark="gemm_w4a16_torch", torch=torch.__version__, device=torch.cuda.get_device_name(),
               cuda=torch.version.cuda, n=a.n, k=a.k, group=a.group, repeats=reps, warmup=a.warmup,
               timing="CUDA events around each call; the methods interleaved per repeat; median, min, max",
               points=[])
    try:
        packed, how = pack_tinygemm(u, a.inner_k_tiles)
        doc["tinygemm_pack"] = how
    except Exception as e:  # noqa: BLE001
        packed, doc["tinygemm_error"] = None, str(e)
        print(f"tinygemm unavailable: {e}", flush=True)
    gl = None
    if a.gemlite:
        gl, doc["gemlite"] = gemlite_layer(a.gemlite, u, scales, zeros, a.group)
        print(f"gemlite: {doc['gemlite']}", flush=True)
    for m in ms:
        xm = x[:m]
        methods = {"bf16_matmul": lambda: torch.matmul(xm, w.t())}
        if packed is not None:
            methods["tinygemm"] = lambda: torch.ops.aten._weight_int4pack_mm(xm, packed, a.group, sz)
        if gl is not None:
            methods["gemlite"] = lambda: gl(xm)
        point = dict(m=m)
        ref = torch.matmul(xm, w.t()).float()
        for peer in ("tinygemm", "gemlite"):  # the packing and the formula checked before timing
            if peer not in methods:
                continue
            try:  # the first call also runs gemlite's autotune for this M, outside the timing
                got = methods[peer]().float()
                point[f"{peer}_check"] = float((got - ref).abs().max() / ref.abs().max().clamp_min(1e-30))
            except Exception as e:  # noqa: BLE001 - a peer that fails at this M is left out, with why
                point[f"{peer}_error"] = f"{type(e).__name__}: {e}"
                del methods[peer]
        point.update(interleaved(methods, reps, a.warmup))
        doc["points"].append(point)
        checks = "; ".join(f"{p} vs dequantized matmul: {point[p + '_check']:.2e}" for p in ("tinygemm", "gemlite")
                           if p + "_check" in point)
        print(f"M={m:6d} " + " ".join(f"{n} {point[n]['median_us']:9.2f} us" for n in methods) +
              (f" ({checks})" if checks else ""), flush=True)
    if a.ours and os.path.exists(a.ours):
        doc["table"] = table(a.ours, doc)
    with open(os.path.join(a.out, "gemm_w4a16_torch.json"), "w") as f:
        json.dump(doc, f, indent=1)


def table(ours_path, doc):
    with open(ours_path) as f:
        ours = json.load(f)
    by = {}
    for p in ours["dense"]["points"]:
        by.setdefault(p["m"], {})[p["format"]] = p
    rows = []
    print("| M | BF16 cuBLASLt µs | torch.matmul µs | unfused W4A16 µs | fused W4A16 µs | tinygemm µs | gemlite µs | "
          "roofline % (fused) | fused speed-up vs BF16 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for p in doc["points"]:
        o = by.get(p["m"], {})
        bf, un, fu = (o.get(k, {}).get("time_us") for k in ("bf16", "w4a16", "w4a16-fused"))
        roof = o.get("w4a16-fused", {}).get("weight_roofline_fraction")
        # At compute-bound M the lab times the fused kernel alternating with the BF16 GEMM
        # (bf16_paired_us) and its speed-up over BF16 comes from those pairs (speedup_vs_bf16).
        paired = o.get("w4a16-fused", {}).get("bf16_paired_us")
        speedup = o.get("w4a16-fused", {}).get("speedup_vs_bf16") or ((bf / fu) if bf and fu else None)
        row = dict(m=p["m"], bf16_cublaslt_us=bf, torch_matmul_us=p["bf16_matmul"]["median_us"], unfused_us=un,
                   fused_us=fu, tinygemm_us=p.get("tinygemm", {}).get("median_us"),
                   gemlite_us=p.get("gemlite", {}).get("median_us"),
                   fused_weight_roofline=roof, bf16_paired_us=paired, fused_speedup_vs_bf16=speedup)
        rows.append(row)
        cell = lambda v, f="{:.1f}": "—" if v is None else f.format(v)  # noqa: E731
        bf_cell = cell(bf) + (f" (paired {paired:.1f})" if paired else "")
        print(f"| {p['m']} | {bf_cell} | {cell(row['torch_matmul_us'])} | {cell(un)} | {cell(fu)} | "
              f"{cell(row['tinygemm_us'])} | {cell(row['gemlite_us'])} | "
              f"{cell(None if roof is None else 100 * roof, '{:.0f}')} | "
              f"{cell(row['fused_speedup_vs_bf16'], '{:.2f}×')}{' (paired)' if paired else ''} |")
    return rows


if __name__ == "__main__":
    main()
