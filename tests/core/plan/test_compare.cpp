// SPDX-License-Identifier: MIT
// core/compare: a checkpoint against itself, two exports of one recipe that round differently
// (codes counted here from the packed words, independently of the readers), Spearman against a
// counting implementation and known values, and two scan reports.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "compare/compare.h"
#include "export/ct_writer.h"
#include "export/checkpoint_writer.h"
#include "io/checkpoint.h"
#include "io/safetensors.h"
#include "recipe/recipe.h"
#include "util/error.h"

using namespace quantscope;
namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

fs::path stories()
{
    return fs::path(QUANTSCOPE_SHARED_DATA) / "stories260K" / "model.safetensors";
}

Recipe recipeWith(const ojson &spec)
{
    return Recipe::fromJson(ojson{{"quantscope_recipe", 1},
                                  {"rules", ojson::array({{{"patterns", {"*"}}, {"specs", ojson::array({spec})}}})},
                                  {"exclude", ojson::array({{{"pattern", "lm_head"}, {"dialect", "exact"}}})}});
}

/// Spearman by definition, computed differently from the library: each value's average rank is
/// 1 + (values below it) + (other values equal to it) / 2, counted pair by pair; then Pearson's
/// correlation of the ranks.
double spearmanByCounting(const std::vector<double> &x, const std::vector<double> &y)
{
    auto rank = [](const std::vector<double> &v) {
        std::vector<double> r(v.size());
        for (std::size_t i = 0; i < v.size(); ++i) {
            double below = 0, equal = 0;
            for (std::size_t j = 0; j < v.size(); ++j) {
                below += v[j] < v[i];
                equal += j != i && v[j] == v[i];
            }
            r[i] = 1 + below + equal / 2;
        }
        return r;
    };
    const auto rx = rank(x), ry = rank(y);
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < rx.size(); ++i) {
        mx += rx[i] / static_cast<double>(rx.size());
        my += ry[i] / static_cast<double>(ry.size());
    }
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < rx.size(); ++i) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    return sxy / std::sqrt(sxx * syy);
}

/// The unsigned codes of a compressed-tensors `weight_packed` [N, words]: element k of a row at
/// bit k·b of the row's little-endian int32 words (read here from the raw bytes).
std::vector<std::uint32_t> unpackRows(const Tensor &packed, std::int64_t rows, std::int64_t cols, int bits)
{
    const std::int64_t words = packed.shape()[1];
    std::vector<std::uint32_t> w(static_cast<std::size_t>(rows * words));
    std::memcpy(w.data(), packed.data(), w.size() * 4);
    std::vector<std::uint32_t> out(static_cast<std::size_t>(rows * cols));
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t k = 0; k < cols; ++k) {
            const std::int64_t bit = k * bits, word = bit / 32, off = bit % 32;
            std::uint64_t v = w[static_cast<std::size_t>(r * words + word)];
            if (word + 1 < words)
                v |= static_cast<std::uint64_t>(w[static_cast<std::size_t>(r * words + word + 1)]) << 32;
            out[static_cast<std::size_t>(r * cols + k)] = static_cast<std::uint32_t>((v >> off) & ((1u << bits) - 1));
        }
    return out;
}

} // namespace

TEST(Compare, SpearmanMatchesKnownValuesAndACountingImplementation)
{
    // scipy.stats.spearmanr([1,2,3,4,5], [5,6,7,8,7]) = 8/√95 (the two 7s share rank 3.5).
    EXPECT_NEAR(spearmanRank({1, 2, 3, 4, 5}, {5, 6, 7, 8, 7}), 8.0 / std::sqrt(95.0), 1e-15);
    EXPECT_NEAR(spearmanRank({1, 2, 3}, {3, 2, 1}), -1.0, 1e-15);
    EXPECT_NEAR(spearmanRank({0.1, 0.5, 0.2, 0.9}, {1, 7, 3, 20}), 1.0, 1e-15);
    EXPECT_TRUE(std::isnan(spearmanRank({1, 1, 1}, {1, 2, 3})));
    EXPECT_TRUE(std::isnan(spearmanRank({1}, {1})));
    std::mt19937 gen(7);
    std::uniform_int_distribution<int> d(0, 5); // few distinct values: many ties
    for (int trial = 0; trial < 50; ++trial) {
        const std::size_t n = 2 + static_cast<std::size_t>(trial % 17);
        std::vector<double> x(n), y(n);
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = d(gen);
            y[i] = d(gen) + 0.5 * x[i];
        }
        const double want = spearmanByCounting(x, y), got = spearmanRank(x, y);
        if (std::isnan(want))
            EXPECT_TRUE(std::isnan(got));
        else
            EXPECT_NEAR(got, want, 1e-12) << "trial " << trial;
    }
}

TEST(Compare, ACheckpointAgainstItselfDiffersNowhere)
{
    if (!fs::exists(stories()))
        GTEST_SKIP() << stories() << " is absent (set QUANTSCOPE_SHARED_DATA to the shared/data folder)";
    const fs::path dir = fs::temp_directory_path() / "qs_compare_self";
    fs::remove_all(dir);
    exportCheckpoint(stories().string(), recipeWith({{"method", "int"}, {"group", 4}, {"symmetric", false}}),
                     ExportFormat::CompressedTensors, (dir / "ct").string());
    for (const fs::path &p : {stories(), dir / "ct"}) {
        SCOPED_TRACE(p.string());
        CompareOptions o;
        o.reference = p.string();
        std::int64_t calls = 0;
        const CompareReport r = runCompare(p.string(), p.string(), o, nullptr,
                                           [&](std::int64_t, std::int64_t, const std::string &) { ++calls; });
        EXPECT_EQ(r.kind, "checkpoints");
        EXPECT_GT(r.modules.size(), 30u);
        EXPECT_GT(calls, static_cast<std::int64_t>(r.modules.size()));
        EXPECT_TRUE(r.onlyA.empty());
        EXPECT_TRUE(r.onlyB.empty());
        int quantized = 0;
        for (const ModuleComparison &m : r.modules) {
            SCOPED_TRACE(m.module);
            EXPECT_TRUE(m.error.empty()) << m.error;
            EXPECT_TRUE(m.schemeDiff.empty()) << m.schemeDiff;
            ASSERT_TRUE(m.relDiff);
            EXPECT_EQ(*m.relDiff, 0.0);
            ASSERT_TRUE(m.errorA && m.errorB);
            EXPECT_EQ(*m.errorA, 0.0);
            EXPECT_EQ(*m.errorB, 0.0);
            if (m.schemeA.rfind("dense", 0) == 0)
                continue;
            ++quantized;
            ASSERT_TRUE(m.codeDiff);
            EXPECT_EQ(m.codesDiffer, 0);
            EXPECT_EQ(m.codesTotal, m.shape[0] * m.shape[1]);
            ASSERT_TRUE(m.scaleRatio);
            EXPECT_EQ(m.scaleRatio->min, 1.0);
            EXPECT_EQ(m.scaleRatio->max, 1.0);
        }
        EXPECT_EQ(quantized, p == stories() ? 0 : 35);
        EXPECT_EQ(r.toJson()["summary"]["differing"], 0);
    }
    fs::remove_all(dir);
}

// Two exports of one recipe whose specs differ only in how the scaled value is rounded to a code:
// divide (round(x/s), compressed-tensors) against reciprocal (round(x·(1/s)), Quark). The writer
// refuses half_away rounding (compressed-tensors rounds half to even), so this is the rounding
// difference the pack-quantized layout can hold; it differs at the −amax ties of each group.
TEST(Compare, CodeDifferencesEqualACountFromThePackedWords)
{
    if (!fs::exists(stories()))
        GTEST_SKIP() << stories() << " is absent (set QUANTSCOPE_SHARED_DATA to the shared/data folder)";
    const fs::path dir = fs::temp_directory_path() / "qs_compare_round";
    fs::remove_all(dir);
    const ojson spec{{"method", "int"}, {"group", 4}};
    ojson reciprocal = spec;
    reciprocal["scale_apply"] = "reciprocal";
    exportCheckpoint(stories().string(), recipeWith(spec), ExportFormat::CompressedTensors, (dir / "a").string());
    exportCheckpoint(stories().string(), recipeWith(reciprocal), ExportFormat::CompressedTensors, (dir / "b").string());
    CompareOptions o;
    o.reference = stories().string();
    const CompareReport r = runCompare((dir / "a").string(), (dir / "b").string(), o);

    const Checkpoint ca = Checkpoint::open(dir / "a"), cb = Checkpoint::open(dir / "b");
    std::int64_t modulesWithDifferences = 0, checked = 0;
    for (const ModuleComparison &m : r.modules) {
        SCOPED_TRACE(m.module);
        EXPECT_TRUE(m.error.empty()) << m.error;
        if (!ca.find(m.module + ".weight_packed")) {
            EXPECT_FALSE(m.codeDiff); // a dense module on both sides
            EXPECT_EQ(*m.relDiff, 0.0);
            continue;
        }
        const std::int64_t rows = m.shape[0], cols = m.shape[1];
        const auto ua = unpackRows(ca.tensor(m.module + ".weight_packed"), rows, cols, 4);
        const auto ub = unpackRows(cb.tensor(m.module + ".weight_packed"), rows, cols, 4);
        std::int64_t differ = 0;
        for (std::size_t i = 0; i < ua.size(); ++i)
            differ += ua[i] != ub[i];
        EXPECT_TRUE(m.sameScheme);
        EXPECT_EQ(m.codesDiffer, differ);
        EXPECT_EQ(m.codesTotal, rows * cols);
        ASSERT_TRUE(m.codeDiff);
        EXPECT_DOUBLE_EQ(*m.codeDiff, static_cast<double>(differ) / static_cast<double>(rows * cols));
        modulesWithDifferences += differ > 0;
        // Same scales (only the rounding differs), and Ŵ differs exactly where the codes do.
        ASSERT_TRUE(m.scaleRatio);
        EXPECT_EQ(m.scaleRatio->min, 1.0);
        EXPECT_EQ(m.scaleRatio->max, 1.0);
        EXPECT_EQ(*m.relDiff > 0, differ > 0);
        ++checked;
    }
    EXPECT_EQ(checked, 35);
    EXPECT_GT(modulesWithDifferences, 30); // the test can fail: the two exports do differ
    ASSERT_TRUE(r.spearman);
    EXPECT_EQ(r.spearmanModules, static_cast<std::int64_t>(r.modules.size()));
    for (std::size_t i = 1; i < r.modules.size(); ++i)
        EXPECT_GE(r.modules[i - 1].difference(), r.modules[i].difference());
    fs::remove_all(dir);
}

// "Did the toolkit change my codes?": our export against compressed-tensors' own file of the same
// scheme (tests/interop/golden, layers 0–1 of stories260K): no code, scale or Ŵ differs, and the
// modules the golden file lacks are on one side only.
TEST(Compare, OurExportAgainstTheToolkitsFileDiffersNowhere)
{
    const fs::path golden =
        fs::path(QUANTSCOPE_SOURCE_DIR) / "tests/interop/golden/ct_w4a16_group4_sym/model.safetensors";
    if (!fs::exists(stories()) || !fs::exists(golden))
        GTEST_SKIP() << stories() << " or " << golden << " is absent";
    const fs::path dir = fs::temp_directory_path() / "qs_compare_golden";
    fs::remove_all(dir);
    exportCheckpoint(stories().string(), recipeWith({{"method", "int"}, {"group", 4}}), ExportFormat::CompressedTensors,
                     (dir / "ours").string());
    const CompareReport r = runCompare((dir / "ours").string(), golden.string());
    int quantized = 0;
    for (const ModuleComparison &m : r.modules) {
        SCOPED_TRACE(m.module);
        EXPECT_TRUE(m.error.empty()) << m.error;
        EXPECT_EQ(*m.relDiff, 0.0);
        if (!m.codeDiff)
            continue;
        ++quantized;
        EXPECT_EQ(m.codesDiffer, 0);
        EXPECT_EQ(m.scaleRatio->min, 1.0);
        EXPECT_EQ(m.scaleRatio->max, 1.0);
    }
    EXPECT_EQ(quantized, 14);       // layers 0–1 × 7 projections
    EXPECT_EQ(r.onlyA.size(), 22u); // layers 2–4 and lm_head, which the golden file leaves out
    for (const auto &m : r.onlyA)
        EXPECT_TRUE(m.rfind("model.layers.", 0) == 0 || m == "lm_head") << m;
    EXPECT_TRUE(r.onlyB.empty());
    fs::remove_all(dir);
}

// A module one side cannot decode (a scale grid of the wrong shape) is listed with the reader's
// reason, naming it; every other module is still compared.
TEST(Compare, AnUndecodableModuleIsReportedAndTheOthersCompared)
{
    if (!fs::exists(stories()))
        GTEST_SKIP() << stories() << " is absent (set QUANTSCOPE_SHARED_DATA to the shared/data folder)";
    const fs::path dir = fs::temp_directory_path() / "qs_compare_broken";
    fs::remove_all(dir);
    exportCheckpoint(stories().string(), recipeWith({{"method", "int"}, {"group", 4}}), ExportFormat::CompressedTensors,
                     (dir / "good").string());
    const std::string bad = "model.layers.1.mlp.up_proj";
    {
        const Checkpoint good = Checkpoint::open(dir / "good");
        std::vector<std::pair<std::string, Tensor>> tensors;
        for (const TensorEntry &e : good.entries())
            if (e.name == bad + ".weight_scale")
                tensors.emplace_back(
                    e.name, Tensor::fromFloats(
                                {e.shape[0], e.shape[1] + 1},
                                std::vector<float>(static_cast<std::size_t>(e.shape[0] * (e.shape[1] + 1)), 1.0f)));
            else
                tensors.emplace_back(e.name, good.tensor(e.name));
        fs::create_directories(dir / "broken");
        writeSafetensors(dir / "broken" / "model.safetensors", tensors);
        fs::copy_file(dir / "good" / "config.json", dir / "broken" / "config.json");
    }
    const CompareReport r = runCompare((dir / "good").string(), (dir / "broken").string());
    int errors = 0, compared = 0;
    for (const ModuleComparison &m : r.modules) {
        if (m.module == bad) {
            ++errors;
            EXPECT_NE(m.error.find(bad), std::string::npos) << m.error;
            EXPECT_FALSE(m.relDiff);
        } else {
            EXPECT_TRUE(m.error.empty()) << m.module << ": " << m.error;
            EXPECT_EQ(*m.relDiff, 0.0) << m.module;
            ++compared;
        }
    }
    EXPECT_EQ(errors, 1);
    EXPECT_EQ(compared, 36);
    EXPECT_EQ(r.toJson()["summary"]["errors"], 1);
    fs::remove_all(dir);
}

TEST(Compare, ScanReportsModuleByModule)
{
    const fs::path dir = fs::temp_directory_path() / "qs_compare_reports";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const auto line = [](const std::string &module, double rel, int bits) {
        ojson spec{{"method", "int"}, {"bits", bits}, {"granularity", "group"}, {"group", 128}};
        return ojson{{"module", module},
                     {"tensor", module + ".weight"},
                     {"status", "scanned"},
                     {"shape", {8, 256}},
                     {"runs", ojson::array({{{"spec", spec}, {"metrics", {{"rel_frobenius", rel}}}}})}};
    };
    const auto write = [&](const fs::path &p, const std::vector<ojson> &lines, bool torn) {
        std::ofstream f(p);
        f << ojson{{"quantscope_scan", 1}, {"checkpoint", "/x"}}.dump() << '\n';
        for (const auto &l : lines)
            f << l.dump() << '\n';
        if (torn)
            f << R"({"module": "layers.9.q_pr)";
    };
    const std::vector<double> ea{0.10, 0.30, 0.20, 0.05}, eb{0.02, 0.04, 0.05, 0.01};
    std::vector<ojson> la, lb;
    for (int i = 0; i < 4; ++i) {
        la.push_back(line("layers." + std::to_string(i) + ".q_proj", ea[static_cast<std::size_t>(i)], 4));
        lb.push_back(line("layers." + std::to_string(i) + ".q_proj", eb[static_cast<std::size_t>(i)], 8));
    }
    la.push_back(line("layers.5.only_a", 0.1, 4));
    lb.push_back(line("layers.6.only_b", 0.1, 4));
    write(dir / "a.jsonl", la, false);
    write(dir / "b.jsonl", lb, true);
    ASSERT_TRUE(isScanReport((dir / "a.jsonl").string()));
    const CompareReport r = runCompare((dir / "a.jsonl").string(), (dir / "b.jsonl").string());
    EXPECT_EQ(r.kind, "scan-reports");
    ASSERT_EQ(r.modules.size(), 4u);
    EXPECT_EQ(r.onlyA, std::vector<std::string>{"layers.5.only_a"});
    EXPECT_EQ(r.onlyB, std::vector<std::string>{"layers.6.only_b"});
    std::map<std::string, std::pair<double, double>> want;
    for (int i = 0; i < 4; ++i)
        want["layers." + std::to_string(i) + ".q_proj"] = {ea[static_cast<std::size_t>(i)],
                                                           eb[static_cast<std::size_t>(i)]};
    for (const ModuleComparison &m : r.modules) {
        EXPECT_EQ(*m.errorA, want[m.module].first);
        EXPECT_EQ(*m.errorB, want[m.module].second);
        EXPECT_EQ(m.schemeDiff, "bits 4 vs 8");
    }
    EXPECT_EQ(r.modules.front().module, "layers.1.q_proj"); // |0.30 − 0.04| is the largest Δ
    ASSERT_TRUE(r.spearman);
    EXPECT_NEAR(*r.spearman, spearmanByCounting(ea, eb), 1e-12);
    // A checkpoint against a report is refused, naming the checkpoint.
    try {
        runCompare((dir / "a.jsonl").string(), stories().string());
        FAIL() << "mixed kinds accepted";
    } catch (const FormatError &e) {
        EXPECT_NE(std::string(e.what()).find("stories260K"), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}
