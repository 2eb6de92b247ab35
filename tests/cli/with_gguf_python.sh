#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs a Python test script with the `gguf` and `numpy` versions its goldens were made with
# (tests/data/gguf/export-goldens.json: the seeded source model must come out byte for byte the
# same): a virtual environment in BUILD_DIR/pyenv-gguf with gguf==0.19.0 and numpy==2.4.6 from PyPI,
# created once. Without network (or python3-venv) it falls back to $QUANTSCOPE_PYTHON or python3,
# and the script skips itself (77) when its packages are missing or of other versions.
# Usage: with_gguf_python.sh BUILD_DIR SCRIPT ARGS...
set -uo pipefail
build=$1
shift
want='import gguf, numpy, importlib.metadata as m; assert m.version("gguf") == "0.19.0" and numpy.__version__ == "2.4.6"'
venv="$build/pyenv-gguf"
if ! "$venv/bin/python" -c "$want" 2>/dev/null; then
  rm -rf "$venv"
  if python3 -m venv "$venv" >/dev/null 2>&1 &&
     timeout 300 "$venv/bin/pip" install -q --disable-pip-version-check gguf==0.19.0 numpy==2.4.6 >/dev/null 2>&1 &&
     "$venv/bin/python" -c "$want" 2>/dev/null; then
    :
  else
    echo "note: could not install gguf==0.19.0 and numpy==2.4.6 from PyPI into $venv (no network or no python3-venv)"
    rm -rf "$venv"
  fi
fi
py=${QUANTSCOPE_PYTHON:-python3}
[[ -x "$venv/bin/python" ]] && py="$venv/bin/python"
exec "$py" "$@"
