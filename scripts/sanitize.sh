#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The sanitizer job (docs/reliability.md "Sanitizer job"): core + the CLI built with GCC's
# ASan + UBSan (-fno-sanitize-recover=all) in a build folder of its own, then the core tests and
# every fuzz target's corpus replayed through its plain driver (qs_replay_<name>): the committed
# seeds and findings in tests/fuzz/<name>/ and, when present, the generated corpora of
# build-fuzz/corpora/<name>/. Prints the time of each phase and the total.
#   MODE  parsers (default, CI): the sources a file's bytes reach are instrumented, the rest is
#         compiled as the normal build compiles it (ccache then has it); all: every source.
# Usage: scripts/sanitize.sh [parsers|all] [BUILD_DIR]   (env JOBS: build jobs, default nproc)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mode=${1:-parsers}
build=${2:-build-sanitize}
jobs=${JOBS:-$(nproc)}
t0=$(date +%s)
phase() { echo "== sanitize: $1 took $(( $(date +%s) - $2 ))s"; }

targets=(quantscope_core_tests quantscope-cli)
for t in safetensors index config npy npz quantized spec session recipe scan_report doctor gguf; do
  targets+=("qs_replay_$t")
done

t=$(date +%s)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DQUANTSCOPE_SANITIZE="$mode" \
  -DQUANTSCOPE_WITH_CUDA=OFF -DQUANTSCOPE_WITH_HIP=OFF -DQUANTSCOPE_WITH_MPI=OFF \
  -DQUANTSCOPE_BUILD_GUI=OFF -DQUANTSCOPE_BUILD_BENCH=OFF > /dev/null
cmake --build "$build" -j "$jobs" --target "${targets[@]}"
phase "build ($mode, -j$jobs)" "$t"

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
t=$(date +%s)
# The exhaustive 2^32 conversions (slow) and the timing tests stay with the normal suite.
ctest --test-dir "$build" --output-on-failure -j "$jobs" -L core -LE 'slow|timing|fuzz'
phase "core tests" "$t"

t=$(date +%s)
for t_name in safetensors index config npy npz quantized spec session recipe scan_report doctor gguf; do
  dirs=("tests/fuzz/$t_name")
  if [[ -d build-fuzz/corpora/$t_name ]]; then dirs+=("build-fuzz/corpora/$t_name"); fi
  "$build/fuzz/qs_replay_$t_name" "${dirs[@]}" > "$build/replay_$t_name.log" 2>&1 \
    || { tail -40 "$build/replay_$t_name.log"; echo "== sanitize: replay of $t_name failed"; exit 1; }
  echo "   $t_name: $(tail -1 "$build/replay_$t_name.log")"
done
phase "corpus replay" "$t"
phase "sanitizer job (total)" "$t0"
