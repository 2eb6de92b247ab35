#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""HF → GGUF goldens from llama.cpp's own convert_hf_to_gguf.py (and llama-quantize).

A small seeded llama checkpoint in the Hugging Face layout — config.json (GQA: 4 heads / 2 KV
heads, head_dim 64, linear rope scaling, tied embeddings so no lm_head, a vocab_size above the
tokenizer's so that convert pads with [PAD<i>] tokens), model.safetensors (F32 for the norms, BF16
for the embeddings, F16 for the rest; written with numpy alone) and a small byte-level BPE
tokenizer (tests/data/gguf/hf-tiny/tokenizer.json and tokenizer_config.json, committed; made
once with the `tokenizers` package by --tokenizer) — is converted by llama.cpp's
convert_hf_to_gguf.py (the llama-cpp-python sdist's vendor/llama.cpp) with --outtype f32 and
f16, the same checkpoint in two shards with --outtype bf16, and the f32 file quantized by
llama-quantize to Q4_K_M. tests/data/gguf/hf-goldens.json
records for each output the SHA-256 of the whole file, every key-value pair (its type and the
SHA-256 of its stored value bytes) and every tensor (type, ne, SHA-256 of its bytes), in file
order; tests/cli/gguf_hf_reference.py regenerates the checkpoint, runs
`quantscope-cli export-gguf` on it and compares.

The pre-tokenizer: convert_hf_to_gguf.py names it from a hash of the token ids its running
tokenizer gives for a fixed text, and knows only published tokenizers' hashes; a tokenizer
trained here has none. The run therefore replaces get_vocab_base_pre with the name Quantscope's
table gives for the tokenizer.json pre_tokenizer (docs/formats.md "GGUF from a Hugging Face
checkpoint"): every other key and every tensor is convert's own.

Only for writing committed goldens; llama.cpp is never a dependency of the product. Needs torch,
transformers, safetensors, sentencepiece, gguf (a venv: /tmp/qs-interop-venv has them).

Usage:
  make-hf-goldens.py --source DIR            # the seeded checkpoint only (numpy)
  make-hf-goldens.py --source examples/tiny-llama --small   # the docs' example checkpoint
  make-hf-goldens.py --tokenizer             # rebuild the committed tokenizer (tokenizers)
  make-hf-goldens.py --convert CONVERT_HF_TO_GGUF.py --llama-quantize /tmp/llama-build/bin/llama-quantize
"""
import argparse
import hashlib
import importlib.metadata
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKDIR = os.path.join(ROOT, "tests", "data", "gguf", "hf-tiny")
GOLDEN = os.path.join(ROOT, "tests", "data", "gguf", "hf-goldens.json")
LAYERS, HIDDEN, HEADS, KV_HEADS, HEAD_DIM, FFN, VOCAB = 2, 256, 4, 2, 64, 512, 320
# --small (examples/tiny-llama, what docs/cli.md's examples convert): one layer, hidden 64.
SMALL = {"num_hidden_layers": 1, "hidden_size": 64, "head_dim": 16, "intermediate_size": 128}
SEED = 20261129
# The pre-tokenizer name Quantscope's table gives this tokenizer (Digits + ByteLevel: SmolLM's).
PRE = "smollm"

CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": HIDDEN,
    "intermediate_size": FFN,
    "num_hidden_layers": LAYERS,
    "num_attention_heads": HEADS,
    "num_key_value_heads": KV_HEADS,
    "head_dim": HEAD_DIM,
    "vocab_size": VOCAB,
    "max_position_embeddings": 2048,
    "rms_norm_eps": 1e-05,
    "rope_theta": 50000.0,
    "rope_scaling": {"rope_type": "linear", "factor": 2.0},
    "hidden_act": "silu",
    "tie_word_embeddings": True,
    "bos_token_id": 0,
    "eos_token_id": 2,
    "torch_dtype": "float16",
}


def sha(data):
    return hashlib.sha256(data).hexdigest()


def file_sha(path):
    with open(path, "rb") as f:
        return sha(f.read())


def bf16(x):
    """float32 → bfloat16 bits, round to nearest even (the values are finite)."""
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def tensors(cfg):
    """The seeded weights: name → (safetensors dtype, shape, raw bytes), in HF's usual order."""
    rng = np.random.default_rng(SEED)
    LAYERS, HIDDEN, HEAD_DIM, FFN = (cfg[k] for k in ("num_hidden_layers", "hidden_size", "head_dim",
                                                      "intermediate_size"))
    out = []

    def mat(name, rows, cols, dtype):
        w = rng.standard_t(5, size=(rows, cols)).astype(np.float32) * np.float32(0.05)
        w[:, rng.integers(0, cols, 3)] *= np.float32(8.0)  # outlier channels
        if dtype == "BF16":
            out.append((name, "BF16", [rows, cols], bf16(w).tobytes()))
        else:
            out.append((name, "F16", [rows, cols], w.astype(np.float16).tobytes()))

    def vec(name, n):
        out.append((name, "F32", [n], (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32).tobytes()))

    mat("model.embed_tokens.weight", VOCAB, HIDDEN, "BF16")
    for i in range(LAYERS):
        p = f"model.layers.{i}."
        vec(p + "input_layernorm.weight", HIDDEN)
        mat(p + "self_attn.q_proj.weight", HEADS * HEAD_DIM, HIDDEN, "F16")
        mat(p + "self_attn.k_proj.weight", KV_HEADS * HEAD_DIM, HIDDEN, "F16")
        mat(p + "self_attn.v_proj.weight", KV_HEADS * HEAD_DIM, HIDDEN, "F16")
        mat(p + "self_attn.o_proj.weight", HIDDEN, HEADS * HEAD_DIM, "F16")
        vec(p + "post_attention_layernorm.weight", HIDDEN)
        mat(p + "mlp.gate_proj.weight", FFN, HIDDEN, "F16")
        mat(p + "mlp.up_proj.weight", FFN, HIDDEN, "F16")
        mat(p + "mlp.down_proj.weight", HIDDEN, FFN, "F16")
    vec("model.norm.weight", HIDDEN)
    return out


def write_safetensors(path, ts):
    header, offset = {}, 0
    for name, dtype, shape, raw in ts:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for _, _, _, raw in ts:
            f.write(raw)


def write_source(folder, small=False, sharded=False):
    """The checkpoint; `sharded`: the same tensors in two shards and an index, the second layer and
    the final norm in the first shard (convert orders by shard, then by name)."""
    cfg = {**CONFIG, **(SMALL if small else {})}
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    ts = tensors(cfg)
    if sharded:
        first = [t for t in ts if ".layers.1." in t[0] or t[0] == "model.norm.weight"]
        parts = {"model-00001-of-00002.safetensors": first,
                 "model-00002-of-00002.safetensors": [t for t in ts if t not in first]}
        weight_map = {}
        for fname, part in parts.items():
            write_safetensors(os.path.join(folder, fname), part)
            weight_map.update({t[0]: fname for t in part})
        with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": sum(len(t[3]) for t in ts)}, "weight_map": weight_map}, f, indent=2)
    else:
        write_safetensors(os.path.join(folder, "model.safetensors"), ts)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(TOKDIR, name), os.path.join(folder, name))


def make_tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False)])
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=specials, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    text = ["Once upon a time there was a little llama who liked to count 1, 2, 3 and 42.",
            "The quick brown fox jumps over the lazy dog; the dog sleeps in the sun.",
            "Quantization maps weights to blocks of codes with a scale and a minimum."] * 20
    tok.train_from_iterator(text, trainer)
    tok.add_tokens(["<extra>"])  # an added token that is not special: USER_DEFINED
    os.makedirs(TOKDIR, exist_ok=True)
    tok.save(os.path.join(TOKDIR, "tokenizer.json"))
    cfg = {"bos_token": "<|endoftext|>", "eos_token": "<|im_end|>", "unk_token": "<|endoftext|>",
           "pad_token": "<|im_end|>", "add_bos_token": False, "add_eos_token": False, "model_max_length": 2048,
           "tokenizer_class": "GPT2Tokenizer",
           "chat_template": "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
                            "{% endfor %}"}
    with open(os.path.join(TOKDIR, "tokenizer_config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    print(f"wrote {TOKDIR}/tokenizer.json ({tok.get_vocab_size()} tokens)")


def describe(path):
    """Per key and per tensor digests of a GGUF file, in file order (the `gguf` package)."""
    import gguf

    r = gguf.GGUFReader(path)
    kvs = []
    for field in r.fields.values():
        if field.name.startswith("GGUF."):
            continue
        raw = b"".join(bytes(p.tobytes()) for p in field.parts[2:])  # type, value (after the key)
        kvs.append({"key": field.name, "type": int(field.types[0]) if field.types else -1, "sha256": sha(raw)})
    ts = [{"name": t.name, "type": t.tensor_type.name, "ne": [int(n) for n in t.shape],
           "sha256": sha(bytes(t.data.tobytes()))} for t in r.tensors]
    return {"sha256": file_sha(path), "kv": kvs, "tensors": ts}


def run_convert(convert, src, out, outtype):
    """convert_hf_to_gguf.py with get_vocab_base_pre replaced (see the module's docstring)."""
    code = ("import sys, runpy; sys.argv = sys.argv[1:]; "
            "sys.path.insert(0, __import__('os').path.dirname(sys.argv[0])); "
            "import conversion.base as b; "
            f"b.TextModel.get_vocab_base_pre = lambda self, tokenizer: {PRE!r}; "
            "runpy.run_path(sys.argv[0], run_name='__main__')")
    subprocess.run([sys.executable, "-c", code, convert, src, "--outtype", outtype, "--outfile", out], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source")
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--tokenizer", action="store_true")
    ap.add_argument("--convert")
    ap.add_argument("--llama-quantize")
    a = ap.parse_args()
    if a.tokenizer:
        make_tokenizer()
        return 0
    if a.source:
        write_source(a.source, a.small)
        return 0
    if not a.convert:
        ap.error("--source DIR, --tokenizer or --convert PATH")
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "tiny-llama")
        write_source(src)
        for outtype in ("f32", "f16"):
            out = os.path.join(tmp, f"{outtype}.gguf")
            run_convert(a.convert, src, out, outtype)
            runs.append({"quant": outtype.upper(), "made_by": f"convert_hf_to_gguf.py --outtype {outtype}",
                         **describe(out)})
        # The same model in two shards (another folder of the same name: general.name is the folder's).
        sharded = os.path.join(tmp, "sharded", "tiny-llama")
        write_source(sharded, sharded=True)
        out = os.path.join(tmp, "sharded-bf16.gguf")
        run_convert(a.convert, sharded, out, "bf16")
        runs.append({"quant": "BF16", "sharded": True, "made_by": "convert_hf_to_gguf.py --outtype bf16 (sharded)",
                     **describe(out)})
        source_sharded = {n: file_sha(os.path.join(sharded, n)) for n in sorted(os.listdir(sharded))}
        if a.llama_quantize:
            out = os.path.join(tmp, "q4_k_m.gguf")
            subprocess.run([a.llama_quantize, os.path.join(tmp, "f32.gguf"), out, "Q4_K_M"], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            runs.append({"quant": "Q4_K_M", "made_by": "convert --outtype f32, then llama-quantize Q4_K_M",
                         **describe(out)})
        source = {n: file_sha(os.path.join(src, n)) for n in sorted(os.listdir(src))}
    gold = {"generator": "scripts/gguf/make-hf-goldens.py", "llama_cpp": "llama-cpp-python 0.3.36 vendor/llama.cpp",
            "gguf_package": importlib.metadata.version("gguf"), "numpy": np.__version__, "pre_tokenizer": PRE,
            "source": source, "source_sharded": source_sharded, "runs": runs}
    with open(GOLDEN, "w") as f:
        json.dump(gold, f, indent=1)
        f.write("\n")
    print(f"wrote {GOLDEN}: {', '.join(r['quant'] for r in runs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
