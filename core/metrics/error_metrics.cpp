// SPDX-License-Identifier: MIT
#include "metrics/error_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "util/error.h"
#include "util/parallel.h"

namespace quantscope {

int Histogram::binOf(double x) const
{
    const int B = static_cast<int>(counts.size());
    if (x < lo)
        return -1;
    if (x > hi)
        return B;
    if (x == hi || hi == lo)
        return x == hi && hi != lo ? B - 1 : 0;
    const auto b = static_cast<int>(std::floor((x - lo) * B / (hi - lo)));
    return std::min(b, B - 1);
}

double percentileFromBins(const std::vector<std::int64_t> &bins, double maxAbs, double p, std::int64_t n)
{
    if (n == 0 || maxAbs == 0)
        return 0.0;
    const double target = p * static_cast<double>(n);
    std::int64_t cum = 0;
    const auto B = static_cast<int>(bins.size());
    for (int b = 0; b < B; ++b) {
        cum += bins[static_cast<std::size_t>(b)];
        if (static_cast<double>(cum) >= target)
            return maxAbs * (b + 1) / B;
    }
    return maxAbs;
}

namespace {

struct Sums {
    std::int64_t counted = 0;
    double se = 0, sx = 0, sy = 0, sxy = 0;
    double maxAbs = 0;
    double emin = std::numeric_limits<double>::infinity();
    double emax = -std::numeric_limits<double>::infinity();
};

double symlogMap(double x, double t) { return std::copysign(std::log10(1.0 + std::abs(x) / t), x); }

} // namespace

ErrorMetrics computeErrorMetrics(const Tensor &w, std::span<const float> wHat,
                                 const ErrorMetricsOptions &options, const CancelToken *cancel)
{
    ErrorMetrics m;
    m.numel = w.numel();
    if (static_cast<std::int64_t>(wHat.size()) != m.numel)
        throw UnsupportedError("Ŵ has " + std::to_string(wHat.size()) + " elements, W has " +
                               std::to_string(m.numel));
    StatsOptions so;
    so.miloStd = options.miloStd;
    so.threads = options.threads;
    m.statsIn = computeStats(w, so, cancel);
    const Tensor wHatView = Tensor::borrow(DType::F32, w.shape(),
                                           reinterpret_cast<const std::byte *>(wHat.data()), nullptr);
    m.statsOut = computeStats(wHatView, so, cancel);

    const int threads = resolveThreads(options.threads);
    const std::int64_t n = m.numel;
    constexpr std::int64_t kChunk = 1 << 14;
    const std::int64_t chunks = (n + kChunk - 1) / kChunk;
    const int parts = static_cast<int>(std::clamp<std::int64_t>(chunks, 1, threads));

    // Pass 1: error sums and extremes.
    std::vector<Sums> sums(static_cast<std::size_t>(parts));
    parallelSlices(chunks, parts, cancel, [&](int p, std::int64_t c0, std::int64_t c1) {
        std::vector<float> buf(static_cast<std::size_t>(kChunk));
        Sums &s = sums[static_cast<std::size_t>(p)];
        for (std::int64_t c = c0; c < c1; ++c) {
            if (cancel)
                cancel->check();
            const std::int64_t first = c * kChunk, len = std::min(kChunk, n - first);
            w.decodeRange(first, std::span<float>(buf.data(), static_cast<std::size_t>(len)));
            for (std::int64_t i = 0; i < len; ++i) {
                const double x = buf[static_cast<std::size_t>(i)];
                if (!std::isfinite(x))
                    continue;
                const double y = wHat[static_cast<std::size_t>(first + i)];
                const double e = x - y;
                ++s.counted;
                s.se += e * e;
                s.sx += x * x;
                s.sy += y * y;
                s.sxy += x * y;
                s.maxAbs = std::max(s.maxAbs, std::abs(e));
                s.emin = std::min(s.emin, e);
                s.emax = std::max(s.emax, e);
            }
        }
    });
    Sums t;
    for (const auto &s : sums) {
        t.counted += s.counted;
        t.se += s.se;
        t.sx += s.sx;
        t.sy += s.sy;
        t.sxy += s.sxy;
        t.maxAbs = std::max(t.maxAbs, s.maxAbs);
        t.emin = std::min(t.emin, s.emin);
        t.emax = std::max(t.emax, s.emax);
    }
    m.counted = t.counted;
    if (t.counted > 0) {
        m.mse = t.se / static_cast<double>(t.counted);
        m.rmse = std::sqrt(m.mse);
        m.sqnrDb = t.se == 0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(t.sx / t.se);
        m.relFrobenius = t.sx == 0 ? (t.se == 0 ? 0.0 : std::numeric_limits<double>::infinity())
                                   : std::sqrt(t.se / t.sx);
        m.maxAbsErr = t.maxAbs;
        if (t.sx > 0 && t.sy > 0)
            m.cosine = t.sxy / (std::sqrt(t.sx) * std::sqrt(t.sy));
    } else {
        t.emin = t.emax = 0;
    }

    // Histogram ranges.
    const double amax = m.statsIn.absmax;
    auto setup = [&](Histogram &h, double lo, double hi, bool symlog) {
        h.symlog = symlog && amax > 0;
        h.t = 1e-3 * amax;
        h.lo = h.symlog ? symlogMap(lo, h.t) : lo;
        h.hi = h.symlog ? symlogMap(hi, h.t) : hi;
        h.counts.assign(static_cast<std::size_t>(std::max(options.bins, 1)), 0);
    };
    const double lo = options.lo.value_or(m.statsIn.finiteCount ? m.statsIn.min : 0.0);
    const double hi = options.hi.value_or(m.statsIn.finiteCount ? m.statsIn.max : 0.0);
    setup(m.w, lo, hi, options.symlog);
    setup(m.wHat, lo, hi, options.symlog);
    setup(m.err, t.emin, t.emax, false);
    m.absErrBins.assign(kPercentileBins, 0);

    // Pass 2: the four histograms (integer counts: exact whatever the split).
    struct Local {
        std::vector<std::int64_t> w, wh, e, a;
        std::int64_t wb = 0, wa = 0, hb = 0, ha = 0, eb = 0, ea = 0;
    };
    std::vector<Local> locals(static_cast<std::size_t>(parts));
    parallelSlices(chunks, parts, cancel, [&](int p, std::int64_t c0, std::int64_t c1) {
        Local &L = locals[static_cast<std::size_t>(p)];
        L.w.assign(m.w.counts.size(), 0);
        L.wh.assign(m.wHat.counts.size(), 0);
        L.e.assign(m.err.counts.size(), 0);
        L.a.assign(kPercentileBins, 0);
        const int B = static_cast<int>(m.w.counts.size());
        const int BE = static_cast<int>(m.err.counts.size());
        std::vector<float> buf(static_cast<std::size_t>(kChunk));
        auto put = [](std::vector<std::int64_t> &v, int b, int B, std::int64_t &below, std::int64_t &above) {
            if (b < 0)
                ++below;
            else if (b >= B)
                ++above;
            else
                ++v[static_cast<std::size_t>(b)];
        };
        for (std::int64_t c = c0; c < c1; ++c) {
            if (cancel)
                cancel->check();
            const std::int64_t first = c * kChunk, len = std::min(kChunk, n - first);
            w.decodeRange(first, std::span<float>(buf.data(), static_cast<std::size_t>(len)));
            for (std::int64_t i = 0; i < len; ++i) {
                const double x = buf[static_cast<std::size_t>(i)];
                if (!std::isfinite(x))
                    continue;
                const double y = wHat[static_cast<std::size_t>(first + i)];
                const double e = x - y;
                const double xm = m.w.symlog ? symlogMap(x, m.w.t) : x;
                const double ym = m.wHat.symlog ? symlogMap(y, m.wHat.t) : y;
                put(L.w, m.w.binOf(xm), B, L.wb, L.wa);
                put(L.wh, m.wHat.binOf(ym), B, L.hb, L.ha);
                put(L.e, m.err.binOf(e), BE, L.eb, L.ea);
                if (t.maxAbs > 0) {
                    const double ae = std::abs(e);
                    const int b = ae >= t.maxAbs ? kPercentileBins - 1
                                                 : static_cast<int>(std::floor(ae * kPercentileBins / t.maxAbs));
                    ++L.a[static_cast<std::size_t>(std::min(b, kPercentileBins - 1))];
                } else {
                    ++L.a[0];
                }
            }
        }
    });
    for (const auto &L : locals) {
        if (L.w.empty())
            continue;
        for (std::size_t i = 0; i < L.w.size(); ++i) {
            m.w.counts[i] += L.w[i];
            m.wHat.counts[i] += L.wh[i];
        }
        for (std::size_t i = 0; i < L.e.size(); ++i)
            m.err.counts[i] += L.e[i];
        for (std::size_t i = 0; i < L.a.size(); ++i)
            m.absErrBins[i] += L.a[i];
        m.w.below += L.wb;
        m.w.above += L.wa;
        m.wHat.below += L.hb;
        m.wHat.above += L.ha;
        m.err.below += L.eb;
        m.err.above += L.ea;
    }
    m.errP50 = percentileFromBins(m.absErrBins, t.maxAbs, 0.50, t.counted);
    m.errP90 = percentileFromBins(m.absErrBins, t.maxAbs, 0.90, t.counted);
    m.errP99 = percentileFromBins(m.absErrBins, t.maxAbs, 0.99, t.counted);
    m.errP999 = percentileFromBins(m.absErrBins, t.maxAbs, 0.999, t.counted);
    if (t.counted > 0) {
        double ov = 0;
        for (std::size_t i = 0; i < m.w.counts.size(); ++i)
            ov += static_cast<double>(std::min(m.w.counts[i], m.wHat.counts[i]));
        m.overlap = ov / static_cast<double>(t.counted);
    }
    return m;
}

} // namespace quantscope
