#!/usr/bin/env bash
# Builds of the W4A16 small-M kernels (gemm_w4a16_stream.cu and gemm_w4a16_small.cu) with measurement
# switches against each other (issue 43, W4A16 M ≤ 16 ≤ 20 µs; docs/perf.md "Fused W4A16 GEMM (issue
# 43)"): each variant LABEL=FLAGS compiles both with FLAGS, links them into w4a16_stream_harness and
# runs its sweep (M = 1 and 16, N = 4096, K = 14336, g128; split × chunks a step × warps), one
# variant after the other. Prints ptxas's registers of the streaming kernel per variant, then each
# variant's best sweep time at M = 1 and M = 16.
# Usage: bench/probe/w4a16_variants.sh OUTDIR LABEL=FLAGS ...
#   FLAGS are compiler flags (e.g. a -D switch the sources read); the seventeenth session timed its
#   batched X stage this way (QS_STAGE_BATCH, since removed; bench/results/gpu-h200-2026-11-30i/
#   issue43-w4a16-stage-batch/).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?OUTDIR}
shift
mkdir -p "$out/common"
flags="-lineinfo -O3 -std=c++17 -arch=sm_90 -Icore -Igpu/kernels -Igpu/kernels/gemm -Igpu --expt-relaxed-constexpr"
for f in gemm_w4a16 gemm_w4a16_tiled gemm_w4a16_cutlass gemm_w4a16_cutlass_shuffled; do
  nvcc $flags -c "gpu/kernels/gemm/$f.cu" -o "$out/common/$f.o" &
done
nvcc $flags -c bench/probe/w4a16_stream_harness.cu -o "$out/common/harness.o" &
g++ -std=c++20 -O2 -Icore -c core/util/error.cpp -o "$out/common/error.o" &
for v in "$@"; do
  label=${v%%=*} vflags=${v#*=}
  mkdir -p "$out/$label"
  # shellcheck disable=SC2086 # FLAGS are words
  nvcc $flags $vflags -Xptxas -v -c gpu/kernels/gemm/gemm_w4a16_stream.cu -o "$out/$label/stream.o" \
    2>"$out/ptxas_$label.txt" &
  # shellcheck disable=SC2086
  nvcc $flags $vflags -c gpu/kernels/gemm/gemm_w4a16_small.cu -o "$out/$label/small.o" &
done
wait
for v in "$@"; do
  label=${v%%=*}
  nvcc -arch=sm_90 "$out"/common/*.o "$out/$label"/*.o -o "$out/harness_$label"
done
for v in "$@"; do
  label=${v%%=*}
  "$out/harness_$label" > "$out/run_$label.log" 2>&1 || echo "harness $label failed"
done
for v in "$@"; do
  label=${v%%=*}
  echo "== $label: registers $(grep -o 'Used [0-9]* registers' "$out/ptxas_$label.txt" | awk '{print $2}' | sort -n | uniq | tr '\n' ' ')"
  awk -v L="$label" '/^== M/{m=$3 " N " $5 " E " $11} /sweep stream/{t=$(NF-3)+0; if(!(m in best)||t<best[m]){best[m]=t; line[m]=$0}}
    /stream  \(kernel 7 default\)/{print L, "M", m, "default:", $0}
    END{for(k in best) print L, "M", k, "best", best[k], ":", line[k]}' "$out/run_$label.log"
done
