#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The model commands on the GPU machine (scripts/device-run.sh calls it after the CLI tests, whose
# label cli includes ctest bridge_cli; QS_SKIP_BRIDGE=1 skips): capture / eval timings on a model of
# SmolLM2-135M-Instruct's architecture (hidden 576, 30 layers, 9 heads / 3 KV heads, head_dim 64,
# MLP 1536, vocabulary 49152) with seeded random weights and random token ids: the real GGUF
# (98 MB) cannot travel to that machine (64 MiB per call), and the time of a forward pass depends
# on the shapes, not the values. Writes $OUT/bridge_gpu.json.
# Usage: device-bridge.sh BUILD_DIR OUT_DIR
set -uo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$1" out="$2"
cli="$build/app/cli/quantscope-cli"
export QUANTSCOPE_PYTHON="${QUANTSCOPE_PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT


"$QUANTSCOPE_PYTHON" - "$work/smol" "$work/tokens.npy" <<'PY'
import sys, numpy as np, torch
from transformers import LlamaConfig, LlamaForCausalLM
cfg = LlamaConfig(hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9,
                  num_key_value_heads=3, head_dim=64, vocab_size=49152, max_position_embeddings=8192,
                  rope_theta=100000.0, rms_norm_eps=1e-5, tie_word_embeddings=True, torch_dtype="bfloat16")
torch.manual_seed(0)
LlamaForCausalLM(cfg).save_pretrained(sys.argv[1], safe_serialization=True)
np.save(sys.argv[2], np.random.default_rng(0).integers(0, 49152, size=(64, 512), dtype=np.int64))
PY
cat > "$work/r.json" <<'R'
{"quantscope_recipe": 1, "rules": [{"patterns": ["*"], "dialect": "fnmatch",
  "specs": [{"method": "int", "bits": 4, "group": 64}]}]}
R
times="$work/times.txt"
: > "$times"
for dtype in bfloat16 float32; do
  "$QUANTSCOPE_PYTHON" - "$work/smol" "$work/tokens.npy" "$dtype" >> "$times" <<'PY'
import json, sys, time, numpy as np, torch
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained(sys.argv[1], dtype=getattr(torch, sys.argv[3])).cuda().eval()
ids = torch.from_numpy(np.load(sys.argv[2])).cuda()
times = []
with torch.inference_mode():
    for rep in range(2):  # the first pass is cold (cuBLAS, the allocator), as a fresh eval is
        torch.cuda.synchronize(); t0 = time.perf_counter()
        for s in range(0, 64, 8):
            model(input_ids=ids[s:s + 8], use_cache=False)
        torch.cuda.synchronize(); times.append(time.perf_counter() - t0)
print(json.dumps({"plain_forward_cold_s": times[0], "plain_forward_warm_s": times[1], "dtype": sys.argv[3]}))
PY
  /usr/bin/time -f '{"capture_wall_s": %e}' -a -o "$times" "$cli" capture "$work/smol" --tokens "$work/tokens.npy" \
    --samples 64 --seq 512 --device gpu --dtype "$dtype" --out "$work/cap.safetensors" --json --quiet \
    > "$work/capture-$dtype.json" && cat "$work/capture-$dtype.json" | tr -d '\n' >> "$times" && echo >> "$times"
  /usr/bin/time -f '{"eval_wall_s": %e}' -a -o "$times" "$cli" eval "$work/smol" --recipe "$work/r.json" \
    --tokens "$work/tokens.npy" --samples 64 --seq 512 --device gpu --dtype "$dtype" --json --quiet \
    > "$work/eval-$dtype.json" && "$QUANTSCOPE_PYTHON" -c "import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps({'eval_seconds': d['seconds'], 'eval_forward_seconds': d['forward_seconds'], 'modules': len(d['modules'])}))" "$work/eval-$dtype.json" >> "$times"
done
cp "$times" "$out/bridge_gpu.txt"
cat "$times"
