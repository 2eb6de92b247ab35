#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The GEMM timing lab's bar over interleaved rounds (issue 43 item 4). scripts/device-run.sh runs
the pair (qs_bench_gpu_gemmlab, then bench/gemm_lab_torch.py) QS_GEMMLAB_ROUNDS times on the same
GPU; each round's JSON is kept (gpu_gemmlab.round<k>.json, gemm_lab_torch.round<k>.json). This
prints, per format and M, ours / PyTorch's median in every round, and whether the bar held
(≤ 10 % slower at M ≥ 16, ≤ 3 µs slower below) in how many rounds; then per format and overall
"bar held in k of R rounds" (a round holds where every M of it does). No torch needed.
Usage: gemm_lab_rounds.py --dir OUT [--out OUT/gemm_lab_rounds.json]"""
import argparse
import glob
import json
import os
import re
import statistics


def ours_us(p):
    """Ours as compared: _int_mm stops at INT32, so the INT8 point without its post-scale kernel."""
    return p["time_us"] - (p.get("epilogue_us", 0.0) if p["format"] == "int8" else 0.0)


def bar_met(m, ours, theirs):
    return ours / theirs <= 1.10 if m >= 16 else ours - theirs <= 3.0


def pair_rows(ours_doc, torch_doc):
    """(format, M) → dict(ours_us, torch_us, ratio, bar_met) for the points both timed."""
    theirs = {(p["format"], p["m"]): p for p in torch_doc["points"] if "time_us" in p}
    rows = {}
    for p in ours_doc["result"]["points"]:
        t = theirs.get((p["format"], p["m"]))
        if not t:
            continue
        o = ours_us(p)
        rows[(p["format"], p["m"])] = dict(ours_us=o, torch_us=t["time_us"], ratio=o / t["time_us"],
                                           bar_met=bar_met(p["m"], o, t["time_us"]),
                                           ours_p10_us=p.get("time_p10_us"), ours_p90_us=p.get("time_p90_us"),
                                           torch_p10_us=t.get("time_p10_us"), torch_p90_us=t.get("time_p90_us"),
                                           algo_index=p.get("algo_index"), algos_tried=p.get("algos_tried"),
                                           ours_ran=ran_by(p.get("note", "")), torch_ran=kernel_of(t))
    return rows


def ran_by(note):
    """What ran on our side, from the point's note: the cuBLASLt configuration or cublasGemmEx."""
    m = re.search(r"\((id [^)]*)\)", note)
    if "cuBLAS cublasGemmEx (torch.matmul's call), the fastest" in note:
        return "cublasGemmEx"
    return m.group(1) if m else ""


def kernel_of(t):
    """PyTorch's GEMM kernel (gemm_lab_torch.py's `kernels`, memsets and split-K reductions left out)."""
    names = [k for k in t.get("kernels", []) if not k.startswith("Memset") and "splitKreduce" not in k]
    return names[0] if names else ""


def load_rounds(d):
    rounds = []
    for path in sorted(glob.glob(os.path.join(d, "gpu_gemmlab.round*.json")),
                       key=lambda s: int(re.search(r"round(\d+)", s).group(1))):
        k = int(re.search(r"round(\d+)", path).group(1))
        tpath = os.path.join(d, f"gemm_lab_torch.round{k}.json")
        if not os.path.exists(tpath):
            print(f"round {k}: no {os.path.basename(tpath)}; skipped")
            continue
        with open(path) as f:
            ours = json.load(f)
        with open(tpath) as f:
            theirs = json.load(f)
        rounds.append((k, pair_rows(ours, theirs), ours.get("outputs_checked", False)))
    return rounds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=".")
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    rounds = load_rounds(a.dir)
    if not rounds:
        print("no rounds found under", a.dir)
        return 1
    R = len(rounds)
    keys = []
    for _, rows, _ in rounds:
        for key in rows:
            if key not in keys:
                keys.append(key)
    head = " ".join(f"{'r' + str(k):>7s}" for k, _, _ in rounds)
    print(f"ours / PyTorch per round (median µs each; INT8 without its post-scale), {R} rounds")
    print(f"{'format':12s} {'M':>6s} {head} {'median':>7s} {'max':>7s}  bar held")
    table, per_format = [], {}
    for fmt, m in keys:
        ratios = [rows.get((fmt, m), {}).get("ratio") for _, rows, _ in rounds]
        held = [rows[(fmt, m)]["bar_met"] for _, rows, _ in rounds if (fmt, m) in rows]
        got = [r for r in ratios if r is not None]
        cells = " ".join(f"{r:7.3f}" if r is not None else f"{'-':>7s}" for r in ratios)
        n_held = sum(1 for h in held if h)
        print(f"{fmt:12s} {m:6d} {cells} {statistics.median(got):7.3f} {max(got):7.3f}  {n_held} of {len(held)}"
              + ("" if n_held == len(held) else "  MISSED"))
        table.append(dict(format=fmt, m=m, ratios=ratios, median_ratio=statistics.median(got), max_ratio=max(got),
                          held=n_held, rounds=len(held)))
        per_format.setdefault(fmt, [True] * R)
        for i, (_, rows, _) in enumerate(rounds):
            if (fmt, m) in rows and not rows[(fmt, m)]["bar_met"]:
                per_format[fmt][i] = False
    # Each missed row round by round: both medians and spreads, and what each side ran.
    for fmt, m in keys:
        if all(rows[(fmt, m)]["bar_met"] for _, rows, _ in rounds if (fmt, m) in rows):
            continue
        print(f"{fmt} M = {m}, round by round (ours median [p10..p90] µs, what ran | PyTorch's):")
        for k, rows, _ in rounds:
            r = rows.get((fmt, m))
            if r:
                print(f"  r{k}: {r['ours_us']:.1f} [{r['ours_p10_us'] or 0:.1f}..{r['ours_p90_us'] or 0:.1f}] "
                      f"{r['ours_ran'] or '?'} | {r['torch_us']:.1f} [{r['torch_p10_us'] or 0:.1f}.."
                      f"{r['torch_p90_us'] or 0:.1f}] {r['torch_ran'] or '?'}"
                      + ("" if r["bar_met"] else "  MISSED"))
    summary = {}
    for fmt, ok in per_format.items():
        summary[fmt] = sum(ok)
        print(f"{fmt:12s}: bar held in {sum(ok)} of {R} rounds")
    whole = [all(per_format[f][i] for f in per_format) for i in range(R)]
    checked = all(c for _, _, c in rounds)
    print(f"all formats: bar held in {sum(whole)} of {R} rounds; outputs checked in every round: "
          f"{'yes' if checked else 'NO'}")
    doc = dict(benchmark="gemm_lab_rounds", rounds=[k for k, _, _ in rounds], table=table,
               held_per_format=summary, held_all=sum(whole), round_count=R, outputs_checked=checked)
    with open(a.out or os.path.join(a.dir, "gemm_lab_rounds.json"), "w") as f:
        json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
