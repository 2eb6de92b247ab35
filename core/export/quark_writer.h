// SPDX-License-Identifier: MIT
#pragma once
/// \file quark_writer.h
/// The AMD Quark `real_quantized` layout (the writer itself: checkpoint_writer.cpp) (issue 26; docs/formats.md "Checkpoints
/// written"): every 2-D Linear `*.weight` a recipe quantizes with INT4 (per output channel or per
/// group along K) or with ProgressiveSpec W4A8 (FP8 per tensor, then INT4 per channel) is stored
/// as Quark exports it — eight two's-complement nibbles per I32 in `reorder` (slot i holds
/// element [0,2,4,6,1,3,5,7][i]) or `order` packing, rows padded to a multiple of 8 with code 0:
///  * per channel: `weight` [N, ⌈K/8⌉], `weight_scale` F32 [N], `weight_zero_point` I32 [⌈N/8⌉];
///  * per group: transposed first — `weight` [K, ⌈N/8⌉], `weight_scale` F32 [G, N],
///    `weight_zero_point` I32 [G, ⌈N/8⌉];
///  * ProgressiveSpec: `weight` as per channel, `weight_scale` F32 scalar s1, `weight_scale_2` F32
///    [N], `weight_zero_point_2` I32 [⌈N/8⌉].
/// Everything else is copied bit for bit; config.json gets the exporter's Quark
/// `quantization_config`; the output is sharded like the input and written atomically. Before it
/// is kept the output is re-read by our Quark reader: each module's codes must equal the
/// quantizer's and the stored bits per weight the declared 4 (plus the row padding).
#include <string>
#include <utility>
#include <vector>

#include "export/config_export.h"
#include "quant/quantizer.h"

namespace quantscope {

/// The Quark tensors of one quantized result (`module` without ".weight"), packed with
/// `packMethod` ("reorder" or "order"). Throws UnsupportedError for a result Quark's INT4 layout
/// cannot hold (naming the module): other methods, bits ≠ 4, block or per-tensor INT4, a
/// two-level result other than FP8 per tensor → INT4 per channel.
std::vector<std::pair<std::string, Tensor>> quarkModuleTensors(const QuantizedTensor &q, const std::string &module,
                                                               const std::string &packMethod);

} // namespace quantscope
