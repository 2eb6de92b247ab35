// SPDX-License-Identifier: MIT
// Detection of already-quantized modules: names and texts of the schemes, grouping a checkpoint's
// tensors by module and dispatching each module to its toolkit's analyser (quantized_*.cpp).
// Layouts: docs/formats.md "Quantized tensor layouts read", docs/toolkits.md §2.4–2.6, §3.5–3.7, §6.
// Decisions: quantized.h.
#include "io/quantized.h"

#include <cctype>
#include <set>
#include <unordered_map>

#include "io/native.h"
#include "io/quantized_common.h"
#include "util/error.h"
#include "util/glob.h"

namespace quantscope {

using namespace quantized_detail;

// ---- names ------------------------------------------------------------------------------------

std::string_view formatName(QuantFormat f) noexcept
{
    switch (f) {
    case QuantFormat::CtPackQuantized:
        return "compressed-tensors/pack-quantized";
    case QuantFormat::CtIntQuantized:
        return "compressed-tensors/int-quantized";
    case QuantFormat::CtNaiveQuantized:
        return "compressed-tensors/naive-quantized";
    case QuantFormat::CtFloatQuantized:
        return "compressed-tensors/float-quantized";
    case QuantFormat::CtNvfp4PackQuantized:
        return "compressed-tensors/nvfp4-pack-quantized";
    case QuantFormat::CtMxfp4PackQuantized:
        return "compressed-tensors/mxfp4-pack-quantized";
    case QuantFormat::Fp8Block:
        return "fp8-block";
    case QuantFormat::QuarkRealQuantized:
        return "quark/real_quantized";
    case QuantFormat::QuantscopeNative:
        return "quantscope-native";
    }
    return "?";
}

std::string_view packOrderName(PackOrder p) noexcept
{
    switch (p) {
    case PackOrder::None:
        return "none";
    case PackOrder::CtDense:
        return "ct-dense";
    case PackOrder::CtLegacy:
        return "ct-legacy-32/b-per-word";
    case PackOrder::QuarkReorder:
        return "quark-reorder";
    case PackOrder::QuarkOrder:
        return "quark-order";
    case PackOrder::Fp4LowNibbleFirst:
        return "fp4-low-nibble-first";
    case PackOrder::NativeLowNibbleFirst:
        return "native-low-nibble-first";
    }
    return "?";
}

namespace {

std::string upper(std::string s)
{
    for (char &c : s)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

std::string elementText(const QuantScheme &s)
{
    if (s.element == "fp8_e4m3")
        return "FP8 E4M3";
    if (s.element == "fp4_e2m1")
        return "FP4 E2M1";
    return upper(s.element);
}

} // namespace

std::string QuantScheme::text() const
{
    std::string t = (method.empty() ? std::string() : method + ": ") + elementText(*this);
    if (!isFloat)
        t += symmetric ? " sym" : " asym";
    switch (granularity) {
    case Granularity::Tensor:
        t += ", per tensor";
        break;
    case Granularity::Channel:
        t += ", per channel";
        break;
    case Granularity::Group:
        t += ", group " + std::to_string(groupSize) + " along K";
        break;
    case Granularity::Block:
        t += ", block " + std::to_string(blockRows) + "x" + std::to_string(blockCols);
        break;
    }
    switch (packOrder) {
    case PackOrder::None:
        break;
    case PackOrder::CtDense:
        t += ", c-t packing";
        break;
    case PackOrder::CtLegacy:
        t += ", c-t legacy packing (32/b per word)";
        break;
    case PackOrder::QuarkReorder:
        t += ", Quark reorder packing";
        break;
    case PackOrder::QuarkOrder:
        t += ", Quark order packing";
        break;
    case PackOrder::Fp4LowNibbleFirst:
        t += ", FP4 pairs low nibble first";
        break;
    case PackOrder::NativeLowNibbleFirst:
        t += ", nibble pairs low first";
        break;
    }
    if (packOrderAssumed)
        t += " (assumed: no pack_method in config)";
    if (transposed)
        t += ", transposed [K, N/8]";
    if (actOrder)
        t += ", act-order g_idx";
    const std::string sd = scaleIsE8m0 ? std::string("E8M0") : std::string(nameOf(scaleDtype));
    t += ", " + sd + (inverseScale ? " inverse scales" : " scales");
    if (globalScale)
        t += " / F32 global scale";
    if (twoStage)
        t += ", two-stage s1·(s2·(q−z2)) with FP8 per-tensor s1";
    for (const std::string &n : notes)
        t += ", " + n;
    return t;
}

nlohmann::ordered_json QuantScheme::toJson() const
{
    nlohmann::ordered_json j;
    j["type"] = isFloat ? "float" : "int";
    j["bits"] = bits;
    j["element"] = element;
    j["granularity"] = toString(granularity);
    j["group_size"] = granularity == Granularity::Group ? nlohmann::ordered_json(groupSize) : nullptr;
    j["block"] = granularity == Granularity::Block ? nlohmann::ordered_json::array({blockRows, blockCols})
                                                   : nlohmann::ordered_json(nullptr);
    j["symmetric"] = symmetric;
    j["pack_order"] = std::string(packOrderName(packOrder));
    j["transposed"] = transposed;
    j["scale_dtype"] = scaleIsE8m0 ? std::string("E8M0") : std::string(nameOf(scaleDtype));
    j["global_scale"] = globalScale;
    j["two_stage"] = twoStage;
    j["act_order"] = actOrder;
    j["from_config"] = fromConfig;
    if (!method.empty()) {
        j["method"] = method;
        j["notes"] = notes;
    }
    return j;
}

const std::string *QuantizedModule::part(std::string_view role) const
{
    const auto it = parts.find(std::string(role));
    return it == parts.end() ? nullptr : &it->second;
}

bool QuantizedModule::answersTo(std::string_view n) const
{
    if (n == name || n == module)
        return true;
    for (const auto &[role, t] : parts)
        if (t == n)
            return true;
    return false;
}

const QuantizedModule *Detection::find(std::string_view n) const
{
    if (const auto it = index.find(n); it != index.end())
        return &modules[it->second];
    for (const auto &m : modules) // a Detection assembled by hand, without its index
        if (index.empty() && m.answersTo(n))
            return &m;
    return nullptr;
}

bool Detection::isPart(std::string_view tensorName) const
{
    if (!partIndex.empty() || modules.empty())
        return partIndex.count(tensorName) != 0;
    for (const auto &m : modules)
        for (const auto &[role, t] : m.parts)
            if (t == tensorName)
                return true;
    return false;
}

bool fnmatchName(std::string_view pattern, std::string_view name)
{
    return globMatch(pattern, name);
}

// ---- detection ---------------------------------------------------------------------------------

const ModuleProblem *Detection::problem(std::string_view name) const
{
    for (const ModuleProblem &p : problems) {
        if (name == p.module)
            return &p;
        if (name.size() > p.module.size() && name.substr(0, p.module.size()) == p.module &&
            name[p.module.size()] == '.' && name.find('.', p.module.size() + 1) == std::string_view::npos)
            return &p; // <module>.weight or a stored part of it
    }
    return nullptr;
}

Detection detectQuantized(const Checkpoint &ck, const DetectOptions &options)
{
    Detection det;
    if (ck.npy() || ck.npz())
        return det;
    static const std::set<std::string> kCompanions = {
        "weight_packed",       "weight_scale",   "weight_shape",        "weight_zero_point", "weight_g_idx",
        "weight_global_scale", "weight_scale_2", "weight_zero_point_2", "weight_scale_inv",  "weight"};
    // Group tensors by module, in the order of first appearance.
    std::vector<std::string> order;
    std::unordered_map<std::string, std::map<std::string, const TensorEntry *>> byModule;
    for (const TensorEntry &e : ck.entries()) {
        const auto dot = e.name.rfind('.');
        if (dot == std::string::npos)
            continue;
        const std::string sfx = e.name.substr(dot + 1);
        if (!kCompanions.count(sfx))
            continue;
        const std::string mod = e.name.substr(0, dot);
        auto [it, added] = byModule.try_emplace(mod);
        if (added)
            order.push_back(mod);
        it->second[sfx] = &e;
    }
    // Quantscope's own layout (`quantize --save`): its modules come from the metadata.
    if (isNativeCheckpoint(ck))
        detectNativeModules(ck, det, options.strict);
    const ConfigView cv = readConfig(ck.quantizationConfig());

    for (const std::string &mod : order) {
        const auto &sfx = byModule[mod];
        const Ctx c{ck, mod, sfx};
        auto has = [&](const char *s) { return sfx.count(s) != 0; };
        const TensorEntry *Wt = c.get("weight");
        try {
            enum class Kind { None, CtPacked, Fp4, Fp8Block, Quark, Naive } kind = Kind::None;
            if (has("weight_packed"))
                kind = c.get("weight_packed")->dtype == DType::I32  ? Kind::CtPacked
                       : c.get("weight_packed")->dtype == DType::U8 ? Kind::Fp4
                                                                    : Kind::None;
            else if (Wt && has("weight_scale_inv"))
                kind = Kind::Fp8Block;
            else if (Wt && Wt->dtype == DType::I32 &&
                     (has("weight_scale") || has("weight_scale_2") || cv.method == "quark"))
                kind = Kind::Quark;
            else if (Wt && (Wt->dtype == DType::I8 || Wt->dtype == DType::F8_E4M3) &&
                     (has("weight_scale") || (cv.method == "compressed-tensors" && !cv.groups.empty())))
                kind = Kind::Naive;
            if (has("weight_packed") && kind == Kind::None)
                c.fail("weight_packed has dtype " + std::string(nameOf(c.get("weight_packed")->dtype)) +
                       "; I32 (packed INT) or U8 (FP4 pairs) expected");
            if (kind == Kind::None)
                continue;

            // Config candidates for this module.
            std::vector<WeightArgs> cands;
            bool ignored = false;
            if (cv.method == "compressed-tensors") {
                cands = ctCandidates(cv, mod, ignored);
                if (kind == Kind::Naive && !has("weight_scale") && (ignored || cands.empty()))
                    continue; // a plain I8/F8 tensor the config does not quantize
            } else if (cv.method == "quark") {
                const nlohmann::json spec = quarkWeightSpec(cv, mod, ignored);
                if (!spec.is_null() && !ignored)
                    cands.push_back(quarkArgs(spec));
            }
            auto analyze = [&](const WeightArgs *a) -> QuantizedModule {
                switch (kind) {
                case Kind::CtPacked:
                    return analyzeCtPacked(c, a);
                case Kind::Fp4:
                    return analyzeFp4(c, a, cv);
                case Kind::Fp8Block:
                    return analyzeFp8Block(c, cv);
                case Kind::Quark:
                    return analyzeQuark(c, a, cv);
                case Kind::Naive:
                    return analyzeNaive(c, a, cv);
                case Kind::None:
                    break;
                }
                c.fail("unreachable");
            };
            QuantizedModule m;
            if (cands.empty() || kind == Kind::Fp8Block) {
                m = analyze(nullptr);
            } else {
                // The first candidate the tensors agree with; else the first one's complaint.
                std::optional<FormatError> first;
                bool done = false;
                for (const WeightArgs &a : cands) {
                    try {
                        m = analyze(&a);
                        m.scheme.fromConfig = true;
                        done = true;
                        break;
                    } catch (const FormatError &e) {
                        if (!first)
                            first = e;
                    }
                }
                if (!done)
                    throw *first;
            }
            if (ignored)
                m.warnings.push_back("the config excludes/ignores this module, but its tensors are "
                                     "quantized; read as stored");
            m.module = mod;
            m.name = mod + ".weight";
            // Scale health over every scale tensor of the module.
            for (const char *role : {"scale", "scale_1", "global_scale"})
                if (const std::string *p = m.part(role))
                    countHealth(m.scaleHealth,
                                floatsOf(ck.tensor(*p), role == std::string("scale") && m.scheme.scaleIsE8m0));
            det.modules.push_back(std::move(m));
        } catch (const FormatError &e) {
            if (options.strict)
                throw;
            det.problems.push_back({mod, e.what()});
        }
    }
    for (std::size_t i = 0; i < det.modules.size(); ++i) {
        const QuantizedModule &m = det.modules[i];
        for (const auto &[role, t] : m.parts) {
            det.partIndex.emplace(t, i);
            det.index.emplace(t, i);
        }
        det.index.emplace(m.module, i);
        det.index.emplace(m.name, i);
    }
    return det;
}

} // namespace quantscope
