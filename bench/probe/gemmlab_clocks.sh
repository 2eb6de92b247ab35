#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The GPU's clocks and power beside the GEMM lab's largest points (docs/perf.md "Run-to-run
# honesty (issue 43 item 4)"): nvidia-smi samples every 20 ms while (a) ours as it runs (the wait
# after each tuning round, lab2::settleAfterTuning), (b) PyTorch's, (c) ours without that wait
# (QS_GEMMLAB_SETTLE_MS=0) run the given formats at the given M. Each side prints when its timed
# phases start (QS_GEMMLAB_TRACE), so that the samples can be laid beside them
# (bench/probe/gemmlab_clocks.py).
# Usage: bench/probe/gemmlab_clocks.sh BUILD_DIR OUT_DIR ["--formats bf16,fp8 --m-sweep 4096,8192"]
set -uo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$1" out="$2"
args="${3:---formats bf16,fp8 --m-sweep 4096,8192} --repeats 30"
mkdir -p "$out"/a "$out"/b "$out"/c
q=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active
nvidia-smi --query-gpu=$q --format=csv,noheader -lms 20 > "$out/smi.csv" 2> "$out/smi.err" &
smi=$!
sleep 1
if ! kill -0 $smi 2> /dev/null; then # an older driver: the throttle reasons under their old name
  q=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active
  nvidia-smi --query-gpu=$q --format=csv,noheader -lms 20 > "$out/smi.csv" 2> "$out/smi.err" &
  smi=$!
fi
echo "$q" > "$out/smi.fields"
# shellcheck disable=SC2086
QS_GEMMLAB_TRACE=1 "$build/bench/qs_bench_gpu_gemmlab" --out "$out/a" $args > "$out/a.log" 2>&1
sleep 2
# shellcheck disable=SC2086
QS_GEMMLAB_TRACE=1 python3 "$src/bench/gemm_lab_torch.py" --out "$out/b" $args > "$out/b.log" 2>&1
sleep 2
# shellcheck disable=SC2086
QS_GEMMLAB_TRACE=1 QS_GEMMLAB_SETTLE_MS=0 "$build/bench/qs_bench_gpu_gemmlab" --out "$out/c" $args \
  > "$out/c.log" 2>&1
sleep 1
kill $smi 2> /dev/null
wait 2> /dev/null
python3 "$src/bench/probe/gemmlab_clocks.py" "$out" | tee "$out/clocks.txt"
