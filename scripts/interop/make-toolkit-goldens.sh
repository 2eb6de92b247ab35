#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Writes tests/interop/golden/: checkpoints that AMD Quark and compressed-tensors themselves
# quantized and exported from the real stories260K weights, with each toolkit's own
# dequantized weights and codes beside them (issue 16, step 1). The tests read only the files;
# this script is needed again only to refresh them (new toolkit versions, new cases).
#   scripts/interop/make-toolkit-goldens.sh [SHARED_DATA] [VENV]
# SHARED_DATA defaults to ../shared/data next to the checkout (stories260K is read from there,
# never copied); VENV defaults to /tmp/qs-interop-venv (outside the repository).
#
# Only PyPI is reachable here, so torch is PyPI's default wheel (a CUDA build; it runs on the
# CPU, no GPU needed, ~3 GB installed). With the CPU wheel index reachable,
# PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu gives the same results smaller.
# amd-quark 0.13 declares onnx, onnxscript, onnxslim and onnx_ir as hard dependencies, so they
# are installed too (its import of quark.torch needs no ONNX runtime). On first import Quark
# JIT-compiles a small C++ extension (hw_emulation, a few seconds; needs g++).
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
shared="$(realpath "${1:-$src/../shared/data}")"
venv="${2:-/tmp/qs-interop-venv}"
out="$src/tests/interop/golden"

# Pinned: the versions the committed goldens were made with (MANIFEST.json records them too).
pins=(
  torch==2.15.0
  transformers==5.24.0
  safetensors==0.8.0
  compressed-tensors==0.20.0
  amd-quark==0.13
  numpy==2.4.6
)

if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}"

mkdir -p "$out"
nice "$venv/bin/python" "$src/scripts/interop/toolkit_goldens.py" \
  --shared "$shared/stories260K" --out "$out" "${@:3}"
du -sh "$out"
