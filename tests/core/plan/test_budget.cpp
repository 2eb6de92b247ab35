// SPDX-License-Identifier: MIT
// The bit budget (core/budget): the exact solver against exhaustive search, the budget bound,
// infeasible budgets, the recipe it writes, and the MiLo rank policies (docs/toolkits.md §5.4).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "budget/budget.h"
#include "budget/rank_policy.h"
#include "export/checkpoint_writer.h"
#include "export/config_export.h"
#include "recipe/recipe.h"
#include "recipe/recipe_check.h"
#include "util/error.h"

using namespace quantscope;

namespace {

/// Random instance: sizes drawn from a few scales so that the GCD is sometimes > 1.
std::vector<BudgetModule> randomInstance(std::mt19937_64 &rng, int maxModules, int maxCands)
{
    std::uniform_int_distribution<int> nm(1, maxModules), nc(1, maxCands), scale(0, 3);
    std::uniform_int_distribution<int> sz(1, 200);
    std::uniform_real_distribution<double> err(0.0, 100.0);
    const std::uint64_t unit = std::vector<std::uint64_t>{1, 2, 8, 64}[static_cast<std::size_t>(scale(rng))];
    std::vector<BudgetModule> mods(static_cast<std::size_t>(nm(rng)));
    for (std::size_t i = 0; i < mods.size(); ++i) {
        mods[i].module = "m" + std::to_string(i);
        mods[i].numel = 1000;
        const int n = nc(rng);
        for (int c = 0; c < n; ++c) {
            BudgetCandidate cand;
            cand.bytes = unit * static_cast<std::uint64_t>(sz(rng));
            // Sometimes exact ties in error, sometimes a dominated candidate.
            cand.error = (c > 0 && rng() % 5 == 0) ? mods[i].candidates.back().error : std::round(err(rng) * 8) / 8;
            cand.label = "c" + std::to_string(c);
            mods[i].candidates.push_back(cand);
        }
    }
    return mods;
}

/// Exhaustive search: the least error within the budget (nullopt: infeasible).
std::optional<double> exhaustive(const std::vector<BudgetModule> &mods, std::uint64_t budget)
{
    std::vector<std::size_t> idx(mods.size(), 0);
    std::optional<double> best;
    while (true) {
        std::uint64_t b = 0;
        double e = 0;
        for (std::size_t i = 0; i < mods.size(); ++i) {
            b += mods[i].candidates[idx[i]].bytes;
            e += mods[i].candidates[idx[i]].error;
        }
        if (b <= budget && (!best || e < *best))
            best = e;
        std::size_t i = 0;
        while (i < mods.size() && ++idx[i] == mods[i].candidates.size())
            idx[i++] = 0;
        if (i == mods.size())
            break;
    }
    return best;
}

std::uint64_t sumBytes(const std::vector<BudgetModule> &mods, bool largest)
{
    std::uint64_t s = 0;
    for (const auto &m : mods) {
        std::uint64_t v = largest ? 0 : ~0ull;
        for (const auto &c : m.candidates)
            v = largest ? std::max(v, c.bytes) : std::min(v, c.bytes);
        s += v;
    }
    return s;
}

} // namespace

TEST(Budget, EqualsExhaustiveSearchOnRandomInstances)
{
    std::mt19937_64 rng(20261125);
    int feasible = 0, infeasible = 0;
    for (int t = 0; t < 300; ++t) {
        const auto mods = randomInstance(rng, 10, 4);
        const std::uint64_t lo = sumBytes(mods, false), hi = sumBytes(mods, true);
        // Budgets below the minimum, inside the range, and above the maximum.
        std::uniform_int_distribution<std::uint64_t> pick(lo > 20 ? lo - 20 : 0, hi + 20);
        const std::uint64_t budget = pick(rng);
        const auto ref = exhaustive(mods, budget);
        for (const bool bnb : {false, true}) {
            BudgetOptions o;
            o.forceBranchAndBound = bnb;
            if (!ref) {
                EXPECT_THROW(solveBudget(mods, budget, o), UnsupportedError) << "instance " << t;
                continue;
            }
            const BudgetSolution s = solveBudget(mods, budget, o);
            EXPECT_EQ(s.method, bnb ? "branch-and-bound" : "dp");
            EXPECT_LE(s.bytes, budget) << "instance " << t;
            EXPECT_NEAR(s.error, *ref, 1e-9 * std::max(1.0, *ref)) << "instance " << t << (bnb ? " b&b" : " dp");
            // The reported totals are those of the choice.
            const BudgetSolution e = evaluateChoice(mods, s.choice);
            EXPECT_EQ(e.bytes, s.bytes);
            EXPECT_DOUBLE_EQ(e.error, s.error);
        }
        (ref ? feasible : infeasible)++;
    }
    EXPECT_GE(feasible, 200);
    EXPECT_GE(infeasible, 1);
}

TEST(Budget, DynamicProgrammeAndBranchAndBoundAgreeOnLargerInstances)
{
    std::mt19937_64 rng(7);
    for (int t = 0; t < 20; ++t) {
        auto mods = randomInstance(rng, 40, 6);
        const std::uint64_t lo = sumBytes(mods, false), hi = sumBytes(mods, true);
        const std::uint64_t budget = lo + (hi - lo) * static_cast<std::uint64_t>(t + 1) / 22;
        BudgetOptions dp, bb;
        bb.forceBranchAndBound = true;
        const auto a = solveBudget(mods, budget, dp), b = solveBudget(mods, budget, bb);
        EXPECT_NEAR(a.error, b.error, 1e-9 * std::max(1.0, a.error));
        EXPECT_LE(a.bytes, budget);
        EXPECT_LE(b.bytes, budget);
        // A tiny table limit sends the default solver to branch and bound.
        BudgetOptions tiny;
        tiny.maxDpCells = 0;
        const auto c = solveBudget(mods, budget, tiny);
        EXPECT_EQ(c.method, "branch-and-bound");
        EXPECT_NEAR(c.error, a.error, 1e-9 * std::max(1.0, a.error));
    }
}

TEST(Budget, BranchAndBoundHandlesHundredsOfModules)
{
    // Quantizer-like candidates (more bytes, less error, diminishing returns) on 300 modules:
    // branch and bound, seeded with the LP greedy and pruned by the LP bound, equals the DP.
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> scale(0.5, 2.0);
    std::vector<BudgetModule> mods(300);
    for (std::size_t i = 0; i < mods.size(); ++i) {
        mods[i].module = "m" + std::to_string(i);
        const double s = scale(rng);
        const std::uint64_t n = 64 + 8 * (i % 5);
        for (int bits : {2, 3, 4, 8})
            mods[i].candidates.push_back({{},
                                          "",
                                          s * std::ldexp(1.0, -2 * bits) * static_cast<double>(n),
                                          n * static_cast<std::uint64_t>(bits) + 16,
                                          0,
                                          -1});
    }
    const std::uint64_t lo = sumBytes(mods, false), hi = sumBytes(mods, true);
    for (const double f : {0.1, 0.37, 0.8}) {
        const std::uint64_t budget = lo + static_cast<std::uint64_t>(f * static_cast<double>(hi - lo));
        BudgetOptions bb;
        bb.forceBranchAndBound = true;
        const auto a = solveBudget(mods, budget), b = solveBudget(mods, budget, bb);
        EXPECT_EQ(a.method, "dp");
        EXPECT_NEAR(a.error, b.error, 1e-9 * a.error) << f;
        EXPECT_LE(b.bytes, budget);
    }
}

TEST(Budget, GcdMakesTheTableExactAndSmall)
{
    // Sizes in multiples of 4096 bytes around a large base: the table has few columns.
    std::vector<BudgetModule> mods(3);
    for (int i = 0; i < 3; ++i) {
        mods[static_cast<std::size_t>(i)].module = "m" + std::to_string(i);
        for (int c = 0; c < 3; ++c)
            mods[static_cast<std::size_t>(i)].candidates.push_back(
                {{}, "", 10.0 / (c + 1) + i, 1000000 + 4096ull * static_cast<std::uint64_t>(c * (i + 1)), 0, -1});
    }
    const auto s = solveBudget(mods, 3000000 + 4096 * 3, {});
    EXPECT_EQ(s.gcd, 4096u);
    EXPECT_EQ(s.method, "dp");
    EXPECT_NEAR(s.error, *exhaustive(mods, 3000000 + 4096 * 3), 1e-12);
}

TEST(Budget, InfeasibleBudgetSaysWhatIsNeeded)
{
    std::vector<BudgetModule> mods(1);
    mods[0].module = "a";
    mods[0].candidates.push_back({{}, "", 1.0, 500, 0, -1});
    try {
        solveBudget(mods, 499);
        FAIL() << "no error";
    } catch (const UnsupportedError &e) {
        EXPECT_NE(std::string(e.what()).find("budget too small"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("500 bytes"), std::string::npos) << e.what();
    }
    EXPECT_THROW(solveBudget(std::vector<BudgetModule>{}, 1000), UnsupportedError);
    EXPECT_EQ(bytesForBitsPerWeight("4.25", 1000), 531u);
    EXPECT_EQ(bytesForMegabytes("1.5"), 1500000u);
    EXPECT_THROW(bytesForBitsPerWeight("-1", 10), UnsupportedError);
}

TEST(Budget, ReportToRecipeResolvesEveryModuleToItsChoice)
{
    // A two-module report with three specs each, one module excluded.
    nlohmann::json header = {
        {"quantscope_scan", 1},
        {"checkpoint", "/x"},
        {"recipe", {{"exclude", nlohmann::json::array({{{"pattern", "lm_head"}, {"dialect", "exact"}}})}}}};
    auto spec = [](int bits, int group) {
        return toJson(parseQuantSpec({{"method", "int"}, {"bits", bits}, {"group", group}}));
    };
    std::vector<nlohmann::json> lines;
    for (int m = 0; m < 2; ++m) {
        nlohmann::json l = {{"module", "layer" + std::to_string(m)},
                            {"status", "scanned"},
                            {"shape", {64, 128}},
                            {"kurtosis", {{"tensor", 0.5}}}};
        for (int bits : {2, 4, 8})
            l["runs"].push_back(
                {{"spec", spec(bits, 64)},
                 {"metrics", {{"mse", std::ldexp(1.0, -2 * bits) * (m + 1)}, {"bytes", 64 * 128 * bits / 8 + 256}}}});
        lines.push_back(l);
    }
    lines.push_back({{"module", "lm_head"}, {"status", "excluded"}});
    lines.push_back({{"module", "vision.proj"}, {"status", "unmatched"}});
    const BudgetProblem p = budgetProblemFromLines(header, lines);
    ASSERT_EQ(p.modules.size(), 2u);
    ASSERT_EQ(p.leftOut.size(), 2u);
    EXPECT_EQ(p.modules[0].numel, 8192u);
    // 4 + 8 bits fit, 8 + 8 do not: module 1 (more error) gets 8 bits.
    const std::uint64_t budget = 4096 + 8192 + 512;
    const BudgetSolution s = solveBudget(p.modules, budget);
    EXPECT_EQ(s.choice, (std::vector<int>{1, 2}));
    const Recipe r = Recipe::fromJson(budgetRecipeJson(p, s));
    for (std::size_t i = 0; i < 2; ++i) {
        const RecipeMatch m = matchModule(r, p.modules[i].module);
        ASSERT_TRUE(m.matched());
        ASSERT_EQ(m.specs.size(), 1u);
        EXPECT_EQ(toJson(m.specs[0]), p.modules[i].candidates[static_cast<std::size_t>(s.choice[i])].spec);
    }
    EXPECT_TRUE(matchModule(r, "lm_head").excluded);
    // What the budget did not price is excluded; a module the report never listed falls to the
    // catch-all rule (last, `*`) that toolkit configs need.
    EXPECT_TRUE(matchModule(r, "vision.proj").excluded);
    ASSERT_EQ(r.rules.size(), 2u);
    EXPECT_EQ(r.rules.back().patterns, std::vector<std::string>{"*"});
    EXPECT_EQ(matchModule(r, "another.module").rule, 1);
    EXPECT_EQ(r.metadata["budget"]["predicted_bytes"].get<std::uint64_t>(), s.bytes);
    // Weighted: a weight of 0 on module 1 moves the bytes to module 0.
    const std::vector<std::pair<std::string, double>> w = {{"layer0", 1.0}, {"layer1", 0.0}};
    const BudgetProblem pw = budgetProblemFromLines(header, lines, &w);
    EXPECT_EQ(solveBudget(pw.modules, budget).choice, (std::vector<int>{2, 0}));
    const std::vector<std::pair<std::string, double>> missing = {{"layer0", 1.0}};
    EXPECT_THROW(budgetProblemFromLines(header, lines, &missing), FormatError);
    EXPECT_THROW(budgetProblemFromLines(nlohmann::json::object(), lines), FormatError);
}

TEST(RankPolicy, DefinitionsOfQuantizersMd)
{
    const std::vector<RankPolicyModule> mods = {
        {"model.layers.0.self_attn.q_proj", 5.0}, {"model.layers.0.mlp.experts.0.w1", 0.4}, // k' = 0 → 0
        {"model.layers.0.mlp.experts.1.w1", 2.5}, // k' = 2 (half to even) → 2^(2+off)
        {"model.layers.0.mlp.experts.2.w1", 3.5}, // k' = 4
        {"model.layers.0.mlp.experts.3.w2", 9.6}, // k' = 10 → 1024
        {"model.layers.0.mlp.experts.0.w2", 9.4}, // k' = 9 → 2^(9+off)
    };
    EXPECT_EQ(assignRanks(parseRankPolicy("uniform:8"), mods), std::vector<int>(6, 8));
    EXPECT_EQ(assignRanks(parseRankPolicy("dense:32"), mods), (std::vector<int>{32, 0, 0, 0, 0, 0}));
    EXPECT_EQ(assignRanks(parseRankPolicy("sparse:16"), mods), (std::vector<int>{0, 16, 16, 16, 16, 16}));
    EXPECT_EQ(assignRanks(parseRankPolicy("kurtosis:16,dense=64"), mods),
              (std::vector<int>{64, 0, 16, 64, 1024, 2048}));
    EXPECT_EQ(assignRanks(parseRankPolicy("kurtosis:32"), mods), (std::vector<int>{32, 0, 32, 128, 1024, 4096}));
    EXPECT_THROW(parseRankPolicy("kurtosis:24"), UnsupportedError);
    EXPECT_THROW(parseRankPolicy("fancy:16"), UnsupportedError);
    EXPECT_THROW(parseRankPolicy("uniform:x"), UnsupportedError);
    // Frequency: layer 0 has 4 experts with counts 10, 30, 40, 20 (Σ 100): r·4·f/Σ.
    const std::map<std::string, double> f = {{"model.layers.0.mlp.experts.0", 10},
                                             {"model.layers.0.mlp.experts.1", 30},
                                             {"model.layers.0.mlp.experts.2", 40},
                                             {"model.layers.0.mlp.experts.3", 20}};
    // 16·4·0.1 = 6.4 → 6; 0.3 → 19.2 → 19; 0.4 → 25.6 → 26; 0.2 → 12.8 → 13.
    EXPECT_EQ(assignRanks(parseRankPolicy("frequency:16,dense=4"), mods, f), (std::vector<int>{4, 6, 19, 26, 13, 6}));
    EXPECT_THROW(assignRanks(parseRankPolicy("frequency:16"), mods, {}), UnsupportedError);
    EXPECT_EQ(expertKey("model.layers.3.mlp.experts.12.down_proj"), "model.layers.3.mlp.experts.12");
    EXPECT_EQ(expertKey("model.layers.3.mlp.down_proj"), "");
}

TEST(RankPolicy, ReadsFrequenciesAsJsonAndCsv)
{
    const auto dir = std::filesystem::temp_directory_path() / "qs_budget_freq";
    std::filesystem::create_directories(dir);
    {
        std::ofstream(dir / "f.json") << R"({"model.layers.1.mlp.experts.0": 5, "model.layers.1.mlp.experts.1": 7})";
        std::ofstream(dir / "f.csv") << "layer,expert,count\n1,0,5\n1,1,7\n";
        std::ofstream(dir / "bad.csv") << "layer,expert,count\n1,0,5\n1;1;7\n";
    }
    const auto a = readExpertFrequencies((dir / "f.json").string());
    const auto b = readExpertFrequencies((dir / "f.csv").string());
    EXPECT_EQ(a, b);
    EXPECT_EQ(a.at("model.layers.1.mlp.experts.1"), 7);
    try {
        readExpertFrequencies((dir / "bad.csv").string());
        FAIL();
    } catch (const FormatError &e) {
        EXPECT_NE(std::string(e.what()).find("bad.csv"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos);
    }
    std::filesystem::remove_all(dir);
}

TEST(Budget, MegabytesAndBitsPerWeightConvertExactly)
{
    // Binary floating point gives floor(2.01 · 1e6) = 2009999; the budget is 2010000 bytes.
    EXPECT_EQ(bytesForMegabytes("2.01"), 2010000u);
    EXPECT_EQ(bytesForMegabytes("2.010000"), 2010000u);
    EXPECT_EQ(bytesForMegabytes("201e-2"), 2010000u);
    EXPECT_EQ(bytesForMegabytes("0.0000019"), 1u); // a part of a byte is dropped
    EXPECT_EQ(bytesForMegabytes("18446744073709.551615"), 18446744073709551615ull);
    EXPECT_THROW(bytesForMegabytes("18446744073709.551616"), UnsupportedError);
    EXPECT_THROW(bytesForMegabytes("0"), UnsupportedError);
    EXPECT_THROW(bytesForMegabytes("-1"), UnsupportedError);
    EXPECT_THROW(bytesForMegabytes("1.5MB"), UnsupportedError);
    EXPECT_THROW(bytesForMegabytes("nan"), UnsupportedError);
    // 4.1 bits over 10⁶ weights: 512500 bytes exactly (4.1 · 10⁶ / 8).
    EXPECT_EQ(bytesForBitsPerWeight("4.1", 1000000), 512500u);
    EXPECT_EQ(bytesForBitsPerWeight("4.35", 8), 4u);
}

TEST(Budget, BudgetExactlyAtTheBoundaryIsMet)
{
    // Two modules; the better choice needs exactly 2010000 bytes, one byte more than
    // floor(2.01 · 1e6) in doubles: `--mb 2.01` must reach it.
    std::vector<BudgetModule> mods(2);
    for (std::size_t i = 0; i < 2; ++i) {
        mods[i].module = "m" + std::to_string(i);
        mods[i].numel = 1000000;
        mods[i].candidates = {{{}, "small", 10.0, 500000, 0, -1}, {{}, "large", 1.0, 1005000, 0, -1}};
    }
    const std::uint64_t budget = bytesForMegabytes("2.01");
    const BudgetSolution s = solveBudget(mods, budget);
    EXPECT_EQ(s.bytes, 2010000u);
    EXPECT_EQ(s.choice, (std::vector<int>{1, 1}));
    EXPECT_EQ(solveBudget(mods, budget - 1).choice.size(), 2u);
    EXPECT_GT(solveBudget(mods, budget - 1).error, s.error);
}

namespace {

nlohmann::json fullSpec(nlohmann::json j)
{
    return toJson(parseQuantSpec(j));
}

/// A report of one attention + MLP layer, lm_head and embeddings, every module scanned with INT4,
/// INT8, MiLo, HQQ and constOpt; MiLo and HQQ are the cheapest good choices, and v_proj is the
/// module that wants INT8 most.
std::pair<nlohmann::json, std::vector<nlohmann::json>> mixedReport()
{
    const std::vector<std::pair<nlohmann::json, double>> specs = {
        {fullSpec({{"method", "int"}, {"bits", 4}, {"group", 128}}), 4.25},
        {fullSpec({{"method", "int"}, {"bits", 8}, {"granularity", "channel"}}), 8.1},
        {fullSpec({{"method", "milo"}}), 3.5},
        {fullSpec({{"method", "hqq"}}), 4.5},
        {fullSpec({{"method", "constopt"}}), 4.5},
    };
    const std::vector<double> mse = {1e-3, 1e-6, 1e-4, 2e-4, 3e-4};
    nlohmann::json header = {{"quantscope_scan", 1}, {"checkpoint", "/x"}, {"recipe", nlohmann::json::object()}};
    std::vector<nlohmann::json> lines;
    const std::vector<std::string> names = {"model.embed_tokens",
                                            "model.layers.0.self_attn.q_proj",
                                            "model.layers.0.self_attn.k_proj",
                                            "model.layers.0.self_attn.v_proj",
                                            "model.layers.0.self_attn.o_proj",
                                            "model.layers.0.mlp.gate_proj",
                                            "model.layers.0.mlp.up_proj",
                                            "model.layers.0.mlp.down_proj",
                                            "lm_head"};
    for (const auto &n : names) {
        nlohmann::json l = {
            {"module", n}, {"status", "scanned"}, {"shape", {256, 256}}, {"dtype", "BF16"}, {"format", "dense"}};
        const double scale = n.find("v_proj") != std::string::npos ? 100.0 : 1.0;
        for (std::size_t k = 0; k < specs.size(); ++k)
            l["runs"].push_back(
                {{"spec", specs[k].first},
                 {"metrics",
                  {{"mse", mse[k] * scale}, {"bytes", static_cast<std::uint64_t>(specs[k].second * 256 * 256 / 8)}}}});
        lines.push_back(l);
    }
    return {header, lines};
}

} // namespace

TEST(Budget, CompressedTensorsTargetKeepsDefaultsDenseFusesGroupsAndExports)
{
    const auto [header, lines] = mixedReport();
    BudgetProblemOptions o;
    o.target = "compressed-tensors";
    o.canWrite = [](const QuantSpec &spec, std::string *why) {
        return targetCanWrite(ExportFormat::CompressedTensors, spec, why);
    };
    const BudgetProblem p = budgetProblemFromLines(header, lines, nullptr, "report", o);
    ASSERT_EQ(p.modules.size(), 9u);
    EXPECT_EQ(p.refused.size(), 3u); // MiLo, HQQ, constOpt
    // A budget between all-INT4 and all-INT8 of the quantized modules.
    const std::uint64_t budget = p.minBytes() + (p.maxBytes() - p.minBytes()) / 3;
    const BudgetSolution s = solveBudget(p, budget);
    EXPECT_LE(s.bytes, budget);
    std::map<std::string, std::string> specOf;
    for (std::size_t i = 0; i < p.modules.size(); ++i) {
        const BudgetModule &m = p.modules[i];
        const BudgetCandidate &c = m.candidates[static_cast<std::size_t>(s.choice[i])];
        const std::string method = c.spec["method"];
        if (m.module == "lm_head" || m.module == "model.embed_tokens") {
            EXPECT_FALSE(m.denseReason.empty()) << m.module;
            EXPECT_EQ(method, "dense");
            EXPECT_EQ(c.bytes, 256u * 256u * 2u); // BF16
            continue;
        }
        EXPECT_TRUE(m.denseReason.empty()) << m.module;
        EXPECT_EQ(method, "int") << m.module << " chose " << c.label;
        specOf[m.module] = c.spec.dump();
    }
    // q/k/v share one spec although v alone would rather have INT8; gate/up too.
    EXPECT_EQ(specOf["model.layers.0.self_attn.q_proj"], specOf["model.layers.0.self_attn.v_proj"]);
    EXPECT_EQ(specOf["model.layers.0.self_attn.k_proj"], specOf["model.layers.0.self_attn.v_proj"]);
    EXPECT_EQ(specOf["model.layers.0.mlp.gate_proj"], specOf["model.layers.0.mlp.up_proj"]);
    // The recipe: dense modules excluded, fused members on one spec, and compressed-tensors takes it.
    const Recipe r = Recipe::fromJson(budgetRecipeJson(p, s));
    EXPECT_TRUE(matchModule(r, "lm_head").excluded);
    EXPECT_TRUE(matchModule(r, "model.embed_tokens").excluded);
    std::vector<std::string> names;
    for (const auto &m : p.modules)
        names.push_back(m.module);
    EXPECT_TRUE(checkRecipe(r, names).fusion.empty());
    EXPECT_NO_THROW(exportRecipeText(r, ExportFormat::CompressedTensors));
    // Every target check agrees for compressed-tensors.
    const auto checks = checkBudgetTargets(p, {s}, {{"compressed-tensors", o.canWrite}});
    EXPECT_TRUE(checks.at(0).at(0).ok) << checks[0][0].why;
}

TEST(Budget, AnyTargetPricesEveryCandidateAndSaysWhoCannotExport)
{
    const auto [header, lines] = mixedReport();
    const BudgetProblem p = budgetProblemFromLines(header, lines);
    EXPECT_TRUE(p.refused.empty());
    const BudgetSolution s = solveBudget(p, p.minBytes() + (p.maxBytes() - p.minBytes()) / 3);
    bool exotic = false;
    for (std::size_t i = 0; i < p.modules.size(); ++i)
        exotic |= p.modules[i].candidates[static_cast<std::size_t>(s.choice[i])].spec["method"] != "int" &&
                  p.modules[i].denseReason.empty();
    ASSERT_TRUE(exotic); // MiLo or HQQ wins somewhere
    const auto checks = checkBudgetTargets(
        p, {s},
        {{"compressed-tensors",
          [](const QuantSpec &q, std::string *why) { return targetCanWrite(ExportFormat::CompressedTensors, q, why); }},
         {"quantscope",
          [](const QuantSpec &q, std::string *why) { return targetCanWrite(ExportFormat::Quantscope, q, why); }}});
    EXPECT_FALSE(checks[0][0].ok);
    EXPECT_FALSE(checks[0][0].why.empty());
    EXPECT_TRUE(checks[0][1].ok);
    // --include-default-excluded: lm_head and embeddings are priced like the others.
    BudgetProblemOptions o;
    o.includeDefaultExcluded = true;
    const BudgetProblem all = budgetProblemFromLines(header, lines, nullptr, "report", o);
    for (const auto &m : all.modules)
        EXPECT_TRUE(m.denseReason.empty()) << m.module;
}

TEST(Budget, ExpertsOfOneProjectionShareOneSpec)
{
    // Four experts' gate_proj of one layer; expert 2 alone would take INT8.
    std::vector<nlohmann::json> lines;
    const nlohmann::json i4 = fullSpec({{"method", "int"}, {"bits", 4}, {"group", 128}});
    const nlohmann::json i8 = fullSpec({{"method", "int"}, {"bits", 8}, {"granularity", "channel"}});
    for (int e = 0; e < 4; ++e)
        lines.push_back({{"module", "model.layers.1.mlp.experts." + std::to_string(e) + ".gate_proj"},
                         {"status", "scanned"},
                         {"shape", {128, 128}},
                         {"runs",
                          {{{"spec", i4}, {"metrics", {{"mse", e == 2 ? 1.0 : 1e-3}, {"bytes", 10000}}}},
                           {{"spec", i8}, {"metrics", {{"mse", 1e-6}, {"bytes", 20000}}}}}}});
    const BudgetProblem p = budgetProblemFromLines({{"quantscope_scan", 1}}, lines);
    EXPECT_EQ(p.modules[0].group, "model.layers.1.mlp.experts.*.gate_proj");
    const BudgetUnits u = budgetUnits(p);
    ASSERT_EQ(u.units.size(), 1u);
    EXPECT_EQ(u.units[0].candidates[0].bytes, 40000u);
    // 50000 bytes: per module, expert 2 would take INT8; as a group all stay INT4.
    EXPECT_EQ(solveBudget(p, 50000).choice, (std::vector<int>{0, 0, 0, 0}));
    EXPECT_EQ(solveBudget(p, 80000).choice, (std::vector<int>{1, 1, 1, 1}));
    EXPECT_EQ(solveBudget(p.modules, 50000).choice, (std::vector<int>{0, 0, 1, 0}));
    EXPECT_EQ(p.minBytes(), 40000u);
}
