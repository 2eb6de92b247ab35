// SPDX-License-Identifier: MIT
#pragma once
/// \file gpu_status.h
/// Why there is no GPU, in words that follow the actual cause. The CUDA runtime answers
/// "insufficient driver" both where an old driver serves a GPU and where no driver is installed
/// because the machine has no GPU at all; only the first is a driver/runtime mismatch. So the
/// runtime's answer is read together with whether a GPU of the vendor sits on the PCI bus.
/// GPU-free: the gpu/ library classifies its runtime's error codes into GpuRuntimeAnswer.
#include <string>

namespace quantscope {

enum class GpuCause {
    Available,      ///< a GPU backend runs
    BuiltWithout,   ///< this build has no GPU backend
    NoDevice,       ///< no GPU of the vendor on this machine
    DriverMismatch, ///< a GPU is present, but its driver is missing or older than the runtime
    StartFailed,    ///< a GPU is present and the driver answers, yet the device did not start
};

/// What the GPU runtime's device count said.
enum class GpuRuntimeAnswer {
    Devices,            ///< success with at least one device
    NoDevice,           ///< success with zero devices, or the runtime's "no device" error
    InsufficientDriver, ///< the runtime's "driver missing or too old" error
    OtherError,         ///< any other error
};

/// The cause from the runtime's answer and whether a GPU of the vendor is on the PCI bus.
GpuCause classifyGpuStart(GpuRuntimeAnswer answer, bool devicePresent);

/// True when a display or 3D controller of PCI vendor `vendorId` (0x10de NVIDIA, 0x1002 AMD)
/// is listed under `sysfsDevices` (Linux sysfs; false where it cannot be read).
bool pciGpuPresent(unsigned vendorId, const std::string &sysfsDevices = "/sys/bus/pci/devices");

/// The GPU vendor of a runtime API: "CUDA" → "NVIDIA", "HIP" → "AMD".
std::string gpuVendorOf(const std::string &api);

/// One English sentence for the CLI, logs and status lines, e.g. "no NVIDIA GPU found" or "an
/// NVIDIA GPU is present, but its driver does not match this build's CUDA runtime (…)".
/// `detail` is the runtime's own message (may be empty).
std::string gpuUnavailableText(GpuCause cause, const std::string &api, const std::string &detail);

} // namespace quantscope
