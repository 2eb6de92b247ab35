#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Loads Quantscope's exports with the real toolkits and writes
# tests/interop/golden/export_checks.json (asserted by tests/core/plan/test_export_interop.cpp).
#   scripts/interop/check-exports.sh [BUILD_DIR] [SHARED_DATA] [VENV]
# BUILD_DIR defaults to build (quantscope-cli is taken from it); SHARED_DATA to ../shared/data
# next to the checkout (stories260K is read from there, never copied); VENV to
# /tmp/qs-interop-venv, the environment make-toolkit-goldens.sh makes (same pins: torch 2.15,
# compressed-tensors 0.20, amd-quark 0.13).
#
# Only PyPI is reachable here (the CPU wheel index is not), so torch is PyPI's default wheel
# (~3 GB installed). llm-compressor 0.14.0.1 pins torch<=2.14, transformers<=5.17 and
# compressed-tensors==0.19.0, which cannot live in the goldens' environment (pip: "ResolutionImpossible");
# it is installed with --no-deps, with its compressed-tensors 0.19.0 and accelerate, into a
# separate folder that only the llm-compressor check puts on its path (compressed-tensors 0.20 is
# already loaded by then, so that is the one it runs with). The summary records this.
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(realpath "${1:-$src/build}")"
shared="$(realpath "${2:-$src/../shared/data}")"
venv="${3:-/tmp/qs-interop-venv}"
overlay="$venv-llmcompressor"
pins=(torch==2.15.0 transformers==5.24.0 safetensors==0.8.0 compressed-tensors==0.20.0 amd-quark==0.13 numpy==2.4.6)

if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}"
if [[ ! -d "$overlay/llmcompressor" ]]; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --target "$overlay" \
    llmcompressor==0.14.0.1 compressed-tensors==0.19.0 "accelerate>=1.15.0"
fi
nice -n 10 "$venv/bin/python" "$src/scripts/interop/check_exports.py" \
  --cli "$build/app/cli/quantscope-cli" --shared "$shared/stories260K" \
  --out "$src/tests/interop/golden/export_checks.json" --llmc-overlay "$overlay" \
  --note "llmcompressor 0.14.0.1 installed --no-deps (with compressed-tensors 0.19.0 and accelerate) into $(basename "$overlay"): its pins (torch<=2.14, transformers<=5.17, compressed-tensors==0.19.0) conflict with the goldens' torch 2.15 / transformers 5.24 / compressed-tensors 0.20; it imports and parses recipes with them; the decompression checks run first in the same process, so it runs against compressed-tensors 0.20 (compressed_tensors_seen)"
