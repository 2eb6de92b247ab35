#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The style check CI runs: every C++/CUDA source of the repository as .clang-format
# formats it (Debian 12's clang-format 14). `scripts/check-format.sh --fix` reformats in place.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fmt="${CLANG_FORMAT:-clang-format}"
if ! command -v "$fmt" > /dev/null; then
  echo "check-format: $fmt not found (apt-get install clang-format)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.cu' '*.cuh' | grep -v '^tests/fuzz/')
if [[ ${1:-} == --fix ]]; then
  "$fmt" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$fmt" --dry-run --Werror "$f" > /dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  echo "check-format: ${#bad[@]} files differ from .clang-format (scripts/check-format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]:0:20}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files follow .clang-format"
