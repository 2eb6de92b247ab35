// SPDX-License-Identifier: MIT
// GPTQ on the device (kernels_gptq.h): the CPU's op sequence (core/quant/gptq.cpp, gptqColumns)
// with the same QS_HD INT arithmetic (core/quant/uniform_math.h). No FMA contraction (-fmad=false):
// the in-block update rounds e·U and then the difference, as the CPU; the lazy-batch update calls
// fmaf explicitly, as the CPU's std::fma, one chain per element with the block's columns in order.
// Rows are independent, so the codes and Ŵ are the CPU's bit for bit given the same U.
#define QS_HD __host__ __device__

#include "kernels_gptq.h"
#include "qs_gpu_compat.h"
#include "quant/uniform_math.h"
#include "util/error.h"

#include <string>

namespace quantscope::gpu::launch {

namespace {

using i64 = long long;

__global__ void reversedHKernel(const double *__restrict__ h, i64 k, const i64 *__restrict__ perm,
                                const unsigned char *__restrict__ dead, double damp, double *__restrict__ r)
{
    const i64 i = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; // row of R (column-major)
    const i64 j = blockIdx.y;
    if (i >= k || i < j) // potrf (lower) reads the lower triangle only
        return;
    const i64 a = k - 1 - i, b = k - 1 - j;
    double v = h[perm[a] * k + perm[b]];
    if (a == b)
        v = (dead[a] ? 1.0 : v) + damp;
    r[i + j * k] = v;
}

__global__ void factorUKernel(const double *__restrict__ linv, i64 k, const int *__restrict__ info,
                              float *__restrict__ u)
{
    const i64 j = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x;
    const i64 i = blockIdx.y;
    if (j >= k)
        return;
    float v = 0.0f;
    if (*info != 0)
        v = i == j ? 1.0f : 0.0f;
    else if (j >= i)
        v = static_cast<float>(linv[(k - 1 - i) + (k - 1 - j) * k]);
    u[i * k + j] = v;
}

__global__ void identityKernel(double *__restrict__ x, i64 k)
{
    const i64 i = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x;
    const i64 j = blockIdx.y;
    if (i < k)
        x[i + j * k] = i == j ? 1.0 : 0.0;
}

__global__ void gatherKernel(const float *__restrict__ w, i64 n, i64 k, const i64 *__restrict__ perm,
                             const unsigned char *__restrict__ dead, float *__restrict__ wp)
{
    const i64 j = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x;
    const i64 r = blockIdx.y;
    if (j >= k || r >= n)
        return;
    wp[r * k + j] = dead[j] ? 0.0f : w[r * k + perm[j]];
}

constexpr int kRowsPerCta = 64;
// Threads per row (column j belongs to lane j % kLanes) and the smem pitch [column][row]: a pitch
// ≡ 32 / kLanes (mod 32) puts a warp's 32 / kLanes rows × kLanes consecutive columns on 32 banks.
// The engine's choice is 8 lanes, pitch 68 (the fastest on the H200, docs/perf.md); gptqSetVariant
// selects the others for measurement.
int gBlockVariant = 0, gLazyVariant = 0;

__device__ __forceinline__ i64 groupOf(const GptqGroups &g, i64 r, i64 c)
{
    if (g.granularity == 0)
        return 0;
    if (g.granularity == 1)
        return r;
    return r * g.gridCols + c / g.group;
}

// One block of columns for 64 rows, four threads per row: column i's owner (lane i % 4) quantizes it
// and hands e to the row's other lanes by a shuffle; every lane updates its own later columns. Each
// column is only ever written by its owner, so the lanes need no barrier inside the block.
template <int kLanes, int kPitch> __global__ void __launch_bounds__(kRowsPerCta *kLanes) blockKernel(GptqBlockArgs a)
{
    extern __shared__ float smem[];
    float *ws = smem;                                                          // [bw][kPitch]
    float *es = ws + kGptqMaxBlock * kPitch;                                   // [bw][kPitch]
    auto *cs = reinterpret_cast<unsigned char *>(es + kGptqMaxBlock * kPitch); // [bw][kPitch]
    const int lane = threadIdx.x % kLanes, t = threadIdx.x / kLanes, bw = a.bw;
    const i64 r0 = blockIdx.x * static_cast<i64>(kRowsPerCta), k = a.k, i1 = a.i1;
    const int rows = static_cast<int>(a.n - r0 < kRowsPerCta ? a.n - r0 : kRowsPerCta);
    for (int idx = threadIdx.x; idx < kRowsPerCta * bw; idx += kRowsPerCta * kLanes) {
        const int rr = idx / bw, jj = idx % bw;
        ws[jj * kPitch + rr] = rr < rows ? a.wp[(r0 + rr) * k + i1 + jj] : 0.0f;
    }
    __syncthreads();
    const bool live = t < rows; // rows past N run along (the shuffles need every lane), unused
    const i64 r = r0 + t;
    double loss = 0;
    for (int i = 0; i < bw; ++i) {
        const i64 col = i1 + i;
        const int owner = i % kLanes;
        float e = 0.0f;
        if (lane == owner) {
            const float d = __ldg(a.u + col * k + col);
            float s = 1.0f;
            int z = 0;
            if (live) {
                const i64 g = groupOf(a.groups, r, a.perm[col]);
                s = a.scales[g];
                z = a.zeros ? a.zeros[g] : 0;
            }
            const float x = ws[i * kPitch + t];
            const int c = intCode(a.ip, x, s, z);
            const float xh = intDequant(a.ip, c, s, z);
            cs[i * kPitch + t] = static_cast<unsigned char>(static_cast<signed char>(c));
            ws[i * kPitch + t] = xh;
            e = __fdiv_rn(__fsub_rn(x, xh), d);
            es[i * kPitch + t] = e;
            loss += 0.5 * static_cast<double>(e) * static_cast<double>(e);
        }
        e = __shfl_sync(0xFFFFFFFFu, e, owner, kLanes);
        const float *ui = a.u + col * k + i1;
        // this lane's columns after i: the first j > i with j ≡ lane (mod 4), then every fourth
        int j = i + 1 + ((lane - (i + 1)) % kLanes + kLanes) % kLanes;
#pragma unroll 4
        for (; j < bw; j += kLanes)
            ws[j * kPitch + t] = __fsub_rn(ws[j * kPitch + t], __fmul_rn(e, __ldg(ui + j)));
    }
#pragma unroll
    for (int m = 1; m < kLanes; m *= 2)
        loss += __shfl_xor_sync(0xFFFFFFFFu, loss, m, kLanes);
    if (live && lane == 0)
        a.rowLoss[r] += loss;
    __syncthreads();
    for (int idx = threadIdx.x; idx < rows * bw; idx += kRowsPerCta * kLanes) {
        const int rr = idx / bw, jj = idx % bw;
        const i64 row = r0 + rr;
        a.wp[row * k + i1 + jj] = ws[jj * kPitch + rr];
        a.codes[row * k + i1 + jj] = cs[jj * kPitch + rr];
        a.err[row * bw + jj] = es[jj * kPitch + rr];
    }
}

// The lazy-batch update as a tiled product: a CTA of 256 threads owns a 128 × 128 tile of
// W'[:, i2:], each thread 8 × 8 elements; the block's columns kk advance in order for every
// element (tiles of 16 through shared memory, read as float4), acc = fmaf(−E[r, kk], U[i1 + kk, c], acc).
constexpr int kTile = 128, kMicro = 8;

/// KT: the block's columns per shared-memory step; VEC: float4 reads of the tiles, a thread's 8
/// columns as two runs of 4 at tx·4 and 64 + tx·4 (conflict-free); APAD: padding of the E tile's rows.
template <int KT, bool VEC, int APAD>
__global__ void __launch_bounds__(256) lazyKernel(float *__restrict__ wp, i64 n, i64 k, const float *__restrict__ err,
                                                  int bw, const float *__restrict__ u, i64 i1, i64 i2)
{
    __shared__ __align__(16) float as[KT][kTile + APAD]; // −E tile, transposed: [kk][row]
    __shared__ __align__(16) float bs[KT][kTile];        // U tile: [kk][column]
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const i64 row0 = blockIdx.y * static_cast<i64>(kTile), col0 = i2 + blockIdx.x * static_cast<i64>(kTile);
    auto colOf = [&](int c) { return VEC ? (c < 4 ? tx * 4 + c : 64 + tx * 4 + c - 4) : tx * kMicro + c; };
    float acc[kMicro][kMicro];
#pragma unroll
    for (int m = 0; m < kMicro; ++m) {
        const i64 r = row0 + ty * kMicro + m;
#pragma unroll
        for (int c = 0; c < kMicro; ++c) {
            const i64 col = col0 + colOf(c);
            acc[m][c] = (r < n && col < k) ? wp[r * k + col] : 0.0f;
        }
    }
    for (int k0 = 0; k0 < bw; k0 += KT) {
        const int kn = bw - k0 < KT ? bw - k0 : KT;
        for (int idx = threadIdx.x; idx < KT * kTile; idx += 256) {
            // E: consecutive threads read consecutive kk of one row
            const int kk = idx % KT, rr = idx / KT;
            const i64 r = row0 + rr;
            as[kk][rr] = (kk < kn && r < n) ? -err[r * bw + k0 + kk] : 0.0f;
            // U: consecutive threads read consecutive columns of one row
            const int cc = idx % kTile, kb = idx / kTile;
            const i64 col = col0 + cc;
            bs[kb][cc] = (kb < kn && col < k) ? u[(i1 + k0 + kb) * k + col] : 0.0f;
        }
        __syncthreads();
        for (int kk = 0; kk < kn; ++kk) {
            float av[kMicro], bv[kMicro];
            if constexpr (VEC) {
                const float4 a0 = *reinterpret_cast<const float4 *>(&as[kk][ty * kMicro]);
                const float4 a1 = *reinterpret_cast<const float4 *>(&as[kk][ty * kMicro + 4]);
                const float4 b0 = *reinterpret_cast<const float4 *>(&bs[kk][tx * 4]);
                const float4 b1 = *reinterpret_cast<const float4 *>(&bs[kk][64 + tx * 4]);
                av[0] = a0.x, av[1] = a0.y, av[2] = a0.z, av[3] = a0.w;
                av[4] = a1.x, av[5] = a1.y, av[6] = a1.z, av[7] = a1.w;
                bv[0] = b0.x, bv[1] = b0.y, bv[2] = b0.z, bv[3] = b0.w;
                bv[4] = b1.x, bv[5] = b1.y, bv[6] = b1.z, bv[7] = b1.w;
            } else {
#pragma unroll
                for (int m = 0; m < kMicro; ++m)
                    av[m] = as[kk][ty * kMicro + m];
#pragma unroll
                for (int c = 0; c < kMicro; ++c)
                    bv[c] = bs[kk][tx * kMicro + c];
            }
#pragma unroll
            for (int m = 0; m < kMicro; ++m)
#pragma unroll
                for (int c = 0; c < kMicro; ++c)
                    acc[m][c] = fmaf(av[m], bv[c], acc[m][c]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int m = 0; m < kMicro; ++m) {
        const i64 r = row0 + ty * kMicro + m;
#pragma unroll
        for (int c = 0; c < kMicro; ++c) {
            const i64 col = col0 + colOf(c);
            if (r < n && col < k)
                wp[r * k + col] = acc[m][c];
        }
    }
}

__global__ void scatterKernel(const unsigned char *__restrict__ codesP, const float *__restrict__ wp, i64 n, i64 k,
                              const i64 *__restrict__ perm, unsigned char *__restrict__ codes, float *__restrict__ wHat)
{
    const i64 j = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x;
    const i64 r = blockIdx.y;
    if (j >= k || r >= n)
        return;
    const i64 c = perm[j];
    codes[r * k + c] = codesP[r * k + j];
    wHat[r * k + c] = wp[r * k + j];
}

dim3 rowGrid(i64 cols, i64 rows, int threads)
{
    return dim3(static_cast<unsigned>((cols + threads - 1) / threads), static_cast<unsigned>(rows));
}

} // namespace

void gptqReversedH(const double *h, long long k, const long long *perm, const unsigned char *dead, double damp,
                   double *r, void *stream)
{
    reversedHKernel<<<rowGrid(k, k, 256), 256, 0, static_cast<qsStream_t>(stream)>>>(h, k, perm, dead, damp, r);
    QS_GPU_CHECK_LAUNCH("GPTQ reversed H");
}

void gptqIdentity(double *x, long long k, void *stream)
{
    identityKernel<<<rowGrid(k, k, 256), 256, 0, static_cast<qsStream_t>(stream)>>>(x, k);
    QS_GPU_CHECK_LAUNCH("GPTQ identity");
}

void gptqFactorU(const double *linv, long long k, const int *info, float *u, void *stream)
{
    factorUKernel<<<rowGrid(k, k, 256), 256, 0, static_cast<qsStream_t>(stream)>>>(linv, k, info, u);
    QS_GPU_CHECK_LAUNCH("GPTQ U");
}

void gptqGather(const float *w, long long n, long long k, const long long *perm, const unsigned char *dead, float *wp,
                void *stream)
{
    gatherKernel<<<rowGrid(k, n, 256), 256, 0, static_cast<qsStream_t>(stream)>>>(w, n, k, perm, dead, wp);
    QS_GPU_CHECK_LAUNCH("GPTQ gather");
}

void gptqSetVariant(int block, int lazy)
{
    gBlockVariant = block;
    gLazyVariant = lazy;
}

namespace {

template <int L, int P> void launchBlock(const GptqBlockArgs &a, qsStream_t stream)
{
    constexpr int smem = kGptqMaxBlock * P * (2 * 4 + 1);
    static bool attributeSet = false;
    if (!attributeSet) {
        auto *kernel = blockKernel<L, P>;
        QS_GPU_CHECK(qsFuncSetMaxDynamicSharedMemory(kernel, smem));
        attributeSet = true;
    }
    const auto ctas = static_cast<unsigned>((a.n + kRowsPerCta - 1) / kRowsPerCta);
    blockKernel<L, P><<<ctas, kRowsPerCta * L, smem, stream>>>(a);
}

} // namespace

void gptqBlock(const GptqBlockArgs &a, void *stream)
{
    if (a.bw < 1 || a.bw > kGptqMaxBlock)
        throw GpuError("GPTQ's device block holds 1.." + std::to_string(kGptqMaxBlock) + " columns, not " +
                       std::to_string(a.bw));
    const auto s = static_cast<qsStream_t>(stream);
    switch (gBlockVariant) {
    case 1:
        launchBlock<4, 72>(a, s);
        break;
    case 2:
        launchBlock<2, 80>(a, s);
        break;
    default:
        launchBlock<8, 68>(a, s);
    }
    QS_GPU_CHECK_LAUNCH("GPTQ block");
}

void gptqLazy(float *wp, long long n, long long k, const float *err, int bw, const float *u, long long i1, long long i2,
              void *stream)
{
    if (i2 >= k)
        return;
    const dim3 grid(static_cast<unsigned>((k - i2 + kTile - 1) / kTile),
                    static_cast<unsigned>((n + kTile - 1) / kTile));
    const auto s = static_cast<qsStream_t>(stream);
    switch (gLazyVariant) {
    case 1:
        lazyKernel<8, true, 4><<<grid, 256, 0, s>>>(wp, n, k, err, bw, u, i1, i2);
        break;
    case 2:
        lazyKernel<8, false, 0><<<grid, 256, 0, s>>>(wp, n, k, err, bw, u, i1, i2);
        break;
    case 3:
        lazyKernel<16, true, 0><<<grid, 256, 0, s>>>(wp, n, k, err, bw, u, i1, i2);
        break;
    default:
        lazyKernel<16, true, 4><<<grid, 256, 0, s>>>(wp, n, k, err, bw, u, i1, i2);
    }
    QS_GPU_CHECK_LAUNCH("GPTQ lazy-batch update");
}

void gptqScatter(const unsigned char *codesP, const float *wp, long long n, long long k, const long long *perm,
                 unsigned char *codes, float *wHat, void *stream)
{
    scatterKernel<<<rowGrid(k, n, 256), 256, 0, static_cast<qsStream_t>(stream)>>>(codesP, wp, n, k, perm, codes, wHat);
    QS_GPU_CHECK_LAUNCH("GPTQ scatter");
}

} // namespace quantscope::gpu::launch
