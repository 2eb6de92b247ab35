// SPDX-License-Identifier: MIT
#include "kv/kv_lab_parts.h"

#include <algorithm>
#include <cmath>

#include "kv/kv_rows_cpu.h"
#include "quant/constopt_sweep.h"

namespace quantscope::kvlab {

std::vector<double> grid(double lo, double hi, double step)
{
    std::vector<double> c;
    const auto n = static_cast<std::int64_t>(std::llround((hi - lo) / step));
    for (std::int64_t i = 0; i <= n; ++i)
        c.push_back(lo + static_cast<double>(i) * step);
    return c;
}

std::size_t argmin(const std::vector<double> &v)
{
    return static_cast<std::size_t>(std::min_element(v.begin(), v.end()) - v.begin());
}

/// constOpt pow2 MSE over an ascending grid on a rotated [rows, d] matrix (groups of 32 along
/// d): the sweep's own evaluator (constopt_sweep.h), whose pow2 curve is one pass over the groups.
std::vector<double> pow2Curve(std::span<const float> x, std::int64_t d, const std::vector<double> &cs, int threads)
{
    return makeCpuSweepEvaluator(x, static_cast<std::int64_t>(x.size()) / d, d, 32, ConstOptEncoder::Pow2,
                                 static_cast<float>(cs.front()), static_cast<float>(cs.back()), threads)
        ->mse(cs, nullptr);
}

/// constOpt unrounded (s = fc·m) MSE over the grid on a rotated [rows, d] matrix, from a
/// 65536-bin histogram of u = x/m weighted by m² (W, Σw·u, Σw·u² per bin): a bin's elements share
/// one code at a given fc unless an E2M1 rounding threshold falls inside it, so Σw(u − fc·q)² is
/// exact per bin from its three sums; a bin straddling a threshold is coded at its weighted mean.
std::vector<double> unroundedCurve(std::span<const float> x, std::int64_t d, const std::vector<double> &cs)
{
    constexpr int B = 65536;
    std::vector<double> W(B, 0), WU(B, 0), WU2(B, 0);
    kvfast::unitHistogramAdd(x.data(), static_cast<std::int64_t>(x.size()) / d, d, B, W.data(), WU.data(), WU2.data());
    // The non-empty bins in order, their means (independent of c), then per c the terms 16 at a
    // time and their sum in bin order.
    std::vector<double> nW, nWU, nWU2, mean;
    for (std::size_t b = 0; b < static_cast<std::size_t>(B); ++b)
        if (W[b] != 0) {
            nW.push_back(W[b]);
            nWU.push_back(WU[b]);
            nWU2.push_back(WU2[b]);
            mean.push_back(WU[b] / W[b]);
        }
    // Four values of c at a time: their sums are four independent chains in one loop (each still in
    // bin order), so the adds' latency overlaps.
    const std::size_t n = nW.size();
    std::vector<double> term(4 * n), out;
    for (std::size_t c0 = 0; c0 < cs.size(); c0 += 4) {
        const std::size_t k = std::min<std::size_t>(4, cs.size() - c0);
        for (std::size_t j = 0; j < k; ++j)
            kvfast::unroundedTerms(mean.data(), nW.data(), nWU.data(), nWU2.data(), static_cast<std::int64_t>(n),
                                   static_cast<float>(cs[c0 + j]), term.data() + j * n);
        double sse[4] = {0, 0, 0, 0};
        if (k == 4)
            for (std::size_t i = 0; i < n; ++i) {
                sse[0] += term[i];
                sse[1] += term[n + i];
                sse[2] += term[2 * n + i];
                sse[3] += term[3 * n + i];
            }
        else
            for (std::size_t j = 0; j < k; ++j)
                for (std::size_t i = 0; i < n; ++i)
                    sse[j] += term[j * n + i];
        for (std::size_t j = 0; j < k; ++j)
            out.push_back(std::max(0.0, sse[j]) / static_cast<double>(x.size()));
    }
    return out;
}

double mseOf(const float *a, const float *b, std::int64_t n)
{
    return n ? kvfast::sumSquaredDiff(a, b, n) / static_cast<double>(n) : 0;
}

double meanSquare(const std::vector<float> &x)
{
    double s = 0;
    for (float v : x)
        s += static_cast<double>(v) * v;
    return x.empty() ? 0 : s / static_cast<double>(x.size());
}

/// meanSquare of two arrays of one size: the two sums (each in order) in one loop, so that their
/// adds' latency overlaps.
void meanSquares(const std::vector<float> &a, const std::vector<float> &b, double &ma, double &mb)
{
    if (a.size() != b.size()) {
        ma = meanSquare(a);
        mb = meanSquare(b);
        return;
    }
    double sa = 0, sb = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        sa += static_cast<double>(a[i]) * a[i];
        sb += static_cast<double>(b[i]) * b[i];
    }
    ma = a.empty() ? 0 : sa / static_cast<double>(a.size());
    mb = b.empty() ? 0 : sb / static_cast<double>(b.size());
}

void accumulate(KvAttentionError &sum, const KvAttentionError &e, double &oRef, double &oErr, std::int64_t d)
{
    // kl is a mean over queries: re-weight by queries; outRel from the underlying sums.
    sum.kl += e.kl * static_cast<double>(e.queries);
    sum.scoreMaxErr = std::max(sum.scoreMaxErr, e.scoreMaxErr);
    const double err = e.outMse * static_cast<double>(e.queries * d);
    oErr += err;
    oRef += e.outRel > 0 ? err / e.outRel : 0;
    sum.queries += e.queries;
}

} // namespace quantscope::kvlab
