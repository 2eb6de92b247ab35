#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Writes tests/cli/golden/<case>.json: the JSON that a quantscope-cli binary prints for each case
# of tests/cli/golden/cases.json. Run it with the binary of the version whose output is the
# reference (issue 15 took them before the one-engine restructuring), then commit the files;
# tests/cli/test_cli_golden.cpp compares every later build against them.
#   scripts/make-cli-goldens.sh BUILD/app/cli/quantscope-cli [SHARED_DATA]
set -euo pipefail
cli="$(realpath "$1")"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shared="${2:-$src/../shared/data}"
stories="$(realpath "$shared")/stories260K"
out="$src/tests/cli/golden"
demo="$(mktemp -d)/demo"
trap 'rm -rf "$(dirname "$demo")"' EXIT
"$cli" demo "$demo" > /dev/null
python3 - "$cli" "$out" "$stories" "$demo" <<'PY'
import json, subprocess, sys
cli, out, stories, demo = sys.argv[1:]
import os
meta = json.load(open(f"{out}/cases.json"))
if meta.get("threads") not in (None, os.cpu_count()):
    sys.exit(f"cases.json says the goldens come from a {meta['threads']}-thread machine; this one has {os.cpu_count()}: update \"threads\" too")
cases = meta["cases"]
for c in cases:
    args = [a.replace("{stories}", stories).replace("{demo}", demo) for a in c["args"]]
    r = subprocess.run([cli] + args, capture_output=True, text=True, check=True)
    json.loads(r.stdout)  # must be JSON
    text = r.stdout.replace(stories, "{stories}").replace(demo, "{demo}")  # machine-independent
    with open(f"{out}/{c['name']}.json", "w") as f:
        f.write(text)
    print(f"{c['name']}: {len(r.stdout)} bytes")
PY
