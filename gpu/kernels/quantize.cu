// SPDX-License-Identifier: MIT
// Quantization on the generic path, for every spec the engine runs (INT and FP8, any input type and
// granularity): the ranges of groups that are not row-local, the scales and zero points, and
// pass 1 — codes, Ŵ and the sums the metrics start from (metric_passes.cu takes over from there).
// The value-table paths of 16-bit inputs (int_quant.cu, fp8_quant.cu) replace it in the headline
// cases.
//
// The contract shared by all kernel sources: one source for nvcc (CUDA) and hipcc (HIP) through
// qs_gpu_compat.h. Every rounding decision goes through the QS_HD functions of core/quant
// (qmath.h, uniform.h) and device_math.h, the same code the CPU reference runs; this file is
// compiled without FMA contraction (-fmad=false / -ffp-contract=off). Sums use FP64 (FMA where only
// a sum is formed). Reductions are deterministic: per-thread, then fixed shuffle trees, then block
// rows reduced in row order.
#define QS_HD __host__ __device__

#include "kernel_common.cuh"

namespace quantscope::gpu::launch {

namespace {

// ---- group ranges (groups that are not row-local) -----------------------------------------------

QS_DEV void flushRange(i64 g, float mn, float mx, unsigned bad, unsigned *gmin, unsigned *gmax, unsigned *gbad)
{
    if (mn <= mx) {
        QS_ATOMIC_MIN(gmin + g, gpumath::floatKey(mn));
        QS_ATOMIC_MAX(gmax + g, gpumath::floatKey(mx));
    }
    if (bad)
        QS_ATOMIC_OR(gbad + g, 1u);
}

template <int IN>
__global__ void __launch_bounds__(kThreads)
    kRangeGeneric(const void *w, i64 n, QuantPlan P, unsigned *gmin, unsigned *gmax, unsigned *gbad)
{
    const i64 chunks = (n + kChunk - 1) / kChunk;
    const int lane = threadIdx.x % QS_WARP_SIZE;
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    for (i64 base = static_cast<i64>(blockIdx.x) * blockDim.x + (threadIdx.x - lane); base < chunks; base += stride) {
        const i64 k = base + lane;
        i64 gid = -1;
        float mn = finf(), mx = -finf();
        unsigned bad = 0;
        if (k < chunks) {
            float v[kChunk];
            const int c = loadChunk<IN>(w, n, k, v);
            const i64 i0 = k * kChunk;
            i64 r = i0 / P.cols, col = i0 - r * P.cols;
            for (int j = 0; j < c; ++j) {
                const i64 g = groupOf(P, r, col);
                if (g != gid) {
                    if (gid >= 0)
                        flushRange(gid, mn, mx, bad, gmin, gmax, gbad);
                    gid = g;
                    mn = finf();
                    mx = -finf();
                    bad = 0;
                }
                const float x = v[j];
                if (qmath::isFinite(x)) {
                    mn = fminf(mn, x);
                    mx = fmaxf(mx, x);
                } else {
                    bad = 1;
                }
                if (++col == P.cols) {
                    col = 0;
                    ++r;
                }
            }
        }
        // Lanes holding the same group merge (min/max/or are idempotent, so merging any two lanes
        // of one group is right); the first lane of each run of equal groups writes.
        for (int o = 1; o < QS_WARP_SIZE; o <<= 1) {
            const i64 og = QS_SHFL_DOWN(gid, o);
            const float omn = QS_SHFL_DOWN(mn, o), omx = QS_SHFL_DOWN(mx, o);
            const unsigned ob = QS_SHFL_DOWN(bad, o);
            if (lane + o < QS_WARP_SIZE && og == gid) {
                mn = fminf(mn, omn);
                mx = fmaxf(mx, omx);
                bad |= ob;
            }
        }
        const i64 prev = QS_SHFL_UP(gid, 1);
        if (gid >= 0 && (lane == 0 || prev != gid))
            flushRange(gid, mn, mx, bad, gmin, gmax, gbad);
    }
}

/// Channel axis 1: one thread per column over a strip of rows.
template <int IN>
__global__ void __launch_bounds__(kThreads)
    kRangeCols(const void *w, QuantPlan P, i64 rowsPerStrip, unsigned *gmin, unsigned *gmax, unsigned *gbad)
{
    const i64 c = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (c >= P.cols)
        return;
    const i64 r0 = static_cast<i64>(blockIdx.y) * rowsPerStrip;
    const i64 r1 = r0 + rowsPerStrip < P.rows ? r0 + rowsPerStrip : P.rows;
    float mn = finf(), mx = -finf();
    unsigned bad = 0;
    for (i64 r = r0; r < r1; ++r) {
        const float x = decode1<IN>(w, r * P.cols + c);
        if (qmath::isFinite(x)) {
            mn = fminf(mn, x);
            mx = fmaxf(mx, x);
        } else {
            bad = 1;
        }
    }
    flushRange(c, mn, mx, bad, gmin, gmax, gbad);
}

__global__ void __launch_bounds__(kThreads)
    kParams(QuantPlan P, const unsigned *gmin, const unsigned *gmax, const unsigned *gbad, const double *statsD,
            const i64 *statsI, int statsRows, float *scales, signed char *zeros, unsigned char *badOut,
            u64 *nonFiniteGroups)
{
    if (statsRows > 0) {
        // One group (per tensor): reduce the W statistics rows.
        __shared__ float smn[kThreads], smx[kThreads];
        __shared__ i64 sbad[kThreads];
        float mn = finf(), mx = -finf();
        i64 b = 0;
        for (int r = threadIdx.x; r < statsRows; r += blockDim.x) {
            mn = fminf(mn, static_cast<float>(statsD[static_cast<i64>(r) * kP1D + dMinW]));
            mx = fmaxf(mx, static_cast<float>(statsD[static_cast<i64>(r) * kP1D + dMaxW]));
            b += statsI[static_cast<i64>(r) * kP1I + iNan] + statsI[static_cast<i64>(r) * kP1I + iInf];
        }
        smn[threadIdx.x] = mn;
        smx[threadIdx.x] = mx;
        sbad[threadIdx.x] = b;
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int t = 1; t < blockDim.x; ++t) {
                mn = fminf(mn, smn[t]);
                mx = fmaxf(mx, smx[t]);
                b += sbad[t];
            }
            const bool bad = b > 0 && P.kind != kKindProg;
            float s;
            int z;
            groupParams(P, mn <= mx ? mn : 0.0f, mn <= mx ? mx : 0.0f, bad, s, z);
            scales[0] = s;
            zeros[0] = static_cast<signed char>(z);
            badOut[0] = bad;
            if (bad)
                QS_ATOMIC_ADD(nonFiniteGroups, 1ull);
        }
        return;
    }
    const i64 g = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (g >= P.groups)
        return;
    const unsigned kmn = gmin[g], kmx = gmax[g];
    const float mn = kmn == 0xFFFFFFFFu ? 0.0f : gpumath::keyFloat(kmn);
    const float mx = kmx == 0u ? 0.0f : gpumath::keyFloat(kmx);
    const bool bad = gbad[g] != 0 && P.kind != kKindProg;
    float s;
    int z;
    groupParams(P, mn, mx, bad, s, z);
    scales[g] = s;
    zeros[g] = static_cast<signed char>(z);
    badOut[g] = bad;
    if (bad)
        QS_ATOMIC_ADD(nonFiniteGroups, 1ull);
}

__global__ void kParamsDirect(QuantPlan P, float scale, int zero, int bad, float *scales, signed char *zeros,
                              unsigned char *badOut, u64 *nonFiniteGroups)
{
    scales[0] = scale;
    zeros[0] = static_cast<signed char>(zero);
    badOut[0] = static_cast<unsigned char>(bad);
    if (bad)
        *nonFiniteGroups = 1;
}

/// NVFP4's global scale from the W statistics rows (or from a given amax): one thread.
__global__ void kNvGlobal(const double *statsD, int rows, float givenAmax, int useGiven, float *out)
{
    float amax = givenAmax;
    if (!useGiven) {
        float mn = finf(), mx = -finf();
        for (int r = 0; r < rows; ++r) {
            mn = fminf(mn, static_cast<float>(statsD[static_cast<i64>(r) * kP1D + dMinW]));
            mx = fmaxf(mx, static_cast<float>(statsD[static_cast<i64>(r) * kP1D + dMaxW]));
        }
        amax = mn <= mx ? fmaxf(qmath::absf(mn), qmath::absf(mx)) : 0.0f;
    }
    out[0] = fp4::nvGlobalScale(amax);
}

// ---- pass 1: codes, Ŵ, sums ---------------------------------------------------------------------

template <int IN, int KIND>
__global__ void __launch_bounds__(kThreads) kQuant(const void *w, i64 n, QuantPlan P, Pass1 A)
{
    const i64 chunks = (n + kChunk - 1) / kChunk;
    const int lane = threadIdx.x % QS_WARP_SIZE;
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    const int team = 1 << P.teamLog2;

    float mnW = finf(), mxW = -finf(), mnY = finf(), mxY = -finf();
    double sumW = 0, sumY = 0, se = 0, sx = 0, sy = 0, sxy = 0, emin = dinf(), emax = -dinf();
    i64 nF = 0, nNan = 0, nInf = 0, nFY = 0, nNanY = 0, nInfY = 0;

    // Three chunks in flight per thread (registers only hold their raw bits).
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
    for (i64 base = static_cast<i64>(blockIdx.x) * blockDim.x + (threadIdx.x - lane); base < chunks; base += stride) {
        const i64 k = base + lane;
        const bool act = k < chunks;
        const RawChunk cur = p0;
        p0 = p1;
        p1 = p2;
        if (k + 3 * stride < chunks)
            loadRaw<IN>(w, n, k + 3 * stride, p2);
        float v[kChunk];
        const int cnt = decodeRaw<IN>(cur, n, k, v);
        const i64 i0 = k * kChunk;
        // First non-finite W element (reported even when only measuring); one test per chunk.
        bool anyBad = false;
        if (!chunkFinite(v)) {
            for (int j = 0; j < cnt; ++j)
                if (!qmath::isFinite(v[j])) {
                    QS_ATOMIC_MAX(A.firstBadNeg, ~static_cast<u64>(i0 + j));
                    anyBad = true;
                    break;
                }
        }

        float y[kChunk];
        if (A.yIn) {
            if (act)
                loadY(A.yIn, n, k, y);
        } else {
            unsigned codes[kChunk];
            if (KIND != kKindFp8 && P.fastGroup) {
                // A team of g/8 lanes holds one group: reduce its range in registers.
                // ProgressiveSpec's stage-2 groups hold stage 1's finite domain values: never bad
                // (groupParams maps the range; W's NaN/Inf make the whole tensor's values 0).
                float mn = finf(), mx = -finf();
                unsigned bd = anyBad && KIND != kKindProg ? 1u : 0u;
#pragma unroll
                for (int j = 0; j < kChunk; ++j)
                    if (j < cnt && qmath::isFinite(v[j])) {
                        mn = fminf(mn, v[j]);
                        mx = fmaxf(mx, v[j]);
                    }
                for (int o = 1; o < team; o <<= 1) {
                    mn = fminf(mn, QS_SHFL_XOR(mn, o));
                    mx = fmaxf(mx, QS_SHFL_XOR(mx, o));
                    bd |= QS_SHFL_XOR(bd, o);
                }
                float s;
                int z;
                groupParams(P, mn <= mx ? mn : 0.0f, mn <= mx ? mx : 0.0f, bd != 0, s, z);
                const i64 g = k >> P.teamLog2;
                if (act && (lane & (team - 1)) == 0) {
                    A.scales[g] = s;
                    A.zeros[g] = static_cast<signed char>(z);
                    A.bad[g] = static_cast<unsigned char>(bd);
                    if (bd)
                        QS_ATOMIC_ADD(A.nonFiniteGroups, 1ull);
                }
                quantChunk<KIND>(P, v, s, z, bd != 0, codes, y);
            } else if (P.chunkUniform) {
                float s = 1.0f;
                int z = 0;
                bool bd = false;
                if (act) {
                    const i64 g = chunkGroup(P, k);
                    s = A.scales[g];
                    z = P.hasZero ? A.zeros[g] : 0;
                    bd = A.bad[g] != 0;
                }
                quantChunk<KIND>(P, v, s, z, bd, codes, y);
            } else {
                i64 r = 0, col = 0;
                if (act) {
                    r = i0 / P.cols;
                    col = i0 - r * P.cols;
                }
#pragma unroll
                for (int j = 0; j < kChunk; ++j) {
                    if (j < cnt) {
                        const i64 g = groupOf(P, r, col);
                        y[j] =
                            quantOne<KIND>(P, v[j], A.scales[g], P.hasZero ? A.zeros[g] : 0, A.bad[g] != 0, codes[j]);
                        if (++col == P.cols) {
                            col = 0;
                            ++r;
                        }
                    } else {
                        y[j] = 0.0f;
                        codes[j] = 0;
                    }
                }
            }
            if (act && A.codes) {
                if (cnt == kChunk) {
                    uint2 packed;
                    packed.x = codes[0] | (codes[1] << 8) | (codes[2] << 16) | (codes[3] << 24);
                    packed.y = codes[4] | (codes[5] << 8) | (codes[6] << 16) | (codes[7] << 24);
                    reinterpret_cast<uint2 *>(A.codes)[k] = packed;
                } else {
#pragma unroll
                    for (int j = 0; j < kChunk; ++j)
                        if (j < cnt)
                            A.codes[i0 + j] = static_cast<unsigned char>(codes[j]);
                }
            }
            if (act && A.wHat) {
                if (cnt == kChunk) {
                    float4 *o = reinterpret_cast<float4 *>(A.wHat) + 2 * k;
                    o[0] = make_float4(y[0], y[1], y[2], y[3]);
                    o[1] = make_float4(y[4], y[5], y[6], y[7]);
                } else {
#pragma unroll
                    for (int j = 0; j < kChunk; ++j)
                        if (j < cnt)
                            A.wHat[i0 + j] = y[j];
                }
            }
        }
        const bool fastMetrics = A.metrics && cnt == kChunk &&
                                 (A.hwConvert ? (!anyBad && chunkFinite(y)) : (chunkNormal(v) && chunkNormal(y)));
        if (fastMetrics) {
            // Common case, branch-free: every x and Ŵ finite (and, for the bit-trick conversion,
            // not subnormal).
            nF += kChunk;
            nFY += kChunk;
            auto accumulate = [&](auto toDouble) {
#pragma unroll
                for (int j = 0; j < kChunk; ++j) {
                    const float x = v[j], yy = y[j];
                    const double xd = toDouble(x), yd = toDouble(yy);
                    sumY += yd;
                    mnY = fminf(mnY, yy);
                    mxY = fmaxf(mxY, yy);
                    if (A.accW) {
                        sumW += xd;
                        mnW = fminf(mnW, x);
                        mxW = fmaxf(mxW, x);
                    }
                    const double e = xd - yd;
                    se = fma(e, e, se);
                    sx = fma(xd, xd, sx);
                    sy = fma(yd, yd, sy);
                    sxy = fma(xd, yd, sxy);
                    emin = fmin(emin, e);
                    emax = fmax(emax, e);
                }
            };
            if (A.hwConvert)
                accumulate([](float f) { return static_cast<double>(f); });
            else
                accumulate([](float f) { return gpumath::f32ToF64NormalOrZero(f); });
        } else if (A.metrics) {
#pragma unroll
            for (int j = 0; j < kChunk; ++j) {
                if (j >= cnt)
                    continue;
                const float x = v[j], yy = y[j];
                const double yd = gpumath::f32ToF64(yy);
                if (qmath::isFinite(yy)) {
                    ++nFY;
                    sumY += yd;
                    mnY = fminf(mnY, yy);
                    mxY = fmaxf(mxY, yy);
                } else if (yy != yy) {
                    ++nNanY;
                } else {
                    ++nInfY;
                }
                if (qmath::isFinite(x)) {
                    const double xd = gpumath::f32ToF64(x);
                    ++nF;
                    if (A.accW) {
                        sumW += xd;
                        mnW = fminf(mnW, x);
                        mxW = fmaxf(mxW, x);
                    }
                    const double e = xd - yd;
                    se = fma(e, e, se);
                    sx = fma(xd, xd, sx);
                    sy = fma(yd, yd, sy);
                    sxy = fma(xd, yd, sxy);
                    emin = fmin(emin, e);
                    emax = fmax(emax, e);
                } else if (A.accW) {
                    if (x != x)
                        ++nNan;
                    else
                        ++nInf;
                }
            }
        }
    }
    if (!A.metrics)
        return;
    double d[kP1D];
    d[dSumW] = sumW;
    d[dMinW] = mnW;
    d[dMaxW] = mxW;
    d[dSumY] = sumY;
    d[dMinY] = mnY;
    d[dMaxY] = mxY;
    d[dSe] = se;
    d[dSx] = sx;
    d[dSy] = sy;
    d[dSxy] = sxy;
    d[dEmin] = emin;
    d[dEmax] = emax;
    i64 iv[kP1I];
    iv[iNF] = nF;
    iv[iNan] = nNan;
    iv[iInf] = nInf;
    iv[iNFY] = nFY;
    iv[iNanY] = nNanY;
    iv[iInfY] = nInfY;
    blockRow<kP1D, kP1I>(d, iv, P1Ops{}, A.pd, A.pi);
}

} // namespace

int blocksQuant(int in, int kind, i64 chunks, int sms)
{
    int r = 1;
    dispatchInKind(in, kind, [&](auto I, auto K) {
        r = gridFor(occupancy(kQuant<decltype(I)::value, decltype(K)::value>, 0), sms, chunks);
    });
    return r;
}

void rangeGroups(int in, const void *w, i64 n, const QuantPlan &p, unsigned *gmin, unsigned *gmax, unsigned *gbad,
                 int sms, void *stream)
{
    const i64 chunks = (n + kChunk - 1) / kChunk;
    if (p.gran == kGranChannel && p.axis == 1) {
        const i64 strip = 64;
        const dim3 grid(static_cast<unsigned>((p.cols + kThreads - 1) / kThreads),
                        static_cast<unsigned>((p.rows + strip - 1) / strip));
        dispatchIn(in, [&](auto I) {
            kRangeCols<decltype(I)::value><<<grid, kThreads, 0, S(stream)>>>(w, p, strip, gmin, gmax, gbad);
        });
    } else {
        const int blocks = gridFor(8, sms, chunks);
        dispatchIn(in, [&](auto I) {
            kRangeGeneric<decltype(I)::value><<<blocks, kThreads, 0, S(stream)>>>(w, n, p, gmin, gmax, gbad);
        });
    }
    QS_GPU_CHECK_LAUNCH("rangeGroups");
}

void params(const QuantPlan &p, const unsigned *gmin, const unsigned *gmax, const unsigned *gbad, const double *statsD,
            const i64 *statsI, int statsRows, float *scales, signed char *zeros, unsigned char *bad,
            u64 *nonFiniteGroups, void *stream)
{
    const int blocks = statsRows > 0 ? 1 : static_cast<int>((p.groups + kThreads - 1) / kThreads);
    kParams<<<blocks, kThreads, 0, S(stream)>>>(p, gmin, gmax, gbad, statsD, statsI, statsRows, scales, zeros, bad,
                                                nonFiniteGroups);
    QS_GPU_CHECK_LAUNCH("params");
}

void paramsDirect(const QuantPlan &p, float scale, int zero, bool bad, float *scales, signed char *zeros,
                  unsigned char *badOut, u64 *nonFiniteGroups, void *stream)
{
    kParamsDirect<<<1, 1, 0, S(stream)>>>(p, scale, zero, bad ? 1 : 0, scales, zeros, badOut, nonFiniteGroups);
    QS_GPU_CHECK_LAUNCH("paramsDirect");
}

void nvGlobal(const double *statsD, int rows, float givenAmax, bool useGiven, float *out, void *stream)
{
    kNvGlobal<<<1, 1, 0, S(stream)>>>(statsD, rows, givenAmax, useGiven ? 1 : 0, out);
    QS_GPU_CHECK_LAUNCH("nvGlobal");
}

void quant(int in, const void *w, i64 n, const QuantPlan &p, const Pass1 &a, int blocks, void *stream)
{
    dispatchInKind(in, p.kind, [&](auto I, auto K) {
        kQuant<decltype(I)::value, decltype(K)::value><<<blocks, kThreads, 0, S(stream)>>>(w, n, p, a);
    });
    QS_GPU_CHECK_LAUNCH("quant");
}

} // namespace quantscope::gpu::launch
