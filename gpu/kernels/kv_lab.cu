// SPDX-License-Identifier: MIT
// The KV-cache lab on the device (docs/numerics.md "KV-cache lab", "On the GPU"): the quantizers,
// the row preparation and the attention tiles (the reductions are kv_sums.cu's). Every launch covers
// all layers and heads of a cache [L, Hkv, T, d].
//  * kvQuantize: one thread per token row (INT4 on K: per channel and group of 32 tokens) calling
//    core/kv/kv_math.h's row functions — the CPU reference's very functions, FP32 operations as
//    __f*_rn, FP64 ones explicitly rounded (-fmad=false) — so x̂ is the CPU's bit for bit.
//  * kvAttentionRef / kvAttentionErr: one block per (layer, query head, evaluated query). Scores
//    z_j = q·k_j/√d in FP64 with the CPU's four partial sums in its order (products of FP32 values
//    are exact in FP64, so z has the CPU's bits); log-softmax and the sums over keys in FP64 (the
//    exp/log of the device's libm and the block's summation order differ from the CPU's by
//    rounding); o = Σ_j P_j v_j per channel in the CPU's order.
#define QS_HD __host__ __device__

#include "kernels_kv.h"
#include "kv/kv_math.h"
#include "qs_gpu_compat.h"

namespace quantscope::gpu::launch {

namespace {

constexpr int kThreads = 256;

// KvMethod (core/kv/kv_schemes.h) as integers.
constexpr int kBf16 = 0, kFp8 = 1, kCodebook = 2, kConstOpt = 3, kMxFp4 = 4, kNvFp4 = 5, kInt4 = 6;

__device__ double blockMax(double v, double *sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s >>= 1) {
        if (static_cast<int>(threadIdx.x) < s) {
            const double o = sh[threadIdx.x + s];
            if (sh[threadIdx.x] < o)
                sh[threadIdx.x] = o;
        }
        __syncthreads();
    }
    const double r = sh[0];
    __syncthreads();
    return r;
}

__global__ void __launch_bounds__(kThreads) kAbsmax(const float *x, long long segLen, float *amax)
{
    __shared__ double sh[kThreads];
    const float *p = x + static_cast<long long>(blockIdx.x) * segLen;
    float m = 0;
    for (long long i = threadIdx.x; i < segLen; i += kThreads)
        m = kvmath::maxf(m, qmath::absf(p[i]));
    const double r = blockMax(static_cast<double>(m), sh);
    if (threadIdx.x == 0)
        amax[blockIdx.x] = static_cast<float>(r); // exact: a float widened and narrowed
}

/// Rows of a cache a kQuantizeRows block stages: two rows of d + 1 floats each (x̂ in place of x,
/// and the row functions' scratch) fit 33 KB of shared memory.
__host__ __device__ inline long long quantRowsPerBlock(long long d)
{
    return d <= 64 ? 64 : (d <= 128 ? 32 : 16);
}

/// e / n for the in-block element indices of the staging loops (e < 2^31): a shift when n is a
/// power of two, else a 32-bit division (a 64-bit one costs a hundred instructions per element).
struct InBlockDiv {
    int n = 1, shift = -1;
    __device__ explicit InBlockDiv(long long v) : n(static_cast<int>(v))
    {
        if (n > 0 && (n & (n - 1)) == 0)
            for (shift = 0; (1 << shift) < n; ++shift) {
            }
    }
    __device__ int operator()(int e) const { return shift >= 0 ? e >> shift : e / n; }
};

/// Rows src[0, nr·d) into shared rows padded to d + 1 floats (row r at dst + r·(d + 1), so thread
/// r's row sits in its own banks); coalesced. The padded index of element e of row r is e + r.
__device__ void stageRowsIn(float *dst, const float *src, int nr, const InBlockDiv &d)
{
    for (int e = static_cast<int>(threadIdx.x); e < nr * d.n; e += kThreads)
        dst[e + d(e)] = src[e];
}

/// The staged rows back to dst[0, nr·d), coalesced; rows with keep[r] == 0 skipped (keep: null,
/// every row).
__device__ void stageRowsOut(float *dst, const float *src, int nr, const InBlockDiv &d,
                             const unsigned char *keep = nullptr)
{
    for (int e = static_cast<int>(threadIdx.x); e < nr * d.n; e += kThreads) {
        const int r = d(e);
        if (!keep || keep[r])
            dst[e] = src[e + r];
    }
}

/// Rows scaled to unit length (kv_math.h unitRow), staged through shared memory as kQuantizeRows.
__global__ void __launch_bounds__(kThreads) kUnitRows(const float *x, long long rows, long long d, float *out)
{
    extern __shared__ float rowSmem[];
    const long long dp = d + 1, R = quantRowsPerBlock(d);
    const long long r0 = static_cast<long long>(blockIdx.x) * R;
    const int nr = static_cast<int>(rows - r0 < R ? rows - r0 : R);
    const InBlockDiv div(d);
    stageRowsIn(rowSmem, x + r0 * d, nr, div);
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < nr) {
        float *r = rowSmem + threadIdx.x * dp;
        kvmath::unitRow(r, r, d); // reads the row's norm first, then writes
    }
    __syncthreads();
    stageRowsOut(out + r0 * d, rowSmem, nr, div);
}

/// x̂ of a block of token rows: the block's rows are loaded coalesced into shared memory (rows
/// padded to d + 1 floats, so thread t's row sits in its own banks), one thread per row runs
/// kv_math.h's row function on its staged row in place (every function reads a group or row before
/// writing it), and the block stores the rows coalesced. INT4 on K (per channel) is kInt4Channels'.
__global__ void __launch_bounds__(kThreads) kQuantizeRows(KvQuantArgs a)
{
    extern __shared__ float rowSmem[];
    const long long d = a.dim, dp = d + 1, R = quantRowsPerBlock(d);
    const long long rowsAll = a.layers * a.heads * a.tokens;
    const long long r0 = static_cast<long long>(blockIdx.x) * R;
    const int nr = static_cast<int>(rowsAll - r0 < R ? rowsAll - r0 : R);
    // Each row reads its own layer's mode: a block may straddle layers.
    __shared__ unsigned char keep[64]; // quantRowsPerBlock ≤ 64: the rows this kernel writes
    float *xs = rowSmem, *ts = rowSmem + R * dp;
    const InBlockDiv div(d);
    stageRowsIn(xs, a.x + r0 * d, nr, div);
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < nr) {
        const long long row = r0 + threadIdx.x;
        const long long l = row / (a.heads * a.tokens), head = (row / a.tokens) % a.heads;
        const int mode = a.mode[l];
        const int method = mode & 0xFF;
        keep[threadIdx.x] = !(method == kInt4 && (mode & kKvPerChannel)); // else kInt4Channels writes it
        float *x = xs + threadIdx.x * dp, *tmp = ts + threadIdx.x * dp;
        const float param = a.param[l * a.heads + head];
        switch (method) {
        case kBf16:
            for (long long j = 0; j < d; ++j)
                x[j] = qmath::roundBf16(x[j]);
            break;
        case kFp8:
            for (long long j = 0; j < d; ++j)
                x[j] = kvmath::fp8Value(x[j], param);
            break;
        case kCodebook:
            kvmath::codebookRow(x, x, d, a.block, a.r, (mode & kKvRotate) != 0, a.levels + l * 16, a.bounds + l * 15,
                                tmp);
            break;
        case kConstOpt:
            kvmath::constOptRotatedRow(x, x, d, a.block, a.r, param, (mode & kKvUnrounded) != 0, tmp);
            break;
        case kMxFp4:
            kvmath::mxfp4Row(x, x, d);
            break;
        case kNvFp4:
            kvmath::nvfp4Row(x, x, d, param);
            break;
        case kInt4:
            if (!(mode & kKvPerChannel))
                for (long long j = 0; j < d; j += kvmath::kGroup)
                    kvmath::int4Group(x + j, x + j, d - j < kvmath::kGroup ? d - j : kvmath::kGroup, 1);
            break;
        default:
            break;
        }
    }
    __syncthreads();
    stageRowsOut(a.out + r0 * d, xs, nr, div, keep);
}

/// INT4 on K: one thread per (segment, group of 32 tokens, channel) of the layers whose mode asks.
__global__ void __launch_bounds__(kThreads) kInt4Channels(KvQuantArgs a, long long groupsPerSeg)
{
    const long long d = a.dim, T = a.tokens;
    const long long total = a.layers * a.heads * groupsPerSeg * d;
    const long long i = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
    if (i >= total)
        return;
    const long long j = i % d, tg = (i / d) % groupsPerSeg, seg = i / (d * groupsPerSeg);
    const long long layer = seg / a.heads;
    const int mode = a.mode[layer];
    if ((mode & 0xFF) != kInt4 || !(mode & kKvPerChannel))
        return;
    const long long t = tg * kvmath::kGroup;
    const long long len = T - t < kvmath::kGroup ? T - t : kvmath::kGroup;
    const long long base = (seg * T + t) * d + j;
    kvmath::int4Group(a.x + base, a.out + base, len, d);
}

/// z = q·k in FP64 with the CPU's four partial sums in its order (kv_lab.cpp dot), q and k staged
/// as FP64 (each an FP32 value widened, so every product is the CPU's exact one); two queries
/// against one key at once when `q2` is given (one read of k for both).
__device__ void dot4x2(const double *q1, const double *q2, const double *k, int d, double &z1, double &z2)
{
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
    int c = 0;
    for (; c + 4 <= d; c += 4) {
        const double k0 = k[c], k1 = k[c + 1], k2 = k[c + 2], k3 = k[c + 3];
        a0 = __dadd_rn(a0, __dmul_rn(q1[c], k0));
        a1 = __dadd_rn(a1, __dmul_rn(q1[c + 1], k1));
        a2 = __dadd_rn(a2, __dmul_rn(q1[c + 2], k2));
        a3 = __dadd_rn(a3, __dmul_rn(q1[c + 3], k3));
        if (q2) {
            b0 = __dadd_rn(b0, __dmul_rn(q2[c], k0));
            b1 = __dadd_rn(b1, __dmul_rn(q2[c + 1], k1));
            b2 = __dadd_rn(b2, __dmul_rn(q2[c + 2], k2));
            b3 = __dadd_rn(b3, __dmul_rn(q2[c + 3], k3));
        }
    }
    for (; c < d; ++c) {
        a0 = __dadd_rn(a0, __dmul_rn(q1[c], k[c]));
        if (q2)
            b0 = __dadd_rn(b0, __dmul_rn(q2[c], k[c]));
    }
    z1 = __dadd_rn(__dadd_rn(a0, a1), __dadd_rn(a2, a3));
    z2 = __dadd_rn(__dadd_rn(b0, b1), __dadd_rn(b2, b3));
}

// The attention tile: one block of 256 threads per (layer, query head, kAttnTq evaluated queries).
constexpr int kAttnTq = 16;                    ///< queries per block
constexpr int kAttnLanes = kThreads / kAttnTq; ///< threads per query in the softmax and output phases

/// Sum (or max) over the kAttnLanes threads of one query through shared memory (a fixed tree;
/// no warp-size assumption, so HIP's 64-wide wavefronts take the same code).
template <bool kMax> __device__ double groupReduce(double v, double *sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = kAttnLanes / 2; s > 0; s >>= 1) {
        const int lane = static_cast<int>(threadIdx.x) % kAttnLanes;
        if (lane < s) {
            const double o = sh[threadIdx.x + s];
            sh[threadIdx.x] = kMax ? (sh[threadIdx.x] < o ? o : sh[threadIdx.x]) : __dadd_rn(sh[threadIdx.x], o);
        }
        __syncthreads();
    }
    const double r = sh[threadIdx.x - threadIdx.x % kAttnLanes];
    __syncthreads();
    return r;
}

/// kRef: the reference (K, V): log P into lp, P into p, o. Else (K̂, V̂): P̂ in lq (scratch), the
/// per-query KL, max |P − P̂|, Σ(o − ô)² and Σo² into perQuery. Phases: (A) scores of every query
/// of the tile against tiles of keys staged in shared memory (FP32 rows padded to d + 1), written
/// to the query's score buffer; (B) per query, max, Σexp, log-softmax, P or P̂ and the KL and
/// max-error sums over its keys; (C) outputs Σ_j P_j v_j per channel in the CPU's key order from
/// staged tiles of V and P.
/// kPer: output channels per thread (d ≤ 16·kPer).
// Four blocks per SM at d ≤ 64 (≤ 64 registers; at 80 the registers allowed three: the kernel is
// latency-bound, Nsight: 35 % occupancy, issue slots 45 % busy).
template <bool kRef, int kPer>
__global__ void __launch_bounds__(kThreads, kPer <= 4 ? 4 : 2) kAttnTile(KvAttnArgs a, int tk)
{
    extern __shared__ double attnSmem[];
    const int d = static_cast<int>(a.dim); // ≤ kKvMaxDim; in-head indices below are 32-bit
    const int tiles = (a.nq + kAttnTq - 1) / kAttnTq;
    const long long lh = blockIdx.x / tiles;
    const int q0 = static_cast<int>(blockIdx.x % tiles) * kAttnTq;
    const int nt = a.nq - q0 < kAttnTq ? a.nq - q0 : kAttnTq;
    const long long l = lh / a.heads, g = (lh % a.heads) / (a.heads / a.kvHeads);
    double *red = attnSmem;              // [kThreads]
    double *pt = red + kThreads;         // [kAttnTq · tk]
    double *qs = pt + kAttnTq * tk;      // [kAttnTq · (d + 1)]
    double *kt = qs + kAttnTq * (d + 1); // [tk · (d + 1)]
    const int dq = d + 1;
    // The tile's queries and the union of their key ranges.
    int kLo = 0x7FFFFFFF, kHi = 0;
    for (int i = 0; i < nt; ++i) {
        const int st = static_cast<int>(a.start[q0 + i]), en = st + static_cast<int>(a.count[q0 + i]);
        kLo = st < kLo ? st : kLo;
        kHi = en > kHi ? en : kHi;
    }
    const InBlockDiv divD(d), divK(tk);
    for (int e = static_cast<int>(threadIdx.x); e < nt * d; e += kThreads) {
        const int i = divD(e), c = e - i * d;
        qs[i * dq + c] = static_cast<double>(a.q[(lh * a.queries + a.qRow[q0 + i]) * d + c]);
    }
    const long long kvRow = (l * a.kvHeads + g) * a.tokens; // the segment's row 0
    const float *kHead = a.k + kvRow * d, *vHead = a.v + kvRow * d;
    double *zHead = (kRef ? a.lp : a.lq) + lh * a.perHead; // this head's score buffers
    const long long headOff = lh * a.perHead;

    // (A) scores: thread t takes key t % tk of the staged tile against queries t / tk, + step, …
    // two at a time.
    const int qStep = kThreads / tk;
    for (int k0 = kLo; k0 < kHi; k0 += tk) {
        const int rows = kHi - k0 < tk ? kHi - k0 : tk;
        __syncthreads(); // the previous tile is consumed (and qs is staged)
        const float *ksrc = kHead + static_cast<long long>(k0) * d;
        for (int e = static_cast<int>(threadIdx.x); e < rows * d; e += kThreads)
            kt[e + divD(e)] = static_cast<double>(ksrc[e]);
        __syncthreads();
        const int kk = static_cast<int>(threadIdx.x) % tk, key = k0 + kk;
        if (kk >= rows)
            continue;
        for (int i = static_cast<int>(threadIdx.x) / tk; i < nt; i += 2 * qStep) {
            const int i2 = i + qStep;
            const int st1 = static_cast<int>(a.start[q0 + i]);
            const bool in1 = key >= st1 && key < st1 + static_cast<int>(a.count[q0 + i]);
            bool in2 = false;
            int st2 = 0;
            if (i2 < nt) {
                st2 = static_cast<int>(a.start[q0 + i2]);
                in2 = key >= st2 && key < st2 + static_cast<int>(a.count[q0 + i2]);
            }
            if (!in1 && !in2)
                continue;
            double z1, z2;
            dot4x2(qs + i * dq, in2 ? qs + i2 * dq : nullptr, kt + kk * dq, d, z1, z2);
            if (in1)
                zHead[a.offset[q0 + i] + (key - st1)] = __dmul_rn(z1, a.scale);
            if (in2)
                zHead[a.offset[q0 + i2] + (key - st2)] = __dmul_rn(z2, a.scale);
        }
    }
    __syncthreads();

    // (B) softmax per query: kAttnLanes threads per query
    const int qi = static_cast<int>(threadIdx.x) / kAttnLanes, lane = static_cast<int>(threadIdx.x) % kAttnLanes;
    const bool live = qi < nt;
    const int n = live ? static_cast<int>(a.count[q0 + qi]) : 0;
    const long long off = live ? headOff + a.offset[q0 + qi] : 0;
    double *z = (kRef ? a.lp : a.lq) + off;
    double zmax = -INFINITY;
    for (int j = lane; j < n; j += kAttnLanes)
        zmax = zmax < z[j] ? z[j] : zmax;
    zmax = groupReduce<true>(zmax, red);
    double se = 0;
    for (int j = lane; j < n; j += kAttnLanes)
        se = __dadd_rn(se, exp(__dadd_rn(z[j], -zmax)));
    se = groupReduce<false>(se, red);
    const double lse = __dadd_rn(zmax, log(se));
    double kl = 0, mx = 0;
    for (int j = lane; j < n; j += kAttnLanes) {
        const double lz = __dadd_rn(z[j], -lse);
        if (kRef) {
            z[j] = lz;
            a.p[off + j] = exp(lz);
        } else {
            const double p = a.p[off + j], lp = a.lp[off + j], pq = exp(lz);
            kl = __dadd_rn(kl, __dmul_rn(p, __dadd_rn(lp, -lz)));
            const double e = fabs(__dadd_rn(p, -pq));
            mx = mx < e ? e : mx;
            z[j] = pq; // P̂ from here on
        }
    }
    if (!kRef) {
        kl = groupReduce<false>(kl, red);
        mx = groupReduce<true>(mx, red);
    }
    __syncthreads();

    // (C) outputs: thread (qi, lane) owns channels lane, lane + kAttnLanes, …
    const double *pAll = kRef ? a.p : a.lq;
    constexpr int kMaxPer = kPer;
    double acc[kMaxPer];
    for (int m = 0; m < kMaxPer; ++m)
        acc[m] = 0;
    double *vt = kt; // [tk · d]
    const double *pHead = pAll + headOff;
    for (int k0 = kLo; k0 < kHi; k0 += tk) {
        const int rows = kHi - k0 < tk ? kHi - k0 : tk;
        __syncthreads();
        const float *vsrc = vHead + static_cast<long long>(k0) * d;
        for (int e = static_cast<int>(threadIdx.x); e < rows * d; e += kThreads)
            vt[e] = static_cast<double>(vsrc[e]);
        for (int e = static_cast<int>(threadIdx.x); e < kAttnTq * tk; e += kThreads) {
            const int i = divK(e), kk = e - i * tk;
            const int key = k0 + kk;
            double pv = 0;
            if (i < nt) {
                const int st = static_cast<int>(a.start[q0 + i]);
                if (kk < rows && key >= st && key < st + static_cast<int>(a.count[q0 + i]))
                    pv = pHead[a.offset[q0 + i] + (key - st)];
            }
            pt[e] = pv;
        }
        __syncthreads();
        if (live)
            for (int kk = 0; kk < rows; ++kk) {
                const double pv = pt[qi * tk + kk];
                if (pv == 0.0)
                    continue; // outside the query's range (an exp underflowing to 0 adds nothing either)
                const double *vr = vt + kk * d;
#pragma unroll
                for (int m = 0; m < kMaxPer; ++m) {
                    const int c = lane + m * kAttnLanes;
                    if (c < d)
                        acc[m] = __dadd_rn(acc[m], __dmul_rn(pv, vr[c]));
                }
            }
    }
    const long long oRow = (lh * a.nq + q0 + qi) * d;
    double err = 0, ref = 0;
#pragma unroll
    for (int m = 0; m < kMaxPer; ++m) {
        const long long c = lane + static_cast<long long>(m) * kAttnLanes;
        if (!live || c >= d)
            continue;
        if (kRef) {
            a.o[oRow + c] = acc[m];
        } else {
            const double o = a.o[oRow + c], x = __dadd_rn(o, -acc[m]);
            err = __dadd_rn(err, __dmul_rn(x, x));
            ref = __dadd_rn(ref, __dmul_rn(o, o));
        }
    }
    if (!kRef) {
        err = groupReduce<false>(err, red);
        ref = groupReduce<false>(ref, red);
        if (live && lane == 0) {
            double *out = a.perQuery + (lh * a.nq + q0 + qi) * 4;
            out[0] = kl;
            out[1] = mx;
            out[2] = err;
            out[3] = ref;
        }
    }
}

// ---- the lab's preparation ----

__global__ void __launch_bounds__(kThreads)
    kNormChange(const float *x, const float *y, long long rows, long long d, unsigned long long *out)
{
    extern __shared__ float rowSmem[];
    const long long dp = d + 1, R = quantRowsPerBlock(d);
    const long long r0 = static_cast<long long>(blockIdx.x) * R;
    const int nr = static_cast<int>(rows - r0 < R ? rows - r0 : R);
    float *xs = rowSmem, *ys = rowSmem + R * dp;
    const InBlockDiv div(d);
    stageRowsIn(xs, x + r0 * d, nr, div);
    stageRowsIn(ys, y + r0 * d, nr, div);
    __syncthreads();
    if (static_cast<int>(threadIdx.x) >= nr)
        return;
    const float *xr = xs + threadIdx.x * dp, *yr = ys + threadIdx.x * dp;
    double a = 0, r = 0;
    for (long long j = 0; j < d; ++j) {
        a = __dadd_rn(a, __dmul_rn(static_cast<double>(xr[j]), static_cast<double>(xr[j])));
        r = __dadd_rn(r, __dmul_rn(static_cast<double>(yr[j]), static_cast<double>(yr[j])));
    }
    if (!(a > 0))
        return;
    const double e = __ddiv_rn(fabs(__dadd_rn(__dsqrt_rn(r), -__dsqrt_rn(a))), __dsqrt_rn(a));
    // Non-negative doubles order as their bit patterns: an exact, order-free max.
    atomicMax(out, static_cast<unsigned long long>(__double_as_longlong(e)));
}

/// Keys per staged tile and the dynamic shared memory of kAttnTile at head dimension d (FP64
/// tiles; at most 44 KB, d ≤ 256).
int attnKeysPerTile(long long d)
{
    return d <= 64 ? 32 : (d <= 128 ? 16 : 4);
}

std::size_t attnSmemBytes(long long d)
{
    const long long tk = attnKeysPerTile(d);
    return static_cast<std::size_t>(kThreads + kAttnTq * tk + (kAttnTq + tk) * (d + 1)) * sizeof(double);
}

unsigned blocksFor(long long n)
{
    return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

} // namespace

void kvAbsmax(const float *x, long long segments, long long segLen, float *amax, void *stream)
{
    if (segments <= 0)
        return;
    kAbsmax<<<static_cast<unsigned>(segments), kThreads, 0, static_cast<qsStream_t>(stream)>>>(x, segLen, amax);
    QS_GPU_CHECK_LAUNCH("kvAbsmax");
}

void kvUnitRows(const float *x, long long rows, long long d, float *out, void *stream)
{
    if (rows <= 0)
        return;
    const long long R = quantRowsPerBlock(d);
    kUnitRows<<<static_cast<unsigned>((rows + R - 1) / R), kThreads,
                static_cast<std::size_t>(R * (d + 1)) * sizeof(float), static_cast<qsStream_t>(stream)>>>(x, rows, d,
                                                                                                          out);
    QS_GPU_CHECK_LAUNCH("kvUnitRows");
}

void kvQuantize(const KvQuantArgs &a, void *stream)
{
    if (a.dim > kKvMaxDim)
        throw GpuError("KV lab: head_dim " + std::to_string(a.dim) + " exceeds the device kernels' " +
                       std::to_string(kKvMaxDim));
    const auto s = static_cast<qsStream_t>(stream);
    const long long rows = a.layers * a.heads * a.tokens;
    if (rows <= 0)
        return;
    const long long R = quantRowsPerBlock(a.dim);
    const std::size_t smem = static_cast<std::size_t>(2 * R * (a.dim + 1)) * sizeof(float);
    kQuantizeRows<<<static_cast<unsigned>((rows + R - 1) / R), kThreads, smem, s>>>(a);
    QS_GPU_CHECK_LAUNCH("kvQuantize rows");
    const long long groups = (a.tokens + kvmath::kGroup - 1) / kvmath::kGroup;
    kInt4Channels<<<blocksFor(a.layers * a.heads * groups * a.dim), kThreads, 0, s>>>(a, groups);
    QS_GPU_CHECK_LAUNCH("kvQuantize int4 channels");
}

template <bool kRef> void launchAttention(const KvAttnArgs &a, void *stream, const char *what)
{
    const long long tiles = (a.nq + kAttnTq - 1) / kAttnTq;
    const long long blocks = a.layers * a.heads * tiles;
    if (blocks <= 0)
        return;
    if (a.dim > kKvMaxDim)
        throw GpuError("KV lab: head_dim " + std::to_string(a.dim) + " exceeds " + std::to_string(kKvMaxDim));
    const std::size_t smem = attnSmemBytes(a.dim);
    const auto st = static_cast<qsStream_t>(stream);
    const auto grid = static_cast<unsigned>(blocks);
    const int tk = attnKeysPerTile(a.dim);
    static_assert(kKvMaxDim <= 16 * kAttnLanes, "kAttnTile's channels per thread");
    if (a.dim <= 4 * kAttnLanes)
        kAttnTile<kRef, 4><<<grid, kThreads, smem, st>>>(a, tk);
    else if (a.dim <= 8 * kAttnLanes)
        kAttnTile<kRef, 8><<<grid, kThreads, smem, st>>>(a, tk);
    else
        kAttnTile<kRef, 16><<<grid, kThreads, smem, st>>>(a, tk);
    QS_GPU_CHECK_LAUNCH(what);
}

void kvAttentionRef(const KvAttnArgs &a, void *stream)
{
    launchAttention<true>(a, stream, "kvAttentionRef");
}

void kvAttentionErr(const KvAttnArgs &a, void *stream)
{
    launchAttention<false>(a, stream, "kvAttentionErr");
}

void kvNormChange(const float *x, const float *y, long long rows, long long d, double *out, void *stream)
{
    if (rows <= 0)
        return;
    const long long R = quantRowsPerBlock(d);
    kNormChange<<<static_cast<unsigned>((rows + R - 1) / R), kThreads,
                  static_cast<std::size_t>(2 * R * (d + 1)) * sizeof(float), static_cast<qsStream_t>(stream)>>>(
        x, y, rows, d, reinterpret_cast<unsigned long long *>(out));
    QS_GPU_CHECK_LAUNCH("kvNormChange");
}

} // namespace quantscope::gpu::launch
