// SPDX-License-Identifier: MIT
// `quantscope-cli budget` end to end on the demo: a scan with four specs per module, the budget
// at several sizes; checked here from the report itself: the choice stays within the budget, no
// single module's choice can be changed to lower the total error within the budget, and a scan
// with the written recipe measures the predicted bytes and error.
#include "cli_run.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

using namespace cli_test;
using json = nlohmann::json;

namespace {

std::vector<json> reportLines(const fs::path &p)
{
    std::vector<json> out;
    std::ifstream in(p);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty())
            out.push_back(json::parse(line));
    return out;
}

struct Cand {
    json spec;
    double error;
    std::uint64_t bytes;
};

/// module → candidates (error = mse · numel), from the report's lines.
std::map<std::string, std::vector<Cand>> candidates(const std::vector<json> &lines)
{
    std::map<std::string, std::vector<Cand>> out;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const json &l = lines[i];
        if (l["status"] != "scanned")
            continue;
        double numel = 1;
        for (const auto &d : l["shape"])
            numel *= d.get<double>();
        for (const auto &r : l["runs"])
            out[l["module"]].push_back(
                {r["spec"], r["metrics"]["mse"].get<double>() * numel, r["metrics"]["bytes"].get<std::uint64_t>()});
    }
    return out;
}

const char *kSpecs = "int:bits=2:group=32,int:bits=3:group=64,int:bits=4:group=128,int:bits=8:granularity=\"channel\"";

/// Integer bytes as the exact decimal MB text the CLI reads (MB = 10^6 bytes).
std::string exactMb(std::uint64_t bytes)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%llu.%06llu", static_cast<unsigned long long>(bytes / 1000000),
                  static_cast<unsigned long long>(bytes % 1000000));
    return buf;
}

} // namespace

TEST(CliBudget, DemoChoiceIsWithinBudgetAndNoSingleChangeImproves)
{
    const std::string tag = std::to_string(getpid());
    const fs::path report = fs::path(::testing::TempDir()) / ("qs_budget_" + tag + ".jsonl");
    const fs::path recipe = fs::path(::testing::TempDir()) / ("qs_budget_" + tag + ".json");
    const fs::path check = fs::path(::testing::TempDir()) / ("qs_budget_check_" + tag + ".jsonl");
    fs::remove(report);
    const Result s =
        run({"scan", demoDir().string(), "--specs", kSpecs, "--device", "cpu", "--out", report.string(), "--quiet"});
    ASSERT_EQ(s.rc, 0) << s.err;
    const auto cands = candidates(reportLines(report));
    ASSERT_GT(cands.size(), 10u);
    // The range the quantized modules span (lm_head, embeddings and the router stay dense: their
    // BF16 bytes come on top).
    const Result probe = run({"budget", report.string(), "--bits-per-weight", "16", "--json"});
    ASSERT_EQ(probe.rc, 0) << probe.err;
    std::uint64_t denseBytes = 0;
    std::map<std::string, std::vector<std::string>> groups; // fusion group → members
    const json pj = json::parse(probe.out);
    for (const auto &m : pj["modules"]) {
        if (!m["dense"].is_null())
            denseBytes += m["bytes"].get<std::uint64_t>();
        if (!m["group"].is_null())
            groups[m["group"]].push_back(m["module"]);
    }
    EXPECT_GT(denseBytes, 0u);
    EXPECT_FALSE(groups.empty());
    std::uint64_t lo = denseBytes, hi = denseBytes;
    for (const auto &[m, c] : cands) {
        if (m == "lm_head" || m == "model.embed_tokens" || m == "model.layers.1.mlp.gate")
            continue;
        std::uint64_t a = ~0ull, b = 0;
        for (const auto &x : c) {
            a = std::min(a, x.bytes);
            b = std::max(b, x.bytes);
        }
        lo += a;
        hi += b;
    }
    double lastError = INFINITY;
    for (const double frac : {0.0, 0.1, 0.35, 0.6, 1.0}) {
        const std::uint64_t budget = lo + static_cast<std::uint64_t>(frac * static_cast<double>(hi - lo));
        const std::string mb = exactMb(budget);
        fs::remove(recipe);
        const Result b = run({"budget", report.string(), "--mb", mb, "--json", "--out", recipe.string()});
        ASSERT_EQ(b.rc, 0) << b.err;
        const json j = json::parse(b.out);
        const std::uint64_t budgetBytes = budget; // exact: no byte lost to floating point
        EXPECT_EQ(j["budget_bytes"], budgetBytes);
        // Recompute the totals from the report and check the bound.
        std::uint64_t bytes = 0;
        double error = 0;
        std::map<std::string, std::size_t> chosen;
        ASSERT_EQ(j["modules"].size(), cands.size());
        for (const auto &m : j["modules"]) {
            if (!m["dense"].is_null()) {
                bytes += m["bytes"].get<std::uint64_t>();
                continue;
            }
            const auto &c = cands.at(m["module"]);
            const std::size_t k = m["choice"];
            ASSERT_LT(k, c.size());
            EXPECT_EQ(c[k].spec, m["spec"]);
            bytes += c[k].bytes;
            error += c[k].error;
            chosen[m["module"]] = k;
        }
        EXPECT_LE(bytes, budgetBytes);
        EXPECT_EQ(j["bytes"], bytes);
        EXPECT_NEAR(j["error"].get<double>(), error, 1e-9 * error);
        // Fused members share one spec, and no single unit's change (a module, or a fusion
        // group as a whole: every module has the same spec list) lowers the error within the budget.
        std::map<std::string, std::vector<std::string>> units = groups;
        for (const auto &[m, k] : chosen)
            if (std::none_of(groups.begin(), groups.end(), [&](const auto &g) {
                    return std::find(g.second.begin(), g.second.end(), m) != g.second.end();
                }))
                units[m] = {m};
        for (const auto &[u, members] : units) {
            std::uint64_t nowBytes = 0;
            double nowError = 0;
            for (const auto &m : members) {
                EXPECT_EQ(chosen.at(m), chosen.at(members[0])) << u;
                nowBytes += cands.at(m)[chosen.at(m)].bytes;
                nowError += cands.at(m)[chosen.at(m)].error;
            }
            for (std::size_t k = 0; k < cands.at(members[0]).size(); ++k) {
                std::uint64_t b2 = 0;
                double e2 = 0;
                for (const auto &m : members) {
                    b2 += cands.at(m)[k].bytes;
                    e2 += cands.at(m)[k].error;
                }
                if (bytes - nowBytes + b2 <= budgetBytes)
                    EXPECT_GE(e2, nowError - 1e-12 * error) << u << " at " << mb << " MB";
            }
        }
        // A larger budget never gives a larger error.
        EXPECT_LE(error, lastError * (1 + 1e-12));
        lastError = error;
        // The recipe, scanned, measures what the budget predicted.
        fs::remove(check);
        const Result r = run({"scan", demoDir().string(), "--recipe", recipe.string(), "--device", "cpu", "--out",
                              check.string(), "--quiet"});
        ASSERT_EQ(r.rc, 0) << r.err;
        std::uint64_t measuredBytes = 0;
        double measuredError = 0;
        for (const auto &[m, c] : candidates(reportLines(check))) {
            ASSERT_EQ(c.size(), 1u) << m;
            measuredBytes += c[0].bytes;
            measuredError += c[0].error;
        }
        EXPECT_EQ(measuredBytes + denseBytes, bytes); // the dense modules are excluded there
        EXPECT_NEAR(measuredError, error, 1e-9 * error);
        // The toolkit configs take its shape (exact rules and a catch-all); Quark refuses only
        // what it has no dtype for (INT2/INT3 here), never the recipe's structure.
        for (const char *format : {"compressed-tensors", "llm-compressor", "quark"}) {
            const Result e = run({"export", "--recipe", recipe.string(), "--format", format});
            if (std::string(format) != "quark")
                EXPECT_EQ(e.rc, 0) << format << ": " << e.err;
            else if (e.rc != 0)
                EXPECT_NE(e.err.find("int4 and int8 dtypes only"), std::string::npos) << e.err;
        }
    }
    // Bits per weight: the same solver on floor(B · numel / 8) bytes, numel and bytes counting
    // the dense modules too (their BF16 16 bits per weight put the floor near 4.6 here).
    const Result bpw = run({"budget", report.string(), "--bits-per-weight", "5.5", "--json"});
    ASSERT_EQ(bpw.rc, 0) << bpw.err;
    EXPECT_LE(json::parse(bpw.out)["bits_per_weight"].get<double>(), 5.5);
    // Below the smallest choice: a clear error, and no recipe written.
    fs::remove(recipe);
    const Result tiny = run({"budget", report.string(), "--bits-per-weight", "1", "--out", recipe.string()});
    EXPECT_EQ(tiny.rc, 1);
    EXPECT_NE(tiny.err.find("budget too small"), std::string::npos) << tiny.err;
    EXPECT_FALSE(fs::exists(recipe));
    // Usage errors.
    EXPECT_EQ(run({"budget", report.string()}).rc, 2);
    EXPECT_EQ(run({"budget", report.string(), "--mb", "1", "--bits-per-weight", "4"}).rc, 2);
    EXPECT_EQ(run({"budget", report.string(), "--mb", "20", "--weighted"}).rc, 2);
    const Result missing = run({"budget", "/nonexistent/r.jsonl", "--mb", "1"});
    EXPECT_EQ(missing.rc, 1);
    EXPECT_NE(missing.err.find("/nonexistent/r.jsonl"), std::string::npos);
    fs::remove(report);
    fs::remove(recipe);
    fs::remove(check);
}

TEST(CliBudget, CompressedTensorsTargetGivesARecipeItExports)
{
    const std::string tag = std::to_string(getpid());
    const fs::path report = fs::path(::testing::TempDir()) / ("qs_budget_ct_" + tag + ".jsonl");
    const fs::path recipe = fs::path(::testing::TempDir()) / ("qs_budget_ct_" + tag + ".json");
    fs::remove(report);
    const Result s = run({"scan", demoDir().string(), "--specs",
                          "int:bits=4:group=128,int:bits=8:granularity=\"channel\",milo:rank=0,hqq:bits=4", "--device",
                          "cpu", "--out", report.string(), "--quiet"});
    ASSERT_EQ(s.rc, 0) << s.err;
    // Any target: the cheap MiLo/HQQ candidates win somewhere, and the output says
    // compressed-tensors cannot export that choice.
    const Result any = run({"budget", report.string(), "--bits-per-weight", "6", "--json"});
    ASSERT_EQ(any.rc, 0) << any.err;
    const json ja = json::parse(any.out);
    EXPECT_EQ(ja["target"], "any");
    bool ctCan = true;
    for (const auto &t : ja["targets"])
        if (t["target"] == "compressed-tensors")
            ctCan = t["can_export"];
    EXPECT_FALSE(ctCan);
    // compressed-tensors: only what it stores is priced.
    fs::remove(recipe);
    const Result b = run({"budget", report.string(), "--bits-per-weight", "6", "--target", "compressed-tensors",
                          "--json", "--out", recipe.string()});
    ASSERT_EQ(b.rc, 0) << b.err;
    const json j = json::parse(b.out);
    EXPECT_EQ(j["target"], "compressed-tensors");
    EXPECT_FALSE(j["refused"].empty());
    std::map<std::string, json> specOf;
    for (const auto &m : j["modules"]) {
        const std::string name = m["module"];
        const std::string method = m["spec"]["method"];
        if (name == "lm_head" || name == "model.embed_tokens") {
            EXPECT_FALSE(m["dense"].is_null()) << name;
            EXPECT_EQ(method, "dense") << name;
        } else {
            EXPECT_NE(method, "milo") << name;
            EXPECT_NE(method, "hqq") << name;
            EXPECT_NE(method, "constopt") << name;
        }
        specOf[name] = m["spec"];
    }
    for (const char *layer : {"model.layers.0.self_attn.", "model.layers.1.self_attn."}) {
        const std::string l = layer;
        EXPECT_EQ(specOf.at(l + "q_proj"), specOf.at(l + "k_proj")) << l;
        EXPECT_EQ(specOf.at(l + "q_proj"), specOf.at(l + "v_proj")) << l;
    }
    for (const auto &t : j["targets"])
        if (t["target"] == "compressed-tensors")
            EXPECT_TRUE(t["can_export"].get<bool>()) << t["why"];
    const Result e = run({"export", "--recipe", recipe.string(), "--format", "compressed-tensors"});
    EXPECT_EQ(e.rc, 0) << e.err;
    const Result chk = run({"recipe", "check", recipe.string(), "--checkpoint", demoDir().string(), "--json"});
    ASSERT_EQ(chk.rc, 0) << chk.err;
    EXPECT_TRUE(json::parse(chk.out)["fusion_warnings"].empty()) << chk.out;
    // A budget exactly at the choice's bytes, as MB text, is met by that choice.
    const std::uint64_t exact = j["bytes"];
    const Result at =
        run({"budget", report.string(), "--mb", exactMb(exact), "--target", "compressed-tensors", "--json"});
    ASSERT_EQ(at.rc, 0) << at.err;
    EXPECT_EQ(json::parse(at.out)["budget_bytes"], exact);
    EXPECT_EQ(json::parse(at.out)["bytes"], exact);
    // Usage: an unknown target.
    EXPECT_EQ(run({"budget", report.string(), "--mb", "20", "--target", "gguf"}).rc, 2);
    // --include-default-excluded prices lm_head too.
    const Result inc = run({"budget", report.string(), "--bits-per-weight", "6", "--target", "compressed-tensors",
                            "--include-default-excluded", "--json"});
    ASSERT_EQ(inc.rc, 0) << inc.err;
    const json ij = json::parse(inc.out);
    for (const auto &m : ij["modules"])
        if (m["module"] == "lm_head" || m["module"] == "model.embed_tokens")
            EXPECT_TRUE(m["dense"].is_null()) << m.dump();
    fs::remove(report);
    fs::remove(recipe);
}
