// SPDX-License-Identifier: MIT
// The metric passes of the generic path, shared by INT and FP8: the W statistics pass (range,
// counts and sum of W for per-tensor scales), finalize 1 (pass 1's sums reduced into Stats1 and the
// histogram bin thresholds, also used by the INT value-table path), pass 2 (the W, Ŵ, error and
// 4096-bin |error| histograms and the central moments of W and Ŵ) and finalize 2 (the moments).
// The percentiles are evaluated on the host from the |error| bins.
//
// Same contract as quantize.cu: the bin decisions are the QS_HD functions the CPU reference runs;
// no FMA contraction (-fmad=false / -ffp-contract=off), and FP64 steps that decide a histogram bin
// are explicitly rounded (device_math.h). Sums in FP64, reduced in a fixed order.
#define QS_HD __host__ __device__

#include "kernel_common.cuh"

namespace quantscope::gpu::launch {

namespace {

// ---- W statistics pass --------------------------------------------------------------------------

template <int IN> __global__ void __launch_bounds__(kThreads) kStatsW(const void *w, i64 n, double *pd, i64 *pi)
{
    const i64 chunks = (n + kChunk - 1) / kChunk;
    float mn = finf(), mx = -finf();
    double sum = 0;
    i64 nf = 0, nnan = 0, ninf = 0;
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    RawChunk p0{}, p1{}, p2{};
    {
        const i64 k0 = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
        if (k0 < chunks)
            loadRaw<IN>(w, n, k0, p0);
        if (k0 + stride < chunks)
            loadRaw<IN>(w, n, k0 + stride, p1);
        if (k0 + 2 * stride < chunks)
            loadRaw<IN>(w, n, k0 + 2 * stride, p2);
    }
    for (i64 k = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; k < chunks; k += stride) {
        const RawChunk cur = p0;
        p0 = p1;
        p1 = p2;
        if (k + 3 * stride < chunks)
            loadRaw<IN>(w, n, k + 3 * stride, p2);
        float v[kChunk];
        const int c = decodeRaw<IN>(cur, n, k, v);
#pragma unroll
        for (int j = 0; j < kChunk; ++j) {
            if (j >= c)
                continue;
            const float x = v[j];
            if (qmath::isFinite(x)) {
                ++nf;
                sum += gpumath::f32ToF64(x);
                mn = fminf(mn, x);
                mx = fmaxf(mx, x);
            } else if (x != x) {
                ++nnan;
            } else {
                ++ninf;
            }
        }
    }
    double d[kP1D];
#pragma unroll
    for (int f = 0; f < kP1D; ++f)
        d[f] = p1Op(f) == 1 ? dinf() : (p1Op(f) == 2 ? -dinf() : 0.0);
    d[dSumW] = sum;
    d[dMinW] = mn;
    d[dMaxW] = mx;
    i64 iv[kP1I] = {};
    iv[iNF] = nf;
    iv[iNan] = nnan;
    iv[iInf] = ninf;
    blockRow<kP1D, kP1I>(d, iv, P1Ops{}, pd, pi);
}

// ---- finalize pass 1 and the thresholds ---------------------------------------------------------

__global__ void kFinalize1(const double *pd1, const i64 *pi1, int rows1, const double *pdS, const i64 *piS, int rowsS,
                           HistConfig hc, Stats1 *out, float *Tw, double *Te, double *Ta)
{
    __shared__ double rd[kP1D];
    __shared__ i64 ri[kP1I];
    __shared__ Stats1 st;
    const int warp = threadIdx.x / QS_WARP_SIZE;
    const int nw = blockDim.x / QS_WARP_SIZE;
    for (int f = warp; f < int(kP1D) + int(kP1I); f += nw) {
        const bool wField =
            f == dSumW || f == dMinW || f == dMaxW || f == int(kP1D) + int(iNan) || f == int(kP1D) + int(iInf);
        const bool fromS = wField && hc.wSource == 1;
        const double *D = fromS ? pdS : pd1;
        const i64 *I = fromS ? piS : pi1;
        reduceP1Field(f, D, I, fromS ? rowsS : rows1, rd, ri);
    }
    __syncthreads();
    const int B = hc.bins;
    if (threadIdx.x == 0) {
        stats1From(rd, ri, hc, st);
        if (blockIdx.x == 0)
            *out = st;
    }
    __syncthreads();
    const i64 t = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
    const i64 nW = B + 1, nE = B + 1, nA = kAbsBins + 1;
    if ((st.flags & kFlagNonFiniteError) || hc.thresholds == 1)
        return; // the CPU computes these metrics, or no table is needed
    if (hc.thresholds == 2 && t >= nW) {
        // FP32 tables over the error itself: T[k] = the smallest float whose bin is ≥ k.
        const bool err = t < nW + nE;
        const int k = static_cast<int>(err ? t - nW : t - nW - nE);
        const int nb = err ? B : kAbsBins;
        const double range = err ? st.errRange : st.maxAbs;
        float *T = reinterpret_cast<float *>(err ? Te : Ta);
        if (k <= nb)
            T[k] = (k == 0 || k == nb) ? 0.0f
                   : !(range > 0)      ? finf()
                                       : (err ? gpumath::floatBinThreshold(k, st.emin, st.emax, B)
                                              : gpumath::floatBinThreshold(k, 0.0, st.maxAbs, kAbsBins));
        return;
    }
    if (t < nW) {
        const int k = static_cast<int>(t);
        Tw[k] = k == 0 ? gpumath::floatAtLeast(st.lo)
                       : (k == B ? gpumath::floatAtMost(st.hi) : gpumath::floatBinThreshold(k, st.lo, st.hi, B));
    } else if (t < nW + nE) {
        const int k = static_cast<int>(t - nW);
        Te[k] = (k == 0 || k == B) ? 0.0 : (st.errRange > 0 ? gpumath::doubleBinThreshold(k, st.errRange, B) : dinf());
    } else if (t < nW + nE + nA) {
        const int k = static_cast<int>(t - nW - nE);
        Ta[k] = (k == 0 || k == kAbsBins)
                    ? 0.0
                    : (st.maxAbs > 0 ? gpumath::doubleBinThreshold(k, st.maxAbs, kAbsBins) : dinf());
    }
}

// ---- pass 2: histograms and central moments -----------------------------------------------------

/// Adds 1 to counter `i` of the block's shared histograms; lanes of a warp that hit the same
/// counter are merged first (the W, Ŵ and error histograms of weights are sharply peaked, and
/// same-address shared atomics serialise).
QS_DEV void histAdd(unsigned *h, int i, bool aggregate)
{
#if QS_HAVE_MATCH_ANY
    if (aggregate) {
        const unsigned peers = QS_MATCH_ANY(i);
        if ((threadIdx.x % 32) == static_cast<unsigned>(__ffs(peers) - 1))
            QS_ATOMIC_ADD(h + i, static_cast<unsigned>(__popc(peers)));
        return;
    }
#endif
    QS_ATOMIC_ADD(h + i, 1u);
}

template <int IN, int KIND>
__global__ void __launch_bounds__(kThreads, 3) kHist(const void *w, i64 n, QuantPlan P, Pass2 A)
{
    extern __shared__ double smem[];
    const int B = A.bins;
    double *sTe = smem;                                           // B + 1
    double *sTa = sTe + (B + 1);                                  // 4097
    float *sTw = reinterpret_cast<float *>(sTa + (kAbsBins + 1)); // B + 1
    unsigned *h = reinterpret_cast<unsigned *>(sTw + (B + 1));    // W[B] Ŵ[B] err[B] |err|[4096] ext[6]
    const int extOff = 3 * B + kAbsBins;
    const int nCounters = extOff + 6;
    for (int i = threadIdx.x; i < B + 1; i += blockDim.x) {
        sTe[i] = A.Te[i];
        sTw[i] = A.Tw[i];
    }
    for (int i = threadIdx.x; i < kAbsBins + 1; i += blockDim.x)
        sTa[i] = A.Ta[i];
    for (int i = threadIdx.x; i < nCounters; i += blockDim.x)
        h[i] = 0;
    __syncthreads();

    const Stats1 &S = *A.st;
    const float wScale = S.wScale, wOff = S.wOffset, eScale = S.eScale, eOff = S.eOffset, aScale = S.aScale;
    const double emin = S.emin, meanW = S.meanW, meanY = S.meanY;
    const bool fastW = (S.fastBins & 1) != 0, fastE = (S.fastBins & 2) != 0, fastA = (S.fastBins & 4) != 0;
    const float loF = sTw[0], hiF = sTw[B];
    const bool aggregate = (A.flags & kPass2Aggregate) != 0;
    const bool doAtomics = (A.flags & kPass2NoAtomics) == 0;
    const bool doMomentsY = (A.flags & kPass2NoMoments) == 0;
    const bool doMomentsW = doMomentsY && A.wMoments;
    double s2W = 0, s3W = 0, s4W = 0, s2Y = 0, s3Y = 0, s4Y = 0;
    unsigned sink = 0; // keeps the bins alive when atomics are switched off (ablation)

    // One finite (x, Ŵ) pair: its four bins.
    auto binOfW = [&](float x) {
        if (x < loF)
            return -1;
        if (x > hiF)
            return B;
        const int r = roundGuess(__fmul_rn(__fsub_rn(x, wOff), wScale), B);
        return fastW ? oneStepBin(x, r, sTw) : binW(x, sTw, B, wScale, wOff);
    };
    auto bins = [&](float x, float yy, double xd, double yd) {
        const int bw = binOfW(x);
        const int by = binOfW(yy);
        const double e = gpumath::dsub(xd, yd);
        const float ef = __fsub_rn(x, yy);
        const double u = gpumath::dsub(e, emin);
        const int re = roundGuess(__fmul_rn(__fsub_rn(ef, eOff), eScale), B);
        const int be = fastE ? oneStepBin(u, re, sTe) : correctBin(u, re, sTe, B);
        const double ae = fabs(e);
        const int ra = roundGuess(__fmul_rn(fabsf(ef), aScale), kAbsBins);
        const int ba = fastA ? oneStepBin(ae, ra, sTa) : correctBin(ae, ra, sTa, kAbsBins);
        const int iw = bw < 0 ? extOff : (bw >= B ? extOff + 1 : bw);
        const int iy = by < 0 ? extOff + 2 : (by >= B ? extOff + 3 : B + by);
        if (doAtomics) {
            histAdd(h, iw, aggregate);
            histAdd(h, iy, aggregate);
            histAdd(h, 2 * B + be, aggregate);
            histAdd(h, 3 * B + ba, false); // spread over many bins: plain atomics
        } else {
            sink += static_cast<unsigned>(iw + iy + be + ba);
        }
    };

    const i64 chunks = (n + kChunk - 1) / kChunk;
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    RawChunk p0{}, p1{};
    {
        const i64 t0 = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
        if (t0 < chunks)
            loadRaw<IN>(w, n, chunks - 1 - t0, p0);
        if (t0 + stride < chunks)
            loadRaw<IN>(w, n, chunks - 1 - (t0 + stride), p1);
    }
    // Backwards: pass 1 ended at the top of the tensor, whose lines are still in L2.
    for (i64 t = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; t < chunks; t += stride) {
        const i64 k = chunks - 1 - t;
        const RawChunk cur = p0;
        p0 = p1;
        if (t + 2 * stride < chunks)
            loadRaw<IN>(w, n, chunks - 1 - (t + 2 * stride), p1);
        float v[kChunk], y[kChunk];
        const int cnt = decodeRaw<IN>(cur, n, k, v);
        if (A.yIn) {
            loadY(A.yIn, n, k, y);
        } else if ((P.chunkUniform || P.fastGroup) && A.codes && cnt == kChunk) {
            const i64 g = chunkGroup(P, k);
            dequantChunk<KIND>(P, reinterpret_cast<const uint2 *>(A.codes)[k], A.scales[g], P.hasZero ? A.zeros[g] : 0,
                               y);
        } else if (P.chunkUniform || P.fastGroup) {
            const i64 g = chunkGroup(P, k);
            unsigned codes[kChunk];
            quantChunk<KIND>(P, v, A.scales[g], P.hasZero ? A.zeros[g] : 0, A.bad[g] != 0, codes, y);
        } else {
            const i64 i0 = k * kChunk;
            i64 r = i0 / P.cols, col = i0 - r * P.cols;
            unsigned c;
#pragma unroll
            for (int j = 0; j < kChunk; ++j) {
                if (j < cnt) {
                    const i64 g = groupOf(P, r, col);
                    y[j] = quantOne<KIND>(P, v[j], A.scales[g], P.hasZero ? A.zeros[g] : 0, A.bad[g] != 0, c);
                    if (++col == P.cols) {
                        col = 0;
                        ++r;
                    }
                } else {
                    y[j] = 0.0f;
                }
            }
        }
        const bool fast =
            cnt == kChunk && (A.hwConvert ? (chunkFinite(v) && chunkFinite(y)) : (chunkNormal(v) && chunkNormal(y)));
        if (fast) {
            auto accumulate = [&](auto toDouble) {
#pragma unroll
                for (int j = 0; j < kChunk; ++j) {
                    const double xd = toDouble(v[j]), yd = toDouble(y[j]);
                    if (doMomentsY) {
                        const double d = yd - meanY, d2 = d * d;
                        s2Y += d2;
                        s3Y = fma(d2, d, s3Y);
                        s4Y = fma(d2, d2, s4Y);
                    }
                    if (doMomentsW) {
                        const double d = xd - meanW, d2 = d * d;
                        s2W += d2;
                        s3W = fma(d2, d, s3W);
                        s4W = fma(d2, d2, s4W);
                    }
                    bins(v[j], y[j], xd, yd);
                }
            };
            if (A.hwConvert)
                accumulate([](float f) { return static_cast<double>(f); });
            else
                accumulate([](float f) { return gpumath::f32ToF64NormalOrZero(f); });
            continue;
        }
#pragma unroll
        for (int j = 0; j < kChunk; ++j) {
            if (j >= cnt)
                continue;
            const float x = v[j], yy = y[j];
            const double yd = gpumath::f32ToF64(yy);
            if (qmath::isFinite(yy) && doMomentsY) {
                const double d = yd - meanY, d2 = d * d;
                s2Y += d2;
                s3Y = fma(d2, d, s3Y);
                s4Y = fma(d2, d2, s4Y);
            }
            if (!qmath::isFinite(x))
                continue;
            const double xd = gpumath::f32ToF64(x);
            if (doMomentsW) {
                const double d = xd - meanW, d2 = d * d;
                s2W += d2;
                s3W = fma(d2, d, s3W);
                s4W = fma(d2, d2, s4W);
            }
            bins(x, yy, xd, yd);
        }
    }
    __syncthreads();
    if (sink == 0xFFFFFFFFu)
        h[0] += 1; // never true in practice; keeps the ablation's bin arithmetic
    for (int i = threadIdx.x; i < nCounters; i += blockDim.x)
        if (h[i])
            QS_ATOMIC_ADD(A.hist + i, static_cast<u64>(h[i]));
    double d[kP2D] = {s2W, s3W, s4W, s2Y, s3Y, s4Y};
    blockRow<kP2D, 0>(d, nullptr, SumOps{}, A.pd, nullptr);
}

// ---- finalize pass 2 ----------------------------------------------------------------------------

__global__ void kFinalize2(const double *pd2, int rows2, Stats2 *out)
{
    const int lane = threadIdx.x % QS_WARP_SIZE, warp = threadIdx.x / QS_WARP_SIZE;
    const int nw = blockDim.x / QS_WARP_SIZE;
    for (int f = warp; f < kP2D; f += nw) {
        const double v = warpColumn<double>(pd2, kP2D, f, rows2, 0.0, [](double a, double b) { return a + b; });
        if (lane == 0)
            out->d[f] = v;
    }
}

} // namespace

int blocksStats(int in, i64 chunks, int sms)
{
    int r = 1;
    dispatchIn(in, [&](auto I) { r = gridFor(occupancy(kStatsW<decltype(I)::value>, 0), sms, chunks); });
    return r;
}
std::size_t histSharedBytes(int bins)
{
    return sizeof(double) * (static_cast<std::size_t>(bins) + 1 + kAbsBins + 1) +
           sizeof(float) * (static_cast<std::size_t>(bins) + 1) +
           sizeof(unsigned) * (3 * static_cast<std::size_t>(bins) + kAbsBins + 6);
}
int blocksHist(int in, int kind, int bins, i64 chunks, int sms)
{
    int r = 1;
    const std::size_t smem = histSharedBytes(bins);
    dispatchInKind(in, kind, [&](auto I, auto K) {
        auto *kernel = kHist<decltype(I)::value, decltype(K)::value>;
        QS_GPU_CHECK(qsFuncSetMaxDynamicSharedMemory(kernel, static_cast<int>(smem)));
        r = gridFor(occupancy(kernel, smem), sms, chunks);
    });
    return r;
}

void statsW(int in, const void *w, i64 n, int blocks, double *pd, i64 *pi, void *stream)
{
    dispatchIn(in, [&](auto I) { kStatsW<decltype(I)::value><<<blocks, kThreads, 0, S(stream)>>>(w, n, pd, pi); });
    QS_GPU_CHECK_LAUNCH("statsW");
}

void finalize1(const double *pd1, const i64 *pi1, int rows1, const double *pdS, const i64 *piS, int rowsS,
               const HistConfig &hc, Stats1 *out, float *Tw, double *Te, double *Ta, void *stream)
{
    const i64 work = 2 * (static_cast<i64>(hc.bins) + 1) + kAbsBins + 1;
    const int threads = 256;
    const int blocks = static_cast<int>((work + threads - 1) / threads);
    kFinalize1<<<blocks, threads, 0, S(stream)>>>(pd1, pi1, rows1, pdS, piS, rowsS, hc, out, Tw, Te, Ta);
    QS_GPU_CHECK_LAUNCH("finalize1");
}

void hist(int in, const void *w, i64 n, const QuantPlan &p, const Pass2 &a, int blocks, void *stream)
{
    const std::size_t smem = histSharedBytes(a.bins);
    dispatchInKind(in, p.kind, [&](auto I, auto K) {
        kHist<decltype(I)::value, decltype(K)::value><<<blocks, kThreads, smem, S(stream)>>>(w, n, p, a);
    });
    QS_GPU_CHECK_LAUNCH("hist");
}

void finalize2(const double *pd2, int rows2, Stats2 *out, void *stream)
{
    kFinalize2<<<1, kP2D * QS_WARP_SIZE, 0, S(stream)>>>(pd2, rows2, out);
    QS_GPU_CHECK_LAUNCH("finalize2");
}

} // namespace quantscope::gpu::launch
