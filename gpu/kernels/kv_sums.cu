// SPDX-License-Identifier: MIT
// The KV-cache lab's reductions on the device (docs/numerics.md "KV-cache lab", "On the GPU";
// kernels_kv.h): the per-head SSE, the per-query attention sums of a head, K's moments and their
// means, the unit-vector histograms and their prefix sums, the Lloyd refits (kv_lloyd.h's functions
// with one thread per level) and the unrounded c curve. The quantizers and the attention tiles are
// kv_lab.cu's. FP64 sums in fixed trees (-fmad=false): the same bits every run.
#define QS_HD __host__ __device__

#include "kernels_kv.h"
#include "kv/kv_lloyd.h"
#include "kv/kv_math.h"
#include "numeric/fp4math.h"
#include "qs_gpu_compat.h"

namespace quantscope::gpu::launch {

namespace {

constexpr int kThreads = 256;

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

/// One block of 64 threads per (layer, query head): the head's rows of perQuery staged in shared
/// memory by all threads (coalesced), summed in query order by thread 0.
constexpr int kSummaryThreads = 64, kSummaryMaxQ = 512;

/// Σ(x − x̂)² over chunk c of segment s into partial[s·chunks + c] (a fixed tree).
__global__ void __launch_bounds__(kThreads)
    kSegmentSse(const float *x, const float *xh, long long segLen, int chunks, double *partial)
{
    __shared__ double sh[kThreads];
    const long long seg = blockIdx.x / chunks, c = blockIdx.x % chunks;
    const long long per = (segLen + chunks - 1) / chunks;
    const long long lo = seg * segLen + c * per;
    const long long hi = seg * segLen + (c * per + per < segLen ? c * per + per : segLen);
    double s = 0;
    for (long long i = lo + threadIdx.x; i < hi; i += kThreads) {
        const double e = __dadd_rn(static_cast<double>(x[i]), xh ? -static_cast<double>(xh[i]) : 0.0);
        s = __dadd_rn(s, __dmul_rn(e, e));
    }
    const double r = blockSum(s, sh);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = r;
}

/// sse[s] = Σ_c partial[s·chunks + c] in chunk order.
__global__ void kSegmentSseSum(const double *partial, long long segments, int chunks, double *sse)
{
    const long long seg = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (seg >= segments)
        return;
    double s = 0;
    for (int c = 0; c < chunks; ++c)
        s = __dadd_rn(s, partial[seg * chunks + c]);
    sse[seg] = s;
}

__global__ void __launch_bounds__(kThreads)
    kMoments(const float *x, long long segLen, int chunks, const double *mean, double *partial)
{
    __shared__ double sh[kThreads];
    const long long s = blockIdx.x / chunks, c = blockIdx.x % chunks;
    const long long per = (segLen + chunks - 1) / chunks;
    const long long lo = c * per, hi = lo + per < segLen ? lo + per : segLen;
    const float *p = x + s * segLen;
    double a = 0, b = 0;
    const double mu = mean ? mean[s] : 0.0;
    for (long long i = lo + threadIdx.x; i < hi; i += kThreads) {
        if (!mean) {
            a = __dadd_rn(a, static_cast<double>(p[i]));
        } else {
            const double e = __dadd_rn(static_cast<double>(p[i]), -mu), e2 = __dmul_rn(e, e);
            a = __dadd_rn(a, e2);
            b = __dadd_rn(b, __dmul_rn(e2, e2));
        }
    }
    a = blockSum(a, sh);
    b = blockSum(b, sh);
    if (threadIdx.x == 0) {
        partial[blockIdx.x * 2] = a;
        partial[blockIdx.x * 2 + 1] = b;
    }
}

__global__ void kSegmentMeans(const double *partial, long long segments, int chunks, long long segLen, double *mean)
{
    const long long s = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (s >= segments)
        return;
    double sum = 0;
    for (int c = 0; c < chunks; ++c)
        sum = __dadd_rn(sum, partial[(s * chunks + c) * 2]);
    mean[s] = __ddiv_rn(sum, static_cast<double>(segLen));
}

__global__ void __launch_bounds__(kThreads)
    kUnitHistogram(const float *u, long long n, long long layerLen, double *hist)
{
    const long long i = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
    if (i >= n)
        return;
    const float y = u[i];
    // KvUnitHistogram::add: floor((y + 1)/2·B), clamped.
    const double t = floor(__dmul_rn(__ddiv_rn(__dadd_rn(static_cast<double>(y), 1.0), 2.0), kKvBins));
    long long b = static_cast<long long>(t);
    b = b < 0 ? 0 : (b > kKvBins - 1 ? kKvBins - 1 : b);
    double *h = hist + (i / layerLen) * 3 * kKvBins;
    atomicAdd(h + b, 1.0);
    atomicAdd(h + kKvBins + b, static_cast<double>(y));
    atomicAdd(h + 2 * kKvBins + b, __dmul_rn(static_cast<double>(y), static_cast<double>(y)));
}

__global__ void __launch_bounds__(kThreads) kHistogramSum(const double *hist, long long layers, double *shared)
{
    const long long i = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
    if (i >= 3LL * kKvBins)
        return;
    double s = 0;
    for (long long l = 0; l < layers; ++l)
        s = __dadd_rn(s, hist[l * 3 * kKvBins + i]);
    shared[i] = s;
}

/// One block per array: each thread sums a chunk in order, thread 0 the chunk offsets in order,
/// then each thread writes its chunk's running sums.
__global__ void __launch_bounds__(kThreads) kHistogramPrefix(const double *h, double *prefix)
{
    __shared__ double part[kThreads];
    constexpr int per = kKvBins / kThreads;
    const double *src = h + static_cast<long long>(blockIdx.x) * kKvBins + threadIdx.x * per;
    double *dst = prefix + static_cast<long long>(blockIdx.x) * (kKvBins + 1);
    double s = 0;
    for (int j = 0; j < per; ++j)
        s = __dadd_rn(s, src[j]);
    part[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        double run = 0;
        for (int t = 0; t < kThreads; ++t) {
            const double v = part[t];
            part[t] = run;
            run = __dadd_rn(run, v);
        }
        dst[0] = 0;
    }
    __syncthreads();
    double run = part[threadIdx.x];
    for (int j = 0; j < per; ++j) {
        run = __dadd_rn(run, src[j]);
        dst[threadIdx.x * per + j + 1] = run;
    }
}

/// One block of kvlloyd::kLevels threads per fit: thread i takes level i's step (the levels' cell
/// sums are 16 independent loads), thread 0 the cells, the move, the sort and the MSE — kv_lloyd.h's
/// functions in lloydOnPrefix's order, so the fit has its bits.
__global__ void __launch_bounds__(kvlloyd::kLevels)
    kLloyd(const double *prefix, const double *init, double tol, int maxIterations, kvlloyd::Fit *fits)
{
    constexpr int B = kKvBins, n = kvlloyd::kLevels;
    const double *p0 = prefix + static_cast<long long>(blockIdx.x) * 3 * (B + 1), *p1 = p0 + (B + 1),
                 *p2 = p1 + (B + 1);
    __shared__ double lv[n], mv[n];
    __shared__ int cut[n + 1];
    __shared__ int stop;
    const int i = static_cast<int>(threadIdx.x);
    lv[i] = init[i];
    const double total = p0[B];
    int iterations = 0;
    double maxMove = 0;
    __syncthreads();
    for (int it = 1; it <= maxIterations && total > 0; ++it) {
        if (i == 0)
            kvlloyd::lloydCells(lv, B, cut);
        __syncthreads();
        double nl;
        const bool moved = kvlloyd::lloydLevelStep(p0, p1, cut, i, &nl);
        mv[i] = moved ? fabs(__dadd_rn(nl, -lv[i])) : 0.0; // an empty cell leaves the move as it is
        __syncthreads();
        if (moved)
            lv[i] = nl;
        __syncthreads();
        if (i == 0) {
            double move = 0;
            for (int j = 0; j < n; ++j)
                move = move < mv[j] ? mv[j] : move;
            kvlloyd::lloydSortLevels(lv);
            iterations = it;
            maxMove = move;
            stop = move <= tol;
        }
        __syncthreads();
        if (stop)
            break;
    }
    if (i == 0) {
        kvlloyd::Fit &f = fits[blockIdx.x];
        for (int j = 0; j < n; ++j)
            f.levels[j] = lv[j];
        f.iterations = iterations;
        f.maxMove = maxMove;
        f.mse = kvlloyd::lloydMse(p0, p1, p2, B, lv);
    }
}

__global__ void __launch_bounds__(kThreads)
    kUnroundedHistogram(const float *x, long long groups, long long d, double *h)
{
    const long long gi = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
    const long long perRow = (d + kvmath::kGroup - 1) / kvmath::kGroup;
    if (gi >= groups)
        return;
    const long long row = gi / perRow, g = (gi % perRow) * kvmath::kGroup;
    const long long len = d - g < kvmath::kGroup ? d - g : kvmath::kGroup;
    const float *p = x + row * d + g;
    float m = 0;
    for (long long i = 0; i < len; ++i)
        m = kvmath::maxf(m, qmath::absf(p[i]));
    if (!(m > 0))
        return;
    const double w = __dmul_rn(static_cast<double>(m), static_cast<double>(m));
    for (long long i = 0; i < len; ++i) {
        const double u = __ddiv_rn(static_cast<double>(p[i]), static_cast<double>(m));
        const double t = floor(__dmul_rn(__dmul_rn(__dadd_rn(u, 1.0), 0.5), kKvBins));
        long long b = static_cast<long long>(t);
        b = b < 0 ? 0 : (b > kKvBins - 1 ? kKvBins - 1 : b);
        const double wu = __dmul_rn(w, u);
        atomicAdd(h + b, w);
        atomicAdd(h + kKvBins + b, wu);
        atomicAdd(h + 2 * kKvBins + b, __dmul_rn(wu, u));
    }
}

__global__ void __launch_bounds__(kThreads) kUnroundedCurve(const double *h, const float *fcs, double *sse)
{
    __shared__ double sh[kThreads];
    const float fc = fcs[blockIdx.x];
    double s = 0;
    for (int b = threadIdx.x; b < kKvBins; b += kThreads) {
        const double W = h[b];
        if (W == 0)
            continue;
        const double WU = h[kKvBins + b], WU2 = h[2 * kKvBins + b];
        const double mean = __ddiv_rn(WU, W);
        const double q = __dmul_rn(
            static_cast<double>(fc),
            static_cast<double>(fp4::e2m1RoundValue(static_cast<float>(__ddiv_rn(mean, static_cast<double>(fc))))));
        s = __dadd_rn(s, __dadd_rn(__dadd_rn(WU2, -__dmul_rn(__dmul_rn(2.0, q), WU)), __dmul_rn(__dmul_rn(q, q), W)));
    }
    s = blockSum(s, sh);
    if (threadIdx.x == 0)
        sse[blockIdx.x] = s;
}

__global__ void __launch_bounds__(kSummaryThreads) kAttnSummary(const double *perQuery, int nq, double *out)
{
    __shared__ double rows[kSummaryMaxQ * 4];
    const long long h = blockIdx.x;
    double kl = 0, mx = 0, err = 0, ref = 0;
    for (int q0 = 0; q0 < nq; q0 += kSummaryMaxQ) {
        const int cnt = nq - q0 < kSummaryMaxQ ? nq - q0 : kSummaryMaxQ;
        __syncthreads();
        for (int e = static_cast<int>(threadIdx.x); e < cnt * 4; e += kSummaryThreads)
            rows[e] = perQuery[(h * nq + q0) * 4 + e];
        __syncthreads();
        if (threadIdx.x == 0)
            for (int i = 0; i < cnt; ++i) {
                const double *x = rows + i * 4;
                kl = __dadd_rn(kl, x[0] > 0.0 ? x[0] : 0.0);
                mx = mx < x[1] ? x[1] : mx;
                err = __dadd_rn(err, x[2]);
                ref = __dadd_rn(ref, x[3]);
            }
    }
    if (threadIdx.x == 0) {
        out[h * 4] = kl;
        out[h * 4 + 1] = mx;
        out[h * 4 + 2] = err;
        out[h * 4 + 3] = ref;
    }
}

unsigned blocksFor(long long n)
{
    return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

} // namespace

void kvSegmentSse(const float *x, const float *xh, long long segments, long long segLen, double *partial, double *sse,
                  void *stream)
{
    if (segments <= 0)
        return;
    const auto st = static_cast<qsStream_t>(stream);
    kSegmentSse<<<static_cast<unsigned>(segments * kKvSseChunks), kThreads, 0, st>>>(x, xh, segLen, kKvSseChunks,
                                                                                     partial);
    QS_GPU_CHECK_LAUNCH("kvSegmentSse");
    kSegmentSseSum<<<static_cast<unsigned>((segments + 63) / 64), 64, 0, st>>>(partial, segments, kKvSseChunks, sse);
    QS_GPU_CHECK_LAUNCH("kvSegmentSse sum");
}

void kvAttentionSummary(const double *perQuery, long long heads, int nq, double *out, void *stream)
{
    if (heads <= 0)
        return;
    kAttnSummary<<<static_cast<unsigned>(heads), kSummaryThreads, 0, static_cast<qsStream_t>(stream)>>>(perQuery, nq,
                                                                                                        out);
    QS_GPU_CHECK_LAUNCH("kvAttentionSummary");
}

void kvMoments(const float *x, long long segments, long long segLen, int chunks, const double *mean, double *partial,
               void *stream)
{
    if (segments <= 0 || chunks <= 0)
        return;
    kMoments<<<static_cast<unsigned>(segments * chunks), kThreads, 0, static_cast<qsStream_t>(stream)>>>(
        x, segLen, chunks, mean, partial);
    QS_GPU_CHECK_LAUNCH("kvMoments");
}

void kvSegmentMeans(const double *partial, long long segments, int chunks, long long segLen, double *mean, void *stream)
{
    if (segments <= 0)
        return;
    kSegmentMeans<<<static_cast<unsigned>((segments + 63) / 64), 64, 0, static_cast<qsStream_t>(stream)>>>(
        partial, segments, chunks, segLen, mean);
    QS_GPU_CHECK_LAUNCH("kvSegmentMeans");
}

void kvUnitHistogram(const float *u, long long layers, long long layerLen, double *hist, void *stream)
{
    const long long n = layers * layerLen;
    if (n <= 0)
        return;
    kUnitHistogram<<<blocksFor(n), kThreads, 0, static_cast<qsStream_t>(stream)>>>(u, n, layerLen, hist);
    QS_GPU_CHECK_LAUNCH("kvUnitHistogram");
}

void kvHistogramSum(const double *hist, long long layers, double *shared, void *stream)
{
    kHistogramSum<<<blocksFor(3LL * kKvBins), kThreads, 0, static_cast<qsStream_t>(stream)>>>(hist, layers, shared);
    QS_GPU_CHECK_LAUNCH("kvHistogramSum");
}

void kvHistogramPrefix(const double *h, long long arrays, double *prefix, void *stream)
{
    if (arrays <= 0)
        return;
    kHistogramPrefix<<<static_cast<unsigned>(arrays), kThreads, 0, static_cast<qsStream_t>(stream)>>>(h, prefix);
    QS_GPU_CHECK_LAUNCH("kvHistogramPrefix");
}

void kvLloyd(const double *prefix, int count, const double *init, double tol, int maxIterations, kvlloyd::Fit *fits,
             void *stream)
{
    if (count <= 0)
        return;
    kLloyd<<<static_cast<unsigned>(count), kvlloyd::kLevels, 0, static_cast<qsStream_t>(stream)>>>(prefix, init, tol,
                                                                                                   maxIterations, fits);
    QS_GPU_CHECK_LAUNCH("kvLloyd");
}

void kvUnroundedHistogram(const float *x, long long rows, long long d, double *h, void *stream)
{
    const long long groups = rows * ((d + kvmath::kGroup - 1) / kvmath::kGroup);
    if (groups <= 0)
        return;
    kUnroundedHistogram<<<blocksFor(groups), kThreads, 0, static_cast<qsStream_t>(stream)>>>(x, groups, d, h);
    QS_GPU_CHECK_LAUNCH("kvUnroundedHistogram");
}

void kvUnroundedCurve(const double *h, const float *fc, int count, double *sse, void *stream)
{
    if (count <= 0)
        return;
    kUnroundedCurve<<<static_cast<unsigned>(count), kThreads, 0, static_cast<qsStream_t>(stream)>>>(h, fc, sse);
    QS_GPU_CHECK_LAUNCH("kvUnroundedCurve");
}

} // namespace quantscope::gpu::launch
