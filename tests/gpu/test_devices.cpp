// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <cmath>

#include "engine/registry.h"
#include "engine/run.h"
#include "register.h"

using namespace quantscope;

namespace {
// The GPU backend registers into the engine before any test asks the registry.
const bool kGpuRegistered = (registerGpuBackends(), true);
} // namespace

TEST(Devices, CpuAlwaysPresent)
{
    const auto &reg = BackendRegistry::instance();
    const auto devs = reg.devices();
    ASSERT_FALSE(devs.empty());
    EXPECT_EQ(devs.front().kind, DeviceKind::Cpu);
    EXPECT_GE(devs.front().threads, 1);
    EXPECT_GT(devs.front().totalMemory, 0u);
    EXPECT_FALSE(describeComputeDevice().empty());
}

TEST(Devices, GpuReportsNameAndMemoryOrAReason)
{
    const auto &reg = BackendRegistry::instance();
#if defined(QUANTSCOPE_HAVE_CUDA) || defined(QUANTSCOPE_HAVE_HIP)
    // A GPU build registers its backend: "none" here would mean registerGpuBackends() was lost,
    // and every GPU test below would skip instead of running.
    EXPECT_NE(builtGpuBackends(), "none");
    EXPECT_NE(reg.gpuUnavailableReason(), "built without a GPU backend");
#else
    EXPECT_EQ(builtGpuBackends(), "none");
#endif
    if (!reg.gpu()) {
        EXPECT_FALSE(reg.gpuUnavailableReason().empty());
        GTEST_SKIP() << "no GPU: " << reg.gpuUnavailableReason();
    }
    const DeviceInfo i = reg.gpu()->info();
    EXPECT_FALSE(i.name.empty());
    EXPECT_GT(i.totalMemory, 0u);
    EXPECT_LE(i.freeMemory, i.totalMemory);
    EXPECT_GT(i.threads, 0);
    EXPECT_EQ(&reg.preferred(), reg.gpu());
    EXPECT_NE(describeComputeDevice().find("GPU:"), std::string::npos);
}

TEST(Devices, CpuBackendDequantizeMatchesTheQuantizersOutput)
{
    const auto &cpu = BackendRegistry::instance().cpu();
    std::vector<float> x(4 * 96);
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = std::sin(0.37f * static_cast<float>(i)) * (i % 17 == 0 ? 5.0f : 1.0f);
    const Tensor w = Tensor::fromFloats({4, 96}, x);
    for (const char *spec :
         {R"({"method":"int","bits":3,"group":32,"symmetric":false})", R"({"method":"fp8","granularity":"channel"})"}) {
        const auto dev = cpu.upload(w, "t");
        const QuantizedTensor q = cpu.quantize(*dev, parseQuantSpec(nlohmann::json::parse(spec)), {});
        EXPECT_EQ(cpu.dequantize(q), q.dequantized) << spec;
    }
}
