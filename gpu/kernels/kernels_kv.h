// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_kv.h
/// Launchers of the KV-cache lab's kernels (kv_lab.cu; docs/numerics.md "KV-cache lab"). A cache
/// is one FP32 array [L, Hkv, T, d] (all layers); a "segment" is one (layer, KV head): T·d values.
/// Every launch covers all layers and heads. Plain C++: device pointers, the stream as void*;
/// every launcher checks the launch and throws GpuError.
#include <cstdint>

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

/// sse[s] = Σ (x − x̂)² over segment s in FP64 (a fixed reduction tree: the same bits every run).
void kvSegmentSse(const float *x, const float *xh, long long segments, long long segLen, double *sse, void *stream);

struct KvAttnArgs {
    long long layers = 0, kvHeads = 0, heads = 0, queries = 0, tokens = 0, dim = 0;
    double scale = 0; ///< 1/√d (FP64, as the CPU)
    int nq = 0;       ///< evaluated queries per head
    const long long *qIdx = nullptr, *start = nullptr, *count = nullptr, *offset = nullptr; ///< [nq]
    long long perHead = 0;                  ///< Σ count: the length of one head's score buffers
    const float *q = nullptr;               ///< [L, H, Q, d]
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

} // namespace quantscope::gpu::launch
