#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CPU engine benchmark vs NumPy doing the same steps on the same BF16 tensor, in one command.
# Writes bench/results/cpu_quant.json and bench/results/numpy_quant.json (or into $1).
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$src/bench/results/cpu-2core-$(date +%F)}"
build="${BUILD_DIR:-$src/build}"
mkdir -p "$out"
cmake -S "$src" -B "$build" -DQUANTSCOPE_BUILD_BENCH=ON > /dev/null # the quick start leaves them out
cmake --build "$build" --target qs_bench_cpu_quant > /dev/null
"$build/bench/qs_bench_cpu_quant" --out "$out" --threads 2 --repeats 21
/usr/bin/python3 "$src/bench/numpy_quant.py" --out "$out" --repeats 3
rm -f "$out/bench_input_bf16.bin"
/usr/bin/python3 - "$out" <<'PY'
import json, sys, os
d = sys.argv[1]
a = json.load(open(os.path.join(d, 'cpu_quant.json')))
b = {r['case']: r for r in json.load(open(os.path.join(d, 'numpy_quant.json')))['results']}
print(f"{'case':18s} {'ours ms':>9s} {'GB/s':>6s} {'numpy ms':>9s} {'ratio':>6s}")
for r in a['results']:
    n = b[r['case']]
    print(f"{r['case']:18s} {r['median_ms']:9.1f} {r['input_gb_per_s']:6.3f} {n['median_ms']:9.1f} {n['median_ms']/r['median_ms']:6.1f}x")
PY
