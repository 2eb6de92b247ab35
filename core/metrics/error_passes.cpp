// SPDX-License-Identifier: MIT
#include "metrics/error_passes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "tensor/convert.h"
#include "util/parallel.h"

namespace quantscope::detail {

namespace {

/// Four FP64 lanes (GCC/Clang vector extension): lowered to AVX or SSE2 by the compiler,
/// with IEEE semantics per lane (no reassociation, no contraction).
typedef double V4 __attribute__((vector_size(32)));
/// Eight FP64 lanes for the bin computation (AVX-512 where the CPU has it, halves elsewhere).
typedef double V8 __attribute__((vector_size(64)));
typedef std::int64_t V8i __attribute__((vector_size(64)));

inline V4 load4(const double *p)
{
    return V4{p[0], p[1], p[2], p[3]};
}
inline void store4(double *p, V4 v)
{
    for (int l = 0; l < 4; ++l)
        p[l] = v[l];
}

/// One thread slice's share of pass 1, every sum still in its kSumLanes lanes.
struct ErrorPartial {
    std::int64_t counted = 0, xNan = 0, xInf = 0, yNan = 0, yInf = 0, yFinite = 0;
    PowerSums px, py;
    double se[kSumLanes] = {}, sx[kSumLanes] = {}, sy[kSumLanes] = {}, sxy[kSumLanes] = {};
    float xmin = std::numeric_limits<float>::infinity(), xmax = -std::numeric_limits<float>::infinity();
    float ymin = std::numeric_limits<float>::infinity(), ymax = -std::numeric_limits<float>::infinity();
    double emin = std::numeric_limits<double>::infinity(), emax = -std::numeric_limits<double>::infinity();
    double maxAbs = 0;
};

double lanesTotal(const double (&a)[kSumLanes])
{
    double t = 0;
    for (double v : a)
        t += v;
    return t;
}

bool allFinite(const float *p, std::int64_t n)
{
    std::uint32_t bad = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        std::uint32_t u;
        std::memcpy(&u, p + i, 4);
        bad |= static_cast<std::uint32_t>((u & 0x7F800000u) == 0x7F800000u);
    }
    return bad == 0;
}

/// Pass 1 over a chunk whose W and Ŵ are all finite: explicit 4-lane SIMD (GCC vector
/// extensions). Lane l accumulates the elements i ≡ l (mod 4), exactly as the scalar tail does.
void accumulateFiniteChunk(ErrorPartial &P, const float *xs, const float *ys, std::int64_t len,
                           const PowerSumShifts &shifts)
{
    const double shiftX = shifts.x, shiftY = shifts.y;
    P.counted += len;
    P.yFinite += len;
    V4 s1x = load4(P.px.s1), s2x = load4(P.px.s2), s3x = load4(P.px.s3), s4x = load4(P.px.s4);
    V4 s1y = load4(P.py.s1), s2y = load4(P.py.s2), s3y = load4(P.py.s3), s4y = load4(P.py.s4);
    V4 vse = load4(P.se), vsx = load4(P.sx), vsy = load4(P.sy), vsxy = load4(P.sxy);
    const V4 cx = {shiftX, shiftX, shiftX, shiftX}, cy = {shiftY, shiftY, shiftY, shiftY};
    V4 emin = {P.emin, P.emin, P.emin, P.emin}, emax = {P.emax, P.emax, P.emax, P.emax};
    V4 mabs = {P.maxAbs, P.maxAbs, P.maxAbs, P.maxAbs};
    V4 xmn = {P.xmin, P.xmin, P.xmin, P.xmin}, xmx = {P.xmax, P.xmax, P.xmax, P.xmax};
    V4 ymn = {P.ymin, P.ymin, P.ymin, P.ymin}, ymx = {P.ymax, P.ymax, P.ymax, P.ymax};
    std::int64_t i0 = 0;
    for (; i0 + kSumLanes <= len; i0 += kSumLanes) {
        const V4 x = {xs[i0], xs[i0 + 1], xs[i0 + 2], xs[i0 + 3]};
        const V4 y = {ys[i0], ys[i0 + 1], ys[i0 + 2], ys[i0 + 3]};
        const V4 dx = x - cx, dx2 = dx * dx, dy = y - cy, dy2 = dy * dy, e = x - y;
        s1x += dx;
        s2x += dx2;
        s3x += dx2 * dx;
        s4x += dx2 * dx2;
        s1y += dy;
        s2y += dy2;
        s3y += dy2 * dy;
        s4y += dy2 * dy2;
        vse += e * e;
        vsx += x * x;
        vsy += y * y;
        vsxy += x * y;
        const V4 ae = e < 0 ? -e : e;
        emin = e < emin ? e : emin;
        emax = e > emax ? e : emax;
        mabs = ae > mabs ? ae : mabs;
        xmn = x < xmn ? x : xmn;
        xmx = x > xmx ? x : xmx;
        ymn = y < ymn ? y : ymn;
        ymx = y > ymx ? y : ymx;
    }
    store4(P.px.s1, s1x);
    store4(P.px.s2, s2x);
    store4(P.px.s3, s3x);
    store4(P.px.s4, s4x);
    store4(P.py.s1, s1y);
    store4(P.py.s2, s2y);
    store4(P.py.s3, s3y);
    store4(P.py.s4, s4y);
    store4(P.se, vse);
    store4(P.sx, vsx);
    store4(P.sy, vsy);
    store4(P.sxy, vsxy);
    for (int l = 0; l < kSumLanes; ++l) {
        P.emin = std::min(P.emin, emin[l]);
        P.emax = std::max(P.emax, emax[l]);
        P.maxAbs = std::max(P.maxAbs, mabs[l]);
        P.xmin = std::min(P.xmin, static_cast<float>(xmn[l]));
        P.xmax = std::max(P.xmax, static_cast<float>(xmx[l]));
        P.ymin = std::min(P.ymin, static_cast<float>(ymn[l]));
        P.ymax = std::max(P.ymax, static_cast<float>(ymx[l]));
    }
    for (int l = 0; i0 + l < len; ++l) {
        const double x = xs[i0 + l], y = ys[i0 + l];
        const double dx = x - shiftX, dx2 = dx * dx;
        const double dy = y - shiftY, dy2 = dy * dy;
        const double e = x - y;
        P.px.s1[l] += dx;
        P.px.s2[l] += dx2;
        P.px.s3[l] += dx2 * dx;
        P.px.s4[l] += dx2 * dx2;
        P.py.s1[l] += dy;
        P.py.s2[l] += dy2;
        P.py.s3[l] += dy2 * dy;
        P.py.s4[l] += dy2 * dy2;
        P.se[l] += e * e;
        P.sx[l] += x * x;
        P.sy[l] += y * y;
        P.sxy[l] += x * y;
        P.emin = std::min(P.emin, e);
        P.emax = std::max(P.emax, e);
        P.maxAbs = std::max(P.maxAbs, std::abs(e));
        P.xmin = std::min(P.xmin, xs[i0 + l]);
        P.xmax = std::max(P.xmax, xs[i0 + l]);
        P.ymin = std::min(P.ymin, ys[i0 + l]);
        P.ymax = std::max(P.ymax, ys[i0 + l]);
    }
}

/// Pass 1 over a chunk with non-finite values, element by element in the same lanes: a finite
/// Ŵ feeds Ŵ's moments, a finite W feeds W's, and only pairs with both finite feed the error.
void accumulateMixedChunk(ErrorPartial &P, const float *xs, const float *ys, std::int64_t len,
                          const PowerSumShifts &shifts)
{
    const double shiftX = shifts.x, shiftY = shifts.y;
    for (std::int64_t i0 = 0; i0 < len; i0 += kSumLanes) {
        const int lanes = static_cast<int>(std::min<std::int64_t>(kSumLanes, len - i0));
        for (int l = 0; l < lanes; ++l) {
            const float xf = xs[i0 + l], yf = ys[i0 + l];
            const bool yok = std::isfinite(yf);
            P.yNan += std::isnan(yf);
            P.yInf += std::isinf(yf);
            if (yok) {
                ++P.yFinite;
                const double dy = static_cast<double>(yf) - shiftY, dy2 = dy * dy;
                P.py.s1[l] += dy;
                P.py.s2[l] += dy2;
                P.py.s3[l] += dy2 * dy;
                P.py.s4[l] += dy2 * dy2;
                P.ymin = std::min(P.ymin, yf);
                P.ymax = std::max(P.ymax, yf);
            }
            if (!std::isfinite(xf)) {
                P.xNan += std::isnan(xf);
                P.xInf += std::isinf(xf);
                continue;
            }
            const double x = xf, y = yf;
            const double dx = x - shiftX, dx2 = dx * dx;
            P.px.s1[l] += dx;
            P.px.s2[l] += dx2;
            P.px.s3[l] += dx2 * dx;
            P.px.s4[l] += dx2 * dx2;
            P.xmin = xf < P.xmin ? xf : P.xmin;
            P.xmax = xf > P.xmax ? xf : P.xmax;
            if (!yok)
                continue; // W finite, Ŵ not: excluded from the error sums
            const double e = x - y;
            ++P.counted;
            P.se[l] += e * e;
            P.sx[l] += x * x;
            P.sy[l] += y * y;
            P.sxy[l] += x * y;
            const double ae = std::abs(e);
            P.maxAbs = ae > P.maxAbs ? ae : P.maxAbs;
            P.emin = e < P.emin ? e : P.emin;
            P.emax = e > P.emax ? e : P.emax;
        }
    }
}

/// The slices' partials in slice order: power sums lane by lane, error sums as lane totals,
/// counts added, extremes merged (exact).
ErrorSums mergePartials(const std::vector<ErrorPartial> &partials)
{
    ErrorSums T;
    for (const auto &P : partials) {
        T.counted += P.counted;
        T.xNan += P.xNan;
        T.xInf += P.xInf;
        T.yNan += P.yNan;
        T.yInf += P.yInf;
        T.yFinite += P.yFinite;
        for (int l = 0; l < kSumLanes; ++l) {
            T.px.s1[l] += P.px.s1[l];
            T.px.s2[l] += P.px.s2[l];
            T.px.s3[l] += P.px.s3[l];
            T.px.s4[l] += P.px.s4[l];
            T.py.s1[l] += P.py.s1[l];
            T.py.s2[l] += P.py.s2[l];
            T.py.s3[l] += P.py.s3[l];
            T.py.s4[l] += P.py.s4[l];
        }
        T.se += lanesTotal(P.se);
        T.sx += lanesTotal(P.sx);
        T.sy += lanesTotal(P.sy);
        T.sxy += lanesTotal(P.sxy);
        T.xmin = std::min(T.xmin, P.xmin);
        T.xmax = std::max(T.xmax, P.xmax);
        T.ymin = std::min(T.ymin, P.ymin);
        T.ymax = std::max(T.ymax, P.ymax);
        T.emin = std::min(T.emin, P.emin);
        T.emax = std::max(T.emax, P.emax);
        T.maxAbs = std::max(T.maxAbs, P.maxAbs);
    }
    return T;
}

/// Moments from power sums of d = v − shift over n values.
void finishStats(TensorStats &st, const PowerSums &ps, double shift, std::int64_t n, float lo, float hi, bool miloStd)
{
    st.finiteCount = n;
    if (n == 0)
        return;
    const double nn = static_cast<double>(n);
    const double a1 = ps.total(ps.s1) / nn, a2 = ps.total(ps.s2) / nn, a3 = ps.total(ps.s3) / nn,
                 a4 = ps.total(ps.s4) / nn;
    st.min = lo;
    st.max = hi;
    st.absmax = std::max(std::abs(st.min), std::abs(st.max));
    st.mean = shift + a1;
    double m2 = std::max(a2 - a1 * a1, 0.0);
    if (lo == hi)
        m2 = 0.0; // a constant tensor: no cancellation noise
    const double m3 = a3 - 3 * a1 * a2 + 2 * a1 * a1 * a1;
    const double m4 = a4 - 4 * a1 * a3 + 6 * a1 * a1 * a2 - 3 * a1 * a1 * a1 * a1;
    st.std = miloStd ? (n > 1 ? std::sqrt(m2 * nn / (nn - 1)) : 0.0) : std::sqrt(m2);
    if (m2 > 0) {
        st.skewness = m3 / std::pow(m2, 1.5);
        st.excessKurtosis = m4 / (m2 * m2) - 3.0;
    }
}

double symlogMap(double x, double t)
{
    return std::copysign(std::log10(1.0 + std::abs(x) / t), x);
}

/// floor(((v − lo)·B)/(hi − lo)) exactly as written, computed with a reciprocal multiply and
/// re-done with the division whenever the product lies within 1e-9 of a bin edge (the
/// reciprocal's error is < 1e-12 there, so the fast result is exact otherwise).
struct Binner {
    double lo = 0, hi = 0, inv = 0;
    int B = 1;
    void init(const Histogram &h)
    {
        lo = h.lo;
        hi = h.hi;
        B = static_cast<int>(h.counts.size());
        inv = hi > lo ? 1.0 / (hi - lo) : 0.0;
    }
    int bin(double v) const
    {
        if (v < lo)
            return -1;
        if (v > hi)
            return B;
        if (v == hi || hi == lo)
            return (v == hi && hi != lo) ? B - 1 : 0;
        const double t = (v - lo) * B; // ≥ 0 here, so truncation is floor
        const double q = t * inv;
        auto f = static_cast<std::int64_t>(q);
        const double frac = q - static_cast<double>(f);
        if (frac < 1e-9 || frac > 1.0 - 1e-9)
            f = static_cast<std::int64_t>(t / (hi - lo));
        return static_cast<int>(std::min<std::int64_t>(f, B - 1));
    }
};

/// Bin index + 1 (0 below, B + 1 above) of each of v[0 … len): computed branch-free for the
/// whole block first (eight lanes, each the scalar expression of the tail loop), then the values
/// near a bin edge or outside the range redone with the exact rule (Binner::bin).
void binBlock(const Binner &bn, const double *v, std::int64_t len, std::int32_t *idx)
{
    const double Bd = bn.B;
    const std::int64_t fm = bn.hi == bn.lo ? -1 : 0, lb = bn.B - 1;
    std::int64_t i0 = 0;
    for (; i0 + 8 <= len; i0 += 8) {
        V8 x;
        std::memcpy(&x, v + i0, sizeof x);
        const V8 t = (x - bn.lo) * Bd;
        const V8 q = t * bn.inv;
        V8 qc = q < 0.0 ? 0.0 : q;
        qc = qc > 1e9 ? 1e9 : qc;
        const V8i f = __builtin_convertvector(qc, V8i); // truncation = floor for q ≥ 0
        const V8 frac = q - __builtin_convertvector(f, V8);
        const V8i edge = (frac < 1e-9) | (frac > 1.0 - 1e-9) | (x >= bn.hi) | fm;
        V8i r = (f < lb ? f : lb) + 1;
        r = edge != 0 ? -2 : r;
        for (int l = 0; l < 8; ++l)
            idx[i0 + l] = static_cast<std::int32_t>(r[l]); // values in [−2, B]
    }
    for (std::int64_t i = i0; i < len; ++i) {
        const double t = (v[i] - bn.lo) * bn.B;
        const double q = t * bn.inv;
        const double qc = q < 0.0 ? 0.0 : (q > 1e9 ? 1e9 : q);
        const auto f = static_cast<std::int64_t>(qc);
        const double frac = q - static_cast<double>(f);
        const bool edge = (frac < 1e-9) | (frac > 1.0 - 1e-9) | (v[i] >= bn.hi) | (bn.hi == bn.lo);
        idx[i] = edge ? -2 : static_cast<std::int32_t>(std::min<std::int64_t>(f, bn.B - 1)) + 1;
    }
    for (std::int64_t i = 0; i < len; ++i)
        if (idx[i] == -2)
            idx[i] = bn.bin(v[i]) + 1; // −1 (below) → 0, B (above) → B + 1
}

/// What pass 2 needs of the set-up histograms, shared read-only by the threads.
struct HistogramPlan {
    Binner w, err, abs; ///< W and Ŵ share w's range
    bool symlog = false;
    double tSym = 0;
    double maxAbs = 0;
    bool codeTable = false;                            ///< W of 16-bit codes: counted per code, binned once per code
    std::size_t strideW = 0, strideE = 0, strideA = 0; ///< bins + below + above
};

/// One thread slice's counts. Four interleaved copies of the W, Ŵ and error histograms (element
/// i counts into copy i % 4) so that runs of equal bins (Ŵ has few levels per group) do not
/// serialise on one counter; per copy [0] is below and [B + 1] above.
struct HistogramCounts {
    std::vector<std::uint32_t> w, wh, e, a, codes;
};

/// Pass 2 over a chunk with non-finite values: pairs with either value non-finite are skipped,
/// the rest binned one by one with the exact rule (into copy 0).
void countMixedChunk(HistogramCounts &L, const HistogramPlan &H, const float *xs, const float *ys, std::int64_t len)
{
    for (std::int64_t i = 0; i < len; ++i) {
        const float xf = xs[i], yf = ys[i];
        if (!std::isfinite(xf) || !std::isfinite(yf))
            continue;
        const double x = xf, y = yf, e = x - y;
        ++L.w[static_cast<std::size_t>(H.w.bin(H.symlog ? symlogMap(x, H.tSym) : x) + 1)];
        ++L.wh[static_cast<std::size_t>(H.w.bin(H.symlog ? symlogMap(y, H.tSym) : y) + 1)];
        ++L.e[static_cast<std::size_t>(H.err.bin(e) + 1)];
        ++L.a[static_cast<std::size_t>(H.maxAbs > 0 ? H.abs.bin(std::abs(e)) + 1 : 1)];
    }
}

/// Scratch of one thread for countFiniteBlock (sub-blocks small enough for L1/L2).
struct BlockScratch {
    static constexpr std::int64_t kSub = 2048;
    std::vector<double> xv, yv, ev, av;       ///< W, Ŵ (symlog-mapped when asked), e, |e|
    std::vector<std::int32_t> ix, iy, ie, ia; ///< their bin indices + 1
    BlockScratch() : xv(kSub), yv(kSub), ev(kSub), av(kSub), ix(kSub), iy(kSub), ie(kSub), ia(kSub) {}
};

/// Pass 2 over sl ≤ kSub all-finite pairs; `raw` is W's 16-bit codes of the block (codeTable).
void countFiniteBlock(HistogramCounts &L, BlockScratch &S, const HistogramPlan &H, const float *xs, const float *ys,
                      const std::uint16_t *raw, std::int64_t sl)
{
    for (std::int64_t i = 0; i < sl; ++i) {
        const double x = xs[i], y = ys[i];
        S.xv[i] = H.symlog ? symlogMap(x, H.tSym) : x;
        S.yv[i] = H.symlog ? symlogMap(y, H.tSym) : y;
        S.ev[i] = x - y;
        S.av[i] = std::abs(x - y);
    }
    if (H.codeTable) {
        for (std::int64_t i = 0; i < sl; ++i)
            ++L.codes[raw[i]];
    } else {
        binBlock(H.w, S.xv.data(), sl, S.ix.data());
        for (std::int64_t i = 0; i < sl; ++i)
            ++L.w[static_cast<std::size_t>(i & 3) * H.strideW + static_cast<std::size_t>(S.ix[i])];
    }
    binBlock(H.w, S.yv.data(), sl, S.iy.data());
    binBlock(H.err, S.ev.data(), sl, S.ie.data());
    for (std::int64_t i = 0; i < sl; ++i) {
        ++L.wh[static_cast<std::size_t>(i & 3) * H.strideW + static_cast<std::size_t>(S.iy[i])];
        ++L.e[static_cast<std::size_t>(i & 3) * H.strideE + static_cast<std::size_t>(S.ie[i])];
    }
    if (H.maxAbs > 0) {
        binBlock(H.abs, S.av.data(), sl, S.ia.data());
        for (std::int64_t i = 0; i < sl; ++i)
            ++L.a[static_cast<std::size_t>(S.ia[i])];
    } else {
        L.a[1] += static_cast<std::uint32_t>(sl);
    }
}

/// Adds the slices' counts into m's histograms; W's per-code counts are binned once per code.
void mergeHistogramCounts(ErrorMetrics &m, const std::vector<HistogramCounts> &locals, const HistogramPlan &H,
                          DType wDtype)
{
    const int B = static_cast<int>(m.w.counts.size());
    for (const auto &L : locals) {
        if (L.w.empty())
            continue;
        const std::size_t Bs = m.w.counts.size(), BEs = m.err.counts.size();
        const std::size_t SW = Bs + 2, SE = BEs + 2;
        for (std::size_t k = 0; k < 4; ++k) {
            for (std::size_t i = 0; i < Bs; ++i) {
                m.w.counts[i] += L.w[k * SW + i + 1];
                m.wHat.counts[i] += L.wh[k * SW + i + 1];
            }
            for (std::size_t i = 0; i < BEs; ++i)
                m.err.counts[i] += L.e[k * SE + i + 1];
            if (k == 0)
                for (std::size_t i = 0; i < kPercentileBins; ++i)
                    m.absErrBins[i] += L.a[i + 1];
            m.w.below += L.w[k * SW];
            m.w.above += L.w[k * SW + Bs + 1];
            m.wHat.below += L.wh[k * SW];
            m.wHat.above += L.wh[k * SW + Bs + 1];
            m.err.below += L.e[k * SE];
            m.err.above += L.e[k * SE + BEs + 1];
        }
        if (H.codeTable)
            for (std::size_t code = 0; code < 65536; ++code) {
                if (!L.codes[code])
                    continue;
                const auto h = static_cast<std::uint16_t>(code);
                const float v = wDtype == DType::BF16 ? bf16ToFloat(h) : f16ToFloat(h);
                const int b = H.w.bin(v);
                if (b < 0)
                    m.w.below += L.codes[code];
                else if (b >= B)
                    m.w.above += L.codes[code];
                else
                    m.w.counts[static_cast<std::size_t>(b)] += L.codes[code];
            }
    }
}

} // namespace

ChunkSplit splitIntoChunks(std::int64_t n, int threads)
{
    ChunkSplit s;
    s.n = n;
    s.chunks = (n + kErrorChunk - 1) / kErrorChunk;
    s.parts = static_cast<int>(std::clamp<std::int64_t>(s.chunks, 1, resolveThreads(threads)));
    return s;
}

PowerSumShifts powerSumShifts(const Tensor &w, std::span<const float> wHat)
{
    const std::int64_t k = std::min<std::int64_t>(w.numel(), 4096);
    std::vector<float> head(static_cast<std::size_t>(k));
    w.decodeRange(0, head);
    double sx = 0, sy = 0;
    std::int64_t cx = 0, cy = 0;
    for (std::int64_t i = 0; i < k; ++i) {
        if (std::isfinite(head[static_cast<std::size_t>(i)])) {
            sx += head[static_cast<std::size_t>(i)];
            ++cx;
        }
        if (std::isfinite(wHat[static_cast<std::size_t>(i)])) {
            sy += wHat[static_cast<std::size_t>(i)];
            ++cy;
        }
    }
    PowerSumShifts s;
    s.x = cx ? sx / static_cast<double>(cx) : 0.0;
    s.y = cy ? sy / static_cast<double>(cy) : 0.0;
    return s;
}

ErrorSums accumulateErrorSums(const Tensor &w, std::span<const float> wHat, const ChunkSplit &split,
                              const PowerSumShifts &shifts, const CancelToken *cancel)
{
    const std::int64_t n = split.n;
    // One partial per chunk, merged in chunk order: the sums (and so every metric) are the same
    // bits whatever the thread count (a scan with 2 threads equals a 16-core machine's run).
    std::vector<ErrorPartial> partials(static_cast<std::size_t>(split.chunks));
    parallelSlices(split.chunks, split.parts, cancel, [&](int, std::int64_t c0, std::int64_t c1) {
        std::vector<float> buf(static_cast<std::size_t>(kErrorChunk));
        for (std::int64_t c = c0; c < c1; ++c) {
            if (cancel)
                cancel->check();
            ErrorPartial &P = partials[static_cast<std::size_t>(c)];
            const std::int64_t first = c * kErrorChunk, len = std::min(kErrorChunk, n - first);
            w.decodeRange(first, std::span<float>(buf.data(), static_cast<std::size_t>(len)));
            const float *xs = buf.data();
            const float *ys = wHat.data() + first;
            if (allFinite(xs, len) && allFinite(ys, len))
                accumulateFiniteChunk(P, xs, ys, len, shifts);
            else
                accumulateMixedChunk(P, xs, ys, len, shifts);
        }
    });
    return mergePartials(partials);
}

void fillTensorStats(ErrorMetrics &m, const ErrorSums &sums, const PowerSumShifts &shifts, bool miloStd)
{
    const std::int64_t n = m.numel;
    const std::int64_t xFinite = n - sums.xNan - sums.xInf;
    m.statsIn.numel = n;
    m.statsIn.nanCount = sums.xNan;
    m.statsIn.infCount = sums.xInf;
    finishStats(m.statsIn, sums.px, shifts.x, xFinite, sums.xmin, sums.xmax, miloStd);
    m.statsOut.numel = n;
    m.statsOut.nanCount = sums.yNan;
    m.statsOut.infCount = sums.yInf;
    finishStats(m.statsOut, sums.py, shifts.y, sums.yFinite, sums.ymin, sums.ymax, miloStd);
}

void fillErrorScalars(ErrorMetrics &m, const ErrorSums &sums)
{
    m.counted = sums.counted;
    if (sums.counted == 0)
        return;
    const double se = sums.se, sx = sums.sx, sy = sums.sy;
    m.mse = se / static_cast<double>(sums.counted);
    m.rmse = std::sqrt(m.mse);
    m.sqnrDb = se == 0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(sx / se);
    m.relFrobenius = sx == 0 ? (se == 0 ? 0.0 : std::numeric_limits<double>::infinity()) : std::sqrt(se / sx);
    m.maxAbsErr = sums.maxAbs;
    if (sx > 0 && sy > 0)
        m.cosine = sums.sxy / (std::sqrt(sx) * std::sqrt(sy));
}

void setupHistograms(ErrorMetrics &m, const ErrorSums &sums, const ErrorMetricsOptions &options)
{
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
    // Without a counted pair the error extremes are still ±inf: the error range is [0, 0].
    const bool anyCounted = sums.counted > 0;
    setup(m.err, anyCounted ? sums.emin : 0.0, anyCounted ? sums.emax : 0.0, false);
    m.absErrBins.assign(kPercentileBins, 0);
}

void countHistograms(ErrorMetrics &m, const Tensor &w, std::span<const float> wHat, const ChunkSplit &split,
                     double maxAbs, const CancelToken *cancel)
{
    HistogramPlan H;
    H.w.init(m.w);
    H.err.init(m.err);
    Histogram absH;
    absH.lo = 0;
    absH.hi = maxAbs;
    absH.counts.assign(kPercentileBins, 0);
    H.abs.init(absH);
    H.symlog = m.w.symlog;
    H.tSym = m.w.t;
    H.maxAbs = maxAbs;
    H.codeTable = !m.w.symlog && (w.dtype() == DType::BF16 || w.dtype() == DType::F16) && w.isContiguous();
    H.strideW = m.w.counts.size() + 2;
    H.strideE = m.err.counts.size() + 2;
    H.strideA = kPercentileBins + 2;

    const std::int64_t n = split.n;
    std::vector<HistogramCounts> locals(static_cast<std::size_t>(split.parts));
    parallelSlices(split.chunks, split.parts, cancel, [&](int p, std::int64_t c0, std::int64_t c1) {
        HistogramCounts &L = locals[static_cast<std::size_t>(p)];
        L.w.assign(4 * H.strideW, 0);
        L.wh.assign(4 * H.strideW, 0);
        L.e.assign(4 * H.strideE, 0);
        L.a.assign(H.strideA, 0); // 4096 bins spread the counts: one copy, small enough for L1
        if (H.codeTable)
            L.codes.assign(65536, 0);
        std::vector<float> buf(static_cast<std::size_t>(kErrorChunk));
        BlockScratch S;
        for (std::int64_t c = c0; c < c1; ++c) {
            if (cancel)
                cancel->check();
            const std::int64_t first = c * kErrorChunk, len = std::min(kErrorChunk, n - first);
            w.decodeRange(first, std::span<float>(buf.data(), static_cast<std::size_t>(len)));
            const float *ys = wHat.data() + first;
            if (!(allFinite(buf.data(), len) && allFinite(ys, len))) {
                countMixedChunk(L, H, buf.data(), ys, len);
                continue;
            }
            for (std::int64_t sb = 0; sb < len; sb += BlockScratch::kSub) {
                const std::int64_t sl = std::min(BlockScratch::kSub, len - sb);
                const std::uint16_t *raw =
                    H.codeTable ? reinterpret_cast<const std::uint16_t *>(w.data()) + first + sb : nullptr;
                countFiniteBlock(L, S, H, buf.data() + sb, ys + sb, raw, sl);
            }
        }
    });
    mergeHistogramCounts(m, locals, H, w.dtype());
}

void fillPercentiles(ErrorMetrics &m, double maxAbs, std::int64_t counted)
{
    m.errP50 = percentileFromBins(m.absErrBins, maxAbs, 0.50, counted);
    m.errP90 = percentileFromBins(m.absErrBins, maxAbs, 0.90, counted);
    m.errP99 = percentileFromBins(m.absErrBins, maxAbs, 0.99, counted);
    m.errP999 = percentileFromBins(m.absErrBins, maxAbs, 0.999, counted);
}

double histogramOverlap(const Histogram &a, const Histogram &b, std::int64_t counted)
{
    if (counted <= 0)
        return 0.0;
    double ov = 0;
    for (std::size_t i = 0; i < a.counts.size(); ++i)
        ov += static_cast<double>(std::min(a.counts[i], b.counts[i]));
    return ov / static_cast<double>(counted);
}

} // namespace quantscope::detail
