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

void fp8EncodeRange(bool e4m3, unsigned first, std::size_t count, unsigned char *out, void *stream)
{
    kFp8Encode<<<2048, kThreads, 0, S(stream)>>>(e4m3, first, count, out);
    QS_GPU_CHECK_LAUNCH("fp8EncodeRange");
}

} // namespace quantscope::gpu::launch
