// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include "backend.h"

using namespace quantscope;

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
