#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cold fresh-clone build times (docs/perf.md "Build time"): clones HEAD of this checkout beside it
# (so that ../shared is the same), runs the README's test command (`quickstart`) or CI's entry
# point (`ci`) with an empty ccache, and writes the phase times and the ninja log's cost per
# target and per translation unit into OUT (default bench/results/build-<mode>-<date>).
#   scripts/measure-cold-build.sh quickstart|ci [OUT]
set -euo pipefail
mode="${1:?usage: $0 quickstart|ci [OUT]}"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${2:-$src/bench/results/build-$mode-$(date +%F)}"
mkdir -p "$out"
clone="$(dirname "$src")/qs-cold-$mode"
rm -rf "$clone"
git clone -q "$src" "$clone"
export CCACHE_DIR="$clone/.ccache-empty" # a cold compiler cache, as on a fresh machine
mkdir -p "$CCACHE_DIR"
t0=$(date +%s)
rc=0
case "$mode" in
  quickstart) (cd "$clone" && scripts/quickstart.sh test) > "$out/log.txt" 2>&1 || rc=$? ;;
  ci) (cd "$clone" && bash .ci/run) > "$out/log.txt" 2>&1 || rc=$? ;;
  *) echo "usage: $0 quickstart|ci [OUT]" >&2; exit 2 ;;
esac
total=$(( $(date +%s) - t0 ))
python3 - "$clone" "$out" "$mode" "$total" "$rc" <<'PY'
import json, os, re, sys, platform, subprocess
clone, out, mode, total, rc = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
log = open(os.path.join(out, "log.txt"), errors="replace").read()
phases = {m.group(1): int(m.group(2)) for m in re.finditer(r"^== (\S+(?: \S+)*?) took (\d+)s", log, re.M)}
units, targets = [], {}
for build in ("build", "build-sanitize"):
    path = os.path.join(clone, build, ".ninja_log")
    if not os.path.exists(path):
        continue
    for line in open(path).read().splitlines()[1:]:
        start, end, _, obj, _ = line.split("\t")
        secs = (int(end) - int(start)) / 1000
        m = re.search(r"CMakeFiles/([^/]+)\.dir/", obj)
        target = (build + ":" + m.group(1)) if m else build + ":(other)"
        targets[target] = targets.get(target, 0) + secs
        units.append((secs, build + ":" + obj))
units.sort(reverse=True)
res = {"mode": mode, "rc": rc, "total_s": total, "phases_s": phases, "nproc": os.cpu_count(),
       "cpu": platform.processor() or subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo"],
                                                       capture_output=True, text=True).stdout.strip(),
       "compile_s_by_target": dict(sorted(targets.items(), key=lambda kv: -kv[1])),
       "slowest_units_s": [{"s": s, "unit": u} for s, u in units[:40]],
       "compile_s_sum": sum(s for s, _ in units)}
json.dump(res, open(os.path.join(out, "build_times.json"), "w"), indent=1)
with open(os.path.join(out, "summary.txt"), "w") as f: # log.txt itself is not committed (.gitignore)
    f.writelines(l + "\n" for l in log.splitlines() if l.startswith("== ") or "tests passed" in l or "Total Test time" in l)
print(json.dumps({k: res[k] for k in ("mode", "rc", "total_s", "phases_s", "compile_s_sum")}))
PY
exit "$rc"
