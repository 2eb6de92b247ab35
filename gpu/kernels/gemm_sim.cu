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

constexpr int kBM = 64, kBN = 64, kBK = 16, kT = 16; // 16×16 threads, 4×4 outputs each

template <int MODE> __global__ void __launch_bounds__(256) kSimGemm(SimGemmArgs a)
{
    __shared__ float sX[kBK][kBM], sW[kBK][kBN], sH[kBK][kBN];
    __shared__ float sXa[kBK][kBM], sWa[kBK][kBN]; // A16: BF16-rounded; FP8: code values
    __shared__ int sXq[kBK][kBM], sWq[kBK][kBN];   // INT8 codes
    const int tx = threadIdx.x % kT, ty = threadIdx.x / kT;
    const i64 m0 = static_cast<i64>(blockIdx.y) * kBM, n0 = static_cast<i64>(blockIdx.x) * kBN;
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
    for (i64 k0 = 0; k0 < a.K; k0 += kBK) {
        // Load the tiles (zero outside the matrices; the loop below never reads beyond K).
        for (int e = threadIdx.x; e < kBK * kBM; e += blockDim.x) {
            const int kk = e % kBK, r = e / kBK;
            const i64 k = k0 + kk, m = m0 + r, n = n0 + r;
            const bool okM = k < a.K && m < a.M, okN = k < a.K && n < a.N;
            sX[kk][r] = okM ? a.xs[m * a.K + k] : 0.0f;
            sW[kk][r] = okN ? a.ws[n * a.K + k] : 0.0f;
            sH[kk][r] = okN ? a.what[n * a.K + k] : 0.0f;
            if (MODE == 1) {
                sXq[kk][r] = okM ? a.xq[m * a.K + k] : 0;
                sWq[kk][r] = okN ? a.wq[n * a.K + k] : 0;
            } else {
                sXa[kk][r] = okM ? a.xa[m * a.K + k] : 0.0f;
                sWa[kk][r] = okN ? a.wa[n * a.K + k] : 0.0f;
            }
        }
        __syncthreads();
        const int kn = static_cast<int>(a.K - k0 < kBK ? a.K - k0 : kBK);
        for (int kk = 0; kk < kn; ++kk) {
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int r = ty + kT * i;
                const double xd = sX[kk][r];
                const float xf = MODE == 1 ? 0.0f : sXa[kk][r];
                const int xi = MODE == 1 ? sXq[kk][r] : 0;
                if (MODE == 1)
                    sumI[i] += xi;
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    const int c = tx + kT * j;
                    y[i][j] = __dadd_rn(y[i][j], __dmul_rn(xd, static_cast<double>(sW[kk][c])));
                    yw[i][j] = __dadd_rn(yw[i][j], __dmul_rn(xd, static_cast<double>(sH[kk][c])));
                    if (MODE == 0)
                        ys[i][j] = __fadd_rn(ys[i][j], __fmul_rn(xf, sWa[kk][c]));
                    else if (MODE == 1)
                        accI[i][j] += xi * sWq[kk][c];
                    else
                        accF[i][j] = __fadd_rn(accF[i][j], __fmul_rn(xf, sWa[kk][c]));
                }
            }
            if (MODE != 0 && k0 + kk + 1 == segEnd) {
                // The end of a run of k sharing the weight's scale(s): the epilogue of the run.
#pragma unroll
                for (int i = 0; i < 4; ++i) {
                    const i64 m = m0 + ty + kT * i;
                    const float sx = a.perToken ? (m < a.M ? a.sx[m] : 1.0f) : a.sx[0];
#pragma unroll
                    for (int j = 0; j < 4; ++j) {
                        const i64 n = n0 + tx + kT * j;
                        const i64 si = (n < a.N ? n : 0) * a.runs + seg;
                        float t = __fmul_rn(sx, a.segS[si]);
                        if (a.outer)
                            t = __fmul_rn(t, a.segSo[si]);
                        if (MODE == 1) {
                            const int A = a.dropZ ? accI[i][j] : accI[i][j] - a.segZ[si] * sumI[i];
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
            }
        }
        __syncthreads();
    }
    // Per token: this thread's columns in order, then the 16 threads of the row (a fixed
    // butterfly within the half-warp that holds them).
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int r = ty + kT * i;
        const i64 m = m0 + r;
        double v[3] = {0, 0, 0};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const i64 n = n0 + tx + kT * j;
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
            for (int o = kT / 2; o > 0; o >>= 1)
                v[f] = __dadd_rn(v[f], QS_SHFL_XOR(v[f], o));
        if (tx == 0 && m < a.M)
            for (int f = 0; f < 3; ++f)
                a.parts[(m * gridDim.x + blockIdx.x) * 3 + f] = v[f];
    }
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
    return static_cast<int>((N + kBN - 1) / kBN);
}

void simGemm(const SimGemmArgs &a, void *stream)
{
    const dim3 grid(static_cast<unsigned>(simGemmColumnBlocks(a.N)), static_cast<unsigned>((a.M + kBM - 1) / kBM));
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

} // namespace quantscope::gpu::launch
