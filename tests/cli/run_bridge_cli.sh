#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctest bridge_cli: the model commands end to end on stories260K with the user's PyTorch +
# transformers ($QUANTSCOPE_PYTHON, else python3), and the bridge's own unit tests.
# Skipped (exit 77, saying why) without torch/transformers or without ../shared's stories260K.
# Usage: run_bridge_cli.sh QUANTSCOPE_CLI SOURCE_DIR SHARED_DATA_DIR
set -euo pipefail
cli="$1" src="$2" shared="$3"
py="${QUANTSCOPE_PYTHON:-python3}"
model="$shared/stories260K"
tokens="$src/tests/data/model/stories260K-tokens.npy"
if ! "$py" -c 'import torch, transformers, safetensors, numpy' 2>/dev/null; then
  echo "SKIP: $py lacks torch/transformers/safetensors/numpy (set QUANTSCOPE_PYTHON to an interpreter that has them)"
  exit 77
fi
if [[ ! -f "$model/model.safetensors" ]]; then
  echo "SKIP: $model absent (../shared/data)"
  exit 77
fi
export QUANTSCOPE_PYTHON="$py"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
json() { "$py" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

"$cli" bridge check --json > check.json || fail "bridge check"
"$cli" capture "$model" --tokens "$tokens" --samples 8 --seq 64 --out cap.safetensors --json --quiet > cap.json
[[ -f cap.safetensors ]] || fail "capture wrote nothing"
[[ "$(json cap.json 'd["tokens"]')" == 512 ]] || fail "capture tokens: $(cat cap.json)"

cat > r.json <<'R'
{"quantscope_recipe": 1, "rules": [{"patterns": ["*"], "dialect": "fnmatch",
  "specs": [{"method": "int", "bits": 4, "granularity": "channel"}]}]}
R
"$cli" eval "$model" --recipe r.json --tokens "$tokens" --samples 8 --seq 64 --per-layer --per-layer-samples 2 \
  --capture cap.safetensors --out eval.json --quiet > eval.txt
kl=$(json eval.json 'd["kl"]["mean"]')
json eval.json 'd["kl"]["mean"] > 0 and 0 < d["top1"]["mean"] <= 1 and d["samples"] == 8' | grep -qx True ||
  fail "eval statistics: $(head -c 400 eval.json)"
json eval.json 'all(m["kl"] is not None and m["output_error"] is not None for m in d["modules"]) and len(d["modules"]) == 35' |
  grep -qx True || fail "per-layer modules"

# The exported checkpoint decodes to the very Ŵ the recipe eval used: the same KL.
"$cli" export --recipe r.json --format compressed-tensors --checkpoint "$model/model.safetensors" --out-dir ct --quiet > /dev/null
"$cli" eval "$model" --checkpoint ct --tokens "$tokens" --samples 8 --seq 64 --out eval-ct.json --quiet > /dev/null
kl_ct=$(json eval-ct.json 'd["kl"]["mean"]')
[[ "$kl" == "$kl_ct" ]] || fail "recipe eval KL $kl != exported checkpoint's $kl_ct"

# Bad input: a recipe that names nothing, a tokens file with an id beyond the vocabulary.
cat > none.json <<'R'
{"quantscope_recipe": 1, "rules": [{"patterns": ["vision.*"], "dialect": "fnmatch", "specs": [{"method": "fp8"}]}]}
R
if "$cli" eval "$model" --recipe none.json --tokens "$tokens" --quiet 2> err.txt; then fail "empty recipe accepted"; fi
grep -q "quantizes no module" err.txt || fail "empty recipe message: $(cat err.txt)"
"$py" -c "import numpy as np; np.save('bad.npy', np.full((2, 16), 9999, dtype=np.int64))"
if "$cli" capture "$model" --tokens bad.npy --out bad.safetensors --quiet 2> err.txt; then fail "bad tokens accepted"; fi
grep -q "bad.npy" err.txt || fail "bad tokens message: $(cat err.txt)"
[[ ! -e bad.safetensors ]] || fail "a refused capture left a file"

cd "$src" && PYTHONPATH="$src/python" "$py" -m unittest discover tests/python 2>&1 | tail -5
echo "bridge_cli: capture, eval (recipe = exported checkpoint, KL $kl), refusals, bridge unit tests passed"
