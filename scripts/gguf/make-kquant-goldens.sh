#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# K-quant and i-quant goldens from llama.cpp's own C reference: builds scripts/gguf/kquant_ref.c against
# ggml/src/ggml-quants.c of a llama.cpp source tree (the llama-cpp-python sdist on PyPI carries one:
# `pip download --no-deps --no-binary :all: llama-cpp-python`, then untar; vendor/llama.cpp), then
# runs make-goldens.py --kquant-ref with it. Only for writing committed goldens; never a
# dependency of the product.
# Usage: scripts/gguf/make-kquant-goldens.sh LLAMA_CPP_DIR [PYTHON] [make-goldens.py options, e.g. --iquants-only]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
src=${1:?LLAMA_CPP_DIR}
py=${2:-python3}
shift $(($# < 2 ? $# : 2))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -ffp-contract=off -I"$src/ggml/include" -I"$src/ggml/src" -c "$src/ggml/src/ggml-quants.c" -o "$tmp/q.o"
gcc -O2 -ffp-contract=off scripts/gguf/kquant_ref.c "$tmp/q.o" -o "$tmp/kquant_ref" -lm
"$py" scripts/gguf/make-goldens.py --kquant-ref "$tmp/kquant_ref" "$@"
