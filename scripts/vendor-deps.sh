#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copies the header-only dependencies and GoogleTest sources that Debian installed here into
# .vendor/ (git-ignored), for the GPU machine, which has none of them. Pass `.vendor` in `carry`.
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
v="$src/.vendor"
rm -rf "$v"
mkdir -p "$v/nlohmann/include" "$v/zlib"
cp -r /usr/include/eigen3 "$v/eigen3"
rm -rf "$v/eigen3/unsupported"
cp -r /usr/include/nlohmann "$v/nlohmann/include/"
cp /usr/include/zlib.h /usr/include/zconf.h "$v/zlib/"
cp -r /usr/src/googletest "$v/googletest"
du -sh "$v"
