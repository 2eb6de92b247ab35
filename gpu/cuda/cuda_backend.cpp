// SPDX-License-Identifier: MIT
#include "cuda/cuda_backend.h"

#include <cuda_runtime.h>

#include "util/error.h"

namespace quantscope {

namespace {

class CudaBackend final : public Backend {
public:
    CudaBackend(int device, const cudaDeviceProp &prop) : m_device(device)
    {
        m_info.kind = DeviceKind::Cuda;
        m_info.id = "cuda:" + std::to_string(device);
        m_info.name = prop.name;
        m_info.totalMemory = prop.totalGlobalMem;
        m_info.threads = prop.multiProcessorCount;
    }
    DeviceInfo info() const override
    {
        DeviceInfo i = m_info;
        size_t freeB = 0, totalB = 0;
        if (cudaSetDevice(m_device) == cudaSuccess && cudaMemGetInfo(&freeB, &totalB) == cudaSuccess) {
            i.freeMemory = freeB;
            i.totalMemory = totalB;
        }
        return i;
    }

    // The CUDA kernels arrive with the GPU issue; until then no method is claimed, so the
    // engine computes on the CPU and says so (runQuantize's deviceNote).
    bool supports(const std::string &) const override { return false; }
    std::shared_ptr<const DeviceTensor> upload(const Tensor &, const std::string &name) const override
    {
        throw GpuError("no CUDA kernels in this build yet", Location{{}, name, {}});
    }
    QuantizedTensor quantize(const DeviceTensor &, const nlohmann::json &, const QuantizeOptions &o,
                             const CancelToken *) const override
    {
        throw GpuError("no CUDA kernels in this build yet", Location{{}, o.tensorName, {}});
    }
    std::vector<float> dequantize(const QuantizedTensor &q) const override
    {
        throw GpuError("no CUDA kernels in this build yet", Location{{}, q.tensorName, {}});
    }
    ErrorMetrics metrics(const DeviceTensor &, std::span<const float>, const ErrorMetricsOptions &,
                         const CancelToken *) const override
    {
        throw GpuError("no CUDA kernels in this build yet");
    }

private:
    int m_device;
    DeviceInfo m_info;
};

} // namespace

std::unique_ptr<Backend> createCudaBackend(std::string &reason)
{
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        reason = std::string("no CUDA device: ") + cudaGetErrorString(err);
        return nullptr;
    }
    if (count == 0) {
        reason = "no CUDA device present";
        return nullptr;
    }
    cudaDeviceProp prop{};
    if (const cudaError_t e = cudaGetDeviceProperties(&prop, 0); e != cudaSuccess) {
        reason = std::string("CUDA device 0 did not answer: ") + cudaGetErrorString(e);
        return nullptr;
    }
    return std::make_unique<CudaBackend>(0, prop);
}

} // namespace quantscope
