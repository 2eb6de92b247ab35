// SPDX-License-Identifier: MIT
#pragma once
/// \file ct_writer.h
/// The compressed-tensors checkpoint writer (issue 26 step 2). FP8 E4M3 specs are written
/// `float-quantized` (`weight` F8_E4M3, `weight_scale` F32 [1] / [N, 1] / block grid) and NVFP4
/// `nvfp4-pack-quantized` (`weight_packed` U8 [N, K/2], `weight_scale` F8_E4M3 [N, K/16],
/// `weight_global_scale` F32 [1]); `options.activations` goes into the config only. INT specs
/// are written `pack-quantized`:
/// every 2-D `*.weight` a recipe quantizes with an INT spec (group or per output channel) is
/// quantized with our quantizer and stored as compressed-tensors stores it — `weight_packed` I32
/// `[N, ceil(K·b/32)]` (code + 2^(b−1), element i at bit i·b), `weight_scale` F32
/// `[N, groups]`, `weight_shape` I64 `[2]`, asymmetric `weight_zero_point` packed along dim 0 —
/// every other tensor copied bit for bit; `model.safetensors` (one file) and `config.json` with
/// the exporter's `quantization_config` written atomically. Modules whose name says embedding
/// (`embed_tokens`, `wte`, `word_embeddings`) are copied, not quantized: compressed-tensors
/// targets Linear layers. Afterwards the file is re-read by our readers and each module's codes
/// must equal the quantizer's, and the measured bits per weight the declared scheme's.
#include <functional>
#include <string>
#include <vector>

#include "export/config_export.h"
#include "util/cancel.h"

namespace quantscope {

struct CheckpointExportResult {
    std::string file;                   ///< the model.safetensors written
    std::vector<std::string> quantized; ///< modules written quantized
    int copied = 0;                     ///< tensors copied unchanged
    std::vector<std::string> notes;     ///< modules the recipe matched but that were copied, and why
};

/// Writes `outDir`/model.safetensors and `outDir`/config.json. Throws UnsupportedError for a
/// recipe the layout cannot hold (refused before anything is written), FormatError when the
/// re-read disagrees, Cancelled. `progress` gets the fraction done.
CheckpointExportResult writeCompressedTensorsCheckpoint(const std::string &checkpoint, const Recipe &recipe,
                                                        const std::string &outDir, const CancelToken *cancel = nullptr,
                                                        const std::function<void(double)> &progress = {},
                                                        const ExportOptions &options = {});

} // namespace quantscope
