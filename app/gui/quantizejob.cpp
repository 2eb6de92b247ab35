// SPDX-License-Identifier: MIT
#include "quantizejob.h"

#include "util/error.h"

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

} // namespace

QuantizeJobResult runQuantizeJob(const QuantizeJobRequest &request, const TensorSource &source,
                                 const CancelToken &cancel, const StepCallback &step)
{
    QuantizeJobResult result;
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

    const double perTensor =
        kProfileCost + kQuantizeCost * static_cast<double>(request.configs.size());
    double total = activationWeight * kProfileCost;
    for (const auto &item : items)
        total += item.weight * perTensor;
    double done = 0;
    auto begin = [&](double cost, const std::string &what) {
        if (step)
            step(done / total, (done + cost) / total, total, what);
        done += cost;
    };

    std::optional<ChannelProfile> activationColumns;
    if (activationError.empty() && activationWeight > 0) {
        cancel.check();
        begin(activationWeight * kProfileCost, "profiling " + request.activation);
        try {
            activationColumns =
                computeChannelProfiles(activation, request.topChannels, &cancel).columns;
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
            for (const auto &config : request.configs) {
                QuantizeOutcome o;
                o.tensor = item.name;
                o.config = config.name;
                o.spec = config.spec;
                o.method = config.spec.value("method", "");
                o.error = item.error;
                result.outcomes.push_back(std::move(o));
            }
            result.tensors.push_back(std::move(profile));
            continue;
        }
        profile.shape = item.tensor.shape();
        profile.dtype = std::string(nameOf(item.tensor.dtype()));

        begin(item.weight * kProfileCost, "profiling channels of " + item.name);
        try {
            profile.channels = computeChannelProfiles(item.tensor, request.topChannels, &cancel);
        } catch (const Cancelled &) {
            throw;
        } catch (const std::exception &e) {
            profile.error = messageOf(e);
        }
        if (!request.activation.empty()) {
            profile.activation = request.activation;
            if (activationColumns) {
                const auto k = columnsOf(profile.shape);
                const auto ka = static_cast<std::int64_t>(activationColumns->absmax.size());
                if (k == ka)
                    profile.activationColumns = activationColumns;
                else
                    profile.activationNote = "activation has " + std::to_string(ka) +
                                             " channels, the weight " + std::to_string(k) +
                                             " input channels: not paired";
            } else {
                profile.activationNote =
                    activationError.empty() ? "activation not available" : activationError;
            }
        }

        for (const auto &config : request.configs) {
            cancel.check();
            begin(item.weight * kQuantizeCost, config.name + ": " + item.name);
            QuantizeOutcome o;
            o.tensor = item.name;
            o.config = config.name;
            o.spec = config.spec;
            o.method = config.spec.value("method", "");
            try {
                RunOptions ro;
                ro.device = request.device;
                ro.metricsOptions.bins = request.bins;
                ro.metricsOptions.symlog = request.symlog;
                ro.metricsOptions.threads = request.threads;
                ro.quantize.threads = request.threads;
                ro.quantize.tensorName = item.name;
                // Defaults filled in and validated before any element is touched.
                const auto spec = makeQuantizer(config.spec)->spec();
                QuantizeRun run = runQuantize(item.tensor, spec, ro, &cancel);
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
                if (run.metrics) {
                    o.metrics = std::move(*run.metrics);
                    o.metrics.absErrBins = {}; // 4096 counts per result that no view draws
                    o.plot = prepareDistribution(o.metrics);
                } else {
                    o.error = "the engine returned no metrics";
                }
            } catch (const Cancelled &) {
                throw;
            } catch (const std::bad_alloc &) {
                o.error = "out of memory";
            } catch (const std::exception &e) {
                o.error = messageOf(e);
            }
            result.outcomes.push_back(std::move(o));
        }
        result.tensors.push_back(std::move(profile));
    }
    if (step)
        step(1.0, 1.0, total, "done");
    return result;
}

} // namespace quantscope
