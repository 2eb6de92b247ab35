#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Lays bench/probe/gemmlab_clocks.sh's nvidia-smi samples beside each side's timed phases: per point,
the median time, the SM clock (mean and min) and the power (mean) over the timed phase, and the SM
clock over the 500 ms before it (ours: the tuning of the point's candidates, then the wait)."""
import datetime
import os
import re
import sys


def samples(out):
    rows = []
    with open(os.path.join(out, "smi.csv")) as f:
        for ln in f:
            parts = [p.strip() for p in ln.split(",")]
            if len(parts) < 5:
                continue
            try:
                ts = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f")
                t = ts.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000.0
                rows.append((t, float(parts[1].split()[0]), float(parts[3].split()[0]), int(parts[4]),
                             parts[5] if len(parts) > 5 else ""))
            except (ValueError, IndexError):
                continue
    return rows


def phases(log):
    """(format, M, start ms, median µs) of each timed phase in a side's log."""
    starts, medians = [], {}
    with open(log) as f:
        for ln in f:
            m = re.match(r"trace (\S+) M=(\d+) timed from (\d+) ms", ln)
            if m:
                starts.append((m.group(1), int(m.group(2)), float(m.group(3))))
                continue
            m = re.match(r"(bf16|fp8|fp8-rowwise|int8)\s+(\d+)\s+([\d.]+)", ln)
            if m:
                medians[(m.group(1), int(m.group(2)))] = float(m.group(3))
    return [(f, mm, t, medians.get((f, mm), float("nan"))) for f, mm, t in starts]


def main():
    out = sys.argv[1]
    rows = samples(out)
    if not rows:
        print("no nvidia-smi samples")
        return
    print(f"{len(rows)} samples, {rows[0][0]:.0f} … {rows[-1][0]:.0f} ms")
    print(f"{'side':24s} {'format':6s} {'M':>5s} {'median us':>10s} {'SM MHz mean/min':>16s} {'W mean':>7s} "
          f"{'SM MHz before':>14s} reasons")
    for side, name in (("a", "ours"), ("b", "PyTorch"), ("c", "ours, no wait after tuning")):
        log = os.path.join(out, f"{side}.log")
        if not os.path.exists(log):
            continue
        for fmt, m, t0, med in phases(log):
            dur = max(60.0, 45 * med / 1000.0)
            win = [r for r in rows if t0 <= r[0] <= t0 + dur]
            before = [r for r in rows if t0 - 500 <= r[0] < t0]
            mean = lambda v: sum(v) / len(v) if v else float("nan")  # noqa: E731
            clk = [r[1] for r in win]
            reasons = sorted({r[4] for r in win})
            print(f"{name:24s} {fmt:6s} {m:5d} {med:10.1f} {mean(clk):8.0f}/{min(clk) if clk else float('nan'):<7.0f} "
                  f"{mean([r[2] for r in win]):7.0f} {mean([r[1] for r in before]):14.0f} {' '.join(reasons)}")


if __name__ == "__main__":
    main()
