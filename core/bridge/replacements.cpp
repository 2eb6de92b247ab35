// SPDX-License-Identifier: MIT
#include "bridge/replacements.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include "export/checkpoint_writer.h"
#include "export/toolkit_rules.h"
#include "io/capture.h"
#include "io/checkpoint.h"
#include "io/safetensors.h"
#include "io/weight_reader.h"
#include "io/quantized.h"
#include "quant/groupwise.h"
#include "quant/quant_spec.h"
#include "recipe/recipe_check.h"
#include "results/config_label.h"
#include "util/error.h"

namespace quantscope {

namespace {

void say(const ReplacementControl &c, double f, const std::string &what)
{
    if (c.progress)
        c.progress(f, what);
}

std::optional<OutputError> outputErrorOf(const ReplacementControl &c, const std::string &module, const Tensor &w,
                                         std::span<const float> wHat)
{
    if (!c.capture || !c.capture->module(module))
        return std::nullopt;
    checkCaptureShape(*c.capture, module, matrixShape(w.shape()));
    const GramMatrix g = gramMatrixOf(c.capture->inputStats(module), c.capture->tokens());
    return outputError(w, wHat, g, gramReference(w, g, c.threads, c.cancel), c.threads, c.cancel);
}

} // namespace

ReplacementSet writeRecipeReplacements(const Checkpoint &ck, const Recipe &recipeIn, const std::filesystem::path &out,
                                       const ReplacementControl &control)
{
    const std::vector<std::pair<std::string, Shape>> shapes = weightModules(ck);
    const Recipe recipe = withDefaultExcludes(recipeIn, &shapes);
    ReplacementSet set;
    struct Plan {
        std::string module;
        QuantSpec spec;
    };
    std::vector<Plan> plans;
    for (const auto &[module, shape] : shapes) {
        const RecipeMatch m = matchModule(recipe, module);
        if (m.excluded && matchModule(recipeIn, module).matched())
            set.notes.push_back(module + ": kept dense by default — " + defaultExcludeReason(module, shape));
        if (!m.matched())
            continue;
        if (isEmbeddingModule(module)) {
            set.notes.push_back(module + ": kept dense by default — " + defaultExcludeReason(module, shape));
            continue;
        }
        if (m.specs.size() != 1)
            throw UnsupportedError(module + ": " + m.why + " gives " + std::to_string(m.specs.size()) +
                                   " specs (candidates a scan compares); eval needs the one chosen");
        plans.push_back({module, m.specs.front()});
    }
    if (plans.empty())
        throw UnsupportedError("the recipe quantizes no module of " + ck.path().string() +
                               " (after the default exclusions): nothing to evaluate");

    std::map<std::string, float> groupAmax; // NVFP4: one global scale per fused group, as exported
    for (const Plan &p : plans)
        if (std::holds_alternative<NvFp4Spec>(p.spec))
            if (const std::string g = sharedScaleGroupOf(p.module); !g.empty()) {
                const float a = detail::finiteAbsMax(ck.tensor(p.module + ".weight"), control.threads, control.cancel);
                groupAmax[g] = std::max(groupAmax.count(g) ? groupAmax[g] : 0.0f, a);
            }

    std::vector<std::pair<std::string, Tensor>> tensors;
    for (std::size_t i = 0; i < plans.size(); ++i) {
        if (control.cancel)
            control.cancel->check();
        const Plan &p = plans[i];
        const std::string name = p.module + ".weight";
        say(control, static_cast<double>(i) / static_cast<double>(plans.size()), "quantizing " + p.module);
        const Tensor w = ck.tensor(name);
        RunOptions ro;
        ro.device = control.device;
        ro.metrics = true;
        ro.metricsOptions.threads = control.threads;
        ro.quantize.threads = control.threads;
        ro.quantize.wantDequantized = true;
        ro.quantize.tensorName = name;
        if (std::holds_alternative<NvFp4Spec>(p.spec))
            if (const auto g = groupAmax.find(sharedScaleGroupOf(p.module)); g != groupAmax.end())
                ro.quantize.tensorAmax = g->second;
        QuantizeRun run = runQuantize(w, p.spec, ro, control.cancel);
        if (set.device.empty())
            set.device = run.device;
        ReplacedModule r;
        r.module = p.module;
        r.tensor = name;
        r.spec = run.quantized.spec;
        r.scheme = describeSpec(r.spec);
        r.relFrobenius = run.metrics ? run.metrics->relFrobenius : std::numeric_limits<double>::quiet_NaN();
        r.mse = run.metrics ? run.metrics->mse : std::numeric_limits<double>::quiet_NaN();
        r.bytes = run.quantized.storedBytes();
        r.numel = w.numel();
        r.outputError = outputErrorOf(control, p.module, w, run.quantized.dequantized);
        tensors.emplace_back(name, Tensor::fromFloats(w.shape(), run.quantized.dequantized));
        set.modules.push_back(std::move(r));
    }
    say(control, 1.0, "writing " + out.string());
    writeSafetensors(out, tensors, {{"format", "quantscope-replacements"}, {"source", ck.path().string()}});
    return set;
}

ReplacementSet writeCheckpointReplacements(const Checkpoint &exported, const std::filesystem::path &out,
                                           const ReplacementControl &control)
{
    const auto ck = std::make_shared<const Checkpoint>(exported);
    const WeightReader reader(ck);
    const auto &mods = reader.detection().modules;
    if (mods.empty())
        throw UnsupportedError("holds no quantized module that Quantscope decodes (compressed-tensors, Quark, FP8 "
                               "block, native): pass the original model with --recipe instead",
                               Location{exported.path().string(), {}, {}});
    ReplacementSet set;
    set.device = "cpu";
    std::vector<std::pair<std::string, Tensor>> tensors;
    for (std::size_t i = 0; i < mods.size(); ++i) {
        if (control.cancel)
            control.cancel->check();
        const QuantizedModule &m = mods[i];
        say(control, static_cast<double>(i) / static_cast<double>(mods.size()), "decoding " + m.module);
        if (m.shape.size() != 2)
            throw UnsupportedError("module '" + m.module + "' is stored as " + shapeToString(m.shape) +
                                       " (stacked experts): eval replaces 2-D Linear weights",
                                   Location{exported.path().string(), m.name, {}});
        ReplacedModule r;
        r.module = m.module;
        r.tensor = m.name;
        r.scheme = std::string(formatName(m.format)) + " " + m.scheme.text();
        r.relFrobenius = std::numeric_limits<double>::quiet_NaN();
        r.mse = std::numeric_limits<double>::quiet_NaN();
        const Tensor wHat = reader.read(m.name);
        r.numel = wHat.numel();
        if (control.capture && control.original && control.original->find(m.name) != nullptr) {
            std::vector<float> values(static_cast<std::size_t>(wHat.numel()));
            wHat.decodeTo(values);
            r.outputError = outputErrorOf(control, m.module, control.original->tensor(m.name), values);
        }
        tensors.emplace_back(m.name, wHat);
        set.modules.push_back(std::move(r));
    }
    say(control, 1.0, "writing " + out.string());
    writeSafetensors(out, tensors, {{"format", "quantscope-replacements"}, {"source", exported.path().string()}});
    return set;
}

} // namespace quantscope
