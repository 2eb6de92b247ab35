// SPDX-License-Identifier: MIT
// The CLI's JSON must not change when the code under it is reorganised: every case of
// golden/cases.json is run and compared with the file the reference version printed
// (scripts/make-cli-goldens.sh). Only timing fields ("time_ms", at any depth) are ignored; the
// input paths are written as {stories} / {demo} in the goldens and substituted back here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_run.h"

using namespace cli_test;
using nlohmann::json;

namespace {

void replaceAll(std::string &s, const std::string &from, const std::string &to)
{
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

/// Removes "time_ms" members at any depth.
void dropTiming(json &j)
{
    if (j.is_object()) {
        j.erase("time_ms");
        for (auto &[k, v] : j.items())
            dropTiming(v);
    } else if (j.is_array()) {
        for (auto &v : j)
            dropTiming(v);
    }
}

/// The first JSON pointer where two documents differ ("" when equal), for a readable failure.
/// `relTol` > 0: real numbers may differ by that much relative, or by 1e-10 absolute (machines
/// with another thread count reduce FP64 sums in other slices); integers, strings, keys and
/// lengths stay exact.
std::string firstDifference(const json &a, const json &b, const std::string &at = "", double relTol = 0)
{
    if (relTol > 0 && a.is_number() && b.is_number() && (a.is_number_float() || b.is_number_float())) {
        const double x = a.get<double>(), y = b.get<double>();
        // Relative, plus a small absolute floor for values that are differences of large sums
        // (an excess kurtosis of −1e-4 carries the absolute error of m4/m2² ≈ 1e-12).
        const bool close = x == y || std::abs(x - y) <= relTol * std::max(std::abs(x), std::abs(y)) + 1e-10;
        return close ? std::string() : at + " (" + a.dump() + " vs " + b.dump() + ")";
    }
    if (a.type() != b.type())
        return at + " (type)";
    if (a.is_object()) {
        for (auto it = a.begin(); it != a.end(); ++it) {
            if (!b.contains(it.key()))
                return at + "/" + it.key() + " (missing now)";
            if (auto d = firstDifference(it.value(), b[it.key()], at + "/" + it.key(), relTol); !d.empty())
                return d;
        }
        for (auto it = b.begin(); it != b.end(); ++it)
            if (!a.contains(it.key()))
                return at + "/" + it.key() + " (new)";
        return {};
    }
    if (a.is_array()) {
        if (a.size() != b.size())
            return at + " (length " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + ")";
        for (std::size_t i = 0; i < a.size(); ++i)
            if (auto d = firstDifference(a[i], b[i], at + "/" + std::to_string(i), relTol); !d.empty())
                return d;
        return {};
    }
    return a == b ? std::string() : at + " (" + a.dump() + " vs " + b.dump() + ")";
}

const fs::path kGolden = fs::path(QUANTSCOPE_SOURCE_DIR) / "tests/cli/golden";

class CliGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(CliGolden, OutputIsUnchangedButForTiming)
{
    const json cases = json::parse(slurp(kGolden / "cases.json"));
    const json *c = nullptr;
    for (const auto &x : cases["cases"])
        if (x["name"] == GetParam())
            c = &x;
    ASSERT_NE(c, nullptr);
    const fs::path stories = fs::path(QUANTSCOPE_SHARED_DATA) / "stories260K";
    bool needsStories = false;
    for (const auto &a : (*c)["args"])
        needsStories = needsStories || a.get<std::string>().find("{stories}") != std::string::npos;
    if (needsStories && !fs::exists(stories / "model.safetensors"))
        GTEST_SKIP() << "../shared/data/stories260K is absent: the real-model golden cannot run";
    const std::string storiesPath = fs::canonical(needsStories ? stories : fs::current_path()).string();
    const std::string demoPath = needsStories ? std::string() : demoDir().string();

    std::vector<std::string> args;
    for (const auto &a : (*c)["args"]) {
        std::string s = a.get<std::string>();
        replaceAll(s, "{stories}", storiesPath);
        if (!demoPath.empty())
            replaceAll(s, "{demo}", demoPath);
        args.push_back(s);
    }
    const Result r = run(args);
    ASSERT_EQ(r.rc, 0) << GetParam() << ": " << r.err;
    std::string out = r.out;
    replaceAll(out, needsStories ? storiesPath : demoPath, needsStories ? "{stories}" : "{demo}");
    json now = json::parse(out);
    json golden = json::parse(slurp(kGolden / (GetParam() + ".json")));
    dropTiming(now);
    dropTiming(golden);
    // Bit-identical on a machine like the one that wrote the goldens; elsewhere the FP64
    // reductions are split over another number of threads.
    const unsigned goldenThreads = cases.value("threads", 0u);
    const bool sameMachineKind = std::thread::hardware_concurrency() == goldenThreads;
    if (!sameMachineKind)
        std::printf("note: goldens from a %u-thread machine, this one has %u: reals compared to 1e-9 relative (1e-10 "
                    "absolute)\n",
                    goldenThreads, std::thread::hardware_concurrency());
    EXPECT_EQ(firstDifference(golden, now, "", sameMachineKind ? 0.0 : 1e-9), "")
        << GetParam() << ": JSON differs from the golden";
}

std::vector<std::string> caseNames()
{
    std::vector<std::string> names;
    const json cases = json::parse(slurp(kGolden / "cases.json"));
    for (const auto &c : cases["cases"])
        names.push_back(c["name"]);
    return names;
}

INSTANTIATE_TEST_SUITE_P(Cases, CliGolden, ::testing::ValuesIn(caseNames()),
                         [](const auto &info) { return info.param; });

} // namespace
