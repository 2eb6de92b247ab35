// SPDX-License-Identifier: MIT
// config.json's quantization_config as the quantized readers use it: compressed-tensors config
// groups (explicit arguments or preset names), format and ignore list; the FP8 checkpoints'
// weight_block_size; Quark's layer / type / global weight specs and export.pack_method.
#include "io/quantized_common.h"

#include <cctype>

#include "util/glob.h"

namespace quantscope::quantized_detail {

namespace {

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
        a.actorder = (it->is_string() && (it->get<std::string>() == "group" || it->get<std::string>() == "dynamic")) ||
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

} // namespace

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
            else if (!t.empty() && std::isupper(static_cast<unsigned char>(t[0])) && t.find('.') == std::string::npos)
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
            if (p.is_string() && (p.get<std::string>() == module || globMatch(p.get<std::string>(), module)))
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
            if (globMatch(pat, module))
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

} // namespace quantscope::quantized_detail
