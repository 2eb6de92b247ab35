// SPDX-License-Identifier: MIT
#pragma once
/// \file checkpoint_writer.h
/// One interface for every checkpoint target (docs/formats.md "Checkpoints written") and one
/// driver that walks the modules once:
///  1. opens the input, lists its 2-D weights, adds the default exclusions (toolkit_rules.h)
///     unless asked not to, resolves every module with the recipe;
///  2. asks the writer for the config it will write and checks, module by module, that the
///     toolkit's own rule (quarkResolve / ctResolve) gives each module the recipe's scheme —
///     else refuses naming the module, the rule and what the toolkit would do;
///  3. refuses before any work what the target's loaders refuse (groups that do not divide K,
///     ragged FP8 blocks, fused members with different schemes, static activation scales
///     without calibration data, …);
///  4. quantizes each module through the engine (runQuantize: the GPU when present), sharing one
///     NVFP4 global scale across fused members, with progress and Cancel;
///  5. stages the output beside DIR, re-reads it with our readers (every module's decode equals
///     the quantizer's Ŵ bit for bit), and renames it into place. An export that quantizes
///     nothing is refused.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/run.h"
#include "export/config_export.h"
#include "quant/quant_spec.h"
#include "quant/quantizer.h"
#include "util/cancel.h"

namespace quantscope {

class Capture;

class Checkpoint;

struct CheckpointExportResult {
    std::string file;                   ///< the first tensor file written (model.safetensors or a shard)
    std::vector<std::string> quantized; ///< modules written quantized
    int copied = 0;                     ///< tensors copied unchanged
    std::vector<std::string> notes;     ///< decisions the user should know (defaults, untied head, …)
    std::string device;                 ///< where the quantizers ran ("cpu", "cuda:0 …")
};

/// One module the driver quantizes.
struct ModulePlan {
    std::string module;   ///< "model.layers.0.mlp.down_proj"
    std::string tensor;   ///< its weight tensor name
    Shape shape;          ///< [N, K]
    QuantSpec spec;       ///< the recipe's spec (override applied)
    std::string ruleText; ///< "rules[1] 'down' pattern '*down_proj'" for messages
};

class CheckpointWriter {
public:
    virtual ~CheckpointWriter() = default;
    virtual ExportFormat format() const = 0;
    /// Throws UnsupportedError (naming `where` and the reason) for a spec this target cannot
    /// store, whatever the tensor.
    virtual void checkSpec(const QuantSpec &spec, const std::string &where) const = 0;
    /// Throws UnsupportedError for a module the target's loaders would refuse or misread (shape
    /// rules), naming the module, the shape and the loader's own message.
    virtual void checkModule(const ModulePlan &plan) const;
    /// The `quantization_config` for `recipe` over `modules` (all the checkpoint's 2-D weight
    /// modules). Refuses what the target cannot express.
    virtual nlohmann::ordered_json config(const Recipe &recipe, const ExportOptions &options,
                                          const std::vector<std::string> &modules) const = 0;
    /// Where the toolkit's own rule puts each of `modules` under `config`, as comparable JSON
    /// (the scheme it applies), or null when the toolkit leaves it dense (embeddings are not
    /// Linear layers: isEmbeddingModule). One entry per module, in order.
    virtual std::vector<nlohmann::json> toolkitSchemes(const nlohmann::ordered_json &config,
                                                       const std::vector<std::string> &modules) const = 0;
    /// The scheme the recipe's `spec` means in this target, comparable with toolkitSchemes.
    virtual nlohmann::json recipeScheme(const QuantSpec &spec, const ExportOptions &options) const = 0;
    /// The spec the quantizer runs for this target (e.g. Quark's reciprocal scale rule).
    virtual QuantSpec runSpec(const QuantSpec &spec) const { return spec; }
    /// The stored tensors of one quantized module (`module` without ".weight").
    virtual std::vector<std::pair<std::string, Tensor>> moduleTensors(const QuantizedTensor &q,
                                                                      const std::string &module) const = 0;
    /// A module's tensors and its entry of the file metadata (null: none), built once.
    struct ModuleOutput {
        std::vector<std::pair<std::string, Tensor>> tensors;
        nlohmann::ordered_json metadata;
    };
    virtual ModuleOutput moduleOutput(const QuantizedTensor &q, const std::string &module) const
    {
        return {moduleTensors(q, module), nullptr};
    }
    /// Extra `__metadata__` of one safetensors file from the entries ({MODULE: moduleOutput's
    /// metadata}) of the modules stored in that file (per shard); empty: none.
    virtual std::map<std::string, std::string> fileMetadata(const nlohmann::ordered_json & /*modules*/) const
    {
        return {};
    }
    /// Whether the toolkit resolves each module from the written config (toolkitScheme, checked
    /// before any work). false: the scheme of a module is stored with it, and the driver checks
    /// after the re-read that the stored spec is the recipe's and no other module is quantized.
    virtual bool schemesFromConfig() const { return true; }
    /// Whether serving engines load the checkpoint, so their rules apply (fused members share
    /// one scheme).
    virtual bool servingLoaderRules() const { return true; }
    /// The shape of a per-tensor static `input_scale`: [1] (compressed-tensors' tensor strategy),
    /// [] in Quark (its quantizer's scalar scale).
    virtual Shape inputScaleShape() const { return {1}; }
    /// Whether the layout stores static input scales (fp8-static).
    virtual bool storesInputScales() const { return true; }
    /// The bits per code `q`'s codes are stored in (the re-read checks the codes' size).
    virtual int storedCodeBits(const QuantizedTensor &q) const { return q.codeBits; }
};

/// The writer of a checkpoint format (quark, compressed-tensors, fp8-block, quantscope); throws
/// UnsupportedError for a format that is a config only.
std::unique_ptr<CheckpointWriter> makeCheckpointWriter(ExportFormat format, const ExportOptions &options = {});
/// The modules an export considers: every 2-D float (F32/BF16/F16) `*.weight`, with its shape,
/// in the checkpoint's order.
std::vector<std::pair<std::string, Shape>> weightModules(const Checkpoint &ck);
/// Whether `format` writes checkpoints.
bool writesCheckpoints(ExportFormat format) noexcept;

/// Whether `format`'s checkpoint writer can store `spec` (the budget solver prices only these);
/// `why` gets the refusal.
bool targetCanWrite(ExportFormat format, const QuantSpec &spec, std::string *why = nullptr);

struct CheckpointExportControl {
    DeviceChoice device = DeviceChoice::Auto;
    int threads = 0;
    const CancelToken *cancel = nullptr;
    /// Fraction done (0…1) and a line of what is happening.
    std::function<void(double, const std::string &)> progress;
    /// A calibration capture of the model: with `--activations fp8-static` each quantized
    /// module's `input_scale` = max |x| over its captured inputs / 448 (a per-tensor min-max
    /// observer, Quark's default for static FP8 inputs), the capture named in the files' metadata.
    std::shared_ptr<const Capture> capture;
};

/// Writes `outDir` as `format` from `checkpoint` and `recipe` (the driver above). Throws
/// UnsupportedError (refused before anything is written), FormatError (the re-read disagrees),
/// IoError, Cancelled; on any throw nothing is left at `outDir`.
CheckpointExportResult exportCheckpoint(const std::string &checkpoint, const Recipe &recipe, ExportFormat format,
                                        const std::string &outDir, const ExportOptions &options = {},
                                        const CheckpointExportControl &control = {});

} // namespace quantscope
