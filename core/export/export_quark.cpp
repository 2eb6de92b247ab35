// SPDX-License-Identifier: MIT
// Recipe → AMD Quark: the `quantization_config` Quark's exporter writes (keys and values as in
// tests/interop/golden/quark_*/config.json, written by Quark 0.13) and the Python script that
// builds the same QConfig. Mapping (docs/formats.md "Exported configs"):
//   the catch-all rule ("*")  → global_quant_config; every earlier rule → layer_quant_config
//   entries (one per fnmatch pattern, in rule order), per-module overrides → exact-name entries
//   first; exclude → exclude (fnmatch); a ProgressiveSpec → the two-entry `weight` list.
#include <algorithm>
#include <cstring>
#include <variant>

#include "export/config_export.h"
#include "util/error.h"

namespace quantscope {

using nlohmann::json;
using namespace exportdetail;

namespace {

/// Every key Quark 0.13 writes for a QuantizationSpec, with its defaults.
json quarkSpecBase()
{
    return json{{"block_size", nullptr},
                {"ch_axis", nullptr},
                {"dtype", nullptr},
                {"enable_buffer_reuse", false},
                {"group_size", nullptr},
                {"is_dynamic", false},
                {"is_scale_quant", false},
                {"max_input_numel", 4194304},
                {"mx_element_dtype", nullptr},
                {"observer_cls", nullptr},
                {"qscheme", nullptr},
                {"round_method", "half_even"},
                {"scale_calculation_mode", nullptr},
                {"scale_format", nullptr},
                {"scale_type", nullptr},
                {"symmetric", true},
                {"zero_point_type", "int32"}};
}

json quarkIntSpec(const IntSpec &s, const std::string &where)
{
    if (s.bits != 4 && s.bits != 8)
        throw UnsupportedError(where + ": INT" + std::to_string(s.bits) +
                               " — this exporter writes Quark's int4 and int8 dtypes only");
    if (s.rounding != Rounding::HalfEven)
        throw UnsupportedError(where + ": rounding half_away — Quark rounds half to even (round_method half_even)");
    if (s.scaleDtype != ScaleDType::F32)
        throw UnsupportedError(where + ": scale dtype " + toString(s.scaleDtype) +
                               " — Quark's integer specs here store float32 scales (scale_type float)");
    json d = quarkSpecBase();
    d["dtype"] = "int" + std::to_string(s.bits);
    d["symmetric"] = s.symmetric;
    d["scale_type"] = "float";
    switch (s.granularity) {
    case Granularity::Tensor:
        d["qscheme"] = "per_tensor";
        d["observer_cls"] = "PerTensorMinMaxObserver";
        break;
    case Granularity::Channel:
        d["qscheme"] = "per_channel";
        d["ch_axis"] = s.axis;
        d["observer_cls"] = "PerChannelMinMaxObserver";
        break;
    case Granularity::Group:
        d["qscheme"] = "per_group";
        d["ch_axis"] = 1;
        d["group_size"] = s.group;
        d["observer_cls"] = "PerGroupMinMaxObserver";
        break;
    case Granularity::Block:
        throw UnsupportedError(where + ": integer block scales — Quark has no 2-D block scheme for integers");
    }
    return d;
}

json quarkFp8Spec(const Fp8Spec &s, const std::string &where)
{
    json d = quarkSpecBase();
    d["dtype"] = s.format == Fp8Format::E4M3 ? "fp8_e4m3" : "fp8_e5m2";
    switch (s.granularity) {
    case Granularity::Tensor:
        d["qscheme"] = "per_tensor";
        d["observer_cls"] = "PerTensorMinMaxObserver";
        break;
    case Granularity::Channel:
        d["qscheme"] = "per_channel";
        d["ch_axis"] = 0;
        d["observer_cls"] = "PerChannelMinMaxObserver";
        break;
    default:
        throw UnsupportedError(where +
                               ": FP8 block scales — this exporter writes Quark FP8 per tensor or per channel only");
    }
    return d;
}

json quarkSingle(const QuantSpec &spec, const std::string &where)
{
    if (const auto *s = std::get_if<IntSpec>(&spec))
        return quarkIntSpec(*s, where);
    if (const auto *g = std::get_if<GptqSpec>(&spec)) // GPTQ's codes are an ordinary checkpoint of its target
        return quarkSingle(gptqTargetSpec(*g), where);
    if (const auto *a = std::get_if<AwqSpec>(&spec))
        return quarkIntSpec(a->quant, where);
    if (const auto *s = std::get_if<Fp8Spec>(&spec))
        return quarkFp8Spec(*s, where);
    const std::string m = methodOf(spec);
    std::string why = "Quark has no such scheme";
    if (m == "milo")
        why = "MiLo's low-rank compensators (milo_U, milo_V) have no place in a Quark config";
    else if (m == "hqq")
        why = "HQQ's float zero points and optimised scales have no Quark scheme";
    else if (m == "constopt")
        why = "constOpt's fixed-constant codebook has no Quark scheme";
    else if (m == "mxfp4" || m == "nvfp4")
        why = "this exporter does not write Quark's FP4 schemes yet";
    throw UnsupportedError(where + ": method '" + m + "' — " + why);
}

/// The `weight` value of one spec: a dict, or the two-entry list of a ProgressiveSpec.
json quarkWeight(const QuantSpec &spec, const std::string &where)
{
    if (const auto *p = std::get_if<ProgressiveSpec>(&spec))
        return json::array({quarkSingle(stageSpec(p->stage1), where + " stage1"),
                            quarkSingle(stageSpec(p->stage2), where + " stage2")});
    return quarkSingle(spec, where);
}

json quarkInput(const ExportOptions &o)
{
    if (o.activations == ActivationScheme::None)
        return nullptr;
    json d = quarkSpecBase();
    d["dtype"] = "fp8_e4m3";
    d["qscheme"] = "per_tensor";
    d["observer_cls"] = "PerTensorMinMaxObserver";
    d["is_dynamic"] = o.activations == ActivationScheme::Fp8Dynamic;
    return d;
}

json quarkLayer(const json &weight, const ExportOptions &o)
{
    return json{{"bias", nullptr},
                {"input_tensors", quarkInput(o)},
                {"output_tensors", nullptr},
                {"target_device", nullptr},
                {"weight", weight}};
}

const QuantSpec &oneSpec(const std::vector<QuantSpec> &specs, const std::string &where)
{
    if (specs.size() != 1)
        throw UnsupportedError(where + " has " + std::to_string(specs.size()) +
                               " specs (candidates a scan compares); an export needs the one chosen");
    return specs.front();
}

std::string fnmatchLiteral(const std::string &name)
{
    std::string out;
    for (char c : name)
        out += (c == '*' || c == '?' || c == '[') ? "[" + std::string(1, c) + "]" : std::string(1, c);
    return out;
}

/// A recipe pattern as a Quark fnmatch pattern.
std::string quarkPattern(PatternDialect d, const std::string &p, const std::string &where)
{
    if (d == PatternDialect::Re)
        throw UnsupportedError(where + ": regex '" + p +
                               "' — Quark matches fnmatch patterns only; write the rule in the fnmatch dialect");
    return d == PatternDialect::Exact ? fnmatchLiteral(p) : p;
}

/// The structure both Quark outputs share: (pattern → spec) layer entries in precedence order,
/// the global spec, the exclude list.
struct QuarkPlan {
    std::vector<std::pair<std::string, QuantSpec>> layers;
    std::optional<QuantSpec> global;
    std::vector<std::string> exclude;
};

QuarkPlan planQuark(const Recipe &recipe, const std::vector<std::string> *modules)
{
    QuarkPlan plan;
    int catchAll = -1;
    std::vector<std::pair<std::string, QuantSpec>> overrides;
    for (int i = 0; i < static_cast<int>(recipe.rules.size()); ++i) {
        const RecipeRule &rule = recipe.rules[static_cast<std::size_t>(i)];
        const std::string where = ruleLabel(recipe, i);
        if (catchAll >= 0)
            throw UnsupportedError(where + " comes after the catch-all " + ruleLabel(recipe, catchAll) +
                                   " and wins no module; remove it or move it first");
        std::vector<QuantSpec> specs;
        for (const auto &s : rule.specs)
            specs.push_back(parseQuantSpec(s));
        const QuantSpec &spec = oneSpec(specs, where);
        // Overrides are exact names: Quark looks them up before any pattern, so they go first.
        for (const auto &[module, o] : rule.overrides)
            if (auto ov = overriddenSpecs(recipe, i, module))
                overrides.emplace_back(fnmatchLiteral(module), oneSpec(*ov, where + " override " + module));
        if (isCatchAll(rule)) {
            catchAll = i;
            plan.global = spec;
            continue;
        }
        for (const auto &p : rule.patterns) {
            const std::string qp = quarkPattern(rule.dialect, p, where);
            // A name without glob characters is an exact-name key, which Quark tries before
            // every pattern: keep it only when no earlier rule wins that name in the recipe.
            if (!hasGlobMeta(qp) && earlierRuleMatches(recipe, i, qp))
                continue;
            plan.layers.emplace_back(qp, spec);
        }
    }
    plan.layers.insert(plan.layers.begin(), overrides.begin(), overrides.end());
    for (std::size_t e = 0; e < recipe.exclude.size(); ++e)
        plan.exclude.push_back(
            quarkPattern(recipe.exclude[e].dialect, recipe.exclude[e].pattern, "exclude[" + std::to_string(e) + "]"));
    if (!plan.global) {
        if (!modules || plan.layers.empty())
            throw UnsupportedError("the recipe has no catch-all rule ('*'): Quark quantizes every module the exclude "
                                   "list does not name with global_quant_config — end the rules with '*' or "
                                   "exclude the modules no rule should quantize");
        // The modules are known: every module no rule quantizes is excluded by name, and the
        // global config (which then applies to no module) is the first rule's.
        plan.global = plan.layers.front().second;
        for (const auto &m : *modules)
            if (!matchModule(recipe, m).matched() &&
                std::find(plan.exclude.begin(), plan.exclude.end(), fnmatchLiteral(m)) == plan.exclude.end())
                plan.exclude.push_back(fnmatchLiteral(m));
    }
    return plan;
}

} // namespace

nlohmann::json exportdetail::quarkWeightJson(const QuantSpec &spec, const std::string &where)
{
    return quarkWeight(spec, where);
}

nlohmann::ordered_json quarkQuantizationConfig(const Recipe &recipe, const ExportOptions &options,
                                               const std::vector<std::string> *modules)
{
    const QuarkPlan plan = planQuark(recipe, modules);
    // layer_quant_config keeps the recipe's order: Quark tries its patterns in the file's order.
    nlohmann::ordered_json layers = nlohmann::ordered_json::object();
    for (const auto &[pattern, spec] : plan.layers)
        if (!layers.contains(pattern)) // an earlier entry for the same pattern wins, as in the recipe
            layers[pattern] = quarkLayer(quarkWeight(spec, "layer '" + pattern + "'"), options);
    // Every other key in the order Quark's exporter writes them (sorted).
    nlohmann::ordered_json q;
    q["algo_config"] = nullptr;
    q["exclude"] = plan.exclude;
    // The KV cache: Quark's LLM template puts an FP8 per-tensor static spec on the output of the
    // k/v projections (kv_cache_quant_config, with each projection's own weight and input specs)
    // and names them in export.kv_cache_group.
    json kvGroup = json::array();
    json kvConfig = json::object();
    if (kvCacheFp8Strategy(recipe, "Quark's kv_cache_quant_config", false)) {
        ExportOptions out = options;
        out.activations = ActivationScheme::Fp8Static;
        json fp8 = quarkInput(out);
        for (const char *proj : {"k_proj", "v_proj"}) {
            const std::string pattern = std::string("*") + proj;
            // The projection's weight spec: the rule every known k/v module resolves to (one).
            std::vector<std::string> names;
            if (modules) {
                for (const auto &m : *modules)
                    if (m.size() > std::strlen(proj) &&
                        m.compare(m.size() - std::strlen(proj), std::string::npos, proj) == 0)
                        names.push_back(m);
            } else {
                names.push_back(std::string("model.layers.0.self_attn.") + proj);
            }
            std::optional<nlohmann::json> weight;
            for (const auto &n : names) {
                const RecipeMatch m = matchModule(recipe, n);
                const json w =
                    m.matched() ? quarkWeight(oneSpec(m.specs, "module " + n), "module " + n) : json(nullptr);
                if (weight && *weight != w)
                    throw UnsupportedError("kv_cache: Quark gives every '" + pattern +
                                           "' module one layer config; the recipe quantizes them differently (" + n +
                                           ")");
                weight = w;
            }
            json layer = quarkLayer(weight ? *weight : json(nullptr), options);
            layer["output_tensors"] = fp8;
            kvConfig[pattern] = layer;
            kvGroup.push_back(pattern);
        }
    }
    q["export"] = json{{"kv_cache_group", kvGroup},
                       {"min_kv_scale", 0.0},
                       {"pack_method", options.packMethod},
                       {"weight_format", "real_quantized"},
                       {"weight_merge_groups", nullptr}};
    q["global_quant_config"] = quarkLayer(quarkWeight(*plan.global, "the catch-all rule"), options);
    q["kv_cache_post_rope"] = false;
    q["kv_cache_quant_config"] = kvConfig;
    q["layer_quant_config"] = layers;
    q["layer_type_quant_config"] = json::object();
    q["quant_method"] = "quark";
    q["quant_mode"] = "eager_mode";
    q["softmax_quant_spec"] = nullptr;
    return q;
}

namespace {

const char *pyBool(bool b)
{
    return b ? "True" : "False";
}

/// One stage as a Quark spec-class call (the classes quark.torch.quantization.config.config has).
std::string pySingle(const QuantSpec &spec, const std::string &where)
{
    quarkSingle(spec, where); // the config's refusals first
    if (const auto *s = std::get_if<Fp8Spec>(&spec)) {
        if (s->format == Fp8Format::E4M3 && s->granularity == Granularity::Tensor)
            return "FP8E4M3PerTensorSpec(observer_method=\"min_max\", is_dynamic=False)";
    } else if (const auto *s = std::get_if<IntSpec>(&spec); s && s->bits == 4) {
        if (s->granularity == Granularity::Channel)
            return std::string("Int4PerChannelSpec(symmetric=") + pyBool(s->symmetric) +
                   ", scale_type=\"float\", round_method=\"half_even\", ch_axis=" + std::to_string(s->axis) +
                   ", is_dynamic=False)";
        if (s->granularity == Granularity::Group)
            return std::string("Int4PerGroupSpec(symmetric=") + pyBool(s->symmetric) +
                   ", scale_type=\"float\", round_method=\"half_even\", ch_axis=1, group_size=" +
                   std::to_string(s->group) + ", is_dynamic=False)";
    }
    throw UnsupportedError(where + ": the Quark script writes FP8E4M3PerTensorSpec, Int4PerChannelSpec and "
                                   "Int4PerGroupSpec (and their ProgressiveSpec); use --format quark for this spec");
}

std::string pyWeight(const QuantSpec &spec, const std::string &where)
{
    if (const auto *p = std::get_if<ProgressiveSpec>(&spec))
        return "ProgressiveSpec(\n        first_stage=" + pySingle(stageSpec(p->stage1), where + " stage1") +
               ",\n        second_stage=" + pySingle(stageSpec(p->stage2), where + " stage2") +
               ").to_quantization_spec()";
    return pySingle(spec, where) + ".to_quantization_spec()";
}

} // namespace

std::string quarkScriptText(const Recipe &recipe, const ExportOptions &options)
{
    const QuarkPlan plan = planQuark(recipe, nullptr);
    std::string py = "# AMD Quark configuration of the Quantscope recipe " + recipe.hash() +
                     " (quantscope-cli export --format quark-script).\n"
                     "# Use: ModelQuantizer(QUANT_CONFIG).quantize_model(model, calib_data), then\n"
                     "# export_safetensors(model, out_dir, custom_mode=\"quark\", pack_method=\"" +
                     options.packMethod + "\").\n";
    py += "from quark.torch.quantization.config.config import (\n"
          "    FP8E4M3PerTensorSpec, Int4PerChannelSpec, Int4PerGroupSpec, ProgressiveSpec, QConfig, QLayerConfig)\n\n";
    py += "INPUT_TENSORS = ";
    if (options.activations == ActivationScheme::None)
        py += "None\n";
    else
        py += std::string("FP8E4M3PerTensorSpec(observer_method=\"min_max\", is_dynamic=") +
              pyBool(options.activations == ActivationScheme::Fp8Dynamic) + ").to_quantization_spec()\n";
    py += "\nGLOBAL_WEIGHT = " + pyWeight(*plan.global, "the catch-all rule") + "\n";
    py += "\nLAYER_QUANT_CONFIG = {\n";
    std::vector<std::string> seen;
    for (const auto &[pattern, spec] : plan.layers) {
        if (std::find(seen.begin(), seen.end(), pattern) != seen.end())
            continue;
        seen.push_back(pattern);
        py += "    " + json(pattern).dump() +
              ": QLayerConfig(\n        weight=" + pyWeight(spec, "layer '" + pattern + "'") +
              ",\n        input_tensors=INPUT_TENSORS),\n";
    }
    py += "}\n\nEXCLUDE = " + json(plan.exclude).dump() + "\n\n";
    py += "QUANT_CONFIG = QConfig(\n"
          "    global_quant_config=QLayerConfig(weight=GLOBAL_WEIGHT, input_tensors=INPUT_TENSORS),\n"
          "    layer_quant_config=LAYER_QUANT_CONFIG,\n"
          "    exclude=EXCLUDE)\n";
    return py;
}

} // namespace quantscope
