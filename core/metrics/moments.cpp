// SPDX-License-Identifier: MIT
#include "metrics/moments.h"

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

template <typename Fn>
void parallelChunks(std::int64_t numel, int threads, const CancelToken *cancel, Fn &&fn)
{
    const std::int64_t chunks = (numel + kChunk - 1) / kChunk;
    const int nt = static_cast<int>(std::clamp<std::int64_t>(chunks, 1, threads));
    std::vector<std::thread> pool;
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(nt));
    auto worker = [&](int w) {
        try {
            std::vector<float> buf(static_cast<std::size_t>(std::min(kChunk, numel)));
            // Static interleaved assignment: the order of partial sums is deterministic.
            for (std::int64_t c = w; c < chunks; c += nt) {
                if (cancel)
                    cancel->check();
                const std::int64_t first = c * kChunk;
                const std::int64_t n = std::min(kChunk, numel - first);
                fn(w, first, std::span<float>(buf.data(), static_cast<std::size_t>(n)));
            }
        } catch (...) {
            errors[static_cast<std::size_t>(w)] = std::current_exception();
        }
    };
    for (int w = 1; w < nt; ++w)
        pool.emplace_back(worker, w);
    worker(0);
    for (auto &t : pool)
        t.join();
    for (auto &e : errors)
        if (e)
            std::rethrow_exception(e);
}

} // namespace

TensorStats computeStats(const Tensor &t, const StatsOptions &options, const CancelToken *cancel)
{
    TensorStats st;
    st.numel = t.numel();
    if (st.numel == 0)
        return st;
    const int threads = options.threads > 0
                            ? options.threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
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
