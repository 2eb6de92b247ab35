// SPDX-License-Identifier: MIT
#include "engine/job.h"

#include "engine/registry.h"
#include "engine/spectrum_device.h"

#include "util/error.h"

#include <algorithm>
#include <exception>
#include <new>
#include <optional>

namespace quantscope {

namespace {

std::string messageOf(const std::exception &e)
{
    const std::string m = e.what();
    return m.empty() ? std::string("unknown error") : m;
}

/// The 2-D column count the quantizers see (last dimension).
std::int64_t columnsOf(const Shape &s)
{
    return matrixView(s).second;
}

double numelOrOne(const Shape &s)
{
    double n = 1;
    for (const auto d : s)
        n *= static_cast<double>(d);
    return n > 0 ? n : 1;
}

/// The residual W − Ŵ (or W itself without Ŵ) as the FP32 matrix a spectrum is taken of.
std::vector<float> residualOf(const Tensor &w, const std::vector<float> *wHat)
{
    std::vector<float> e(static_cast<std::size_t>(w.numel()));
    w.decodeTo(e);
    if (wHat)
        for (std::size_t i = 0; i < e.size(); ++i)
            e[i] = e[i] - (*wHat)[i];
    return e;
}

} // namespace

JobSpec JobSpec::parse(std::string name, nlohmann::json entered)
{
    JobSpec s;
    s.name = std::move(name);
    s.entered = std::move(entered);
    try {
        s.spec = parseQuantSpec(s.entered);
    } catch (const std::exception &e) {
        s.error = messageOf(e);
    }
    return s;
}

JobSpec JobSpec::typed(std::string name, QuantSpec spec)
{
    JobSpec s;
    s.name = std::move(name);
    s.entered = toJson(spec);
    s.spec = std::move(spec);
    return s;
}

QuantizeJobResult runQuantizeJob(const QuantizeJobRequest &request, const TensorSource &source,
                                 const CancelToken &cancel, const StepCallback &step, const OutcomeCallback &finished)
{
    QuantizeJobResult result;
    // Every configuration parsed and validated once, before any element is touched.
    std::vector<JobSpec> specs;
    for (const auto &config : request.configs)
        specs.push_back(JobSpec::parse(config.name, config.spec));
    for (const auto &s : request.specs)
        specs.push_back(s);
    // Read the tensors' headers first so that progress is weighted by element count.
    struct Item {
        std::string name;
        Tensor tensor;
        std::string error;
        double weight = 1;
    };
    std::vector<Item> items;
    for (const auto &name : request.tensors) {
        Item item;
        item.name = name;
        try {
            item.tensor = source.weight(name);
            item.weight = numelOrOne(item.tensor.shape());
        } catch (const Cancelled &) {
            throw;
        } catch (const std::exception &e) {
            item.error = messageOf(e);
        }
        items.push_back(std::move(item));
    }
    Tensor activation;
    std::string activationError;
    double activationWeight = 0;
    if (!request.activation.empty() && source.activation) {
        try {
            activation = source.activation(request.activation);
            activationWeight = numelOrOne(activation.shape());
        } catch (const std::exception &e) {
            activationError = messageOf(e);
        }
    }

    // The spectra run where the quantizations run (the GPU when asked or automatic).
    std::optional<SpectrumOptions> spectrumOptions = request.spectrum;
    if (spectrumOptions)
        spectrumOptions->device = spectrumDevice(request.device);
    const double runCost = kQuantizeCost + (request.spectrum ? kSpectrumCost : 0.0);
    const double perTensor = (request.profileChannels ? kProfileCost : 0.0) +
                             (specs.empty() && request.spectrum ? kSpectrumCost : 0.0) +
                             runCost * static_cast<double>(specs.size());
    double total = activationWeight * kProfileCost;
    for (const auto &item : items)
        total += item.weight * perTensor;
    double done = 0;
    auto begin = [&](double cost, const std::string &what) {
        if (step) {
            step(done / total, (done + cost) / total, total, what);
            // Long loops inside the step move its start forward as they go.
            cancel.setStepProgress([&step, start = done, cost, total, what](double f) {
                const double at = start + cost * std::clamp(f, 0.0, 1.0);
                step(at / total, (start + cost) / total, total, what);
            });
        }
        done += cost;
    };
    struct HookReset {
        const CancelToken &token;
        ~HookReset() { token.setStepProgress({}); }
    } hookReset{cancel};

    std::optional<ChannelProfile> activationColumns;
    if (activationError.empty() && activationWeight > 0) {
        cancel.check();
        begin(activationWeight * kProfileCost, "profiling " + request.activation);
        try {
            activationColumns = computeChannelProfiles(activation, request.topChannels, &cancel).columns;
        } catch (const Cancelled &) {
            throw;
        } catch (const std::exception &e) {
            activationError = messageOf(e);
        }
    }
    if (!activationError.empty())
        result.warnings.push_back("activation " + request.activation + ": " + activationError);

    for (auto &item : items) {
        cancel.check();
        TensorProfile profile;
        profile.tensor = item.name;
        if (!item.error.empty()) {
            profile.error = item.error;
            done += item.weight * perTensor;
            for (const auto &config : specs) {
                QuantizeOutcome o;
                o.tensor = item.name;
                o.config = config.name;
                o.spec = config.entered;
                o.method = config.entered.is_object() ? config.entered.value("method", "") : "";
                o.error = item.error;
                result.outcomes.push_back(std::move(o));
            }
            result.tensors.push_back(std::move(profile));
            continue;
        }
        profile.shape = item.tensor.shape();
        profile.dtype = std::string(nameOf(item.tensor.dtype()));

        if (request.profileChannels) {
            begin(item.weight * kProfileCost, "profiling channels of " + item.name);
            try {
                profile.channels = computeChannelProfiles(item.tensor, request.topChannels, &cancel);
            } catch (const Cancelled &) {
                throw;
            } catch (const std::exception &e) {
                profile.error = messageOf(e);
            }
        }
        if (specs.empty() && request.spectrum) {
            begin(item.weight * kSpectrumCost, "spectrum of " + item.name);
            try {
                const auto [rows, cols] = matrixView(item.tensor.shape());
                profile.spectrum =
                    computeSpectrum(residualOf(item.tensor, nullptr), rows, cols, *spectrumOptions, &cancel);
            } catch (const Cancelled &) {
                throw;
            } catch (const std::exception &e) {
                profile.error = messageOf(e);
            }
        }
        if (!request.activation.empty()) {
            profile.activation = request.activation;
            if (activationColumns) {
                const auto k = columnsOf(profile.shape);
                const auto ka = static_cast<std::int64_t>(activationColumns->absmax.size());
                if (k == ka)
                    profile.activationColumns = activationColumns;
                else
                    profile.activationNote = "activation has " + std::to_string(ka) + " channels, the weight " +
                                             std::to_string(k) + " input channels: not paired";
            } else {
                profile.activationNote = activationError.empty() ? "activation not available" : activationError;
            }
        }

        // The module's Gram, once for all configurations; tr(W G Wᵀ) and the backend's copy of G
        // once per backend that runs a configuration (outputErrorOf below).
        std::optional<GramMatrix> gram;
        std::shared_ptr<const Calibration> calibration; // the data-aware methods' inputs (gptq)
        if (request.capture && !specs.empty()) {
            try {
                const std::string module = moduleOfWeight(item.name);
                if (module.empty() || request.capture->module(module) == nullptr) {
                    profile.captureNote = "not in the capture " + request.capture->path().filename().string();
                } else {
                    checkCaptureShape(*request.capture, module, matrixShape(item.tensor.shape()));
                    gram = gramMatrixOf(request.capture->inputStats(module), request.capture->tokens());
                    if (std::any_of(specs.begin(), specs.end(), [](const auto &s) {
                            if (!s.spec)
                                return false;
                            if (const auto *g = std::get_if<GgufQuantSpec>(&*s.spec))
                                return g->imatrix;
                            return std::holds_alternative<GptqSpec>(*s.spec) ||
                                   std::holds_alternative<AwqSpec>(*s.spec);
                        }))
                        calibration = std::make_shared<const Calibration>(calibrationOf(*request.capture, module));
                }
            } catch (const Cancelled &) {
                throw;
            } catch (const std::exception &e) {
                profile.captureNote = messageOf(e);
            }
        }

        // llama.cpp's imatrix for the gguf method's importance weights, in place of the capture's.
        std::shared_ptr<const Calibration> importance;
        std::string importanceError;
        const auto wantsImatrix = [](const JobSpec &s) {
            const auto *g = s.spec ? std::get_if<GgufQuantSpec>(&*s.spec) : nullptr;
            return g != nullptr && g->imatrix;
        };
        if (request.importance && std::any_of(specs.begin(), specs.end(), wantsImatrix)) {
            try {
                const std::int64_t k = matrixView(item.tensor.shape()).second;
                const std::vector<float> w = request.importance(item.name, k);
                auto c = std::make_shared<Calibration>();
                c->module = item.name;
                c->source = "imatrix";
                c->k = k;
                c->gramDiag.assign(w.begin(), w.end()); // FP32 → FP64 → FP32: exact
                importance = std::move(c);
            } catch (const Cancelled &) {
                throw;
            } catch (const std::exception &e) {
                importanceError = messageOf(e);
            }
        }

        UploadCache uploads; // the tensor goes to a device once for all configurations
        // The output-aware error where the run ran (uploads.backend): G uploaded once per tensor
        // and backend, tr(W G Wᵀ) once; the CPU's FP64 computation with a note when the device
        // declines or fails (docs/numerics.md "Output-aware error").
        struct GramOn {
            const Backend *backend = nullptr;
            std::shared_ptr<const DeviceGram> g;
            std::optional<double> reference;
            std::string whyNot;
        } gramDevice;
        std::optional<double> cpuReference;
        auto outputErrorOf = [&](const QuantizeRun &run) {
            const Backend &cpu = BackendRegistry::instance().cpu();
            const Backend *be = uploads.backend;
            std::string note;
            if (be && be != &cpu && uploads.tensor) {
                try {
                    std::string whyNot;
                    if (gramDevice.backend != be) {
                        gramDevice = {be, be->uploadGram(*gram, whyNot), std::nullopt, {}};
                        gramDevice.whyNot = whyNot;
                    }
                    if (gramDevice.g && !gramDevice.reference) {
                        gramDevice.reference =
                            be->gramEnergy(*uploads.tensor, nullptr, {}, *gramDevice.g, whyNot, &cancel);
                        if (!gramDevice.reference)
                            gramDevice.whyNot = whyNot;
                    }
                    if (gramDevice.reference) {
                        if (auto e = be->gramEnergy(*uploads.tensor, run.deviceDequantized.get(),
                                                    run.quantized.dequantized, *gramDevice.g, whyNot, &cancel))
                            return makeOutputError(*e, *gramDevice.reference, *gram);
                        gramDevice.whyNot = whyNot;
                    }
                    note = gramDevice.whyNot;
                } catch (const GpuError &e) {
                    note = std::string("GPU failed (") + e.what() + ")";
                }
                note += (note.empty() ? "" : ": ") + std::string("computed on the CPU");
            }
            if (!cpuReference)
                cpuReference = gramReference(item.tensor, *gram, request.threads, &cancel);
            std::vector<float> fetched;
            std::span<const float> wHat = run.quantized.dequantized;
            if (wHat.empty() && run.deviceDequantized && be) {
                fetched = be->downloadFloats(*run.deviceDequantized);
                wHat = fetched;
            }
            OutputError e = outputError(item.tensor, wHat, *gram, *cpuReference, request.threads, &cancel);
            e.note = note;
            return e;
        };
        for (const auto &config : specs) {
            cancel.check();
            begin(item.weight * kQuantizeCost, config.name + ": " + item.name);
            QuantizeOutcome o;
            o.tensor = item.name;
            o.config = config.name;
            o.spec = config.entered;
            o.method = config.entered.is_object() ? config.entered.value("method", "") : "";
            bool spectrumBegun = false;
            try {
                if (!config.spec)
                    throw UnsupportedError(config.error);
                RunOptions ro;
                ro.device = request.device;
                ro.metrics = request.metrics;
                ro.metricsOptions.bins = request.bins;
                ro.metricsOptions.symlog = request.symlog;
                ro.metricsOptions.threads = request.threads;
                ro.quantize.threads = request.threads;
                ro.quantize.tensorName = item.name;
                ro.quantize.calibration = calibration;
                if (request.importance && wantsImatrix(config)) {
                    if (!importance)
                        throw UnsupportedError(importanceError);
                    ro.quantize.calibration = importance;
                }
                ro.uploads = &uploads;
                // Ŵ only where something reads it (kept results, the residual's spectrum): a GPU
                // then skips downloading it (the metrics are fused on the device either way).
                ro.quantize.wantDequantized = request.keepQuantized || request.spectrum.has_value();
                ro.quantize.dequantizedOnDevice = gram.has_value(); // the output error reads it there
                ro.quantize.wantCodes = request.keepQuantized;      // likewise the codes

                QuantizeRun run = runQuantize(item.tensor, *config.spec, ro, &cancel);
                o.spec = run.quantized.spec;
                o.method = run.quantized.method;
                o.device = run.device;
                o.deviceNote = run.deviceNote;
                o.timeMs = run.timeMs;
                o.bitsPerElement = run.quantized.bitsPerElement();
                o.storedBytes = run.quantized.storedBytes();
                o.ragged = run.quantized.layout.ragged;
                o.nonFiniteGroups = run.quantized.nonFiniteGroups;
                o.firstNonFinite = run.quantized.firstNonFinite;
                o.history = run.quantized.history;
                o.chosenPass = run.quantized.chosenPass;
                if (run.metrics) {
                    o.metrics = std::move(*run.metrics);
                    if (!request.keepAbsErrBins)
                        o.metrics.absErrBins = {}; // 4096 counts per result that no view draws
                    o.plot = prepareDistribution(o.metrics);
                } else if (request.metrics) {
                    o.error = "the engine returned no metrics";
                }
                if (gram)
                    o.outputError = outputErrorOf(run);
                if (request.spectrum) {
                    spectrumBegun = true;
                    begin(item.weight * kSpectrumCost, "spectrum of " + config.name + ": " + item.name);
                    const auto [rows, cols] = matrixView(item.tensor.shape());
                    o.spectrum = computeSpectrum(residualOf(item.tensor, &run.quantized.dequantized), rows, cols,
                                                 *spectrumOptions, &cancel);
                }
                if (request.keepQuantized)
                    o.quantized = std::make_shared<const QuantizedTensor>(std::move(run.quantized));
            } catch (const Cancelled &) {
                throw;
            } catch (const std::bad_alloc &) {
                o.error = "out of memory";
            } catch (const std::exception &e) {
                o.error = messageOf(e);
            }
            if (request.spectrum && !spectrumBegun)
                done += item.weight * kSpectrumCost;
            if (finished)
                finished(profile, o);
            result.outcomes.push_back(std::move(o));
        }
        if (request.deviceChannelKurtosis && uploads.backend && uploads.tensor) {
            ChannelMomentSums sums;
            std::string whyNot;
            try {
                if (uploads.backend->channelMoments(*uploads.tensor, sums, whyNot))
                    profile.channelKurtosis = channelKurtosisFromSums(sums);
            } catch (const std::exception &e) { // the caller computes it on the CPU instead
                result.warnings.push_back("channel kurtosis of " + item.name + " on the device: " + messageOf(e));
            }
        }
        result.tensors.push_back(std::move(profile));
    }
    if (step)
        step(1.0, 1.0, total, "done");
    return result;
}

} // namespace quantscope
