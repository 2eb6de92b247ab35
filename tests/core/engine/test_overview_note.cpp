// SPDX-License-Identifier: MIT
// A run whose group (or block) is longer than the tensor's rows is marked: every row is then one
// short group, so its numbers describe no real grouping and must not win a comparison.
#include "results/overview.h"
#include "results/results.h"

#include <gtest/gtest.h>

using namespace quantscope;

namespace {

QuantizeOutcome run(const char *config, nlohmann::json spec, double rel)
{
    QuantizeOutcome o;
    o.tensor = "t";
    o.config = config;
    o.spec = std::move(spec);
    o.metrics.relFrobenius = rel;
    o.metrics.statsIn.finiteCount = 1;
    return o;
}

} // namespace

TEST(OverviewNote, GroupLongerThanARowIsNamed)
{
    const Shape shape{16, 64};
    const auto note = tooSmallNote(run("A", {{"method", "int"}, {"granularity", "group"}, {"group", 128}}, 0.1), shape);
    EXPECT_NE(note.find("128"), std::string::npos) << note;
    EXPECT_NE(note.find("64"), std::string::npos) << note;
    EXPECT_TRUE(
        tooSmallNote(run("B", {{"method", "int"}, {"granularity", "group"}, {"group", 64}}, 0.1), shape).empty());
    EXPECT_FALSE(
        tooSmallNote(run("C", {{"method", "fp8"}, {"granularity", "block"}, {"block", 128}}, 0.1), shape).empty());
    EXPECT_TRUE(tooSmallNote(run("D", {{"method", "int"}, {"granularity", "channel"}}, 0.1), shape).empty());
}

TEST(OverviewNote, PrepareOverviewMarksOnlyTheTooSmallRuns)
{
    QuantizeJobResult r;
    TensorProfile p;
    p.tensor = "t";
    p.shape = {8, 32};
    r.tensors.push_back(p);
    r.outcomes.push_back(run("A", {{"method", "int"}, {"granularity", "group"}, {"group", 128}}, 0.01));
    r.outcomes.push_back(run("B", {{"method", "int"}, {"granularity", "group"}, {"group", 32}}, 0.1));
    const auto d = prepareOverview(r);
    ASSERT_EQ(d.rows.size(), 2u);
    EXPECT_FALSE(d.rows[0].note.empty());
    EXPECT_TRUE(d.rows[1].note.empty());
}
