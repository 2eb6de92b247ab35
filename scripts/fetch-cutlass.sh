#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Puts the pinned CUTLASS headers (header-only; from the `nvidia-cutlass` wheel on PyPI, which ships
# them) into DEST (default .vendor/cutlass): DEST/include (cutlass/, cute/) and DEST/util/include
# (cutlass/util/). CMake finds them there (QUANTSCOPE_CUTLASS_DIR) and builds the W4A16 GEMM's
# CUTLASS route (gpu/kernels/gemm/gemm_w4a16_cutlass.cu, sm_90a); without them that route is
# refused and the hand-written kernels run. The wheel is kept in .vendor/cutlass-wheel/ and used
# from there when present (the GPU machine has no internet: scripts/device-run.sh calls this with the
# carried wheel). The sha256 pins the exact file.
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$src/.vendor/cutlass}"
version=4.2.0.0
sha=f9599ada45c7bcb6bf53f7d3f0a7d154183e53451c01bfa59eecd37dd4a693f6
wheel_dir="${QS_CUTLASS_WHEEL_DIR:-$src/.vendor/cutlass-wheel}"
wheel="$wheel_dir/nvidia_cutlass-$version-py3-none-any.whl"
if [[ -f "$dest/include/cutlass/cutlass.h" && -f "$dest/util/include/cutlass/util/packed_stride.hpp" &&
      "$(cat "$dest/VERSION" 2>/dev/null)" == "$version" ]]; then
  exit 0
fi
if [[ ! -f "$wheel" ]]; then
  mkdir -p "$wheel_dir"
  python3 -m pip download -q --no-deps "nvidia-cutlass==$version" -d "$wheel_dir"
fi
echo "$sha  $wheel" | sha256sum -c --quiet - || { echo "fetch-cutlass: $wheel does not match the pinned sha256" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 - "$wheel" "$tmp" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if name.startswith(("cutlass_library/source/include/", "cutlass_library/source/tools/util/include/")):
            z.extract(name, sys.argv[2])
PY
rm -rf "$dest"
mkdir -p "$dest/util"
mv "$tmp/cutlass_library/source/include" "$dest/include"
mv "$tmp/cutlass_library/source/tools/util/include" "$dest/util/include"
echo "$version" > "$dest/VERSION"
echo "CUTLASS $version headers in $dest"
