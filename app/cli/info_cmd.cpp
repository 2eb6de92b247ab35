// SPDX-License-Identifier: MIT
// `quantscope-cli info`: the tensors of a checkpoint, with statistics on request.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "json/report_json.h"
#include "ggml/ggml_types.h"
#include "io/checkpoint.h"
#include "io/gguf.h"
#include "io/npy.h"
#include "io/npz.h"
#include "io/quantized.h"
#include "numeric/moments.h"
#include "util/error.h"

namespace quantscope::cli {

namespace {

std::string shapeJsonless(const Shape &s)
{
    return "[" + shapeToString(s) + "]";
}

/// One quantized module as an info entry: the logical weight, its scheme and its stored parts.
nlohmann::ordered_json moduleJson(const Checkpoint &ck, const QuantizedModule &m, bool stats, bool perChannel)
{
    nlohmann::ordered_json t;
    const TensorEntry *codes = ck.find(*m.part("codes"));
    t["name"] = m.name;
    t["dtype"] = std::string(nameOf(codes->dtype)); // as stored; the scheme says the element
    t["shape"] = m.shape;                           // logical (decoded) shape
    std::uint64_t bytes = 0;
    nlohmann::ordered_json parts = nlohmann::ordered_json::array();
    for (const auto &[role, name] : m.parts) {
        const TensorEntry *e = ck.find(name);
        bytes += e->nbytes();
        parts.push_back({{"role", role},
                         {"name", e->name},
                         {"dtype", std::string(nameOf(e->dtype))},
                         {"shape", e->shape},
                         {"bytes", e->nbytes()},
                         {"offset", e->fileOffset}});
    }
    t["bytes"] = bytes;
    t["file"] = codes->file.string();
    t["offset"] = codes->fileOffset;
    t["format"] = std::string(formatName(m.format));
    t["scheme"] = m.scheme.toJson();
    t["scheme_text"] = m.scheme.text();
    t["scale_health"] = {{"nan", m.scaleHealth.nan}, {"inf", m.scaleHealth.inf}, {"zero", m.scaleHealth.zero}};
    t["parts"] = std::move(parts);
    if (!m.warnings.empty())
        t["warnings"] = m.warnings;
    if (stats) {
        try {
            const Tensor w = decodeQuantized(ck, m);
            t["stats"] = statsJson(computeStats(w));
            if (perChannel)
                t["per_channel"] = perChannelJson(w);
        } catch (const UnsupportedError &err) {
            t["stats"] = nullptr;
            t["stats_error"] = err.message();
        }
    }
    return t;
}

/// A GGUF file's header facts and metadata: scalars as they are, arrays by element type and count.
nlohmann::ordered_json ggufJson(const GgufFile &g)
{
    static const char *kValueTypes[] = {"UINT8", "INT8",   "UINT16", "INT16",  "UINT32", "INT32",  "FLOAT32",
                                        "BOOL",  "STRING", "ARRAY",  "UINT64", "INT64",  "FLOAT64"};
    nlohmann::ordered_json j;
    j["version"] = g.version();
    j["alignment"] = g.alignment();
    j["architecture"] = g.architecture();
    j["tokenizer"] = g.find("tokenizer.ggml.tokens") != nullptr;
    nlohmann::ordered_json meta = nlohmann::ordered_json::object();
    for (const GgufKeyValue &kv : g.metadata()) {
        if (kv.type == 9)
            meta[kv.key] = {{"array_of", kValueTypes[kv.arrayType]}, {"count", kv.arrayCount}};
        else
            meta[kv.key] = kv.value;
    }
    j["metadata"] = std::move(meta);
    return j;
}

struct InfoOptions {
    std::string path;
    bool stats = false, perChannel = false;
    std::optional<std::string> maxHeaderBytes;
    std::vector<std::string> tensors;
};

int runInfo(const InfoOptions &o, const CommonOptions &common)
{
    const bool json = common.json;
    const bool stats = o.stats;
    const bool perChannel = o.perChannel;
    ReadOptions opts;
    opts.lenient = common.lenient;
    if (o.maxHeaderBytes)
        opts.maxHeaderBytes = static_cast<std::uint64_t>(toInt("--max-header-bytes", *o.maxHeaderBytes));
    const auto &wanted = o.tensors;
    const std::vector<std::string> pos{o.path};
    if (perChannel && !stats)
        throw UsageError("--per-channel needs --stats");

    const Checkpoint ck = Checkpoint::open(pos[0], opts);
    // A module that cannot be decoded is listed with its reason; every other module still opens.
    DetectOptions detect;
    detect.strict = false;
    const Detection det = detectQuantized(ck, detect);
    // Entries to show, in file order: a quantized module once (at its first stored part),
    // plain tensors as they are.
    std::vector<const TensorEntry *> selected;
    std::vector<const QuantizedModule *> modules; // parallel: non-null for a module entry
    std::vector<const QuantizedModule *> shown;
    auto addModule = [&](const QuantizedModule *m) {
        if (std::find(shown.begin(), shown.end(), m) != shown.end())
            return;
        shown.push_back(m);
        selected.push_back(nullptr);
        modules.push_back(m);
    };
    if (wanted.empty()) {
        for (const auto &e : ck.entries()) {
            if (const QuantizedModule *m = det.isPart(e.name) ? det.find(e.name) : nullptr) {
                addModule(m);
                continue;
            }
            selected.push_back(&e);
            modules.push_back(nullptr);
        }
    } else {
        for (const auto &name : wanted) {
            const TensorEntry *e = ck.find(name);
            const QuantizedModule *m = det.find(name);
            if (m && (!e || det.isPart(name))) {
                addModule(m);
                continue;
            }
            if (!e)
                throw FormatError("no tensor of this name in the checkpoint", Location{pos[0], name, {}});
            selected.push_back(e);
            modules.push_back(nullptr);
        }
    }

    nlohmann::ordered_json out;
    out["path"] = pos[0];
    out["tensors"] = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < selected.size(); ++i) {
        if (modules[i]) {
            out["tensors"].push_back(moduleJson(ck, *modules[i], stats, perChannel));
            continue;
        }
        const TensorEntry *e = selected[i];
        nlohmann::ordered_json t;
        t["name"] = e->name;
        t["dtype"] = std::string(nameOf(e->dtype));
        t["shape"] = e->shape;
        t["bytes"] = e->nbytes();
        t["file"] = e->file.string();
        t["offset"] = e->fileOffset;
        t["format"] = "dense";
        if (const GgufFile *g = ck.gguf()) {
            // The dtype is what the tensor reads as (F32 for a block type); ggml_type is as stored.
            const GgufTensorInfo *gi = g->tensorInfo(e->name);
            t["format"] = "gguf";
            t["ggml_type"] = std::string(ggml::typeName(gi->type));
            t["scheme_text"] = ggml::schemeText(gi->type);
            if (const std::string hf = g->hfName(e->name); !hf.empty())
                t["hf_name"] = hf;
        }
        if ((ck.npy() || ck.npz()) && e->shape.size() != 2)
            t["matrix_shape"] = activationMatrixShape(e->shape); // how it is quantized
        if (ck.npz())
            if (const NpzMember *m = ck.npz()->find(e->name))
                t["compression"] = m->compressed() ? "deflate" : "stored";
        if (stats) {
            try {
                const Tensor w = ck.tensor(e->name);
                t["stats"] = statsJson(computeStats(w));
                if (perChannel)
                    t["per_channel"] = perChannelJson(w);
            } catch (const UnsupportedError &err) {
                t["stats"] = nullptr;
                t["stats_error"] = err.message();
            }
        }
        out["tensors"].push_back(std::move(t));
    }
    if (ck.gguf())
        out["gguf"] = ggufJson(*ck.gguf());
    if (!ck.warnings().empty())
        out["warnings"] = ck.warnings();
    if (!det.problems.empty()) {
        out["undecodable"] = nlohmann::ordered_json::array();
        for (const ModuleProblem &p : det.problems)
            out["undecodable"].push_back({{"module", p.module}, {"reason", p.message}});
    }
    for (const ModuleProblem &p : det.problems)
        std::fprintf(stderr, "warning: %s cannot be decoded (its tensors are listed as stored): %s\n", p.module.c_str(),
                     p.message.c_str());

    if (json) {
        std::cout << out.dump(1) << '\n';
        return 0;
    }
    std::printf("%s: %zu tensor%s%s\n", pos[0].c_str(), out["tensors"].size(), out["tensors"].size() == 1 ? "" : "s",
                ck.sharded() ? " (sharded)" : "");
    if (const GgufFile *g = ck.gguf())
        std::printf("GGUF v%u, architecture %s, alignment %llu%s\n", g->version(),
                    g->architecture().empty() ? "(none)" : g->architecture().c_str(),
                    static_cast<unsigned long long>(g->alignment()),
                    g->find("tokenizer.ggml.tokens") ? ", with a tokenizer" : "");
    for (const auto &w : ck.warnings())
        std::printf("warning: %s\n", w.c_str());
    for (const auto &t : out["tensors"]) {
        Shape shape = t["shape"].get<Shape>();
        const bool gguf = t["format"] == "gguf";
        std::printf("  %-60s %-8s %-14s %12llu B", t["name"].get<std::string>().c_str(),
                    (gguf ? t["ggml_type"] : t["dtype"]).get<std::string>().c_str(), shapeJsonless(shape).c_str(),
                    static_cast<unsigned long long>(t["bytes"].get<std::uint64_t>()));
        if (t.contains("stats") && !t["stats"].is_null()) {
            const auto &s = t["stats"];
            auto num = [](const nlohmann::ordered_json &v) {
                return v.is_null() ? std::string("-") : std::to_string(v.get<double>());
            };
            std::printf("  mean %s std %s kurt %s min %s max %s nan %lld inf %lld", num(s["mean"]).c_str(),
                        num(s["std"]).c_str(), num(s["excess_kurtosis"]).c_str(), num(s["min"]).c_str(),
                        num(s["max"]).c_str(), s["nan_count"].get<long long>(), s["inf_count"].get<long long>());
        }
        if (gguf) {
            std::printf("\n      %s%s%s", t.contains("hf_name") ? t["hf_name"].get<std::string>().c_str() : "",
                        t.contains("hf_name") ? ": " : "", t["scheme_text"].get<std::string>().c_str());
        } else if (t["format"] != "dense") {
            const auto &h = t["scale_health"];
            std::printf("\n      %s: %s (scales: %lld NaN, %lld Inf, %lld zero)",
                        t["format"].get<std::string>().c_str(), t["scheme_text"].get<std::string>().c_str(),
                        h["nan"].get<long long>(), h["inf"].get<long long>(), h["zero"].get<long long>());
        }
        std::printf("\n");
    }
    return 0;
}

} // namespace

void addInfoCommand(Commands &c)
{
    auto o = std::make_shared<InfoOptions>();
    CLI::App *cmd = c.add("info",
                          "list the tensors of a checkpoint (.safetensors, sharded folder, .npy, .npz, .gguf), "
                          "quantized modules with their scheme",
                          [o, &c] { return runInfo(*o, c.common()); });
    cmd->add_option("PATH", o->path, "a .safetensors file, a sharded folder or its index, .npy, .npz or .gguf")
        ->required();
    cmd->add_option("--tensor", o->tensors, "only this tensor or module (repeatable)")
        ->type_name("NAME")
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    cmd->add_flag("--stats", o->stats, "statistics of each tensor (moments, kurtosis, percentiles)");
    cmd->add_flag("--per-channel", o->perChannel, "with --stats: per-channel absmax and kurtosis, top outliers");
    cmd->add_option("--max-header-bytes", o->maxHeaderBytes, "the largest safetensors header read (default 100 MB)")
        ->type_name("N");
    c.addCommon(cmd, kJson | kLenient);
    cmd->footer("Examples:\n  quantscope-cli info demo/model-00001-of-00002.safetensors --stats\n"
                "  quantscope-cli info demo/ --tensor model.layers.0.mlp.down_proj.weight --stats --json");
}

} // namespace quantscope::cli
