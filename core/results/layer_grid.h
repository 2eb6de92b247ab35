// SPDX-License-Identifier: MIT
#pragma once
/// \file layer_grid.h
/// The Layers view's data: a scan report's module lines arranged as a layer × projection grid
/// (q, k, v, o, gate, up, down; MoE experts aggregated into their projection's cell by the mean,
/// or expanded into a layer × expert grid of one projection), each cell one metric of one spec.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace quantscope {

enum class LayerMetric : std::uint8_t { RelError, SqnrDb, Kurtosis, ResidualRank, BitsPerWeight };
/// "rel. error", "SQNR (dB)", "kurtosis", "residual rank at τ", "bits per weight" (English; the
/// window translates its own labels).
std::string toString(LayerMetric m);

struct LayerCell {
    double value = 0;     ///< NaN when the module has no value for the metric
    bool present = false; ///< a module lies here
    std::string tensor;   ///< the tensor a click opens (the first expert's when aggregated)
    std::string module;   ///< "model.layers.3.mlp.down_proj" or "… experts (8)"
    int members = 0;      ///< modules averaged into the cell
};

struct LayerGrid {
    std::vector<int> layers;                   ///< row labels (layer index), ascending
    std::vector<std::string> columns;          ///< "q", "k", … or "expert 0", …
    std::vector<std::vector<LayerCell>> cells; ///< [row][column]
    std::vector<std::string> specs;            ///< one label per spec index ("int 4b g128", …)
    bool hasExperts = false;
    std::string metric;
    double lo = 0, hi = 0; ///< range of the present finite values
};

/// Builds the grid from module lines (the report's lines after the header). `spec` picks the run;
/// `expandProjection` empty aggregates experts, else ("gate", "up", "down") rows are layers and
/// columns the experts of that projection. Lines without a layer index or a known projection are
/// left out.
LayerGrid prepareLayerGrid(const std::vector<nlohmann::ordered_json> &lines, LayerMetric metric, int spec = 0,
                           const std::string &expandProjection = {});

/// The short label of a spec JSON ("int 4b g128", "fp8 e4m3 tensor", else the method).
std::string specLabel(const nlohmann::ordered_json &spec);

} // namespace quantscope
