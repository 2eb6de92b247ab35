#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The tensor of the CPU MiLo timing (docs/perf.md "CPU MiLo through the CLI (issue 44)"): a
seeded BF16 weight [rows, cols] (default 4096 × 4096) shaped like an LLM projection — Student-t
(ν = 5) elements, rows scaled log-normally (heavy-tailed row norms), 16 outlier input channels at
8× — written as a one-tensor safetensors file (tensor name "w").
Usage: milo_cpu_tensor.py OUT.safetensors [--rows 4096] [--cols 4096] [--seed 44]"""
import argparse
import json
import struct

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--seed", type=int, default=44)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    w = rng.standard_t(5.0, size=(a.rows, a.cols)).astype(np.float32)
    w *= (0.02 * np.exp(0.5 * rng.standard_normal(a.rows))).astype(np.float32)[:, None]
    w[:, rng.choice(a.cols, size=16, replace=False)] *= 8.0
    # BF16 by round-to-nearest-even of the FP32 bits (the values are finite).
    u = w.view(np.uint32)
    bf16 = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    header = {"w": {"dtype": "BF16", "shape": [a.rows, a.cols], "data_offsets": [0, bf16.nbytes]},
              "__metadata__": {"generator": f"bench/milo_cpu_tensor.py --seed {a.seed}"}}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(a.out, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        f.write(bf16.tobytes())


if __name__ == "__main__":
    main()
