// SPDX-License-Identifier: MIT
// MiLo's device loop (kernels_milo.h): the element passes around the HQQ kernels and the range
// sketch, the on-device stop rule and best-pass bookkeeping, the factors and compensators of the
// returned pass, and the final Ŵ. The scalar rules come from core/quant/milo_math.h and
// hqq_math.h, shared with the CPU. No FMA contraction (-fmad=false), IEEE division.
#define QS_HD __host__ __device__

#include <type_traits>

#if !defined(QUANTSCOPE_HIP) && !defined(__HIPCC__)
#include <cuda_fp16.h> // hqqH's conversions (hqq_math.h)
#endif

#include "device_math.h"
#include "kernel_common.cuh"
#include "kernels_milo.h"
#include "quant/hqq_math.h"
#include "quant/milo_math.h"
#include "util/philox.h"

namespace quantscope::gpu::launch {

namespace {

constexpr int kT = 256;

int gridFor(long long n, int cap)
{
    return static_cast<int>(n / kT + 1 < cap ? n / kT + 1 : cap);
}

template <typename T> __global__ void kPhilox(std::uint64_t seed, std::uint32_t stream, int n, int l, T *R)
{
    // Four consecutive row-major elements share one Philox block.
    const long long total = static_cast<long long>(n) * l, blocks = (total + 3) / 4;
    for (long long b = static_cast<long long>(blockIdx.x) * kT + threadIdx.x; b < blocks;
         b += static_cast<long long>(gridDim.x) * kT) {
        double z[4];
        philox::normalBlock(seed, stream, static_cast<std::uint64_t>(b), z);
        for (int k = 0; k < 4; ++k) {
            const long long e = 4 * b + k;
            if (e < total) {
                const long long i = e / l, j = e % l;
                R[j * n + i] = static_cast<T>(z[k]);
            }
        }
    }
}

__global__ void kOrFlag(const int *info, int *flag)
{
    if (*info != 0)
        *flag = 1;
}

__global__ void kCholCheck(const double *R, int l, double minRatio, const int *info, int *flag)
{
    __shared__ double sLo[kT], sHi[kT];
    __shared__ int sFinite[kT];
    double lo = HUGE_VAL, hi = 0;
    int finite = 1;
    for (int i = threadIdx.x; i < l; i += kT) {
        const double d = fabs(R[static_cast<long long>(i) * l + i]);
        if (!isfinite(d))
            finite = 0;
        else {
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
        }
    }
    sLo[threadIdx.x] = lo;
    sHi[threadIdx.x] = hi;
    sFinite[threadIdx.x] = finite;
    __syncthreads();
    for (int h = kT / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) {
            sLo[threadIdx.x] = sLo[threadIdx.x + h] < sLo[threadIdx.x] ? sLo[threadIdx.x + h] : sLo[threadIdx.x];
            sHi[threadIdx.x] = sHi[threadIdx.x + h] > sHi[threadIdx.x] ? sHi[threadIdx.x + h] : sHi[threadIdx.x];
            sFinite[threadIdx.x] &= sFinite[threadIdx.x + h];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0 && (*info != 0 || !gpumath::cholDiagonalOk(sLo[0], sHi[0], sFinite[0] != 0, minRatio)))
        *flag = 1;
}

// ---- CholeskyQR of thin blocks (l ≤ kSmallQrCols): three kernels instead of DSYRK, DPOTRF, the
// status check and DTRSM (each a few microseconds of work behind tens of launch and latency) ----

constexpr int kQrRows = 128; ///< rows of Y per partial Gram block

/// parts[b] (column-major l × l, upper triangle) = Y[rows of block b]ᵀ·Y[rows of block b], the
/// block's rows in order.
__global__ void __launch_bounds__(kT) kGramPartial(const double *Y, int rows, int l, double *parts)
{
    __shared__ double sy[kSmallQrCols][kQrRows + 1];
    const int r0 = blockIdx.x * kQrRows, nr = rows - r0 < kQrRows ? rows - r0 : kQrRows;
    for (int e = threadIdx.x; e < nr * l; e += kT) {
        const int i = e % nr, c = e / nr; // consecutive threads, consecutive rows: coalesced
        sy[c][i] = Y[r0 + i + static_cast<long long>(c) * rows];
    }
    __syncthreads();
    double *out = parts + static_cast<long long>(blockIdx.x) * l * l;
    for (int e = threadIdx.x; e < l * l; e += kT) {
        const int a = e % l, c = e / l;
        if (a > c)
            continue;
        double acc = 0.0;
        for (int i = 0; i < nr; ++i)
            acc += sy[a][i] * sy[c][i];
        out[e] = acc;
    }
}

/// G = Σ parts (blocks in order), then its Cholesky factor R (G = Rᵀ·R, R upper, column-major
/// l × l, zeros below the diagonal) by one warp; a pivot that is not a positive finite number
/// stops it and sets *failed (as DPOTRF's info ≠ 0 did).
__global__ void __launch_bounds__(1024) kGramCholesky(const double *parts, int blocks, int l, double *R, int *failed)
{
    __shared__ double g[kSmallQrCols * kSmallQrCols];
    __shared__ int bad;
    for (int e = threadIdx.x; e < l * l; e += blockDim.x) {
        const int a = e % l, c = e / l;
        double acc = 0.0;
        if (a <= c)
            for (int b = 0; b < blocks; ++b)
                acc += parts[static_cast<long long>(b) * l * l + e];
        g[e] = acc; // the lower triangle: 0
    }
    if (threadIdx.x == 0)
        bad = 0;
    __syncthreads();
    if (threadIdx.x < 32) {
        const int lane = threadIdx.x;
        for (int k = 0; k < l; ++k) {
            if (lane == 0) {
                const double d = g[k + k * l];
                if (d > 0.0 && isfinite(d))
                    g[k + k * l] = sqrt(d);
                else
                    bad = 1;
            }
            __syncwarp();
            if (bad)
                break; // uniform: every lane reads the word after the same __syncwarp
            const double rkk = g[k + k * l];
            const int j = lane;
            if (j > k && j < l)
                g[k + j * l] = g[k + j * l] / rkk;
            __syncwarp();
            if (j > k && j < l) {
                const double rkj = g[k + j * l];
                for (int i = k + 1; i <= j; ++i)
                    g[i + j * l] = g[i + j * l] - g[k + i * l] * rkj;
            }
            __syncwarp();
        }
    }
    __syncthreads();
    for (int e = threadIdx.x; e < l * l; e += blockDim.x)
        R[e] = g[e];
    if (threadIdx.x == 0 && bad)
        *failed = 1;
}

/// Y ← Y·R⁻¹ row by row (R upper, l × l): x_c = (y_c − Σ_{k<c} x_k·R[k, c]) / R[c, c].
__global__ void __launch_bounds__(kT) kTriSolveRows(double *Y, int rows, int l, const double *R)
{
    __shared__ double sr[kSmallQrCols * kSmallQrCols];
    for (int e = threadIdx.x; e < l * l; e += kT)
        sr[e] = R[e];
    __syncthreads();
    const int i = blockIdx.x * kT + threadIdx.x;
    if (i >= rows)
        return;
    double x[kSmallQrCols];
#pragma unroll
    for (int c = 0; c < kSmallQrCols; ++c)
        if (c < l) {
            double v = Y[i + static_cast<long long>(c) * rows];
#pragma unroll
            for (int k = 0; k < c; ++k)
                v = v - x[k] * sr[k + c * l];
            x[c] = v / sr[c + c * l];
        }
#pragma unroll
    for (int c = 0; c < kSmallQrCols; ++c)
        if (c < l)
            Y[i + static_cast<long long>(c) * rows] = x[c];
}

__global__ void kToFloat(const double *in, long long n, float *out)
{
    for (long long i = static_cast<long long>(blockIdx.x) * kT + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * kT)
        out[i] = static_cast<float>(in[i]);
}

template <int IN> __global__ void kDecode(const void *w, long long n, float *out, MiloState *st)
{
    unsigned long long bad = 0;
    for (long long i = static_cast<long long>(blockIdx.x) * kT + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * kT) {
        const float v = decode1<IN>(w, i);
        if (out)
            out[i] = v;
        bad += qmath::isFinite(v) ? 0 : 1;
    }
    if (bad)
        atomicAdd(&st->nonFinite, bad);
}

template <int IN> __global__ void kResidual64(const void *w, const float *wHat, long long n, double *e)
{
    for (long long i = static_cast<long long>(blockIdx.x) * kT + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * kT)
        e[i] = static_cast<double>(decode1<IN>(w, i)) - static_cast<double>(wHat[i]);
}

/// The block's slice sum: its threads' sums added by the fixed tree over kT (the order ε's bits
/// depend on), written to parts[blockIdx.x].
__device__ inline void blockTreeSum(double acc, double *red, double *parts)
{
    red[threadIdx.x] = acc;
    __syncthreads();
    for (int h = kT / 2; h > 0; h /= 2) {
        if (static_cast<int>(threadIdx.x) < h)
            red[threadIdx.x] += red[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        parts[blockIdx.x] = red[0];
}

/// Block b sums a fixed slice of elements in a fixed thread order, then a fixed tree.
__global__ void kSumSquares(const double *d, long long n, double *parts)
{
    __shared__ double red[kT];
    const long long per = (n + gridDim.x - 1) / gridDim.x;
    const long long lo = per * blockIdx.x, hi = lo + per < n ? lo + per : n;
    double acc = 0.0;
    for (long long i = lo + threadIdx.x; i < hi; i += kT)
        acc += d[i] * d[i];
    blockTreeSum(acc, red, parts);
}

/// kSumSquares' slices, sums and tree (the same ε bits) with kNextW's update of each element on
/// the way, unless *skip (skip may be null; a failed sketch: W_t still holds Ŵ for the rerun).
template <int IN>
__global__ void kNextWSumSquares(const void *w, float *wt, const double *d, long long n, const int *skip, double *parts)
{
    __shared__ double red[kT];
    const bool update = !(skip && *skip);
    const long long per = (n + gridDim.x - 1) / gridDim.x;
    const long long lo = per * blockIdx.x, hi = lo + per < n ? lo + per : n;
    double acc = 0.0;
    for (long long i = lo + threadIdx.x; i < hi; i += kT) {
        const double di = d[i];
        acc += di * di;
        if (update) {
            const float wv = decode1<IN>(w, i);
            const double uv = (static_cast<double>(wv) - static_cast<double>(wt[i])) - di; // E − D
            wt[i] = wv - static_cast<float>(uv);
        }
    }
    blockTreeSum(acc, red, parts);
}

constexpr int kTuK = 128, kTuN = 32; ///< thinUpdate's tile: 128 elements along E's columns × 32 columns

/// kThinUpdate: thread (tx, ty) computes k = k0 + tx, k0 + tx + 64 against n = n0 + 8·ty … + 7;
/// warps read E, W and wt along k (coalesced) and P2's tile by broadcast. A thread's 16 elements of
/// E and W are loaded before the tile's FMAs, so that their DRAM latency overlaps the arithmetic
/// (loaded after, one element at a time, each tile waited 16 round trips: 0.6 ms a pass at r 32).
template <int IN>
__global__ void __launch_bounds__(kT, 2)
    kThinUpdate(const void *__restrict__ w, float *__restrict__ wt, const double *__restrict__ E,
                const double *__restrict__ P1, const double *__restrict__ P2, long long K, long long N, int r,
                const int *skip, double *parts)
{
    __shared__ double s1[kThinUpdateCols][kTuK];
    __shared__ __align__(16) double s2[kThinUpdateCols][kTuN];
    __shared__ double red[kT];
    const bool update = !(skip && *skip);
    const int tx = static_cast<int>(threadIdx.x) % 64, ty = static_cast<int>(threadIdx.x) / 64;
    // Block b takes a contiguous run of tiles in k-major order (tile kt·tilesN + nt), so P1's
    // 128 × r slice stays in shared memory while nt moves on: only P2's slice is reloaded.
    const long long tilesN = (N + kTuN - 1) / kTuN, tiles = ((K + kTuK - 1) / kTuK) * tilesN;
    const long long per = (tiles + gridDim.x - 1) / gridDim.x, tBegin = per * blockIdx.x;
    const long long tEnd = tBegin + per < tiles ? tBegin + per : tiles;
    long long kLoaded = -1;
    double acc = 0.0;
    for (long long t = tBegin; t < tEnd; ++t) {
        const long long k0 = (t / tilesN) * kTuK, n0 = (t % tilesN) * kTuN;
        // This thread's elements: base + 64·h + K·j, in range for h < hIn, j < jIn.
        const long long base = k0 + tx + K * (n0 + ty * 8);
        const int hIn = k0 + tx + 64 < K ? 2 : (k0 + tx < K ? 1 : 0);
        const long long nLeft = N - n0 - ty * 8;
        const int jIn = nLeft >= 8 ? 8 : (nLeft > 0 ? static_cast<int>(nLeft) : 0);
        double ev[2][8];
        float wv[2][8];
#pragma unroll
        for (int j = 0; j < 8; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const bool in = h < hIn && j < jIn;
                const long long i = base + 64 * h + K * j;
                ev[h][j] = in ? E[i] : 0.0;
                wv[h][j] = in && update ? decode1<IN>(w, i) : 0.0f;
            }
        __syncthreads();     // the previous tile's reads of s1, s2 are done
        if (k0 != kLoaded) { // block-uniform
            for (int e = threadIdx.x; e < r * kTuK; e += kT) {
                const int c = e / kTuK, i = e % kTuK;
                s1[c][i] = k0 + i < K ? P1[k0 + i + c * K] : 0.0;
            }
            kLoaded = k0;
        }
        for (int e = threadIdx.x; e < r * kTuN; e += kT) {
            const int c = e / kTuN, j = e % kTuN;
            s2[c][j] = n0 + j < N ? P2[n0 + j + c * N] : 0.0;
        }
        __syncthreads();
        double p[2][8];
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int j = 0; j < 8; ++j)
                p[h][j] = 0.0;
#pragma unroll 4
        for (int c = 0; c < r; ++c) {
            const double a0 = s1[c][tx], a1 = s1[c][tx + 64];
            const auto *b2 = reinterpret_cast<const double2 *>(&s2[c][ty * 8]);
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                const double2 b = b2[q];
                p[0][2 * q] = fma(a0, b.x, p[0][2 * q]);
                p[0][2 * q + 1] = fma(a0, b.y, p[0][2 * q + 1]);
                p[1][2 * q] = fma(a1, b.x, p[1][2 * q]);
                p[1][2 * q + 1] = fma(a1, b.y, p[1][2 * q + 1]);
            }
        }
#pragma unroll
        for (int j = 0; j < 8; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                if (h >= hIn || j >= jIn)
                    continue;
                const double ei = ev[h][j], di = ei - p[h][j];
                acc += di * di;
                if (update) // W − f(E − D), as kNextWSumSquares
                    wt[base + 64 * h + K * j] = wv[h][j] - static_cast<float>(ei - di);
            }
    }
    blockTreeSum(acc, red, parts);
}

__global__ void kPassEnd(const double *parts, MiloState *st, int t, bool paper, const int *failed, MiloStatus *out)
{
    __shared__ double red[kT];
    double acc = 0.0;
    for (int i = threadIdx.x; i < kMiloSumBlocks; i += kT)
        acc += parts[i];
    red[threadIdx.x] = acc;
    __syncthreads();
    for (int h = kT / 2; h > 0; h /= 2) {
        if (static_cast<int>(threadIdx.x) < h)
            red[threadIdx.x] += red[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x != 0)
        return;
    MiloStatus s{};
    s.nonFinite = st->nonFinite;
    s.eps = sqrt(red[0]);
    if (failed && *failed) {
        s.retry = 1;
        st->isBest = 0;
        *out = s;
        return;
    }
    if (st->stopped) { // a pass after the stop commits nothing
        st->isBest = 0;
        s.stop = 1;
        *out = s;
        return;
    }
    st->eps[t - 1] = s.eps;
    st->passesDone = t;
    const bool best = !paper || st->bestPass == 0 || s.eps < st->bestEps;
    if (best) {
        st->bestEps = s.eps;
        st->bestPass = t;
    }
    st->isBest = best ? 1 : 0;
    s.isBest = st->isBest;
    if (paper && milomath::paperShouldStop(st->eps, t))
        st->stopped = 1;
    s.stop = st->stopped;
    *out = s;
}

__global__ void kFactors(const double *ua, const double *vb, const double *lambda, int m, int n, int l, bool aIsX,
                         long long N, long long K, float *U, float *V)
{
    // Element (row, ascending component c) of ua [m × l] and vb [n × l].
    const long long total = static_cast<long long>(m + n) * l;
    for (long long e = static_cast<long long>(blockIdx.x) * kT + threadIdx.x; e < total;
         e += static_cast<long long>(gridDim.x) * kT) {
        const bool fromUa = e < static_cast<long long>(m) * l;
        const long long e2 = fromUa ? e : e - static_cast<long long>(m) * l;
        const int rows = fromUa ? m : n;
        const long long row = e2 % rows;
        const int c = static_cast<int>(e2 / rows);
        const int comp = l - 1 - c;
        const double lam = lambda[c];
        const double sq = lam > 0.0 ? sqrt(sqrt(lam)) : 0.0; // √σ with σ = √λ
        double v = fromUa ? ua[e2] : vb[e2];
        // U_A·√S = ua·√σ; V_A·√S = vb/√σ (vb = Bᵀ·U_B = V_A·S).
        v = sq > 0.0 ? (fromUa ? v * sq : v / sq) : 0.0;
        // A = Eᵀ: MiLo's U comes from V_A (vb), its V from U_A (ua); A = E: the other way.
        const bool toU = aIsX ? !fromUa : fromUa;
        if (toU)
            U[row * l + comp] = static_cast<float>(v);
        else
            V[static_cast<long long>(comp) * K + row] = static_cast<float>(v);
        (void)N;
    }
}

/// Column c of U [N, r]: the first index of the largest |value|; flips[c] = its value < 0.
__global__ void kSignFind(const float *U, long long N, int r, int *flips)
{
    __shared__ float bv[kT];
    __shared__ long long bi[kT];
    const int c = blockIdx.x;
    float best = -1.0f;
    long long at = 0;
    for (long long i = threadIdx.x; i < N; i += kT) {
        const float a = fabsf(U[i * r + c]);
        if (a > best) { // a thread's indices ascend: the first of equals stays
            best = a;
            at = i;
        }
    }
    bv[threadIdx.x] = best;
    bi[threadIdx.x] = at;
    __syncthreads();
    for (int h = kT / 2; h > 0; h /= 2) {
        if (static_cast<int>(threadIdx.x) < h) {
            const float o = bv[threadIdx.x + h];
            const long long oi = bi[threadIdx.x + h];
            if (o > bv[threadIdx.x] || (o == bv[threadIdx.x] && oi < bi[threadIdx.x])) {
                bv[threadIdx.x] = o;
                bi[threadIdx.x] = oi;
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        flips[c] = U[bi[0] * r + c] < 0.0f ? 1 : 0;
}

__global__ void kSignApply(float *U, float *V, long long N, long long K, int r, const int *flips)
{
    const long long nu = N * r, total = nu + static_cast<long long>(r) * K;
    for (long long e = static_cast<long long>(blockIdx.x) * kT + threadIdx.x; e < total;
         e += static_cast<long long>(gridDim.x) * kT) {
        if (e < nu) {
            if (flips[e % r])
                U[e] = -U[e];
        } else if (flips[(e - nu) / K]) {
            V[e - nu] = -V[e - nu];
        }
    }
}

/// One warp per group of the flattened factor.
__global__ void kCompensator(const float *x, long long n, long long group, int kind, float *scales, signed char *codes,
                             float *values)
{
    const long long groups = (n + group - 1) / group;
    const int lane = threadIdx.x & 31;
    const long long warp = (static_cast<long long>(blockIdx.x) * kT + threadIdx.x) / 32;
    const long long warps = static_cast<long long>(gridDim.x) * kT / 32;
    for (long long g = warp; g < groups; g += warps) {
        const long long g0 = g * group, g1 = g0 + group < n ? g0 + group : n;
        if (kind < 0) {
            for (long long i = g0 + lane; i < g1; i += 32)
                values[i] = qmath::roundF16(x[i]);
            continue;
        }
        float absMax = 0.0f, signedMax = x[g0];
        for (long long i = g0 + lane; i < g1; i += 32) {
            absMax = fmaxf(absMax, fabsf(x[i]));
            signedMax = x[i] > signedMax ? x[i] : signedMax;
        }
        for (int o = 16; o > 0; o /= 2) {
            absMax = fmaxf(absMax, __shfl_xor_sync(0xffffffffu, absMax, o));
            const float sm = __shfl_xor_sync(0xffffffffu, signedMax, o);
            signedMax = sm > signedMax ? sm : signedMax;
        }
        const float s = milomath::compensatorScale(kind, absMax, signedMax);
        if (lane == 0)
            scales[g] = s;
        for (long long i = g0 + lane; i < g1; i += 32) {
            std::int8_t code;
            float v;
            milomath::compensatorElement(kind, x[i], s, code, v);
            codes[i] = code;
            values[i] = v;
        }
    }
}

__global__ void kHqqPlusProduct(const unsigned char *codes, const float *zero, const float *scales,
                                const unsigned char *bad, long long numel, long long groups, long long group,
                                bool axis1, bool fp16, const double *p, float *out)
{
    for (long long i = static_cast<long long>(blockIdx.x) * kT + threadIdx.x; i < numel;
         i += static_cast<long long>(gridDim.x) * kT) {
        const long long j = axis1 ? i / group : i % groups;
        float y = 0.0f;
        if (!bad[j]) {
            const float code = static_cast<float>(codes[i]), zz = zero[j], scale = scales[j];
            y = fp16 ? hqqmath::hqqH(hqqmath::hqqH(code - zz) * scale) : (code - zz) * scale;
        }
        out[i] = p ? static_cast<float>(static_cast<double>(y) + p[i]) : y;
    }
}

} // namespace

void philoxNormalColMajor(std::uint64_t seed, std::uint32_t stream, int n, int l, float *R, void *s)
{
    kPhilox<float><<<gridFor((static_cast<long long>(n) * l + 3) / 4, 4096), kT, 0, S(s)>>>(seed, stream, n, l, R);
    QS_GPU_CHECK_LAUNCH("philoxNormal");
}

void philoxNormalColMajor64(std::uint64_t seed, std::uint32_t stream, int n, int l, double *R, void *s)
{
    kPhilox<double><<<gridFor((static_cast<long long>(n) * l + 3) / 4, 4096), kT, 0, S(s)>>>(seed, stream, n, l, R);
    QS_GPU_CHECK_LAUNCH("philoxNormal64");
}

void orFlag(const int *info, int *flag, void *s)
{
    kOrFlag<<<1, 1, 0, S(s)>>>(info, flag);
    QS_GPU_CHECK_LAUNCH("orFlag");
}

void cholCheck(const double *R, int l, double minRatio, const int *info, int *flag, void *s)
{
    kCholCheck<<<1, kT, 0, S(s)>>>(R, l, minRatio, info, flag);
    QS_GPU_CHECK_LAUNCH("cholCheck");
}

int smallQrPartBlocks(int rows)
{
    return (rows + kQrRows - 1) / kQrRows;
}

void cholQrSmall(double *Y, int rows, int l, double *parts, double *R, int *failed, void *s)
{
    if (l < 1 || l > kSmallQrCols)
        throw GpuError("cholQrSmall: " + std::to_string(l) + " columns");
    const int blocks = smallQrPartBlocks(rows);
    kGramPartial<<<blocks, kT, 0, S(s)>>>(Y, rows, l, parts);
    QS_GPU_CHECK_LAUNCH("Gram (thin CholeskyQR)");
    kGramCholesky<<<1, 1024, 0, S(s)>>>(parts, blocks, l, R, failed);
    QS_GPU_CHECK_LAUNCH("Cholesky (thin CholeskyQR)");
    kTriSolveRows<<<(rows + kT - 1) / kT, kT, 0, S(s)>>>(Y, rows, l, R);
    QS_GPU_CHECK_LAUNCH("solve (thin CholeskyQR)");
}

void toFloat(const double *in, long long n, float *out, void *s)
{
    kToFloat<<<gridFor(n, 8192), kT, 0, S(s)>>>(in, n, out);
    QS_GPU_CHECK_LAUNCH("toFloat");
}

void decodeF32(int in, const void *w, long long n, float *out, MiloState *st, void *s)
{
    dispatchIn(in, [&](auto I) { kDecode<decltype(I)::value><<<gridFor(n, 8192), kT, 0, S(s)>>>(w, n, out, st); });
    QS_GPU_CHECK_LAUNCH("decodeF32");
}

void residual64(int in, const void *w, const float *wHat, long long n, double *e, void *s)
{
    dispatchIn(in, [&](auto I) { kResidual64<decltype(I)::value><<<gridFor(n, 8192), kT, 0, S(s)>>>(w, wHat, n, e); });
    QS_GPU_CHECK_LAUNCH("residual64");
}

void sumSquares(const double *d, long long n, double *parts, void *s)
{
    kSumSquares<<<kMiloSumBlocks, kT, 0, S(s)>>>(d, n, parts);
    QS_GPU_CHECK_LAUNCH("sumSquares");
}

void nextWSumSquares(int in, const void *w, float *wt, const double *d, long long n, const int *skip, double *parts,
                     void *s)
{
    dispatchIn(in, [&](auto I) {
        kNextWSumSquares<decltype(I)::value><<<kMiloSumBlocks, kT, 0, S(s)>>>(w, wt, d, n, skip, parts);
    });
    QS_GPU_CHECK_LAUNCH("nextWSumSquares");
}

void thinUpdate(int in, const void *w, float *wt, const double *e, const double *p1, const double *p2, long long K,
                long long N, int r, const int *skip, double *parts, void *s)
{
    if (r < 1 || r > kThinUpdateCols)
        throw GpuError("thinUpdate: rank " + std::to_string(r));
    dispatchIn(in, [&](auto I) {
        kThinUpdate<decltype(I)::value><<<kMiloSumBlocks, kT, 0, S(s)>>>(w, wt, e, p1, p2, K, N, r, skip, parts);
    });
    QS_GPU_CHECK_LAUNCH("thinUpdate");
}

void passEnd(const double *parts, MiloState *st, int t, bool paper, const int *failed, MiloStatus *status, void *s)
{
    kPassEnd<<<1, kT, 0, S(s)>>>(parts, st, t, paper, failed, status);
    QS_GPU_CHECK_LAUNCH("passEnd");
}

void miloFactors(const double *ua, const double *vb, const double *lambda, int m, int n, int l, bool aIsX, long long N,
                 long long K, float *U, float *V, void *s)
{
    kFactors<<<gridFor(static_cast<long long>(m + n) * l, 8192), kT, 0, S(s)>>>(ua, vb, lambda, m, n, l, aIsX, N, K, U,
                                                                                V);
    QS_GPU_CHECK_LAUNCH("miloFactors");
}

void miloSigns(float *U, float *V, long long N, long long K, int r, int *flips, void *s)
{
    kSignFind<<<r, kT, 0, S(s)>>>(U, N, r, flips);
    QS_GPU_CHECK_LAUNCH("miloSigns find");
    kSignApply<<<gridFor((N + K) * r, 8192), kT, 0, S(s)>>>(U, V, N, K, r, flips);
    QS_GPU_CHECK_LAUNCH("miloSigns apply");
}

void compensator(const float *x, long long n, long long group, int kind, float *scales, signed char *codes,
                 float *values, void *s)
{
    const long long groups = (n + group - 1) / group;
    kCompensator<<<gridFor(groups * 32, 4096), kT, 0, S(s)>>>(x, n, group, kind, scales, codes, values);
    QS_GPU_CHECK_LAUNCH("compensator");
}

void hqqPlusProduct(const unsigned char *codes, const float *zero, const float *scales, const unsigned char *bad,
                    long long numel, long long groups, long long group, bool axis1, bool fp16, const double *p,
                    float *out, void *s)
{
    kHqqPlusProduct<<<gridFor(numel, 8192), kT, 0, S(s)>>>(codes, zero, scales, bad, numel, groups, group, axis1, fp16,
                                                           p, out);
    QS_GPU_CHECK_LAUNCH("hqqPlusProduct");
}

} // namespace quantscope::gpu::launch
