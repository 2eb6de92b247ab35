// SPDX-License-Identifier: MIT
// quantize flags of the FP4 / two-stage / constOpt methods, and the paired GEMM simulation
// (--activation, --act-quant) that adds "gemm" to quantize's JSON.
#include <filesystem>

#include "cli.h"
#include "io/checkpoint.h"
#include "engine/gemm_device.h"
#include "sim/gemm_sim.h"
#include "util/error.h"

namespace quantscope::cli {

namespace {

/// A nested stage spec: a JSON object, or `key=value,key=value` (true/false, integers and
/// numbers typed, anything else a string).
nlohmann::json parseStage(const std::string &opt, const std::string &text)
{
    if (!text.empty() && text.front() == '{') {
        try {
            return nlohmann::json::parse(text);
        } catch (const nlohmann::json::exception &e) {
            throw UsageError(opt + " is not valid JSON: " + e.what());
        }
    }
    nlohmann::json j = nlohmann::json::object();
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t comma = std::min(text.find(',', pos), text.size());
        const std::string item = text.substr(pos, comma - pos);
        pos = comma + 1;
        if (item.empty())
            continue;
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError(opt + " items are key=value, got '" + item + "'");
        const std::string k = item.substr(0, eq), v = item.substr(eq + 1);
        if (v == "true" || v == "false") {
            j[k] = v == "true";
            continue;
        }
        char *end = nullptr;
        const long long i = std::strtoll(v.c_str(), &end, 10);
        if (!v.empty() && end == v.c_str() + v.size()) {
            j[k] = i;
            continue;
        }
        const double d = std::strtod(v.c_str(), &end);
        if (!v.empty() && end == v.c_str() + v.size())
            j[k] = d;
        else
            j[k] = v;
    }
    return j;
}

} // namespace

bool applyMethodFlags(Args &args, nlohmann::json &spec, const std::string &method)
{
    auto setString = [&](const char *opt, const char *key) {
        if (auto v = args.value(opt))
            spec[key] = *v;
    };
    auto setInt = [&](const char *opt, const char *key) {
        if (auto v = args.value(opt))
            spec[key] = toInt(opt, *v);
    };
    if (method == "mxfp4") {
        setString("--mx-mode", "mode");
        setInt("--group", "group");
        if (args.flag("--strict"))
            spec["strict"] = true;
        return true;
    }
    if (method == "nvfp4") {
        setInt("--group", "group");
        if (args.flag("--strict"))
            spec["strict"] = true;
        return true;
    }
    if (method == "constopt") {
        if (auto v = args.value("--c"))
            spec["c"] = toReal("--c", *v);
        setString("--encoder", "encoder");
        setInt("--rotate", "rotate");
        setInt("--group", "group");
        if (args.flag("--strict"))
            spec["strict"] = true;
        return true;
    }
    if (method == "progressive") {
        if (auto v = args.value("--stage1"))
            spec["stage1"] = parseStage("--stage1", *v);
        nlohmann::json s2 = spec.contains("stage2") ? spec["stage2"] : nlohmann::json::object();
        if (auto v = args.value("--stage2")) {
            const nlohmann::json given = parseStage("--stage2", *v);
            for (const auto &[k, x] : given.items())
                s2[k] = x;
        }
        // The generic flags of the INT quantizer apply to stage 2.
        for (const char *k : {"granularity", "block", "arith", "eps"})
            if (spec.contains(k)) {
                s2[k] = spec[k];
                spec.erase(k);
            }
        if (auto v = args.value("--bits"))
            s2["bits"] = toInt("--bits", *v);
        if (auto g = args.value("--group")) {
            s2["group"] = toInt("--group", *g);
            if (!s2.contains("granularity"))
                s2["granularity"] = "group";
        }
        const bool sym = args.flag("--symmetric"), asym = args.flag("--asymmetric");
        if (sym && asym)
            throw UsageError("--symmetric and --asymmetric exclude each other");
        if (sym || asym)
            s2["symmetric"] = sym;
        if (!s2.empty())
            spec["stage2"] = s2;
        return true;
    }
    return false;
}

std::optional<GemmRequest> takeGemmFlags(Args &args)
{
    const auto act = args.value("--activation");
    const auto aq = args.value("--act-quant");
    if (!act) {
        if (aq)
            throw UsageError("--act-quant needs --activation [FILE:]NAME");
        return std::nullopt;
    }
    GemmRequest r;
    r.activation = *act;
    if (aq && *aq != "none")
        r.actQuant = *aq;
    return r;
}

nlohmann::ordered_json runGemm(const GemmRequest &req, const std::filesystem::path &checkpointPath,
                               const ReadOptions &readOptions, const Tensor &w,
                               const QuantizedTensor &q)
{
    const PairedGemmResult r = runPairedGemm({req.activation, req.actQuant, req.device}, checkpointPath,
                                             readOptions, w, q);
    return gemmSimJson(r.sim, r.activation);
}

} // namespace quantscope::cli
