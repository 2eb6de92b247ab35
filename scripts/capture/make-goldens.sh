#!/usr/bin/env bash
# Rewrite tests/data/capture/stories260K.capture.safetensors: the Python bridge's capture of the
# stories260K model over the committed token file (all Grams full: K ≤ the default gram_max).
#
# usage: scripts/capture/make-goldens.sh   (PYTHON: an interpreter with torch + transformers)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
PYTHONPATH=$repo/python "${PYTHON:-python3}" -m quantscope_bridge capture ../shared/data/stories260K \
    --tokens tests/data/model/stories260K-tokens.npy --rows 64 --kv-tokens 256 --q-rows 64 \
    --out tests/data/capture/stories260K.capture.safetensors
# The output-aware error golden: NumPy's tr(ΔW G ΔWᵀ) from that capture and our decoded Ŵ
# (QUANTSCOPE_CLI: the built quantscope-cli).
"${PYTHON:-python3}" scripts/capture/make-output-error-golden.py "${QUANTSCOPE_CLI:-build/app/cli/quantscope-cli}" \
    ../shared/data/stories260K/model.safetensors tests/data/capture/stories260K.capture.safetensors \
    tests/data/capture/stories260K.output-error.json
