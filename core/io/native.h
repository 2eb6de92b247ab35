// SPDX-License-Identifier: MIT
#pragma once
/// \file native.h
/// Quantscope's native layout for quantized tensors (docs/formats.md "Quantized tensors written"):
/// `<module>.qs_codes`, `<module>.qs_scale` (in the scale dtype), optional `<module>.qs_zero`,
/// and the spec JSON in `__metadata__["quantscope"]`. INT codes of ≤ 4 bits are packed two per
/// byte (U8 [rows, ceil(cols/2)], element 2k in the low nibble, two's complement); wider INT
/// codes are I8; FP8 codes keep their F8 dtype.
#include <filesystem>
#include <string>

#include "quant/quantizer.h"

namespace quantscope {

/// `model.layers.0.mlp.down_proj.weight` → `model.layers.0.mlp.down_proj`.
std::string moduleOf(const std::string &tensorName);

/// Writes one quantized tensor atomically. Throws IoError naming the path.
void writeNative(const std::filesystem::path &path, const QuantizedTensor &q);

} // namespace quantscope
