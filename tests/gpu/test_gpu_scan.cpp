// SPDX-License-Identifier: MIT
// The scan on the GPU (issue 24): each module of the demo scanned with INT4 g128 and FP8 on the
// device gives the numbers runQuantize gives for that tensor and spec on the device (the path
// `quantize --device gpu` takes), and says it ran there. Skips without a GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "demo/demo.h"
#include "engine/registry.h"
#include "engine/run.h"
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
