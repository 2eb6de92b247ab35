// SPDX-License-Identifier: MIT
#include "kv/kv_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "numeric/lanes.h"

// Vector values passed between these internal functions: without -march=native GCC notes that
// their calling convention differs from an AVX-512 build's (-Wpsabi); nothing here crosses a
// library boundary.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace quantscope {

namespace {

constexpr std::int64_t kLanes = 8; // keys per tile

// Eight FP64 lanes (numeric/lanes.h): each operation is the scalar operation lane by lane (IEEE,
// no contraction), compiled to AVX-512, AVX2 pairs or SSE quads as the target allows.
using lanes::load8;
using lanes::store8;
using lanes::v8d;
using lanes::v8l;

/// exp on eight lanes, branch-free (no FMA: the build contracts nothing).
inline v8d exp8(v8d x)
{
    constexpr double kInvLn2 = 1.4426950408889634074;
    constexpr double kLn2Hi = 6.93147180369123816490e-01; // 32 significant bits: k·kLn2Hi is exact
    constexpr double kLn2Lo = 1.90821492927058770002e-10;
    constexpr double kShift = 6755399441055744.0; // 1.5·2^52: adding it rounds to an integer
    const v8d lo = v8d{} - 746.0, hi = v8d{} + 709.8;
    x = x < lo ? lo : x;
    x = x > hi ? hi : x;
    const v8d t = x * kInvLn2 + kShift;
    const v8d kd = t - kShift;
    const v8l k = __builtin_bit_cast(v8l, t) - static_cast<std::int64_t>(0x4338000000000000); // round(x/ln 2)
    const v8d r = (x - kd * kLn2Hi) - kd * kLn2Lo;                                            // |r| ≤ 0.3466
    // exp(r) = 1 + r·(1 + r/2 + r²/6 + … + r^12/13!): the terms past r^13 are below 2^-56.
    v8d p = v8d{} + 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    const v8d er = 1.0 + r * p;
    // 2^k in two normal factors (k ≥ −1077): the first product is exact, the second rounds once.
    const v8l k1 = k >> 1, k2 = k - k1;
    const v8l b1 = (k1 + 1023) << 52, b2 = (k2 + 1023) << 52;
    return er * __builtin_bit_cast(v8d, b1) * __builtin_bit_cast(v8d, b2);
}

inline double sum8(v8d v)
{
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

/// e[j] = exp(z[j] − max z) for j in [0, n); returns Σe (in eight lanes) and sets zmax: softmaxInto
/// before its division.
double expShifted(const double *z, double *e, std::int64_t n, double &zmax)
{
    // The maximum is exact in any order (only a shift: ±0 make no difference to exp).
    zmax = -INFINITY;
    {
        v8d m = v8d{} - INFINITY;
        std::int64_t j = 0;
        for (; j + kLanes <= n; j += kLanes) {
            const v8d v = load8(z + j);
            m = v > m ? v : m;
        }
        for (int l = 0; l < kLanes; ++l)
            zmax = std::max(zmax, m[l]);
        for (; j < n; ++j)
            zmax = std::max(zmax, z[j]);
    }
    v8d acc{};
    std::int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes) {
        const v8d v = exp8(load8(z + j) - zmax);
        store8(e + j, v);
        acc += v;
    }
    double se = sum8(acc);
    if (j < n) {
        for (std::int64_t i = j; i < n; ++i)
            e[i] = z[i] - zmax;
        kvExp(e + j, e + j, n - j);
        for (std::int64_t i = j; i < n; ++i)
            se += e[i];
    }
    return se;
}

/// Softmax of z[0, n): e = exp(z − max)/Σ, returns log Σexp(z − max) + max (log-sum-exp); the sum
/// in eight lanes.
double softmaxInto(const double *z, double *e, std::int64_t n)
{
    double zmax;
    const double se = expShifted(z, e, n, zmax);
    std::int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes)
        store8(e + j, load8(e + j) / se);
    for (; j < n; ++j)
        e[j] = e[j] / se;
    return zmax + std::log(se);
}

/// Scores of H query streams (query heads × queries sharing the keys' range start) over the key
/// tiles [tBegin, tEnd]: z_h[j] = (q_h · key_{start+j}) / √d for j in [0, n_h). Per key the op
/// sequence of one FP64 dot with four partial sums over the channels, (s0 + s1) + (s2 + s3), eight
/// keys at a time; each tile load feeds the H streams.
template <int H>
void scoresTiles(const double *const *q, const KvKeyTiles &kt, std::int64_t start, std::int64_t tBegin,
                 std::int64_t tEnd, const std::int64_t *n, double scale, double *const *z)
{
    const std::int64_t d = kt.d;
    for (std::int64_t t = tBegin; t <= tEnd; ++t) {
        const double *tile = kt.t.data() + t * d * kLanes;
        v8d s0[H] = {}, s1[H] = {}, s2[H] = {}, s3[H] = {};
        std::int64_t c = 0;
        for (; c + 4 <= d; c += 4) {
            const double *k0 = tile + c * kLanes;
            const v8d a0 = load8(k0), a1 = load8(k0 + kLanes), a2 = load8(k0 + 2 * kLanes), a3 = load8(k0 + 3 * kLanes);
            for (int h = 0; h < H; ++h) {
                s0[h] += q[h][c] * a0;
                s1[h] += q[h][c + 1] * a1;
                s2[h] += q[h][c + 2] * a2;
                s3[h] += q[h][c + 3] * a3;
            }
        }
        for (; c < d; ++c) {
            const v8d a0 = load8(tile + c * kLanes);
            for (int h = 0; h < H; ++h)
                s0[h] += q[h][c] * a0;
        }
        const std::int64_t j0 = t * kLanes - start;
        for (int h = 0; h < H; ++h) {
            const v8d zz = ((s0[h] + s1[h]) + (s2[h] + s3[h])) * scale;
            if (j0 >= 0 && j0 + kLanes <= n[h])
                store8(z[h] + j0, zz);
            else
                for (std::int64_t l = 0; l < kLanes; ++l) {
                    const std::int64_t j = j0 + l;
                    if (j >= 0 && j < n[h])
                        z[h][j] = zz[l];
                }
        }
    }
}

/// Scores of G query heads for one query (keys [start, start + n)).
template <int G>
void scoresG(const double *const *q, const KvKeyTiles &kt, std::int64_t start, std::int64_t n, double scale,
             double *const *z)
{
    std::int64_t nn[G];
    for (int g = 0; g < G; ++g)
        nn[g] = n;
    scoresTiles<G>(q, kt, start, start / kLanes, (start + n - 1) / kLanes, nn, scale, z);
}

/// Scores of G query heads for two queries with the same range start and n0 ≤ n1 keys: the tiles
/// both read once for the 2G streams, the second query's further tiles for its G alone. Each
/// score's op sequence is the single query's.
template <int G>
void scoresPair(const double *const *q, const KvKeyTiles &kt, std::int64_t start, std::int64_t n0, std::int64_t n1,
                double scale, double *const *z)
{
    std::int64_t nn[2 * G];
    for (int g = 0; g < G; ++g) {
        nn[g] = n0;
        nn[G + g] = n1;
    }
    const std::int64_t t0 = start / kLanes, tc = (start + n0 - 1) / kLanes, t1 = (start + n1 - 1) / kLanes;
    scoresTiles<2 * G>(q, kt, start, t0, tc, nn, scale, z);
    if (t1 > tc)
        scoresTiles<G>(q + G, kt, start, tc + 1, t1, nn + G, scale, z + G);
}

/// acc_h[b] += Σ_{j ∈ [j0, j1)} p_h[j]·v[j][c + 8b …] for H streams (sequential over j per
/// channel); each load of v feeds the H streams.
template <int H, int NC>
inline void weightedRun(const double *const *p, const double *v, std::int64_t j0, std::int64_t j1, std::int64_t d,
                        std::int64_t c, v8d (&acc)[H][NC])
{
    for (std::int64_t j = j0; j < j1; ++j) {
        const double *vj = v + j * d + c;
        for (int b = 0; b < NC; ++b) {
            const v8d x = load8(vj + b * 8);
            for (int h = 0; h < H; ++h)
                acc[h][b] += p[h][j] * x;
        }
    }
}

/// o_h[c..c+8·NC) = Σ_{j < n_h} p_h[j]·v[j][c..] for H streams whose counts are n (the first HA of
/// them n[0] keys, the rest n[1] ≥ n[0]): the keys both read once for all H, the rest for the last
/// H − HA alone.
template <int H, int HA, int NC>
void weightedBlock(const double *const *p, const double *v, const std::int64_t *n, std::int64_t d, std::int64_t c,
                   double *const *o)
{
    v8d acc[H][NC] = {};
    weightedRun<H, NC>(p, v, 0, n[0], d, c, acc);
    if constexpr (HA < H) {
        v8d rest[H - HA][NC];
        for (int h = 0; h < H - HA; ++h)
            for (int b = 0; b < NC; ++b)
                rest[h][b] = acc[HA + h][b];
        weightedRun<H - HA, NC>(p + HA, v, n[0], n[1], d, c, rest);
        for (int h = 0; h < H - HA; ++h)
            for (int b = 0; b < NC; ++b)
                acc[HA + h][b] = rest[h][b];
    }
    for (int h = 0; h < H; ++h)
        for (int b = 0; b < NC; ++b)
            store8(o[h] + c + b * 8, acc[h][b]);
}

/// o_h[c] = Σ_{j < n_h} p_h[j]·v[start + j][c] (sequential over j) for H streams, the first HA with
/// n[0] keys and the others n[1].
template <int H, int HA>
void weightedH(const double *const *p, const double *v, std::int64_t start, const std::int64_t *n, std::int64_t d,
               double *const *o)
{
    constexpr int NC = H <= 3 ? 8 : (H <= 6 ? 4 : 2); // at most 24 accumulators
    const double *v0 = v + start * d;
    std::int64_t c = 0;
    for (; c + 8 * NC <= d; c += 8 * NC)
        weightedBlock<H, HA, NC>(p, v0, n, d, c, o);
    for (; c + 8 <= d; c += 8)
        weightedBlock<H, HA, 1>(p, v0, n, d, c, o);
    for (; c < d; ++c)
        for (int h = 0; h < H; ++h) {
            const std::int64_t nh = h < HA ? n[0] : n[1];
            double s = 0;
            for (std::int64_t j = 0; j < nh; ++j)
                s += p[h][j] * v0[j * d + c];
            o[h][c] = s;
        }
}

/// The evaluated queries from qi on, one step: a pair when the next query reads from the same
/// first key and at least as many keys (rows ascending within a segment), else qi alone.
struct QueryStep {
    bool pair = false;
    std::int64_t start = 0, n[2] = {0, 0};
};
QueryStep queryStep(const KvAttnRef &r, std::size_t qi)
{
    QueryStep q;
    q.start = r.start[qi];
    q.pair = qi + 1 < r.start.size() && r.start[qi + 1] == q.start && r.count[qi + 1] >= r.count[qi];
    q.n[0] = r.count[qi];
    q.n[1] = r.count[qi + (q.pair ? 1 : 0)];
    return q;
}

/// KL(P‖P̂) and max |p − p̂| of one query stream: P̂ = softmax of its scores z into pq (softmaxInto's
/// values, the division done in the same pass), then Σ p·(log p − log p̂) in eight lanes; returns
/// KL, raises maxErr.
double klAndMax(const double *p, const double *lp, const double *z, double *pq, std::int64_t n, double &maxErr)
{
    double zmax;
    const double se = expShifted(z, pq, n, zmax);
    const double lse = zmax + std::log(se);
    v8d klv{}, mx{};
    std::int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes) {
        const v8d q = load8(pq + j) / se;
        store8(pq + j, q);
        const v8d pj = load8(p + j), diff = pj - q;
        klv += pj * (load8(lp + j) - (load8(z + j) - lse));
        const v8d ad = diff < 0 ? -diff : diff;
        mx = ad > mx ? ad : mx;
    }
    double kl = sum8(klv);
    for (int l = 0; l < kLanes; ++l)
        maxErr = std::max(maxErr, mx[l]);
    for (; j < n; ++j) {
        pq[j] = pq[j] / se;
        kl += p[j] * (lp[j] - (z[j] - lse));
        maxErr = std::max(maxErr, std::fabs(p[j] - pq[j]));
    }
    return kl;
}

/// The errors of G query heads (the same evaluated queries) against one KV head's K̂/V̂. Two
/// consecutive queries whose key ranges start at the same key (one causal segment) are scored and
/// weighted together (each load of K̂ and V̂ feeds both); every sum keeps the one-query order. With
/// v2 (FP64 rows of a second V̂), out2 gets the errors of K̂ with that V̂ from the same P̂.
template <int G>
void againstG(const KvAttnRef *const *r, const KvKeyTiles &kq, KvAttnScratch &sc, KvAttentionError *out,
              const double *v2 = nullptr, KvAttentionError *out2 = nullptr)
{
    const std::int64_t d = r[0]->d;
    const double scale = 1 / std::sqrt(static_cast<double>(d));
    std::int64_t nMax = 0;
    for (const std::int64_t n : r[0]->count)
        nMax = std::max(nMax, n);
    sc.z.resize(static_cast<std::size_t>(2 * G * nMax));
    sc.e.resize(static_cast<std::size_t>(2 * G * nMax));
    sc.o.resize(static_cast<std::size_t>(2 * G * d));
    double *z[2 * G], *pq[2 * G], *oq[2 * G];
    const double *qv[2 * G];
    for (int h = 0; h < 2 * G; ++h) {
        z[h] = sc.z.data() + h * nMax;
        pq[h] = sc.e.data() + h * nMax;
        oq[h] = sc.o.data() + h * d;
    }
    double klSum[G] = {}, errSum[G] = {}, refSum[G] = {}, errSum2[G] = {};
    const std::size_t nq = r[0]->start.size();
    for (std::size_t qi = 0; qi < nq;) {
        const QueryStep st = queryStep(*r[0], qi);
        const std::int64_t start = st.start, *n = st.n;
        const bool pair = st.pair;
        const int nQ = pair ? 2 : 1;
        for (int k = 0; k < nQ; ++k)
            for (int g = 0; g < G; ++g)
                qv[k * G + g] = r[g]->q.data() + (qi + k) * static_cast<std::size_t>(d);
        if (pair)
            scoresPair<G>(qv, kq, start, n[0], n[1], scale, z);
        else
            scoresG<G>(qv, kq, start, n[0], scale, z);
        for (int k = 0; k < nQ; ++k)
            for (int g = 0; g < G; ++g) {
                const KvAttnRef &rg = *r[g];
                const std::size_t off = rg.offset[qi + k];
                const double kl = klAndMax(rg.p.data() + off, rg.lp.data() + off, z[k * G + g], pq[k * G + g], n[k],
                                           out[g].scoreMaxErr);
                klSum[g] += std::max(0.0, kl);
            }
        // o = P̂·V̂ for the streams, then Σ‖o_ref − o‖² (and Σ‖o_ref‖² when ref) per head, in query order.
        auto outputErrors = [&](const double *v, double *err, double *ref) {
            if (pair)
                weightedH<2 * G, G>(pq, v, start, n, d, oq);
            else
                weightedH<G, G>(pq, v, start, n, d, oq);
            for (int k = 0; k < nQ; ++k)
                for (int g = 0; g < G; ++g) {
                    const double *o = r[g]->o.data() + (qi + k) * static_cast<std::size_t>(d);
                    const double *oh = oq[k * G + g];
                    for (std::int64_t c = 0; c < d; ++c) {
                        const double x = o[c] - oh[c];
                        err[g] += x * x;
                        if (ref)
                            ref[g] += o[c] * o[c];
                    }
                }
        };
        outputErrors(kq.values.data(), errSum, refSum);
        for (int g = 0; g < G; ++g)
            out[g].queries += nQ;
        if (v2)
            outputErrors(v2, errSum2, nullptr);
        qi += static_cast<std::size_t>(nQ);
    }
    for (int g = 0; g < G; ++g)
        if (out[g].queries > 0) {
            out[g].kl = klSum[g] / static_cast<double>(out[g].queries);
            out[g].outMse = errSum[g] / static_cast<double>(out[g].queries * d);
            out[g].outRel = refSum[g] > 0 ? errSum[g] / refSum[g] : 0;
        }
    if (v2)
        for (int g = 0; g < G; ++g) {
            out2[g] = out[g]; // the same P̂: KL, max |ΔP| and the query count
            if (out[g].queries > 0) {
                out2[g].outMse = errSum2[g] / static_cast<double>(out[g].queries * d);
                out2[g].outRel = refSum[g] > 0 ? errSum2[g] / refSum[g] : 0;
            }
        }
}

/// The reference side of G query heads (their rows laid out by kvAttnRefGroup): per query P, log P
/// and o = P·V from K and V's tiles, two queries of one segment at a time as againstG does; each
/// value with the one-query op sequence.
template <int G> void refG(KvAttnRef *const *r, const KvKeyTiles &kt)
{
    const std::int64_t d = r[0]->d;
    const double scale = 1 / std::sqrt(static_cast<double>(d));
    const std::size_t nq = r[0]->start.size();
    double *z[2 * G], *pp[2 * G], *oo[2 * G];
    const double *qv[2 * G];
    for (std::size_t qi = 0; qi < nq;) {
        const QueryStep st = queryStep(*r[0], qi);
        const std::int64_t start = st.start, *n = st.n;
        const bool pair = st.pair;
        const int nQ = pair ? 2 : 1;
        for (int k = 0; k < nQ; ++k)
            for (int g = 0; g < G; ++g) {
                KvAttnRef &rg = *r[g];
                const std::size_t at = qi + static_cast<std::size_t>(k);
                qv[k * G + g] = rg.q.data() + at * static_cast<std::size_t>(d);
                z[k * G + g] = rg.lp.data() + rg.offset[at];
                pp[k * G + g] = rg.p.data() + rg.offset[at];
                oo[k * G + g] = rg.o.data() + at * static_cast<std::size_t>(d);
            }
        if (pair)
            scoresPair<G>(qv, kt, start, n[0], n[1], scale, z);
        else
            scoresG<G>(qv, kt, start, n[0], scale, z);
        for (int k = 0; k < nQ; ++k)
            for (int g = 0; g < G; ++g) {
                double *lp = z[k * G + g];
                const double lse = softmaxInto(lp, pp[k * G + g], n[k]);
                for (std::int64_t j = 0; j < n[k]; ++j)
                    lp[j] -= lse;
            }
        if (pair)
            weightedH<2 * G, G>(pp, kt.values.data(), start, n, d, oo);
        else
            weightedH<G, G>(pp, kt.values.data(), start, n, d, oo);
        qi += static_cast<std::size_t>(nQ);
    }
}

} // namespace

void kvExp(const double *x, double *y, std::int64_t n)
{
    std::int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
        store8(y + i, exp8(load8(x + i)));
    if (i < n) {
        double t[kLanes] = {};
        std::copy(x + i, x + n, t);
        store8(t, exp8(load8(t)));
        std::copy(t, t + (n - i), y + i);
    }
}

void KvKeyTiles::buildValues(const float *v)
{
    values.resize(static_cast<std::size_t>(keys * d));
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = v[i];
}

void KvKeyTiles::build(const float *k, std::int64_t nKeys, std::int64_t dim)
{
    d = dim;
    keys = nKeys;
    const std::int64_t tiles = (nKeys + kLanes - 1) / kLanes;
    t.resize(static_cast<std::size_t>(tiles * d * kLanes));
    // Every lane of a key below nKeys is written below; only the last tile's padding is cleared.
    if (nKeys % kLanes != 0)
        std::fill(t.end() - d * kLanes, t.end(), 0.0);
    for (std::int64_t j = 0; j < nKeys; ++j) {
        double *dst = t.data() + (j / kLanes) * d * kLanes + j % kLanes;
        const float *src = k + j * d;
        for (std::int64_t c = 0; c < d; ++c)
            dst[c * kLanes] = src[c];
    }
}

void kvCausalRange(std::int64_t i, std::int64_t T, std::int64_t segment, std::int64_t &start, std::int64_t &count)
{
    start = segment > 0 ? i / segment * segment : 0;
    count = std::min(i, T - 1) - start + 1;
}

std::int64_t kvKeyEnd(std::int64_t T, std::int64_t segment, const std::vector<std::int64_t> &rows)
{
    std::int64_t end = 0;
    for (const std::int64_t i : rows) {
        std::int64_t s, n;
        kvCausalRange(i, T, segment, s, n);
        if (n > 0)
            end = std::max(end, s + n);
    }
    return end;
}

namespace {

/// One head's evaluated rows laid out (ranges, offsets, q as FP64, room for P, log P and o).
KvAttnRef refLayout(const float *q, std::int64_t d, std::int64_t T, std::int64_t segment,
                    const std::vector<std::int64_t> &rows)
{
    KvAttnRef r;
    r.d = d;
    for (const std::int64_t i : rows) {
        std::int64_t start, n;
        kvCausalRange(i, T, segment, start, n);
        if (n <= 0)
            continue;
        r.keyEnd = std::max(r.keyEnd, start + n);
        r.start.push_back(start);
        r.count.push_back(n);
        r.offset.push_back(r.lp.size());
        for (std::int64_t c = 0; c < d; ++c)
            r.q.push_back(q[i * d + c]);
        r.lp.resize(r.lp.size() + static_cast<std::size_t>(n));
    }
    r.p.resize(r.lp.size());
    r.o.resize(r.start.size() * static_cast<std::size_t>(d));
    return r;
}

} // namespace

KvAttnRef kvAttnRef(const float *q, const KvKeyTiles &keys, std::int64_t T, std::int64_t segment,
                    const std::vector<std::int64_t> &rows)
{
    KvAttnRef r = refLayout(q, keys.d, T, segment, rows);
    KvAttnRef *rp = &r;
    refG<1>(&rp, keys);
    return r;
}

std::vector<KvAttnRef> kvAttnRefGroup(const float *const *q, std::int64_t heads, const KvKeyTiles &keys, std::int64_t T,
                                      std::int64_t segment, const std::vector<std::int64_t> &rows)
{
    std::vector<KvAttnRef> refs;
    for (std::int64_t h = 0; h < heads; ++h)
        refs.push_back(refLayout(q[h], keys.d, T, segment, rows));
    std::vector<KvAttnRef *> ptrs;
    for (auto &r : refs)
        ptrs.push_back(&r);
    std::int64_t h = 0;
    for (; h + 3 <= heads; h += 3)
        refG<3>(ptrs.data() + h, keys);
    if (heads - h == 2)
        refG<2>(ptrs.data() + h, keys);
    else if (heads - h == 1)
        refG<1>(ptrs.data() + h, keys);
    return refs;
}

KvAttentionError kvAttnAgainst(const KvAttnRef &r, const KvKeyTiles &kq, KvAttnScratch &sc)
{
    KvAttentionError e;
    const KvAttnRef *rp = &r;
    againstG<1>(&rp, kq, sc, &e);
    return e;
}

void kvAttnAgainstGroup(const KvAttnRef *const *refs, std::int64_t heads, const KvKeyTiles &kq, KvAttnScratch &sc,
                        KvAttentionError *out, const std::vector<double> *values2, KvAttentionError *out2)
{
    const double *v2 = values2 && out2 ? values2->data() : nullptr;
    std::int64_t h = 0;
    for (; h + 3 <= heads; h += 3)
        againstG<3>(refs + h, kq, sc, out + h, v2, v2 ? out2 + h : nullptr);
    if (heads - h == 2)
        againstG<2>(refs + h, kq, sc, out + h, v2, v2 ? out2 + h : nullptr);
    else if (heads - h == 1)
        againstG<1>(refs + h, kq, sc, out + h, v2, v2 ? out2 + h : nullptr);
}

KvAttentionError kvAttentionError(const float *q, const float *k, const float *v, const float *kq, const float *vq,
                                  std::int64_t T, std::int64_t d, std::int64_t segment,
                                  const std::vector<std::int64_t> &rows)
{
    const std::int64_t end = kvKeyEnd(T, segment, rows);
    KvKeyTiles kt, kqt;
    kt.build(k, end, d);
    kt.buildValues(v);
    kqt.build(kq, end, d);
    kqt.buildValues(vq);
    KvAttnScratch sc;
    return kvAttnAgainst(kvAttnRef(q, kt, T, segment, rows), kqt, sc);
}

} // namespace quantscope
