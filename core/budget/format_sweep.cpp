// SPDX-License-Identifier: MIT
// The format sweep of one tensor (format_sweep.h).
#include "budget/format_sweep.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ggml/ggml_quantize.h"
#include "json/report_json.h"
#include "numeric/moments.h"
#include "numeric/hadamard.h"
#include "quant/quant_spec.h"
#include "util/error.h"

namespace quantscope {

using ojson = nlohmann::ordered_json;

namespace {

/// "int4" → ("int", 4); "mxfp4" → ("mxfp4", 0).
std::pair<std::string, int> splitFormat(const std::string &f)
{
    for (const char *p : {"int", "hqq"}) {
        const std::string prefix = p;
        if (f.rfind(prefix, 0) == 0 && f.size() == prefix.size() + 1 && f.back() >= '2' && f.back() <= '8')
            return {prefix, f.back() - '0'};
    }
    if (f == "fp8" || f == "mxfp4" || f == "nvfp4" || f == "constopt")
        return {f, 0};
    if (const auto t = ggml::typeFromName(f); t && ggml::quantizes(*t)) { // llama.cpp's q4_0 … q6_k, iq*
        if (ggml::requiresImportance(*t))
            throw UnsupportedError("sweep format '" + f +
                                   "' needs an importance matrix (llama.cpp refuses it without one) and the sweep has "
                                   "no capture; try iq3_s, iq4_nl, iq4_xs, or quantize --method gguf --type " +
                                   f + " --imatrix --capture CAP.safetensors");
        return {"gguf", 0};
    }
    throw UnsupportedError("unknown sweep format '" + f +
                           "' (int2…int8, hqq2…hqq8, fp8, mxfp4, nvfp4, constopt, q4_0 q4_1 q5_0 q5_1 q8_0 q2_k…q6_k "
                           "tq1_0 tq2_0 iq3_s iq4_nl iq4_xs; mxfp4 is the OCP one)");
}

std::string familyOf(const std::string &kind, int bits)
{
    if (kind == "int")
        return "INT" + std::to_string(bits);
    if (kind == "hqq")
        return "HQQ " + std::to_string(bits) + "-bit";
    if (kind == "fp8")
        return "FP8";
    if (kind == "mxfp4")
        return "MXFP4";
    if (kind == "nvfp4")
        return "NVFP4";
    if (kind == "gguf")
        return "GGUF";
    return "constOpt";
}

double kurtosisOf(const Tensor &t)
{
    const TensorStats s = computeStats(t);
    return s.excessKurtosis ? *s.excessKurtosis : std::numeric_limits<double>::quiet_NaN();
}

} // namespace

std::vector<FormatSweepPoint> formatSweepGrid(const FormatSweepOptions &o)
{
    std::vector<FormatSweepPoint> out;
    for (const bool rot : o.hadamard ? std::vector<bool>{false, true} : std::vector<bool>{false})
        for (const auto &f : o.formats) {
            // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
            const auto kindBits = splitFormat(f);
            const auto &kind = kindBits.first;
            const auto bits = kindBits.second;
            auto add = [&](nlohmann::json spec, std::int64_t group, int axis) {
                FormatSweepPoint p;
                p.format = f;
                p.family = familyOf(kind, bits) + (rot ? " + H" : "");
                p.hadamard = rot;
                p.group = group;
                p.axis = axis;
                if (kind == "constopt" && rot)
                    spec["rotate"] = o.hadamardBlock;
                p.spec = toJson(parseQuantSpec(spec)); // fills in the defaults, validates
                out.push_back(std::move(p));
            };
            if (kind == "fp8") {
                add({{"method", "fp8"}, {"granularity", "channel"}}, 0, -1);
                continue;
            }
            if (kind == "gguf") { // its own block size: no group loop
                const ggml::Type t = *ggml::typeFromName(f);
                nlohmann::json spec{{"method", "gguf"}, {"type", f}};
                if (o.importance && !rot && ggml::isKQuant(t))
                    spec["imatrix"] = true;
                add(spec, ggml::typeInfo(static_cast<std::uint32_t>(t))->blockSize, -1);
                out.back().family = "GGUF " + std::string(ggml::typeName(t)) +
                                    (spec.value("imatrix", false) ? " + imatrix" : "") + (rot ? " + H" : "");
                continue;
            }
            for (const std::int64_t g : o.groups) {
                if (kind == "int")
                    add({{"method", "int"}, {"bits", bits}, {"granularity", "group"}, {"group", g}}, g, -1);
                else if (kind == "hqq")
                    for (const int a : o.axes)
                        add({{"method", "hqq"}, {"bits", bits}, {"group", g}, {"axis", a}}, g, a);
                else
                    add({{"method", kind}, {"group", g}}, g, -1);
            }
        }
    return out;
}

void markPareto(std::vector<FormatSweepPoint> &points)
{
    for (auto &p : points) {
        p.pareto = false;
        if (!p.error.empty())
            continue;
        bool dominated = false;
        for (const auto &q : points) {
            if (&q == &p || !q.error.empty())
                continue;
            if (q.bitsPerWeight <= p.bitsPerWeight && q.mse <= p.mse &&
                (q.bitsPerWeight < p.bitsPerWeight || q.mse < p.mse)) {
                dominated = true;
                break;
            }
        }
        p.pareto = !dominated;
    }
}

FormatSweep runFormatSweep(const Tensor &w, const std::string &name, const FormatSweepOptions &options,
                           const CancelToken &cancel, const StepCallback &step)
{
    if (w.shape().size() != 2)
        throw UnsupportedError("the sweep needs a 2-D weight", Location{{}, name, {}});
    FormatSweep s;
    s.tensor = name;
    s.shape = w.shape();
    s.hadamardBlock = options.hadamardBlock;
    s.kurtosis = kurtosisOf(w);
    s.kurtosisRotated = std::numeric_limits<double>::quiet_NaN();
    std::vector<FormatSweepPoint> grid = formatSweepGrid(options);
    if (options.importance && options.hadamard)
        s.notes.push_back("importance weights (imatrix) for the unrotated K-quant points only: they weight the "
                          "original input channels");
    const std::int64_t N = w.shape()[0], K = w.shape()[1];
    std::optional<Tensor> rotated;
    if (options.hadamard) {
        try {
            checkRotation(options.hadamardBlock, K, name);
            std::vector<float> v(static_cast<std::size_t>(N * K));
            w.decodeTo(v);
            hadamardRows(v, N, K, options.hadamardBlock, options.threads);
            rotated = Tensor::fromFloats(w.shape(), v);
            s.kurtosisRotated = kurtosisOf(*rotated);
        } catch (const UnsupportedError &e) {
            s.notes.push_back(std::string("no rotated points: ") + e.message());
            std::erase_if(grid, [](const FormatSweepPoint &p) { return p.hadamard; });
        }
    }
    // Two jobs: the plain tensor (every unrotated point and constOpt's own rotation), the rotated one.
    for (const bool onRotated : {false, true}) {
        QuantizeJobRequest req;
        req.device = options.device;
        req.threads = options.threads;
        req.profileChannels = false;
        if (!onRotated)
            req.importance = options.importance;
        std::vector<std::size_t> index;
        for (std::size_t i = 0; i < grid.size(); ++i) {
            const bool wantsRotated = grid[i].hadamard && grid[i].format != "constopt";
            if (wantsRotated != onRotated)
                continue;
            req.specs.push_back(JobSpec::parse(std::to_string(i), grid[i].spec));
            index.push_back(i);
        }
        if (index.empty())
            continue;
        const std::string tname = onRotated ? name + " (Hadamard)" : name;
        req.tensors = {tname};
        TensorSource src;
        src.weight = [&](const std::string &) { return onRotated ? *rotated : w; };
        const QuantizeJobResult r = runQuantizeJob(req, src, cancel, step);
        for (const auto &p : r.tensors)
            if (!p.error.empty())
                throw UnsupportedError(p.error, Location{{}, name, {}});
        for (std::size_t k = 0; k < index.size(); ++k) {
            FormatSweepPoint &p = grid[index[k]];
            const QuantizeOutcome *o = r.outcome(tname, std::to_string(index[k]));
            if (!o) {
                p.error = "not run";
                continue;
            }
            if (!o->ok()) {
                p.error = o->error;
                continue;
            }
            p.spec = o->spec;
            p.device = o->device;
            p.bitsPerWeight = o->bitsPerElement;
            p.bytes = o->storedBytes;
            p.mse = o->metrics.mse;
            p.relFrobenius = o->metrics.relFrobenius;
            p.sqnrDb = o->metrics.sqnrDb;
        }
    }
    markPareto(grid);
    s.points = std::move(grid);
    return s;
}

ojson FormatSweep::toJson() const
{
    ojson j;
    j["tensor"] = tensor;
    j["shape"] = shape;
    j["kurtosis"] = reportNumber(kurtosis);
    j["kurtosis_rotated"] = reportNumber(kurtosisRotated);
    j["hadamard_block"] = hadamardBlock;
    j["notes"] = notes;
    ojson pts = ojson::array();
    for (const auto &p : points) {
        ojson pj;
        pj["family"] = p.family;
        pj["format"] = p.format;
        pj["spec"] = ojson::parse(p.spec.dump());
        pj["hadamard"] = p.hadamard;
        pj["group"] = p.group;
        pj["axis"] = p.axis;
        if (p.error.empty()) {
            pj["bits_per_weight"] = p.bitsPerWeight;
            pj["bytes"] = p.bytes;
            pj["mse"] = p.mse;
            pj["rel_frobenius"] = reportNumber(p.relFrobenius);
            pj["sqnr_db"] = reportNumber(p.sqnrDb);
            pj["pareto"] = p.pareto;
            pj["device"] = p.device;
            pj["error"] = nullptr;
        } else {
            pj["error"] = p.error;
        }
        pts.push_back(std::move(pj));
    }
    j["points"] = std::move(pts);
    return j;
}

FormatSweep FormatSweep::fromJson(const nlohmann::json &j)
{
    FormatSweep s;
    try {
        s.tensor = j.at("tensor").get<std::string>();
        s.shape = j.at("shape").get<Shape>();
        s.kurtosis = numberFromJson(j.at("kurtosis"), "kurtosis");
        s.kurtosisRotated = numberFromJson(j.at("kurtosis_rotated"), "kurtosis_rotated");
        s.hadamardBlock = j.at("hadamard_block").get<std::int64_t>();
        s.notes = j.at("notes").get<std::vector<std::string>>();
        for (const auto &pj : j.at("points")) {
            FormatSweepPoint p;
            p.family = pj.at("family").get<std::string>();
            p.format = pj.at("format").get<std::string>();
            p.spec = pj.at("spec");
            p.hadamard = pj.at("hadamard").get<bool>();
            p.group = pj.at("group").get<std::int64_t>();
            p.axis = pj.at("axis").get<int>();
            if (!pj.at("error").is_null()) {
                p.error = pj["error"].get<std::string>();
            } else {
                p.bitsPerWeight = pj.at("bits_per_weight").get<double>();
                p.bytes = pj.at("bytes").get<std::uint64_t>();
                p.mse = pj.at("mse").get<double>();
                p.relFrobenius = numberFromJson(pj.at("rel_frobenius"), "rel_frobenius");
                p.sqnrDb = numberFromJson(pj.at("sqnr_db"), "sqnr_db");
                p.pareto = pj.at("pareto").get<bool>();
                p.device = pj.at("device").get<std::string>();
            }
            s.points.push_back(std::move(p));
        }
    } catch (const nlohmann::json::exception &e) {
        throw FormatError(std::string("not a format sweep: ") + e.what());
    }
    return s;
}

} // namespace quantscope
