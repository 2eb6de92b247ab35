// SPDX-License-Identifier: MIT
// The KV-cache lab on the device (docs/numerics.md "KV-cache lab", "On the GPU"). Every launch
// covers all layers and heads of a cache [L, Hkv, T, d].
//  * kvQuantize: one thread per token row (INT4 on K: per channel and group of 32 tokens) calling
//    core/kv/kv_math.h's row functions — the CPU reference's very functions, FP32 operations as
//    __f*_rn, FP64 ones explicitly rounded (-fmad=false) — so x̂ is the CPU's bit for bit.
//  * kvSegmentSse: Σ(x − x̂)² per (layer, head) in FP64, a fixed tree (the CPU sums in order: the
//    two differ by rounding only).
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

__device__ double blockSum(double v, double *sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s >>= 1) {
        if (static_cast<int>(threadIdx.x) < s)
            sh[threadIdx.x] = __dadd_rn(sh[threadIdx.x], sh[threadIdx.x + s]);
        __syncthreads();
    }
    const double r = sh[0];
    __syncthreads();
    return r;
}

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

__global__ void __launch_bounds__(kThreads) kUnitRows(const float *x, long long rows, long long d, float *out)
{
    const long long row = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
    if (row < rows)
        kvmath::unitRow(x + row * d, out + row * d, d);
}

__global__ void __launch_bounds__(kThreads) kQuantizeRows(KvQuantArgs a)
{
    const long long rows = a.layers * a.heads * a.tokens;
    const long long row = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
    if (row >= rows)
        return;
    const long long d = a.dim;
    const long long layer = row / (a.heads * a.tokens), head = (row / a.tokens) % a.heads;
    const int mode = a.mode[layer];
    const int method = mode & 0xFF;
    if (method == kInt4 && (mode & kKvPerChannel))
        return; // kInt4Channels
    const float *x = a.x + row * d;
    float *out = a.out + row * d;
    const float param = a.param[layer * a.heads + head];
    float tmp[kKvMaxDim];
    switch (method) {
    case kBf16:
        for (long long j = 0; j < d; ++j)
            out[j] = qmath::roundBf16(x[j]);
        break;
    case kFp8:
        for (long long j = 0; j < d; ++j)
            out[j] = kvmath::fp8Value(x[j], param);
        break;
    case kCodebook:
        kvmath::codebookRow(x, out, d, a.block, a.r, (mode & kKvRotate) != 0, a.levels + layer * 16,
                            a.bounds + layer * 15, tmp);
        break;
    case kConstOpt:
        kvmath::constOptRotatedRow(x, out, d, a.block, a.r, param, (mode & kKvUnrounded) != 0, tmp);
        break;
    case kMxFp4:
        kvmath::mxfp4Row(x, out, d);
        break;
    case kNvFp4:
        kvmath::nvfp4Row(x, out, d, param);
        break;
    case kInt4:
        for (long long j = 0; j < d; j += kvmath::kGroup)
            kvmath::int4Group(x + j, out + j, d - j < kvmath::kGroup ? d - j : kvmath::kGroup, 1);
        break;
    default:
        break;
    }
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

__global__ void __launch_bounds__(kThreads) kSegmentSse(const float *x, const float *xh, long long segLen, double *sse)
{
    __shared__ double sh[kThreads];
    const long long o = static_cast<long long>(blockIdx.x) * segLen;
    double s = 0;
    for (long long i = threadIdx.x; i < segLen; i += kThreads) {
        const double e = __dadd_rn(static_cast<double>(x[o + i]), -static_cast<double>(xh[o + i]));
        s = __dadd_rn(s, __dmul_rn(e, e));
    }
    const double r = blockSum(s, sh);
    if (threadIdx.x == 0)
        sse[blockIdx.x] = r;
}

/// z = q·k in FP64, the CPU's four partial sums (kv_lab.cpp dot).
__device__ double dot4(const double *q, const float *k, long long d)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    long long c = 0;
    for (; c + 4 <= d; c += 4) {
        s0 = __dadd_rn(s0, __dmul_rn(q[c], static_cast<double>(k[c])));
        s1 = __dadd_rn(s1, __dmul_rn(q[c + 1], static_cast<double>(k[c + 1])));
        s2 = __dadd_rn(s2, __dmul_rn(q[c + 2], static_cast<double>(k[c + 2])));
        s3 = __dadd_rn(s3, __dmul_rn(q[c + 3], static_cast<double>(k[c + 3])));
    }
    for (; c < d; ++c)
        s0 = __dadd_rn(s0, __dmul_rn(q[c], static_cast<double>(k[c])));
    return __dadd_rn(__dadd_rn(s0, s1), __dadd_rn(s2, s3));
}

/// Scores of the block's query against its causal keys into z[0..n), then log-softmax in place.
__device__ void logSoftmaxScores(const KvAttnArgs &a, const double *qs, const float *kBase, long long n, double *z,
                                 double *sh)
{
    const long long d = a.dim;
    double zmax = -INFINITY;
    for (long long j = threadIdx.x; j < n; j += kThreads) {
        const double v = __dmul_rn(dot4(qs, kBase + j * d, d), a.scale);
        z[j] = v;
        zmax = zmax < v ? v : zmax;
    }
    zmax = blockMax(zmax, sh);
    double se = 0;
    for (long long j = threadIdx.x; j < n; j += kThreads)
        se = __dadd_rn(se, exp(__dadd_rn(z[j], -zmax)));
    se = blockSum(se, sh);
    const double lse = __dadd_rn(zmax, log(se));
    for (long long j = threadIdx.x; j < n; j += kThreads)
        z[j] = __dadd_rn(z[j], -lse);
    __syncthreads();
}

struct Where {
    long long lh, qi, n, start, g, l;
};

__device__ Where where(const KvAttnArgs &a)
{
    Where w;
    w.qi = blockIdx.x % a.nq;
    w.lh = blockIdx.x / a.nq;
    w.l = w.lh / a.heads;
    const long long h = w.lh % a.heads;
    w.g = h / (a.heads / a.kvHeads);
    w.n = a.count[w.qi];
    w.start = a.start[w.qi];
    return w;
}

/// The block's query in shared memory (FP64); returns the row of its segment's first key and value.
__device__ long long stageQuery(const KvAttnArgs &a, const Where &w, double *qs)
{
    const long long d = a.dim;
    const float *q = a.q + (w.lh * a.queries + a.qIdx[w.qi]) * d;
    for (long long c = threadIdx.x; c < d; c += kThreads)
        qs[c] = static_cast<double>(q[c]);
    __syncthreads();
    return (w.l * a.kvHeads + w.g) * a.tokens + w.start;
}

__global__ void __launch_bounds__(kThreads) kAttnRef(KvAttnArgs a)
{
    __shared__ double sh[kThreads];
    __shared__ double qs[kKvMaxDim];
    const Where w = where(a);
    const long long d = a.dim;
    const long long kv = stageQuery(a, w, qs);
    double *lp = a.lp + w.lh * a.perHead + a.offset[w.qi];
    double *p = a.p + w.lh * a.perHead + a.offset[w.qi];
    logSoftmaxScores(a, qs, a.k + kv * d, w.n, lp, sh);
    for (long long j = threadIdx.x; j < w.n; j += kThreads)
        p[j] = exp(lp[j]);
    __syncthreads();
    const float *v = a.v + kv * d;
    double *o = a.o + (w.lh * a.nq + w.qi) * d;
    for (long long c = threadIdx.x; c < d; c += kThreads) {
        double acc = 0;
        for (long long j = 0; j < w.n; ++j)
            acc = __dadd_rn(acc, __dmul_rn(p[j], static_cast<double>(v[j * d + c])));
        o[c] = acc;
    }
}

__global__ void __launch_bounds__(kThreads) kAttnErr(KvAttnArgs a)
{
    __shared__ double sh[kThreads];
    __shared__ double qs[kKvMaxDim];
    const Where w = where(a);
    const long long d = a.dim;
    const long long kv = stageQuery(a, w, qs);
    const long long off = w.lh * a.perHead + a.offset[w.qi];
    double *lq = a.lq + off;
    const double *lp = a.lp + off, *p = a.p + off;
    logSoftmaxScores(a, qs, a.k + kv * d, w.n, lq, sh);
    double kl = 0, mx = 0;
    for (long long j = threadIdx.x; j < w.n; j += kThreads) {
        const double pq = exp(lq[j]);
        kl = __dadd_rn(kl, __dmul_rn(p[j], __dadd_rn(lp[j], -lq[j])));
        const double e = fabs(__dadd_rn(p[j], -pq));
        mx = mx < e ? e : mx;
        lq[j] = pq; // P̂ from here on
    }
    kl = blockSum(kl, sh);
    mx = blockMax(mx, sh); // also orders the P̂ writes before their reads below
    const float *v = a.v + kv * d;
    const double *o = a.o + (w.lh * a.nq + w.qi) * d;
    double err = 0, ref = 0;
    for (long long c = threadIdx.x; c < d; c += kThreads) {
        double acc = 0;
        for (long long j = 0; j < w.n; ++j)
            acc = __dadd_rn(acc, __dmul_rn(lq[j], static_cast<double>(v[j * d + c])));
        const double x = __dadd_rn(o[c], -acc);
        err = __dadd_rn(err, __dmul_rn(x, x));
        ref = __dadd_rn(ref, __dmul_rn(o[c], o[c]));
    }
    err = blockSum(err, sh);
    ref = blockSum(ref, sh);
    if (threadIdx.x == 0) {
        double *out = a.perQuery + (w.lh * a.nq + w.qi) * 4;
        out[0] = kl;
        out[1] = mx;
        out[2] = err;
        out[3] = ref;
    }
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
    kUnitRows<<<blocksFor(rows), kThreads, 0, static_cast<qsStream_t>(stream)>>>(x, rows, d, out);
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
    kQuantizeRows<<<blocksFor(rows), kThreads, 0, s>>>(a);
    QS_GPU_CHECK_LAUNCH("kvQuantize rows");
    const long long groups = (a.tokens + kvmath::kGroup - 1) / kvmath::kGroup;
    kInt4Channels<<<blocksFor(a.layers * a.heads * groups * a.dim), kThreads, 0, s>>>(a, groups);
    QS_GPU_CHECK_LAUNCH("kvQuantize int4 channels");
}

void kvSegmentSse(const float *x, const float *xh, long long segments, long long segLen, double *sse, void *stream)
{
    if (segments <= 0)
        return;
    kSegmentSse<<<static_cast<unsigned>(segments), kThreads, 0, static_cast<qsStream_t>(stream)>>>(x, xh, segLen, sse);
    QS_GPU_CHECK_LAUNCH("kvSegmentSse");
}

void kvAttentionRef(const KvAttnArgs &a, void *stream)
{
    const long long blocks = a.layers * a.heads * a.nq;
    if (blocks <= 0)
        return;
    if (a.dim > kKvMaxDim)
        throw GpuError("KV lab: head_dim " + std::to_string(a.dim) + " exceeds " + std::to_string(kKvMaxDim));
    kAttnRef<<<static_cast<unsigned>(blocks), kThreads, 0, static_cast<qsStream_t>(stream)>>>(a);
    QS_GPU_CHECK_LAUNCH("kvAttentionRef");
}

void kvAttentionErr(const KvAttnArgs &a, void *stream)
{
    const long long blocks = a.layers * a.heads * a.nq;
    if (blocks <= 0)
        return;
    kAttnErr<<<static_cast<unsigned>(blocks), kThreads, 0, static_cast<qsStream_t>(stream)>>>(a);
    QS_GPU_CHECK_LAUNCH("kvAttentionErr");
}

} // namespace quantscope::gpu::launch
