// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_fp4.h
/// Launchers of the FP4 value-table path (fp4_quant.cu): pass 1 of the FP4 E2M1 schemes with
/// power-of-two group scales (MXFP4, constOpt pow2) on row-local groups ≤ 128 of 16-bit inputs.
/// The rest of the run is the INT value-table path's (kernels.h: groupsY, intFast2 and valueW
/// take the FP4 plan: Ŵ's histogram and moments from the per-group code counts, the error bins
/// with FP32 thresholds, W from its value counts). Plain C++, like kernels.h.
#include "kernels.h"

namespace quantscope::gpu::launch {

/// True for the plans the FP4 pass 1 runs: kKindFp4, MXFP4 or constOpt pow2, fastGroup, ≤ 128.
bool fp4FastPlan(const QuantPlan &p);
int blocksFp4Fast1(int in, const QuantPlan &p, i64 n, int sms);
/// Codes, scales (zero points and bad flags 0), per-group code counts (IntFast1::counts, the
/// 16 E2M1 codes as the 16 levels), Σe², the error extremes, Ŵ's sums from the counts.
void fp4Fast1(int in, const void *w, i64 n, const QuantPlan &p, const IntFast1 &a, int blocks, void *stream);

} // namespace quantscope::gpu::launch
