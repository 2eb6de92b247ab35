// SPDX-License-Identifier: MIT
#pragma once
/// The fused-GEMM GPU tests' device memory (CUDA builds): an owned cudaMalloc buffer of at least
/// 16 bytes, filled from a host vector by put(), and CU(call) asserting a CUDA call succeeded.
#include <algorithm>
#include <cstddef>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#define CU(call) ASSERT_EQ((call), cudaSuccess) << #call

struct DevBuf {
    void *p = nullptr;
    explicit DevBuf(std::size_t bytes) { cudaMalloc(&p, std::max<std::size_t>(bytes, 16)); }
    ~DevBuf() { cudaFree(p); }
    DevBuf(const DevBuf &) = delete;
    DevBuf &operator=(const DevBuf &) = delete;
    template <class T> void put(const std::vector<T> &v)
    {
        cudaMemcpy(p, v.data(), sizeof(T) * v.size(), cudaMemcpyHostToDevice);
    }
};
