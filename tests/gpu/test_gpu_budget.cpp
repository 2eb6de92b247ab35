// SPDX-License-Identifier: MIT
// The format sweep on the GPU (issue 27): each point of a demo tensor's sweep with --device gpu
// gives the numbers runQuantize gives for that spec (the rotated points: of the rotated tensor)
// on the same device, the GPU wherever it has the format. One-shot formats only (bit-identical
// codes on every backend). Skips without a GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "budget/format_sweep.h"
#include "demo/demo.h"
#include "engine/registry.h"
#include "engine/run.h"
#include "io/checkpoint.h"
#include "numeric/hadamard.h"
#include "quant/quant_spec.h"
#include "register.h"

using namespace quantscope;

namespace {
const bool kGpuRegisteredSweep = (registerGpuBackends(), true);
} // namespace

TEST(GpuFormatSweep, EveryPointEqualsRunQuantizeOnTheDevice)
{
    if (!BackendRegistry::instance().gpu())
        GTEST_SKIP() << "no GPU: " << BackendRegistry::instance().gpuUnavailableReason();
    const auto dir = std::filesystem::path(::testing::TempDir()) / ("qs_gpu_sweep_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    demo::writeDemoCheckpoint(dir);
    const Checkpoint ck = Checkpoint::open(dir);
    const std::string name = "model.layers.0.self_attn.q_proj.weight";
    const Tensor w = ck.tensor(name);
    FormatSweepOptions o;
    o.formats = {"int4", "int8", "fp8", "mxfp4", "nvfp4", "constopt"};
    o.groups = {32, 128};
    o.hadamardBlock = 64;
    o.device = DeviceChoice::Gpu;
    const FormatSweep s = runFormatSweep(w, name, o, CancelToken{});
    ASSERT_EQ(s.points.size(), 2u * (5 * 2 + 1));
    const auto N = w.shape()[0], K = w.shape()[1];
    std::vector<float> v(static_cast<std::size_t>(N * K));
    w.decodeTo(v);
    hadamardRows(v, N, K, 64);
    const Tensor rotated = Tensor::fromFloats(w.shape(), v);
    for (const auto &p : s.points) {
        ASSERT_TRUE(p.error.empty()) << p.family << ": " << p.error;
        RunOptions ro;
        ro.device = DeviceChoice::Gpu;
        const bool onRotated = p.hadamard && p.format != "constopt";
        const QuantizeRun run = runQuantize(onRotated ? rotated : w, parseQuantSpec(p.spec), ro);
        EXPECT_EQ(p.device, run.device) << p.family;
        if (run.deviceNote.empty()) // the device has the format: the sweep ran it there too
            EXPECT_NE(p.device.rfind("cpu", 0), 0u) << "ran on the CPU: " << p.family;
        EXPECT_NEAR(p.mse, run.metrics->mse, 1e-12 * run.metrics->mse) << p.family << " g" << p.group;
        EXPECT_EQ(p.bytes, run.quantized.storedBytes()) << p.family;
        EXPECT_EQ(p.bitsPerWeight, run.quantized.bitsPerElement()) << p.family;
    }
    std::filesystem::remove_all(dir);
}
