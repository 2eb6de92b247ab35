// SPDX-License-Identifier: MIT
#include "quant/constopt_sweep.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <cmath>

#include "numeric/fixedsum.h"
#include "numeric/fp4math.h"
#include "numeric/moments.h"
#include "numeric/csweep_math.h"
#include "numeric/hadamard.h"
#include "numeric/lanes.h"
#include "quant/mxfp4.h"
#include "quant/quantizer.h"
#include "quant/uniform.h"
#include "util/error.h"
#include "util/parallel.h"

namespace quantscope {

namespace {

struct GroupRef {
    std::int64_t off = 0, len = 0;
    float m = 0;
};

/// The finite groups of rows [r0, r1) of a row-major [R, K] matrix, groups of g along K (last one
/// ragged), appended to out.
void finiteGroupsOf(std::span<const float> x, std::int64_t r0, std::int64_t r1, std::int64_t K, std::int64_t g,
                    std::vector<GroupRef> &out, std::int64_t &nonFinite)
{
    for (std::int64_t r = r0; r < r1; ++r)
        for (std::int64_t c0 = 0; c0 < K; c0 += g) {
            GroupRef ref{r * K + c0, std::min(g, K - c0), 0.0f};
            bool bad = false;
            if (ref.len == 32) { // in lanes: the maximum and the finiteness test do not depend on order
                const float *p = x.data() + ref.off;
                const lanes::v16f a0 = lanes::load16(p), a1 = lanes::load16(p + 16);
                const lanes::v16i f0 = (lanes::bits(a0) & 0x7F800000u) == 0x7F800000u,
                                  f1 = (lanes::bits(a1) & 0x7F800000u) == 0x7F800000u;
                lanes::v16f m = lanes::absv(a0);
                const lanes::v16f m1 = lanes::absv(a1);
                m = m1 > m ? m1 : m;
                for (int l = 0; l < 16; ++l) {
                    bad |= (f0[l] | f1[l]) != 0;
                    ref.m = m[l] > ref.m ? m[l] : ref.m;
                }
                if (bad)
                    ++nonFinite;
                else
                    out.push_back(ref);
                continue;
            }
            for (std::int64_t i = 0; i < ref.len; ++i) {
                const float v = x[static_cast<std::size_t>(ref.off + i)];
                bad |= !qmath::isFinite(v);
                const float a = qmath::absf(v);
                ref.m = a > ref.m ? a : ref.m;
            }
            if (bad)
                ++nonFinite;
            else
                out.push_back(ref);
        }
}

/// The finite groups of a row-major [R, K] matrix in row order; with threads > 1 the rows in
/// slices side by side, their lists joined in order (the same list).
std::vector<GroupRef> finiteGroups(std::span<const float> x, std::int64_t R, std::int64_t K, std::int64_t g,
                                   std::int64_t &nonFinite, int threads = 1)
{
    const int parts = static_cast<int>(std::clamp<std::int64_t>(R / 4096, 1, std::max(threads, 1)));
    std::vector<std::vector<GroupRef>> lists(static_cast<std::size_t>(parts));
    std::vector<std::int64_t> bad(static_cast<std::size_t>(parts), 0);
    parallelSlices(R, parts, nullptr, [&](int p, std::int64_t r0, std::int64_t r1) {
        auto &l = lists[static_cast<std::size_t>(p)];
        l.reserve(static_cast<std::size_t>((r1 - r0) * ((K + g - 1) / g)));
        finiteGroupsOf(x, r0, r1, K, g, l, bad[static_cast<std::size_t>(p)]);
    });
    nonFinite = 0;
    for (const std::int64_t b : bad)
        nonFinite += b;
    if (parts == 1)
        return std::move(lists[0]);
    std::size_t n = 0;
    for (const auto &l : lists)
        n += l.size();
    std::vector<GroupRef> out;
    out.reserve(n);
    for (const auto &l : lists)
        out.insert(out.end(), l.begin(), l.end());
    return out;
}

/// Σ (x − x̂)² of one group at scale s (csweep_math.h: the op order the GPU shares).
double groupSse(const float *x, std::int64_t len, float s)
{
    // A full group at a positive scale in lanes (numeric/lanes.h: the same op sequence and bits).
    if (len == 32 && s > 0.0f)
        return lanes::groupSse32(x, s);
    return csweep::groupSse(csweep::PtrLoad{x}, len, s);
}

/// csweep::pow2Runs's runs (the same (byte, start, end) triples, in order) with each run's end
/// found from an interpolated guess and an exact walk on the same monotone predicate (byte > b)
/// instead of a bisection: on an even grid the guess is within a step.
template <typename F> void pow2RunsWalk(const float *fc, int n, float m, F &&f)
{
    if (n <= 0)
        return;
    const auto byteAt = [&](int i) { return static_cast<int>(fp4::roundLog2Byte(csweep::fmul(fc[i], m))); };
    const int bFirst = byteAt(0), bLast = byteAt(n - 1);
    int start = 0;
    for (int b = bFirst; b <= bLast && start < n; ++b) {
        int end = n;
        if (b != bLast) {
            // The byte exceeds b from fc·m ≈ 2^(b − 127)·√2 on: guess by interpolation, then walk.
            // √2·2^(b − 127), b in [0, 255]: the power of two built from its exponent bits (what
            // std::ldexp gives, without the library call per run).
            const double target = 1.4142135623730951 *
                                  std::bit_cast<double>(static_cast<std::uint64_t>(b - 127 + 1023) << 52) /
                                  static_cast<double>(m);
            const double span = static_cast<double>(fc[n - 1]) - fc[start];
            double g = span > 0 ? start + (target - fc[start]) / span * (n - 1 - start) : start;
            g = std::isfinite(g) ? std::clamp(g, static_cast<double>(start), static_cast<double>(n)) : start;
            int lo = static_cast<int>(g);
            while (lo > start && byteAt(lo - 1) > b)
                --lo;
            while (lo < n && byteAt(lo) <= b)
                ++lo;
            end = lo;
        }
        if (end > start)
            f(b, start, end);
        start = end;
    }
}

/// MSE of a dequantized matrix against x over the given groups.
double mseOver(std::span<const float> x, std::span<const float> xhat, const std::vector<GroupRef> &groups,
               std::int64_t counted)
{
    double e = 0;
    for (const auto &g : groups)
        for (std::int64_t i = g.off; i < g.off + g.len; ++i) {
            const double d = static_cast<double>(x[static_cast<std::size_t>(i)]) - xhat[static_cast<std::size_t>(i)];
            e += d * d;
        }
    return counted ? e / static_cast<double>(counted) : 0.0;
}

class MseEvaluator final : public CSweepGridEvaluator {
public:
    MseEvaluator(std::span<const float> x, std::vector<GroupRef> groups, ConstOptEncoder enc, float fcLo, float fcHi,
                 int threads)
        : m_x(x), m_groups(std::move(groups)), m_enc(enc), m_threads(threads)
    {
        float amax = 0;
        for (const auto &g : m_groups) {
            m_counted += g.len;
            amax = g.m > amax ? g.m : amax;
        }
        m_unit = fixed::fixedUnit(amax, m_counted);
        if (enc != ConstOptEncoder::Pow2)
            return;
        // Per group, the SSE of every scale byte the grid range reaches (a handful: the byte is
        // monotone in c), so that each grid point costs one lookup per group.
        const std::size_t G = m_groups.size();
        m_base.resize(G);
        m_count.resize(G);
        m_start.resize(G + 1, 0);
        parallelSlices(static_cast<std::int64_t>(G), G >= 65536 ? resolveThreads(threads) : 1, nullptr,
                       [&](int, std::int64_t g0, std::int64_t g1) {
                           for (auto i = static_cast<std::size_t>(g0); i < static_cast<std::size_t>(g1); ++i) {
                               m_base[i] = fp4::roundLog2Byte(fcLo * m_groups[i].m);
                               const int top = fp4::roundLog2Byte(fcHi * m_groups[i].m);
                               m_count[i] = std::max(top - m_base[i] + 1, 0);
                           }
                       });
        for (std::size_t i = 0; i < G; ++i)
            m_start[i + 1] = m_start[i] + m_count[i];
        m_sse.resize(static_cast<std::size_t>(m_start[G]));
        parallelSlices(
            static_cast<std::int64_t>(G), resolveThreads(threads), nullptr, [&](int, std::int64_t g0, std::int64_t g1) {
                for (std::int64_t i = g0; i < g1; ++i) {
                    const auto &g = m_groups[static_cast<std::size_t>(i)];
                    for (int k = 0; k < m_count[i]; ++k)
                        m_sse[static_cast<std::size_t>(m_start[i] + k)] = groupSse(
                            m_x.data() + g.off, g.len, fp4::e8m0Scale(static_cast<std::uint8_t>(m_base[i] + k)));
                }
            });
    }

    std::int64_t counted() const { return m_counted; }

    /// One pow2 group's SSE at scale byte b (from the table when the grid range reaches it).
    double sseOfByte(std::size_t i, int b) const
    {
        const auto &g = m_groups[i];
        const int k = b - m_base[i];
        return (k >= 0 && k < m_count[i])
                   ? m_sse[static_cast<std::size_t>(m_start[i] + k)]
                   : groupSse(m_x.data() + g.off, g.len, fp4::e8m0Scale(static_cast<std::uint8_t>(b)));
    }

    /// One group's SSE at fc.
    double sseAt(std::size_t i, float fc) const
    {
        const auto &g = m_groups[i];
        if (m_enc == ConstOptEncoder::Pow2)
            return sseOfByte(i, fp4::roundLog2Byte(fc * g.m));
        return groupSse(m_x.data() + g.off, g.len, constOptScale(g.m, fc, m_enc));
    }

    /// Group i's runs over the ascending fc[0, n) into the difference arrays: each run's fixed-point
    /// SSE (unit u) enters diff at its start and leaves at its end; a run without a fixed-point value
    /// counts in bad the same way (its c become NaN, as in mse(fc)). With diff2, the same runs also
    /// enter diff2/bad2 at unit u2.
    void addGroupRuns(std::size_t i, const float *fc, int n, int u, fixed::U128 *diff, int *bad, int u2 = 0,
                      fixed::U128 *diff2 = nullptr, int *bad2 = nullptr) const
    {
        pow2RunsWalk(fc, n, m_groups[i].m, [&](int b, int a, int e) {
            const double sse = sseOfByte(i, b);
            fixed::U128 k;
            if (!fixed::toFixed(sse, u, k)) {
                ++bad[a];
                --bad[e];
            }
            diff[a] = fixed::add(diff[a], k);
            diff[e] = fixed::add(diff[e], fixed::neg(k));
            if (diff2) {
                if (!fixed::toFixed(sse, u2, k)) {
                    ++bad2[a];
                    --bad2[e];
                }
                diff2[a] = fixed::add(diff2[a], k);
                diff2[e] = fixed::add(diff2[e], fixed::neg(k));
            }
        });
    }

    /// The pow2 curve over an ascending list in one pass over the groups: a group's scale byte
    /// is monotone in fc, so the list splits into runs of one byte (csweep::pow2Runs, as the GPU
    /// does); each run's fixed-point SSE k_g enters a 128-bit difference array at the run's start
    /// and leaves at its end. Integer sums are exact, so every value has the bits mse(fc) gives.
    std::vector<double> pow2Curve(const std::vector<float> &fc, const CancelToken *cancel) const
    {
        const int n = static_cast<int>(fc.size());
        const auto G = static_cast<std::int64_t>(m_groups.size());
        const int parts = static_cast<int>(std::clamp<std::int64_t>(G, 1, resolveThreads(m_threads)));
        std::vector<std::vector<fixed::U128>> diffs(static_cast<std::size_t>(parts),
                                                    std::vector<fixed::U128>(static_cast<std::size_t>(n) + 1));
        // Groups whose SSE has no fixed-point value make the c of their run NaN, as in mse(fc).
        std::vector<std::vector<int>> bads(static_cast<std::size_t>(parts),
                                           std::vector<int>(static_cast<std::size_t>(n) + 1, 0));
        parallelSlices(G, parts, cancel, [&](int part, std::int64_t g0, std::int64_t g1) {
            auto &diff = diffs[static_cast<std::size_t>(part)];
            auto &bad = bads[static_cast<std::size_t>(part)];
            for (std::int64_t i = g0; i < g1; ++i) {
                if (cancel && part == 0 && (i - g0) % 4096 == 0)
                    cancel->stepProgress(static_cast<double>(i - g0) / static_cast<double>(g1 - g0));
                addGroupRuns(static_cast<std::size_t>(i), fc.data(), n, m_unit, diff.data(), bad.data());
            }
        });
        std::vector<double> out(fc.size());
        fixed::U128 run;
        int badRun = 0;
        for (int i = 0; i < n; ++i) {
            for (int p = 0; p < parts; ++p) {
                run = fixed::add(run, diffs[static_cast<std::size_t>(p)][static_cast<std::size_t>(i)]);
                badRun += bads[static_cast<std::size_t>(p)][static_cast<std::size_t>(i)];
            }
            out[static_cast<std::size_t>(i)] = fixed::mean(run, m_unit, m_counted, badRun > 0);
        }
        return out;
    }

    double mse(float fc) const override { return mseParts(fc, resolveThreads(m_threads)); }

    /// Per slice of the rows: its groups (consecutive, as finiteGroups lists them), their count,
    /// largest |x| and fixed-point unit, and the difference-array walk of pow2Curve over them. The
    /// integer sums are exact, so each curve has the bits of an evaluator built on the slice alone.
    std::vector<std::vector<double>> blockCurves(const std::vector<double> &cs, std::int64_t blocks,
                                                 const CancelToken *cancel,
                                                 std::vector<double> *whole = nullptr) const override
    {
        if (m_enc != ConstOptEncoder::Pow2 || blocks < 1 || m_x.size() % static_cast<std::size_t>(blocks) != 0)
            return {};
        std::vector<float> fc(cs.size());
        for (std::size_t i = 0; i < cs.size(); ++i) {
            fc[i] = static_cast<float>(cs[i]);
            if (i > 0 && fc[i] < fc[i - 1])
                return {}; // ascending grids only (the layer curves' grid is)
        }
        const int n = static_cast<int>(fc.size());
        const auto per = static_cast<std::int64_t>(m_x.size()) / blocks;
        // The first group of each slice (groups never cross rows, and slices hold whole rows).
        std::vector<std::size_t> first(static_cast<std::size_t>(blocks) + 1, m_groups.size());
        for (std::int64_t b = blocks - 1; b >= 0; --b) {
            const auto it = std::lower_bound(m_groups.begin(), m_groups.end(), b * per,
                                             [](const GroupRef &g, std::int64_t off) { return g.off < off; });
            first[static_cast<std::size_t>(b)] = static_cast<std::size_t>(it - m_groups.begin());
        }
        std::vector<std::vector<double>> out(static_cast<std::size_t>(blocks));
        // The whole curve's difference arrays per block (unit m_unit): integer sums, so adding them
        // over the blocks in any order gives pow2Curve's.
        std::vector<std::vector<fixed::U128>> wholeDiff(whole ? static_cast<std::size_t>(blocks) : 0);
        std::vector<std::vector<int>> wholeBad(wholeDiff.size());
        parallelForEach(blocks, resolveThreads(m_threads), [&](std::int64_t b) {
            if (cancel)
                cancel->check();
            const std::size_t g0 = first[static_cast<std::size_t>(b)], g1 = first[static_cast<std::size_t>(b) + 1];
            std::int64_t counted = 0;
            float amax = 0;
            for (std::size_t i = g0; i < g1; ++i) {
                counted += m_groups[i].len;
                amax = m_groups[i].m > amax ? m_groups[i].m : amax;
            }
            const int unit = fixed::fixedUnit(amax, counted);
            std::vector<fixed::U128> diff(static_cast<std::size_t>(n) + 1);
            std::vector<int> bad(static_cast<std::size_t>(n) + 1, 0);
            if (whole) {
                auto &wd = wholeDiff[static_cast<std::size_t>(b)];
                auto &wb = wholeBad[static_cast<std::size_t>(b)];
                wd.resize(static_cast<std::size_t>(n) + 1);
                wb.assign(static_cast<std::size_t>(n) + 1, 0);
                for (std::size_t i = g0; i < g1; ++i)
                    addGroupRuns(i, fc.data(), n, unit, diff.data(), bad.data(), m_unit, wd.data(), wb.data());
            } else {
                for (std::size_t i = g0; i < g1; ++i)
                    addGroupRuns(i, fc.data(), n, unit, diff.data(), bad.data());
            }
            auto &curve = out[static_cast<std::size_t>(b)];
            curve.resize(fc.size());
            fixed::U128 run;
            int badRun = 0;
            for (int i = 0; i < n; ++i) {
                run = fixed::add(run, diff[static_cast<std::size_t>(i)]);
                badRun += bad[static_cast<std::size_t>(i)];
                curve[static_cast<std::size_t>(i)] = fixed::mean(run, unit, counted, badRun > 0);
            }
        });
        if (whole) {
            whole->assign(fc.size(), 0.0);
            fixed::U128 run;
            int badRun = 0;
            for (int i = 0; i < n; ++i) {
                for (std::int64_t b = 0; b < blocks; ++b) {
                    run = fixed::add(run, wholeDiff[static_cast<std::size_t>(b)][static_cast<std::size_t>(i)]);
                    badRun += wholeBad[static_cast<std::size_t>(b)][static_cast<std::size_t>(i)];
                }
                (*whole)[static_cast<std::size_t>(i)] = fixed::mean(run, m_unit, m_counted, badRun > 0);
            }
        }
        return out;
    }

    /// MSE at fc with the groups split into `threads` slices: the integer sums are exact, so the
    /// split changes no bit.
    double mseParts(float fc, int threads) const
    {
        const auto G = static_cast<std::int64_t>(m_groups.size());
        const int parts = static_cast<int>(std::clamp<std::int64_t>(G, 1, threads));
        std::vector<fixed::U128> sums(static_cast<std::size_t>(parts));
        std::vector<char> bads(static_cast<std::size_t>(parts), 0);
        parallelSlices(G, parts, nullptr, [&](int part, std::int64_t g0, std::int64_t g1) {
            fixed::U128 sum;
            bool bad = false;
            for (std::int64_t i = g0; i < g1; ++i) {
                fixed::U128 k;
                bad |= !fixed::toFixed(sseAt(static_cast<std::size_t>(i), fc), m_unit, k);
                sum = fixed::add(sum, k);
            }
            sums[static_cast<std::size_t>(part)] = sum;
            bads[static_cast<std::size_t>(part)] = bad;
        });
        fixed::U128 sum;
        bool bad = false;
        for (int p = 0; p < parts; ++p) {
            sum = fixed::add(sum, sums[static_cast<std::size_t>(p)]);
            bad |= bads[static_cast<std::size_t>(p)] != 0;
        }
        return fixed::mean(sum, m_unit, m_counted, bad);
    }

    /// MSE at each c (FP64 values, evaluated at (float)c); threads split the list, each value is
    /// computed whole by one thread (the exact sums do not depend on the split anyway).
    std::vector<double> mse(const std::vector<double> &cs, const CancelToken *cancel) const override
    {
        if (m_enc == ConstOptEncoder::Pow2 && !cs.empty()) {
            // The difference arrays need ascending c: any other order is sorted here and put back
            // (the sums are exact, so each value has its bits whatever the grid around it).
            std::vector<std::size_t> order(cs.size());
            std::iota(order.begin(), order.end(), std::size_t{0});
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                return static_cast<float>(cs[a]) < static_cast<float>(cs[b]);
            });
            std::vector<float> fc(cs.size());
            for (std::size_t i = 0; i < cs.size(); ++i)
                fc[i] = static_cast<float>(cs[order[i]]);
            const std::vector<double> sorted = pow2Curve(fc, cancel);
            std::vector<double> out(cs.size());
            for (std::size_t i = 0; i < cs.size(); ++i)
                out[order[i]] = sorted[i];
            return out;
        }
        std::vector<double> out(cs.size());
        parallelSlices(static_cast<std::int64_t>(cs.size()), resolveThreads(m_threads), cancel,
                       [&](int part, std::int64_t i0, std::int64_t i1) {
                           for (std::int64_t i = i0; i < i1; ++i) {
                               if (cancel && part == 0) // the first slice stands for all
                                   cancel->stepProgress(static_cast<double>(i - i0) / static_cast<double>(i1 - i0));
                               else if (cancel)
                                   cancel->check();
                               out[static_cast<std::size_t>(i)] =
                                   mseParts(static_cast<float>(cs[static_cast<std::size_t>(i)]), 1);
                           }
                       });
        return out;
    }

private:
    std::span<const float> m_x;
    std::vector<GroupRef> m_groups;
    ConstOptEncoder m_enc;
    int m_threads = 0;
    std::int64_t m_counted = 0;
    int m_unit = 0;
    std::vector<int> m_base, m_count;
    std::vector<std::int64_t> m_start;
    std::vector<double> m_sse;
};

} // namespace

LloydMaxResult lloydMaxCodebook(std::span<const float> x, std::int64_t rows, std::int64_t K, std::int64_t group)
{
    std::int64_t nonFinite = 0;
    const auto groups = finiteGroups(x, rows, K, group, nonFinite);
    constexpr int B = 65536;
    std::vector<double> W(B, 0.0), WU(B, 0.0);
    std::int64_t counted = 0;
    for (const auto &g : groups) {
        counted += g.len;
        if (!(g.m > 0.0f))
            continue;
        const double m = g.m, w = m * m;
        for (std::int64_t i = g.off; i < g.off + g.len; ++i) {
            const double u = x[static_cast<std::size_t>(i)] / m;
            const int b = std::clamp(static_cast<int>(std::floor((u + 1.0) * 0.5 * B)), 0, B - 1);
            W[b] += w;
            WU[b] += w * u;
        }
    }
    LloydMaxResult res;
    // Start: the 16 E2M1 values / 6, the two zeros split to ±0.25/6.
    for (int c = 0; c < 16; ++c) {
        double v = fp4::e2m1Value(static_cast<std::uint8_t>(c)) / 6.0;
        if (c == 0)
            v = 0.25 / 6.0;
        if (c == 8)
            v = -0.25 / 6.0;
        res.levels.push_back(v);
    }
    std::sort(res.levels.begin(), res.levels.end());
    std::vector<double> thr(15), sw(16), swu(16);
    for (res.iterations = 0; res.iterations < 1000;) {
        for (int j = 0; j < 15; ++j)
            thr[j] = 0.5 * (res.levels[j] + res.levels[j + 1]);
        std::fill(sw.begin(), sw.end(), 0.0);
        std::fill(swu.begin(), swu.end(), 0.0);
        for (int b = 0; b < B; ++b) {
            if (W[b] <= 0.0)
                continue;
            const double cu = WU[b] / W[b];
            const int j = static_cast<int>(std::upper_bound(thr.begin(), thr.end(), cu) - thr.begin());
            sw[j] += W[b];
            swu[j] += WU[b];
        }
        double moved = 0;
        for (int j = 0; j < 16; ++j)
            if (sw[j] > 0.0) {
                const double nl = swu[j] / sw[j];
                moved = std::max(moved, std::fabs(nl - res.levels[j]));
                res.levels[j] = nl;
            }
        ++res.iterations;
        if (moved <= 1e-12)
            break;
    }
    for (int j = 0; j < 15; ++j)
        thr[j] = 0.5 * (res.levels[j] + res.levels[j + 1]);
    double e = 0;
    for (const auto &g : groups) {
        if (!(g.m > 0.0f))
            continue;
        const double m = g.m;
        for (std::int64_t i = g.off; i < g.off + g.len; ++i) {
            const double xv = x[static_cast<std::size_t>(i)];
            const int j = static_cast<int>(std::upper_bound(thr.begin(), thr.end(), xv / m) - thr.begin());
            const double d = xv - m * res.levels[static_cast<std::size_t>(j)];
            e += d * d;
        }
    }
    res.mse = counted ? e / static_cast<double>(counted) : 0.0;
    return res;
}

namespace {

/// The MSE grid, c*, its interval and the MSE at the default c (res.c holds the grid).
void evaluateGrid(const CSweepGridEvaluator &ev, const CSweepOptions &o, CSweepResult &res, const CancelToken *cancel)
{
    const auto n = static_cast<std::int64_t>(res.c.size());
    res.mse = ev.mse(res.c, cancel);
    const auto best = std::min_element(res.mse.begin(), res.mse.end());
    const std::int64_t iStar = best - res.mse.begin();
    const double minMse = *best;
    res.gridArgmin = res.c[static_cast<std::size_t>(iStar)];
    res.intervalLo = res.intervalHi = res.gridArgmin;
    bool any = false;
    for (std::size_t i = 0; i < res.c.size(); ++i)
        if (res.mse[i] <= (1.0 + 1e-3) * minMse) {
            res.intervalLo = any ? std::min(res.intervalLo, res.c[i]) : res.c[i];
            res.intervalHi = any ? std::max(res.intervalHi, res.c[i]) : res.c[i];
            any = true;
        }

    // Local refinement around the grid argmin.
    res.cStar = res.gridArgmin;
    res.cStarMse = minMse;
    if (o.refinePoints >= 3 && n >= 2) {
        const double a = res.c[static_cast<std::size_t>(std::max<std::int64_t>(iStar - 1, 0))];
        const double b = res.c[static_cast<std::size_t>(std::min<std::int64_t>(iStar + 1, n - 1))];
        std::vector<double> cs;
        for (int j = 0; j < o.refinePoints; ++j)
            cs.push_back(a + (b - a) * j / (o.refinePoints - 1));
        const auto v = ev.mse(cs, cancel);
        const auto rb = std::min_element(v.begin(), v.end());
        if (*rb <= minMse) {
            std::size_t j0 = static_cast<std::size_t>(rb - v.begin()), j1 = j0;
            while (j1 + 1 < v.size() && v[j1 + 1] == *rb)
                ++j1;
            res.cStar = 0.5 * (cs[j0] + cs[j1]);
            res.cStarMse = j0 == j1 ? *rb : ev.mse(static_cast<float>(res.cStar));
        }
    }
    res.mseAtDefault = ev.mse(static_cast<float>(o.defaultC));
}

} // namespace

std::unique_ptr<CSweepGridEvaluator> makeCpuSweepEvaluator(std::span<const float> x, std::int64_t rows, std::int64_t K,
                                                           std::int64_t group, ConstOptEncoder encoder, float fcLo,
                                                           float fcHi, int threads)
{
    std::int64_t nonFinite = 0;
    return std::make_unique<MseEvaluator>(x, finiteGroups(x, rows, K, group, nonFinite, resolveThreads(threads)),
                                          encoder, fcLo, fcHi, threads);
}

CSweepResult sweepC(const Tensor &w, const CSweepOptions &o, const CancelToken *cancel)
{
    if (!(o.lo > 0.0) || !(o.hi > o.lo) || !(o.step > 0.0))
        throw UnsupportedError("the c grid needs 0 < lo < hi and step > 0", Location{{}, o.tensorName, {}});
    const double span = (o.hi - o.lo) / o.step;
    if (span > 1e6)
        throw UnsupportedError("the c grid has more than a million points", Location{{}, o.tensorName, {}});
    if (o.group < 1)
        throw UnsupportedError("group size must be ≥ 1", Location{{}, o.tensorName, {}});
    if (!isDecodable(w.dtype()))
        throw UnsupportedError("cannot sweep " + std::string(nameOf(w.dtype())) + " data",
                               Location{{}, o.tensorName, {}});
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const std::int64_t R = matrixView(w.shape()).first, K = matrixView(w.shape()).second;
    makeLayout(w.shape(), Granularity::Group, o.group, 0, 0, o.strict,
               o.tensorName); // strict check

    CSweepResult res;
    std::vector<float> x(static_cast<std::size_t>(R * K));
    w.decodeTo(x);
    const Tensor xr = [&] {
        if (o.rotate == 0)
            return w;
        checkRotation(o.rotate, K, o.tensorName);
        hadamardRows(x, R, K, o.rotate, o.threads);
        return Tensor::fromFloats({R, K}, x);
    }();
    if (o.rotate != 0) {
        StatsOptions so;
        so.threads = o.threads;
        res.rotatedKurtosis = computeStats(xr, so, cancel).excessKurtosis;
    }
    const auto groups = finiteGroups(x, R, K, o.group, res.nonFiniteGroups);
    res.numel = R * K;
    res.groups = static_cast<std::int64_t>(groups.size()) + res.nonFiniteGroups;

    const std::int64_t n = static_cast<std::int64_t>(std::llround(span)) + 1;
    for (std::int64_t i = 0; i < n; ++i)
        res.c.push_back(o.lo + static_cast<double>(i) * o.step);
    std::int64_t counted = 0;
    for (const auto &g : groups)
        counted += g.len;
    const float fcLo = static_cast<float>(res.c.front()), fcHi = static_cast<float>(res.c.back());
    auto cpuEvaluator = [&] { return std::make_unique<MseEvaluator>(x, groups, o.encoder, fcLo, fcHi, o.threads); };

    // The grid on the chosen device; a GPU that refuses or fails leaves it to the CPU, saying why.
    std::unique_ptr<CSweepGridEvaluator> ev;
    if (o.device && o.device->make) {
        std::string why;
        try {
            ev = o.device->make(w, o, why);
            if (ev)
                res.device = o.device->id;
            else
                res.deviceNote = why.empty() ? "the GPU does not sweep this tensor: computed on the CPU" : why;
        } catch (const GpuError &e) {
            res.deviceNote = std::string("GPU failed (") + e.what() + "): computed on the CPU";
        }
    } else if (o.device) {
        res.deviceNote = o.device->note;
    }
    try {
        evaluateGrid(ev ? *ev : *cpuEvaluator(), o, res, cancel);
    } catch (const GpuError &e) {
        res.device = "cpu";
        res.deviceNote = std::string("GPU failed (") + e.what() + "): computed on the CPU";
        evaluateGrid(*cpuEvaluator(), o, res, cancel);
    }

    // References on the same (rotated) tensor and groups.
    QuantizeOptions qo;
    qo.threads = o.threads;
    qo.tensorName = o.tensorName;
    IntSpec is;
    is.bits = 4;
    is.granularity = Granularity::Group;
    is.group = o.group;
    res.int4Mse = mseOver(x, IntQuantizer(is).quantize(xr, qo, cancel).dequantized, groups, counted);
    MxFp4Spec ms;
    ms.group = o.group;
    res.mxfp4Mse = mseOver(x, MxFp4Quantizer(ms).quantize(xr, qo, cancel).dequantized, groups, counted);
    res.lloydMax = lloydMaxCodebook(x, R, K, o.group);
    return res;
}

} // namespace quantscope
