// SPDX-License-Identifier: MIT
#include "engine/gpu_status.h"

#include <filesystem>
#include <fstream>

namespace quantscope {

GpuCause classifyGpuStart(GpuRuntimeAnswer answer, bool devicePresent)
{
    switch (answer) {
    case GpuRuntimeAnswer::Devices:
        return GpuCause::Available;
    case GpuRuntimeAnswer::NoDevice:
        return GpuCause::NoDevice;
    case GpuRuntimeAnswer::InsufficientDriver:
        // Without a GPU there is no driver to mismatch: the runtime's complaint is just
        // "nothing here".
        return devicePresent ? GpuCause::DriverMismatch : GpuCause::NoDevice;
    case GpuRuntimeAnswer::OtherError:
        return devicePresent ? GpuCause::StartFailed : GpuCause::NoDevice;
    }
    return GpuCause::NoDevice;
}

namespace {

/// The first line of a small sysfs file as an unsigned number ("0x10de" → 0x10de).
bool readHex(const std::filesystem::path &file, unsigned long &value)
{
    std::ifstream in(file);
    std::string text;
    if (!(in >> text))
        return false;
    try {
        value = std::stoul(text, nullptr, 16);
    } catch (...) {
        return false;
    }
    return true;
}

} // namespace

bool pciGpuPresent(unsigned vendorId, const std::string &sysfsDevices)
{
    std::error_code ec;
    for (std::filesystem::directory_iterator it(sysfsDevices, ec), end; !ec && it != end; it.increment(ec)) {
        unsigned long vendor = 0, cls = 0;
        if (!readHex(it->path() / "vendor", vendor) || vendor != vendorId)
            continue;
        // PCI class 0x03xxxx: display controllers (VGA 0x0300, 3D 0x0302: data-centre GPUs).
        if (readHex(it->path() / "class", cls) && (cls >> 16) == 0x03)
            return true;
    }
    return false;
}

std::string gpuVendorOf(const std::string &api)
{
    return api == "HIP" ? "AMD" : "NVIDIA";
}

std::string gpuUnavailableText(GpuCause cause, const std::string &api, const std::string &detail)
{
    const std::string vendor = gpuVendorOf(api);
    const std::string why = detail.empty() ? std::string() : " (" + detail + ")";
    switch (cause) {
    case GpuCause::Available:
        return {};
    case GpuCause::BuiltWithout:
        return "built without a GPU backend";
    case GpuCause::NoDevice:
        return "no " + vendor + " GPU found";
    case GpuCause::DriverMismatch:
        return "an " + vendor +
               " GPU is present, but its driver is missing or older than this "
               "build's " +
               api + " runtime" + why + ": install or update the " + vendor + " driver";
    case GpuCause::StartFailed:
        return "an " + vendor + " GPU is present, but it did not start" + why;
    }
    return {};
}

} // namespace quantscope
