#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# GGUF through the CLI end to end (ctest gguf_cli): info lists ggml types and HF names, decode
# writes the FP32 tensor, a malformed file is refused naming the rule and leaves no output,
# quantize --method gguf reports llama.cpp's bits, sweep puts the K-quants beside INT4/MXFP4/NVFP4;
# quantize and sweep --imatrix FILE take llama.cpp's importance matrix, and refuse what it cannot give.
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
# --imatrix FILE: llama.cpp's importance matrix for quantize and sweep (tests/data/gguf/kquant.imatrix.dat).
imat=$data/kquant.imatrix.dat
"$cli" quantize "$data/Q4_K.kquant.gguf" --tensor model.layers.0.mlp.down_proj.weight --method gguf --type q4_k \
  --imatrix "$imat" --json > "$tmp/imat-hf.json" || { echo "FAIL quantize --imatrix"; cat "$tmp/imat-hf.json"; fail=1; }
check imatrix '"imatrix": true' "$tmp/imat-hf.json"
check imatrix '"imatrix": ".*kquant.imatrix.dat"' "$tmp/imat-hf.json"
"$cli" quantize "$data/Q4_K.kquant.gguf" --tensor blk.0.ffn_down.weight --method gguf --type q4_k \
  --imatrix "$imat" --json > "$tmp/imat-gguf.json" || { echo "FAIL quantize --imatrix (GGUF name)"; fail=1; }
"$cli" quantize "$data/Q4_K.kquant.gguf" --tensor blk.0.ffn_down.weight --method gguf --type q4_k --json \
  > "$tmp/plain.json" || { echo "FAIL quantize without --imatrix"; fail=1; }
mse() { grep -m1 '"mse"' "$1"; }
[[ "$(mse "$tmp/imat-hf.json")" == "$(mse "$tmp/imat-gguf.json")" ]] || { echo "FAIL HF and GGUF names differ"; fail=1; }
[[ "$(mse "$tmp/imat-gguf.json")" != "$(mse "$tmp/plain.json")" ]] || { echo "FAIL the imatrix changed nothing"; fail=1; }
refused() { # refused NAME PATTERN ARGS...: exit 1, the pattern and the file on stderr
  local name=$1 pattern=$2; shift 2
  "$cli" "$@" > /dev/null 2> "$tmp/err.txt"; local rc=$?
  [[ $rc == 1 ]] || { echo "FAIL $name: exit $rc, expected 1"; cat "$tmp/err.txt"; fail=1; }
  check "$name" "$pattern" "$tmp/err.txt"
}
refused imatrix-absent "kquant.imatrix.dat: tensor 'blk.0.attn_q.weight': .*no entry" \
  quantize "$data/Q4_K.gguf" --tensor blk.0.attn_q.weight --method gguf --type q4_k --imatrix "$imat"
refused imatrix-columns "tensor 'blk.0.ffn_up.weight': the importance matrix holds 100 weights" \
  quantize "$data/Q4_K.kquant.gguf" --tensor blk.0.ffn_up.weight --method gguf --type q4_k --imatrix "$imat"
refused imatrix-legacy-type "imatrix applies to the K-quants" \
  quantize "$data/Q4_K.kquant.gguf" --tensor blk.0.ffn_down.weight --method gguf --type q4_0 --imatrix "$imat"
refused imatrix-lie "Q4_0.input.npy" \
  quantize "$data/Q4_K.kquant.gguf" --tensor blk.0.ffn_down.weight --method gguf --type q4_k --imatrix "$data/Q4_0.input.npy"
"$cli" quantize "$data/Q4_K.kquant.gguf" --tensor blk.0.ffn_down.weight --method int --imatrix "$imat" \
  > /dev/null 2> "$tmp/err.txt"; rc=$?
[[ $rc == 1 || $rc == 2 ]] || { echo "FAIL --imatrix with --method int: exit $rc"; fail=1; }
"$cli" sweep "$data/Q4_K.kquant.gguf" --tensor blk.0.ffn_down.weight --formats int4,q4_0,q4_k --groups 32 \
  --imatrix "$imat" --json > "$tmp/sweep-imat.json" || { echo "FAIL sweep --imatrix"; cat "$tmp/sweep-imat.json"; fail=1; }
check sweep-imatrix '"family": "GGUF Q4_K + imatrix"' "$tmp/sweep-imat.json"
check sweep-imatrix '"family": "GGUF Q4_0"' "$tmp/sweep-imat.json"
refused sweep-imatrix-absent "no entry" \
  sweep "$data/Q4_K.gguf" --tensor blk.0.attn_q.weight --formats q4_k --imatrix "$imat"
"$cli" quantize "$data/MXFP4.gguf" --tensor blk.0.attn_q.weight --method gguf --type mxfp4 --json \
  > "$tmp/mx.json" || { echo "FAIL quantize --type mxfp4"; cat "$tmp/mx.json"; fail=1; }
check mxfp4 '"bits_per_element": 4.25' "$tmp/mx.json"
"$cli" quantize "$data/TQ1_0.gguf" --tensor blk.0.attn_q.weight --method gguf --type tq1_0 --json \
  > "$tmp/tq.json" || { echo "FAIL quantize --type tq1_0"; cat "$tmp/tq.json"; fail=1; }
check tq1_0 '"bits_per_element": 1.6875' "$tmp/tq.json"
exit $fail
