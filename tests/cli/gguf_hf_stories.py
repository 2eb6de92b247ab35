#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""stories260K (config.json + model.safetensors, no tokenizer) through `export-gguf` to F32 and Q4_K_M.

Each output is read back by the `gguf` package and by Quantscope's reader (`decode`): the two
decodings of every tensor must be equal bit for bit, the tensors must carry llama.cpp's names and
the llama.* keys config.json gives, no tokenizer key may be written (and the notes must say so);
un-permuting attn_q / attn_k's rows (the inverse of convert_hf_to_gguf.py's LlamaModel.permute)
must give the source back — exactly for F32, and for Q4_K_M with an error far below that of the
still-permuted rows.

Usage: gguf_hf_stories.py QUANTSCOPE_CLI SHARED_DATA_DIR
Exit 77 (skipped) when numpy / gguf are missing or SHARED_DATA_DIR/stories260K is absent.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

try:
    import gguf
    import numpy as np
except ImportError as e:
    print(f"skipped: the gguf and numpy Python packages are needed ({e})")
    sys.exit(77)


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        assert e["dtype"] == "F32", name
        a, b = e["data_offsets"]
        out[name] = np.frombuffer(data[a:b], dtype=np.float32).reshape(e["shape"])
    return out


def unpermute(w, heads):
    """The inverse of LlamaModel.permute: rows (h, i, j) back to (h, j, i)."""
    rows = w.shape[0]
    return w.reshape(heads, rows // heads // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def main():
    cli, shared = sys.argv[1], sys.argv[2]
    folder = os.path.join(shared, "stories260K")
    if not os.path.isfile(os.path.join(folder, "model.safetensors")):
        print(f"skipped: {folder}/model.safetensors is absent (../shared/data)")
        return 77
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    src = read_safetensors(os.path.join(folder, "model.safetensors"))
    tmap = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, cfg["num_hidden_layers"])
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for quant in ("F32", "Q4_K_M"):
            out = os.path.join(tmp, quant + ".gguf")
            p = subprocess.run([cli, "export-gguf", os.path.join(folder, "model.safetensors"), out, "--quant", quant,
                                "--json", "--quiet"], capture_output=True, text=True)
            if p.returncode != 0:
                failures.append(f"{quant}: exit {p.returncode}: {p.stderr.strip()}")
                continue
            res = json.loads(p.stdout)
            if not any("no tokenizer" in n for n in res["notes"]):
                failures.append(f"{quant}: the notes do not say that no tokenizer was written: {res['notes']}")
            r = gguf.GGUFReader(out)
            keys = {f.name: f.contents() for f in r.fields.values() if not f.name.startswith("GGUF.")}
            want = {"general.architecture": "llama", "llama.block_count": cfg["num_hidden_layers"],
                    "llama.embedding_length": cfg["hidden_size"], "llama.feed_forward_length": cfg["intermediate_size"],
                    "llama.attention.head_count": cfg["num_attention_heads"],
                    "llama.attention.head_count_kv": cfg["num_key_value_heads"],
                    "llama.context_length": cfg["max_position_embeddings"], "llama.vocab_size": cfg["vocab_size"],
                    "llama.rope.dimension_count": cfg["head_dim"], "general.quantization_version": 2,
                    "general.file_type": 0 if quant == "F32" else 15}
            for k, v in want.items():
                if keys.get(k) != v:
                    failures.append(f"{quant}: {k} is {keys.get(k)!r}, want {v!r}")
            if abs(keys.get("llama.rope.freq_base", 0) - cfg["rope_theta"]) > 0 or \
                    abs(keys.get("llama.attention.layer_norm_rms_epsilon", 0) - np.float32(cfg["rms_norm_eps"])) > 0:
                failures.append(f"{quant}: rope freq base / rms eps differ from config.json")
            tok = [k for k in keys if k.startswith("tokenizer.")]
            if tok:
                failures.append(f"{quant}: tokenizer keys written without a tokenizer: {tok}")
            names = {t.name for t in r.tensors}
            if len(names) != len(src) or "output.weight" not in names or "blk.4.ffn_down.weight" not in names:
                failures.append(f"{quant}: tensors {sorted(names)[:6]}… do not map the {len(src)} HF tensors")
            worst_q4 = 0.0
            for t in r.tensors:
                theirs = gguf.quants.dequantize(t.data, t.tensor_type).reshape([int(n) for n in reversed(t.shape)])
                npy = os.path.join(tmp, "t.npy")
                if os.path.exists(npy):
                    os.remove(npy)
                d = subprocess.run([cli, "decode", out, "--tensor", t.name, "--out", npy],
                                   capture_output=True, text=True)
                if d.returncode != 0:
                    failures.append(f"{quant}: decode {t.name}: {d.stderr.strip()}")
                    continue
                ours = np.load(npy)
                if ours.shape != theirs.shape or not np.array_equal(ours.view(np.uint32),
                                                                     theirs.astype(np.float32).view(np.uint32)):
                    failures.append(f"{quant}: {t.name}: our reader and the gguf package decode differently")
                hf = [h for h in src if tmap.get_name(h, try_suffixes=(".weight",)) == t.name]
                if len(hf) != 1:
                    failures.append(f"{quant}: {t.name} has no single HF source tensor: {hf}")
                    continue
                s = src[hf[0]]
                back = theirs
                heads = cfg["num_attention_heads"] if t.name.endswith("attn_q.weight") else \
                    cfg["num_key_value_heads"] if t.name.endswith("attn_k.weight") else 0
                if heads:
                    back = unpermute(theirs, heads)
                    if quant == "F32" and np.array_equal(theirs, s):
                        failures.append(f"{quant}: {t.name} is stored unpermuted")
                err = float(np.sum((back - s) ** 2) / np.sum(s ** 2))
                if quant == "F32" and not np.array_equal(back.view(np.uint32), s.view(np.uint32)):
                    failures.append(f"F32: {t.name} does not equal {hf[0]} (after un-permuting)")
                if quant != "F32":
                    worst_q4 = max(worst_q4, err)
                    if heads:
                        still = float(np.sum((theirs - s) ** 2) / np.sum(s ** 2))
                        if not err < 0.1 * still:
                            failures.append(f"{quant}: {t.name}: un-permuted error {err:.3g} is not far below the "
                                            f"permuted one {still:.3g}")
            if quant != "F32":
                if not worst_q4 < 0.05:
                    failures.append(f"{quant}: worst relative error {worst_q4:.3g} against the source")
                print(f"{quant}: {len(r.tensors)} tensors, worst ‖W−Ŵ‖²/‖W‖² {worst_q4:.3g}")
            else:
                print(f"{quant}: {len(r.tensors)} tensors equal the source after un-permuting q/k")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
