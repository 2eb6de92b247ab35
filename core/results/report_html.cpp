// SPDX-License-Identifier: MIT
// The session report as self-contained HTML (report_html.h).
#include "results/report_html.h"

#include "io/checkpoint.h"
#include "util/error.h"
#include "util/hash.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

namespace quantscope {

namespace {

std::string esc(const std::string &s)
{
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string num(double v, int digits = 4)
{
    if (std::isnan(v))
        return "—";
    if (std::isinf(v))
        return v > 0 ? "∞" : "−∞";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

/// The report's eight series colours (the window's light palette, widgets/plots/theme.cpp).
const std::array<const char *, 8> kColours = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                              "#e69f00", "#56b4e9", "#332288", "#8c564b"};

struct SvgSeries {
    std::string name;
    const Series *data;
    std::string colour;
};

/// A line plot as inline SVG: x linear, y linear or log (counts), axes with min/max labels,
/// a legend row above, a title.
std::string svgPlot(const std::string &title, const std::string &xLabel, const std::string &yLabel,
                    const std::vector<SvgSeries> &series, bool logY)
{
    constexpr double W = 640, H = 300, left = 64, right = 12, top = 44, bottom = 40;
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    auto yv = [&](double y) { return logY ? (y > 0 ? std::log10(y) : NAN) : y; };
    for (const auto &s : series)
        for (std::size_t i = 0; i < s.data->size(); ++i) {
            const double y = yv(s.data->y[i]);
            if (!std::isfinite(s.data->x[i]) || !std::isfinite(y))
                continue;
            x0 = std::min(x0, s.data->x[i]);
            x1 = std::max(x1, s.data->x[i]);
            y0 = std::min(y0, y);
            y1 = std::max(y1, y);
        }
    std::ostringstream o;
    o << "<svg class=\"plot\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W << ' ' << H
      << "\" role=\"img\"><title>" << esc(title) << "</title>"
      << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>"
      << "<text x=\"" << left << "\" y=\"16\" font-size=\"13\" font-weight=\"bold\">" << esc(title) << "</text>";
    if (!(x1 > x0) || !(y1 >= y0)) {
        o << "<text x=\"" << left << "\" y=\"" << H / 2 << "\" font-size=\"12\">no data</text></svg>";
        return o.str();
    }
    if (y1 == y0)
        y1 = y0 + 1;
    auto px = [&](double x) { return left + (x - x0) / (x1 - x0) * (W - left - right); };
    auto py = [&](double y) { return H - bottom - (y - y0) / (y1 - y0) * (H - top - bottom); };
    o << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << W - left - right << "\" height=\""
      << H - top - bottom << "\" fill=\"none\" stroke=\"#404040\"/>";
    double lx = left;
    for (const auto &s : series) {
        o << "<rect x=\"" << lx << "\" y=\"24\" width=\"12\" height=\"3\" fill=\"" << s.colour << "\"/>"
          << "<text x=\"" << lx + 16 << "\" y=\"30\" font-size=\"11\">" << esc(s.name) << "</text>";
        lx += 28 + 6.5 * static_cast<double>(s.name.size());
        o << "<polyline fill=\"none\" stroke=\"" << s.colour << "\" stroke-width=\"1.3\" points=\"";
        for (std::size_t i = 0; i < s.data->size(); ++i) {
            const double y = yv(s.data->y[i]);
            if (std::isfinite(s.data->x[i]) && std::isfinite(y))
                o << num(px(s.data->x[i]), 6) << ',' << num(py(y), 6) << ' ';
        }
        o << "\"/>";
    }
    auto yText = [&](double y) { return logY ? "10^" + num(y, 3) : num(y); };
    o << "<text x=\"" << left - 4 << "\" y=\"" << top + 10 << "\" font-size=\"10\" text-anchor=\"end\">" << yText(y1)
      << "</text><text x=\"" << left - 4 << "\" y=\"" << H - bottom << "\" font-size=\"10\" text-anchor=\"end\">"
      << yText(y0) << "</text><text x=\"" << left << "\" y=\"" << H - bottom + 14 << "\" font-size=\"10\">" << num(x0)
      << "</text><text x=\"" << W - right << "\" y=\"" << H - bottom + 14 << "\" font-size=\"10\" text-anchor=\"end\">"
      << num(x1) << "</text><text x=\"" << (left + W - right) / 2 << "\" y=\"" << H - 8
      << "\" font-size=\"11\" text-anchor=\"middle\">" << esc(xLabel) << "</text><text x=\"12\" y=\""
      << (top + H - bottom) / 2 << "\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 12 "
      << (top + H - bottom) / 2 << ")\">" << esc(yLabel) << (logY ? " (log)" : "") << "</text></svg>";
    return o.str();
}

} // namespace

std::string sessionReportHtml(const Session &s, const ReportInfo &info)
{
    std::ostringstream h;
    h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << esc(info.title) << " — "
      << esc(info.checkpointName) << "</title>\n<style>"
      << "body{font-family:sans-serif;margin:2em;max-width:60em;color:#111;background:#fff}"
      << "table{border-collapse:collapse;margin:0.5em 0}th,td{border:1px solid #bbb;padding:2px 6px;"
      << "text-align:right}th{background:#eee}td.l,th.l{text-align:left}pre{background:#f4f4f4;padding:0.5em;"
      << "overflow:auto}.chip{display:inline-block;width:0.8em;height:0.8em;margin-right:0.3em}</style></"
         "head>\n<body>\n";
    h << "<h1>" << esc(info.title) << "</h1>\n<table class=\"meta\">"
      << "<tr><th class=\"l\">Checkpoint</th><td class=\"l\">" << esc(info.checkpointName) << "</td></tr>"
      << "<tr><th class=\"l\">Content hash</th><td class=\"l\"><code>"
      << esc(info.checkpointHash.empty() ? "(checkpoint not found)" : info.checkpointHash) << "</code></td></tr>"
      << "<tr><th class=\"l\">Tensors</th><td class=\"l\">" << s.results.tensors.size() << "</td></tr>"
      << "<tr><th class=\"l\">Written</th><td class=\"l\">" << esc(info.generated) << " by Quantscope "
      << esc(info.version) << "</td></tr></table>\n";
    if (s.results.partial)
        h << "<p><strong>Partial batch:</strong> cancelled; only the runs that finished are here.</p>\n";

    h << "<h2>Configurations</h2>\n<table><tr><th class=\"l\">Label</th><th class=\"l\">Method</th>"
      << "<th class=\"l\">Spec</th></tr>\n";
    for (std::size_t i = 0; i < s.configs.size(); ++i) {
        const auto &c = s.configs[i];
        h << "<tr><td class=\"l\"><span class=\"chip\" style=\"background:" << kColours[i % kColours.size()]
          << "\"></span>" << esc(c.name) << "</td><td class=\"l\">" << esc(c.spec.value("method", std::string()))
          << "</td><td class=\"l\"><code>" << esc(c.spec.dump()) << "</code></td></tr>\n";
    }
    h << "</table>\n";

    if (s.results.outcomes.empty())
        h << "<p>No results in this session yet: run the configurations in the window (select tensors, Run), "
             "save the session and report it again.</p>\n";
    h << "<h2>Results</h2>\n<table><tr><th class=\"l\">Tensor</th><th class=\"l\">Configuration</th>"
      << "<th>Relative error</th><th>SQNR (dB)</th><th>Bits per weight</th><th>Time (ms)</th>"
      << "<th class=\"l\">Device</th><th class=\"l\">Note</th></tr>\n";
    for (const auto &o : s.results.outcomes) {
        h << "<tr><td class=\"l\">" << esc(o.tensor) << "</td><td class=\"l\">" << esc(o.config) << "</td>";
        if (o.ok())
            h << "<td>" << num(o.metrics.relFrobenius) << "</td><td>" << num(o.metrics.sqnrDb) << "</td><td>"
              << num(o.bitsPerElement) << "</td><td>" << num(o.timeMs, 3) << "</td><td class=\"l\">" << esc(o.device)
              << "</td><td class=\"l\">" << esc(o.deviceNote) << "</td></tr>\n";
        else
            h << "<td colspan=\"5\"></td><td class=\"l\">failed: " << esc(o.error) << "</td></tr>\n";
    }
    h << "</table>\n";

    // One distribution and one error histogram per tensor, every configuration in its colour.
    for (const auto &p : s.results.tensors) {
        std::vector<SvgSeries> dist, err;
        const QuantizeOutcome *first = nullptr;
        for (std::size_t i = 0; i < s.configs.size(); ++i) {
            const auto *o = s.results.outcome(p.tensor, s.configs[i].name);
            if (!o || !o->ok())
                continue;
            if (!first) {
                first = o;
                dist.push_back({"W", &o->plot.w, "#404040"});
            }
            const std::string colour = kColours[i % kColours.size()];
            dist.push_back({"Ŵ " + o->config, &o->plot.wHat, colour});
            err.push_back({o->config, &o->plot.err, colour});
        }
        if (!first)
            continue;
        std::string shape;
        for (const auto d : p.shape)
            shape += (shape.empty() ? "" : " × ") + std::to_string(d);
        h << "<h2>" << esc(p.tensor) << "</h2>\n<p>" << esc(p.dtype) << ", " << esc(shape) << "</p>\n"
          << svgPlot(p.tensor + ": W and Ŵ", "value", "count", dist, true) << "\n"
          << svgPlot(p.tensor + ": error W − Ŵ", "error", "count", err, true) << "\n";
    }

    if (!s.scanLines.empty()) {
        h << "<h2>Scan</h2>\n<table><tr><th class=\"l\">Module</th><th class=\"l\">Status</th>"
          << "<th class=\"l\">Rule</th><th class=\"l\">dtype</th></tr>\n";
        for (const auto &line : s.scanLines) {
            const auto str = [&](const char *k) {
                return line.contains(k) && line[k].is_string() ? line[k].get<std::string>() : std::string();
            };
            h << "<tr><td class=\"l\">" << esc(str("module")) << "</td><td class=\"l\">" << esc(str("status"))
              << "</td><td class=\"l\">" << esc(str("rule_name")) << "</td><td class=\"l\">" << esc(str("dtype"))
              << "</td></tr>\n";
        }
        h << "</table>\n";
    }

    if (!info.recipe.is_null()) {
        h << "<h2>Recipe</h2>\n<pre>" << esc(info.recipe.dump(2)) << "</pre>\n";
    }
    h << "</body></html>\n";
    return h.str();
}

std::string checkpointContentHash(const std::filesystem::path &path)
{
    const Checkpoint ck = Checkpoint::open(path);
    std::uint64_t h = kFnv1aBasis;
    std::vector<char> buf(1 << 20);
    for (const auto &f : ck.files()) {
        const std::string name = f.filename().string();
        h = fnv1a64(name, h);
        const auto size = std::filesystem::file_size(f);
        h = fnv1a64(&size, sizeof size, h);
        std::ifstream in(f, std::ios::binary);
        if (!in)
            throw IoError("cannot read the file for its hash", Location{f.string(), {}, {}});
        while (in) {
            in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
            h = fnv1a64(buf.data(), static_cast<std::size_t>(in.gcount()), h);
        }
    }
    char hex[32];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return std::string("fnv1a64:") + hex;
}

} // namespace quantscope
