// SPDX-License-Identifier: MIT
#include "numeric/moments.h"

#include "util/parallel.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <thread>
#include <vector>

namespace quantscope {

namespace {

constexpr std::int64_t kChunk = 1 << 16;

struct Partial {
    std::int64_t finite = 0, nan = 0, inf = 0;
    double min = std::numeric_limits<double>::infinity();
    double max = -std::numeric_limits<double>::infinity();
    double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
};

/// Calls fn(part, first, buf) for each chunk of kChunk elements, the chunks split into
/// contiguous slices over `parts` threads (the split, hence the partial sums, is reproducible).
template <typename Fn> void parallelChunks(std::int64_t numel, int parts, const CancelToken *cancel, Fn &&fn)
{
    const std::int64_t chunks = (numel + kChunk - 1) / kChunk;
    parallelSlices(chunks, parts, cancel, [&](int p, std::int64_t c0, std::int64_t c1) {
        std::vector<float> buf(static_cast<std::size_t>(std::min(kChunk, numel)));
        for (std::int64_t c = c0; c < c1; ++c) {
            if (cancel)
                cancel->check();
            const std::int64_t first = c * kChunk;
            const std::int64_t n = std::min(kChunk, numel - first);
            fn(p, first, std::span<float>(buf.data(), static_cast<std::size_t>(n)));
        }
    });
}

} // namespace

TensorStats computeStats(const Tensor &t, const StatsOptions &options, const CancelToken *cancel)
{
    TensorStats st;
    st.numel = t.numel();
    if (st.numel == 0)
        return st;
    const int threads = resolveThreads(options.threads);
    const std::int64_t chunks = (st.numel + kChunk - 1) / kChunk;
    const int nt = static_cast<int>(std::clamp<std::int64_t>(chunks, 1, threads));

    // Pass 1: counts, extremes, sum.
    std::vector<Partial> parts(static_cast<std::size_t>(nt));
    parallelChunks(st.numel, nt, cancel, [&](int w, std::int64_t first, std::span<float> buf) {
        t.decodeRange(first, buf);
        Partial &p = parts[static_cast<std::size_t>(w)];
        for (float f : buf) {
            if (std::isnan(f)) {
                ++p.nan;
            } else if (std::isinf(f)) {
                ++p.inf;
            } else {
                const double x = f;
                ++p.finite;
                p.s1 += x;
                p.min = std::min(p.min, x);
                p.max = std::max(p.max, x);
            }
        }
    });
    double s1 = 0;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const auto &p : parts) {
        st.finiteCount += p.finite;
        st.nanCount += p.nan;
        st.infCount += p.inf;
        s1 += p.s1;
        lo = std::min(lo, p.min);
        hi = std::max(hi, p.max);
    }
    if (st.finiteCount == 0)
        return st;
    st.min = lo;
    st.max = hi;
    st.absmax = std::max(std::abs(lo), std::abs(hi));
    const double n = static_cast<double>(st.finiteCount);
    st.mean = s1 / n;

    // Pass 2: central moments around the FP64 mean.
    for (auto &p : parts)
        p.s2 = p.s3 = p.s4 = 0;
    parallelChunks(st.numel, nt, cancel, [&](int w, std::int64_t first, std::span<float> buf) {
        t.decodeRange(first, buf);
        Partial &p = parts[static_cast<std::size_t>(w)];
        for (float f : buf) {
            if (!std::isfinite(f))
                continue;
            const double d = static_cast<double>(f) - st.mean;
            const double d2 = d * d;
            p.s2 += d2;
            p.s3 += d2 * d;
            p.s4 += d2 * d2;
        }
    });
    double s2 = 0, s3 = 0, s4 = 0;
    for (const auto &p : parts) {
        s2 += p.s2;
        s3 += p.s3;
        s4 += p.s4;
    }
    const double m2 = s2 / n, m3 = s3 / n, m4 = s4 / n;
    st.std = options.miloStd ? (st.finiteCount > 1 ? std::sqrt(s2 / (n - 1)) : 0.0) : std::sqrt(m2);
    if (m2 > 0) {
        st.skewness = m3 / std::pow(m2, 1.5);
        st.excessKurtosis = m4 / (m2 * m2) - 3.0;
    }
    return st;
}

} // namespace quantscope
