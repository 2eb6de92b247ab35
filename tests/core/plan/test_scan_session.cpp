// SPDX-License-Identifier: MIT
// The scan split over workers (scan/scan.h ScanSession, what the MPI scan drives): lines
// committed in any order write the report runScan writes (times and rank fields aside), open()
// hands out the matched modules largest first, and a session stopped with lines that came before
// their turn keeps them in REPORT.pending, so the next session hands out only the rest.
#include "scan/scan.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <unistd.h>

#include "io/safetensors.h"

using namespace quantscope;
namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

fs::path tempDir(const std::string &name)
{
    const fs::path d = fs::path(::testing::TempDir()) / (name + "_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

Tensor noise(Shape shape, std::uint64_t seed)
{
    std::vector<float> v(static_cast<std::size_t>(numelOf(shape)));
    std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 7;
    for (auto &f : v) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        f = static_cast<float>(static_cast<double>(x >> 11) / 9007199254740992.0 - 0.5);
    }
    v[1] = 6.0f;
    return Tensor::fromFloats(shape, v);
}

/// Weights of several sizes (the first in checkpoint order is not the largest) and one module
/// the recipe below leaves unmatched.
fs::path checkpoint(const fs::path &dir)
{
    writeSafetensors(dir / "model.safetensors", {{"model.layers.0.self_attn.q_proj.weight", noise({32, 128}, 1)},
                                                 {"model.layers.0.mlp.up_proj.weight", noise({96, 128}, 2)},
                                                 {"model.layers.0.mlp.down_proj.weight", noise({128, 96}, 3)},
                                                 {"model.layers.0.router.weight", noise({4, 128}, 4)},
                                                 {"model.layers.1.self_attn.q_proj.weight", noise({32, 128}, 5)},
                                                 {"model.layers.1.mlp.up_proj.weight", noise({64, 128}, 6)}});
    return dir / "model.safetensors";
}

ScanOptions options(const fs::path &report)
{
    ScanOptions o;
    o.device = DeviceChoice::Cpu;
    o.recipe = Recipe::fromJson(
        {{"quantscope_recipe", 1}, {"rules", {{{"patterns", {"*proj"}}, {"specs", {{{"method", "int"}}}}}}}});
    o.reportPath = report.string();
    return o;
}

ojson comparable(ojson j)
{
    if (j.is_object()) {
        for (const char *f : {"time_ms", "read_ms", "rank", "ranks"})
            j.erase(f);
        for (auto &[k, v] : j.items())
            v = comparable(v);
    } else if (j.is_array()) {
        for (auto &v : j)
            v = comparable(v);
    }
    return j;
}

std::vector<ojson> lines(const fs::path &p)
{
    std::ifstream in(p);
    std::vector<ojson> out;
    std::string s;
    while (std::getline(in, s))
        out.push_back(comparable(ojson::parse(s)));
    return out;
}

} // namespace

TEST(ScanSession, LinesCommittedInAnyOrderWriteTheSingleProcessReport)
{
    const fs::path dir = tempDir("qs_session_order");
    const Checkpoint ck = Checkpoint::open(checkpoint(dir));
    const ScanResult ref = runScan(ck, options(dir / "ref.jsonl"), CancelToken{});
    ASSERT_EQ(ref.modules, 6);

    ScanOptions o = options(dir / "split.jsonl");
    o.ranks = 3;
    ScanSession s(ck, o);
    const std::vector<std::size_t> todo = s.open();
    // The matched modules (all but the router), largest first.
    ASSERT_EQ(todo.size(), 5u);
    for (std::size_t k = 1; k < todo.size(); ++k)
        EXPECT_GE(numelOf(s.modules()[todo[k - 1]].shape), numelOf(s.modules()[todo[k]].shape));
    EXPECT_NE(todo.front(), 0u) << "the first module is not the largest: the order must differ";
    for (const auto i : todo)
        EXPECT_NE(s.modules()[i].module, "model.layers.0.router");
    // Computed and committed backwards, by three "ranks".
    RankTimeline t;
    std::vector<ojson> computed;
    for (const auto i : todo)
        computed.push_back(s.compute(i, CancelToken{}, t));
    EXPECT_EQ(t.modules, 5);
    EXPECT_GT(t.bytesRead, 0u);
    for (std::size_t k = todo.size(); k-- > 0;) {
        EXPECT_FALSE(s.complete());
        s.commit(todo[k], computed[k], static_cast<int>(k % 3));
    }
    EXPECT_TRUE(s.complete());
    const ScanResult r = s.finish();
    EXPECT_EQ(r.scanned, ref.scanned);
    EXPECT_EQ(r.skipped, ref.skipped);
    EXPECT_EQ(r.errors, ref.errors);
    EXPECT_EQ(lines(dir / "split.jsonl"), lines(dir / "ref.jsonl"));
    EXPECT_FALSE(fs::exists(dir / "split.jsonl.pending"));
    // The header records the ranks; every line its rank.
    std::ifstream in(dir / "split.jsonl");
    std::string first;
    std::getline(in, first);
    EXPECT_EQ(ojson::parse(first)["ranks"], 3);
    for (const auto &l : r.lines)
        EXPECT_TRUE(l.contains("rank"));
}

TEST(ScanSession, StoppedSessionKeepsEarlyLinesAndHandsOutOnlyTheRest)
{
    const fs::path dir = tempDir("qs_session_stop");
    const Checkpoint ck = Checkpoint::open(checkpoint(dir));
    runScan(ck, options(dir / "ref.jsonl"), CancelToken{});
    const fs::path out = dir / "split.jsonl";
    std::set<std::size_t> committed;
    {
        ScanSession s(ck, options(out));
        const auto todo = s.open();
        RankTimeline t;
        for (const auto i : todo)
            if (i != 0) { // module 0 never comes back: nothing after it can be written in order
                s.commit(i, s.compute(i, CancelToken{}, t), 1);
                committed.insert(i);
            }
        EXPECT_FALSE(s.complete());
    } // stopped here, as a killed rank 0
    ASSERT_TRUE(fs::exists(out.string() + ".pending"));
    EXPECT_EQ(lines(out).size(), 1u) << "only the header: module 0 is missing";

    ScanSession s(ck, options(out));
    const auto todo = s.open();
    EXPECT_EQ(todo, std::vector<std::size_t>{0});
    RankTimeline t;
    s.commit(0, s.compute(0, CancelToken{}, t), 0);
    EXPECT_TRUE(s.complete());
    const ScanResult r = s.finish();
    // The computed lines and the router's (unmatched: its line waited for module 0 as well).
    EXPECT_EQ(r.resumed, static_cast<int>(committed.size()) + 1);
    EXPECT_EQ(r.scanned, 1);
    EXPECT_EQ(lines(out), lines(dir / "ref.jsonl"));
    EXPECT_FALSE(fs::exists(out.string() + ".pending"));
}

TEST(ScanSession, SingleProcessResumeRemovesAStalePendingFile)
{
    const fs::path dir = tempDir("qs_session_stale");
    const Checkpoint ck = Checkpoint::open(checkpoint(dir));
    runScan(ck, options(dir / "ref.jsonl"), CancelToken{});
    const fs::path out = dir / "split.jsonl";
    {
        ScanSession s(ck, options(out));
        const auto todo = s.open();
        RankTimeline t;
        s.commit(todo.front(), s.compute(todo.front(), CancelToken{}, t), 0);
    }
    ASSERT_TRUE(fs::exists(out.string() + ".pending"));
    runScan(ck, options(out), CancelToken{});
    EXPECT_FALSE(fs::exists(out.string() + ".pending"));
    EXPECT_EQ(lines(out), lines(dir / "ref.jsonl"));
}
