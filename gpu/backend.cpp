// SPDX-License-Identifier: MIT
#include "backend.h"

#include <cstdio>

#include "cpu/cpu_backend.h"
#ifdef QUANTSCOPE_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

namespace quantscope {

BackendRegistry &BackendRegistry::instance()
{
    static BackendRegistry registry; // thread-safe initialisation (C++11 magic statics)
    return registry;
}

BackendRegistry::BackendRegistry() : m_cpu(std::make_unique<CpuBackend>())
{
#ifdef QUANTSCOPE_HAVE_CUDA
    m_gpu = createCudaBackend(m_gpuReason);
#else
    m_gpuReason = "built without a GPU backend";
#endif
}

std::vector<DeviceInfo> BackendRegistry::devices() const
{
    std::vector<DeviceInfo> list{m_cpu->info()};
    if (m_gpu)
        list.push_back(m_gpu->info());
    return list;
}

std::string builtGpuBackends()
{
#ifdef QUANTSCOPE_HAVE_CUDA
    return "CUDA";
#else
    return "none";
#endif
}

std::string describeComputeDevice()
{
    const auto &reg = BackendRegistry::instance();
    char buf[512];
    if (const Backend *gpu = reg.gpu()) {
        const DeviceInfo i = gpu->info();
        std::snprintf(buf, sizeof buf, "GPU: %s (%s, %.1f GiB free of %.1f)", i.name.c_str(),
                      i.kind == DeviceKind::Hip ? "HIP" : "CUDA",
                      static_cast<double>(i.freeMemory) / (1u << 30),
                      static_cast<double>(i.totalMemory) / (1u << 30));
        return buf;
    }
    const DeviceInfo c = reg.cpu().info();
    std::snprintf(buf, sizeof buf, "CPU: %d threads (no GPU: %s)", c.threads,
                  reg.gpuUnavailableReason().c_str());
    return buf;
}

} // namespace quantscope
