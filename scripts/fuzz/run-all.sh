#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs each fuzz target of build-fuzz for SECONDS (default 900, the issue's 15 minutes), one after
# the other at nice 19, with the issue's limits (2 GB, 10 s an input), on a copy of its seed corpus
# that grows in build-fuzz/corpus-run/<target>; findings go to build-fuzz/findings/<target>/ and
# each run's log to build-fuzz/logs/<target>.log. Prints, per target, the executions, coverage
# (cov / ft) and the number of findings (docs/reliability.md "Runs and findings").
# Usage: scripts/fuzz/run-all.sh [SECONDS] [TARGET[:SECONDS]...]  (a target's own time overrides)
# Two lanes on two cores, as docs/reliability.md's long run:
#   scripts/fuzz/run-all.sh 900 quantized:1800 safetensors index config npy &
#   scripts/fuzz/run-all.sh 900 npz:1800 spec session recipe scan_report
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
default_secs=${1:-900}
shift || true
targets=("$@")
if (( ${#targets[@]} == 0 )); then
  targets=(safetensors index config npy npz quantized spec session recipe scan_report doctor gguf)
fi
mkdir -p build-fuzz/logs
for spec in "${targets[@]}"; do
  t=${spec%%:*}
  secs=$default_secs
  [[ $spec == *:* ]] && secs=${spec##*:}
  bin=build-fuzz/fuzz/fuzz_$t
  [[ -x $bin ]] || { echo "$t: $bin not built"; continue; }
  corpus=build-fuzz/corpus-run/$t
  mkdir -p "$corpus" "build-fuzz/findings/$t"
  [[ -d build-fuzz/corpora/$t ]] && cp -n build-fuzz/corpora/$t/* "$corpus/" 2> /dev/null
  cp -n tests/fuzz/$t/* "$corpus/" 2> /dev/null
  log=build-fuzz/logs/$t.log
  nice -n 19 "$bin" "$corpus" -dict=fuzz/dict/$t.dict -rss_limit_mb=2048 -timeout=10 \
    -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$t/" > "$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  cov=$(grep -oE '(DONE|#[0-9]+).*cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+')
  rss=$(grep -o 'stat::peak_rss_mb: *[0-9]*' "$log" | grep -o '[0-9]*$')
  corp=$(grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -1)
  found=$(find "build-fuzz/findings/$t" -type f | wc -l)
  echo "$t: ${secs}s rc=$rc execs=${execs:-?} ${cov:-cov ?} ${corp:-corp ?} peak_rss=${rss:-?}MB findings=$found"
done
