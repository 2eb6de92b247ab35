#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Re-derives the committed Quark goldens' codes from the original F32 weights with candidate
op sequences and counts the modules and elements where each candidate disagrees with Quark.
Evidence for tests/interop/golden/NOTES.md; run with the interop venv's python:
  /tmp/qs-interop-venv/bin/python scripts/interop/check_op_sequences.py [GOLDEN] [SHARED]
No Quark import: every candidate is written out here in plain torch ops (FP32 throughout,
torch.round = round half to even, casts to float8_e4m3fn = round to nearest even).
"""
import json
import os
import sys

import torch
from safetensors.torch import load_file

golden = sys.argv[1] if len(sys.argv) > 1 else "tests/interop/golden"
shared = sys.argv[2] if len(sys.argv) > 2 else "/work/shared/data/stories260K"
W = load_file(os.path.join(shared, "model.safetensors"))


def fp8(x):
    return x.to(torch.float8_e4m3fn).to(torch.float32)


def int_codes(x, s, z, qmin, qmax, how):
    """x [N, K]; s, z broadcastable to x."""
    if how == "mul_recip_add_zp_then_round":        # Quark real_quantize_int_* (export)
        return torch.clamp(torch.round(x * (1.0 / s) + z), qmin, qmax)
    if how == "mul_recip_round_then_add_zp":        # Quark fake_quantize_per_channel_affine
        return torch.clamp(torch.round(x * (1.0 / s)) + z, qmin, qmax)
    if how == "div_round_add_zp":                   # plain x/s
        return torch.clamp(torch.round(x / s) + z, qmin, qmax)
    raise ValueError(how)


HOWS = ["mul_recip_add_zp_then_round", "mul_recip_round_then_add_zp", "div_round_add_zp"]
report = {}
for case in sorted(os.listdir(golden)):
    if not case.startswith("quark_") or not case.endswith("_reorder"):
        continue
    man = json.load(open(os.path.join(golden, case, "MANIFEST.json")))
    if man["status"] != "ok":
        continue
    codes = load_file(os.path.join(golden, case, "expected_codes.safetensors"))
    r = {h: {"modules": 0, "elements": 0} for h in HOWS}
    ties = {k: 0 for k in [
        "elements_at_exact_tie_by_division", "tie_quark_equals_half_even",
        "tie_quark_equals_half_away", "quotient_exactly_minus_7_5",
        "minus_7_5_quark_gives_minus_8", "minus_7_5_quark_gives_minus_7",
        "minus_7_5_reciprocal_product_below", "minus_7_5_reciprocal_product_exact",
        "minus_7_5_reciprocal_product_above", "division_and_reciprocal_round_differently",
        "s1_equals_amax_div_448", "modules_scale_equals_rowamax_div_7_5"]}
    stage1 = {"fp8_div_clamp_cast_mismatches": 0, "fp8_recip_mul_mismatches": 0}
    for n in man["modules"]:
        w = W[f"{n}.weight"].float()
        c = codes[f"{n}.codes"].float() if codes[f"{n}.codes"].dtype != torch.float8_e4m3fn \
            else None
        if f"{n}.codes_stage1" in codes:          # ProgressiveSpec
            s1 = codes[f"{n}.weight_scale"].float()
            f = fp8(torch.clamp(w / s1, -448, 448))
            stage1["fp8_div_clamp_cast_mismatches"] += int(
                (f != codes[f"{n}.codes_stage1"].float()).sum())
            stage1["fp8_recip_mul_mismatches"] += int(
                (fp8(torch.clamp(w * (1.0 / s1), -448, 448)) !=
                 codes[f"{n}.codes_stage1"].float()).sum())
            x = f
            s = codes[f"{n}.weight_scale_2"].float().reshape(-1, 1)
            z = codes[f"{n}.weight_zero_point_2"].float().reshape(-1, 1)
        elif c is None:                            # FP8 per tensor
            s1 = codes[f"{n}.weight_scale"].float()
            got = codes[f"{n}.codes"].float()
            stage1["fp8_div_clamp_cast_mismatches"] += int(
                (fp8(torch.clamp(w / s1, -448, 448)) != got).sum())
            stage1["fp8_recip_mul_mismatches"] += int(
                (fp8(torch.clamp(w * (1.0 / s1), -448, 448)) != got).sum())
            continue
        else:
            x = w
            s = codes[f"{n}.weight_scale"].float()
            z = codes[f"{n}.weight_zero_point"].float()
            if s.dim() == 1:
                s, z = s.reshape(-1, 1), z.reshape(-1, 1)
            else:                                  # per group [N, K/g]
                g = x.shape[1] // s.shape[1]
                s = s.repeat_interleave(g, dim=1)
                z = z.repeat_interleave(g, dim=1)
        for h in HOWS:
            q = int_codes(x, s, z, -8, 7, h)
            bad = int((q != c).sum())
            if bad:
                r[h]["modules"] += 1
                r[h]["elements"] += bad
        t = x / s - z          # the quotient, by true division (zero point removed)
        t2 = x * (1.0 / s) - z  # Quark's quotient (zero point removed)
        qv = c - z             # Quark's code, zero point removed
        at_tie = (t - torch.floor(t)) == 0.5
        ties["elements_at_exact_tie_by_division"] += int(at_tie.sum())
        ties["tie_quark_equals_half_even"] += int((at_tie & (qv == torch.round(t))).sum())
        away = torch.sign(t) * torch.floor(t.abs() + 0.5)
        ties["tie_quark_equals_half_away"] += int((at_tie & (qv == away)).sum())
        m75 = t == -7.5
        ties["quotient_exactly_minus_7_5"] += int(m75.sum())
        ties["minus_7_5_quark_gives_minus_8"] += int((m75 & (qv == -8)).sum())
        ties["minus_7_5_quark_gives_minus_7"] += int((m75 & (qv == -7)).sum())
        ties["minus_7_5_reciprocal_product_below"] += int((m75 & (t2 < -7.5)).sum())
        ties["minus_7_5_reciprocal_product_exact"] += int((m75 & (t2 == -7.5)).sum())
        ties["minus_7_5_reciprocal_product_above"] += int((m75 & (t2 > -7.5)).sum())
        ties["division_and_reciprocal_round_differently"] += int(
            (torch.round(x / s) != torch.round(x * (1.0 / s))).sum())
        # Scales recomputed from the data: symmetric amax/7.5 (FP32 division), FP8 amax/448
        if f"{n}.codes_stage1" in codes:
            s1_re = torch.max(w.abs().max(), torch.tensor(0.0)) / 448.0
            ties["s1_equals_amax_div_448"] += int(bool(s1_re == codes[f"{n}.weight_scale"]))
        if bool((z == 0).all()) and s.shape[1] == 1:
            s2_re = x.abs().amax(dim=1, keepdim=True) / 7.5
            ties["modules_scale_equals_rowamax_div_7_5"] += int(bool((s2_re == s).all()))
    report[case] = {"int_candidates": r, "stage1_or_fp8": stage1, "ties": ties}
print(json.dumps(report, indent=1))
