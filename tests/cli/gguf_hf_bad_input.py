#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`export-gguf` refuses Hugging Face checkpoints it cannot convert, clearly and without output.

Each case spoils one thing of the seeded llama checkpoint (scripts/gguf/make-hf-goldens.py
--source): an architecture convert does not write as llama, a missing config key, a missing
tensor, a tensor of the wrong shape, a tensor of a dtype other than F32/F16/BF16, a tokenizer.json
that is not BPE, a SentencePiece tokenizer.model. Each must exit non-zero with an error naming
the file and the key or tensor, for --quant F16 (the conversion alone) and --quant Q4_K_M
(conversion then quantization), and leave no OUT, no OUT.partial and no OUT.convert.partial.

Usage: gguf_hf_bad_input.py QUANTSCOPE_CLI SOURCE_ROOT
Exit 77 (skipped) when numpy is missing.
"""
import importlib.util
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

try:
    import numpy  # noqa: F401
except ImportError as e:
    print(f"skipped: numpy is needed to write the seeded checkpoint ({e})")
    sys.exit(77)


def edit_json(path, fn):
    with open(path) as f:
        j = json.load(f)
    fn(j)
    with open(path, "w") as f:
        json.dump(j, f)


def edit_safetensors(path, fn):
    """fn(header) may delete entries or change their shape / dtype; each kept tensor keeps the
    first bytes of its data (as many as its new dtype and shape take) and the file is repacked."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    fn(header)
    size = {"F32": 4, "F16": 2, "BF16": 2, "I8": 1}
    out, blobs, offset = {}, [], 0
    for name, e in sorted(((k, v) for k, v in header.items() if k != "__metadata__"),
                          key=lambda kv: kv[1]["data_offsets"][0]):
        a = e["data_offsets"][0]
        nbytes = size[e["dtype"]] * e["shape"][0] * (e["shape"][1] if len(e["shape"]) > 1 else 1)
        blobs.append(data[a:a + nbytes])
        out[name] = {"dtype": e["dtype"], "shape": e["shape"], "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    h = json.dumps(out).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def set_shape(name, shape):
    return lambda h: h[name].update(shape=shape)


def set_dtype(name, dtype):
    def fn(h):
        e = h[name]
        e["dtype"] = dtype
        e["shape"] = [e["shape"][0], e["shape"][1] * 2]  # the same bytes as 8-bit codes
    return fn


CASES = [
    ("architecture", lambda d: edit_json(d + "/config.json", lambda j: j.update(architectures=["Qwen2ForCausalLM"])),
     ["config.json", "Qwen2ForCausalLM", "llama"]),
    ("config key", lambda d: edit_json(d + "/config.json", lambda j: j.pop("num_attention_heads")),
     ["config.json", "num_attention_heads"]),
    ("missing tensor", lambda d: edit_safetensors(d + "/model.safetensors",
                                                  lambda h: h.pop("model.layers.1.mlp.up_proj.weight")),
     ["model.layers.1.mlp.up_proj.weight", "blk.1.ffn_up.weight"]),
    ("wrong shape", lambda d: edit_safetensors(d + "/model.safetensors",
                                               set_shape("model.layers.0.self_attn.k_proj.weight", [64, 256])),
     ["model.layers.0.self_attn.k_proj.weight", "model.safetensors", "[64, 256]", "[128, 256]"]),
    ("dtype", lambda d: edit_safetensors(d + "/model.safetensors",
                                         set_dtype("model.layers.0.mlp.gate_proj.weight", "I8")),
     ["model.layers.0.mlp.gate_proj.weight", "I8"]),
    ("not BPE", lambda d: edit_json(d + "/tokenizer.json", lambda j: j["model"].update(type="WordPiece")),
     ["tokenizer.json", "WordPiece", "BPE"]),
    ("sentencepiece", lambda d: open(d + "/tokenizer.model", "wb").write(b"\x0a\x00"),
     ["tokenizer.model", "SentencePiece"]),
]


def main():
    cli, root = sys.argv[1], sys.argv[2]
    spec = importlib.util.spec_from_file_location("make_hf_goldens", os.path.join(root, "scripts/gguf/make-hf-goldens.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        good = os.path.join(tmp, "good")
        gen.write_source(good)
        for label, spoil, words in CASES:
            src = os.path.join(tmp, label.replace(" ", "-"))
            shutil.copytree(good, src)
            spoil(src)
            for quant in ("F16", "Q4_K_M"):
                out = os.path.join(tmp, "out.gguf")
                p = subprocess.run([cli, "export-gguf", src, out, "--quant", quant, "--quiet"], capture_output=True,
                                   text=True)
                left = [f for f in os.listdir(tmp) if f.startswith("out.gguf")]
                missing = [w for w in words if w not in p.stderr]
                if p.returncode == 0 or missing or left:
                    failures += 1
                    print(f"FAIL {label} ({quant}): exit {p.returncode}, stderr {p.stderr.strip()!r}"
                          f"{', lacks ' + str(missing) if missing else ''}{', left ' + str(left) if left else ''}")
                    for f in left:
                        os.remove(os.path.join(tmp, f))
                else:
                    print(f"ok   {label} ({quant}): {p.stderr.strip().splitlines()[-1]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
