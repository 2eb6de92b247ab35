// SPDX-License-Identifier: MIT
// The scan on the GPU (issue 24): each module of the demo scanned with INT4 g128 and FP8 on the
// device gives the numbers runQuantize gives for that tensor and spec on the device (the path
// `quantize --device gpu` takes), and says it ran there. Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <unistd.h>

#include "demo/demo.h"
#include "engine/registry.h"
#include "engine/run.h"
#include "results/channel_profile.h"
#include "tensor/convert.h"
#include "register.h"
#include "scan/scan.h"

using namespace quantscope;

namespace {
const bool kGpuRegisteredScan = (registerGpuBackends(), true);
} // namespace

TEST(GpuScan, EveryModuleEqualsRunQuantizeOnTheDevice)
{
    if (!BackendRegistry::instance().gpu())
        GTEST_SKIP() << "no GPU: " << BackendRegistry::instance().gpuUnavailableReason();
    const auto dir = std::filesystem::path(::testing::TempDir()) / ("qs_gpu_scan_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    demo::writeDemoCheckpoint(dir);
    const Checkpoint ck = Checkpoint::open(dir);
    ScanOptions o;
    o.device = DeviceChoice::Gpu;
    const std::vector<QuantSpec> specs = {QuantSpec{IntSpec{}}, QuantSpec{Fp8Spec{}}};
    o.recipe = Recipe::defaults().withSpecs(specs);
    const ScanResult r = runScan(ck, o, CancelToken{});
    ASSERT_GT(r.scanned, 0);
    EXPECT_EQ(r.errors, 0);
    for (const auto &line : r.lines) {
        const Tensor w = ck.tensor(line["tensor"].get<std::string>());
        for (std::size_t s = 0; s < specs.size(); ++s) {
            RunOptions ro;
            ro.device = DeviceChoice::Gpu;
            const QuantizeRun run = runQuantize(w, specs[s], ro);
            const auto &j = line["runs"][s];
            EXPECT_EQ(j["device"], run.device) << line["tensor"];
            EXPECT_NE(j["device"].get<std::string>().rfind("cpu", 0), 0u) << "ran on the CPU: " << j.dump();
            // Sums within 1e-12 relative (exact where the device's reductions are deterministic);
            // maxima, percentiles (histogram counts) and sizes exact.
            EXPECT_NEAR(j["metrics"]["mse"].get<double>(), run.metrics->mse, 1e-12 * run.metrics->mse)
                << line["tensor"] << " spec " << s;
            EXPECT_EQ(j["metrics"]["max_abs_err"].get<double>(), run.metrics->maxAbsErr);
            EXPECT_EQ(j["metrics"]["err_p99"].get<double>(), run.metrics->errP99);
            EXPECT_EQ(j["metrics"]["bytes"].get<std::uint64_t>(), run.quantized.storedBytes());
        }
    }
    std::filesystem::remove_all(dir);
}

namespace {
/// A BF16 matrix with heavy-tailed rows, an outlier column and a few NaN/Inf.
Tensor momentsTensor(std::int64_t R, std::int64_t C, DType dtype)
{
    std::vector<float> v(static_cast<std::size_t>(R * C));
    std::uint64_t x = 0x2545F4914F6CDD1Dull;
    for (std::int64_t r = 0; r < R; ++r)
        for (std::int64_t c = 0; c < C; ++c) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const double u = static_cast<double>(x >> 11) / 9007199254740992.0 - 0.5;
            v[static_cast<std::size_t>(r * C + c)] = static_cast<float>(u * (1 + r % 7) * (c == 3 ? 40.0 : 1.0));
        }
    v[5] = std::numeric_limits<float>::quiet_NaN();
    v[static_cast<std::size_t>(C + 9)] = std::numeric_limits<float>::infinity();
    if (dtype == DType::F32)
        return Tensor::fromFloats({R, C}, v);
    std::vector<std::byte> bytes(v.size() * 2);
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::uint16_t h = floatToBf16(v[i]);
        std::memcpy(bytes.data() + 2 * i, &h, 2);
    }
    return Tensor::fromBytes(DType::BF16, {R, C}, std::move(bytes));
}
} // namespace

TEST(GpuScan, ChannelKurtosisOnTheDeviceMatchesTheCpuAndRepeatsBitForBit)
{
    const Backend *gpu = BackendRegistry::instance().gpu();
    if (!gpu)
        GTEST_SKIP() << "no GPU: " << BackendRegistry::instance().gpuUnavailableReason();
    for (const DType dt : {DType::BF16, DType::F32}) {
        // 300 rows: several 64-row slices and a short last one; 1000 columns: a partial block.
        const Tensor w = momentsTensor(300, 1000, dt);
        const ChannelKurtosis cpu = computeChannelKurtosis(w);
        auto dw = gpu->upload(w, "moments");
        ChannelMomentSums a, b;
        std::string why;
        ASSERT_TRUE(gpu->channelMoments(*dw, a, why)) << why;
        ASSERT_TRUE(gpu->channelMoments(*dw, b, why)) << why;
        EXPECT_EQ(a.rowS4, b.rowS4) << "deterministic";
        EXPECT_EQ(a.colS4, b.colS4) << "deterministic";
        const ChannelKurtosis dev = channelKurtosisFromSums(a);
        ASSERT_EQ(dev.rows.size(), cpu.rows.size());
        ASSERT_EQ(dev.columns.size(), cpu.columns.size());
        EXPECT_EQ(a.rowCount[0], 999.0) << "the NaN is not counted";
        EXPECT_EQ(a.colCount[9], 299.0) << "the Inf is not counted";
        for (std::size_t i = 0; i < cpu.rows.size(); ++i)
            EXPECT_NEAR(dev.rows[i], cpu.rows[i], 1e-9 * (1 + std::abs(cpu.rows[i]))) << "row " << i;
        for (std::size_t i = 0; i < cpu.columns.size(); ++i)
            EXPECT_NEAR(dev.columns[i], cpu.columns[i], 1e-9 * (1 + std::abs(cpu.columns[i]))) << "column " << i;
    }
}

TEST(GpuScan, ReportsTheDevicesChannelKurtosis)
{
    if (!BackendRegistry::instance().gpu())
        GTEST_SKIP() << "no GPU: " << BackendRegistry::instance().gpuUnavailableReason();
    const auto dir = std::filesystem::path(::testing::TempDir()) / ("qs_gpu_scan_k_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    demo::writeDemoCheckpoint(dir);
    const Checkpoint ck = Checkpoint::open(dir);
    ScanOptions o;
    o.device = DeviceChoice::Gpu;
    ScanOptions c = o;
    c.device = DeviceChoice::Cpu;
    const ScanResult g = runScan(ck, o, CancelToken{}), h = runScan(ck, c, CancelToken{});
    ASSERT_EQ(g.lines.size(), h.lines.size());
    for (std::size_t i = 0; i < g.lines.size(); ++i) {
        if (!h.lines[i].contains("kurtosis"))
            continue;
        for (const char *axis : {"rows", "columns"}) {
            const auto &a = g.lines[i]["kurtosis"][axis], &b = h.lines[i]["kurtosis"][axis];
            ASSERT_TRUE(a.is_object()) << g.lines[i].dump();
            EXPECT_EQ(a["count"], b["count"]);
            for (const char *k : {"median", "max"})
                EXPECT_NEAR(a[k].get<double>(), b[k].get<double>(), 1e-9 * (1 + std::abs(b[k].get<double>())))
                    << g.lines[i]["tensor"] << " " << axis << " " << k;
        }
    }
    std::filesystem::remove_all(dir);
}
