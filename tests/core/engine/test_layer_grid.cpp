// SPDX-License-Identifier: MIT
// The Layers view's grid (results/layer_grid.h) from hand-made report lines: each module in its
// (layer, projection) cell with its own value, experts averaged or expanded, gaps left empty.
#include "results/layer_grid.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace quantscope;
using ojson = nlohmann::ordered_json;

namespace {

ojson line(const std::string &module, double rel, double sqnr, double kurt, std::optional<int> rank = {})
{
    ojson run = {
        {"spec", {{"method", "int"}, {"bits", 4}, {"granularity", "group"}, {"group", 128}, {"symmetric", true}}},
        {"metrics", {{"rel_frobenius", rel}, {"sqnr_db", sqnr}, {"bits_per_element", 4.25}}}};
    if (rank)
        run["spectrum"] = {{"n_sigma_ge_tau", *rank}};
    return {{"module", module},
            {"tensor", module + ".weight"},
            {"status", "scanned"},
            {"kurtosis", {{"tensor", kurt}}},
            {"runs", ojson::array({run})}};
}

} // namespace

TEST(LayerGrid, OneCellPerLayerAndProjection)
{
    const std::vector<ojson> lines = {line("model.layers.0.self_attn.q_proj", 0.1, 20, 1.5, 7),
                                      line("model.layers.0.mlp.down_proj", 0.2, 14, 3.0),
                                      line("model.layers.2.self_attn.k_proj", 0.3, 10, -0.5), line("lm_head", 9, 9, 9),
                                      line("model.layers.2.input_layernorm", 9, 9, 9)};
    const LayerGrid g = prepareLayerGrid(lines, LayerMetric::RelError);
    ASSERT_EQ(g.layers, (std::vector<int>{0, 2}));
    ASSERT_EQ(g.columns.size(), 7u);
    EXPECT_EQ(g.specs, std::vector<std::string>{"int 4b g128"});
    EXPECT_TRUE(g.cells[0][0].present);
    EXPECT_DOUBLE_EQ(g.cells[0][0].value, 0.1);
    EXPECT_EQ(g.cells[0][0].tensor, "model.layers.0.self_attn.q_proj.weight");
    EXPECT_DOUBLE_EQ(g.cells[0][6].value, 0.2);
    EXPECT_FALSE(g.cells[0][1].present);
    EXPECT_DOUBLE_EQ(g.cells[1][1].value, 0.3);
    EXPECT_DOUBLE_EQ(g.lo, 0.1);
    EXPECT_DOUBLE_EQ(g.hi, 0.3);
    EXPECT_DOUBLE_EQ(prepareLayerGrid(lines, LayerMetric::Kurtosis).cells[0][6].value, 3.0);
    EXPECT_DOUBLE_EQ(prepareLayerGrid(lines, LayerMetric::SqnrDb).cells[1][1].value, 10);
    const LayerGrid rank = prepareLayerGrid(lines, LayerMetric::ResidualRank);
    EXPECT_DOUBLE_EQ(rank.cells[0][0].value, 7);
    EXPECT_TRUE(std::isnan(rank.cells[0][6].value));                                              // no spectrum taken
    EXPECT_TRUE(std::isnan(prepareLayerGrid(lines, LayerMetric::RelError, 1).cells[0][0].value)); // no spec 1
}

TEST(LayerGrid, ExpertsAggregatedByTheMeanOrExpanded)
{
    const std::vector<ojson> lines = {line("model.layers.1.mlp.experts.0.up_proj", 0.1, 0, 0),
                                      line("model.layers.1.mlp.experts.1.up_proj", 0.3, 0, 0),
                                      line("model.layers.1.mlp.experts.2.up_proj", 0.5, 0, 0),
                                      line("model.layers.1.mlp.experts.0.down_proj", 0.7, 0, 0),
                                      line("model.layers.3.block_sparse_moe.experts.1.w3", 0.9, 0, 0)};
    const LayerGrid a = prepareLayerGrid(lines, LayerMetric::RelError);
    EXPECT_TRUE(a.hasExperts);
    ASSERT_EQ(a.layers, (std::vector<int>{1, 3}));
    EXPECT_DOUBLE_EQ(a.cells[0][5].value, (0.1 + 0.3 + 0.5) / 3);
    EXPECT_EQ(a.cells[0][5].members, 3);
    EXPECT_EQ(a.cells[0][5].module, "model.layers.1.mlp.experts.*.up_proj (3)");
    EXPECT_EQ(a.cells[0][5].tensor, "model.layers.1.mlp.experts.0.up_proj.weight");
    EXPECT_DOUBLE_EQ(a.cells[1][5].value, 0.9); // Mixtral's w3 is up
    const LayerGrid e = prepareLayerGrid(lines, LayerMetric::RelError, 0, "up");
    ASSERT_EQ(e.columns, (std::vector<std::string>{"expert 0", "expert 1", "expert 2"}));
    EXPECT_DOUBLE_EQ(e.cells[0][2].value, 0.5);
    EXPECT_DOUBLE_EQ(e.cells[1][1].value, 0.9);
    EXPECT_FALSE(e.cells[1][0].present);
}
