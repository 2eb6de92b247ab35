// SPDX-License-Identifier: MIT
#pragma once
/// \file ct_writer.h
/// The compressed-tensors tensors of one quantized module (the writer itself:
/// checkpoint_writer.cpp). INT results are stored `pack-quantized`: `weight_packed` I32
/// `[N, ceil(K·b/32)]` (code + 2^(b−1), element i at bit i·b), `weight_scale` F32 `[N, groups]`,
/// `weight_shape` I64 `[2]`, asymmetric `weight_zero_point` packed along dim 0. FP8 E4M3
/// results are `float-quantized` (`weight` F8_E4M3, `weight_scale` F32 [1] / [N, 1] / block
/// grid) and NVFP4 `nvfp4-pack-quantized` (`weight_packed` U8 [N, K/2], `weight_scale` F8_E4M3
/// [N, K/16], `weight_global_scale` F32 [1]). With `intQuantized`, INT results are stored
/// `int-quantized` instead (compressed-tensors' NaiveQuantizationCompressor: `weight` I8 [N, K]
/// codes, `weight_scale` F32 [N, 1] per channel or [N, groups], asymmetric `weight_zero_point`
/// I8 of the scale's shape).
#include <string>
#include <utility>
#include <vector>

#include "quant/quantizer.h"

namespace quantscope {

/// Throws UnsupportedError naming the module for a result the layouts cannot hold.
std::vector<std::pair<std::string, Tensor>> ctModuleTensors(const QuantizedTensor &q, const std::string &module,
                                                            bool intQuantized = false);

} // namespace quantscope
