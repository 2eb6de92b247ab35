// SPDX-License-Identifier: MIT
#pragma once
/// \file kv_attention.h
/// The KV lab's attention errors on the CPU (docs/numerics.md "KV-cache lab"): the reference side
/// of one query head (its evaluated queries' causal key ranges, P, log P and o = P·V, computed once
/// per layer), and the errors of a dequantized K̂/V̂ against it. The scores of one query are
/// computed for blocks of 8 keys at once (K̂ transposed into tiles, shared by the query heads of one
/// KV head), each score with the same FP64 op sequence as a single dot (four partial sums over the
/// channels); exp is kvExp, a vectorisable FP64 exp within 2 ulp of std::exp.
#include <cstdint>
#include <vector>

#include "kv/kv_lab.h"

namespace quantscope {

/// exp(x) in FP64 for finite x (0 below −746, +Inf above 709.79): range reduction by ln 2 (split in
/// two), a degree-13 polynomial, scaling by 2^k in two steps (subnormal results rounded once);
/// within 2 ulp of std::exp. y[i] = exp(x[i]); x == y allowed.
void kvExp(const double *x, double *y, std::int64_t n);

/// K̂ (or K) of one KV head transposed into tiles of 8 keys, FP64: tile t holds keys 8t … 8t+7 as
/// [d][8]; keys past the end are 0; and V̂ (or V) as FP64 rows. Built once per (scheme, KV head)
/// and read by its query heads.
struct KvKeyTiles {
    std::int64_t d = 0, keys = 0;
    std::vector<double> t, values;
    /// Fills the tiles from rows [0, keys) of k (row-major [·, d]).
    void build(const float *k, std::int64_t keys, std::int64_t d);
    /// Fills `values` from rows [0, keys) of v (after build).
    void buildValues(const float *v);
};

/// The reference side of one query head: per evaluated query its causal key range, P, log P and
/// o = P·V (FP64).
struct KvAttnRef {
    std::int64_t d = 0, keyEnd = 0; ///< keyEnd: one past the last key any query reads
    std::vector<std::int64_t> start, count;
    std::vector<std::size_t> offset; ///< into p and lp
    std::vector<double> q, p, lp, o; ///< q [queries, d] as FP64, o [queries, d]
};

/// Per-thread buffers of the attention errors.
struct KvAttnScratch {
    std::vector<double> z, e, o;
};

/// The causal key range of query row i: [start, start + count) (count ≤ 0: no key).
void kvCausalRange(std::int64_t i, std::int64_t T, std::int64_t segment, std::int64_t &start, std::int64_t &count);

/// One past the last key the evaluated `rows` read.
std::int64_t kvKeyEnd(std::int64_t T, std::int64_t segment, const std::vector<std::int64_t> &rows);

/// The reference of one query head: q [Q, d]; `kv` = tiles of K and V (kvKeyEnd keys).
KvAttnRef kvAttnRef(const float *q, const KvKeyTiles &kv, std::int64_t T, std::int64_t segment,
                    const std::vector<std::int64_t> &rows);

/// kvAttnRef for `heads` query heads sharing one KV head (q[h] of each, the same evaluated rows):
/// three at a time share each load of K and V; the same values as one by one.
std::vector<KvAttnRef> kvAttnRefGroup(const float *const *q, std::int64_t heads, const KvKeyTiles &kv, std::int64_t T,
                                      std::int64_t segment, const std::vector<std::int64_t> &rows);

/// The attention errors of K̂ and V̂ (as tiles) against the reference.
KvAttentionError kvAttnAgainst(const KvAttnRef &ref, const KvKeyTiles &kvq, KvAttnScratch &scratch);

/// kvAttnAgainst for `heads` query heads sharing one KV head (their references made from the same
/// evaluated rows): three at a time share each load of K̂ and V̂; the same results as one by one.
/// With values2 (FP64 rows of another V̂, as KvKeyTiles::values), out2 gets K̂'s errors with that
/// V̂ from the same scores — what a separate call on tiles of K̂ and values2 gives, bit for bit.
void kvAttnAgainstGroup(const KvAttnRef *const *refs, std::int64_t heads, const KvKeyTiles &kvq, KvAttnScratch &scratch,
                        KvAttentionError *out, const std::vector<double> *values2 = nullptr,
                        KvAttentionError *out2 = nullptr);

} // namespace quantscope
