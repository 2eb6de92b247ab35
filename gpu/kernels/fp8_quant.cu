// SPDX-License-Identifier: MIT
// FP8 quantization on the device: the value-table path of FP8 per tensor for 16-bit inputs
// (BF16, F16), and the FP8 cast test hook. Every code, Ŵ and error is a function of the value
// alone, so one pass counts the values (value_counts.cuh), small kernels evaluate the quantizer
// and the CPU's bin formula on the 65536 values, and a second pass writes the codes through a
// 64 KiB lookup table. Other FP8 specs run the generic kernels (quantize.cu, metric_passes.cu).
//
// Same contract as quantize.cu: the quantizer and bin decisions are the QS_HD functions the CPU
// reference runs; no FMA contraction (-fmad=false); sums in FP64, reduced in a fixed order.
#define QS_HD __host__ __device__

#include "value_counts.cuh"

namespace quantscope::gpu::launch {

namespace {

// ---- FP8 per tensor -----------------------------------------------------------------------------

/// The range pass of FP8 per tensor: each block's finite min/max of W as order keys (~min key, max
/// key; 0 for none — no finite value has key 0 or ~key 0) and its non-finite flag, in parts[3·b..]
/// (no sums: those come from the values).
template <int IN> __global__ void __launch_bounds__(kThreads) kRangeW(const void *w, i64 n, unsigned *parts)
{
    __shared__ unsigned smn[kThreads / 32], smx[kThreads / 32], smf[kThreads / 32];
    const uint4 *q = static_cast<const uint4 *>(w);
    const i64 chunks = n / kChunk;
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    float mn = finf(), mx = -finf();
    bool finite = true;
    auto take = [&](const uint4 &u) {
        float v[kChunk];
        decode8<IN>(u, v);
        finite = finite & chunkFinite(v);
#pragma unroll
        for (int j = 0; j < kChunk; ++j) {
            mn = fminf(mn, v[j]);
            mx = fmaxf(mx, v[j]);
        }
    };
    i64 k = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; k + 7 * stride < chunks; k += 8 * stride) { // eight 16-byte loads in flight
        uint4 u[8];
#pragma unroll
        for (int i = 0; i < 8; ++i)
            u[i] = q[k + i * stride];
#pragma unroll
        for (int i = 0; i < 8; ++i)
            take(u[i]);
    }
    for (; k < chunks; k += stride)
        take(q[k]);
    for (i64 i = chunks * kChunk + static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float x = decodeHalf<IN>(static_cast<const unsigned short *>(w)[i]);
        finite = finite & qmath::isFinite(x);
        mn = fminf(mn, x);
        mx = fmaxf(mx, x);
    }
    // A non-finite value makes min/max include ±Inf: the generic path reruns.
    finite = QS_ALL(finite);
    unsigned kmn = mn <= mx ? gpumath::floatKey(mn) : 0xFFFFFFFFu, kmx = mn <= mx ? gpumath::floatKey(mx) : 0u;
    for (int o = QS_WARP_SIZE / 2; o > 0; o >>= 1) {
        kmn = min(kmn, static_cast<unsigned>(QS_SHFL_XOR(kmn, o)));
        kmx = max(kmx, static_cast<unsigned>(QS_SHFL_XOR(kmx, o)));
    }
    const int lane = threadIdx.x % QS_WARP_SIZE, warp = threadIdx.x / QS_WARP_SIZE;
    if (lane == 0) {
        smn[warp] = kmn;
        smx[warp] = kmx;
        smf[warp] = finite ? 0u : kFastNonFinite;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned f = smf[0];
        for (int i = 1; i < static_cast<int>(blockDim.x) / QS_WARP_SIZE; ++i) {
            kmn = min(kmn, smn[i]);
            kmx = max(kmx, smx[i]);
            f |= smf[i];
        }
        // This block's part (no atomics, so nothing needs zeroing first): ~min key, max key, flags.
        parts[3 * blockIdx.x] = kmn <= kmx ? ~kmn : 0u;
        parts[3 * blockIdx.x + 1] = kmn <= kmx ? kmx : 0u;
        parts[3 * blockIdx.x + 2] = f;
    }
}

/// The tensor's scale: from the range keys (keys[0] = ~min key, keys[1] = max key), or given
/// (W's stats at open).
QS_DEV float fp8TensorScale(const gpumath::Fp8Params &fp, const unsigned keys[2], bool given, float scaleGiven)
{
    if (given)
        return scaleGiven;
    const bool any = keys[1] != 0;
    return gpumath::fp8Scale(fp, any ? gpumath::keyFloat(~keys[0]) : 0.0f, any ? gpumath::keyFloat(keys[1]) : 0.0f);
}

/// The tensor's scale and the code of every 16-bit value (the lookup table of the FP8 pass). Each
/// block reduces the range pass's per-block parts itself (a few hundred words, from L2), and the
/// grid zeroes what the later kernels count into: the run needs no memset.
template <int IN>
__global__ void __launch_bounds__(kTableThreads)
    kFp8Lut(const unsigned *parts, int rangeBlocks, bool given, float scaleGiven, gpumath::Fp8Params fp,
            unsigned char *lut, float *scales, signed char *zeros, unsigned char *bad, Fp8Zero zr)
{
    __shared__ unsigned sk[3][kTableThreads / 32];
    unsigned k0 = 0, k1 = 0, f = 0;
    for (int i = threadIdx.x; i < rangeBlocks; i += blockDim.x) {
        k0 = max(k0, parts[3 * i]);
        k1 = max(k1, parts[3 * i + 1]);
        f |= parts[3 * i + 2];
    }
    for (int o = QS_WARP_SIZE / 2; o > 0; o >>= 1) {
        k0 = max(k0, static_cast<unsigned>(QS_SHFL_XOR(k0, o)));
        k1 = max(k1, static_cast<unsigned>(QS_SHFL_XOR(k1, o)));
        f |= static_cast<unsigned>(QS_SHFL_XOR(f, o));
    }
    const int lane = threadIdx.x % QS_WARP_SIZE, warp = threadIdx.x / QS_WARP_SIZE;
    if (lane == 0) {
        sk[0][warp] = k0;
        sk[1][warp] = k1;
        sk[2][warp] = f;
    }
    __syncthreads();
    unsigned keys[2] = {0, 0};
    f = 0;
    for (int i = 0; i < kTableThreads / QS_WARP_SIZE; ++i) {
        keys[0] = max(keys[0], sk[0][i]);
        keys[1] = max(keys[1], sk[1][i]);
        f |= sk[2][i];
    }
    const float s = fp8TensorScale(fp, keys, given, scaleGiven);
    const unsigned key = blockIdx.x * blockDim.x + threadIdx.x;
    zr.gvh[key] = 0; // one value count per thread: the grid is 65536 threads
    for (int i = static_cast<int>(key); i < zr.ctrLen; i += kKeys)
        zr.ctr[i] = 0;
    if (key == 0) {
        scales[0] = s;
        zeros[0] = 0;
        bad[0] = 0;
        zr.bar[0] = 0;
        zr.bar[1] = 0;
        *zr.flags = f;
    }
    lut[key] = static_cast<unsigned char>(gpumath::fp8Code(fp, decodeHalf<IN>(key), s));
}

/// FP8 pass: codes through the lookup table (and Ŵ), and W's value counts, in one read of W.
template <int IN>
__global__ void __launch_bounds__(kPassThreads)
    kFp8Pass(const void *w, i64 n, const unsigned char *lut, gpumath::Fp8Params fp, const float *scales,
             unsigned char *codes, float *wHat, unsigned *gvh)
{
    extern __shared__ unsigned fsm[];
    unsigned *vc = fsm;                                                       // value counts
    unsigned char *sl = reinterpret_cast<unsigned char *>(fsm + vcWords<IN>); // 64 KiB table
    __shared__ float sy[256];
    vcClear<IN>(vc);
    {
        const uint4 *src = reinterpret_cast<const uint4 *>(lut);
        uint4 *dst = reinterpret_cast<uint4 *>(sl);
        for (int i = threadIdx.x; i < kKeys / 16; i += blockDim.x)
            dst[i] = src[i];
        if (wHat && threadIdx.x < 256)
            sy[threadIdx.x] = gpumath::fp8Dequant(fp, threadIdx.x, scales[0]);
    }
    __syncthreads();
    const uint4 *q = static_cast<const uint4 *>(w);
    const i64 chunks = n / kChunk;
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    auto one = [&](i64 k, const uint4 &u) {
        const unsigned hw[4] = {u.x, u.y, u.z, u.w};
        unsigned c[8];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            c[2 * j] = sl[hw[j] & 0xFFFFu];
            c[2 * j + 1] = sl[hw[j] >> 16];
        }
        uint2 packed;
        packed.x = c[0] | (c[1] << 8) | (c[2] << 16) | (c[3] << 24);
        packed.y = c[4] | (c[5] << 8) | (c[6] << 16) | (c[7] << 24);
        reinterpret_cast<uint2 *>(codes)[k] = packed;
        if (wHat) {
            float4 *o = reinterpret_cast<float4 *>(wHat) + 2 * k;
            o[0] = make_float4(sy[c[0]], sy[c[1]], sy[c[2]], sy[c[3]]);
            o[1] = make_float4(sy[c[4]], sy[c[5]], sy[c[6]], sy[c[7]]);
        }
        vcAdd8<IN, true>(vc, gvh, u);
    };
    i64 k = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; k + stride < chunks; k += 2 * stride) { // two 16-byte loads in flight
        const uint4 a = q[k], b = q[k + stride];
        one(k, a);
        one(k + stride, b);
    }
    if (k < chunks)
        one(k, q[k]);
    const unsigned short *h = static_cast<const unsigned short *>(w);
    for (i64 i = chunks * kChunk + static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const unsigned c = sl[h[i]];
        codes[i] = static_cast<unsigned char>(c);
        if (wHat)
            wHat[i] = sy[c];
        vcAdd<IN>(vc, gvh, h[i]);
    }
    __syncthreads();
    vcFlush<IN>(vc, gvh);
}

/// Index of the counter of bin b (−1 below, B above) in the W/Ŵ/error layout of Pass2::hist.
QS_DEV int counterOf(int b, int B, int base, int extBelow)
{
    return b < 0 ? extBelow : (b >= B ? extBelow + 1 : base + b);
}

/// Everything after the FP8 pass, in one cooperative launch (a grid barrier between the phases):
/// per value the pass 1 sums → Stats1 → the four histograms (the CPU's bin formula per value,
/// counted in shared memory first) and the rows of both central moments.
template <int IN>
__global__ void __launch_bounds__(kCoopThreads)
    kFp8Tables(const unsigned *gvh, const float *scales, gpumath::Fp8Params fp, HistConfig hc, unsigned *flags,
               unsigned *bar, double *pd, i64 *pi, Stats1 *stOut, u64 *hist, double *pd2)
{
    extern __shared__ unsigned bh[]; // W[B] Ŵ[B] err[B] |err|[4096] ext[6]
    __shared__ double rd[kP1D];
    __shared__ i64 ri[kP1I];
    __shared__ Stats1 st;
    const int B = hc.bins;
    const int nh = 3 * B + kAbsBins + 6;
    for (int i = threadIdx.x; i < nh; i += blockDim.x)
        bh[i] = 0;
    const unsigned key = blockIdx.x * blockDim.x + threadIdx.x;
    const int warp = threadIdx.x / QS_WARP_SIZE;
    const int nw = blockDim.x / QS_WARP_SIZE;
    const unsigned c = gvh[key];
    const float x = decodeHalf<IN>(key);
    const bool counted = c != 0 && qmath::isFinite(x);
    if (c != 0 && !qmath::isFinite(x))
        QS_ATOMIC_OR(flags, kFastNonFinite);
    // Phase 1: the sums.
    const float sc = scales[0];
    const float y = gpumath::fp8Dequant(fp, gpumath::fp8Code(fp, x, sc), sc);
    const double cd = static_cast<double>(c), xd = x, yd = y;
    const double e = gpumath::dsub(xd, yd);
    {
        double d[kP1D];
#pragma unroll
        for (int f = 0; f < kP1D; ++f)
            d[f] = p1Op(f) == 1 ? dinf() : (p1Op(f) == 2 ? -dinf() : 0.0);
        i64 iv[kP1I] = {};
        if (counted) {
            if (!qmath::isFinite(y))
                QS_ATOMIC_OR(flags, kFastNonFinite);
            d[dSumW] = cd * xd;
            d[dMinW] = d[dMaxW] = xd;
            d[dSumY] = cd * yd;
            d[dMinY] = d[dMaxY] = yd;
            d[dSe] = cd * (e * e);
            d[dSx] = cd * (xd * xd);
            d[dSy] = cd * (yd * yd);
            d[dSxy] = cd * (xd * yd);
            d[dEmin] = d[dEmax] = e;
            iv[iNF] = iv[iNFY] = c;
        }
        blockRow<kP1D, kP1I>(d, iv, P1Ops{}, pd, pi);
    }
    gridBarrier(bar);
    // Phase 2: every block reduces the rows (fixed order) and derives Stats1.
    for (int f = warp; f < int(kP1D) + int(kP1I); f += nw)
        reduceP1Field(f, pd, pi, kCoopBlocks, rd, ri);
    __syncthreads();
    if (threadIdx.x == 0) {
        stats1From(rd, ri, hc, st);
        if (blockIdx.x == 0)
            *stOut = st;
    }
    __syncthreads();
    // Phase 3: the histograms (block counts first) and central moments.
    {
        double d[kP2D] = {};
        if (counted && !(st.flags & kFlagNonFiniteError)) {
            const int extOff = 3 * B + kAbsBins;
            QS_ATOMIC_ADD(bh + counterOf(gpumath::histBin(xd, st.lo, st.hi, B), B, 0, extOff), c);
            QS_ATOMIC_ADD(bh + counterOf(gpumath::histBin(yd, st.lo, st.hi, B), B, B, extOff + 2), c);
            QS_ATOMIC_ADD(bh + counterOf(gpumath::histBin(e, st.emin, st.emax, B), B, 2 * B, extOff + 4), c);
            const int ba = gpumath::histBin(fabs(e), 0.0, st.maxAbs, kAbsBins);
            QS_ATOMIC_ADD(bh + 3 * B + (ba < 0 ? 0 : (ba >= kAbsBins ? kAbsBins - 1 : ba)), c);
            const double dy = yd - st.meanY, dy2 = dy * dy;
            d[dS2Y] = cd * dy2;
            d[dS3Y] = cd * (dy2 * dy);
            d[dS4Y] = cd * (dy2 * dy2);
            if (hc.wMoments) {
                const double dx = xd - st.meanW, dx2 = dx * dx;
                d[dS2W] = cd * dx2;
                d[dS3W] = cd * (dx2 * dx);
                d[dS4W] = cd * (dx2 * dx2);
            }
        }
        blockRow<kP2D, 0>(d, nullptr, SumOps{}, pd2, nullptr); // its barrier also orders bh
        flushCounts(bh, nh, hist);
    }
    // Stats2: the host adds the rows (in order) when it collects the run.
}

// ---- ProgressiveSpec: stage 1 FP8 per tensor, stage 2 INT per channel (rows) -------------------
// Stage 1's code is a function of the 16-bit value (the FP8 path's table, kFp8Lut, with the scale
// from W's range); stage 1 is monotone, so a row's stage-1 extremes are stage 1's values of the
// row's extremes of W, and stage 2's per-row scale and zero point follow from one row range pass
// (which also gives the tensor's range: no separate global pass, no host round trip). Ŵ of an
// element is a function of (row, stage-2 code): pass 1 counts the 16 levels of each row, and Ŵ's
// statistics come from those counts (pass 1 adds Ŵ's sums; kLevelsY with ProgLevels the rest).

/// Each row's min and max of W (rowMm[2r], rowMm[2r + 1]; a block per row, grid-stride) and, per
/// block, the range part of kRangeW's format (~min key, max key, non-finite flag) for kFp8Lut.
template <int IN>
__global__ void __launch_bounds__(kThreads) kProgRange(const void *w, i64 rows, i64 cols, float *rowMm, unsigned *parts)
{
    __shared__ float smn[kThreads / 32], smx[kThreads / 32];
    __shared__ unsigned sf[kThreads / 32];
    const uint4 *q = static_cast<const uint4 *>(w);
    const i64 cpr = cols / kChunk; // chunks per row (cols % 16 == 0)
    const int lane = threadIdx.x % QS_WARP_SIZE, warp = threadIdx.x / QS_WARP_SIZE;
    float bmn = finf(), bmx = -finf();
    unsigned bflag = 0;
    for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
        float mn = finf(), mx = -finf();
        bool finite = true;
        for (i64 c = threadIdx.x; c < cpr; c += blockDim.x) {
            float v[kChunk];
            decode8<IN>(q[r * cpr + c], v);
            finite = finite & chunkFinite(v);
#pragma unroll
            for (int j = 0; j < kChunk; ++j) {
                mn = fminf(mn, v[j]);
                mx = fmaxf(mx, v[j]);
            }
        }
        for (int o = QS_WARP_SIZE / 2; o > 0; o >>= 1) {
            mn = fminf(mn, QS_SHFL_XOR(mn, o));
            mx = fmaxf(mx, QS_SHFL_XOR(mx, o));
        }
        finite = QS_ALL(finite);
        if (lane == 0) {
            smn[warp] = mn;
            smx[warp] = mx;
            sf[warp] = finite ? 0u : kFastNonFinite;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int i = 1; i < static_cast<int>(blockDim.x) / QS_WARP_SIZE; ++i) {
                mn = fminf(mn, smn[i]);
                mx = fmaxf(mx, smx[i]);
                bflag |= sf[i];
            }
            bflag |= sf[0];
            rowMm[2 * r] = mn;
            rowMm[2 * r + 1] = mx;
            bmn = fminf(bmn, mn);
            bmx = fmaxf(bmx, mx);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        const unsigned kmn = bmn <= bmx ? gpumath::floatKey(bmn) : 0xFFFFFFFFu;
        const unsigned kmx = bmn <= bmx ? gpumath::floatKey(bmx) : 0u;
        parts[3 * blockIdx.x] = bmn <= bmx ? ~kmn : 0u;
        parts[3 * blockIdx.x + 1] = bmn <= bmx ? kmx : 0u;
        parts[3 * blockIdx.x + 2] = bflag;
    }
}

/// Stage 2's scale and zero point of each row from its extremes: the generic kernels' groupParams
/// (stage 1's values of the extremes, then intGroupParams); stage-2 groups are never bad.
__global__ void __launch_bounds__(kThreads)
    kProgParams(QuantPlan P, const float *rowMm, float *scales, signed char *zeros, unsigned char *bad)
{
    for (i64 r = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; r < P.rows;
         r += static_cast<i64>(gridDim.x) * blockDim.x) {
        float s;
        int z;
        groupParams(P, rowMm[2 * r], rowMm[2 * r + 1], false, s, z);
        scales[r] = s;
        zeros[r] = static_cast<signed char>(z);
        bad[r] = 0;
    }
}

/// ProgressiveSpec pass 1, a block per row (grid-stride over rows), 16 elements a thread: stage 1's
/// value through the 64 KiB code table and a 256-entry value table in shared memory, stage 2's code
/// and Ŵ = a₁(a₂(s₂·(q − z))·s₁) as the CPU's functions compute them (intCode, intDequant,
/// progOuter's product; for x·(1/s) in floats, intCodeFp32), the error with the exactness check
/// (TwoSum's residual, exactSub: Sterbenz's test declined ~0.7 % of the elements, whose units then
/// took the FP64 route, and set kFastInexact, which sent all of pass 2 to its checked branch), the
/// codes, and the row's counts of its 16 levels (4-bit counters per thread, a warp sum in 16-bit
/// halves, warpSumU32, then the warps in order) written once per row to A.levels[16·row + level],
/// with Ŵ's sums and extremes from them (threads 0–15).
template <int IN, bool REC>
__global__ void __launch_bounds__(kThreads, 2)
    kProgFast1(const void *w, QuantPlan P, IntFast1 A, const unsigned char *lut)
{
    extern __shared__ uint4 progSm[];                                      // stage 1's code of each value
    const unsigned char *sLut = reinterpret_cast<unsigned char *>(progSm); // 64 KiB
    __shared__ float sV1[256];                                             // stage 1's value of each code
    __shared__ unsigned sCnt[kThreads / 32][8];                            // per warp: level counts, 16-bit halves
    for (int i = threadIdx.x; i < kKeys / 16; i += blockDim.x)
        progSm[i] = reinterpret_cast<const uint4 *>(lut)[i];
    const bool bad1 = *P.outerBad != 0; // NaN/Inf in W: domain values 0 (the run leaves the path)
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        sV1[i] = bad1 ? 0.0f : (P.fp.e4m3 ? gpumath::decodeE4m3(i) : gpumath::decodeE5m2(i));
    __syncthreads();
    IntParams ip = P.ip; // the options this path runs with, folded at compile time
    ip.arith = 0;
    ip.halfAway = false;
    ip.scaleDtype = 0;
    const float s1 = *P.outerScale;
    const float qminF = static_cast<float>(ip.qmin), qmaxF = static_cast<float>(ip.qmax);
    const i64 upr = P.cols / 16; // units of 16 elements per row
    const int lane = threadIdx.x % QS_WARP_SIZE, warp = threadIdx.x / QS_WARP_SIZE;
    const uint4 *wq = static_cast<const uint4 *>(w);

    float mnW = finf(), mxW = -finf(), emnF = finf(), emxF = -finf();
    double se = 0, emnD = dinf(), emxD = -dinf();
    i64 nF = 0;
    unsigned nonFinite = 0, inexact = 0;
    // Ŵ's sums and extremes from each row's level counts (threads 0–15, a level each; kLevelsRow's
    // work, without its launch and its rows in finalize 1).
    float mnY = finf(), mxY = -finf();
    double sumY = 0, sy = 0;
    i64 nFY = 0;
    // The thread's first unit of the block's next row is loaded while this row is worked on (the
    // row's end waits for the whole block).
    const bool lead = threadIdx.x < upr;
    uint4 nxt[2] = {make_uint4(0, 0, 0, 0), make_uint4(0, 0, 0, 0)};
    if (lead && blockIdx.x < P.rows) {
        nxt[0] = wq[2 * (static_cast<i64>(blockIdx.x) * upr + threadIdx.x)];
        nxt[1] = wq[2 * (static_cast<i64>(blockIdx.x) * upr + threadIdx.x) + 1];
    }
    for (i64 r = blockIdx.x; r < P.rows; r += gridDim.x) {
        const float s = A.scales[r];
        const int z = A.zeros[r];
        const float zf = static_cast<float>(z), r2 = 1.0f / s; // intCode's RN(1/s) (REC)
        unsigned c4[4] = {0, 0, 0, 0};                         // level counts, bytes (IntFast1::counts' layout)
        const uint4 first[2] = {nxt[0], nxt[1]};
        if (lead && r + gridDim.x < P.rows) {
            const i64 kn = (r + gridDim.x) * upr + threadIdx.x;
            nxt[0] = wq[2 * kn];
            nxt[1] = wq[2 * kn + 1];
        }
        for (i64 u = threadIdx.x; u < upr; u += blockDim.x) {
            const i64 k = r * upr + u;
            const bool f0 = u == threadIdx.x;
            const uint4 raw[2] = {f0 ? first[0] : wq[2 * k], f0 ? first[1] : wq[2 * k + 1]};
            float v[16];
            decode8<IN>(raw[0], v);
            decode8<IN>(raw[1], v + 8);
            nonFinite |= (chunkFinite(v) && chunkFinite(v + 8)) ? 0u : 1u;
            const unsigned hw[8] = {raw[0].x, raw[0].y, raw[0].z, raw[0].w, raw[1].x, raw[1].y, raw[1].z, raw[1].w};
            unsigned codes[16];
            float y[16], mn = v[0], mx = v[0], cmn = finf(), cmx = -finf();
            double seC = 0;
            bool exact = true;
#pragma unroll
            for (int l = 0; l < 2; ++l) {
                unsigned nib0 = 0, nib1 = 0; // 4-bit counts of 8 elements: levels 0–7, 8–15
#pragma unroll
                for (int jj = 0; jj < kChunk; ++jj) {
                    const int j = kChunk * l + jj;
                    const unsigned h = (hw[j / 2] >> (16 * (j % 2))) & 0xFFFFu; // decode8's element order
                    // Stage 2 as intCode / intDequant compute it: x·(1/s) kept in floats
                    // (intCodeFp32: no conversions); the division by the CPU's functions (the
                    // float version's division left too few registers: spills at 128).
                    unsigned bits;
                    if constexpr (REC) {
                        const float qv = gpumath::intCodeFp32<true>(sV1[sLut[h]], s, r2, zf, qminF, qmaxF);
                        bits = qmath::bitsOf(__fadd_rn(qv, 12582912.0f));              // 1.5·2^23 + q: low byte q
                        y[j] = __fmul_rn(gpumath::intDequantValue(ip, qv, s, zf), s1); // progOuter (FP32)
                    } else {
                        const int q = intCode(ip, sV1[sLut[h]], s, z);
                        bits = static_cast<unsigned>(q);
                        y[j] = __fmul_rn(intDequant(ip, q, s, z), s1);
                    }
                    codes[j] = bits & 0xFFu;
                    const float e = __fsub_rn(v[j], y[j]);
                    exact = exact & gpumath::exactSub(v[j], y[j], e); // not Sterbenz's: see exactSub
                    seC = fma(static_cast<double>(e), static_cast<double>(e), seC);
                    cmn = fminf(cmn, e);
                    cmx = fmaxf(cmx, e);
                    mn = fminf(mn, v[j]);
                    mx = fmaxf(mx, v[j]);
                    countLevelNibble((bits - static_cast<unsigned>(ip.qmin)) & 15u, nib0, nib1);
                }
                addLevelNibbles(nib0, nib1, c4);
            }
            if (exact) {
                se += seC;
                emnF = fminf(emnF, cmn);
                emxF = fmaxf(emxF, cmx);
            } else {
                inexact = 1; // some FP32 difference may be rounded: this unit's errors in FP64
#pragma unroll
                for (int j = 0; j < 16; ++j) {
                    const double ed = static_cast<double>(v[j]) - static_cast<double>(y[j]);
                    se = fma(ed, ed, se);
                    emnD = fmin(emnD, ed);
                    emxD = fmax(emxD, ed);
                }
            }
            unsigned packed[4];
#pragma unroll
            for (int t = 0; t < 4; ++t)
                packed[t] =
                    codes[4 * t] | (codes[4 * t + 1] << 8) | (codes[4 * t + 2] << 16) | (codes[4 * t + 3] << 24);
            reinterpret_cast<uint4 *>(A.codes)[k] = make_uint4(packed[0], packed[1], packed[2], packed[3]);
            if (A.wHat) {
                float4 *o = reinterpret_cast<float4 *>(A.wHat) + 4 * k;
#pragma unroll
                for (int t = 0; t < 4; ++t)
                    o[t] = make_float4(y[4 * t], y[4 * t + 1], y[4 * t + 2], y[4 * t + 3]);
            }
            nF += 16;
            mnW = fminf(mnW, mn);
            mxW = fmaxf(mxW, mx);
        }
        // The row's level counts: bytes widened to 16-bit halves (word 2i: bytes 0 and 2 of c4[i],
        // word 2i + 1: bytes 1 and 3; a warp's sum ≤ 32·255), a warp reduction, the warps in order.
        unsigned h16[8];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            h16[2 * i] = c4[i] & 0x00FF00FFu;
            h16[2 * i + 1] = (c4[i] >> 8) & 0x00FF00FFu;
        }
#pragma unroll
        for (int i = 0; i < 8; ++i) // 8 REDUX a warp instead of 40 shuffles and adds a thread
            h16[i] = warpSumU32(h16[i]);
        if (lane == 0) {
#pragma unroll
            for (int i = 0; i < 8; ++i)
                sCnt[warp][i] = h16[i];
        }
        __syncthreads();
        if (threadIdx.x < 16) {
            // Level l: byte b = (l % 8) / 2 of c4[i], i = 2·(l / 8) + l % 2 (IntFast1::counts).
            const int l = threadIdx.x, i = 2 * (l / 8) + l % 2, b = (l % 8) / 2;
            const int word = 2 * i + (b & 1), half = b >> 1;
            u64 c = 0;
            for (int wi = 0; wi < static_cast<int>(blockDim.x) / QS_WARP_SIZE; ++wi)
                c += (sCnt[wi][word] >> (16 * half)) & 0xFFFFu;
            A.levels[16 * r + l] = c;
            if (c != 0) { // ProgLevels::value: an empty level adds nothing (its Ŵ may not be finite)
                const float yv = __fmul_rn(intDequant(ip, ip.qmin + l, s, z), s1);
                nonFinite |= qmath::isFinite(yv) ? 0u : 1u; // the generic kernels then rerun
                const double yd = yv, cd = static_cast<double>(c);
                sumY = fma(cd, yd, sumY);
                sy = fma(cd, yd * yd, sy);
                mnY = fminf(mnY, yv);
                mxY = fmaxf(mxY, yv);
                nFY += static_cast<i64>(c);
            }
        }
        __syncthreads();
    }
    if (nonFinite | inexact)
        QS_ATOMIC_OR(A.flags, (nonFinite ? kFastNonFinite : 0u) | (inexact ? kFastInexact : 0u));
    double d[kP1D];
    for (int f = 0; f < kP1D; ++f)
        d[f] = 0;
    d[dMinW] = mnW;
    d[dMaxW] = mxW;
    d[dSumY] = sumY;
    d[dMinY] = mnY;
    d[dMaxY] = mxY;
    d[dSe] = se;
    d[dSy] = sy;
    d[dEmin] = fmin(static_cast<double>(emnF), emnD);
    d[dEmax] = fmax(static_cast<double>(emxF), emxD);
    i64 iv[kP1I] = {};
    iv[iNF] = nF;
    iv[iNFY] = nFY;
    blockRow<kP1D, kP1I>(d, iv, P1Ops{}, A.pd, A.pi);
}

/// ProgressiveSpec's levels for kLevelsY: level i is (row i/16, stage-2 level i%16),
/// its Ŵ the one kProgFast1 computes for that code.
struct ProgLevels {
    const u64 *counts;
    QuantPlan P;
    const float *scales;
    const signed char *zeros;
    QS_DEV i64 size() const { return 16 * P.rows; }
    QS_DEV float value(i64 i) const
    {
        IntParams ip = P.ip;
        ip.arith = 0;
        const i64 r = i >> 4;
        const int q = ip.qmin + static_cast<int>(i & 15);
        return __fmul_rn(intDequant(ip, q, scales[r], zeros[r]), *P.outerScale);
    }
};

__global__ void kFp8Encode(bool e4m3, unsigned first, std::size_t count, unsigned char *out)
{
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const float x = qmath::fromBits(first + static_cast<unsigned>(i));
        out[i] = e4m3 ? gpumath::encodeE4m3(x) : gpumath::encodeE5m2(x);
    }
}

} // namespace

int fp8TableRows()
{
    return kCoopBlocks;
}

int fp8RangeBlocks(int in, i64 n, int sms)
{
    int blocks = 1;
    dispatch16(in, [&](auto I) {
        int perSm = 0;
        QS_GPU_CHECK(qsOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kRangeW<decltype(I)::value>, kThreads, 0));
        const i64 need = (n / kChunk + kThreads - 1) / kThreads;
        blocks = static_cast<int>(std::max<i64>(1, std::min<i64>(need, static_cast<i64>(std::max(perSm, 1)) * sms)));
    });
    return blocks;
}
void fp8Range(int in, const void *w, i64 n, unsigned *parts, int blocks, void *stream)
{
    dispatch16(in, [&](auto I) { kRangeW<decltype(I)::value><<<blocks, kThreads, 0, Sx(stream)>>>(w, n, parts); });
    QS_GPU_CHECK_LAUNCH("fp8Range");
}
void fp8Lut(int in, const unsigned *parts, int rangeBlocks, bool given, float scaleGiven, const gpumath::Fp8Params &fp,
            unsigned char *lut, float *scales, signed char *zeros, unsigned char *bad, const Fp8Zero &zr, void *stream)
{
    dispatch16(in, [&](auto I) {
        kFp8Lut<decltype(I)::value><<<kTableBlocks, kTableThreads, 0, Sx(stream)>>>(
            parts, given ? 0 : rangeBlocks, given, scaleGiven, fp, lut, scales, zeros, bad, zr);
    });
    QS_GPU_CHECK_LAUNCH("fp8Lut");
}
void fp8Pass(int in, const void *w, i64 n, const unsigned char *lut, const gpumath::Fp8Params &fp, const float *scales,
             unsigned char *codes, float *wHat, unsigned *gvh, int sms, void *stream)
{
    dispatch16(in, [&](auto I) {
        constexpr int IN = decltype(I)::value;
        const std::size_t smem = vcWords<IN> * sizeof(unsigned) + kKeys;
        auto *k = kFp8Pass<IN>;
        allowShared(k, smem);
        int perSm = 0;
        QS_GPU_CHECK(qsOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, k, kPassThreads, smem));
        k<<<sms * std::max(perSm, 1), kPassThreads, smem, Sx(stream)>>>(w, n, lut, fp, scales, codes, wHat, gvh);
    });
    QS_GPU_CHECK_LAUNCH("fp8Pass");
}

void fp8Tables(int in, const unsigned *gvh, const float *scales, const gpumath::Fp8Params &fp, const HistConfig &hc,
               unsigned *flags, unsigned *bar, double *pd, i64 *pi, Stats1 *st1, u64 *hist, double *pd2, void *stream)
{
    dispatch16(in, [&](auto I) {
        auto *k = kFp8Tables<decltype(I)::value>;
        const std::size_t smem = sizeof(unsigned) * (3 * static_cast<std::size_t>(hc.bins) + kAbsBins + 6);
        allowShared(k, smem);
        gpumath::Fp8Params f = fp;
        HistConfig h = hc;
        void *args[] = {&gvh, &scales, &f, &h, &flags, &bar, &pd, &pi, &st1, &hist, &pd2};
        QS_GPU_CHECK(qsLaunchCooperativeKernel(k, dim3(kCoopBlocks), dim3(kCoopThreads), args, smem, Sx(stream)));
    });
    QS_GPU_CHECK_LAUNCH("fp8Tables");
}

bool progFastPlan(const QuantPlan &p)
{
    const i64 units = p.cols / 16;
    return p.kind == kKindProg && p.gran == kGranChannel && p.axis == 0 && p.cols % 16 == 0 && units >= 1 &&
           units <= 2048 && (units & (units - 1)) == 0 && p.fp.arith == 0 && p.ip.arith == 0 && !p.ip.halfAway &&
           p.ip.scaleDtype == 0 && p.ip.qmax - p.ip.qmin <= 15;
}

int progRangeBlocks(i64 rows, int sms)
{
    return static_cast<int>(std::max<i64>(1, std::min<i64>(rows, static_cast<i64>(sms) * 8)));
}

void progRange(int in, const void *w, const QuantPlan &p, float *rowMm, unsigned *parts, int blocks, void *stream)
{
    dispatch16(in, [&](auto I) {
        kProgRange<decltype(I)::value><<<blocks, kThreads, 0, Sx(stream)>>>(w, p.rows, p.cols, rowMm, parts);
    });
    QS_GPU_CHECK_LAUNCH("progRange");
}

void progParams(const QuantPlan &p, const float *rowMm, float *scales, signed char *zeros, unsigned char *bad,
                void *stream)
{
    const i64 blocks = std::min<i64>((p.rows + kThreads - 1) / kThreads, 1024);
    kProgParams<<<static_cast<int>(blocks), kThreads, 0, Sx(stream)>>>(p, rowMm, scales, zeros, bad);
    QS_GPU_CHECK_LAUNCH("progParams");
}

/// kProgFast1 for the input type and stage 2's rounding (x·(1/s) or x/s).
template <typename F> void dispatchProgFast1(int in, const QuantPlan &p, F &&f)
{
    dispatch16(in, [&](auto I) {
        constexpr int IN = decltype(I)::value;
        p.ip.reciprocal ? f(kProgFast1<IN, true>) : f(kProgFast1<IN, false>);
    });
}

int blocksProgFast1(int in, const QuantPlan &p, int sms)
{
    int r = 1;
    dispatchProgFast1(in, p, [&](auto *k) {
        allowShared(k, kKeys);
        int perSm = 0;
        QS_GPU_CHECK(qsOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, k, kThreads, kKeys));
        r = static_cast<int>(std::max<i64>(1, std::min<i64>(p.rows, static_cast<i64>(std::max(perSm, 1)) * sms)));
    });
    return r;
}

void progFast1(int in, const void *w, const QuantPlan &p, const IntFast1 &a, const unsigned char *lut, int blocks,
               void *stream)
{
    dispatchProgFast1(in, p, [&](auto *k) {
        allowShared(k, kKeys);
        k<<<blocks, kThreads, kKeys, Sx(stream)>>>(w, p, a, lut);
    });
    QS_GPU_CHECK_LAUNCH("progFast1");
}

int progLevelBlocks(const QuantPlan &p)
{
    return static_cast<int>(std::max<i64>(1, std::min<i64>((16 * p.rows + 4095) / 4096, 256)));
}

void progLevelsY(const QuantPlan &p, const u64 *levels, const float *scales, const signed char *zeros, const Stats1 *st,
                 const float *Tw, int bins, u64 *hist, double *pd2, int blocks, void *stream)
{
    levelsY(ProgLevels{levels, p, scales, zeros}, blocks, st, Tw, bins, hist, pd2, stream);
}

void fp8EncodeRange(bool e4m3, unsigned first, std::size_t count, unsigned char *out, void *stream)
{
    kFp8Encode<<<2048, kThreads, 0, S(stream)>>>(e4m3, first, count, out);
    QS_GPU_CHECK_LAUNCH("fp8EncodeRange");
}

} // namespace quantscope::gpu::launch
