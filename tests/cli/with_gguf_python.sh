#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs a Python test script with a Python that has the `gguf` and `numpy` packages: $QUANTSCOPE_PYTHON
# or python3 when it has them, else a virtual environment in BUILD_DIR/pyenv-gguf with the pinned
# gguf from PyPI (created once). Without network the script is still run, and skips itself (77).
# Usage: with_gguf_python.sh BUILD_DIR SCRIPT ARGS...
set -uo pipefail
build=$1
shift
py=${QUANTSCOPE_PYTHON:-python3}
if ! "$py" -c 'import gguf, numpy' 2>/dev/null; then
  venv="$build/pyenv-gguf"
  if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import gguf, numpy' 2>/dev/null; then
    rm -rf "$venv"
    if python3 -m venv --system-site-packages "$venv" >/dev/null 2>&1 &&
       timeout 300 "$venv/bin/pip" install -q --disable-pip-version-check gguf==0.19.0 numpy >/dev/null 2>&1; then
      :
    else
      echo "note: could not install gguf==0.19.0 from PyPI into $venv (no network or no python3-venv)"
    fi
  fi
  [[ -x "$venv/bin/python" ]] && py="$venv/bin/python"
fi
exec "$py" "$@"
