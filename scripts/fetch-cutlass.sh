#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Puts the pinned CUTLASS headers (header-only; from the `nvidia-cutlass` wheel on PyPI, which ships
# them) into DEST (default .vendor/cutlass): DEST/include (cutlass/, cute/) and DEST/util/include
# (cutlass/util/). CMake finds them there (QUANTSCOPE_CUTLASS_DIR) and builds the W4A16 GEMM's
# CUTLASS route (gpu/kernels/gemm/gemm_w4a16_cutlass.cu, sm_90a); without them that route is
# refused and the hand-written kernels run. The wheel is kept in .vendor/cutlass-wheel/ and used
# from there when present; the sha256 pins the exact file. The headers are also packed into
# .vendor/cutlass-xz/cutlass-headers.tar.xz (1 MB, for the GPU machine, which has no internet:
# scripts/device-run.sh calls this with QS_CUTLASS_ARCHIVE set to the carried archive).
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
if [[ -n "${QS_CUTLASS_ARCHIVE:-}" ]]; then # headers packed by an earlier run of this script
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  if ! tar xJf "$QS_CUTLASS_ARCHIVE" -C "$tmp" 2>/dev/null || [[ "$(cat "$tmp/VERSION" 2>/dev/null)" != "$version" ]] ||
     [[ ! -f "$tmp/include/cutlass/cutlass.h" || ! -f "$tmp/util/include/cutlass/util/packed_stride.hpp" ]]; then
    echo "fetch-cutlass: $QS_CUTLASS_ARCHIVE is not the CUTLASS $version headers this script packs" >&2
    exit 1
  fi
  rm -rf "$dest" && mkdir -p "$(dirname "$dest")" && mv "$tmp" "$dest"
  trap - EXIT
  exit 0
fi
if [[ ! -f "$wheel" ]]; then
  mkdir -p "$wheel_dir"
  python3 -m pip download -q --no-deps "nvidia-cutlass==$version" -d "$wheel_dir"
fi
if ! echo "$sha  $wheel" | sha256sum -c --quiet - 2>/dev/null; then
  echo "fetch-cutlass: $wheel does not match the pinned sha256 (removed; run again to download it anew)" >&2
  rm -f "$wheel"
  exit 1
fi
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
if command -v xz > /dev/null; then # the GPU machine's carry (scripts/device-run.sh)
  archive_dir="$src/.vendor/cutlass-xz"
  mkdir -p "$archive_dir"
  tar cf - -C "$dest" include util VERSION | xz -9 > "$archive_dir/cutlass-headers.tar.xz.tmp"
  mv "$archive_dir/cutlass-headers.tar.xz.tmp" "$archive_dir/cutlass-headers.tar.xz"
fi
echo "CUTLASS $version headers in $dest"
