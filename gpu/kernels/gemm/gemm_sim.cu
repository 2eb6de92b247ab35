// SPDX-License-Identifier: MIT
// The paired GEMM simulation on the device (core/sim/gemm_sim.h): every output Y[m, n] in FP64 and
// the deployment's Ŷ[m, n] with the CPU's op sequence — k in order, each product and sum rounded as
// the CPU rounds it (-fmad=false: no contraction) — so Ŷ is the CPU's bit for bit; the per-token
// sums are reduced in a fixed order (per thread over its columns, then column blocks in order),
// which differs from the CPU's sequential order only in the last bits of the FP64 sums. Also the
// static FP8 activation quantizer (quant/activation.h).
#define QS_HD __host__ __device__

#include "device_math.h"
#include "kernels_gemm.h"
#include "plan.h"
#include "qs_gpu_compat.h"
#include "sim/gemm_sim_math.h"

namespace quantscope::gpu::launch {

namespace {

using i64 = long long;

template <int IN> __device__ __forceinline__ float decodeAt(const void *w, i64 i)
{
    if constexpr (IN == kInF32)
        return static_cast<const float *>(w)[i];
    else if constexpr (IN == kInBf16)
        return gpumath::bf16ToF32(static_cast<const unsigned short *>(w)[i]);
    else
        return gpumath::f16ToF32(static_cast<const unsigned short *>(w)[i]);
}

template <typename F> void dispatchIn(int in, F &&f)
{
    if (in == kInBf16)
        f(std::integral_constant<int, kInBf16>{});
    else if (in == kInF16)
        f(std::integral_constant<int, kInF16>{});
    else
        f(std::integral_constant<int, kInF32>{});
}

template <int IN> __global__ void kAbsMax(const void *x, i64 n, unsigned *out)
{
    unsigned m = 0;
    for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<i64>(gridDim.x) * blockDim.x) {
        const unsigned a = qmath::bitsOf(decodeAt<IN>(x, i)) & 0x7FFFFFFFu;
        m = a < 0x7F800000u && a > m ? a : m;
    }
    for (int o = 16; o > 0; o >>= 1)
        m = max(m, QS_SHFL_XOR(m, o));
    if ((threadIdx.x & 31) == 0 && m)
        QS_ATOMIC_MAX(out, m);
}

template <int IN>
__global__ void kActStatic(const void *x, i64 n, float sGiven, const unsigned *absBits, float *sOut,
                           unsigned char *codes, float *deq, unsigned long long *nonFinite)
{
    float s = sGiven;
    if (absBits) { // quant/activation.cpp: absmax/448, FP32 eps when not positive
        s = __fdiv_rn(qmath::fromBits(*absBits), 448.0f);
        s = s > 0.0f ? s : 1.1920929e-7f;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *sOut = s;
    unsigned long long bad = 0;
    for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<i64>(gridDim.x) * blockDim.x) {
        const float v = decodeAt<IN>(x, i);
        unsigned char c = 0;
        if (qmath::isFinite(v))
            c = gpumath::encodeE4m3(__fdiv_rn(v, s));
        else
            ++bad;
        codes[i] = c;
        deq[i] = __fmul_rn(gpumath::decodeE4m3(c), s);
    }
    if (bad)
        QS_ATOMIC_ADD(nonFinite, bad);
}

// The products (kSimGemm): a 64 × 64 block of outputs per 256 threads, 4 × 4 per thread (rows
// 2ty + 32i' + b, columns 2tx + 32j' + b, so each thread reads its operands as pairs: 16-byte
// shared loads of doubles, broadcast across a warp's 4 rows of threads); a warp is 8 × 4 threads.
// Tiles of 16 k: X, W and Ŵ stored in shared memory as FP64 (converted once per tile, not per
// product), the Ŷ operands as FP32 (A16: bf16 of X and Ŵ, computed here; FP8: code values) or
// INT8 codes as int. Rows padded by 2 so the transposing stores hit distinct banks. The next tile
// is loaded into registers while the current one is multiplied.
//
// The op sequence of every output is the CPU's, k in order. Y and X·Ŵᵀ: the product of two
// floats is exact in FP64 (48 significant bits, exponents within ±300), so one DFMA per step
// equals the CPU's rounded add of the product (sim/gemm_sim_math.h fp64ProductStep). Ŷ: A16 keeps
// the separate FP32 multiply and add (BF16 products can fall below FP32's normal range, where the
// multiply rounds); FP8 uses FFMA, the product of an E4M3 value and an E4M3 / E2M1 / |int| ≤ 255
// value being exact in FP32 (fp8ProductStep); INT8 accumulates exactly in INT32.
constexpr int kBM = 64, kBN = 64, kBK = 16, kPad = 2;

template <int MODE> struct OpOf {
    using T = float;
    using T2 = float2;
};
template <> struct OpOf<1> {
    using T = int;
    using T2 = int2;
};

/// Four consecutive k of one row (zeros outside [0, rows) × [0, K)); `vec`: K % 4 == 0.
__device__ __forceinline__ void load4(const float *p, i64 row, i64 rows, i64 k, i64 K, bool vec, float (&v)[4])
{
    if (vec) {
        float4 t = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (row < rows && k < K)
            t = *reinterpret_cast<const float4 *>(p + row * K + k);
        v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
        return;
    }
#pragma unroll
    for (int t = 0; t < 4; ++t)
        v[t] = row < rows && k + t < K ? p[row * K + k + t] : 0.0f;
}
__device__ __forceinline__ void load4(const signed char *p, i64 row, i64 rows, i64 k, i64 K, bool vec, int (&v)[4])
{
    if (vec) {
        char4 t = make_char4(0, 0, 0, 0);
        if (row < rows && k < K)
            t = *reinterpret_cast<const char4 *>(p + row * K + k);
        v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
        return;
    }
#pragma unroll
    for (int t = 0; t < 4; ++t)
        v[t] = row < rows && k + t < K ? p[row * K + k + t] : 0;
}

template <int MODE> __global__ void __launch_bounds__(256, 1) kSimGemm(SimGemmArgs a)
{
    using Op = typename OpOf<MODE>::T;
    __shared__ __align__(16) double sX[kBK][kBM + kPad], sW[kBK][kBN + kPad], sH[kBK][kBN + kPad];
    __shared__ __align__(16) Op sA[kBK][kBM + kPad], sB[kBK][kBN + kPad];
    // Bit fields of the thread index (not the hardware's warp: HIP's waves are 64 wide).
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int tx = (warp & 1) * 8 + (lane & 7), ty = (warp >> 1) * 4 + (lane >> 3);
    const i64 m0 = static_cast<i64>(blockIdx.y) * kBM, n0 = static_cast<i64>(blockIdx.x) * kBN;
    const bool vec = (a.K & 3) == 0;
    // This thread's tile loads: row lr, k lk..lk+3 of the tile.
    const int lr = threadIdx.x >> 2, lk = (threadIdx.x & 3) * 4;
    float px[4], pw[4], ph[4];
    Op pa[4], pb[4];
    auto fetch = [&](i64 k0) {
        load4(a.xs, m0 + lr, a.M, k0 + lk, a.K, vec, px);
        load4(a.ws, n0 + lr, a.N, k0 + lk, a.K, vec, pw);
        load4(a.what, n0 + lr, a.N, k0 + lk, a.K, vec, ph);
        if constexpr (MODE == 1) {
            load4(a.xq, m0 + lr, a.M, k0 + lk, a.K, vec, pa);
            load4(a.wq, n0 + lr, a.N, k0 + lk, a.K, vec, pb);
        } else if constexpr (MODE == 2) {
            load4(a.xa, m0 + lr, a.M, k0 + lk, a.K, vec, pa);
            load4(a.wa, n0 + lr, a.N, k0 + lk, a.K, vec, pb);
        }
    };
    auto store = [&]() {
#pragma unroll
        for (int t = 0; t < 4; ++t) {
            sX[lk + t][lr] = static_cast<double>(px[t]);
            sW[lk + t][lr] = static_cast<double>(pw[t]);
            sH[lk + t][lr] = static_cast<double>(ph[t]);
            if constexpr (MODE == 0) { // W{b}A16: X and Ŵ rounded to BF16 (the CPU's xb, wb)
                sA[lk + t][lr] = qmath::roundBf16(px[t]);
                sB[lk + t][lr] = qmath::roundBf16(ph[t]);
            } else {
                sA[lk + t][lr] = pa[t];
                sB[lk + t][lr] = pb[t];
            }
        }
    };
    double y[4][4], yw[4][4];
    float ys[4][4], accF[4][4];
    int accI[4][4], sumI[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        sumI[i] = 0;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            y[i][j] = 0;
            yw[i][j] = 0;
            ys[i][j] = 0.0f;
            accF[i][j] = 0.0f;
            accI[i][j] = 0;
        }
    }
    int seg = 0;
    i64 segEnd = MODE == 0 ? a.K : a.segEnd[0];
    // One k of the tile: every output's three products (the CPU's order).
    auto step = [&](int kk) {
        double xd[4], wd[4], hd[4];
        Op xo[4], wo[4];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const double2 x2 = *reinterpret_cast<const double2 *>(&sX[kk][2 * ty + 32 * h]);
            const double2 w2 = *reinterpret_cast<const double2 *>(&sW[kk][2 * tx + 32 * h]);
            const double2 h2 = *reinterpret_cast<const double2 *>(&sH[kk][2 * tx + 32 * h]);
            xd[2 * h] = x2.x, xd[2 * h + 1] = x2.y;
            wd[2 * h] = w2.x, wd[2 * h + 1] = w2.y;
            hd[2 * h] = h2.x, hd[2 * h + 1] = h2.y;
            using Op2 = typename OpOf<MODE>::T2;
            const Op2 a2 = *reinterpret_cast<const Op2 *>(&sA[kk][2 * ty + 32 * h]);
            const Op2 b2 = *reinterpret_cast<const Op2 *>(&sB[kk][2 * tx + 32 * h]);
            xo[2 * h] = a2.x, xo[2 * h + 1] = a2.y;
            wo[2 * h] = b2.x, wo[2 * h + 1] = b2.y;
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            if constexpr (MODE == 1)
                sumI[i] += xo[i];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                y[i][j] = fma(xd[i], wd[j], y[i][j]); // gemmsim::fp64ProductStep, operands in FP64
                yw[i][j] = fma(xd[i], hd[j], yw[i][j]);
                if constexpr (MODE == 0)
                    ys[i][j] = __fadd_rn(ys[i][j], __fmul_rn(xo[i], wo[j]));
                else if constexpr (MODE == 1)
                    accI[i][j] += xo[i] * wo[j];
                else
                    accF[i][j] = gemmsim::fp8ProductStep(accF[i][j], xo[i], wo[j]);
            }
        }
    };
    // The end of a run of k sharing the weight's scale(s): the epilogue of the run.
    auto endRun = [&]() {
        float sw[4], so[4];
        int zw[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const i64 n = n0 + 2 * tx + 32 * (j >> 1) + (j & 1);
            const i64 si = (n < a.N ? n : 0) * a.runs + seg;
            sw[j] = a.segS[si];
            so[j] = a.outer ? a.segSo[si] : 1.0f;
            zw[j] = MODE == 1 ? a.segZ[si] : 0;
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const i64 m = m0 + 2 * ty + 32 * (i >> 1) + (i & 1);
            const float sx = a.perToken ? (m < a.M ? a.sx[m] : 1.0f) : a.sx[0];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                float t = __fmul_rn(sx, sw[j]);
                if (a.outer)
                    t = __fmul_rn(t, so[j]);
                if constexpr (MODE == 1) {
                    const int A = a.dropZ ? accI[i][j] : accI[i][j] - zw[j] * sumI[i];
                    ys[i][j] = __fadd_rn(ys[i][j], __fmul_rn(t, static_cast<float>(A)));
                    accI[i][j] = 0;
                } else {
                    ys[i][j] = __fadd_rn(ys[i][j], __fmul_rn(t, accF[i][j]));
                    accF[i][j] = 0.0f;
                }
            }
            sumI[i] = 0;
        }
        ++seg;
        segEnd = seg < a.runs ? a.segEnd[seg] : a.K;
    };
    fetch(0);
    for (i64 k0 = 0; k0 < a.K; k0 += kBK) {
        __syncthreads(); // the previous tile is no longer read
        store();
        __syncthreads();
        if (k0 + kBK < a.K)
            fetch(k0 + kBK); // in flight while this tile is multiplied
        // A full tile whose k hold no run end before its last k (every g ≥ 16 layout split at
        // multiples of 16, and W{b}A16) runs its 16 steps unrolled, so the next step's shared
        // loads are issued under this step's DFMAs; any other tile steps one k at a time with the
        // run-end test. The per-output op sequence is the same either way.
        const int kn = static_cast<int>(a.K - k0 < kBK ? a.K - k0 : kBK);
        if (kn == kBK && (MODE == 0 || segEnd - k0 >= kBK)) {
#pragma unroll
            for (int kk = 0; kk < kBK; ++kk)
                step(kk);
            if (MODE != 0 && k0 + kBK == segEnd)
                endRun();
        } else {
            for (int kk = 0; kk < kn; ++kk) {
                step(kk);
                if (MODE != 0 && k0 + kk + 1 == segEnd)
                    endRun();
            }
        }
    }
    // Per token: this thread's columns in order, then the 8 threads of the warp that share its
    // rows (a fixed butterfly over lane bits 0–2); one partial per (row, half of the block).
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const i64 m = m0 + 2 * ty + 32 * (i >> 1) + (i & 1);
        double v[3] = {0, 0, 0};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const i64 n = n0 + 2 * tx + 32 * (j >> 1) + (j & 1);
            if (m >= a.M || n >= a.N)
                continue;
            if (a.out)
                a.out[m * a.N + n] = ys[i][j];
            const double yv = y[i][j], d = yv - static_cast<double>(ys[i][j]), dw = yv - yw[i][j];
            v[0] = __dadd_rn(v[0], __dmul_rn(yv, yv));
            v[1] = __dadd_rn(v[1], __dmul_rn(d, d));
            v[2] = __dadd_rn(v[2], __dmul_rn(dw, dw));
        }
#pragma unroll
        for (int f = 0; f < 3; ++f)
            for (int o = 4; o > 0; o >>= 1)
                v[f] = __dadd_rn(v[f], QS_SHFL_XOR(v[f], o));
        if ((lane & 7) == 0 && m < a.M) {
            const i64 part = static_cast<i64>(blockIdx.x) * 2 + (warp & 1);
            for (int f = 0; f < 3; ++f)
                a.parts[(m * 2 * gridDim.x + part) * 3 + f] = v[f];
        }
    }
}

/// Run j of column k (segEnd ascending, the last = K).
__device__ __forceinline__ int runOf(const long long *segEnd, int runs, i64 k)
{
    int lo = 0, hi = runs - 1;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (k < segEnd[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/// The weight's operands from its codes (gemm_sim.cpp factor and the int method's dequantize).
__global__ void kWeightOperands(WeightOperandArgs a)
{
    const i64 n = a.N * a.K;
    for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<i64>(gridDim.x) * blockDim.x) {
        const i64 r = i / a.K, k = i - r * a.K;
        const unsigned char c = a.codes[i];
        const i64 si = r * a.runs + runOf(a.segEnd, a.runs, k);
        const int z = a.segZ[si];
        if (a.what) // IntQuantizer::dequantize: intDequant per element
            a.what[i] = intDequant(a.ip, static_cast<signed char>(c), a.segS[si], z);
        if (a.v) {
            float v;
            if (a.codeKind == 1)
                v = static_cast<float>(static_cast<signed char>(c) - z);
            else if (a.codeKind == 2)
                v = gpumath::decodeE4m3(c);
            else if (a.codeKind == 3)
                v = gpumath::decodeE5m2(c);
            else
                v = fp4::e2m1Value(c);
            a.v[i] = v;
        }
    }
}

__global__ void kE4m3Values(const unsigned char *codes, i64 n, float *out)
{
    for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<i64>(gridDim.x) * blockDim.x)
        out[i] = gpumath::decodeE4m3(codes[i]);
}

constexpr int kErrBlocks = 1024;

/// Σ (x − x̂)² and Σ x² over the finite x (gemm_sim.cpp's activation error), per block in a fixed
/// order, then the blocks in order by kActErrReduce.
__global__ void __launch_bounds__(256) kActErr(const float *x, const float *xh, i64 n, double *parts)
{
    __shared__ double sE[256], sS[256];
    double e = 0, q = 0;
    for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<i64>(gridDim.x) * blockDim.x) {
        const float v = x[i];
        if (!qmath::isFinite(v))
            continue;
        const double d = qmath::dsub(static_cast<double>(v), static_cast<double>(xh[i]));
        e = __dadd_rn(e, __dmul_rn(d, d));
        q = __dadd_rn(q, __dmul_rn(static_cast<double>(v), static_cast<double>(v)));
    }
    sE[threadIdx.x] = e;
    sS[threadIdx.x] = q;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (static_cast<int>(threadIdx.x) < s) {
            sE[threadIdx.x] = __dadd_rn(sE[threadIdx.x], sE[threadIdx.x + s]);
            sS[threadIdx.x] = __dadd_rn(sS[threadIdx.x], sS[threadIdx.x + s]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        parts[2 * blockIdx.x] = sE[0];
        parts[2 * blockIdx.x + 1] = sS[0];
    }
}

__global__ void kActErrReduce(const double *parts, int blocks, double *out)
{
    if (threadIdx.x >= 2)
        return;
    double v = 0;
    for (int b = 0; b < blocks; ++b)
        v = __dadd_rn(v, parts[2 * b + threadIdx.x]);
    out[threadIdx.x] = v;
}

__global__ void kSimReduce(const double *parts, i64 M, int nb, double *sums)
{
    const i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= M * 3)
        return;
    const i64 m = i / 3;
    const int f = static_cast<int>(i % 3);
    double v = 0;
    for (int b = 0; b < nb; ++b)
        v = __dadd_rn(v, parts[(m * nb + b) * 3 + f]);
    sums[i] = v;
}

__global__ void kToDouble(const float *in, i64 n, double *out)
{
    for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<i64>(gridDim.x) * blockDim.x)
        out[i] = static_cast<double>(in[i]);
}

} // namespace

void toDouble(const float *in, long long n, double *out, void *stream)
{
    const int blocks = static_cast<int>(n / 256 + 1 < 8192 ? n / 256 + 1 : 8192);
    kToDouble<<<blocks, 256, 0, static_cast<qsStream_t>(stream)>>>(in, n, out);
    QS_GPU_CHECK_LAUNCH("toDouble");
}

void absMaxFinite(int in, const void *x, long long n, unsigned *out, void *stream)
{
    const int blocks = static_cast<int>(n / 256 + 1 < 4096 ? n / 256 + 1 : 4096);
    dispatchIn(in, [&](auto I) {
        kAbsMax<decltype(I)::value><<<blocks, 256, 0, static_cast<qsStream_t>(stream)>>>(x, n, out);
    });
    QS_GPU_CHECK_LAUNCH("absMaxFinite");
}

void actStatic(int in, const void *x, long long n, float s, const unsigned *absBits, float *sOut, unsigned char *codes,
               float *deq, unsigned long long *nonFinite, void *stream)
{
    const int blocks = static_cast<int>(n / 256 + 1 < 4096 ? n / 256 + 1 : 4096);
    dispatchIn(in, [&](auto I) {
        kActStatic<decltype(I)::value>
            <<<blocks, 256, 0, static_cast<qsStream_t>(stream)>>>(x, n, s, absBits, sOut, codes, deq, nonFinite);
    });
    QS_GPU_CHECK_LAUNCH("actStatic");
}

int simGemmColumnBlocks(long long N)
{
    return static_cast<int>(2 * ((N + kBN - 1) / kBN)); // two partials per block of columns
}

void simGemm(const SimGemmArgs &a, void *stream)
{
    const dim3 grid(static_cast<unsigned>((a.N + kBN - 1) / kBN), static_cast<unsigned>((a.M + kBM - 1) / kBM));
    const auto st = static_cast<qsStream_t>(stream);
    if (a.mode == 0)
        kSimGemm<0><<<grid, 256, 0, st>>>(a);
    else if (a.mode == 1)
        kSimGemm<1><<<grid, 256, 0, st>>>(a);
    else
        kSimGemm<2><<<grid, 256, 0, st>>>(a);
    QS_GPU_CHECK_LAUNCH("simGemm");
}

void simReduce(const double *parts, long long M, int nBlocks, double *sums, void *stream)
{
    const long long n = M * 3;
    kSimReduce<<<static_cast<unsigned>((n + 255) / 256), 256, 0, static_cast<qsStream_t>(stream)>>>(parts, M, nBlocks,
                                                                                                    sums);
    QS_GPU_CHECK_LAUNCH("simReduce");
}

void weightOperands(const WeightOperandArgs &a, void *stream)
{
    const long long n = a.N * a.K;
    const int blocks = static_cast<int>(n / 256 + 1 < 8192 ? n / 256 + 1 : 8192);
    kWeightOperands<<<blocks, 256, 0, static_cast<qsStream_t>(stream)>>>(a);
    QS_GPU_CHECK_LAUNCH("weightOperands");
}

void e4m3Values(const unsigned char *codes, long long n, float *out, void *stream)
{
    const int blocks = static_cast<int>(n / 256 + 1 < 4096 ? n / 256 + 1 : 4096);
    kE4m3Values<<<blocks, 256, 0, static_cast<qsStream_t>(stream)>>>(codes, n, out);
    QS_GPU_CHECK_LAUNCH("e4m3Values");
}

int actErrScratch()
{
    return 2 * kErrBlocks;
}

void actErr(const float *x, const float *xHat, long long n, double *scratch, double *out, void *stream)
{
    const auto st = static_cast<qsStream_t>(stream);
    kActErr<<<kErrBlocks, 256, 0, st>>>(x, xHat, n, scratch);
    QS_GPU_CHECK_LAUNCH("actErr");
    kActErrReduce<<<1, 32, 0, st>>>(scratch, kErrBlocks, out);
    QS_GPU_CHECK_LAUNCH("actErrReduce");
}

} // namespace quantscope::gpu::launch
