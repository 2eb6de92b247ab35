#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One command for the GPU machine: build headless (no Qt) with CUDA, run the `gpu` tests and the
# core tests, then the GPU benchmarks; logs and JSON go under $OUT.
# Prepare here first: scripts/vendor-deps.sh; then run with carry [".vendor"].
set -uo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$src/out}"
mkdir -p "$OUT"
build="$src/build-gpu"
{
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
  nvcc --version | tail -1
} | tee "$OUT/machine.txt"

t0=$(date +%s)
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DQUANTSCOPE_BUILD_GUI=OFF \
  -DQUANTSCOPE_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/configure.log" 2>&1 \
  || { tail -40 "$OUT/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" > "$OUT/build.log" 2>&1 || { tail -60 "$OUT/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 ))s"

ctest --test-dir "$build" -L gpu --output-on-failure -V > "$OUT/ctest-gpu.log" 2>&1
rc_gpu=$?
tail -25 "$OUT/ctest-gpu.log"
ctest --test-dir "$build" -L core -LE slow --output-on-failure -j 8 > "$OUT/ctest-core.log" 2>&1
rc_core=$?
tail -5 "$OUT/ctest-core.log"
"$build/app/cli/quantscope-cli" --version | tee "$OUT/version.txt"

# Benchmarks write JSON into $OUT/bench (each bench/ executable takes --out DIR).
mkdir -p "$OUT/bench"
for b in "$build"/bench/qs_bench_*; do
  [[ -x "$b" ]] || continue
  "$b" --out "$OUT/bench" > "$OUT/bench/$(basename "$b").log" 2>&1 || echo "bench $(basename "$b") failed"
done
for py in "$src"/bench/*_torch.py; do
  [[ -f "$py" ]] || continue
  python3 "$py" --out "$OUT/bench" > "$OUT/bench/$(basename "$py").log" 2>&1 || echo "bench $(basename "$py") failed"
done
echo "gpu tests rc=$rc_gpu core tests rc=$rc_core"
exit $(( rc_gpu || rc_core ))
