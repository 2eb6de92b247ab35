// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_kv.h
/// Launchers of the KV-cache lab's kernels (kv_lab.cu; docs/numerics.md "KV-cache lab"). A cache
/// is one FP32 array [L, Hkv, T, d] (all layers); a "segment" is one (layer, KV head): T·d values.
/// Every launch covers all layers and heads. Plain C++: device pointers, the stream as void*;
/// every launcher checks the launch and throws GpuError.
#include <cstdint>

#include "kv/kv_lloyd.h"

namespace quantscope::gpu::launch {

/// The largest head dimension the row kernels take (one row of scratch per thread).
inline constexpr int kKvMaxDim = 256;

/// amax[s] = max |x| over segment s (segments of segLen values): exact (max is order-free).
void kvAbsmax(const float *x, long long segments, long long segLen, float *amax, void *stream);

/// out[r] = x[r] scaled to unit length (kv_math.h unitRow), every row of d.
void kvUnitRows(const float *x, long long rows, long long d, float *out, void *stream);

/// Per-layer mode word of kvQuantize: the method (kv_schemes.h KvMethod as an integer) in the low
/// byte, then the flags below.
enum KvModeFlag : int {
    kKvRotate = 1 << 8,     ///< codebook: rotate (not `norot`)
    kKvUnrounded = 1 << 9,  ///< constOpt: FP32 scales
    kKvPerChannel = 1 << 10 ///< INT4 on K: groups of 32 tokens per channel (else per token)
};

struct KvQuantArgs {
    long long layers = 0, heads = 0, tokens = 0, dim = 0;
    int block = 0; ///< the rotation block b
    float r = 0;   ///< hadamardNorm(b)
    const float *x = nullptr;
    float *out = nullptr;
    const int *mode = nullptr;                        ///< [L]
    const float *param = nullptr;                     ///< [L·Hkv]: FP8 s, NVFP4 global, constOpt fc
    const float *levels = nullptr, *bounds = nullptr; ///< codebook [L·16], [L·15]
};
/// x̂ of every layer by its mode, kv_math.h's functions (the CPU's bits).
void kvQuantize(const KvQuantArgs &a, void *stream);

/// sse[s] = Σ (x − x̂)² over segment s in FP64: kKvSseChunks chunks per segment, each a fixed
/// reduction tree, added in order (the same bits every run). partial: segments·kKvSseChunks.
/// xh == nullptr: Σx².
inline constexpr int kKvSseChunks = 16;
void kvSegmentSse(const float *x, const float *xh, long long segments, long long segLen, double *partial, double *sse,
                  void *stream);

struct KvAttnArgs {
    long long layers = 0, kvHeads = 0, heads = 0, tokens = 0, dim = 0;
    long long queries = 0; ///< query rows per head in q (the evaluated ones only, or all Q)
    double scale = 0;      ///< 1/√d (FP64, as the CPU)
    int nq = 0;            ///< evaluated queries per head
    const long long *qIdx = nullptr, *start = nullptr, *count = nullptr, *offset = nullptr; ///< [nq]
    const long long *qRow = nullptr;        ///< [nq]: query i's row in q
    long long perHead = 0;                  ///< Σ count: the length of one head's score buffers
    const float *q = nullptr;               ///< [L, H, queries, d]
    const float *k = nullptr, *v = nullptr; ///< the cache used: [L, Hkv, T, d]
    double *lp = nullptr, *p = nullptr;     ///< reference log P and P [L·H·perHead]
    double *o = nullptr;                    ///< reference outputs [L·H·nq·d]
    double *lq = nullptr;                   ///< scratch [L·H·perHead]
    double *perQuery = nullptr;             ///< [L·H·nq·4]: KL, max |P − P̂|, Σ(o − ô)², Σo²
};
/// The reference side (k, v the captured caches): lp, p and o.
void kvAttentionRef(const KvAttnArgs &a, void *stream);
/// The quantized side (k, v = K̂, V̂) against the reference: perQuery.
void kvAttentionErr(const KvAttnArgs &a, void *stream);
/// Per (layer, query head) h of heads: over its nq queries in order, out[h·4 + …] = Σ max(0, KL),
/// max of the max |P − P̂|, Σ Σ(o − ô)², Σ Σo² (perQuery's rows; the host's order and bits).
void kvAttentionSummary(const double *perQuery, long long heads, int nq, double *out, void *stream);

// ---- the lab's preparation on the device (kv_lab.cpp phases "prepare", "codebooks", "c_sweep") ----

/// *out = max over rows with ‖x‖ > 0 of |‖y‖ − ‖x‖| / ‖x‖, both norms summed in FP64 in channel
/// order (kv_lab.cpp's rule): the CPU's bits (a max of identical per-row values). *out starts at 0.
void kvNormChange(const float *x, const float *y, long long rows, long long d, double *out, void *stream);

/// FP64 partial sums of segment s over `chunks` equal chunks, into partial[(s·chunks + c)·2 + k]:
/// mean == nullptr: k = 0 Σx; else with e = x − mean[s]: k = 0 Σe², k = 1 Σe⁴ (a fixed tree per
/// chunk; the caller adds the chunks in order).
void kvMoments(const float *x, long long segments, long long segLen, int chunks, const double *mean, double *partial,
               void *stream);
/// mean[s] = (Σ_c partial[(s·chunks + c)·2] in chunk order) / segLen: kvMoments' first pass to
/// the means of its second, on the device (the host's op sequence and bits).
void kvSegmentMeans(const double *partial, long long segments, int chunks, long long segLen, double *mean,
                    void *stream);

/// Bins of KvUnitHistogram (kv_codebook.h: 2^16 over [−1, 1]) per layer of u [layers, layerLen]:
/// hist[(l·3 + k)·B + b], k = 0 count, 1 Σy, 2 Σy² (FP64 atomics: the counts exact, the sums
/// within rounding of the CPU's). hist must be zeroed.
inline constexpr int kKvBins = 1 << 16;
void kvUnitHistogram(const float *u, long long layers, long long layerLen, double *hist, void *stream);
/// shared[k·B + b] = Σ_l hist[(l·3 + k)·B + b] in layer order.
void kvHistogramSum(const double *hist, long long layers, double *shared, void *stream);
/// Prefix sums of `arrays` arrays of B bins: prefix[a·(B + 1) + i + 1] = Σ_{j ≤ i} h[a·B + j].
void kvHistogramPrefix(const double *h, long long arrays, double *prefix, void *stream);
/// Lloyd fits (kv_lloyd.h) on `count` histograms' prefix sums (3 arrays each), one thread each.
void kvLloyd(const double *prefix, int count, const double *init, double tol, int maxIterations, kvlloyd::Fit *fits,
             void *stream);

/// kv_lab.cpp's unrounded constOpt curve: bins of u = x/m weighted by w = m² over groups of 32
/// along d of x [rows, d] (m = the group's max |x|): h[k·B + b], k = 0 Σw, 1 Σw·u, 2 Σw·u²
/// (atomics); then sse[i] = Σ_b over non-empty bins of the fc[i] code's error (a fixed tree).
void kvUnroundedHistogram(const float *x, long long rows, long long d, double *h, void *stream);
void kvUnroundedCurve(const double *h, const float *fc, int count, double *sse, void *stream);

} // namespace quantscope::gpu::launch
