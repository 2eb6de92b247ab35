#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/fetch-cutlass.sh on each way its inputs can lie, without the network: a wheel whose
# sha256 is not the pinned one (refused, removed, nothing written), an archive that is not an
# archive, one of another version, one missing the headers (refused, the destination untouched),
# then a good archive (installed) and an installed tree (kept, nothing fetched).
set -uo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
fetch="$src/scripts/fetch-cutlass.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail=0
check() { # NAME CONDITION...
  local name="$1"
  shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi
}

# A wheel that is not the pinned file.
mkdir -p "$work/wheel"
echo "not a wheel" > "$work/wheel/nvidia_cutlass-4.2.0.0-py3-none-any.whl"
QS_CUTLASS_WHEEL_DIR="$work/wheel" "$fetch" "$work/dest1" > "$work/out1" 2>&1
rc=$?
check "a wrong wheel is refused" test "$rc" -ne 0
check "the refusal names the sha256" grep -q "pinned sha256" "$work/out1"
check "the wrong wheel is removed" test ! -e "$work/wheel/nvidia_cutlass-4.2.0.0-py3-none-any.whl"
check "no headers are written" test ! -e "$work/dest1"

# Archives: a fake tree of the two marker headers.
make_tree() { # DIR VERSION WITH_HEADERS
  mkdir -p "$1/include/cutlass" "$1/util/include/cutlass/util"
  echo "$2" > "$1/VERSION"
  if [[ "$3" == 1 ]]; then
    echo "// cutlass" > "$1/include/cutlass/cutlass.h"
    echo "// stride" > "$1/util/include/cutlass/util/packed_stride.hpp"
  fi
}
pack() { tar cf - -C "$1" . | xz > "$2"; }
make_tree "$work/good" 4.2.0.0 1 && pack "$work/good" "$work/good.tar.xz"
make_tree "$work/old" 3.8.0.0 1 && pack "$work/old" "$work/old.tar.xz"
make_tree "$work/empty" 4.2.0.0 0 && pack "$work/empty" "$work/empty.tar.xz"
echo "garbage" > "$work/garbage.tar.xz"
mkdir -p "$work/dest2" && echo keep > "$work/dest2/marker"
for bad in garbage old empty; do
  QS_CUTLASS_ARCHIVE="$work/$bad.tar.xz" "$fetch" "$work/dest2" > "$work/out-$bad" 2>&1
  rc=$?
  check "the $bad archive is refused" test "$rc" -ne 0
  check "the $bad archive's refusal names it" grep -q "$bad.tar.xz" "$work/out-$bad"
  check "the $bad archive leaves the destination untouched" test -f "$work/dest2/marker"
done
QS_CUTLASS_ARCHIVE="$work/good.tar.xz" "$fetch" "$work/dest3" > "$work/out-good" 2>&1
check "the good archive installs" test "$?" -eq 0 -a -f "$work/dest3/include/cutlass/cutlass.h"
# Installed: kept as it is, no wheel or network asked for.
QS_CUTLASS_WHEEL_DIR="$work/nowhere" "$fetch" "$work/dest3" > "$work/out-kept" 2>&1
check "an installed tree is kept" test "$?" -eq 0 -a ! -e "$work/nowhere"
exit "$fail"
