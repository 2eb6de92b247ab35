#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Seed corpora of the fuzz targets (docs/reliability.md "Fuzzing"), one folder per target under
# OUT (default build-fuzz/corpora): small valid files of every layout (make_seeds.py), the test
# fixtures' .npy/.npz, the demo's index and config, stories260K's config and a subset of its
# weights, sessions written by qs_session_writer, and a scan report of stories260K with the
# fuzz target's header. Tools come from BUILD (default build: quantscope-cli, qs_session_writer);
# what is missing is skipped with a note.
#   --commit-seeds  also copy every seed of at most 16 KiB into tests/fuzz/<target>/seed-*
#                   (what the normal suite's fuzz_replay_* tests replay).
# Usage: scripts/fuzz/make-corpora.sh [--commit-seeds] [OUT] [BUILD]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
commit=0
if [[ ${1:-} == --commit-seeds ]]; then commit=1; shift; fi
out=${1:-build-fuzz/corpora}
build=${2:-build}
data=${QUANTSCOPE_SHARED_DATA:-../shared/data}
stories=$data/stories260K
cli=$build/app/cli/quantscope-cli
writer=$build/tests/cli/qs_session_writer
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rm -rf "$out"
mkdir -p "$out"
for t in safetensors index config npy npz quantized spec session recipe scan_report doctor gguf; do mkdir -p "$out/$t"; done
python3 scripts/fuzz/make_seeds.py "$out" "$stories"
cp tests/core/data/npy/*.npy "$out/npy/"
cp tests/core/data/npy/*.npz "$out/npz/"
cp tests/data/gguf/*.gguf tests/fuzz/gguf/seed-* "$out/gguf/"
if [[ -d $stories ]]; then
  cp "$stories/config.json" "$out/config/stories260K_config.json"
else
  echo "make-corpora: $stories absent: no stories260K seeds"
fi
if [[ -x $cli ]]; then
  "$cli" demo "$tmp/demo" > /dev/null
  cp "$tmp/demo/model.safetensors.index.json" "$out/index/demo_index.json"
  cp "$tmp/demo/config.json" "$out/config/demo_config.json"
  if [[ -d $stories ]]; then
    "$cli" scan "$stories/model.safetensors" --specs int,fp8 --out "$tmp/scan.jsonl" --quiet > /dev/null
    # The fuzz target's header (fuzz_scan_report.cpp), then the first module lines.
    { echo '{"quantscope_scan":1,"checkpoint":"model","recipe":"0123456789abcdef"}'; sed -n 2,6p "$tmp/scan.jsonl"; } \
      > "$out/scan_report/stories260K_5_lines.jsonl"
    { echo '{"quantscope_scan":1,"checkpoint":"model","recipe":"0123456789abcdef"}'; sed -n 2p "$tmp/scan.jsonl" | head -c 300; } \
      > "$out/scan_report/torn_line.jsonl"
    # Its recipe (every spec field written) for the recipe and spec targets.
    head -1 "$tmp/scan.jsonl" | python3 -c '
import json, sys
h = json.load(sys.stdin)
open(sys.argv[1], "w").write(json.dumps(h["recipe"], indent=2))
for i, s in enumerate(h["recipe"]["rules"][0]["specs"]):
    open(sys.argv[2] + "/scan_spec_%d.json" % i, "w").write(json.dumps(s))
' "$out/recipe/scan_recipe.json" "$out/spec"
    # Quantscope's native layout (quantize --save) of every method on one 64x64 tensor, for the
    # quantized target (the whole input is the safetensors file: no config).
    for m in "int --bits 4 --group 32" "int --bits 8 --granularity channel --asymmetric" fp8 \
             "hqq --bits 3 --group 16" "milo --rank 4 --passes 2" mxfp4 nvfp4 progressive constopt; do
      name=native_$(echo "$m" | tr ' ' '_' | tr -d '-')
      # shellcheck disable=SC2086 # the method's options are words
      "$cli" quantize "$stories/model.safetensors" --tensor model.layers.0.self_attn.q_proj.weight \
        --method $m --device cpu --save "$out/quantized/$name.safetensors" > /dev/null
    done
  fi
else
  echo "make-corpora: $cli absent: no demo or scan seeds"
fi
if [[ -x $writer ]]; then
  "$writer" "$out/session/session_seed1.qscope" 1
  "$writer" "$out/session/session_seed2.qscope" 2
  python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
j["results"]["outcomes"] = j["results"]["outcomes"][:1]
j["results"]["tensors"] = j["results"]["tensors"][:1]
open(sys.argv[2], "w").write(json.dumps(j))
' "$out/session/session_seed1.qscope" "$out/session/session_small.qscope"
else
  echo "make-corpora: $writer absent: no session seeds"
fi
echo '{"quantscope_scan":1,"checkpoint":"model","recipe":"0123456789abcdef"}' > "$out/scan_report/header_only.jsonl"
# The doctor's input is the quantized target's (config, #QSFUZZ#, safetensors), plain files too.
cp "$out/quantized/"* "$out/doctor/"
cp "$out/safetensors/"* "$out/doctor/"

for d in "$out"/*/; do
  t=$(basename "$d")
  echo "make-corpora: $t: $(find "$d" -type f | wc -l) seeds"
  if (( commit )); then
    mkdir -p "tests/fuzz/$t"
    find "tests/fuzz/$t" -name 'seed-*' -delete
    find "$d" -type f -size -16k -print0 | while IFS= read -r -d '' f; do
      cp "$f" "tests/fuzz/$t/seed-$(basename "$f")"
    done
  fi
done
