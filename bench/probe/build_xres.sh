#!/usr/bin/env bash
# Builds bench/probe/w4a8_xres_harness.cu (issue 43: X̂ resident a K slice, several tiles of W a
# warp) with the product's fused W4A16 / W4A8 sources it compares against, nvcc alone.
# Usage: bench/probe/build_xres.sh [OUTDIR] [NVCC FLAGS...]   (default /tmp/qs-xres), then OUTDIR/w4a8_xres_harness
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-/tmp/qs-xres}
shift || true
mkdir -p "$out/obj"
flags="-lineinfo -O3 -std=c++17 -arch=sm_90 -Icore -Igpu/kernels -Igpu/kernels/gemm -Igpu -Ibench/probe --expt-relaxed-constexpr"
pids=()
for f in gemm_w4a16 gemm_w4a16_small gemm_w4a16_tiled gemm_w4a16_stream gemm_w4a16_cutlass gemm_w4a16_cutlass_shuffled gemm_w4a8 gemm_w4a8_stream gemm_w4a8_wgmma; do
  # (gemm_w4a8_wgmma as sm_90 without QS_W4A8_WGMMA: its refusing host side, which the streaming launcher links)
  [[ -f "$out/obj/$f.o" ]] || { nvcc $flags -c "gpu/kernels/gemm/$f.cu" -o "$out/obj/$f.o" & pids+=($!); }
done
[[ -f "$out/obj/error.o" ]] || { g++ -std=c++20 -O2 -Icore -c core/util/error.cpp -o "$out/obj/error.o" & pids+=($!); }
# shellcheck disable=SC2068 # extra flags are words
nvcc $flags $@ -Xptxas -v -c bench/probe/w4a8_xres_harness.cu -o "$out/harness.o" 2>"$out/ptxas.txt" & pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done
nvcc -arch=sm_90 "$out"/obj/*.o "$out/harness.o" -o "$out/w4a8_xres_harness"
grep -A2 'xresKernel' "$out/ptxas.txt" | grep -o 'Function properties for [^ ]*\|Used [0-9]* registers\|[0-9]* bytes spill stores' | paste - - - 2>/dev/null | head -40 || true
