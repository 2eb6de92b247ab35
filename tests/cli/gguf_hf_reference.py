#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`quantscope-cli export-gguf HF_FOLDER` against llama.cpp's convert_hf_to_gguf.py (and llama-quantize).

tests/data/gguf/hf-goldens.json (scripts/gguf/make-hf-goldens.py) holds, for a seeded llama
checkpoint, what convert_hf_to_gguf.py --outtype f32 / f16, --outtype bf16 of the same checkpoint
in two shards, and llama-quantize Q4_K_M (of the f32 file) wrote: the SHA-256 of each file, of each key-value pair's stored value and of each tensor's
bytes, in file order. This test regenerates the checkpoint (numpy), runs export-gguf with the same
--quant and requires the same file; where the whole-file SHA-256 differs, every tensor (name,
type, shape, bytes) and the order of tensors and keys must be equal, and every key's value too
except those in KNOWN (docs/formats.md "GGUF from a Hugging Face checkpoint" says why).

Usage: gguf_hf_reference.py QUANTSCOPE_CLI SOURCE_ROOT
Exit 77 (skipped) when numpy or the `gguf` package is missing, or the checkpoint regenerates
differently under another numpy.
"""
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

try:
    import gguf  # noqa: F401
    import numpy
except ImportError as e:
    print(f"skipped: the gguf and numpy Python packages are needed ({e})")
    sys.exit(77)

# Keys whose value convert derives from heuristics Quantscope does not reproduce.
KNOWN = {
    "general.name": "convert makes a display name from the folder name and model card ('tiny-llama' → 'Tiny "
                    "Llama'); Quantscope writes the folder name",
}


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    cli, root = sys.argv[1], sys.argv[2]
    spec = importlib.util.spec_from_file_location("make_hf_goldens", os.path.join(root, "scripts/gguf/make-hf-goldens.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    with open(os.path.join(root, "tests/data/gguf/hf-goldens.json")) as f:
        gold = json.load(f)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "tiny-llama")
        gen.write_source(src)
        sharded = os.path.join(tmp, "sharded", "tiny-llama")
        gen.write_source(sharded, sharded=True)
        got = {n: sha(os.path.join(src, n)) for n in sorted(os.listdir(src))}
        got_sharded = {n: sha(os.path.join(sharded, n)) for n in sorted(os.listdir(sharded))}
        if got != gold["source"] or got_sharded != gold["source_sharded"]:
            if numpy.__version__ != gold["numpy"]:
                print(f"skipped: numpy {numpy.__version__} regenerates another checkpoint than numpy {gold['numpy']} "
                      "did for the goldens")
                return 77
            print(f"FAIL: the regenerated checkpoint differs from the one convert read: {got} {got_sharded}")
            return 1
        for run in gold["runs"]:
            out = os.path.join(tmp, run["quant"] + ".gguf")
            # The sharded checkpoint is given by its index file (the folder works as well).
            given = os.path.join(sharded, "model.safetensors.index.json") if run.get("sharded") else src
            p = subprocess.run([cli, "export-gguf", given, out, "--quant", run["quant"], "--json", "--quiet"],
                               capture_output=True, text=True)
            if p.returncode != 0:
                print(f"FAIL {run['quant']}: exit {p.returncode}: {p.stderr.strip()}")
                failures += 1
                continue
            if sha(out) == run["sha256"]:
                print(f"ok   {run['quant']}: equals {run['made_by']} byte for byte")
                continue
            ours = gen.describe(out)
            problems = []
            if [(t["name"], t["type"], t["ne"]) for t in ours["tensors"]] != \
                    [(t["name"], t["type"], t["ne"]) for t in run["tensors"]]:
                problems.append("tensor names/types/shapes or order differ: ours " +
                                str([(t["name"], t["type"]) for t in ours["tensors"]][:6]) + " … theirs " +
                                str([(t["name"], t["type"]) for t in run["tensors"]][:6]))
            else:
                bad = [t["name"] for t, g in zip(ours["tensors"], run["tensors"]) if t["sha256"] != g["sha256"]]
                if bad:
                    problems.append(f"{len(bad)} tensors' bytes differ: {bad[:8]}")
            if [(k["key"], k["type"]) for k in ours["kv"]] != [(k["key"], k["type"]) for k in run["kv"]]:
                problems.append("keys or their order/types differ: ours " + str([k["key"] for k in ours["kv"]]) +
                                " theirs " + str([k["key"] for k in run["kv"]]))
            else:
                for k, g in zip(ours["kv"], run["kv"]):
                    if k["sha256"] != g["sha256"]:
                        if k["key"] in KNOWN:
                            print(f"     {run['quant']}: {k['key']} differs as documented: {KNOWN[k['key']]}")
                        else:
                            problems.append(f"value of {k['key']} differs")
            if problems:
                failures += 1
                print(f"FAIL {run['quant']}: " + "; ".join(problems))
            else:
                print(f"ok   {run['quant']}: every tensor, the order and every key but the documented ones equal "
                      f"{run['made_by']}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
