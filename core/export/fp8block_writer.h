// SPDX-License-Identifier: MIT
#pragma once
/// \file fp8block_writer.h
/// The FP8 block layout (the writer itself: checkpoint_writer.cpp) of DeepSeek-V3 and Qwen3-FP8 (Hugging Face's fine-grained FP8, export
/// format `fp8-block`): `weight` F8_E4M3 [N, K] and `weight_scale_inv` F32 [⌈N/b⌉, ⌈K/b⌉] (Ŵ =
/// q · s), config `{"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
/// "weight_block_size": [b, b], "modules_to_not_convert": […]}`. The layout has one scheme per
/// checkpoint, so the recipe must be one catch-all rule with one FP8 E4M3 block spec, its
/// exclude list exact names (written as modules_to_not_convert); anything else is refused with
/// the reason. Activations are dynamic per token-group at run time: `none` and `fp8-dynamic`
/// both write "dynamic", `fp8-static` is refused (the layout keeps no input scales).
#include <string>

#include <nlohmann/json.hpp>

#include "export/config_export.h"

namespace quantscope {

/// The `quantization_config` object. Throws UnsupportedError naming what cannot be expressed.
nlohmann::json fp8BlockConfig(const Recipe &recipe, const ExportOptions &options = {});

} // namespace quantscope
