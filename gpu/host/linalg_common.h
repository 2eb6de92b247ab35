// SPDX-License-Identifier: MIT
#pragma once
/// \file linalg_common.h
/// cuBLAS / cuSOLVER plumbing of the engine's linear algebra (CUDA builds only; internal to
/// gpu/kernels): the library handles, created once per process and bound to the engine's stream
/// per call, and status checks that throw GpuError naming the call.
#include <string>

#include <cublas_v2.h>
#include <cusolverDn.h>

#include "util/error.h"

namespace quantscope::gpu {

inline void checkBlas(cublasStatus_t s, const char *what)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        throw GpuError(std::string("cuBLAS ") + what + " failed (status " + std::to_string(static_cast<int>(s)) + ")");
}
inline void checkSolver(cusolverStatus_t s, const char *what)
{
    if (s != CUSOLVER_STATUS_SUCCESS)
        throw GpuError(std::string("cuSOLVER ") + what + " failed (status " + std::to_string(static_cast<int>(s)) +
                       ")");
}

struct LinalgHandles {
    cublasHandle_t blas = nullptr;
    cusolverDnHandle_t solver = nullptr;
};

/// The handles (device 0, the engine's device), bound to `stream`.
LinalgHandles &linalgHandles(void *stream);

} // namespace quantscope::gpu
