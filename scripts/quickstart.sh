#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Quantscope quick start on Debian 12 (root or sudo):
#   scripts/quickstart.sh run    install what is missing, build (Release), open the app on the demo
#   scripts/quickstart.sh test   install what is missing, build (Release), run every test but `timing`
# Environment: BUILD_DIR (default build), JOBS (default nproc), QUANTSCOPE_CMAKE_ARGS (extra args).
set -euo pipefail

mode="${1:-}"
case "$mode" in
  run|test) ;;
  *) echo "usage: $0 run|test" >&2; exit 2 ;;
esac

src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$src/build}"
jobs="${JOBS:-$(nproc)}"

phase_start=$(date +%s)
declare -a phase_report=()
phase_done() {
  local now; now=$(date +%s)
  phase_report+=("$(printf '%-10s %5ds' "$1" $((now - phase_start)))")
  printf '== %s took %ds\n' "$1" $((now - phase_start))
  phase_start=$now
}
print_report() {
  echo "== phase times"
  for line in "${phase_report[@]}"; do echo "   $line"; done
}
trap print_report EXIT

# ---- install ---------------------------------------------------------------------------------
packages=(build-essential cmake ninja-build ccache pkg-config
          qt6-base-dev qt6-base-dev-tools qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
          libqt6svg6-dev libgl-dev libqcustomplot-dev
          libeigen3-dev nlohmann-json3-dev libcli11-dev libgtest-dev zlib1g-dev
          xvfb xauth fonts-noto-cjk
          python3-numpy  # the KV lab's NumPy reference test (tests/cli/kv_numpy_reference.py)
          python3-venv   # the gguf package from PyPI for export-gguf's llama.cpp check (tests/cli/with_gguf_python.sh)
          python3-pip    # fetches the pinned CUTLASS wheel (scripts/fetch-cutlass.sh) on CUDA machines
          libopenmpi-dev openmpi-bin)  # the scan over MPI ranks (docs/cluster.md) and its tests
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "== installing: ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "== all packages present"
fi
# The pinned CUTLASS headers where this machine builds CUDA (the W4A16 GEMM's CUTLASS route; without
# them that route is refused with the reason and the hand-written kernels run).
if command -v nvcc > /dev/null || [[ -x /usr/local/cuda/bin/nvcc ]]; then
  "$src/scripts/fetch-cutlass.sh" || echo "== the CUTLASS headers could not be fetched: the W4A16 CUTLASS route is not built"
fi
phase_done install

# ---- configure + build -----------------------------------------------------------------------
# The benchmarks are not part of the quick start (scripts/device-run.sh and scripts/bench-cpu.sh
# build them); QUANTSCOPE_CMAKE_ARGS comes last and may turn them back on.
# shellcheck disable=SC2086
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DQUANTSCOPE_BUILD_BENCH=OFF ${QUANTSCOPE_CMAKE_ARGS:-}
phase_done configure
cmake --build "$build" -j "$jobs"
phase_done build

# ---- run or test -----------------------------------------------------------------------------
if [[ "$mode" == run ]]; then
  app="$build/app/gui/quantscope"
  if [[ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
    echo "== no display: starting the app under xvfb-run (set DISPLAY to see the window)"
    exec xvfb-run -a "$app"
  fi
  exec "$app"
fi

ctest --test-dir "$build" --output-on-failure -j "$jobs" -LE timing
phase_done test
