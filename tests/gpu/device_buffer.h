// SPDX-License-Identifier: MIT
#pragma once
/// The fused-GEMM GPU tests' device memory (CUDA builds): an owned cudaMalloc buffer of at least
/// 16 bytes, filled from a host vector by put() (or one slot of it by putAt()), and CU(call)
/// asserting a CUDA call succeeded.
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
    /// v into slot `index` of a buffer of equal-size slots (expert `index` of a back-to-back batch).
    template <class T> void putAt(std::size_t index, const std::vector<T> &v)
    {
        cudaMemcpy(static_cast<char *>(p) + index * sizeof(T) * v.size(), v.data(), sizeof(T) * v.size(),
                   cudaMemcpyHostToDevice);
    }
};
