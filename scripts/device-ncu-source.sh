#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Nsight Compute per-instruction (SASS) profile of chosen kernels on the GPU machine: which
# instructions the value-table kernels execute most and where their warps stall. Run after
# scripts/device-run.sh has built the benchmark (same QS_BUILD_DIR). Writes one CSV per case under
# $OUT: ncu-sass-CASE.csv (kernel, address, SASS, executed instructions, stall samples).
# Environment: QS_NCU_CASES (bench cases, default int4_asym_g128), QS_NCU_KERNELS (regex).
set -uo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$src/out}"
build="${QS_BUILD_DIR:-/tmp/qs-build-gpu}"
ncu_bin="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || true)"
[[ -n "$ncu_bin" ]] || { echo "ncu not found"; exit 1; }
for c in ${QS_NCU_CASES:-int4_asym_g128}; do
  rep="/tmp/ncu-src-$c"
  "$ncu_bin" -f -o "$rep" -k "regex:${QS_NCU_KERNELS:-kIntFast|kGroupsY}" --launch-count "${QS_NCU_COUNT:-3}" \
    --section SourceCounters --section InstructionStats --section SpeedOfLight \
    "$build/bench/qs_bench_gpu_quant" --only "$c" --repeats 1 --warmup 0 --no-verify > "$OUT/ncu-src-$c.log" 2>&1 \
    || { echo "ncu failed"; tail -20 "$OUT/ncu-src-$c.log"; continue; }
  "$ncu_bin" -i "$rep.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu-sass-$c.csv" 2>&1 || echo "export failed"
  "$ncu_bin" -i "$rep.ncu-rep" --page details --print-summary per-kernel 2>&1 | grep -E "k[A-Z][A-Za-z0-9]+|Duration|Executed Instructions |Issue Slots Busy" | head -30
  wc -c "$OUT/ncu-sass-$c.csv"
done
