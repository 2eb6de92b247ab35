// SPDX-License-Identifier: MIT
#pragma once
/// The KV lab's attention errors computed directly in long double (the tests' independent
/// reference for kvAttentionError): causal segments of `seg` keys, scores q·k/√d, P and P̂ by
/// softmax, KL(P‖P̂), max |P − P̂|, o = P·V against ô = P̂·V̂; and the assertions of
/// kvAttentionError's result against it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "kv/kv_lab.h"

namespace quantscope::test {

struct DirectAttention {
    long double kl = 0;     ///< Σ over the queries of KL(P‖P̂)
    long double maxErr = 0; ///< max |P − P̂|
    long double err = 0;    ///< Σ‖o − ô‖²
    long double ref = 0;    ///< Σ‖o‖²
};

inline DirectAttention directAttention(const std::vector<float> &q, const std::vector<float> &k,
                                       const std::vector<float> &v, const std::vector<float> &kq,
                                       const std::vector<float> &vq, std::int64_t d, std::int64_t seg,
                                       const std::vector<std::int64_t> &rows)
{
    DirectAttention r;
    for (const std::int64_t i : rows) {
        const std::int64_t s0 = i / seg * seg;
        std::vector<long double> p, pq;
        long double zs = 0, zqs = 0;
        for (std::int64_t j = s0; j <= i; ++j) {
            long double a = 0, b = 0;
            for (std::int64_t c = 0; c < d; ++c) {
                a += (long double)q[i * d + c] * k[j * d + c];
                b += (long double)q[i * d + c] * kq[j * d + c];
            }
            p.push_back(std::exp(a / std::sqrt((long double)d)));
            pq.push_back(std::exp(b / std::sqrt((long double)d)));
            zs += p.back();
            zqs += pq.back();
        }
        for (std::size_t j = 0; j < p.size(); ++j) {
            p[j] /= zs;
            pq[j] /= zqs;
            r.kl += p[j] * std::log(p[j] / pq[j]);
            r.maxErr = std::max(r.maxErr, std::fabs(p[j] - pq[j]));
        }
        for (std::int64_t c = 0; c < d; ++c) {
            long double o = 0, oq = 0;
            for (std::size_t j = 0; j < p.size(); ++j) {
                o += p[j] * v[(s0 + j) * d + c];
                oq += pq[j] * vq[(s0 + j) * d + c];
            }
            r.err += (o - oq) * (o - oq);
            r.ref += o * o;
        }
    }
    return r;
}

/// kvAttentionError's result `e` on these tensors equals the direct computation: the query count
/// exactly, max |ΔP| and the output MSE to 1e-12, KL and the output relative error to 1e-9 —
/// relative to the mean KL and to the relative error when `relative`, else to the summed KL and
/// absolute.
inline void expectEqualsDirect(const KvAttentionError &e, const std::vector<float> &q, const std::vector<float> &k,
                               const std::vector<float> &v, const std::vector<float> &kq, const std::vector<float> &vq,
                               std::int64_t d, std::int64_t seg, const std::vector<std::int64_t> &rows, bool relative)
{
    const DirectAttention r = directAttention(q, k, v, kq, vq, d, seg, rows);
    const double n = static_cast<double>(rows.size());
    const double kl = static_cast<double>(r.kl / n), outRel = static_cast<double>(r.err / r.ref);
    EXPECT_EQ(e.queries, static_cast<std::int64_t>(rows.size()));
    EXPECT_NEAR(e.kl, kl, 1e-9 * (relative ? kl : static_cast<double>(r.kl)));
    EXPECT_NEAR(e.scoreMaxErr, static_cast<double>(r.maxErr), 1e-12);
    EXPECT_NEAR(e.outRel, outRel, relative ? 1e-9 * outRel : 1e-9);
    EXPECT_NEAR(e.outMse, static_cast<double>(r.err / (n * static_cast<double>(d))), 1e-12);
}

} // namespace quantscope::test
