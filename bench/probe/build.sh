#!/usr/bin/env bash
# Builds the standalone probes of the streaming W4A16 and W4A8 kernels' design (issue 43) with nvcc
# alone, no CMake, no Qt, on the GPU machine (docs/perf.md "Fused W4A16 GEMM (issue 43)", run 7):
#   read_pattern       — how fast 29 MB can be read in the swapped kernel's row-strided pattern
#                        against one contiguous KiB a warp a chunk (warm, and after an L2 flush);
#   w4a16_stream_harness — the fused W4A16 kernels themselves (the product's sources), kernel 2
#                        against kernel 7 at M = 1 and 16 and the MoE batch, a split × chunks-a-step
#                        sweep, and the bits of both at the same split;
#   w4a8_stream_harness  — the fused W4A8 kernels (the product's sources): the row-order kernel against
#                        the streaming one on the same tile-ordered copy, INT8 and E4M3, M ∈ {1, 8, 16},
#                        a warps × split × chunks-a-step sweep, INT8's bits at the same split.
# Usage: bench/probe/build.sh [OUTDIR]   (default /tmp/qs-probe; then OUTDIR/read_pattern,
# OUTDIR/w4a16_stream_harness [ncu | ncu16 WARPS], OUTDIR/w4a16_stream_harness_48k: the same with
# the streaming kernel's X stage held to 48 KiB, QS_STREAM_STAGE_KIB=48; OUTDIR/w4a8_stream_harness
# [ncu16]). The MiLo thin-pass DMMA probe, measured on 2026-11-30 (docs/perf.md, MiLo), is in the
# tree up to 9642cc5.
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
# The streaming kernel again with the X stage held to 48 KiB (QS_STREAM_STAGE_KIB=48: slices of
# more than 11 chunks at 16 tokens staged in pieces).
mkdir -p "$out/obj1" "$out/obj8"
nvcc $flags -DQS_STREAM_STAGE_KIB=48 -c gpu/kernels/gemm/gemm_w4a16_stream.cu -o "$out/obj1/gemm_w4a16_stream.o" &
wait
nvcc $flags -c bench/probe/w4a8_stream_harness.cu -o "$out/obj8/harness.o" &
nvcc $flags -c gpu/kernels/gemm/gemm_w4a8.cu -o "$out/obj8/gemm_w4a8.o" &
nvcc $flags -c gpu/kernels/gemm/gemm_w4a8_stream.cu -o "$out/obj8/gemm_w4a8_stream.o" &
# the warpgroup kernel exists as sm_90a code only (as gpu/CMakeLists.txt builds it)
nvcc ${flags/-arch=sm_90/-gencode arch=compute_90a,code=sm_90a} -DQS_W4A8_WGMMA=1 -c gpu/kernels/gemm/gemm_w4a8_wgmma.cu \
  -o "$out/obj8/gemm_w4a8_wgmma.o" &
wait
nvcc -arch=sm_90 "$out"/obj/*.o -o "$out/w4a16_stream_harness"
nvcc -arch=sm_90 $(ls "$out"/obj/*.o | grep -v /harness.o) "$out"/obj8/*.o -o "$out/w4a8_stream_harness"
nvcc -arch=sm_90 $(ls "$out"/obj/*.o | grep -v /gemm_w4a16_stream.o) "$out/obj1/gemm_w4a16_stream.o" -o "$out/w4a16_stream_harness_48k"
