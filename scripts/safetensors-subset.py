#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes chosen tensors of a safetensors file into a new, smaller safetensors file, each F32
tensor also as a BF16 copy (round to nearest even) named NAME + ".bf16" — or only that copy when
the name is given as NAME:bf16. Standard library only.

Test-data preparation for the GPU machine (scripts/vendor-deps.sh): the real all-MiniLM-L6-v2
weights are 87 MB, more than a device call carries, and the GPU tests need a few of its matrices
in F32 and BF16 (the value-table paths run on 16-bit inputs).

Usage: safetensors-subset.py IN.safetensors OUT.safetensors NAME[:bf16] [NAME[:bf16] ...]
"""
import json
import os
import struct
import sys
from array import array


def read_header(f):
    n = struct.unpack("<Q", f.read(8))[0]
    return json.loads(f.read(n)), 8 + n


def to_bf16(raw):
    u = array("I")
    u.frombytes(raw)
    if sys.byteorder != "little":
        u.byteswap()
    out = array("H", [0]) * len(u)
    for i, x in enumerate(u):
        if (x & 0x7F800000) == 0x7F800000:  # Inf, NaN: keep the sign, quiet NaN
            out[i] = (x >> 16) | (0x40 if x & 0x007FFFFF else 0)
        else:
            out[i] = ((x + 0x7FFF + ((x >> 16) & 1)) >> 16) & 0xFFFF
    if sys.byteorder != "little":
        out.byteswap()
    return out.tobytes()


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    src, dst, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(src, "rb") as f:
        header, base = read_header(f)
        blobs = []
        for arg in names:
            name, _, only = arg.partition(":")
            if name not in header:
                sys.exit(f"{src}: no tensor {name!r}")
            e = header[name]
            a, b = e["data_offsets"]
            f.seek(base + a)
            raw = f.read(b - a)
            if only and (only != "bf16" or e["dtype"] != "F32"):
                sys.exit(f"{arg}: only NAME:bf16 of an F32 tensor is understood")
            if not only:
                blobs.append((name, e["dtype"], e["shape"], raw))
            if e["dtype"] == "F32":
                blobs.append((name + ".bf16", "BF16", e["shape"], to_bf16(raw)))
    meta = {"__metadata__": {"source": src.rsplit("/", 1)[-1], "subset_of": "all-MiniLM-L6-v2"}}
    off = 0
    for name, dt, shape, raw in blobs:
        meta[name] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + len(raw)]}
        off += len(raw)
    hdr = json.dumps(meta, separators=(",", ":")).encode()
    hdr += b" " * (-len(hdr) % 8)
    tmp = dst + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(hdr)))
        f.write(hdr)
        for _, _, _, raw in blobs:
            f.write(raw)
    os.replace(tmp, dst)


if __name__ == "__main__":
    main()
