// SPDX-License-Identifier: MIT
#pragma once
/// \file registry.h
/// The run-time registry of compute devices. The CPU backend always exists. A GPU backend is
/// installed by the gpu/ library (registerGpuBackends() in gpu/register.h, called once by each
/// program's main before the registry is first used): core knows no CUDA or HIP. A failed GPU
/// start leaves the CPU alone with the reason kept for the UI and the CLI.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend.h"
#include "engine/gpu_status.h"

namespace quantscope {

class BackendRegistry {
public:
    /// Creates the GPU backend, or returns nullptr with `reason` (gpuUnavailableText()) and
    /// `cause` set.
    using GpuFactory = std::function<std::unique_ptr<Backend>(std::string &reason, GpuCause &cause)>;
    /// Installs the GPU backend's factory and the name of the GPU API this build contains
    /// ("CUDA", "HIP"). Takes effect when the registry is first used; later calls are ignored.
    static void setGpuFactory(std::string builtApi, GpuFactory factory);

    static BackendRegistry &instance();

    const Backend &cpu() const { return *m_cpu; }
    /// The GPU backend, or nullptr when the build has none or no device could be started.
    const Backend *gpu() const { return m_gpu.get(); }
    /// Why there is no GPU backend ("built without a GPU backend", "no CUDA device: …").
    const std::string &gpuUnavailableReason() const { return m_gpuReason; }
    /// The cause behind gpuUnavailableReason() (Available when there is a GPU).
    GpuCause gpuUnavailableCause() const { return m_gpuCause; }
    /// CPU first, then the GPU when present.
    std::vector<DeviceInfo> devices() const;
    /// The device "Auto" picks: the GPU when present, else the CPU.
    const Backend &preferred() const { return m_gpu ? *m_gpu : *m_cpu; }

private:
    BackendRegistry();
    std::unique_ptr<Backend> m_cpu;
    std::unique_ptr<Backend> m_gpu;
    std::string m_gpuReason;
    GpuCause m_gpuCause = GpuCause::Available;
};

/// One line for status bars and `--version`: "GPU: NVIDIA H100 (CUDA, 79.1 GiB free of 79.6)"
/// or "CPU: 2 threads (no NVIDIA GPU found)".
std::string describeComputeDevice();

/// Which GPU backends this build contains ("CUDA", "HIP" or "none").
std::string builtGpuBackends();

} // namespace quantscope
