// SPDX-License-Identifier: MIT
// Detection, validation and decoding of already-quantized modules. Layouts: docs/formats.md
// "Quantized tensor layouts read", docs/toolkits.md §2.4–2.6, §3.5–3.7, §6. Decisions: quantized.h.
#include "io/quantized.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <regex>
#include <set>
#include <unordered_map>

#include "tensor/convert.h"
#include "util/error.h"

namespace quantscope {

// ---- names ------------------------------------------------------------------------------------

std::string_view formatName(QuantFormat f) noexcept
{
    switch (f) {
    case QuantFormat::CtPackQuantized: return "compressed-tensors/pack-quantized";
    case QuantFormat::CtIntQuantized: return "compressed-tensors/int-quantized";
    case QuantFormat::CtNaiveQuantized: return "compressed-tensors/naive-quantized";
    case QuantFormat::CtFloatQuantized: return "compressed-tensors/float-quantized";
    case QuantFormat::CtNvfp4PackQuantized: return "compressed-tensors/nvfp4-pack-quantized";
    case QuantFormat::CtMxfp4PackQuantized: return "compressed-tensors/mxfp4-pack-quantized";
    case QuantFormat::Fp8Block: return "fp8-block";
    case QuantFormat::QuarkRealQuantized: return "quark/real_quantized";
    }
    return "?";
}

std::string_view packOrderName(PackOrder p) noexcept
{
    switch (p) {
    case PackOrder::None: return "none";
    case PackOrder::CtDense: return "ct-dense";
    case PackOrder::CtLegacy: return "ct-legacy-32/b-per-word";
    case PackOrder::QuarkReorder: return "quark-reorder";
    case PackOrder::QuarkOrder: return "quark-order";
    case PackOrder::Fp4LowNibbleFirst: return "fp4-low-nibble-first";
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

std::string shapeList(const Shape &s)
{
    std::string out = "[";
    for (std::size_t i = 0; i < s.size(); ++i)
        out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
}

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }

} // namespace

std::string QuantScheme::text() const
{
    std::string t = elementText(*this);
    if (!isFloat)
        t += symmetric ? " sym" : " asym";
    switch (granularity) {
    case Granularity::Tensor: t += ", per tensor"; break;
    case Granularity::Channel: t += ", per channel"; break;
    case Granularity::Group: t += ", group " + std::to_string(groupSize) + " along K"; break;
    case Granularity::Block:
        t += ", block " + std::to_string(blockRows) + "x" + std::to_string(blockCols);
        break;
    }
    switch (packOrder) {
    case PackOrder::None: break;
    case PackOrder::CtDense: t += ", c-t packing"; break;
    case PackOrder::CtLegacy: t += ", c-t legacy packing (32/b per word)"; break;
    case PackOrder::QuarkReorder: t += ", Quark reorder packing"; break;
    case PackOrder::QuarkOrder: t += ", Quark order packing"; break;
    case PackOrder::Fp4LowNibbleFirst: t += ", FP4 pairs low nibble first"; break;
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
    j["block"] = granularity == Granularity::Block
                     ? nlohmann::ordered_json::array({blockRows, blockCols})
                     : nlohmann::ordered_json(nullptr);
    j["symmetric"] = symmetric;
    j["pack_order"] = std::string(packOrderName(packOrder));
    j["transposed"] = transposed;
    j["scale_dtype"] = scaleIsE8m0 ? std::string("E8M0") : std::string(nameOf(scaleDtype));
    j["global_scale"] = globalScale;
    j["two_stage"] = twoStage;
    j["act_order"] = actOrder;
    j["from_config"] = fromConfig;
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

bool fnmatchName(std::string_view pat, std::string_view s)
{
    // Iterative glob with backtracking on the last '*'.
    std::size_t p = 0, i = 0, starP = std::string_view::npos, starI = 0;
    auto matchClass = [&](std::size_t &pp, char c) -> std::optional<bool> {
        // pat[pp] == '['; returns nullopt when the class is unterminated (then '[' is literal).
        std::size_t q = pp + 1;
        bool neg = false;
        if (q < pat.size() && (pat[q] == '!' || pat[q] == '^')) {
            neg = true;
            ++q;
        }
        bool hit = false;
        const std::size_t first = q;
        while (q < pat.size() && (pat[q] != ']' || q == first)) {
            if (q + 2 < pat.size() && pat[q + 1] == '-' && pat[q + 2] != ']') {
                if (pat[q] <= c && c <= pat[q + 2])
                    hit = true;
                q += 3;
            } else {
                if (pat[q] == c)
                    hit = true;
                ++q;
            }
        }
        if (q >= pat.size())
            return std::nullopt;
        pp = q + 1;
        return hit != neg;
    };
    while (i < s.size()) {
        if (p < pat.size() && pat[p] == '*') {
            starP = p++;
            starI = i;
            continue;
        }
        if (p < pat.size()) {
            if (pat[p] == '?') {
                ++p;
                ++i;
                continue;
            }
            if (pat[p] == '[') {
                std::size_t pp = p;
                const auto r = matchClass(pp, s[i]);
                if (r && *r) {
                    p = pp;
                    ++i;
                    continue;
                }
                if (!r && s[i] == '[') {
                    ++p;
                    ++i;
                    continue;
                }
            } else if (pat[p] == s[i]) {
                ++p;
                ++i;
                continue;
            }
        }
        if (starP == std::string_view::npos)
            return false;
        p = starP + 1;
        i = ++starI;
    }
    while (p < pat.size() && pat[p] == '*')
        ++p;
    return p == pat.size();
}

namespace {

// ---- config views ----------------------------------------------------------------------------

/// Weight quantization arguments as a config states them (normalized).
struct WeightArgs {
    int numBits = 8;
    bool isFloat = false;
    std::optional<bool> symmetric;
    std::string strategy; ///< tensor | channel | group | tensor_group | block | "" (unknown)
    std::int64_t groupSize = 0;
    std::int64_t blockRows = 0, blockCols = 0;
    bool actorder = false;
    std::string format;   ///< c-t per-group or top-level format
    std::string source;   ///< where it came from, for messages
    // Quark only
    std::string quarkDtype;     ///< "int4", "uint4", "fp8_e4m3", …
    bool twoStage = false;
    std::string stage1Dtype, stage1Qscheme;
};

std::optional<std::pair<std::int64_t, std::int64_t>> parseBlock(const nlohmann::json &b)
{
    if (b.is_array() && b.size() == 2 && b[0].is_number_integer() && b[1].is_number_integer())
        return std::pair{b[0].get<std::int64_t>(), b[1].get<std::int64_t>()};
    if (b.is_string()) {
        const std::string s = b.get<std::string>();
        const auto x = s.find('x');
        if (x != std::string::npos) {
            try {
                return std::pair{std::stoll(s.substr(0, x)), std::stoll(s.substr(x + 1))};
            } catch (...) {
            }
        }
    }
    return std::nullopt;
}

/// compressed-tensors QuantizationArgs (weights) → WeightArgs.
WeightArgs ctArgs(const nlohmann::json &w, const std::string &source)
{
    WeightArgs a;
    a.source = source;
    if (!w.is_object())
        return a;
    if (auto it = w.find("num_bits"); it != w.end() && it->is_number_integer())
        a.numBits = it->get<int>();
    if (auto it = w.find("type"); it != w.end() && it->is_string())
        a.isFloat = it->get<std::string>() == "float";
    a.symmetric = true;
    if (auto it = w.find("symmetric"); it != w.end() && it->is_boolean())
        a.symmetric = it->get<bool>();
    bool hasGroup = false;
    std::int64_t gs = 0;
    if (auto it = w.find("group_size"); it != w.end() && it->is_number_integer()) {
        hasGroup = true;
        gs = it->get<std::int64_t>();
    }
    if (auto it = w.find("strategy"); it != w.end() && it->is_string())
        a.strategy = it->get<std::string>();
    if (a.strategy.empty())
        a.strategy = !hasGroup ? "tensor" : gs > 0 ? "group" : "channel";
    if (gs > 0)
        a.groupSize = gs;
    if (auto it = w.find("block_structure"); it != w.end())
        if (auto b = parseBlock(*it)) {
            a.blockRows = b->first;
            a.blockCols = b->second;
        }
    if (auto it = w.find("actorder"); it != w.end())
        a.actorder = (it->is_string() && (it->get<std::string>() == "group" ||
                                          it->get<std::string>() == "dynamic")) ||
                     (it->is_boolean() && it->get<bool>());
    return a;
}

/// compressed-tensors preset schemes (docs/toolkits.md §2.2) used as `"W4A16": ["Linear"]`.
std::optional<WeightArgs> ctPreset(const std::string &name, const std::string &source)
{
    WeightArgs a;
    a.source = source;
    a.symmetric = true;
    auto intGroup = [&](int bits, bool sym) {
        a.numBits = bits;
        a.symmetric = sym;
        a.strategy = "group";
        a.groupSize = 128;
        return a;
    };
    if (name == "W4A16_ASYM")
        return intGroup(4, false);
    if (name == "W8A8" || name == "INT8") {
        a.numBits = 8;
        a.strategy = "channel";
        return a;
    }
    if (name == "W4AFP8")
        return intGroup(4, true);
    if (name == "FP8") {
        a.numBits = 8;
        a.isFloat = true;
        a.strategy = "tensor";
        return a;
    }
    if (name == "FP8_DYNAMIC") {
        a.numBits = 8;
        a.isFloat = true;
        a.strategy = "channel";
        return a;
    }
    if (name == "FP8_BLOCK") {
        a.numBits = 8;
        a.isFloat = true;
        a.strategy = "block";
        a.blockRows = a.blockCols = 128;
        return a;
    }
    if (name == "NVFP4A16" || name == "NVFP4") {
        a.numBits = 4;
        a.isFloat = true;
        a.strategy = "tensor_group";
        a.groupSize = 16;
        return a;
    }
    if (name == "MXFP4A16" || name == "MXFP4") {
        a.numBits = 4;
        a.isFloat = true;
        a.strategy = "group";
        a.groupSize = 32;
        return a;
    }
    if (name.size() >= 4 && name[0] == 'W' && name[1] >= '2' && name[1] <= '8' && name[2] == 'A')
        return intGroup(name[1] - '0', true);
    return std::nullopt;
}

struct CtGroup {
    std::vector<std::string> targets;
    std::vector<std::optional<std::regex>> regexes; ///< compiled `re:` targets (parallel)
    WeightArgs args;
    bool hasWeights = false;
};

struct ConfigView {
    std::string method; ///< quant_method: "compressed-tensors", "quark", "fp8", … or ""
    // compressed-tensors
    std::string ctFormat;
    std::vector<CtGroup> groups;
    std::vector<std::string> ignore;
    std::vector<std::optional<std::regex>> ignoreRe; ///< compiled `re:` entries (parallel)
    // fp8 (DeepSeek-V3 / Qwen3-FP8)
    std::optional<std::pair<std::int64_t, std::int64_t>> weightBlock;
    // quark
    nlohmann::json quark;
    std::string packMethod;
    bool packMethodGiven = false;
};

ConfigView readConfig(const nlohmann::json &qc)
{
    ConfigView v;
    if (!qc.is_object())
        return v;
    if (auto it = qc.find("quant_method"); it != qc.end() && it->is_string())
        v.method = it->get<std::string>();
    if (auto it = qc.find("weight_block_size"); it != qc.end())
        v.weightBlock = parseBlock(*it);
    if (v.method == "compressed-tensors" || v.method == "sparseml" || qc.contains("config_groups")) {
        if (v.method.empty())
            v.method = "compressed-tensors";
        if (auto it = qc.find("format"); it != qc.end() && it->is_string())
            v.ctFormat = it->get<std::string>();
        if (auto it = qc.find("ignore"); it != qc.end() && it->is_array())
            for (const auto &x : *it)
                if (x.is_string()) {
                    v.ignore.push_back(x.get<std::string>());
                    std::optional<std::regex> re;
                    if (v.ignore.back().rfind("re:", 0) == 0) {
                        try {
                            re.emplace(v.ignore.back().substr(3));
                        } catch (const std::regex_error &) {
                        }
                    }
                    v.ignoreRe.push_back(std::move(re));
                }
        if (auto it = qc.find("config_groups"); it != qc.end() && it->is_object()) {
            for (const auto &[gname, g] : it->items()) {
                CtGroup cg;
                const std::string src = "config.json quantization_config.config_groups." + gname;
                if (g.is_array()) { // preset name → targets
                    for (const auto &t : g)
                        if (t.is_string())
                            cg.targets.push_back(t.get<std::string>());
                    if (auto p = ctPreset(gname, src)) {
                        cg.args = *p;
                        cg.hasWeights = true;
                    }
                } else if (g.is_object()) {
                    if (auto t = g.find("targets"); t != g.end() && t->is_array())
                        for (const auto &x : *t)
                            if (x.is_string())
                                cg.targets.push_back(x.get<std::string>());
                    if (auto w = g.find("weights"); w != g.end() && w->is_object()) {
                        cg.args = ctArgs(*w, src);
                        cg.hasWeights = true;
                    }
                    if (auto f = g.find("format"); f != g.end() && f->is_string())
                        cg.args.format = f->get<std::string>();
                }
                for (const std::string &t : cg.targets) {
                    std::optional<std::regex> re;
                    if (t.rfind("re:", 0) == 0) {
                        try {
                            re.emplace(t.substr(3));
                        } catch (const std::regex_error &) {
                        }
                    }
                    cg.regexes.push_back(std::move(re));
                }
                if (cg.args.format.empty() || cg.args.format == "mixed-precision")
                    cg.args.format = v.ctFormat == "mixed-precision" ? std::string() : v.ctFormat;
                v.groups.push_back(std::move(cg));
            }
        }
    }
    if (v.method == "quark") {
        v.quark = qc;
        if (auto e = qc.find("export"); e != qc.end() && e->is_object())
            if (auto pm = e->find("pack_method"); pm != e->end() && pm->is_string()) {
                v.packMethod = pm->get<std::string>();
                v.packMethodGiven = true;
            }
        if (!v.packMethodGiven)
            v.packMethod = "reorder";
    }
    return v;
}

// `re:` patterns are matched with std::regex (ECMAScript), a full match like Python's
// re.fullmatch; the patterns compressed-tensors configs use are in the common subset.

/// Candidate c-t weight args for a module: name/regex matches first, then class targets.
std::vector<WeightArgs> ctCandidates(const ConfigView &cv, const std::string &module, bool &ignored)
{
    ignored = false;
    for (std::size_t i = 0; i < cv.ignore.size(); ++i)
        if (cv.ignore[i] == module || (cv.ignoreRe[i] && std::regex_match(module, *cv.ignoreRe[i])))
            ignored = true;
    std::vector<WeightArgs> strong, weak;
    for (const CtGroup &g : cv.groups) {
        if (!g.hasWeights)
            continue;
        bool s = false, w = false;
        for (std::size_t i = 0; i < g.targets.size(); ++i) {
            const std::string &t = g.targets[i];
            if (t == module || (g.regexes[i] && std::regex_match(module, *g.regexes[i])))
                s = true;
            else if (!t.empty() && std::isupper(static_cast<unsigned char>(t[0])) &&
                     t.find('.') == std::string::npos)
                w = true; // a class name such as "Linear": the checkpoint cannot tell, assume it
        }
        if (s)
            strong.push_back(g.args);
        else if (w)
            weak.push_back(g.args);
    }
    strong.insert(strong.end(), weak.begin(), weak.end());
    return strong;
}

/// Quark weight spec for a module: layer_quant_config (exact, then fnmatch), then
/// layer_type_quant_config "Linear", then global_quant_config. Null when excluded / none.
nlohmann::json quarkWeightSpec(const ConfigView &cv, const std::string &module, bool &excluded)
{
    excluded = false;
    const nlohmann::json &q = cv.quark;
    if (auto ex = q.find("exclude"); ex != q.end() && ex->is_array())
        for (const auto &p : *ex)
            if (p.is_string() && (p.get<std::string>() == module || fnmatchName(p.get<std::string>(), module)))
                excluded = true;
    auto weightOf = [](const nlohmann::json &layerCfg) -> nlohmann::json {
        if (layerCfg.is_object())
            if (auto w = layerCfg.find("weight"); w != layerCfg.end())
                return *w;
        return nullptr;
    };
    if (auto lq = q.find("layer_quant_config"); lq != q.end() && lq->is_object()) {
        if (auto it = lq->find(module); it != lq->end())
            return weightOf(*it);
        for (const auto &[pat, cfg] : lq->items())
            if (fnmatchName(pat, module))
                return weightOf(cfg);
    }
    if (auto lt = q.find("layer_type_quant_config"); lt != q.end() && lt->is_object())
        if (auto it = lt->find("Linear"); it != lt->end())
            return weightOf(*it);
    if (auto g = q.find("global_quant_config"); g != q.end())
        return weightOf(*g);
    return nullptr;
}

WeightArgs quarkArgs(const nlohmann::json &spec)
{
    WeightArgs a;
    a.source = "config.json quantization_config (quark)";
    auto one = [](const nlohmann::json &d, const char *key) -> std::string {
        if (d.is_object())
            if (auto it = d.find(key); it != d.end() && it->is_string())
                return it->get<std::string>();
        return {};
    };
    const nlohmann::json *intStage = &spec;
    if (spec.is_array() && !spec.empty()) {
        if (spec.size() >= 2) {
            a.twoStage = true;
            a.stage1Dtype = one(spec[0], "dtype");
            a.stage1Qscheme = one(spec[0], "qscheme");
        }
        intStage = &spec[spec.size() - 1];
    }
    a.quarkDtype = one(*intStage, "dtype");
    a.strategy = one(*intStage, "qscheme");
    if (a.strategy == "per_tensor")
        a.strategy = "tensor";
    else if (a.strategy == "per_channel")
        a.strategy = "channel";
    else if (a.strategy == "per_group")
        a.strategy = "group";
    else if (a.strategy == "per_block")
        a.strategy = "block";
    if (intStage->is_object()) {
        if (auto it = intStage->find("group_size"); it != intStage->end() && it->is_number_integer())
            a.groupSize = it->get<std::int64_t>();
        if (auto it = intStage->find("symmetric"); it != intStage->end() && it->is_boolean())
            a.symmetric = it->get<bool>();
    }
    if (a.quarkDtype == "int4" || a.quarkDtype == "uint4")
        a.numBits = 4;
    else if (a.quarkDtype.rfind("fp", 0) == 0) {
        a.isFloat = true;
        a.numBits = a.quarkDtype.rfind("fp8", 0) == 0 ? 8 : 4;
    }
    return a;
}

// ---- tensor access helpers -------------------------------------------------------------------

struct Ctx {
    const Checkpoint &ck;
    const std::string &module;
    const std::map<std::string, const TensorEntry *> &sfx; // suffix → entry

    const TensorEntry *get(const std::string &s) const
    {
        const auto it = sfx.find(s);
        return it == sfx.end() ? nullptr : it->second;
    }
    [[noreturn]] void fail(const std::string &msg) const
    {
        const TensorEntry *any = sfx.empty() ? nullptr : sfx.begin()->second;
        throw FormatError(msg, Location{any ? any->file.string() : ck.path().string(), module, {}});
    }
    std::string tname(const std::string &s) const { return module + "." + s; }
};

std::string describe(const TensorEntry &e)
{
    return e.name.substr(e.name.rfind('.') + 1) + " " + std::string(nameOf(e.dtype)) + " " +
           shapeList(e.shape);
}

/// Decodes a stored scale tensor to FP32 (U8 as E8M0 when asked).
std::vector<float> floatsOf(const Tensor &t, bool e8m0FromU8)
{
    std::vector<float> out(static_cast<std::size_t>(t.numel()));
    if (e8m0FromU8 && t.dtype() == DType::U8) {
        for (std::int64_t i = 0; i < t.numel(); ++i)
            out[static_cast<std::size_t>(i)] = e8m0ToFloat(static_cast<std::uint8_t>(t.at(i)));
        return out;
    }
    t.decodeTo(out);
    return out;
}

void countHealth(ScaleHealth &h, const std::vector<float> &v)
{
    for (float x : v) {
        ++h.total;
        if (std::isnan(x))
            ++h.nan;
        else if (std::isinf(x))
            ++h.inf;
        else if (x == 0.0f)
            ++h.zero;
    }
}

std::uint32_t wordAt(const Tensor &t, std::int64_t i)
{
    std::uint32_t w;
    std::memcpy(&w, t.data() + 4 * i, 4);
    return w;
}

std::vector<std::int64_t> integersOf(const Tensor &t)
{
    std::vector<std::int64_t> v(static_cast<std::size_t>(t.numel()));
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        if (t.dtype() == DType::I64) {
            std::int64_t x;
            std::memcpy(&x, t.data() + 8 * i, 8);
            v[static_cast<std::size_t>(i)] = x;
        } else {
            v[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(t.at(i));
        }
    }
    return v;
}

bool isIntDtype(DType t)
{
    return t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I64 ||
           t == DType::U8 || t == DType::U16 || t == DType::U32 || t == DType::U64;
}

bool isFloatScaleDtype(DType t)
{
    return t == DType::F32 || t == DType::F16 || t == DType::BF16 || t == DType::F64 ||
           t == DType::F8_E4M3 || t == DType::F8_E8M0;
}

/// Splits a stored shape into (experts, per-expert shape) given the expected rank-2 inner shape.
/// Scale tensors of 2-D weights may also be rank 0/1 (tensor, channel).

/// Resolves granularity and the scale grid of a weight [experts × N × K] from the per-expert
/// scale shape `s` and the config args (or the shapes alone). Throws naming the mismatch.
void resolveGrid(const Ctx &c, QuantizedModule &m, const Shape &s, const std::string &scaleName,
                 const WeightArgs *a, std::int64_t defaultGroup)
{
    const std::int64_t N = m.rows, K = m.cols;
    QuantScheme &q = m.scheme;
    const std::int64_t numel = numelOf(s);
    const std::string got = scaleName + " has shape " + shapeList(s);
    auto isChannel = [&] {
        return (s.size() == 2 && s[0] == N && s[1] == 1) || (s.size() == 1 && s[0] == N);
    };
    auto setGroup = [&](std::int64_t g) {
        q.granularity = Granularity::Group;
        q.groupSize = g;
        m.gridRows = N;
        m.gridCols = ceilDiv(K, g);
    };
    const std::string strategy = a ? a->strategy : std::string();
    if (strategy == "tensor") {
        if (numel != 1)
            c.fail(got + ", but per-tensor quantization (" + a->source +
                   ") needs one scale; broadcasting it would have applied " +
                   std::to_string(numel) + " different scales to one tensor");
        q.granularity = Granularity::Tensor;
        m.gridRows = m.gridCols = 1;
        return;
    }
    if (strategy == "channel") {
        if (!isChannel())
            c.fail(got + ", but per-channel quantization (" + a->source + ") of N = " +
                   std::to_string(N) + " rows needs [" + std::to_string(N) +
                   ", 1]; broadcasting it would not give one scale per output row");
        q.granularity = Granularity::Channel;
        m.gridRows = N;
        m.gridCols = 1;
        return;
    }
    if (strategy == "group" || strategy == "tensor_group") {
        const std::int64_t g = a->groupSize > 0 ? a->groupSize : defaultGroup;
        if (g <= 0)
            c.fail("group quantization in " + a->source + " without a positive group_size");
        const std::int64_t G = ceilDiv(K, g);
        if (!(s.size() == 2 && s[0] == N && s[1] == G)) {
            std::string msg = got + ", but group " + std::to_string(g) + " along K = " +
                              std::to_string(K) + " (" + a->source + ") needs [" +
                              std::to_string(N) + ", " + std::to_string(G) + "]";
            if (s.size() == 2 && s[0] == N && s[1] > 0)
                msg += "; broadcasting it would have applied each scale to " +
                       std::to_string(ceilDiv(K, s[1])) + " columns instead of " +
                       std::to_string(g);
            c.fail(msg);
        }
        setGroup(g);
        return;
    }
    if (strategy == "block") {
        const std::int64_t br = a->blockRows, bc = a->blockCols;
        if (br <= 0 || bc <= 0)
            c.fail("block quantization in " + a->source + " without a block_structure");
        const Shape want{ceilDiv(N, br), ceilDiv(K, bc)};
        if (s != want)
            c.fail(got + ", but blocks " + std::to_string(br) + "x" + std::to_string(bc) + " of a [" +
                   std::to_string(N) + ", " + std::to_string(K) + "] weight (" + a->source +
                   ") need " + shapeList(want));
        q.granularity = Granularity::Block;
        q.blockRows = br;
        q.blockCols = bc;
        m.gridRows = want[0];
        m.gridCols = want[1];
        return;
    }
    if (a && !strategy.empty())
        c.fail("strategy '" + strategy + "' in " + a->source + " is not supported for weights");

    // No config: from the shapes alone.
    if (numel == 1 && !(N == 1 && s.size() == 2)) {
        q.granularity = Granularity::Tensor;
        m.gridRows = m.gridCols = 1;
        return;
    }
    if (isChannel()) {
        q.granularity = Granularity::Channel;
        m.gridRows = N;
        m.gridCols = 1;
        return;
    }
    if (s.size() == 2 && s[0] == N && s[1] > 1) {
        const std::int64_t G = s[1];
        if (defaultGroup > 0 && ceilDiv(K, defaultGroup) == G)
            return setGroup(defaultGroup);
        if (K % G == 0 && K / G > 0)
            return setGroup(K / G);
        c.fail(got + ": K = " + std::to_string(K) + " is not a multiple of " + std::to_string(G) +
               " groups, so the group size cannot be inferred; config.json's quantization_config "
               "is needed");
    }
    if (s.size() == 2 && s[0] != N)
        c.fail(got + ", which is not [N, groups] for N = " + std::to_string(N) +
               "; a block grid needs its block size from config.json (never derived from shapes)");
    c.fail(got + ", which fits no per-tensor, per-channel or group layout of a [" +
           std::to_string(N) + ", " + std::to_string(K) + "] weight");
}

/// Reads the logical weight shape from c-t weight_shape.
Shape readWeightShape(const Ctx &c, const TensorEntry &e)
{
    if (!isIntDtype(e.dtype) || e.shape.size() != 1)
        c.fail("weight_shape is " + std::string(nameOf(e.dtype)) + " " + shapeList(e.shape) +
               "; an integer vector [rank] is expected");
    const auto v = integersOf(c.ck.tensor(e.name));
    Shape s;
    for (auto x : v) {
        if (x < 0)
            c.fail("weight_shape " + shapeList(Shape(v.begin(), v.end())) + " has a negative entry");
        s.push_back(x);
    }
    return s;
}

// ---- format analyses ----------------------------------------------------------------------------

std::int64_t denseWords(std::int64_t k, int b) { return ceilDiv(k * b, 32); }
std::int64_t legacyWords(std::int64_t k, int b) { return ceilDiv(k, 32 / b); }

/// Which c-t packing a row of `k` codes in `w` words uses; nullopt = neither.
std::optional<PackOrder> ctLayout(const Ctx &c, std::int64_t k, int b, std::int64_t w,
                                  const std::string &what, std::optional<PackOrder> prefer)
{
    const bool d = w == denseWords(k, b), l = w == legacyWords(k, b);
    if (d && l) {
        if (b == 1 || b == 2 || b == 4 || b == 8 || k <= 32 / b)
            return PackOrder::CtDense; // both layouts put every element at the same bits
        if (prefer)
            return prefer;
        c.fail(what + ": " + std::to_string(k) + " INT" + std::to_string(b) + " codes in " +
               std::to_string(w) +
               " words fit both the dense layout and the older 32/b-per-word layout, which "
               "differ here; the layout is ambiguous and refused");
    }
    if (d)
        return PackOrder::CtDense;
    if (l)
        return PackOrder::CtLegacy;
    return std::nullopt;
}

QuantizedModule analyzeCtPacked(const Ctx &c, const WeightArgs *a)
{
    QuantizedModule m;
    m.format = QuantFormat::CtPackQuantized;
    QuantScheme &q = m.scheme;
    const TensorEntry &P = *c.get("weight_packed");
    const TensorEntry *S = c.get("weight_scale");
    const TensorEntry *WS = c.get("weight_shape");
    const TensorEntry *Z = c.get("weight_zero_point");
    const TensorEntry *GI = c.get("weight_g_idx");
    m.parts["codes"] = P.name;
    if (P.shape.size() != 2 && P.shape.size() != 3)
        c.fail("weight_packed is " + shapeList(P.shape) + "; [N, words] or [E, N, words] expected");
    if (!S)
        c.fail("weight_packed without weight_scale: the scales are missing");
    if (!WS)
        c.fail("weight_packed without weight_shape: K cannot be known exactly from the word count");
    m.parts["scale"] = S->name;
    m.parts["shape"] = WS->name;
    if (a && a->isFloat)
        c.fail("weight_packed I32 holds INT codes, but " + a->source + " says type float");
    if (a && !a->format.empty() && a->format != "pack-quantized")
        c.fail("the tensors are pack-quantized, but " + a->source + " says format '" + a->format + "'");
    const Shape ws = readWeightShape(c, *WS);
    if (ws.size() != P.shape.size())
        c.fail("weight_shape " + shapeList(ws) + " has rank " + std::to_string(ws.size()) +
               ", weight_packed " + shapeList(P.shape) + " rank " + std::to_string(P.shape.size()));
    const bool three = P.shape.size() == 3;
    m.experts = three ? P.shape[0] : 1;
    m.rows = P.shape[three ? 1 : 0];
    const std::int64_t W = P.shape.back();
    m.cols = ws.back();
    if (three && ws[0] != m.experts)
        c.fail("weight_shape " + shapeList(ws) + " lies: weight_packed holds " +
               std::to_string(m.experts) + " experts");
    if (ws[three ? 1 : 0] != m.rows)
        c.fail("weight_shape " + shapeList(ws) + " lies: weight_packed " + shapeList(P.shape) +
               " holds " + std::to_string(m.rows) + " rows");
    m.shape = ws;

    // Bit width: the config's, else the only one the word count allows.
    int b = 0;
    if (a) {
        b = a->numBits;
        if (b < 1 || b > 8)
            c.fail(a->source + " says num_bits " + std::to_string(b) + "; pack-quantized holds 1..8");
    } else {
        std::set<int> fits;
        for (int bb = 1; bb <= 8; ++bb)
            if (W == denseWords(m.cols, bb) || W == legacyWords(m.cols, bb))
                fits.insert(bb);
        if (fits.size() != 1) {
            std::string list;
            for (int bb : fits)
                list += (list.empty() ? "" : ", ") + std::to_string(bb);
            c.fail("weight_shape " + shapeList(ws) + " and " + std::to_string(W) +
                   " words per row fit " + (fits.empty() ? std::string("no bit width 1..8") : "bit widths {" + list + "}") +
                   "; config.json's quantization_config is needed to know num_bits");
        }
        b = *fits.begin();
    }
    q.bits = b;
    q.element = "int" + std::to_string(b);
    const auto layout = ctLayout(c, m.cols, b, W, "weight_packed", std::nullopt);
    if (!layout)
        c.fail("weight_shape " + shapeList(ws) + " lies or the pack layout is unknown: K = " +
               std::to_string(m.cols) + " INT" + std::to_string(b) + " codes need " +
               std::to_string(denseWords(m.cols, b)) + " words (dense) or " +
               std::to_string(legacyWords(m.cols, b)) + " (32/b per word), weight_packed has " +
               std::to_string(W));
    q.packOrder = *layout;

    // Scale grid.
    if (!isFloatScaleDtype(S->dtype))
        c.fail("weight_scale has dtype " + std::string(nameOf(S->dtype)) + "; a float dtype is expected");
    q.scaleDtype = S->dtype;
    Shape s = S->shape;
    if (three) {
        if (s.empty() || s[0] != m.experts)
            c.fail("weight_scale " + shapeList(s) + " does not start with the " +
                   std::to_string(m.experts) + " experts of weight_packed");
        s.erase(s.begin());
    }
    resolveGrid(c, m, s, "weight_scale", a, 0);

    // Zero points (asymmetric): packed along dim 0, same family of layout.
    const bool wantZp = a ? !a->symmetric.value_or(true) : Z != nullptr;
    if (a && !wantZp && Z)
        m.warnings.push_back("weight_zero_point present although " + a->source +
                             " says symmetric; it is ignored (as compressed-tensors does)");
    if (wantZp) {
        if (!Z)
            c.fail("asymmetric quantization (" + (a ? a->source : std::string("?")) +
                   ") but weight_zero_point is missing");
        if (!isIntDtype(Z->dtype))
            c.fail("weight_zero_point has dtype " + std::string(nameOf(Z->dtype)) +
                   "; integer zero points are expected");
        Shape zs = Z->shape;
        if (three) {
            if (zs.empty() || zs[0] != m.experts)
                c.fail("weight_zero_point " + shapeList(zs) + " does not start with the experts");
            zs.erase(zs.begin());
        }
        if (zs.size() != 2 || zs[1] != m.gridCols)
            c.fail("weight_zero_point " + shapeList(Z->shape) + " does not match the scale grid [" +
                   std::to_string(m.gridRows) + ", " + std::to_string(m.gridCols) +
                   "] packed along dim 0");
        const auto zl = ctLayout(c, m.gridRows, b, zs[0], "weight_zero_point", q.packOrder);
        if (zs[0] == m.gridRows && (Z->dtype != DType::I32 || !zl)) {
            m.zeroPointPacked = false; // older writers: one raw zero point per scale
        } else if (Z->dtype != DType::I32 || !zl || *zl != q.packOrder) {
            c.fail("weight_zero_point " + shapeList(Z->shape) + ": " + std::to_string(m.gridRows) +
                   " packed INT" + std::to_string(b) + " zero points need " +
                   std::to_string(q.packOrder == PackOrder::CtLegacy ? legacyWords(m.gridRows, b)
                                                                     : denseWords(m.gridRows, b)) +
                   " I32 rows in the weight's layout (or " + std::to_string(m.gridRows) +
                   " raw ones)");
        }
        m.parts["zero_point"] = Z->name;
        q.symmetric = false;
    }
    if (GI) {
        if (!isIntDtype(GI->dtype) || GI->shape != Shape{m.cols})
            c.fail("weight_g_idx is " + describe(*GI) + "; I32 [K = " + std::to_string(m.cols) + "] expected");
        m.parts["g_idx"] = GI->name;
        const auto g = integersOf(c.ck.tensor(GI->name));
        const bool columnOrder = std::find(g.begin(), g.end(), -1) != g.end();
        if (!columnOrder) {
            if (q.granularity != Granularity::Group)
                c.fail("weight_g_idx given for a " + toString(q.granularity) +
                       " scheme; activation order needs groups");
            for (std::size_t i = 0; i < g.size(); ++i)
                if (g[i] < 0 || g[i] >= m.gridCols)
                    c.fail("weight_g_idx[" + std::to_string(i) + "] = " + std::to_string(g[i]) +
                           " is outside the " + std::to_string(m.gridCols) + " groups");
            q.actOrder = true;
        }
    }
    return m;
}

QuantizedModule analyzeFp4(const Ctx &c, const WeightArgs *a, const ConfigView &)
{
    QuantizedModule m;
    QuantScheme &q = m.scheme;
    const TensorEntry &P = *c.get("weight_packed");
    const TensorEntry *S = c.get("weight_scale");
    const TensorEntry *GS = c.get("weight_global_scale");
    m.parts["codes"] = P.name;
    if (!S)
        c.fail("weight_packed U8 (FP4 pairs) without weight_scale: the scales are missing");
    m.parts["scale"] = S->name;
    bool nv;
    if (a && !a->format.empty() && a->format.find("fp4") != std::string::npos)
        nv = a->format == "nvfp4-pack-quantized";
    else if (a && a->isFloat && a->numBits == 4)
        nv = a->groupSize != 32;
    else
        nv = GS != nullptr || S->dtype == DType::F8_E4M3;
    if (a && (!a->isFloat || a->numBits != 4))
        c.fail("weight_packed U8 holds FP4 pairs, but " + a->source + " says " +
               (a->isFloat ? "float" : "int") + " " + std::to_string(a->numBits) + " bits");
    m.format = nv ? QuantFormat::CtNvfp4PackQuantized : QuantFormat::CtMxfp4PackQuantized;
    if (P.shape.size() != 2)
        c.fail("weight_packed is " + shapeList(P.shape) + "; FP4 pairs are [N, K/2]");
    m.rows = P.shape[0];
    m.cols = 2 * P.shape[1];
    m.shape = {m.rows, m.cols};
    q.isFloat = true;
    q.bits = 4;
    q.element = "fp4_e2m1";
    q.packOrder = PackOrder::Fp4LowNibbleFirst;
    if (nv) {
        if (S->dtype != DType::F8_E4M3 && !isFloatScaleDtype(S->dtype))
            c.fail("weight_scale has dtype " + std::string(nameOf(S->dtype)) + "; NVFP4 uses F8_E4M3");
        if (!GS)
            c.fail("NVFP4 weight without weight_global_scale: the global scale is missing");
    } else {
        if (S->dtype != DType::U8 && S->dtype != DType::F8_E8M0 && !isFloatScaleDtype(S->dtype))
            c.fail("weight_scale has dtype " + std::string(nameOf(S->dtype)) +
                   "; MXFP4 uses U8 (E8M0 exponents)");
        q.scaleIsE8m0 = S->dtype == DType::U8 || S->dtype == DType::F8_E8M0;
    }
    q.scaleDtype = S->dtype;
    if (GS) {
        if (numelOf(GS->shape) != 1 || !isFloatScaleDtype(GS->dtype))
            c.fail("weight_global_scale is " + describe(*GS) + "; one float is expected");
        m.parts["global_scale"] = GS->name;
        q.globalScale = true;
    }
    WeightArgs def;
    def.strategy = "group";
    def.groupSize = nv ? 16 : 32;
    def.source = nv ? "NVFP4 (group 16)" : "MXFP4 (group 32)";
    resolveGrid(c, m, S->shape, "weight_scale", a ? a : &def, def.groupSize);
    return m;
}

QuantizedModule analyzeFp8Block(const Ctx &c, const ConfigView &cv)
{
    QuantizedModule m;
    m.format = QuantFormat::Fp8Block;
    QuantScheme &q = m.scheme;
    const TensorEntry &Wt = *c.get("weight");
    const TensorEntry &S = *c.get("weight_scale_inv");
    m.parts["codes"] = Wt.name;
    m.parts["scale"] = S.name;
    if (Wt.dtype != DType::F8_E4M3)
        c.fail("weight_scale_inv beside a " + std::string(nameOf(Wt.dtype)) +
               " weight; FP8 block checkpoints store F8_E4M3");
    if (Wt.shape.size() != 2)
        c.fail("weight is " + shapeList(Wt.shape) + "; FP8 block weights are [N, K]");
    if (!cv.weightBlock)
        c.fail("FP8 block scales (" + describe(S) +
               ") but config.json gives no quantization_config.weight_block_size; the block size "
               "is never derived from shapes");
    m.rows = Wt.shape[0];
    m.cols = Wt.shape[1];
    m.shape = Wt.shape;
    q.isFloat = true;
    q.bits = 8;
    q.element = "fp8_e4m3";
    q.inverseScale = true;
    q.fromConfig = true;
    if (!isFloatScaleDtype(S.dtype))
        c.fail("weight_scale_inv has dtype " + std::string(nameOf(S.dtype)) + "; F32 expected");
    q.scaleDtype = S.dtype;
    WeightArgs a;
    a.strategy = "block";
    a.blockRows = cv.weightBlock->first;
    a.blockCols = cv.weightBlock->second;
    a.source = "config.json weight_block_size";
    resolveGrid(c, m, S.shape, "weight_scale_inv", &a, 0);
    return m;
}

QuantizedModule analyzeNaive(const Ctx &c, const WeightArgs *a, const ConfigView &cv)
{
    QuantizedModule m;
    QuantScheme &q = m.scheme;
    const TensorEntry &Wt = *c.get("weight");
    const TensorEntry *S = c.get("weight_scale");
    const TensorEntry *Z = c.get("weight_zero_point");
    m.parts["codes"] = Wt.name;
    if (!S)
        c.fail("quantized " + std::string(nameOf(Wt.dtype)) + " weight (" +
               (a ? a->source : std::string("config")) + ") without weight_scale: the scales are missing");
    m.parts["scale"] = S->name;
    const bool fp = Wt.dtype == DType::F8_E4M3;
    if (a && a->isFloat != fp)
        c.fail("weight is " + std::string(nameOf(Wt.dtype)) + ", but " + a->source + " says type " +
               (a->isFloat ? "float" : "int"));
    if (cv.method == "quark")
        m.format = QuantFormat::QuarkRealQuantized;
    else if (a && a->format == "naive-quantized")
        m.format = QuantFormat::CtNaiveQuantized;
    else if (a && a->format == "int-quantized")
        m.format = QuantFormat::CtIntQuantized;
    else if (a && a->format == "float-quantized")
        m.format = QuantFormat::CtFloatQuantized;
    else
        m.format = fp ? QuantFormat::CtFloatQuantized : QuantFormat::CtIntQuantized;
    if (Wt.shape.size() != 2 && Wt.shape.size() != 3)
        c.fail("weight is " + shapeList(Wt.shape) + "; [N, K] or [E, N, K] expected");
    const bool three = Wt.shape.size() == 3;
    m.experts = three ? Wt.shape[0] : 1;
    m.rows = Wt.shape[three ? 1 : 0];
    m.cols = Wt.shape.back();
    m.shape = Wt.shape;
    q.isFloat = fp;
    q.bits = fp ? 8 : (a ? a->numBits : 8);
    q.element = fp ? "fp8_e4m3" : "int" + std::to_string(q.bits);
    if (!isFloatScaleDtype(S->dtype))
        c.fail("weight_scale has dtype " + std::string(nameOf(S->dtype)) + "; a float dtype is expected");
    q.scaleDtype = S->dtype;
    Shape s = S->shape;
    if (three) {
        if (s.empty() || s[0] != m.experts)
            c.fail("weight_scale " + shapeList(s) + " does not start with the experts of the weight");
        s.erase(s.begin());
    }
    resolveGrid(c, m, s, "weight_scale", a, 0);
    const bool wantZp = a ? !a->symmetric.value_or(true) : Z != nullptr;
    if (wantZp) {
        if (!Z)
            c.fail("asymmetric quantization (" + (a ? a->source : std::string("?")) +
                   ") but weight_zero_point is missing");
        if (numelOf(Z->shape) != m.experts * m.gridRows * m.gridCols)
            c.fail("weight_zero_point " + shapeList(Z->shape) + " does not match the scale grid " +
                   shapeList(S->shape));
        m.parts["zero_point"] = Z->name;
        q.symmetric = false;
    } else if (Z) {
        m.warnings.push_back("weight_zero_point present although the config says symmetric; ignored");
    }
    return m;
}

QuantizedModule analyzeQuark(const Ctx &c, const WeightArgs *a, const ConfigView &cv)
{
    QuantizedModule m;
    m.format = QuantFormat::QuarkRealQuantized;
    QuantScheme &q = m.scheme;
    const TensorEntry &Wt = *c.get("weight");
    const TensorEntry *S1 = c.get("weight_scale");
    const TensorEntry *S2 = c.get("weight_scale_2");
    const TensorEntry *Z1 = c.get("weight_zero_point");
    const TensorEntry *Z2 = c.get("weight_zero_point_2");
    m.parts["codes"] = Wt.name;
    const bool two = a ? a->twoStage : S2 != nullptr;
    const TensorEntry *S = two ? S2 : S1;
    const TensorEntry *Z = two ? Z2 : Z1;
    if (two && !S1)
        c.fail("two-stage Quark weight without weight_scale (the stage-1 FP8 scale s1)");
    if (!S)
        c.fail(std::string("packed INT4 weight without ") + (two ? "weight_scale_2" : "weight_scale") +
               ": the scales are missing");
    m.parts["scale"] = S->name;
    if (two) {
        m.parts["scale_1"] = S1->name;
        if (numelOf(S1->shape) != 1 || S1->shape.size() > 1)
            c.fail("weight_scale (stage-1 s1) is " + describe(*S1) +
                   "; the FP8 per-tensor stage has one scale ([1] or a scalar)");
        if (a && !a->stage1Qscheme.empty() && a->stage1Qscheme != "per_tensor")
            c.fail("stage 1 qscheme '" + a->stage1Qscheme + "' in " + a->source +
                   " is not supported (per_tensor FP8 is read)");
        q.twoStage = true;
    }
    if (Wt.shape.size() != 2)
        c.fail("weight I32 is " + shapeList(Wt.shape) + "; packed INT4 [rows, words] expected");
    std::string dtype = a ? a->quarkDtype : std::string("int4");
    if (dtype.empty())
        dtype = "int4";
    if (dtype != "int4" && dtype != "uint4")
        c.fail("weight I32 with Quark dtype '" + dtype + "' (" + (a ? a->source : "") +
               "); int4 and uint4 packed in int32 are read");
    q.bits = 4;
    q.element = dtype;
    // Pack order.
    if (cv.method == "quark") {
        if (cv.packMethod == "reorder")
            q.packOrder = PackOrder::QuarkReorder;
        else if (cv.packMethod == "order")
            q.packOrder = PackOrder::QuarkOrder;
        else
            c.fail("unknown pack layout: export.pack_method '" + cv.packMethod +
                   "' (Quark writes 'reorder' or 'order')");
        q.packOrderAssumed = !cv.packMethodGiven;
    } else {
        q.packOrder = PackOrder::QuarkReorder;
        q.packOrderAssumed = true;
    }
    if (!isFloatScaleDtype(S->dtype))
        c.fail(S->name.substr(S->name.rfind('.') + 1) + " has dtype " + std::string(nameOf(S->dtype)) +
               "; a float dtype is expected");
    q.scaleDtype = S->dtype;
    const std::string sname = S->name.substr(S->name.rfind('.') + 1);
    // Granularity: the config's qscheme, else the scale's rank.
    std::string strat = a ? a->strategy : std::string();
    if (strat.empty())
        strat = numelOf(S->shape) == 1 && S->shape.size() <= 1 ? "tensor"
                : S->shape.size() == 2 && S->shape[1] > 1   ? "group"
                                                            : "channel";
    const std::int64_t words = Wt.shape[1];
    if (strat == "group") {
        // Transposed before packing: weight [K, N/8], scale [G, N], zero point [G, N/8].
        q.transposed = true;
        if (S->shape.size() != 2)
            c.fail(sname + " " + shapeList(S->shape) +
                   ": a Quark per-group scale is stored transposed, [groups, N]");
        const std::int64_t N = S->shape[1];
        if (N % 8 != 0)
            c.fail("N = " + std::to_string(N) + " outputs is not divisible by 8: Quark's per-group "
                   "transpose packs [K, N/8] words, which cannot hold them; refused");
        if (words * 8 != N)
            c.fail("weight " + shapeList(Wt.shape) + " holds " + std::to_string(words * 8) +
                   " outputs per row after the per-group transpose, " + sname + " " +
                   shapeList(S->shape) + " has " + std::to_string(N));
        m.rows = N;
        m.cols = Wt.shape[0];
        const std::int64_t G = S->shape[0];
        std::int64_t g = a && a->groupSize > 0 ? a->groupSize : 0;
        if (g == 0) {
            if (G <= 0 || m.cols % G != 0)
                c.fail(sname + " " + shapeList(S->shape) + ": K = " + std::to_string(m.cols) +
                       " is not a multiple of the groups; the group size needs the config");
            g = m.cols / G;
        }
        if (ceilDiv(m.cols, g) != G)
            c.fail(sname + " " + shapeList(S->shape) + ", but group " + std::to_string(g) +
                   " along K = " + std::to_string(m.cols) + " (" + (a ? a->source : "") + ") needs [" +
                   std::to_string(ceilDiv(m.cols, g)) + ", " + std::to_string(N) + "] (transposed)");
        q.granularity = Granularity::Group;
        q.groupSize = g;
        m.gridRows = N;
        m.gridCols = G;
    } else if (strat == "channel") {
        m.rows = Wt.shape[0];
        m.cols = words * 8;
        const bool ok = (S->shape.size() == 1 && S->shape[0] == m.rows) ||
                        (S->shape.size() == 2 && S->shape[0] == m.rows && S->shape[1] == 1);
        if (!ok)
            c.fail(sname + " has shape " + shapeList(S->shape) + ", but per-channel quantization of a "
                   "weight with N = " + std::to_string(m.rows) + " rows needs [" +
                   std::to_string(m.rows) + "]; broadcasting it would not give one scale per row");
        q.granularity = Granularity::Channel;
        m.gridRows = m.rows;
        m.gridCols = 1;
    } else if (strat == "tensor") {
        m.rows = Wt.shape[0];
        m.cols = words * 8;
        if (numelOf(S->shape) != 1)
            c.fail(sname + " has shape " + shapeList(S->shape) + ", but per-tensor quantization needs one scale");
        q.granularity = Granularity::Tensor;
    } else {
        c.fail("Quark qscheme '" + strat + "' is not supported for packed INT4 weights");
    }
    m.shape = {m.rows, m.cols};
    // Zero points: packed nibbles in the pack order (or raw I32 per element).
    const bool sym = a && a->symmetric ? *a->symmetric : (Z == nullptr);
    if (Z) {
        if (!isIntDtype(Z->dtype))
            c.fail(Z->name.substr(Z->name.rfind('.') + 1) + " has dtype " +
                   std::string(nameOf(Z->dtype)) + "; integer zero points are expected");
        const std::int64_t zn = numelOf(Z->shape);
        const std::int64_t grid = m.gridRows * m.gridCols;
        const std::int64_t packed = q.granularity == Granularity::Group ? m.gridCols * ceilDiv(m.rows, 8)
                                    : q.granularity == Granularity::Channel ? ceilDiv(m.rows, 8)
                                                                            : 1;
        if (zn != grid && zn != packed)
            c.fail(Z->name.substr(Z->name.rfind('.') + 1) + " " + shapeList(Z->shape) +
                   " fits neither the packed zero points (" + std::to_string(packed) +
                   " words) nor one per scale (" + std::to_string(grid) + ")");
        m.parts["zero_point"] = Z->name;
    } else if (!sym) {
        c.fail("asymmetric quantization (" + (a ? a->source : std::string("?")) +
               ") but the zero point is missing");
    }
    q.symmetric = sym;
    return m;
}

// ---- unpacking ---------------------------------------------------------------------------------

constexpr int kAwqOrder[8] = {0, 2, 4, 6, 1, 3, 5, 7};

/// c-t code i (0-based) of a row of words, unsigned (offset not removed).
std::uint32_t ctCode(const Tensor &t, std::int64_t rowWord0, std::int64_t i, int b, bool legacy,
                     std::int64_t rowWords)
{
    const std::uint32_t mask = (1u << b) - 1u;
    if (legacy) {
        const int pf = 32 / b;
        return (wordAt(t, rowWord0 + i / pf) >> ((i % pf) * b)) & mask;
    }
    const std::int64_t bit = i * b;
    const std::int64_t w = bit >> 5;
    const int off = static_cast<int>(bit & 31);
    std::uint64_t v = wordAt(t, rowWord0 + w) >> off;
    if (off + b > 32 && w + 1 < rowWords)
        v |= static_cast<std::uint64_t>(wordAt(t, rowWord0 + w + 1)) << (32 - off);
    return static_cast<std::uint32_t>(v) & mask;
}

/// Quark: unpacks one row of `words` int32 into 8·words nibble values.
void quarkRow(const Tensor &t, std::int64_t word0, std::int64_t words, bool reorder, bool isSigned,
              std::int32_t *out)
{
    for (std::int64_t c = 0; c < words; ++c) {
        const std::uint32_t w = wordAt(t, word0 + c);
        for (int slot = 0; slot < 8; ++slot) {
            const int nib = static_cast<int>((w >> (4 * slot)) & 0xFu);
            const int elem = reorder ? kAwqOrder[slot] : slot;
            out[8 * c + elem] = isSigned && (nib & 0x8) ? nib - 16 : nib;
        }
    }
}

std::vector<std::int32_t> intCodes(const Checkpoint &ck, const QuantizedModule &m)
{
    const Tensor P = ck.tensor(*m.part("codes"));
    const std::int64_t E = m.experts, N = m.rows, K = m.cols;
    std::vector<std::int32_t> out(static_cast<std::size_t>(E * N * K));
    const QuantScheme &q = m.scheme;
    if (m.format == QuantFormat::CtPackQuantized) {
        const std::int64_t W = P.shape().back();
        const int b = q.bits;
        const auto offset = static_cast<std::int32_t>(1u << (b - 1));
        const bool legacy = q.packOrder == PackOrder::CtLegacy;
        for (std::int64_t r = 0; r < E * N; ++r)
            for (std::int64_t k = 0; k < K; ++k)
                out[static_cast<std::size_t>(r * K + k)] =
                    static_cast<std::int32_t>(ctCode(P, r * W, k, b, legacy, W)) - offset;
        return out;
    }
    if (m.format == QuantFormat::QuarkRealQuantized && P.dtype() == DType::I32) {
        const bool reorder = q.packOrder == PackOrder::QuarkReorder;
        const bool sgn = q.element == "int4";
        const std::int64_t words = P.shape()[1];
        std::vector<std::int32_t> row(static_cast<std::size_t>(words * 8));
        if (q.transposed) { // stored [K, N/8]: row k holds codes of all N outputs
            for (std::int64_t k = 0; k < K; ++k) {
                quarkRow(P, k * words, words, reorder, sgn, row.data());
                for (std::int64_t n = 0; n < N; ++n)
                    out[static_cast<std::size_t>(n * K + k)] = row[static_cast<std::size_t>(n)];
            }
        } else {
            for (std::int64_t n = 0; n < N; ++n) {
                quarkRow(P, n * words, words, reorder, sgn, row.data());
                std::copy(row.begin(), row.begin() + K, out.begin() + n * K);
            }
        }
        return out;
    }
    // Unpacked I8 codes.
    for (std::int64_t i = 0; i < P.numel(); ++i)
        out[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(P.at(i));
    return out;
}

} // namespace

// ---- detection ---------------------------------------------------------------------------------

Detection detectQuantized(const Checkpoint &ck, const DetectOptions &options)
{
    Detection det;
    if (ck.npy() || ck.npz())
        return det;
    static const std::set<std::string> kCompanions = {
        "weight_packed", "weight_scale", "weight_shape", "weight_zero_point", "weight_g_idx",
        "weight_global_scale", "weight_scale_2", "weight_zero_point_2", "weight_scale_inv", "weight"};
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
    const ConfigView cv = readConfig(ck.quantizationConfig());

    for (const std::string &mod : order) {
        const auto &sfx = byModule[mod];
        const Ctx c{ck, mod, sfx};
        auto has = [&](const char *s) { return sfx.count(s) != 0; };
        const TensorEntry *Wt = c.get("weight");
        try {
            enum class Kind { None, CtPacked, Fp4, Fp8Block, Quark, Naive } kind = Kind::None;
            if (has("weight_packed"))
                kind = c.get("weight_packed")->dtype == DType::I32 ? Kind::CtPacked
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
                case Kind::CtPacked: return analyzeCtPacked(c, a);
                case Kind::Fp4: return analyzeFp4(c, a, cv);
                case Kind::Fp8Block: return analyzeFp8Block(c, cv);
                case Kind::Quark: return analyzeQuark(c, a, cv);
                case Kind::Naive: return analyzeNaive(c, a, cv);
                case Kind::None: break;
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
            det.problems.push_back(e.what());
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

// ---- decoding ----------------------------------------------------------------------------------

Tensor quantizedCodes(const Checkpoint &ck, const QuantizedModule &m)
{
    const Tensor P = ck.tensor(*m.part("codes"));
    if (m.scheme.element == "fp4_e2m1")
        return Tensor::borrow(DType::F4, m.shape, P.data(), std::make_shared<Tensor>(P));
    if (m.scheme.isFloat)
        return P;
    auto codes = intCodes(ck, m);
    std::vector<std::byte> bytes(codes.size() * 4);
    if (!bytes.empty())
        std::memcpy(bytes.data(), codes.data(), bytes.size());
    return Tensor::fromBytes(DType::I32, m.shape, std::move(bytes));
}

QuantParams quantizedParams(const Checkpoint &ck, const QuantizedModule &m)
{
    QuantParams p;
    const QuantScheme &q = m.scheme;
    const std::int64_t E = m.experts, R = m.gridRows, C = m.gridCols;
    const Tensor S = ck.tensor(*m.part("scale"));
    std::vector<float> raw = floatsOf(S, q.scaleIsE8m0);
    p.scales.resize(static_cast<std::size_t>(E * R * C));
    if (q.transposed) { // Quark per-group: stored [G, N]
        for (std::int64_t n = 0; n < R; ++n)
            for (std::int64_t g = 0; g < C; ++g)
                p.scales[static_cast<std::size_t>(n * C + g)] = raw[static_cast<std::size_t>(g * R + n)];
    } else if (raw.size() == p.scales.size()) {
        p.scales = std::move(raw);
    } else {
        p.scales.assign(p.scales.size(), raw.empty() ? 0.0f : raw[0]);
    }
    if (const std::string *gs = m.part("global_scale")) {
        const float g = floatsOf(ck.tensor(*gs), false).at(0);
        for (float &s : p.scales)
            s = s / g; // compressed-tensors: scale / global_scale, then × code
    }
    if (const std::string *s1 = m.part("scale_1"))
        p.outer = floatsOf(ck.tensor(*s1), false).at(0);

    if (const std::string *zn = m.part("zero_point")) {
        const Tensor Z = ck.tensor(*zn);
        p.zeroPoints.resize(p.scales.size());
        if (m.format == QuantFormat::CtPackQuantized && m.zeroPointPacked) {
            // Packed along dim 0: column c holds the zero points of all rows (per expert).
            const int b = q.bits;
            const auto offset = static_cast<std::int32_t>(1u << (b - 1));
            const bool legacy = q.packOrder == PackOrder::CtLegacy;
            const std::int64_t ZR = Z.shape()[Z.rank() - 2];
            for (std::int64_t e = 0; e < E; ++e)
                for (std::int64_t c = 0; c < C; ++c) {
                    // Gather column c of expert e into a contiguous word row.
                    std::vector<std::byte> col(static_cast<std::size_t>(ZR * 4));
                    for (std::int64_t w = 0; w < ZR; ++w)
                        std::memcpy(col.data() + 4 * w, Z.data() + 4 * ((e * ZR + w) * C + c), 4);
                    const Tensor colT = Tensor::fromBytes(DType::I32, {ZR}, std::move(col));
                    for (std::int64_t r = 0; r < R; ++r)
                        p.zeroPoints[static_cast<std::size_t>((e * R + r) * C + c)] = static_cast<float>(
                            static_cast<std::int32_t>(ctCode(colT, 0, r, b, legacy, ZR)) - offset);
                }
        } else if (m.format == QuantFormat::QuarkRealQuantized && Z.numel() != R * C) {
            // Packed nibbles: channel [ceil(N/8)], group [G, N/8] (transposed).
            const bool reorder = q.packOrder == PackOrder::QuarkReorder;
            const bool sgn = q.element == "int4";
            const std::int64_t words = ceilDiv(R, 8);
            std::vector<std::int32_t> row(static_cast<std::size_t>(words * 8));
            const std::int64_t lines = q.granularity == Granularity::Group ? C : 1;
            for (std::int64_t g = 0; g < lines; ++g) {
                quarkRow(Z, g * words, words, reorder, sgn, row.data());
                for (std::int64_t n = 0; n < R; ++n)
                    p.zeroPoints[static_cast<std::size_t>(n * C + g)] = static_cast<float>(row[static_cast<std::size_t>(n)]);
            }
        } else {
            std::vector<float> z(static_cast<std::size_t>(Z.numel()));
            for (std::int64_t i = 0; i < Z.numel(); ++i)
                z[static_cast<std::size_t>(i)] = static_cast<float>(Z.at(i));
            if (q.transposed) {
                for (std::int64_t n = 0; n < R; ++n)
                    for (std::int64_t g = 0; g < C; ++g)
                        p.zeroPoints[static_cast<std::size_t>(n * C + g)] = z[static_cast<std::size_t>(g * R + n)];
            } else if (z.size() == p.zeroPoints.size()) {
                p.zeroPoints = std::move(z);
            } else {
                p.zeroPoints.assign(p.zeroPoints.size(), z.empty() ? 0.0f : z[0]);
            }
        }
    }
    if (q.actOrder)
        for (std::int64_t g : integersOf(ck.tensor(*m.part("g_idx"))))
            p.gIdx.push_back(static_cast<std::int32_t>(g));
    return p;
}

Tensor decodeQuantized(const Checkpoint &ck, const QuantizedModule &m)
{
    const QuantScheme &q = m.scheme;
    const std::int64_t E = m.experts, N = m.rows, K = m.cols;
    const std::size_t total = static_cast<std::size_t>(E * N * K);
    std::vector<float> codes(total);
    if (q.isFloat) {
        const Tensor c = quantizedCodes(ck, m);
        c.decodeTo(codes);
    } else {
        const auto ic = intCodes(ck, m);
        for (std::size_t i = 0; i < total; ++i)
            codes[i] = static_cast<float>(ic[i]);
    }
    const QuantParams p = quantizedParams(ck, m);
    std::int64_t rowBlock = 1, colBlock = std::max<std::int64_t>(K, 1);
    switch (q.granularity) {
    case Granularity::Tensor: rowBlock = std::max<std::int64_t>(N, 1); break;
    case Granularity::Channel: break;
    case Granularity::Group: colBlock = q.groupSize; break;
    case Granularity::Block:
        rowBlock = q.blockRows;
        colBlock = q.blockCols;
        break;
    }
    std::vector<std::int64_t> colOf(static_cast<std::size_t>(K));
    for (std::int64_t k = 0; k < K; ++k)
        colOf[static_cast<std::size_t>(k)] = p.gIdx.empty() ? k / colBlock : p.gIdx[static_cast<std::size_t>(k)];
    const std::int64_t R = m.gridRows, C = m.gridCols;
    const bool zp = !p.zeroPoints.empty();
    const bool outer = m.part("scale_1") != nullptr;
    Tensor out = Tensor::zeros(DType::F32, m.shape);
    auto *o = reinterpret_cast<float *>(out.mutableData());
    for (std::int64_t e = 0; e < E; ++e)
        for (std::int64_t n = 0; n < N; ++n) {
            const std::int64_t gridRow = (e * R + n / rowBlock) * C;
            const std::int64_t base = (e * N + n) * K;
            for (std::int64_t k = 0; k < K; ++k) {
                const std::size_t gi = static_cast<std::size_t>(gridRow + colOf[static_cast<std::size_t>(k)]);
                float v = codes[static_cast<std::size_t>(base + k)];
                if (zp)
                    v = v - p.zeroPoints[gi];
                v = v * p.scales[gi];
                if (outer)
                    v = p.outer * v;
                o[base + k] = v;
            }
        }
    return out;
}

} // namespace quantscope
