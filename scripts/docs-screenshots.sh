#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Retakes docs/screenshots/*.png: every view of the user guide at 1280 × 800 under Xvfb, in
# English (VIEW.png), German (VIEW-de.png) and Chinese (VIEW-zh_CN.png), the way the
# gui_screenshot_* tests take them (tests/widgets/run_screenshot.cmake and
# run_screenshot_compare.cmake: a fresh cache and settings, the demo, the language as the
# Language menu's setting). Chinese needs a CJK font (fonts-noto-cjk).
#   scripts/docs-screenshots.sh [BUILD_DIR] [LANGUAGES…]     (default: build, en de zh_CN)
#   ONLY="gemm-timing-view health-view" scripts/docs-screenshots.sh …   (only those pictures)
# Needs the targets quantscope, quantscope-cli and quantscope_check_screenshot built.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
shift || true
languages=("$@")
[ ${#languages[@]} -gt 0 ] || languages=(en de zh_CN)
app="$build/app/gui/quantscope"
cli="$build/app/cli/quantscope-cli"
checker="$build/tests/widgets/quantscope_check_screenshot"
for f in "$app" "$cli" "$checker"; do
  [ -x "$f" ] || { echo "docs-screenshots: $f is not built" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out="$root/docs/screenshots"

# file name: the view's options for run_screenshot.cmake
views=(
  "main-window:-DRUN=ON"
  "overview:-DRUN=ON -DVIEW=overview"
  "spectrum-view:-DRUN=ON -DVIEW=spectrum"
  "scale-constant-view:-DRUN=ON -DVIEW=scaleConstant"
  "kurtosis-view:-DRUN=ON -DVIEW=kurtosis"
  "gemm-timing-view:-DRUN=ON -DVIEW=gemmTiming"
  "health-view:-DRUN=ON -DVIEW=health"
  "budget-view:-DRUN=ON -DVIEW=budget"
  "recipe-view:-DRUN=ON -DVIEW=recipe"
  "layers-view:-DVIEW=layers"
  "export-view:-DVIEW=export"
  "compare-view:compare"
)
for lang in "${languages[@]}"; do
  suffix=""
  [ "$lang" = en ] || suffix="-$lang"
  for v in "${views[@]}"; do
    name=${v%%:*}
    opts=${v#*:}
    if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then
      continue
    fi
    dir="$work/$name$suffix"
    lang_opt=()
    [ "$lang" = en ] || lang_opt=(-DUI_LANGUAGE="$lang")
    if [ "$opts" = compare ]; then
      script="$root/tests/widgets/run_screenshot_compare.cmake"
      opts=""
    else
      script="$root/tests/widgets/run_screenshot.cmake"
    fi
    # shellcheck disable=SC2086 # opts is a list of -D options
    cmake -DAPP="$app" -DCLI="$cli" -DCHECKER="$checker" -DWORK_DIR="$dir" "${lang_opt[@]}" $opts \
      -P "$script" >"$dir.log" 2>&1 || { echo "docs-screenshots: $name$suffix failed (see below)" >&2; tail -20 "$dir.log" >&2; exit 1; }
    cp "$dir/quantscope.png" "$out/$name$suffix.png"
    echo "docs/screenshots/$name$suffix.png"
  done
done
