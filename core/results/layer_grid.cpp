// SPDX-License-Identifier: MIT
// A scan report as the Layers view's grid (layer_grid.h).
#include "results/layer_grid.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <regex>

namespace quantscope {

namespace {

using ojson = nlohmann::ordered_json;

const std::vector<std::string> kColumns = {"q", "k", "v", "o", "gate", "up", "down"};

/// Projection column of a module's last component (Llama/Qwen names and Mixtral's w1/w3/w2).
int columnOf(const std::string &last)
{
    static const std::map<std::string, int> names = {{"q_proj", 0},    {"k_proj", 1},  {"v_proj", 2},    {"o_proj", 3},
                                                     {"gate_proj", 4}, {"up_proj", 5}, {"down_proj", 6}, {"w1", 4},
                                                     {"w3", 5},        {"w2", 6}};
    const auto it = names.find(last);
    return it == names.end() ? -1 : it->second;
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

double valueOf(const ojson &line, LayerMetric metric, int spec)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (metric == LayerMetric::Kurtosis)
        return line.contains("kurtosis") ? number(line["kurtosis"].value("tensor", ojson())) : nan;
    if (!line.contains("runs") || spec < 0 || static_cast<std::size_t>(spec) >= line["runs"].size())
        return nan;
    const ojson &run = line["runs"][static_cast<std::size_t>(spec)];
    if (run.contains("error"))
        return nan;
    switch (metric) {
    case LayerMetric::RelError:
        return number(run["metrics"].value("rel_frobenius", ojson()));
    case LayerMetric::SqnrDb:
        return number(run["metrics"].value("sqnr_db", ojson()));
    case LayerMetric::BitsPerWeight:
        return number(run["metrics"].value("bits_per_element", ojson()));
    case LayerMetric::ResidualRank:
        return run.contains("spectrum") ? number(run["spectrum"].value("n_sigma_ge_tau", ojson())) : nan;
    case LayerMetric::Kurtosis:
        break;
    }
    return nan;
}

} // namespace

std::string toString(LayerMetric m)
{
    switch (m) {
    case LayerMetric::RelError:
        return "rel. error";
    case LayerMetric::SqnrDb:
        return "SQNR (dB)";
    case LayerMetric::Kurtosis:
        return "kurtosis";
    case LayerMetric::ResidualRank:
        return "residual rank at tau";
    case LayerMetric::BitsPerWeight:
        return "bits per weight";
    }
    return "";
}

std::string specLabel(const ojson &spec)
{
    const std::string method = spec.value("method", "");
    if (method == "int") {
        std::string s = "int " + std::to_string(spec.value("bits", 0)) + "b";
        const std::string g = spec.value("granularity", "");
        s += g == "group" ? " g" + std::to_string(spec.value("group", 0)) : " " + g;
        if (!spec.value("symmetric", true))
            s += " asym";
        return s;
    }
    if (method == "fp8")
        return "fp8 " + spec.value("format", "") + " " + spec.value("granularity", "");
    if (spec.contains("bits"))
        return method + " " + std::to_string(spec.value("bits", 0)) + "b";
    return method;
}

LayerGrid prepareLayerGrid(const std::vector<ojson> &lines, LayerMetric metric, int spec,
                           const std::string &expandProjection)
{
    static const std::regex layerRe(R"((^|.*\.)layers\.(\d+)\.(.*))");
    static const std::regex expertRe(R"(.*experts\.(\d+)\.([^.]+)$)");
    LayerGrid g;
    g.metric = toString(metric);
    const int expandColumn = expandProjection.empty() ? -1 : columnOf(expandProjection + "_proj");
    struct Acc {
        double sum = 0;
        int finite = 0, members = 0;
        std::string tensor, module;
    };
    std::map<int, std::map<int, Acc>> acc; // layer → column → accumulated
    int maxExpert = -1;
    for (const auto &line : lines) {
        if (!line.contains("module"))
            continue;
        if (g.specs.empty() && line.contains("runs"))
            for (const auto &r : line["runs"])
                g.specs.push_back(specLabel(r.value("spec", ojson::object())));
        const std::string module = line["module"];
        std::smatch m;
        if (!std::regex_match(module, m, layerRe))
            continue;
        const int layer = std::stoi(m[2].str());
        const std::string last = module.substr(module.rfind('.') + 1);
        int column = columnOf(last);
        if (column < 0)
            continue;
        std::smatch em;
        const bool expert = std::regex_match(module, em, expertRe);
        g.hasExperts = g.hasExperts || expert;
        std::string cellModule = module;
        if (expandColumn >= 0) {
            if (!expert || column != expandColumn)
                continue;
            column = std::stoi(em[1].str());
            maxExpert = std::max(maxExpert, column);
        } else if (expert) {
            cellModule = module.substr(0, module.size() - em[1].length() - last.size() - 1) + "*." + last;
        }
        Acc &a = acc[layer][column];
        const double v = valueOf(line, metric, spec);
        if (std::isfinite(v)) {
            a.sum += v;
            ++a.finite;
        }
        if (a.members++ == 0) {
            a.tensor = line.value("tensor", "");
            a.module = cellModule;
        }
    }
    if (expandColumn >= 0)
        for (int e = 0; e <= maxExpert; ++e)
            g.columns.push_back("expert " + std::to_string(e));
    else
        g.columns = kColumns;
    bool any = false;
    for (const auto &[layer, cols] : acc) {
        g.layers.push_back(layer);
        std::vector<LayerCell> row(g.columns.size());
        for (const auto &[c, a] : cols) {
            if (c < 0 || static_cast<std::size_t>(c) >= row.size())
                continue;
            LayerCell &cell = row[static_cast<std::size_t>(c)];
            cell.present = true;
            cell.members = a.members;
            cell.tensor = a.tensor;
            cell.module = a.members > 1 ? a.module + " (" + std::to_string(a.members) + ")" : a.module;
            cell.value = a.finite ? a.sum / a.finite : std::numeric_limits<double>::quiet_NaN();
            if (a.finite) {
                g.lo = any ? std::min(g.lo, cell.value) : cell.value;
                g.hi = any ? std::max(g.hi, cell.value) : cell.value;
                any = true;
            }
        }
        g.cells.push_back(std::move(row));
    }
    return g;
}

} // namespace quantscope
