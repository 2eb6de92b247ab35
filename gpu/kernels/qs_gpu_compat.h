// SPDX-License-Identifier: MIT
#pragma once
/// \file qs_gpu_compat.h
/// The one portability layer between CUDA (nvcc) and HIP (hipcc): every kernel source and the
/// engine include this header and use only the QS_ names below for what differs between the two.
///   QS_WARP_SIZE        32 on NVIDIA, 64 on AMD CDNA (wave64)
///   QS_SHFL_XOR(v, m)   butterfly shuffle within the warp (all lanes take part)
///   QS_SHFL_DOWN(v, d)  shuffle from lane + d
///   QS_ATOMIC_*         device atomics used by the kernels
///   qs*                 runtime API (qsMalloc, qsMemcpyAsync, qsStream_t, …)
///   QS_GPU_CHECK(call)  throws quantscope::GpuError("call: message") when the call fails
/// Include it only from sources compiled by nvcc or hipcc.
#include <string>

#include "util/error.h"

#if defined(__HIPCC__) || defined(QUANTSCOPE_HIP)
#include <hip/hip_runtime.h>
#define QS_GPU_HIP 1
#define QS_GPU_API_NAME "HIP"
#if defined(__GFX8__) || defined(__GFX9__) || !defined(__HIP_DEVICE_COMPILE__)
#define QS_WARP_SIZE 64
#else
#define QS_WARP_SIZE 32 // RDNA (wave32)
#endif
using qsError_t = hipError_t;
using qsStream_t = hipStream_t;
using qsEvent_t = hipEvent_t;
#define qsSuccess hipSuccess
#define qsErrorMemoryAllocation hipErrorOutOfMemory
#define qsErrorNoDevice hipErrorNoDevice
#define qsErrorInsufficientDriver hipErrorInsufficientDriver
#define QS_GPU_PCI_VENDOR 0x1002u
#define qsGetErrorString hipGetErrorString
#define qsGetLastError hipGetLastError
#define qsGetDeviceCount hipGetDeviceCount
#define qsSetDevice hipSetDevice
#define qsMemGetInfo hipMemGetInfo
#define qsMalloc hipMalloc
#define qsFree hipFree
#define qsMallocHost hipHostMalloc
#define qsFreeHost hipHostFree
#define qsMemcpyAsync hipMemcpyAsync
#define qsMemsetAsync hipMemsetAsync
#define qsMemcpyHostToDevice hipMemcpyHostToDevice
#define qsMemcpyDeviceToHost hipMemcpyDeviceToHost
#define qsMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define qsStreamCreateNonBlocking(s) hipStreamCreateWithFlags((s), hipStreamNonBlocking)
#define qsStreamDestroy hipStreamDestroy
#define qsStreamSynchronize hipStreamSynchronize
#define qsEventCreate hipEventCreate
#define qsEventDestroy hipEventDestroy
#define qsEventRecord hipEventRecord
#define qsStreamWaitEvent(s, e) hipStreamWaitEvent((s), (e), 0)
#define qsEventSynchronize hipEventSynchronize
#define qsEventElapsedTime hipEventElapsedTime
#define qsOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor
/// All blocks resident at once (the kernel may wait on the others: grid barriers).
#define qsLaunchCooperativeKernel(f, grid, block, args, smem, stream)                                                  \
    hipLaunchCooperativeKernel(reinterpret_cast<const void *>(f), (grid), (block), (args), (smem), (stream))
#define qsFuncSetMaxDynamicSharedMemory(f, bytes)                                                                      \
    hipFuncSetAttribute(reinterpret_cast<const void *>(f), hipFuncAttributeMaxDynamicSharedMemorySize, (bytes))
#define QS_SHFL_XOR(v, m) __shfl_xor((v), (m))
#define QS_SHFL_DOWN(v, d) __shfl_down((v), (d))
#define QS_SHFL_UP(v, d) __shfl_up((v), (d))
#define QS_ALL(p) __all(p)  ///< the whole warp: true when p holds in every lane
#define QS_HAVE_MATCH_ANY 0 // no __match_any_sync: histogram atomics are not warp-aggregated
struct qsDeviceProps {
    std::string name;
    int multiProcessorCount = 0, major = 0, minor = 0;
    size_t totalGlobalMem = 0, l2CacheSize = 0, sharedMemPerBlockOptin = 0;
};
inline qsError_t qsGetDeviceProps(qsDeviceProps &p, int dev)
{
    hipDeviceProp_t d{};
    const hipError_t e = hipGetDeviceProperties(&d, dev);
    if (e == hipSuccess) {
        p.name = d.name;
        p.multiProcessorCount = d.multiProcessorCount;
        p.major = d.major;
        p.minor = d.minor;
        p.totalGlobalMem = d.totalGlobalMem;
        p.l2CacheSize = static_cast<size_t>(d.l2CacheSize);
        p.sharedMemPerBlockOptin = d.maxSharedMemoryPerMultiProcessor;
    }
    return e;
}
#else
#include <cuda_runtime.h>
#define QS_GPU_CUDA 1
#define QS_GPU_API_NAME "CUDA"
#define QS_WARP_SIZE 32
using qsError_t = cudaError_t;
using qsStream_t = cudaStream_t;
using qsEvent_t = cudaEvent_t;
#define qsSuccess cudaSuccess
#define qsErrorMemoryAllocation cudaErrorMemoryAllocation
#define qsErrorNoDevice cudaErrorNoDevice
#define qsErrorInsufficientDriver cudaErrorInsufficientDriver
#define QS_GPU_PCI_VENDOR 0x10deu
#define qsGetErrorString cudaGetErrorString
#define qsGetLastError cudaGetLastError
#define qsGetDeviceCount cudaGetDeviceCount
#define qsSetDevice cudaSetDevice
#define qsMemGetInfo cudaMemGetInfo
#define qsMalloc cudaMalloc
#define qsFree cudaFree
#define qsMallocHost cudaMallocHost
#define qsFreeHost cudaFreeHost
#define qsMemcpyAsync cudaMemcpyAsync
#define qsMemsetAsync cudaMemsetAsync
#define qsMemcpyHostToDevice cudaMemcpyHostToDevice
#define qsMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define qsMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define qsStreamCreateNonBlocking(s) cudaStreamCreateWithFlags((s), cudaStreamNonBlocking)
#define qsStreamDestroy cudaStreamDestroy
#define qsStreamSynchronize cudaStreamSynchronize
#define qsEventCreate cudaEventCreate
#define qsEventDestroy cudaEventDestroy
#define qsEventRecord cudaEventRecord
#define qsStreamWaitEvent(s, e) cudaStreamWaitEvent((s), (e), 0)
#define qsEventSynchronize cudaEventSynchronize
#define qsEventElapsedTime cudaEventElapsedTime
#define qsOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
/// All blocks resident at once (the kernel may wait on the others: grid barriers).
#define qsLaunchCooperativeKernel(f, grid, block, args, smem, stream)                                                  \
    cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(f), (grid), (block), (args), (smem), (stream))
#define qsFuncSetMaxDynamicSharedMemory(f, bytes)                                                                      \
    cudaFuncSetAttribute((f), cudaFuncAttributeMaxDynamicSharedMemorySize, (bytes))
#define QS_SHFL_XOR(v, m) __shfl_xor_sync(0xFFFFFFFFu, (v), (m))
#define QS_SHFL_DOWN(v, d) __shfl_down_sync(0xFFFFFFFFu, (v), (d))
#define QS_SHFL_UP(v, d) __shfl_up_sync(0xFFFFFFFFu, (v), (d))
#define QS_ALL(p) __all_sync(0xFFFFFFFFu, (p)) ///< the whole warp: true when p holds in every lane
#define QS_HAVE_MATCH_ANY 1                    // sm_70+: lanes adding to the same histogram bin are merged first
#define QS_MATCH_ANY(v) __match_any_sync(__activemask(), (v))
struct qsDeviceProps {
    std::string name;
    int multiProcessorCount = 0, major = 0, minor = 0;
    size_t totalGlobalMem = 0, l2CacheSize = 0, sharedMemPerBlockOptin = 0;
};
inline qsError_t qsGetDeviceProps(qsDeviceProps &p, int dev)
{
    cudaDeviceProp d{};
    const cudaError_t e = cudaGetDeviceProperties(&d, dev);
    if (e == cudaSuccess) {
        p.name = d.name;
        p.multiProcessorCount = d.multiProcessorCount;
        p.major = d.major;
        p.minor = d.minor;
        p.totalGlobalMem = d.totalGlobalMem;
        p.l2CacheSize = static_cast<size_t>(d.l2CacheSize);
        p.sharedMemPerBlockOptin = d.sharedMemPerBlockOptin;
    }
    return e;
}
#endif

// Device atomics the kernels use (both APIs spell these the same; kept behind QS_ names so a
// port that needs another spelling changes this header only).
#define QS_ATOMIC_ADD(p, v) atomicAdd((p), (v))
#define QS_ATOMIC_MIN(p, v) atomicMin((p), (v))
#define QS_ATOMIC_MAX(p, v) atomicMax((p), (v))
#define QS_ATOMIC_OR(p, v) atomicOr((p), (v))

/// Every runtime call goes through this: a failure becomes quantscope::GpuError naming the call.
#define QS_GPU_CHECK(call)                                                                                             \
    do {                                                                                                               \
        const qsError_t qs_err_ = (call);                                                                              \
        if (qs_err_ != qsSuccess)                                                                                      \
            throw ::quantscope::GpuError(std::string(#call) + ": " + qsGetErrorString(qs_err_));                       \
    } while (0)

/// After a kernel launch: launch errors (bad configuration, missing kernel image) become GpuError.
#define QS_GPU_CHECK_LAUNCH(what)                                                                                      \
    do {                                                                                                               \
        const qsError_t qs_err_ = qsGetLastError();                                                                    \
        if (qs_err_ != qsSuccess)                                                                                      \
            throw ::quantscope::GpuError(std::string("launch of ") + (what) + ": " + qsGetErrorString(qs_err_));       \
    } while (0)
