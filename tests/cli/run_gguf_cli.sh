#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# GGUF through the CLI end to end (ctest gguf_cli): info lists ggml types and HF names, decode
# writes the FP32 tensor, a malformed file is refused naming the rule and leaves no output,
# quantize --method gguf reports llama.cpp's bits, sweep puts the K-quants beside INT4/MXFP4/NVFP4.
# Usage: run_gguf_cli.sh QUANTSCOPE_CLI SOURCE_DIR
set -uo pipefail
cli=$1
data=$2/tests/data/gguf
fuzz=$2/tests/fuzz/gguf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check NAME PATTERN FILE
  if ! grep -q -- "$2" "$3"; then
    echo "FAIL $1: no '$2' in:"; cat "$3"; fail=1
  fi
}

"$cli" info "$data/Q4_K.gguf" > "$tmp/info.txt" || { echo "FAIL info exit $?"; fail=1; }
check info "GGUF v3, architecture llama" "$tmp/info.txt"
check info "blk.0.attn_q.weight.*Q4_K" "$tmp/info.txt"
check info "model.layers.0.self_attn.q_proj.weight: Q4_K: super-blocks of 256, 8 sub-blocks of 32" "$tmp/info.txt"
"$cli" info "$data/Q4_K.gguf" --stats --json > "$tmp/info.json" || { echo "FAIL info --json"; fail=1; }
check info-json '"ggml_type": "Q4_K"' "$tmp/info.json"
check info-json '"hf_name": "model.layers.0.self_attn.q_proj.weight"' "$tmp/info.json"
check info-json '"format": "gguf"' "$tmp/info.json"
check info-json '"architecture": "llama"' "$tmp/info.json"
check info-json '"excess_kurtosis"' "$tmp/info.json"

"$cli" decode "$data/IQ2_XXS.gguf" --tensor model.layers.0.self_attn.q_proj.weight --out "$tmp/q.npy" --json \
  > "$tmp/decode.json" || { echo "FAIL decode"; fail=1; }
check decode '"format": "gguf"' "$tmp/decode.json"
check decode '"tensor": "blk.0.attn_q.weight"' "$tmp/decode.json"
[[ -s $tmp/q.npy ]] || { echo "FAIL decode wrote no q.npy"; fail=1; }

for bad in five-dims unknown-type offset-beyond misaligned string-beyond truncated-header huge-tensor-count; do
  "$cli" decode "$fuzz/seed-$bad" --tensor blk.0.attn_q.weight --out "$tmp/bad.npy" > /dev/null 2> "$tmp/bad.txt"
  rc=$?
  [[ $rc == 1 ]] || { echo "FAIL $bad: exit $rc, expected 1"; cat "$tmp/bad.txt"; fail=1; }
  check "$bad" "seed-$bad" "$tmp/bad.txt"
  [[ ! -e $tmp/bad.npy ]] || { echo "FAIL $bad: an output file was written"; fail=1; }
done

"$cli" quantize "$data/Q4_K.kquant.gguf" --tensor blk.0.ffn_up.weight --method gguf --type q4_k --json \
  > "$tmp/quant.json" || { echo "FAIL quantize"; cat "$tmp/quant.json"; fail=1; }
check quantize '"bits_per_element": 4.5' "$tmp/quant.json"
"$cli" sweep "$data/Q4_K.kquant.gguf" --tensor model.layers.0.mlp.up_proj.weight --formats int4,mxfp4,nvfp4,q4_0,q4_k,q6_k \
  --groups 32 --json > "$tmp/sweep.json" || { echo "FAIL sweep"; cat "$tmp/sweep.json"; fail=1; }
check sweep '"family": "GGUF Q4_K"' "$tmp/sweep.json"
check sweep '"family": "NVFP4"' "$tmp/sweep.json"
"$cli" doctor "$data/Q6_K.gguf" > "$tmp/doctor.txt"; rc=$?
[[ $rc == 0 ]] || { echo "FAIL doctor exit $rc"; fail=1; }
check doctor "GGUF v3 (llama, 2 tensors)" "$tmp/doctor.txt"
"$cli" doctor "$fuzz/seed-five-dims" > "$tmp/doctor-bad.txt"
check doctor-bad "a corrupt GGUF file: the tensor has 5 dimensions" "$tmp/doctor-bad.txt"
exit $fail
