#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The NumPy way of doing what qs_bench_cpu_quant does, on the same BF16 tensor
(bench_input_bf16.bin written by it): INT4 g128 quantize + dequantize + errors + moments of W
and Ŵ + three 256-bin histograms + the 4096-bin |err| histogram for percentiles."""
import argparse, json, os, time
import numpy as np


def bf16_to_f32(raw):
    return (raw.astype(np.uint32) << 16).view(np.float32)


def moments(x):
    x = x.astype(np.float64)
    m = x.mean(); d = x - m
    m2 = (d * d).mean(); m3 = (d ** 3).mean(); m4 = (d ** 4).mean()
    return dict(mean=m, std=np.sqrt(m2), skew=m3 / m2 ** 1.5, kurt=m4 / m2 ** 2 - 3, min=x.min(), max=x.max())


def run_int4(w, group, symmetric):
    r, c = w.shape
    g = w.reshape(r, c // group, group)
    if symmetric:
        amax = np.abs(g).max(axis=2, keepdims=True)
        s = (amax / np.float32(7.5)).astype(np.float32)
        s[s == 0] = np.finfo(np.float32).eps
        q = np.clip(np.rint(g / s), -8, 7)
        wh = (s * q).astype(np.float32)
    else:
        lo = np.minimum(g.min(axis=2, keepdims=True), 0); hi = np.maximum(g.max(axis=2, keepdims=True), 0)
        s = ((hi - lo) / np.float32(15)).astype(np.float32)
        s[s == 0] = np.finfo(np.float32).eps
        z = np.clip(-8 - np.rint(lo / s), -8, 7)
        q = np.clip(np.rint(g / s) + z, -8, 7)
        wh = (s * (q - z)).astype(np.float32)
    return q.astype(np.int8).reshape(r, c), wh.reshape(r, c)


def run_fp8(w):
    # No FP8 dtype in NumPy: the E4M3 RNE cast is emulated (round the mantissa to 3 bits).
    s = np.float32(np.abs(w).max() / 448)
    v = np.clip(w / s, -448, 448)
    _, e = np.frexp(v)
    e = np.maximum(e, -5)  # subnormal quantum 2^-9
    q = np.ldexp(np.rint(np.ldexp(v, 4 - e)), e - 4)
    return q, (q * s).astype(np.float32)


def metrics(w, wh):
    x = w.astype(np.float64); y = wh.astype(np.float64); e = x - y
    se = (e * e).sum(); sx = (x * x).sum()
    out = dict(mse=se / x.size, sqnr=10 * np.log10(sx / se), rel=np.sqrt(se / sx), maxabs=np.abs(e).max(),
               cos=(x * y).sum() / np.sqrt(sx * (y * y).sum()))
    lo, hi = x.min(), x.max()
    hw = np.histogram(x, bins=256, range=(lo, hi))[0]
    hh = np.histogram(y, bins=256, range=(lo, hi))[0]
    he = np.histogram(e, bins=256, range=(e.min(), e.max()))[0]
    ae = np.abs(e); mx = ae.max()
    hp = np.histogram(ae, bins=4096, range=(0, mx))[0]
    cum = np.cumsum(hp)
    out['pct'] = [mx * (np.searchsorted(cum, p * x.size) + 1) / 4096 for p in (0.5, 0.9, 0.99, 0.999)]
    out['overlap'] = np.minimum(hw, hh).sum() / x.size
    out['stats_in'] = moments(x); out['stats_out'] = moments(y)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('--rows', type=int, default=4096)
    ap.add_argument('--cols', type=int, default=4096)
    ap.add_argument('--repeats', type=int, default=5)
    a = ap.parse_args()
    raw = np.fromfile(os.path.join(a.out, 'bench_input_bf16.bin'), dtype=np.uint16).reshape(a.rows, a.cols)
    results = []
    for name in ('int4_sym_g128', 'int4_asym_g128', 'fp8_e4m3_tensor'):
        times = []
        for r in range(a.repeats + 1):
            t0 = time.perf_counter()
            w = bf16_to_f32(raw)
            if name.startswith('fp8'):
                q, wh = run_fp8(w)
            else:
                q, wh = run_int4(w, 128, 'asym' not in name)
            m = metrics(w, wh)
            dt = (time.perf_counter() - t0) * 1e3
            if r:
                times.append(dt)
        times.sort(); med = times[len(times) // 2]
        print(f"{name:18s} {med:8.1f} ms  numpy  rel_fro {m['rel']:.6f}")
        results.append(dict(case=name, median_ms=med, rel_frobenius=float(m['rel']), repeats=a.repeats))
    with open(os.path.join(a.out, 'numpy_quant.json'), 'w') as f:
        json.dump(dict(benchmark='numpy_quant', numpy=np.__version__, rows=a.rows, cols=a.cols, results=results), f, indent=1)


if __name__ == '__main__':
    main()
