// SPDX-License-Identifier: MIT
#include "io/capture.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "io/checkpoint.h"
#include "io/gguf.h"
#include "util/error.h"

namespace quantscope {

namespace {

constexpr std::string_view kFormat = "quantscope-capture";

[[noreturn]] void fail(const std::filesystem::path &file, const std::string &what, const std::string &tensor = {})
{
    throw FormatError(what, Location{file.string(), tensor, {}});
}

std::int64_t positiveInt(const SafetensorsFile &f, const char *key, bool required)
{
    const auto it = f.metadata().find(key);
    if (it == f.metadata().end()) {
        if (required)
            fail(f.path(), std::string("capture metadata lacks '") + key + "'");
        return 0;
    }
    std::size_t used = 0;
    long long v = 0;
    try {
        v = std::stoll(it->second, &used);
    } catch (const std::exception &) {
        used = 0;
    }
    if (used != it->second.size() || v <= 0)
        fail(f.path(),
             std::string("capture metadata '") + key + "' must be a positive integer, not '" + it->second + "'");
    return v;
}

/// A JSON metadata value, its keys in file order (the model's module order).
nlohmann::ordered_json metaJson(const SafetensorsFile &f, const char *key)
{
    const auto it = f.metadata().find(key);
    if (it == f.metadata().end())
        return nlohmann::ordered_json::object();
    try {
        nlohmann::ordered_json j = nlohmann::ordered_json::parse(it->second);
        if (!j.is_object())
            fail(f.path(), std::string("capture metadata '") + key + "' must be a JSON object");
        return j;
    } catch (const nlohmann::json::exception &e) {
        fail(f.path(), std::string("capture metadata '") + key + "' is not JSON: " + e.what());
    }
}

std::int64_t intField(const SafetensorsFile &f, const nlohmann::ordered_json &o, const std::string &owner,
                      const char *key, bool allowZero = false)
{
    const auto it = o.find(key);
    if (it == o.end() || !it->is_number_integer() || it->get<std::int64_t>() < (allowZero ? 0 : 1))
        fail(f.path(), "capture entry '" + owner + "': '" + key + "' must be a " +
                           (allowZero ? "non-negative" : "positive") + " integer");
    return it->get<std::int64_t>();
}

/// The tensor `name` must exist, be F32 and have `shape` (a −1 entry takes any extent).
Tensor expectTensor(const SafetensorsFile &f, const std::string &name, const Shape &shape)
{
    const TensorEntry *e = f.find(name);
    if (e == nullptr)
        fail(f.path(), "capture lacks this statistics tensor", name);
    if (e->dtype != DType::F32)
        fail(f.path(), "capture statistics must be F32, not " + std::string(nameOf(e->dtype)), name);
    bool ok = e->shape.size() == shape.size();
    for (std::size_t i = 0; ok && i < shape.size(); ++i)
        ok = shape[i] < 0 || shape[i] == e->shape[i];
    if (!ok)
        fail(f.path(), "capture tensor has shape " + shapeToString(e->shape) + ", expected " + shapeToString(shape),
             name);
    return f.tensor(*e);
}

} // namespace

double InputStats::tensorAbsmax() const
{
    double m = 0;
    for (std::int64_t i = 0; i < absmax.numel(); ++i)
        m = std::max(m, absmax.at(i));
    return m;
}

Capture Capture::open(const std::filesystem::path &path)
{
    Capture c(SafetensorsFile::open(path));
    const SafetensorsFile &f = c.m_file;
    const auto fmt = f.metadata().find("format");
    if (fmt == f.metadata().end() || fmt->second != kFormat)
        fail(path, "not a Quantscope capture: its safetensors metadata has no \"format\": \"quantscope-capture\" "
                   "(write one with `quantscope-cli capture`)");
    const auto ver = f.metadata().find("version");
    if (ver == f.metadata().end() || ver->second != "1")
        fail(path, "capture version '" + (ver == f.metadata().end() ? std::string() : ver->second) +
                       "' is not supported (this build reads version 1)");
    c.m_tokens = positiveInt(f, "tokens", true);
    c.m_samples = positiveInt(f, "samples", false);
    c.m_seq = positiveInt(f, "seq", false);

    const nlohmann::ordered_json modules = metaJson(f, "modules");
    if (modules.empty())
        fail(path, "capture metadata 'modules' lists no module");
    std::set<std::string> checkedPrefixes;
    for (const auto &[name, o] : modules.items()) {
        if (!o.is_object())
            fail(path, "capture entry '" + name + "' must be a JSON object");
        CaptureModule m;
        m.module = name;
        m.inFeatures = intField(f, o, name, "in_features");
        m.outFeatures = intField(f, o, name, "out_features");
        const auto st = o.find("stats");
        m.stats = st != o.end() && st->is_string() ? st->get<std::string>() : name;
        c.m_moduleIndex.emplace(m.module, c.m_modules.size());
        c.m_modules.push_back(std::move(m));
    }
    // Every module's statistics exist with its K; a shared prefix must agree on K.
    std::map<std::string, std::int64_t> prefixK;
    for (const CaptureModule &m : c.m_modules) {
        const auto [it, fresh] = prefixK.emplace(m.stats, m.inFeatures);
        if (!fresh && it->second != m.inFeatures)
            fail(path,
                 "capture modules sharing statistics '" + m.stats + "' disagree on in_features (" +
                     std::to_string(it->second) + " vs " + std::to_string(m.inFeatures) + ")",
                 m.module);
        if (fresh)
            (void)c.inputStats(m.module); // validates shapes and dtypes
    }

    const nlohmann::ordered_json attention = metaJson(f, "attention");
    for (const auto &[name, o] : attention.items()) {
        if (!o.is_object())
            fail(path, "capture attention entry '" + name + "' must be a JSON object");
        CaptureAttention a;
        a.module = name;
        a.layer = static_cast<int>(intField(f, o, name, "layer", true));
        a.numHeads = static_cast<int>(intField(f, o, name, "num_heads"));
        a.numKvHeads = static_cast<int>(intField(f, o, name, "num_kv_heads"));
        a.headDim = static_cast<int>(intField(f, o, name, "head_dim"));
        const auto rope = o.find("rope");
        a.rope = rope != o.end() && rope->is_string() ? rope->get<std::string>() : "post";
        if (a.rope != "post" && a.rope != "pre")
            fail(path, "capture attention entry '" + name + "': rope must be \"post\" or \"pre\"");
        c.m_attentionIndex.emplace(a.module, c.m_attention.size());
        c.m_attention.push_back(std::move(a));
        for (char which : {'k', 'v', 'q'})
            (void)c.attentionTensor(name, which); // validates shapes
    }
    return c;
}

const CaptureModule *Capture::module(std::string_view name) const noexcept
{
    const auto it = m_moduleIndex.find(name);
    return it == m_moduleIndex.end() ? nullptr : &m_modules[it->second];
}

const CaptureAttention *Capture::attentionBlock(std::string_view name) const noexcept
{
    const auto it = m_attentionIndex.find(name);
    return it == m_attentionIndex.end() ? nullptr : &m_attention[it->second];
}

InputStats Capture::inputStats(std::string_view name) const
{
    const CaptureModule *m = module(name);
    if (m == nullptr)
        fail(path(), "the capture has no statistics for module '" + std::string(name) + "'");
    const SafetensorsFile &f = m_file;
    InputStats s;
    s.prefix = m->stats;
    s.k = m->inFeatures;
    const std::string p = m->stats + ".";
    if (f.find(p + "input_gram") != nullptr)
        s.gram = expectTensor(f, p + "input_gram", {s.k, s.k});
    s.gramDiag = expectTensor(f, p + "input_gram_diag", {s.k});
    s.absmax = expectTensor(f, p + "input_absmax", {s.k});
    s.min = expectTensor(f, p + "input_min", {s.k});
    s.max = expectTensor(f, p + "input_max", {s.k});
    if (f.find(p + "input_sample") != nullptr)
        s.sample = expectTensor(f, p + "input_sample", {-1, s.k});
    return s;
}

std::optional<Tensor> Capture::attentionTensor(std::string_view block, char which) const
{
    const CaptureAttention *a = attentionBlock(block);
    if (a == nullptr)
        fail(path(), "the capture has no attention block '" + std::string(block) + "'");
    const std::string name = std::string(block) + "." + which;
    if (m_file.find(name) == nullptr)
        return std::nullopt;
    const std::int64_t heads = which == 'q' ? a->numHeads : a->numKvHeads;
    return expectTensor(m_file, name, {heads, -1, a->headDim});
}

std::string Capture::meta(std::string_view key) const
{
    const auto it = m_file.metadata().find(std::string(key));
    return it == m_file.metadata().end() ? std::string() : it->second;
}

GramMatrix gramMatrixOf(const InputStats &stats, std::int64_t tokens)
{
    GramMatrix g;
    g.k = stats.k;
    g.tokens = tokens;
    g.diagonal = !stats.gram.has_value();
    const Tensor &t = g.diagonal ? stats.gramDiag : *stats.gram;
    std::vector<float> f(static_cast<std::size_t>(t.numel()));
    t.decodeTo(f);
    g.value.assign(f.begin(), f.end());
    return g;
}

Calibration calibrationOf(const Capture &capture, std::string_view module)
{
    const InputStats stats = capture.inputStats(module);
    Calibration c;
    c.module = std::string(module);
    c.source = capture.path().filename().string();
    c.k = stats.k;
    c.tokens = capture.tokens();
    auto doubles = [](const Tensor &t) {
        std::vector<float> f(static_cast<std::size_t>(t.numel()));
        t.decodeTo(f);
        return std::vector<double>(f.begin(), f.end());
    };
    if (stats.gram)
        c.gram = doubles(*stats.gram);
    c.gramDiag = doubles(stats.gramDiag);
    if (stats.sample) {
        c.sampleRows = stats.sample->shape().front();
        c.sample.resize(static_cast<std::size_t>(stats.sample->numel()));
        stats.sample->decodeTo(c.sample);
    }
    return c;
}

bool isCaptureFile(const std::filesystem::path &path)
{
    try {
        const SafetensorsFile f = SafetensorsFile::open(path);
        const auto it = f.metadata().find("format");
        return it != f.metadata().end() && it->second == kFormat;
    } catch (const Error &) {
        return false;
    }
}

std::string moduleOfWeight(std::string_view tensor)
{
    constexpr std::string_view suffix = ".weight";
    if (tensor.size() <= suffix.size() || !tensor.ends_with(suffix))
        return {};
    return std::string(tensor.substr(0, tensor.size() - suffix.size()));
}

bool CapturePairing::matches(std::string_view module) const
{
    return std::find(matched.begin(), matched.end(), module) != matched.end();
}

CapturePairing pairCapture(const std::vector<std::pair<std::string, Shape>> &weights, const Capture &capture)
{
    CapturePairing p;
    std::set<std::string> seen;
    for (const auto &[tensor, shape] : weights) {
        const std::string module = moduleOfWeight(tensor);
        if (module.empty() || shape.size() != 2)
            continue;
        const CaptureModule *m = capture.module(module);
        if (m == nullptr) {
            p.onlyCheckpoint.push_back(module);
            continue;
        }
        seen.insert(module);
        if (m->outFeatures != shape[0] || m->inFeatures != shape[1])
            p.mismatched.push_back(module + ": the checkpoint's weight is " + shapeToString(shape) +
                                   ", the capture saw " + std::to_string(m->outFeatures) + "x" +
                                   std::to_string(m->inFeatures) + " (out x in)");
        else
            p.matched.push_back(module);
    }
    for (const CaptureModule &m : capture.modules())
        if (!seen.contains(m.module))
            p.onlyCapture.push_back(m.module);
    return p;
}

CapturePairing pairCapture(const Checkpoint &ck, const Capture &capture)
{
    // A GGUF file's tensors pair by their Hugging Face names (the names a capture records).
    std::vector<std::pair<std::string, Shape>> weights;
    for (const TensorEntry &e : ck.entries()) {
        std::string name = e.name;
        if (const GgufFile *g = ck.gguf())
            if (std::string hf = g->hfName(e.name); !hf.empty())
                name = std::move(hf);
        weights.emplace_back(std::move(name), e.shape);
    }
    return pairCapture(weights, capture);
}

void checkCaptureShape(const Capture &capture, std::string_view module, const Shape &weightShape)
{
    const CaptureModule *m = capture.module(module);
    if (m == nullptr)
        throw FormatError("the capture has no statistics for module '" + std::string(module) +
                              "' (was it captured from another model?)",
                          Location{capture.path().string(), {}, {}});
    if (weightShape.size() != 2 || weightShape[0] != m->outFeatures || weightShape[1] != m->inFeatures)
        throw FormatError("module '" + std::string(module) + "': the weight is " + shapeToString(weightShape) +
                              " but the capture saw " + std::to_string(m->outFeatures) + "x" +
                              std::to_string(m->inFeatures) + " (out x in)",
                          Location{capture.path().string(), {}, {}});
}

} // namespace quantscope
