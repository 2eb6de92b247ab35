// SPDX-License-Identifier: MIT
// The no-GPU wording follows the actual cause: "no NVIDIA GPU found" where the machine has none
// (even when the CUDA runtime blames the driver, as it does where no driver is installed), a
// driver/runtime mismatch only where an NVIDIA GPU sits on the PCI bus. The PCI probe is run on
// a fake sysfs tree.
#include "engine/gpu_status.h"
#include "engine/registry.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

using namespace quantscope;

namespace {

struct FakeSysfs {
    std::filesystem::path root;
    FakeSysfs()
    {
        root = std::filesystem::temp_directory_path() / ("qs-sysfs-" + std::to_string(std::random_device{}()));
        std::filesystem::create_directories(root);
    }
    ~FakeSysfs() { std::filesystem::remove_all(root); }
    void add(const std::string &slot, const std::string &vendor, const std::string &cls)
    {
        std::filesystem::create_directories(root / slot);
        std::ofstream(root / slot / "vendor") << vendor << "\n";
        std::ofstream(root / slot / "class") << cls << "\n";
    }
};

} // namespace

TEST(GpuStatus, ClassifiesEachRuntimeAnswer)
{
    EXPECT_EQ(classifyGpuStart(GpuRuntimeAnswer::Devices, true), GpuCause::Available);
    for (bool present : {false, true})
        EXPECT_EQ(classifyGpuStart(GpuRuntimeAnswer::NoDevice, present), GpuCause::NoDevice);
    // The runtime says "insufficient driver" also where no driver exists because no GPU does.
    EXPECT_EQ(classifyGpuStart(GpuRuntimeAnswer::InsufficientDriver, false), GpuCause::NoDevice);
    EXPECT_EQ(classifyGpuStart(GpuRuntimeAnswer::InsufficientDriver, true), GpuCause::DriverMismatch);
    EXPECT_EQ(classifyGpuStart(GpuRuntimeAnswer::OtherError, false), GpuCause::NoDevice);
    EXPECT_EQ(classifyGpuStart(GpuRuntimeAnswer::OtherError, true), GpuCause::StartFailed);
}

TEST(GpuStatus, WordingNamesTheCause)
{
    const std::string detail = "CUDA driver version is insufficient for CUDA runtime version";
    EXPECT_EQ(gpuUnavailableText(GpuCause::NoDevice, "CUDA", detail), "no NVIDIA GPU found");
    EXPECT_EQ(gpuUnavailableText(GpuCause::NoDevice, "HIP", ""), "no AMD GPU found");
    EXPECT_EQ(gpuUnavailableText(GpuCause::BuiltWithout, "", ""), "built without a GPU backend");
    EXPECT_EQ(gpuUnavailableText(GpuCause::Available, "CUDA", detail), "");

    const auto mismatch = gpuUnavailableText(GpuCause::DriverMismatch, "CUDA", detail);
    EXPECT_NE(mismatch.find("NVIDIA GPU is present"), std::string::npos) << mismatch;
    EXPECT_NE(mismatch.find("driver"), std::string::npos) << mismatch;
    EXPECT_NE(mismatch.find(detail), std::string::npos) << mismatch;

    const auto failed = gpuUnavailableText(GpuCause::StartFailed, "CUDA", "out of memory");
    EXPECT_NE(failed.find("present"), std::string::npos) << failed;
    EXPECT_NE(failed.find("out of memory"), std::string::npos) << failed;
    // Only a present device is ever told about drivers.
    for (auto c : {GpuCause::NoDevice, GpuCause::BuiltWithout, GpuCause::StartFailed})
        EXPECT_EQ(gpuUnavailableText(c, "CUDA", "").find("driver"), std::string::npos);
}

TEST(GpuStatus, PciProbeFindsOnlyDisplayControllersOfTheVendor)
{
    FakeSysfs sys;
    sys.add("0000:00:02.0", "0x8086", "0x030000"); // an Intel VGA controller
    sys.add("0000:01:00.1", "0x10de", "0x040300"); // an NVIDIA HDMI audio function
    EXPECT_FALSE(pciGpuPresent(0x10de, sys.root.string()));
    EXPECT_TRUE(pciGpuPresent(0x8086, sys.root.string()));
    sys.add("0000:41:00.0", "0x10de", "0x030200"); // an NVIDIA 3D controller (H100)
    EXPECT_TRUE(pciGpuPresent(0x10de, sys.root.string()));
    EXPECT_FALSE(pciGpuPresent(0x1002, sys.root.string()));
    EXPECT_FALSE(pciGpuPresent(0x10de, (sys.root / "missing").string()));
}

TEST(GpuStatus, RegistryReasonMatchesItsCause)
{
    const auto &reg = BackendRegistry::instance();
    if (reg.gpu()) {
        EXPECT_EQ(reg.gpuUnavailableCause(), GpuCause::Available);
        return;
    }
    const auto cause = reg.gpuUnavailableCause();
    EXPECT_NE(cause, GpuCause::Available);
    if (cause == GpuCause::BuiltWithout || cause == GpuCause::NoDevice)
        EXPECT_EQ(reg.gpuUnavailableReason(), gpuUnavailableText(cause, builtGpuBackends(), ""));
    else // a GPU is present: the sentence says so and carries the runtime's detail
        EXPECT_EQ(reg.gpuUnavailableReason().rfind("an ", 0), 0u) << reg.gpuUnavailableReason();
}
