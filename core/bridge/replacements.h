// SPDX-License-Identifier: MIT
#pragma once
/// \file replacements.h
/// What `eval` loads into the model in place of its weights: Ŵ of every module a recipe
/// quantizes (our quantizers, resolved as an export resolves them), or of every quantized module
/// of an exported checkpoint (our decoders). Written as one FP32 safetensors file named by the
/// model's weight names, which the bridge copies into the model's parameters.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/run.h"
#include "metrics/output_error.h"
#include "recipe/recipe.h"
#include "util/cancel.h"

namespace quantscope {

class Checkpoint;
class Capture;

struct ReplacedModule {
    std::string module;
    std::string tensor;                     ///< "module.weight"
    nlohmann::json spec;                    ///< the spec that ran (null for a decoded export)
    std::string scheme;                     ///< describeSpec, or the export's scheme in words
    double relFrobenius = 0;                ///< ‖W − Ŵ‖ / ‖W‖ (recipes only; NaN for an export)
    double mse = 0;                         ///< mean squared error of W (recipes only)
    std::uint64_t bytes = 0;                ///< stored bytes of the codes and scales (recipes only)
    std::int64_t numel = 0;                 ///< elements of the weight
    std::optional<OutputError> outputError; ///< with a capture holding the module
};

struct ReplacementSet {
    std::vector<ReplacedModule> modules;
    std::vector<std::string> notes; ///< modules kept dense by default, and why
    std::string device;             ///< where the quantizers ran
};

struct ReplacementControl {
    DeviceChoice device = DeviceChoice::Auto;
    int threads = 0;
    const CancelToken *cancel = nullptr;
    std::function<void(double fraction, const std::string &what)> progress;
    const Capture *capture = nullptr; ///< output-aware error per module when set
    /// writeCheckpointReplacements: the model the export was made from, whose W the decoded Ŵ is
    /// measured against (with `capture`).
    const Checkpoint *original = nullptr;
};

/// Quantizes every module `recipe` quantizes (the default exclusions and the one-spec rule of
/// exports apply; NVFP4 fused groups share one global scale as exports write them) and writes
/// each Ŵ as FP32 to `out` (atomically). With `onlyModule` set, only that module.
ReplacementSet writeRecipeReplacements(const Checkpoint &ck, const Recipe &recipe, const std::filesystem::path &out,
                                       const ReplacementControl &control);

/// Decodes every quantized module of an exported checkpoint (compressed-tensors, Quark, FP8
/// block, native) and writes each Ŵ as FP32 to `out`. Throws UnsupportedError when it holds
/// no quantized module.
ReplacementSet writeCheckpointReplacements(const Checkpoint &exported, const std::filesystem::path &out,
                                           const ReplacementControl &control);

} // namespace quantscope
