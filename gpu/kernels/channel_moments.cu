// SPDX-License-Identifier: MIT
// Per-channel moment sums of an R×C matrix on the device (the scan's per-channel kurtosis where
// the weight already is): per row and per column the count of finite values and the FP64 central
// sums Σ(x − μ)², Σ(x − μ)⁴ about that channel's mean — two passes, as
// computeChannelKurtosis (core/results/channel_profile.cpp) takes them. Every reduction runs in a
// fixed order (block trees, then the row slices in order), so a device gives the same bits on
// every run; they differ from the CPU's serial sums only by rounding.
#define QS_HD __host__ __device__

#include "kernel_common.cuh"
#include "kernels_sweep.h"

namespace quantscope::gpu::launch {

namespace {

constexpr int kMThreads = 256;
constexpr long long kSliceRows = 64; // rows per column partial

__device__ __forceinline__ bool finiteF(float v)
{
    return fabsf(v) <= 3.402823466e38f;
}

/// Sums a[0..kMThreads) of each of the three arrays into a[0] with a fixed tree.
__device__ void blockSum3(double *a, double *b, double *c)
{
    for (int h = kMThreads / 2; h > 0; h /= 2) {
        __syncthreads();
        if (threadIdx.x < h) {
            a[threadIdx.x] += a[threadIdx.x + h];
            b[threadIdx.x] += b[threadIdx.x + h];
            c[threadIdx.x] += c[threadIdx.x + h];
        }
    }
    __syncthreads();
}

/// One block per row: count and sum, then the central sums about the row's mean.
template <int IN> __global__ void __launch_bounds__(kMThreads) kRowMoments(const void *w, long long C, double *rows)
{
    __shared__ double a[kMThreads], b[kMThreads], c[kMThreads];
    const long long base = static_cast<long long>(blockIdx.x) * C;
    double cnt = 0, sum = 0;
    for (long long j = threadIdx.x; j < C; j += kMThreads) {
        const float v = decode1<IN>(w, base + j);
        const bool f = finiteF(v);
        cnt += f ? 1.0 : 0.0;
        sum += f ? static_cast<double>(v) : 0.0;
    }
    a[threadIdx.x] = cnt, b[threadIdx.x] = sum, c[threadIdx.x] = 0;
    blockSum3(a, b, c);
    const double n = a[0], mu = n > 0 ? b[0] / n : 0.0;
    double s2 = 0, s4 = 0;
    for (long long j = threadIdx.x; j < C; j += kMThreads) {
        const float v = decode1<IN>(w, base + j);
        const double d = finiteF(v) ? static_cast<double>(v) - mu : 0.0, d2 = d * d;
        s2 += d2;
        s4 += d2 * d2;
    }
    __syncthreads(); // every thread has read a[0], b[0]
    a[threadIdx.x] = 0, b[threadIdx.x] = s2, c[threadIdx.x] = s4;
    blockSum3(a, b, c);
    if (threadIdx.x == 0) {
        rows[3 * blockIdx.x + 0] = n;
        rows[3 * blockIdx.x + 1] = b[0];
        rows[3 * blockIdx.x + 2] = c[0];
    }
}

/// Column partials over slices of kSliceRows rows: pass 1 (mean == nullptr) count and sum, pass 2
/// the central sums about the column means. part[(s · C + j) · 2 + {0, 1}].
template <int IN>
__global__ void __launch_bounds__(kMThreads)
    kColPartials(const void *w, long long R, long long C, const double *mean, double *part)
{
    const long long j = static_cast<long long>(blockIdx.x) * kMThreads + threadIdx.x;
    if (j >= C)
        return;
    const long long s = blockIdx.y, r0 = s * kSliceRows, r1 = r0 + kSliceRows < R ? r0 + kSliceRows : R;
    double x = 0, y = 0;
    if (!mean) {
        for (long long r = r0; r < r1; ++r) {
            const float v = decode1<IN>(w, r * C + j);
            const bool f = finiteF(v);
            x += f ? 1.0 : 0.0;
            y += f ? static_cast<double>(v) : 0.0;
        }
    } else {
        const double mu = mean[j];
        for (long long r = r0; r < r1; ++r) {
            const float v = decode1<IN>(w, r * C + j);
            const double e = finiteF(v) ? static_cast<double>(v) - mu : 0.0, e2 = e * e;
            x += e2;
            y += e2 * e2;
        }
    }
    part[(s * C + j) * 2 + 0] = x;
    part[(s * C + j) * 2 + 1] = y;
}

/// The slices' partials of each column added in slice order. Pass 1: count → cols[3j], mean →
/// mean[j]; pass 2: the central sums → cols[3j + 1], cols[3j + 2].
__global__ void kColFinish(const double *part, long long slices, long long C, bool second, double *mean, double *cols)
{
    const long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j >= C)
        return;
    double x = 0, y = 0;
    for (long long s = 0; s < slices; ++s) {
        x += part[(s * C + j) * 2 + 0];
        y += part[(s * C + j) * 2 + 1];
    }
    if (!second) {
        cols[3 * j] = x;
        mean[j] = x > 0 ? y / x : 0.0;
    } else {
        cols[3 * j + 1] = x;
        cols[3 * j + 2] = y;
    }
}

template <int IN>
void run(const void *w, long long R, long long C, double *rows, double *cols, double *scratch, qsStream_t s)
{
    const long long slices = (R + kSliceRows - 1) / kSliceRows;
    double *mean = scratch, *part = scratch + C;
    kRowMoments<IN><<<static_cast<unsigned>(R), kMThreads, 0, s>>>(w, C, rows);
    const dim3 grid(static_cast<unsigned>((C + kMThreads - 1) / kMThreads), static_cast<unsigned>(slices));
    const unsigned fin = static_cast<unsigned>((C + kMThreads - 1) / kMThreads);
    kColPartials<IN><<<grid, kMThreads, 0, s>>>(w, R, C, nullptr, part);
    kColFinish<<<fin, kMThreads, 0, s>>>(part, slices, C, false, mean, cols);
    kColPartials<IN><<<grid, kMThreads, 0, s>>>(w, R, C, mean, part);
    kColFinish<<<fin, kMThreads, 0, s>>>(part, slices, C, true, mean, cols);
}

} // namespace

std::size_t channelMomentsScratch(long long R, long long C)
{
    const long long slices = (R + kSliceRows - 1) / kSliceRows;
    return static_cast<std::size_t>(C + 2 * slices * C) * sizeof(double);
}

void channelMoments(int in, const void *w, long long R, long long C, double *rows, double *cols, double *scratch,
                    void *stream)
{
    if (R <= 0 || C <= 0)
        return;
    if (R > 0x7fffffffLL || (R + kSliceRows - 1) / kSliceRows > 65535)
        throw GpuError("channelMoments: " + std::to_string(R) + " rows exceed one launch");
    const auto s = static_cast<qsStream_t>(stream);
    if (in == kInBf16)
        run<kInBf16>(w, R, C, rows, cols, scratch, s);
    else if (in == kInF16)
        run<kInF16>(w, R, C, rows, cols, scratch, s);
    else
        run<kInF32>(w, R, C, rows, cols, scratch, s);
    QS_GPU_CHECK_LAUNCH("channelMoments");
}

} // namespace quantscope::gpu::launch
