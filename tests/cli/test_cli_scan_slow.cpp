// SPDX-License-Identifier: MIT
// The scan's bars on a generated ~2 GB sharded BF16 checkpoint (label slow): killed with SIGKILL
// midway, it resumes to the report an uninterrupted scan writes (timing fields aside), and every
// run stays within the memory bound (peak RSS as the CLI reads it from VmHWM).
#include "cli_run.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <thread>

#include "io/safetensors.h"

using namespace cli_test;
using json = nlohmann::json;

namespace {

constexpr int kShards = 4;
constexpr int kPerShard = 16;
constexpr std::int64_t kRows = 4096, kCols = 4096; // 32 MB BF16, 64 MB FP32 each: 2 GiB in all

/// Writes the checkpoint once per process (the tensors differ by seed; values ~ N-ish with a few
/// outliers, as BF16 bit patterns).
fs::path bigCheckpoint()
{
    const fs::path d = fs::path(::testing::TempDir()) / ("qs_scan_big_" + std::to_string(getpid()));
    if (fs::exists(d / "model.safetensors.index.json"))
        return d;
    fs::create_directories(d);
    json index;
    index["metadata"] = json::object();
    std::uint64_t x = 0x1234567;
    for (int s = 0; s < kShards; ++s) {
        const std::string shard =
            "model-0000" + std::to_string(s + 1) + "-of-0000" + std::to_string(kShards) + ".safetensors";
        std::vector<std::pair<std::string, quantscope::Tensor>> tensors;
        for (int t = 0; t < kPerShard; ++t) {
            const int layer = s * kPerShard / 4 + t / 4;
            static const char *proj[] = {"self_attn.q_proj", "self_attn.o_proj", "mlp.up_proj", "mlp.down_proj"};
            const std::string name = "model.layers." + std::to_string(layer) + "." + proj[t % 4] + ".weight";
            quantscope::Tensor w = quantscope::Tensor::zeros(quantscope::DType::BF16, {kRows, kCols});
            auto *p = reinterpret_cast<std::uint16_t *>(w.mutableData());
            for (std::int64_t i = 0; i < kRows * kCols; ++i) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Sum of two uniforms (triangular), scaled; every 4099th element an outlier.
                const float u = static_cast<float>((x & 0xFFFF) + ((x >> 16) & 0xFFFF)) / 65536.0f - 1.0f;
                const float v = (i % 4099 == 0) ? 20.0f * u : 0.02f * u;
                std::uint32_t bits;
                std::memcpy(&bits, &v, 4);
                p[i] = static_cast<std::uint16_t>(bits >> 16);
            }
            index["weight_map"][name] = shard;
            tensors.emplace_back(name, std::move(w));
        }
        quantscope::writeSafetensors(d / shard, tensors);
    }
    std::ofstream(d / "model.safetensors.index.json") << index.dump(1);
    return d;
}

std::vector<json> lines(const fs::path &p)
{
    std::vector<json> out;
    std::ifstream in(p);
    std::string s;
    while (std::getline(in, s))
        out.push_back(json::parse(s));
    return out;
}

json dropTiming(json j)
{
    if (j.is_object()) {
        j.erase("time_ms");
        j.erase("read_ms");
        for (auto &[k, v] : j.items())
            v = dropTiming(v);
    } else if (j.is_array()) {
        for (auto &v : j)
            v = dropTiming(v);
    }
    return j;
}

std::size_t lineCount(const fs::path &p)
{
    const std::string s = slurp(p);
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

} // namespace

TEST(CliScanSlow, KilledScanResumesToTheFullReportWithinTheMemoryBound)
{
    const fs::path ck = bigCheckpoint();
    const fs::path full = ck / "full.jsonl", cut = ck / "cut.jsonl";
    fs::remove(full);
    fs::remove(cut);
    const std::vector<std::string> opts = {"--device", "cpu", "--quiet", "--json"};

    auto scanArgs = [&](const fs::path &out) {
        std::vector<std::string> a = {"scan", ck.string(), "--out", out.string()};
        a.insert(a.end(), opts.begin(), opts.end());
        return a;
    };
    const Result a = run(scanArgs(full));
    ASSERT_EQ(a.rc, 0) << a.err;
    const json sa = json::parse(a.out);
    EXPECT_EQ(sa["scanned"], kShards * kPerShard);
    EXPECT_EQ(sa["largest_fp32_bytes"], 4 * kRows * kCols);
    EXPECT_LE(sa["peak_rss_bytes"].get<double>(), sa["memory_bound_bytes"].get<double>())
        << "peak " << sa["peak_rss_bytes"] << " bound " << sa["memory_bound_bytes"];
    std::printf("uninterrupted: %s\n", sa.dump().c_str());

    // Start the same scan, kill it with SIGKILL once a third of the modules are in the report.
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        std::vector<std::string> args = scanArgs(cut);
        std::vector<char *> argv = {const_cast<char *>(QUANTSCOPE_CLI)};
        for (auto &s : args)
            argv.push_back(s.data());
        argv.push_back(nullptr);
        const int devnull = ::open("/dev/null", O_WRONLY);
        ::dup2(devnull, 1);
        ::execv(QUANTSCOPE_CLI, argv.data());
        _exit(127);
    }
    const std::size_t target = 1 + kShards * kPerShard / 3;
    for (int i = 0; i < 6000 && (!fs::exists(cut) || lineCount(cut) < target); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the scan finished before it was killed";
    const std::size_t before = lineCount(cut);
    EXPECT_LT(before, static_cast<std::size_t>(1 + kShards * kPerShard));

    const Result b = run(scanArgs(cut));
    ASSERT_EQ(b.rc, 0) << b.err;
    const json sb = json::parse(b.out);
    EXPECT_EQ(sb["resumed"].get<std::size_t>(), before - 1);
    EXPECT_EQ(sb["resumed"].get<int>() + sb["scanned"].get<int>(), kShards * kPerShard);
    EXPECT_LE(sb["peak_rss_bytes"].get<double>(), sb["memory_bound_bytes"].get<double>());
    const auto la = lines(full), lb = lines(cut);
    ASSERT_EQ(la.size(), lb.size());
    for (std::size_t i = 0; i < la.size(); ++i)
        EXPECT_EQ(dropTiming(la[i]), dropTiming(lb[i])) << "line " << i;
    fs::remove_all(ck);
}
