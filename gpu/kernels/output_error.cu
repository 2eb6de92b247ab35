// SPDX-License-Identifier: MIT
// The output-aware error's element-wise and reduction kernels (docs/numerics.md "Output-aware
// error"). The products DᵀD are cuBLAS's (engine_outerr.cpp); here: the residual split into BF16
// hi + lo, the Gram's symmetric part, and the FP64 reductions in a fixed order (the same bits on
// every run of a device).
#define QS_HD __host__ __device__

#include "kernel_common.cuh"
#include "kernels_outerr.h"

namespace quantscope::gpu::launch {

namespace {

constexpr int kOThreads = 256;

/// FP32 → BF16 bits, round to nearest even (NaN stays NaN).
__device__ __forceinline__ unsigned short toBf16(float x)
{
    const unsigned u = __float_as_uint(x);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u)
        return 0x7FC0;
    return static_cast<unsigned short>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
__device__ __forceinline__ float fromBf16(unsigned short h)
{
    return __uint_as_float(static_cast<unsigned>(h) << 16);
}

template <int IN, int SPLIT>
__global__ void __launch_bounds__(kOThreads)
    kSplit(const void *w, const float *wHat, long long n, void *out0, void *out1)
{
    const long long stride = static_cast<long long>(gridDim.x) * kOThreads;
    for (long long i = static_cast<long long>(blockIdx.x) * kOThreads + threadIdx.x; i < n; i += stride) {
        const double d = static_cast<double>(decode1<IN>(w, i)) - (wHat ? static_cast<double>(wHat[i]) : 0.0);
        if constexpr (SPLIT == 2) {
            static_cast<float *>(out0)[i] = static_cast<float>(d);
        } else {
            const unsigned short hi = toBf16(static_cast<float>(d));
            static_cast<unsigned short *>(out0)[i] = hi;
            if constexpr (SPLIT == 0)
                static_cast<unsigned short *>(out1)[i] =
                    toBf16(static_cast<float>(d - static_cast<double>(fromBf16(hi))));
        }
    }
}

__global__ void kSymmetrize(const float *g, float *h, long long k)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x, j = blockIdx.y;
    if (i < k)
        h[i + j * k] = (g[i + j * k] + g[j + i * k]) * 0.5f;
}

/// Sums a[0..kOThreads) into a[0] with a fixed tree.
__device__ void blockSum(double *a)
{
    for (int s = kOThreads / 2; s > 0; s /= 2) {
        __syncthreads();
        if (threadIdx.x < s)
            a[threadIdx.x] += a[threadIdx.x + s];
    }
    __syncthreads();
}

__global__ void __launch_bounds__(kOThreads)
    kTraceColumns(const float *h, const float *p, const float *c, long long k, long long block, double *partials)
{
    __shared__ double a[kOThreads];
    const long long j = blockIdx.x, bj = j / block;
    const float *hj = h + j * k, *pj = p + j * k, *cj = c ? c + j * k : nullptr;
    double s = 0;
    for (long long i = threadIdx.x; i < k; i += kOThreads) {
        const long long bi = i / block;
        double t = 0;
        if (bi >= bj)
            t = (bi > bj ? 2.0 : 1.0) * static_cast<double>(pj[i]);
        if (cj)
            t += 2.0 * static_cast<double>(cj[i]);
        s += static_cast<double>(hj[i]) * t;
    }
    a[threadIdx.x] = s;
    blockSum(a);
    if (threadIdx.x == 0)
        partials[j] = a[0];
}

__global__ void __launch_bounds__(kOThreads) kFinish(const double *partials, long long count, double *out)
{
    __shared__ double a[kOThreads];
    double s = 0;
    for (long long i = threadIdx.x; i < count; i += kOThreads)
        s += partials[i];
    a[threadIdx.x] = s;
    blockSum(a);
    if (threadIdx.x == 0)
        *out = a[0];
}

template <int IN>
__global__ void __launch_bounds__(kOThreads)
    kDiag(const void *w, const float *wHat, long long n, long long k, const double *g, double *partials)
{
    __shared__ double a[kOThreads];
    const long long stride = static_cast<long long>(gridDim.x) * kOThreads;
    double s = 0;
    for (long long i = static_cast<long long>(blockIdx.x) * kOThreads + threadIdx.x; i < n; i += stride) {
        const double d = static_cast<double>(decode1<IN>(w, i)) - (wHat ? static_cast<double>(wHat[i]) : 0.0);
        s += d * d * g[i % k];
    }
    a[threadIdx.x] = s;
    blockSum(a);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = a[0];
}

unsigned gridFor(long long n)
{
    const long long b = (n + kOThreads - 1) / kOThreads;
    return static_cast<unsigned>(b < 8192 ? (b > 0 ? b : 1) : 8192);
}

} // namespace

void splitResidual(int in, const void *w, const float *wHat, long long n, ResidualSplit split, void *out0, void *out1,
                   void *stream)
{
    const auto s = static_cast<qsStream_t>(stream);
    dispatchIn(in, [&](auto I) {
        constexpr int IN = decltype(I)::value;
        if (split == ResidualSplit::Bf16HiLo)
            kSplit<IN, 0><<<gridFor(n), kOThreads, 0, s>>>(w, wHat, n, out0, out1);
        else if (split == ResidualSplit::Bf16)
            kSplit<IN, 1><<<gridFor(n), kOThreads, 0, s>>>(w, wHat, n, out0, out1);
        else
            kSplit<IN, 2><<<gridFor(n), kOThreads, 0, s>>>(w, wHat, n, out0, out1);
    });
    QS_GPU_CHECK(qsGetLastError());
}

void symmetrizeGram(const float *g, float *h, long long k, void *stream)
{
    const dim3 grid(static_cast<unsigned>((k + kOThreads - 1) / kOThreads), static_cast<unsigned>(k));
    kSymmetrize<<<grid, kOThreads, 0, static_cast<qsStream_t>(stream)>>>(g, h, k);
    QS_GPU_CHECK(qsGetLastError());
}

void gramTrace(const float *h, const float *p, const float *c, long long k, long long block, double *partials,
               double *out, void *stream)
{
    const auto s = static_cast<qsStream_t>(stream);
    kTraceColumns<<<static_cast<unsigned>(k), kOThreads, 0, s>>>(h, p, c, k, block, partials);
    kFinish<<<1, kOThreads, 0, s>>>(partials, k, out);
    QS_GPU_CHECK(qsGetLastError());
}

void gramDiagonal(int in, const void *w, const float *wHat, long long n, long long k, const double *g, double *partials,
                  double *out, void *stream)
{
    const auto s = static_cast<qsStream_t>(stream);
    dispatchIn(
        in, [&](auto I) { kDiag<decltype(I)::value><<<kDiagBlocks, kOThreads, 0, s>>>(w, wHat, n, k, g, partials); });
    kFinish<<<1, kOThreads, 0, s>>>(partials, kDiagBlocks, out);
    QS_GPU_CHECK(qsGetLastError());
}

} // namespace quantscope::gpu::launch
