// SPDX-License-Identifier: MIT
#pragma once
/// \file backend.h
/// What the engine asks of a compute device, and the registry that picks one at run time:
/// the CPU backend always exists; a CUDA (or HIP) backend when the build has it and a device is
/// present. A failed GPU start falls back to the CPU with the reason kept for the UI/CLI.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace quantscope {

enum class DeviceKind : std::uint8_t { Cpu, Cuda, Hip };

struct DeviceInfo {
    DeviceKind kind = DeviceKind::Cpu;
    std::string id;   ///< "cpu", "cuda:0", "hip:0"
    std::string name; ///< "AMD EPYC …" / "NVIDIA H100 80GB HBM3"
    std::uint64_t totalMemory = 0; ///< bytes (host RAM for the CPU)
    std::uint64_t freeMemory = 0;  ///< bytes at the time of the query
    int threads = 1;               ///< CPU worker threads; SM count for GPUs
};

/// One compute device. Later issues add quantize / metrics / SVD / GEMM timing here.
class Backend {
public:
    virtual ~Backend() = default;
    virtual DeviceInfo info() const = 0;
};

/// Run-time registry of the devices this build can use.
class BackendRegistry {
public:
    static BackendRegistry &instance();

    const Backend &cpu() const { return *m_cpu; }
    /// The GPU backend, or nullptr when the build has none or no device could be started.
    const Backend *gpu() const { return m_gpu.get(); }
    /// Why there is no GPU backend ("built without CUDA", "no CUDA device: …").
    const std::string &gpuUnavailableReason() const { return m_gpuReason; }
    /// CPU first, then the GPU when present.
    std::vector<DeviceInfo> devices() const;
    /// The device "Auto" picks: the GPU when present, else the CPU.
    const Backend &preferred() const { return m_gpu ? *m_gpu : *m_cpu; }

private:
    BackendRegistry();
    std::unique_ptr<Backend> m_cpu;
    std::unique_ptr<Backend> m_gpu;
    std::string m_gpuReason;
};

/// One line for status bars and `--version`: "GPU: NVIDIA H100 (CUDA, 79.1 GiB free of 79.6)"
/// or "CPU: 2 threads (no GPU: built without CUDA)".
std::string describeComputeDevice();

/// Which GPU backends this build contains ("CUDA", "HIP" or "none").
std::string builtGpuBackends();

} // namespace quantscope
