// SPDX-License-Identifier: MIT
#include "results/session.h"

#include "io/mapped_file.h"
#include "json/json_int.h"
#include "json/report_json.h"

#include "util/error.h"

#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <type_traits>
#include <vector>

namespace quantscope {

namespace {

using json = nlohmann::json;

/// Sessions keep numbers exactly (report_json.h's lossless convention).
json num(double v)
{
    return exactNumber(v);
}

double toNum(const json &j, const char *what)
{
    return numberFromJson(j, what, "session: ");
}

const json &field(const json &j, const char *key)
{
    if (!j.is_object() || !j.contains(key))
        throw FormatError(std::string("session: missing '") + key + "'");
    return j.at(key);
}

/// The integer type of an integer field (T, or the elements of a vector<T>); void otherwise.
template <typename T> struct IntegerOf {
    using type = std::conditional_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, T, void>;
};
template <typename T> struct IntegerOf<std::vector<T>> {
    using type = typename IntegerOf<T>::type;
};

/// Every number of an integer field (or list) must be an integer in range (jsonInteger: nlohmann
/// would cast a float, undefined beyond the range; a fuzz finding, docs/reliability.md).
template <typename I> void requireIntegers(const json &v, const char *key)
{
    if (v.is_array()) {
        for (const auto &e : v)
            requireIntegers<I>(e, key);
        return;
    }
    if (!v.is_number())
        return; // any other type: get() refuses it as the wrong type
    try {
        (void)jsonInteger<I>(v, key);
    } catch (const JsonIntegerError &) {
        throw FormatError(std::string("session: '") + key + "' must hold integers in range, got " + v.dump());
    }
}

template <typename T> T get(const json &j, const char *key)
{
    const json &v = field(j, key);
    if constexpr (!std::is_void_v<typename IntegerOf<T>::type>)
        requireIntegers<typename IntegerOf<T>::type>(v, key);
    try {
        return v.get<T>();
    } catch (const json::exception &) {
        throw FormatError(std::string("session: '") + key + "' has the wrong type");
    }
}

template <typename T> T getOr(const json &j, const char *key, T fallback)
{
    return j.is_object() && j.contains(key) ? get<T>(j, key) : fallback;
}

json channelToJson(const ChannelProfile &p)
{
    return {{"axis", p.axis}, {"absmax", p.absmax}};
}

ChannelProfile channelFromJson(const json &j, int topK)
{
    ChannelProfile p;
    p.axis = get<int>(j, "axis");
    p.absmax = get<std::vector<float>>(j, "absmax");
    rankChannels(p, topK);
    return p;
}

json sourceToJson(const std::optional<SessionSource> &s)
{
    if (!s)
        return nullptr;
    return {{"path", s->path}, {"demo", s->demo}, {"lenient", s->lenient}};
}

std::optional<SessionSource> sourceFromJson(const json &j)
{
    if (j.is_null())
        return std::nullopt;
    SessionSource s;
    s.path = get<std::string>(j, "path");
    s.demo = getOr<bool>(j, "demo", false);
    s.lenient = getOr<bool>(j, "lenient", false);
    return s;
}

} // namespace

json outcomeToJson(const QuantizeOutcome &o)
{
    json j = {{"tensor", o.tensor}, {"config", o.config},          {"spec", o.spec},           {"method", o.method},
              {"device", o.device}, {"device_note", o.deviceNote}, {"time_ms", num(o.timeMs)}, {"error", o.error}};
    if (!o.ok())
        return j;
    j["bits_per_element"] = num(o.bitsPerElement);
    j["bytes"] = o.storedBytes;
    j["ragged"] = o.ragged;
    j["nonfinite_groups"] = o.nonFiniteGroups;
    j["first_nonfinite"] = o.firstNonFinite;
    j["metrics"] = json(metricsJson(o.metrics, MetricsDetail::Full));
    if (o.outputError)
        j["output_error"] = {{"error", num(o.outputError->error)},
                             {"reference", num(o.outputError->reference)},
                             {"relative", num(o.outputError->relative)},
                             {"diagonal", o.outputError->diagonal},
                             {"tokens", o.outputError->tokens}};
    return j;
}

QuantizeOutcome outcomeFromJson(const json &j)
{
    QuantizeOutcome o;
    o.tensor = get<std::string>(j, "tensor");
    o.config = get<std::string>(j, "config");
    o.spec = field(j, "spec");
    o.method = get<std::string>(j, "method");
    o.device = get<std::string>(j, "device");
    o.deviceNote = getOr<std::string>(j, "device_note", {});
    o.timeMs = toNum(field(j, "time_ms"), "time_ms");
    o.error = getOr<std::string>(j, "error", {});
    if (!o.ok())
        return o;
    o.bitsPerElement = toNum(field(j, "bits_per_element"), "bits_per_element");
    o.storedBytes = get<std::uint64_t>(j, "bytes");
    o.ragged = get<bool>(j, "ragged");
    o.nonFiniteGroups = get<std::int64_t>(j, "nonfinite_groups");
    o.firstNonFinite = get<std::int64_t>(j, "first_nonfinite");
    o.metrics = metricsFromJson(field(j, "metrics"), "session: ");
    o.plot = prepareDistribution(o.metrics);
    if (j.contains("output_error")) {
        const json &e = j["output_error"];
        OutputError out;
        out.error = toNum(field(e, "error"), "output_error.error");
        out.reference = toNum(field(e, "reference"), "output_error.reference");
        out.relative = toNum(field(e, "relative"), "output_error.relative");
        out.diagonal = get<bool>(e, "diagonal");
        out.tokens = get<std::int64_t>(e, "tokens");
        o.outputError = out;
    }
    return o;
}

json profileToJson(const TensorProfile &p)
{
    json j = {{"tensor", p.tensor},
              {"shape", p.shape},
              {"dtype", p.dtype},
              {"error", p.error},
              {"top_channels", p.channels.columns.top.size()},
              {"columns", channelToJson(p.channels.columns)},
              {"rows", channelToJson(p.channels.rows)},
              {"activation", p.activation},
              {"activation_note", p.activationNote}};
    j["activation_columns"] = p.activationColumns ? channelToJson(*p.activationColumns) : json(nullptr);
    return j;
}

TensorProfile profileFromJson(const json &j)
{
    TensorProfile p;
    p.tensor = get<std::string>(j, "tensor");
    p.shape = get<Shape>(j, "shape");
    p.dtype = get<std::string>(j, "dtype");
    p.error = getOr<std::string>(j, "error", {});
    const int topK = getOr<int>(j, "top_channels", 8);
    p.channels.columns = channelFromJson(field(j, "columns"), topK);
    p.channels.rows = channelFromJson(field(j, "rows"), topK);
    p.activation = getOr<std::string>(j, "activation", {});
    p.activationNote = getOr<std::string>(j, "activation_note", {});
    if (j.contains("activation_columns") && !j["activation_columns"].is_null())
        p.activationColumns = channelFromJson(j["activation_columns"], topK);
    return p;
}

json sessionToJson(const Session &s)
{
    json configs = json::array();
    for (const auto &c : s.configs)
        configs.push_back({{"name", c.name}, {"spec", c.spec}});
    json tensors = json::array();
    for (const auto &p : s.results.tensors)
        tensors.push_back(profileToJson(p));
    json outcomes = json::array();
    for (const auto &o : s.results.outcomes)
        outcomes.push_back(outcomeToJson(o));
    json out = {{"format", kSessionFormat},
                {"version", kSessionVersion},
                {"checkpoint", sourceToJson(s.checkpoint)},
                {"activation", s.activation},
                {"activation_source", sourceToJson(s.activationSource)},
                {"selected", s.selected},
                {"device", s.device},
                {"bins", s.bins},
                {"symlog", s.symlog},
                {"configurations", configs},
                {"results", {{"tensors", tensors}, {"outcomes", outcomes}, {"warnings", s.results.warnings}}},
                {"view", s.view}};
    if (s.capture)
        out["capture"] = sourceToJson(s.capture);
    if (!s.scanLines.empty()) {
        json lines = json::array();
        for (const auto &l : s.scanLines)
            lines.push_back(json::parse(l.dump()));
        out["scan"] = {{"lines", lines}};
    }
    return out;
}

Session sessionFromJson(const json &j)
{
    if (!j.is_object() || !j.contains("format") || j["format"] != kSessionFormat)
        throw FormatError("not a Quantscope session (no \"format\": \"quantscope-session\")");
    const int version = get<int>(j, "version");
    if (version < 1 || version > kSessionVersion)
        throw FormatError("session version " + std::to_string(version) + " is newer than this Quantscope reads (" +
                          std::to_string(kSessionVersion) + ")");
    Session s;
    s.checkpoint = sourceFromJson(field(j, "checkpoint"));
    s.activation = getOr<std::string>(j, "activation", {});
    if (j.contains("activation_source"))
        s.activationSource = sourceFromJson(j["activation_source"]);
    if (j.contains("capture"))
        s.capture = sourceFromJson(j["capture"]);
    s.selected = getOr<std::vector<std::string>>(j, "selected", {});
    s.device = getOr<std::string>(j, "device", "auto");
    s.bins = getOr<int>(j, "bins", 256);
    s.symlog = getOr<bool>(j, "symlog", false);
    for (const auto &c : field(j, "configurations")) {
        JobConfig config;
        config.name = get<std::string>(c, "name");
        config.spec = field(c, "spec");
        s.configs.push_back(std::move(config));
    }
    const json &r = field(j, "results");
    for (const auto &p : field(r, "tensors"))
        s.results.tensors.push_back(profileFromJson(p));
    for (const auto &o : field(r, "outcomes"))
        s.results.outcomes.push_back(outcomeFromJson(o));
    s.results.warnings = getOr<std::vector<std::string>>(r, "warnings", {});
    if (j.contains("view") && j["view"].is_object())
        s.view = j["view"];
    if (j.contains("scan")) {
        const json &lines = field(field(j, "scan"), "lines");
        if (!lines.is_array())
            throw FormatError("session: scan.lines must be an array");
        for (const auto &l : lines)
            s.scanLines.push_back(nlohmann::ordered_json::parse(l.dump()));
    }
    return s;
}

void saveSessionFile(const std::string &path, const Session &s)
{
    const std::string text = sessionToJson(s).dump(1);
    AtomicFile out(path);
    out.write(text.data(), text.size());
    out.commit();
}

Session loadSessionFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw IoError("cannot open the session", Location{path, {}, {}});
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad())
        throw IoError("cannot read the session", Location{path, {}, {}});
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded())
        throw FormatError("not a Quantscope session (not valid JSON)", Location{path, {}, {}});
    try {
        return sessionFromJson(j);
    } catch (const FormatError &e) {
        throw FormatError(e.message(), Location{path, {}, {}});
    }
}

} // namespace quantscope
