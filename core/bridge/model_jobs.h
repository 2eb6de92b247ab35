// SPDX-License-Identifier: MIT
#pragma once
/// \file model_jobs.h
/// The model-level jobs the CLI's `capture` / `eval` and the window's Model tab run through the
/// Python bridge (docs/bridge.md): a calibration capture, and the measured cost of a recipe (or
/// of an exported checkpoint) as KL divergence, top-1 agreement and perplexity against the
/// original model. Plain C++: the bridge is a child process.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "bridge/bridge.h"
#include "engine/run.h"
#include "util/cancel.h"

namespace quantscope {

/// The model and the tokens a job runs on.
struct ModelInput {
    std::string model;    ///< a HF folder (safetensors, possibly sharded, or one .gguf) or a .gguf file
    std::string ggufFile; ///< the .gguf inside `model` ("" to let the bridge pick)
    std::string text;     ///< UTF-8 text, tokenized by the model's tokenizer ("" when tokens)
    std::string tokens;   ///< .npy of token ids ("" when text)
    int samples = 64;
    int seq = 512;
    DeviceChoice device = DeviceChoice::Auto; ///< where the model runs (gpu = cuda)
    std::string dtype = "auto";               ///< float32, bfloat16 or auto
};

struct CaptureRequest {
    ModelInput input;
    std::string out; ///< CAP.safetensors
    std::int64_t gramMax = 8192;
    int rows = 256, kvTokens = 2048, qRows = 512;
    int seed = 0;
};

/// Progress of a model job: a fraction and what it does.
using ModelProgress = std::function<void(double fraction, const std::string &what)>;

/// Runs the bridge's capture, then opens the file it wrote (a file Quantscope cannot read is
/// removed and the error names it). Returns the bridge's result event.
nlohmann::json runCapture(const BridgeConfig &bridge, const CaptureRequest &request, const CancelToken *cancel,
                          const ModelProgress &progress = {});

struct EvalRequest {
    ModelInput input;
    std::string recipe;      ///< R.json: quantize the model's weights with it
    std::string checkpoint;  ///< or an exported checkpoint folder: decode its quantized modules
    bool perLayer = false;   ///< each module's own KL (that module alone replaced)
    int perLayerSamples = 0; ///< samples of the per-layer pass (0: all)
    std::string capture;     ///< a capture: each module's output-aware error beside its KL
    DeviceChoice quantizeDevice = DeviceChoice::Auto; ///< where our quantizers run
    int threads = 0;
};

/// Quantizes (or decodes) every module, runs the bridge's eval with Ŵ in place of the weights
/// and returns the report (docs/bridge.md "Eval reports") with each module's scheme, weight
/// error and output-aware error beside its measured KL. Temporary files are removed whatever
/// happens.
nlohmann::ordered_json runEval(const BridgeConfig &bridge, const EvalRequest &request, const CancelToken *cancel,
                               const ModelProgress &progress = {});

/// What of a model folder transformers reads the weights from, as our reader opens it: the
/// sharded index's folder, else `model.safetensors` when present (a folder may hold other
/// safetensors files, e.g. a BF16 copy), else the path itself.
std::string transformersWeightsFile(const std::string &model);

/// Whether `model` is opened through the bridge's weight export (a .gguf file, or a folder with
/// a .gguf and no safetensors), rather than read directly.
bool modelNeedsWeightExport(const std::string &model);

} // namespace quantscope
