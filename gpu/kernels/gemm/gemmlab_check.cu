// SPDX-License-Identifier: MIT
// The GEMM timing lab's output check over every element (kernels_gemmlab_check.h): a tiled FP64
// GEMM of the decoded operands beside the BF16 output under test.
#include "kernels_gemmlab_check.h"

#include <cstring>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "kernels_gemmlab.h"
#include "qs_gpu_compat.h"

namespace quantscope::gpu::launch {

namespace {

constexpr int kTile = 64, kStep = 16, kThreads = 256; // 64 × 64 outputs a block, 16 × 16 threads

/// Whether the operand's scale is applied per element inside the sum (INT4 groups smaller than K).
__host__ __device__ inline bool groupScaled(const LabCheckOperand &o, long long K)
{
    return o.kind == kLabCheckInt4 && o.group > 0 && o.group < K;
}

/// Element (row r, column k) of expert e, exactly as a double (a group scale included).
__device__ inline double decode(const LabCheckOperand &o, int e, long long r, long long k, long long K)
{
    const long long i = e * o.batchStride + r * K + k;
    switch (o.kind) {
    case kLabBf16:
        return static_cast<double>(__bfloat162float(static_cast<const __nv_bfloat16 *>(o.data)[i]));
    case kLabE4m3: {
        const __half_raw h = __nv_cvt_fp8_to_halfraw(static_cast<const __nv_fp8_storage_t *>(o.data)[i], __NV_E4M3);
        return static_cast<double>(__half2float(__half(h)));
    }
    case kLabInt8:
        return static_cast<double>(static_cast<const signed char *>(o.data)[i]);
    default: {
        const std::uint8_t b = static_cast<const std::uint8_t *>(o.data)[i / 2];
        int q = (i & 1) ? b >> 4 : b & 0xF;
        q = q >= 8 ? q - 16 : q;
        const long long group = o.group > 0 && o.group < K ? o.group : K;
        const long long g = (e * (o.batchStride / K) + r) * (K / group) + k / group;
        const int z = o.zeros ? o.zeros[g] : 0;
        const double v = static_cast<double>(q - z);
        return groupScaled(o, K) && o.scale ? static_cast<double>(o.scale[g]) * v : v;
    }
    }
}

/// The row scale applied outside the sum (1 where none or where it is a group scale).
__device__ inline double rowScale(const LabCheckOperand &o, int e, long long r, long long rows, long long K)
{
    if (!o.scale || groupScaled(o, K))
        return 1.0;
    return static_cast<double>(o.perRow ? o.scale[e * rows + r] : o.scale[0]);
}

__global__ void __launch_bounds__(kThreads)
    checkKernel(LabCheckProblem p, unsigned long long *worst, unsigned long long *counts)
{
    __shared__ double xs[kStep][kTile], ws[kStep][kTile], xa[kStep][kTile], wa[kStep][kTile];
    const int e = blockIdx.z;
    const long long m0 = static_cast<long long>(blockIdx.y) * kTile, n0 = static_cast<long long>(blockIdx.x) * kTile;
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    double ref[4][4] = {}, mag[4][4] = {};
    for (long long k0 = 0; k0 < p.k; k0 += kStep) {
        // 64 rows × 16 k of X and of W: 1024 elements each, 4 a thread.
        for (int t = threadIdx.x; t < kTile * kStep; t += kThreads) {
            const int r = t / kStep, kk = t % kStep;
            const long long k = k0 + kk, mr = m0 + r, nr = n0 + r;
            const double xv = (k < p.k && mr < p.m) ? decode(p.x, e, mr, k, p.k) : 0.0;
            const double wv = (k < p.k && nr < p.n) ? decode(p.w, e, nr, k, p.k) : 0.0;
            xs[kk][r] = xv, xa[kk][r] = fabs(xv);
            ws[kk][r] = wv, wa[kk][r] = fabs(wv);
        }
        __syncthreads();
        for (int kk = 0; kk < kStep; ++kk)
            for (int i = 0; i < 4; ++i) {
                const double xv = xs[kk][ty + 16 * i], xav = xa[kk][ty + 16 * i];
                for (int j = 0; j < 4; ++j) {
                    ref[i][j] = fma(xv, ws[kk][tx + 16 * j], ref[i][j]);
                    mag[i][j] = fma(xav, wa[kk][tx + 16 * j], mag[i][j]);
                }
            }
        __syncthreads();
    }
    double myWorst = 0;
    unsigned long long checked = 0, failed = 0, differ = 0;
    const auto *y = static_cast<const __nv_bfloat16 *>(p.y);
    const auto *y2 = static_cast<const __nv_bfloat16 *>(p.yOther);
    for (int i = 0; i < 4; ++i) {
        const long long m = m0 + ty + 16 * i;
        if (m >= p.m)
            continue;
        const double sx = rowScale(p.x, e, m, p.m, p.k);
        for (int j = 0; j < 4; ++j) {
            const long long n = n0 + tx + 16 * j;
            if (n >= p.n)
                continue;
            const double s = sx * rowScale(p.w, e, n, p.n, p.k);
            const double r = s * ref[i][j], g = fabs(s) * mag[i][j];
            const long long at = (static_cast<long long>(e) * p.m + m) * p.n + n;
            const double got = static_cast<double>(__bfloat162float(y[at]));
            const double bound = p.relRef * fabs(r) + p.relMag * g + 1e-30;
            double q = fabs(got - r) / bound;
            if (!(q <= 1e30))
                q = 1e30; // NaN / Inf
            myWorst = fmax(myWorst, q);
            ++checked;
            failed += q > 1.0 ? 1 : 0;
            if (y2) {
                const unsigned short a = __bfloat16_as_ushort(y[at]), b = __bfloat16_as_ushort(y2[at]);
                differ += a != b ? 1 : 0;
            }
        }
    }
    // Non-negative doubles order as their bit patterns.
    atomicMax(worst, static_cast<unsigned long long>(__double_as_longlong(myWorst)));
    if (checked)
        atomicAdd(&counts[0], checked);
    if (failed)
        atomicAdd(&counts[1], failed);
    if (differ)
        atomicAdd(&counts[2], differ);
}

} // namespace

LabCheckResult labCheckFp64(const LabCheckProblem &p, void *scratch, void *stream)
{
    const auto s = static_cast<cudaStream_t>(stream);
    auto *worst = static_cast<unsigned long long *>(scratch);
    QS_GPU_CHECK(cudaMemsetAsync(scratch, 0, 4 * sizeof(unsigned long long), s));
    LabCheckResult r;
    if (p.m > 0 && p.n > 0 && p.k > 0 && p.batch > 0) {
        const dim3 grid(static_cast<unsigned>((p.n + kTile - 1) / kTile),
                        static_cast<unsigned>((p.m + kTile - 1) / kTile), static_cast<unsigned>(p.batch));
        checkKernel<<<grid, kThreads, 0, s>>>(p, worst, worst + 1);
        QS_GPU_CHECK(cudaGetLastError());
    }
    unsigned long long host[4] = {};
    QS_GPU_CHECK(cudaMemcpyAsync(host, scratch, sizeof host, cudaMemcpyDeviceToHost, s));
    QS_GPU_CHECK(cudaStreamSynchronize(s));
    double w = 0;
    static_assert(sizeof w == sizeof host[0]);
    std::memcpy(&w, &host[0], sizeof w);
    r.worst = w;
    r.checked = host[1];
    r.failed = host[2];
    r.differ = host[3];
    return r;
}

} // namespace quantscope::gpu::launch
