#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Measured KL at several budget points against the budget's predicted objective (docs/perf.md).

For one model: capture its activations, scan its weights with several candidate specs and the
capture, solve the budget at several bits-per-weight points, evaluate each chosen recipe with the
model itself (quantscope-cli eval), and report per point the predicted output-aware error, the
predicted weight error of the same choice, and the measured KL, with the Spearman rank
correlation of each proxy against the measured KL. Also, with --per-layer, one uniform recipe's
per-module KL against each module's output-aware and weight error.

Everything goes through quantscope-cli (capture, scan, budget, eval); this script only orders the
steps and does the statistics. Writes OUT/kl_table.json and prints a Markdown table.
"""
import argparse
import json
import os
import subprocess
import sys
import time


def run(cmd, **kw):
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    t0 = time.time()
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, **kw).stdout
    return out, time.time() - t0


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):  # ties share their mean rank
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0
        i = j + 1
    return r


def spearman(x, y):
    if len(x) < 3:
        return None
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / (sxx * syy) ** 0.5 if sxx > 0 and syy > 0 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default="quantscope-cli")
    ap.add_argument("--model", required=True)
    ap.add_argument("--text")
    ap.add_argument("--tokens")
    ap.add_argument("--samples", type=int, default=32)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--specs", default='int:bits=3:group=64,int:bits=4:group=128,int:bits=4:group=32,'
                                       'int:bits=8:granularity="channel"')
    ap.add_argument("--bits", default="3.3,3.6,4.0,4.3,5.0,6.0,7.0", help="budgets in bits per weight")
    ap.add_argument("--mb", help="or budgets in MB (comma-separated)")
    ap.add_argument("--per-layer-recipe", help="a uniform recipe for the per-module KL scatter")
    ap.add_argument("--per-layer-samples", type=int, default=8)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    data = ["--text", a.text] if a.text else ["--tokens", a.tokens]
    common = [a.model] + data + ["--samples", str(a.samples), "--seq", str(a.seq), "--device", a.device, "--quiet"]
    result = {"model": a.model, "samples": a.samples, "seq": a.seq, "specs": a.specs, "timings": {}}

    cap = os.path.join(a.out, "model.capture.safetensors")
    out, secs = run([a.cli, "capture"] + common + ["--out", cap, "--json"])
    result["capture"] = json.loads(out)
    result["timings"]["capture_s"] = secs

    # The weights as the C++ side reads them: the model folder, or (GGUF) transformers' export.
    weights = a.model
    if a.model.endswith(".gguf") or not any(f.endswith(".safetensors") for f in os.listdir(a.model)):
        weights = os.path.join(a.out, "weights.safetensors")
        env = dict(os.environ)
        run([os.environ.get("QUANTSCOPE_PYTHON", "python3"), "-m", "quantscope_bridge", "weights", a.model,
             "--dtype", "f32", "--out", weights], env=env)
    report = os.path.join(a.out, "scan.jsonl")
    _, secs = run([a.cli, "scan", weights, "--specs", a.specs, "--capture", cap, "--out", report, "--quiet",
                   "--device", a.device])
    result["timings"]["scan_s"] = secs

    points = []
    budgets = [("--mb", x) for x in a.mb.split(",")] if a.mb else [("--bits-per-weight", x) for x in a.bits.split(",")]
    for flag, bits in budgets:
        recipe = os.path.join(a.out, f"recipe-{bits}.json")
        out, _ = run([a.cli, "budget", report, flag, bits, "--objective", "output", "--out", recipe, "--json"])
        b = json.loads(out)
        ev_path = os.path.join(a.out, f"eval-{bits}.json")
        out, secs = run([a.cli, "eval"] + common + ["--recipe", recipe, "--capture", cap, "--out", ev_path,
                                                    "--json"])
        ev = json.loads(out)
        # The same choice's weight objective: Σ mse·numel (its squared Frobenius error).
        sq = sum(m["mse"] * m["numel"] for m in ev["modules"])
        points.append({
            "budget": f"{flag} {bits}",
            "quantized_bits_per_weight": 8.0 * sum(m["bytes"] for m in ev["modules"]) / sum(m["numel"] for m in ev["modules"]),
            "mb": b["mb"],
            "predicted_output_error": b["error"],
            "predicted_weight_mse_sum": sq,
            "kl": ev["kl"]["mean"], "kl_ci95": ev["kl"]["ci95"],
            "top1": ev["top1"]["mean"],
            "ppl_ref": ev["reference"]["ppl"], "ppl_q": ev["quantized"]["ppl"],
            "eval_s": secs,
        })
    result["points"] = points
    kl = [p["kl"] for p in points]
    result["spearman_output_vs_kl"] = spearman([p["predicted_output_error"] for p in points], kl)
    result["spearman_weight_vs_kl"] = spearman([p["predicted_weight_mse_sum"] for p in points], kl)

    if a.per_layer_recipe:
        out, secs = run([a.cli, "eval"] + common + ["--recipe", a.per_layer_recipe, "--capture", cap, "--per-layer",
                                                    "--per-layer-samples", str(a.per_layer_samples),
                                                    "--out", os.path.join(a.out, "eval-per-layer.json"), "--json"])
        ev = json.loads(out)
        mods = [m for m in ev["modules"] if m["kl"] is not None and m["output_error"] is not None]
        result["per_layer"] = {
            "recipe": a.per_layer_recipe, "modules": len(mods), "seconds": secs,
            "spearman_output_vs_kl": spearman([m["output_error"] for m in mods], [m["kl"] for m in mods]),
            "spearman_weight_vs_kl": spearman([m["mse"] * m["numel"] for m in mods], [m["kl"] for m in mods]),
            "spearman_rel_weight_vs_kl": spearman([m["rel_frobenius"] for m in mods], [m["kl"] for m in mods]),
            "spearman_rel_output_vs_kl": spearman([m["output_error_rel"] for m in mods], [m["kl"] for m in mods]),
        }
    with open(os.path.join(a.out, "kl_table.json"), "w") as f:
        json.dump(result, f, indent=1)
    print("| bits per quantized weight | MB | predicted output error | Σ weight MSE·numel | measured KL (95 % CI) | top-1 | ppl ref → q |")
    print("|---:|---:|---:|---:|---|---:|---|")
    for p in points:
        print(f"| {p['quantized_bits_per_weight']:.3f} | {p['mb']:.3f} | {p['predicted_output_error']:.4g} | "
              f"{p['predicted_weight_mse_sum']:.4g} | {p['kl']:.4g} ({p['kl_ci95'][0]:.3g}–{p['kl_ci95'][1]:.3g}) | "
              f"{p['top1']:.4f} | {p['ppl_ref']:.3f} → {p['ppl_q']:.3f} |")
    print(f"Spearman vs measured KL: output-aware {result['spearman_output_vs_kl']}, "
          f"weight {result['spearman_weight_vs_kl']}")
    if "per_layer" in result:
        print("per layer:", json.dumps(result["per_layer"]))


if __name__ == "__main__":
    main()
