// SPDX-License-Identifier: MIT
// Two scan reports of one checkpoint (compare.h), and the report's JSON.
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>

#include "json/json_int.h"
#include "compare/compare_detail.h"
#include "results/layer_grid.h"
#include "json/report_json.h"
#include "util/error.h"

namespace quantscope {

using ojson = nlohmann::ordered_json;

namespace {

struct Report {
    ojson header;
    std::vector<std::string> order;
    std::map<std::string, ojson, std::less<>> lines;
};

/// The header and module lines; a torn last line (a killed scan) is left out, a bad line
/// elsewhere is a FormatError naming the report and the line.
Report readReport(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw IoError("cannot open the scan report", Location{path, {}, {}});
    Report r;
    std::string text;
    std::vector<std::string> raw;
    while (std::getline(in, text))
        raw.push_back(std::move(text));
    for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i].empty())
            continue;
        ojson j = ojson::parse(raw[i], nullptr, false);
        if (j.is_discarded() || !j.is_object()) {
            if (i + 1 == raw.size() && i > 0)
                break; // a torn last line
            throw FormatError("line " + std::to_string(i + 1) + " of the scan report is not a JSON object",
                              Location{path, {}, {}});
        }
        if (i == 0) {
            if (!j.contains("quantscope_scan"))
                throw FormatError("not a scan report (no quantscope_scan header)", Location{path, {}, {}});
            r.header = std::move(j);
            continue;
        }
        if (!j.contains("module") || !j["module"].is_string())
            throw FormatError("line " + std::to_string(i + 1) + " of the scan report names no module",
                              Location{path, {}, {}});
        const std::string m = j["module"];
        if (!r.lines.count(m))
            r.order.push_back(m);
        r.lines[m] = std::move(j);
    }
    if (r.header.is_null())
        throw FormatError("empty scan report", Location{path, {}, {}});
    return r;
}

double number(const ojson &j)
{
    if (j.is_number())
        return j.get<double>();
    if (j.is_string()) { // reportNumber's "inf" / "-inf" / "nan"
        const std::string s = j.get<std::string>();
        if (s == "inf")
            return std::numeric_limits<double>::infinity();
        if (s == "-inf")
            return -std::numeric_limits<double>::infinity();
    }
    return std::numeric_limits<double>::quiet_NaN();
}

/// The first run of a scanned line, or null with the reason in `why`.
const ojson *firstRun(const ojson &line, std::string &why)
{
    const std::string status = line.value("status", "");
    if (!line.contains("runs") || !line["runs"].is_array() || line["runs"].empty()) {
        why = "not scanned (" + (status == "error" ? line.value("error", status) : status) + ")";
        return nullptr;
    }
    const ojson &run = line["runs"][0];
    if (run.contains("error")) {
        why = run["error"].is_string() ? run["error"].get<std::string>() : run["error"].dump();
        return nullptr;
    }
    return &run;
}

std::string specDifference(const ojson &a, const ojson &b)
{
    std::string out;
    std::set<std::string> keys;
    for (const auto &[k, v] : a.items())
        keys.insert(k);
    for (const auto &[k, v] : b.items())
        keys.insert(k);
    for (const auto &k : keys) {
        const ojson va = a.contains(k) ? a[k] : ojson(), vb = b.contains(k) ? b[k] : ojson();
        if (va != vb)
            out += (out.empty() ? "" : "; ") + k + " " + (va.is_string() ? va.get<std::string>() : va.dump()) + " vs " +
                   (vb.is_string() ? vb.get<std::string>() : vb.dump());
    }
    return out;
}

ojson optionalNumber(const std::optional<double> &v)
{
    return v ? reportNumber(*v) : ojson();
}

} // namespace

bool isScanReport(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    char head[64] = {};
    in.read(head, sizeof head - 1);
    const std::string s(head, static_cast<std::size_t>(in.gcount()));
    return s.rfind("{\"quantscope_scan\"", 0) == 0;
}

namespace comparedetail {

CompareReport compareScanReports(const std::string &a, const std::string &b, const CompareOptions &options,
                                 const CancelToken *cancel, const CompareProgress &progress)
{
    if (!options.reference.empty())
        throw FormatError("--reference applies to checkpoints; a scan report carries its errors already",
                          Location{options.reference, {}, {}});
    const Report ra = readReport(a), rb = readReport(b);
    CompareReport r;
    r.kind = "scan-reports";
    r.a = a;
    r.b = b;
    if (ra.header.value("checkpoint", "") != rb.header.value("checkpoint", ""))
        r.notes.push_back("the reports name different checkpoints: " + ra.header.value("checkpoint", "?") + " and " +
                          rb.header.value("checkpoint", "?"));
    for (const auto &m : ra.order)
        if (!rb.lines.count(m))
            r.onlyA.push_back(m);
    for (const auto &m : rb.order)
        if (!ra.lines.count(m))
            r.onlyB.push_back(m);
    std::int64_t neither = 0;
    const auto total = static_cast<std::int64_t>(ra.order.size());
    for (std::int64_t i = 0; i < total; ++i) {
        if (cancel)
            cancel->check();
        const std::string &module = ra.order[static_cast<std::size_t>(i)];
        if (progress)
            progress(i, total, module);
        const auto itB = rb.lines.find(module);
        if (itB == rb.lines.end())
            continue;
        const ojson &la = ra.lines.at(module), &lb = itB->second;
        std::string whyA, whyB;
        const ojson *runA = firstRun(la, whyA), *runB = firstRun(lb, whyB);
        if (!runA && !runB && la.value("status", "") != "error" && lb.value("status", "") != "error") {
            ++neither; // excluded or unmatched on both sides: nothing to compare
            continue;
        }
        ModuleComparison mc;
        mc.module = module;
        mc.tensor = la.value("tensor", module + ".weight");
        if (la.contains("shape") && la["shape"].is_array()) {
            try {
                mc.shape = jsonIntegers<std::int64_t>(la["shape"], "shape");
            } catch (const JsonIntegerError &e) {
                throw FormatError(e.what(), Location{{}, module, {}});
            }
        }
        const ojson specA = runA ? runA->value("spec", ojson::object()) : ojson::object();
        const ojson specB = runB ? runB->value("spec", ojson::object()) : ojson::object();
        mc.schemeA = runA ? specLabel(specA) : whyA;
        mc.schemeB = runB ? specLabel(specB) : whyB;
        if (runA && runB) {
            mc.schemeDiff = specDifference(specA, specB);
            mc.errorA = number((*runA)["metrics"].value("rel_frobenius", ojson()));
            mc.errorB = number((*runB)["metrics"].value("rel_frobenius", ojson()));
        } else {
            mc.error = !runA ? "A: " + whyA : "B: " + whyB;
        }
        r.modules.push_back(std::move(mc));
    }
    if (neither > 0)
        r.notes.push_back(std::to_string(neither) + " modules were scanned on neither side (excluded or unmatched)");
    if (progress)
        progress(total, total, "");
    return finish(std::move(r));
}

} // namespace comparedetail

nlohmann::ordered_json CompareReport::toJson() const
{
    ojson mods = ojson::array();
    std::int64_t differing = 0, codesDiffer = 0, codesTotal = 0, errors = 0;
    for (const ModuleComparison &m : modules) {
        ojson j;
        j["module"] = m.module;
        j["tensor"] = m.tensor;
        j["shape"] = m.shape;
        j["scheme_a"] = m.schemeA;
        j["scheme_b"] = m.schemeB;
        j["scheme_diff"] = m.schemeDiff;
        j["same_scheme"] = m.sameScheme;
        j["code_diff"] = optionalNumber(m.codeDiff);
        j["codes_differ"] = m.codesDiffer;
        j["codes_total"] = m.codesTotal;
        if (m.scaleRatio)
            j["scale_ratio"] = {{"min", reportNumber(m.scaleRatio->min)},
                                {"median", reportNumber(m.scaleRatio->median)},
                                {"max", reportNumber(m.scaleRatio->max)},
                                {"count", m.scaleRatio->count},
                                {"skipped", m.scaleRatio->skipped}};
        else
            j["scale_ratio"] = nullptr;
        j["rel_diff"] = optionalNumber(m.relDiff);
        j["error_a"] = optionalNumber(m.errorA);
        j["error_b"] = optionalNumber(m.errorB);
        j["delta"] = m.errorA && m.errorB ? reportNumber(*m.errorA - *m.errorB) : ojson();
        j["error"] = m.error.empty() ? ojson() : ojson(m.error);
        mods.push_back(std::move(j));
        codesDiffer += m.codesDiffer;
        codesTotal += m.codesTotal;
        errors += !m.error.empty();
        differing += m.difference() > 0 || m.codesDiffer > 0 || !m.schemeDiff.empty();
    }
    ojson j;
    j["kind"] = kind;
    j["a"] = a;
    j["b"] = b;
    j["reference"] = reference.empty() ? ojson() : ojson(reference);
    j["summary"] = {{"modules", modules.size()}, {"differing", differing}, {"codes_differ", codesDiffer},
                    {"codes_total", codesTotal}, {"only_a", onlyA.size()}, {"only_b", onlyB.size()},
                    {"errors", errors}};
    j["spearman"] = optionalNumber(spearman);
    j["spearman_modules"] = spearmanModules;
    j["only_a"] = onlyA;
    j["only_b"] = onlyB;
    j["notes"] = notes;
    j["modules"] = std::move(mods);
    return j;
}

} // namespace quantscope
