#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ctest kv_numpy_reference: `quantscope-cli kv` against an independent NumPy computation.

Usage: kv_numpy_reference.py QUANTSCOPE_CLI [FILE.npz]
Without FILE, K/V/Q with outlier channels are drawn from a fresh random seed (printed), so every
run checks data the product has not seen; with FILE (arrays k, v, q of [layers, heads, tokens,
head_dim]) the user's own. For the schemes bf16, fp8 (amax/448) and int4 (KIVI), NumPy
re-implements the quantizer (docs/numerics.md "KV-cache lab") and the attention errors in FP64 —
per layer, KV head and query head: K/V MSE, mean KL(P‖P̂), max |P − P̂|, output relative error and
MSE — and every value must agree to 1e-6 relative. Exit 77 (skip) without NumPy.
"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("SKIP: this python has no numpy (apt-get install python3-numpy)")
    sys.exit(77)


def bf16(x):
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


def e4m3_table():
    vals = []
    for code in range(0x7F):  # positive finite codes (0x7F is NaN)
        e, m = code >> 3, code & 7
        vals.append((m / 8) * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))
    return np.array(vals, dtype=np.float64)


E4M3 = e4m3_table()


def e4m3_round(x):
    """Nearest E4M3 value (saturating at ±448), ties to the even code."""
    a = np.minimum(np.abs(x.astype(np.float64)), 448.0)
    hi = np.clip(np.searchsorted(E4M3, a), 1, len(E4M3) - 1)
    lo = hi - 1
    dlo, dhi = a - E4M3[lo], E4M3[hi] - a
    pick = np.where(dlo < dhi, lo, np.where(dhi < dlo, hi, np.where(lo % 2 == 0, lo, hi)))
    return (np.sign(x) * E4M3[pick]).astype(np.float32)


def fp8(x):
    s = np.float32(np.abs(x).max()) / np.float32(448.0)
    return (e4m3_round((x / s).astype(np.float32)) * s).astype(np.float32)


def int4_groups(g):
    """KIVI INT4 on groups along the last axis (any leading shape)."""
    mn, mx = g.min(axis=-1, keepdims=True), g.max(axis=-1, keepdims=True)
    s = ((mx - mn) / np.float32(15)).astype(np.float32).astype(np.float16).astype(np.float32)
    z = mn.astype(np.float16).astype(np.float32)
    safe = np.where(s > 0, s, np.float32(1))
    q = np.clip(np.rint(((g - z) / safe).astype(np.float32)), 0, 15).astype(np.float32)
    return np.where(s > 0, (q * s + z).astype(np.float32), z)


def int4(x, role):
    H, T, d = x.shape
    out = np.empty_like(x)
    if role == "k":  # per channel over groups of 32 tokens
        for t0 in range(0, T, 32):
            blk = x[:, t0:t0 + 32, :].transpose(0, 2, 1)
            out[:, t0:t0 + 32, :] = int4_groups(blk).transpose(0, 2, 1)
    else:  # per token over groups of 32 channels
        for j0 in range(0, d, 32):
            out[:, :, j0:j0 + 32] = int4_groups(x[:, :, j0:j0 + 32])
    return out


QUANT = {"bf16": lambda x, r: bf16(x), "fp8": lambda x, r: fp8(x), "int4": int4}


def attention(q, k, v, kq, vq, seg):
    """FP64 attention errors of one query head: query i attends to keys [i//seg*seg, i]."""
    d = q.shape[-1]
    kl, mx, err, ref, n = 0.0, 0.0, 0.0, 0.0, 0
    for i in range(q.shape[0]):
        s0 = i // seg * seg
        qi = q[i].astype(np.float64)
        z = k[s0:i + 1].astype(np.float64) @ qi / np.sqrt(d)
        zq = kq[s0:i + 1].astype(np.float64) @ qi / np.sqrt(d)
        lp = z - (z.max() + np.log(np.exp(z - z.max()).sum()))
        lpq = zq - (zq.max() + np.log(np.exp(zq - zq.max()).sum()))
        p, pq = np.exp(lp), np.exp(lpq)
        kl += max(0.0, float((p * (lp - lpq)).sum()))
        mx = max(mx, float(np.abs(p - pq).max()))
        o = p @ v[s0:i + 1].astype(np.float64)
        oq = pq @ vq[s0:i + 1].astype(np.float64)
        err += float(((o - oq) ** 2).sum())
        ref += float((o ** 2).sum())
        n += 1
    return {"kl": kl / n, "score_max_err": mx, "out_rel": err / ref, "out_mse": err / (n * d)}


def close(a, b, what):
    if abs(a - b) > 1e-6 * max(abs(a), abs(b)) + 1e-18:
        raise SystemExit(f"FAIL: {what}: quantscope {a!r} vs NumPy {b!r}")


def main():
    cli = sys.argv[1]
    with tempfile.TemporaryDirectory() as work:
        if len(sys.argv) > 2:
            path = sys.argv[2]
            z = np.load(path)
            k, v, q = (z[n].astype(np.float32) for n in ("k", "v", "q"))
        else:
            seed = int.from_bytes(os.urandom(4), "little")
            print(f"seed {seed}")
            rng = np.random.default_rng(seed)
            L, Hkv, H, T, d = 3, 2, 4, 96, 64
            scale = np.ones(d, dtype=np.float32)
            scale[rng.choice(d, 4, replace=False)] = 10
            k = (rng.standard_normal((L, Hkv, T, d)) * scale).astype(np.float32)
            v = rng.standard_normal((L, Hkv, T, d)).astype(np.float32)
            q = (rng.standard_normal((L, H, T, d)) * 0.2).astype(np.float32)
            path = os.path.join(work, "hidden.npz")
            np.savez(path, k=k, v=v, q=q)
        L, Hkv, T, d = k.shape
        H = q.shape[1]
        out = subprocess.run([cli, "kv", path, "--json", "--quiet", "--schemes", "bf16;fp8;int4",
                              "--score-queries", "0", "--no-distortion", "--boundary", "0", "--device", "cpu"],
                             check=True, capture_output=True, text=True).stdout
        rep = json.loads(out)
        seg = rep["segment"]
        assert seg == T, seg
        checked = 0
        for s in rep["schemes"]:
            name = s["name"]
            for li, layer in enumerate(s["layers"]):
                kq = QUANT[name](k[li], "k")
                vq = QUANT[name](v[li], "v")
                for h in range(Hkv):
                    close(layer["k_mse"][h], float(((k[li, h].astype(np.float64) - kq[h]) ** 2).mean()),
                          f"{name} layer {li} head {h} K MSE")
                    close(layer["v_mse"][h], float(((v[li, h].astype(np.float64) - vq[h]) ** 2).mean()),
                          f"{name} layer {li} head {h} V MSE")
                for h in range(H):
                    g = h // (H // Hkv)
                    ref = attention(q[li, h], k[li, g], v[li, g], kq[g], vq[g], seg)
                    for key, val in ref.items():
                        close(layer["attention"][h][key], val, f"{name} layer {li} query head {h} {key}")
                        checked += 1
        print(f"OK: {checked} attention values and every K/V MSE agree with NumPy to 1e-6")


if __name__ == "__main__":
    main()
