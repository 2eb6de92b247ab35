// SPDX-License-Identifier: MIT
// `mpirun -np N quantscope-cli scan` (labels cli, mpi, slow): over the demo and stories260K, 2
// and 3 ranks write the report the single process writes (but for times and rank fields); a
// rank killed midway leaves a report that any number of ranks (or one process without mpirun)
// resumes to the complete one; a module whose rank fails is redone by another rank, and one that
// fails everywhere is an error line. Skipped when the build has no MPI or mpirun is absent.
#include "cli_run.h"

#include <nlohmann/json.hpp>

using namespace cli_test;
using json = nlohmann::json;

namespace {

bool mpiUsable(std::string *why)
{
    if (!QUANTSCOPE_WITH_MPI) {
        *why = "this build has no MPI (configure with libopenmpi-dev)";
        return false;
    }
    if (std::string(QUANTSCOPE_MPIRUN).empty() || !fs::exists(QUANTSCOPE_MPIRUN)) {
        *why = "mpirun not found (apt-get install openmpi-bin)";
        return false;
    }
    return true;
}

#define REQUIRE_MPI()                                                                                                  \
    do {                                                                                                               \
        std::string why;                                                                                               \
        if (!mpiUsable(&why))                                                                                          \
            GTEST_SKIP() << why << ": skipped";                                                                        \
    } while (0)

/// quantscope-cli under mpirun with `ranks` ranks (0: no mpirun), `env` exported to every rank.
Result runRanks(int ranks, const std::vector<std::string> &args, const std::vector<std::string> &env = {})
{
    std::string cmd = "env";
    for (const auto &e : env)
        cmd += " " + quote(e);
    if (ranks > 0) {
        cmd += " " + quote(QUANTSCOPE_MPIRUN) + " --allow-run-as-root --oversubscribe -np " + std::to_string(ranks);
        for (const auto &e : env)
            cmd += " -x " + quote(e.substr(0, e.find('=')));
    }
    return runWith(cmd, args);
}

std::vector<json> reportLines(const fs::path &p)
{
    std::vector<json> out;
    std::istringstream in(slurp(p));
    std::string line;
    while (std::getline(in, line))
        out.push_back(json::parse(line));
    return out;
}

/// A report line without what differs between runs: times, the rank, the header's rank count.
json comparable(json j)
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

void expectSameReport(const fs::path &reference, const fs::path &other)
{
    const auto a = reportLines(reference), b = reportLines(other);
    ASSERT_EQ(a.size(), b.size()) << other;
    for (std::size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(comparable(a[i]), comparable(b[i])) << other << " line " << i;
}

fs::path tempReport(const std::string &name)
{
    const fs::path p = fs::path(::testing::TempDir()) / ("qs_mpi_" + name + "_" + std::to_string(getpid()) + ".jsonl");
    fs::remove(p);
    return p;
}

/// The single-process report of `checkpoint` (the reference).
fs::path referenceReport(const fs::path &checkpoint, const std::string &name)
{
    const fs::path ref = tempReport(name + "_ref");
    const Result r = runRanks(0, {"scan", checkpoint.string(), "--device", "cpu", "--quiet", "--out", ref.string()});
    EXPECT_EQ(r.rc, 0) << r.err;
    return ref;
}

void expectRanksEqualSingleProcess(const fs::path &checkpoint, const std::string &name)
{
    const fs::path ref = referenceReport(checkpoint, name);
    const auto refLines = reportLines(ref);
    ASSERT_GT(refLines.size(), 2u);
    EXPECT_EQ(refLines[0]["ranks"], 1);
    for (const int n : {2, 3}) {
        const fs::path out = tempReport(name + "_np" + std::to_string(n));
        const Result r =
            runRanks(n, {"scan", checkpoint.string(), "--device", "cpu", "--quiet", "--out", out.string(), "--json"});
        ASSERT_EQ(r.rc, 0) << r.err;
        expectSameReport(ref, out);
        const auto lines = reportLines(out);
        EXPECT_EQ(lines[0]["ranks"], n);
        for (std::size_t i = 1; i < lines.size(); ++i)
            EXPECT_TRUE(lines[i]["rank"].get<int>() >= 0 && lines[i]["rank"].get<int>() < n) << lines[i].dump();
        // One summary (rank 0's), its timeline one entry per rank, the modules they computed
        // adding up to those scanned.
        const json s = json::parse(r.out);
        EXPECT_EQ(s["ranks"], n);
        ASSERT_EQ(s["timeline"].size(), static_cast<std::size_t>(n));
        int computed = 0;
        for (int k = 0; k < n; ++k) {
            EXPECT_EQ(s["timeline"][k]["rank"], k);
            EXPECT_GE(s["timeline"][k]["read_s"].get<double>(), 0.0);
            EXPECT_GE(s["timeline"][k]["idle_s"].get<double>(), 0.0);
            computed += s["timeline"][k]["modules"].get<int>();
        }
        EXPECT_EQ(computed, s["scanned"].get<int>());
        EXPECT_EQ(s["scanned"].get<int>() + s["skipped"].get<int>() + s["errors"].get<int>(),
                  static_cast<int>(refLines.size()) - 1);
    }
}

/// The first of the largest modules: the one rank 0 is handed first.
std::string largestModule(const fs::path &report)
{
    std::string best;
    std::int64_t most = -1;
    const auto lines = reportLines(report);
    for (std::size_t i = 1; i < lines.size(); ++i) {
        std::int64_t n = 1;
        for (const auto &d : lines[i]["shape"])
            n *= d.get<std::int64_t>();
        if (lines[i]["status"] == "scanned" && n > most) {
            most = n;
            best = lines[i]["module"];
        }
    }
    return best;
}

fs::path storiesModel()
{
    return stories() / "model.safetensors";
}

} // namespace

TEST(CliScanMpi, DemoWithTwoAndThreeRanksEqualsSingleProcess)
{
    REQUIRE_MPI();
    expectRanksEqualSingleProcess(demoDir(), "demo");
}

TEST(CliScanMpi, Stories260KWithTwoAndThreeRanksEqualsSingleProcess)
{
    REQUIRE_MPI();
    if (!fs::exists(storiesModel()))
        GTEST_SKIP() << "real test data not found at " << stories() << " (../shared absent): skipped";
    expectRanksEqualSingleProcess(storiesModel(), "stories");
}

TEST(CliScanMpi, KilledRankLeavesAReportOtherRankCountsResume)
{
    REQUIRE_MPI();
    const fs::path ck = demoDir();
    const fs::path ref = referenceReport(ck, "kill");
    const std::size_t full = reportLines(ref).size();
    // Three ranks, rank 2 killed (SIGKILL) when handed its third module: mpirun stops the job.
    const fs::path out = tempReport("kill");
    const std::vector<std::string> scan = {"scan", ck.string(), "--device", "cpu", "--quiet", "--out", out.string()};
    Result r = runRanks(3, scan, {"QUANTSCOPE_SCAN_KILL_RANK=2", "QUANTSCOPE_SCAN_KILL_AFTER=2"});
    EXPECT_NE(r.rc, 0) << "the killed run should fail";
    const std::string cut = slurp(out);
    ASSERT_FALSE(cut.empty()) << r.err;
    const auto lines = std::count(cut.begin(), cut.end(), '\n');
    EXPECT_LT(static_cast<std::size_t>(lines), full) << "the kill came after the report was complete";
    // Two ranks resume it to the complete report, keeping what the killed run computed (its
    // lines in order in the report, those that came early in REPORT.pending).
    std::vector<std::string> scanJson = scan;
    scanJson.push_back("--json");
    r = runRanks(2, scanJson);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_GT(json::parse(r.out)["resumed"].get<int>(), 0) << "nothing of the killed run was kept";
    EXPECT_FALSE(fs::exists(out.string() + ".pending"));
    expectSameReport(ref, out);

    // Two ranks, one killed; one process without mpirun resumes.
    fs::remove(out);
    fs::remove(out.string() + ".pending");
    r = runRanks(2, scan, {"QUANTSCOPE_SCAN_KILL_RANK=1", "QUANTSCOPE_SCAN_KILL_AFTER=1"});
    EXPECT_NE(r.rc, 0);
    r = runRanks(0, scan);
    ASSERT_EQ(r.rc, 0) << r.err;
    expectSameReport(ref, out);
}

TEST(CliScanMpi, FailingRankModuleIsRedoneElsewhere)
{
    REQUIRE_MPI();
    const fs::path ck = demoDir();
    const fs::path ref = referenceReport(ck, "fail");
    const std::string module = largestModule(ref);
    ASSERT_FALSE(module.empty());
    // Rank 0 is handed the largest module first and fails on it: rank 1 redoes it.
    const fs::path out = tempReport("fail");
    const std::vector<std::string> scan = {"scan",    ck.string(), "--device",   "cpu",
                                           "--quiet", "--out",     out.string(), "--json"};
    Result r = runRanks(2, scan, {"QUANTSCOPE_SCAN_FAIL_MODULE=" + module, "QUANTSCOPE_SCAN_FAIL_RANK=0"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["reassigned"], 1);
    EXPECT_NE(r.err.find("rank 0 failed on " + module), std::string::npos) << r.err;
    expectSameReport(ref, out);
    for (const auto &l : reportLines(out))
        if (l.value("module", "") == module)
            EXPECT_EQ(l["rank"], 1);

    // Failing on every rank: an error line that names it, exit status 1, the rest complete.
    fs::remove(out);
    r = runRanks(2, scan, {"QUANTSCOPE_SCAN_FAIL_MODULE=" + module, "QUANTSCOPE_SCAN_FAIL_RANK=all"});
    EXPECT_EQ(r.rc, 1) << r.err;
    const auto lines = reportLines(out);
    ASSERT_EQ(lines.size(), reportLines(ref).size());
    int errors = 0;
    for (const auto &l : lines)
        if (l.value("module", "") == module) {
            EXPECT_EQ(l["status"], "error");
            EXPECT_NE(l["error"].get<std::string>().find("failed on every rank"), std::string::npos);
            ++errors;
        }
    EXPECT_EQ(errors, 1);
}
