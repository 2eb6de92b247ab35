// SPDX-License-Identifier: MIT
#pragma once
/// \file hqq_owned.h
/// HQQ on a W the solver may consume (hqq.cpp and milo.cpp only; kept out of hqq.h, which half of
/// core includes). With groups along rows (axis 1) the buffer of `w` is the solver's group-major
/// copy, otherwise it is freed once gathered; in FP32 the optimiser's working copy is that copy
/// too: about 2.4 FP32 copies of W at the peak instead of 4.4. The result is hqqQuantizeFlat's,
/// bit for bit. Measured: docs/perf.md "Peak memory of HQQ and MiLo".
#include "quant/hqq.h"

#include <string>
#include <vector>

namespace quantscope {

HqqResult hqqQuantizeOwned(std::vector<float> &&w, const HqqSpec &spec, bool wantDequantized, int threads,
                           const std::string &tensorName, const CancelToken *cancel);

} // namespace quantscope
