#!/usr/bin/env bash
# Builds the two standalone probes of the W4A16 streaming kernel's design (issue 43) with nvcc
# alone, no CMake, no Qt, on the GPU machine (docs/perf.md "Fused W4A16 GEMM (issue 43)", run 7):
#   read_pattern       — how fast 29 MB can be read in the swapped kernel's row-strided pattern
#                        against one contiguous KiB a warp a chunk (warm, and after an L2 flush);
#   w4a16_stream_harness — the fused W4A16 kernels themselves (the product's sources), kernel 2
#                        against kernel 7 at M = 1 and 16 and the MoE batch, a split × chunks-a-step
#                        sweep, and the bits of both at the same split.
# Usage: bench/probe/build.sh [OUTDIR]   (default /tmp/qs-probe; then OUTDIR/read_pattern,
# OUTDIR/w4a16_stream_harness [ncu]).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-/tmp/qs-probe}
mkdir -p "$out/obj"
flags="-lineinfo -O3 -std=c++17 -arch=sm_90 -Icore -Igpu/kernels -Igpu/kernels/gemm -Igpu --expt-relaxed-constexpr"
nvcc -O3 -std=c++17 -arch=sm_90 bench/probe/read_pattern.cu -o "$out/read_pattern" &
for f in gemm_w4a16 gemm_w4a16_small gemm_w4a16_tiled gemm_w4a16_stream gemm_w4a16_cutlass gemm_w4a16_cutlass_shuffled; do
  nvcc $flags -c "gpu/kernels/gemm/$f.cu" -o "$out/obj/$f.o" &
done
nvcc $flags -c bench/probe/w4a16_stream_harness.cu -o "$out/obj/harness.o" &
g++ -std=c++20 -O2 -Icore -c core/util/error.cpp -o "$out/obj/error.o" &
wait
nvcc -arch=sm_90 "$out"/obj/*.o -o "$out/w4a16_stream_harness"
