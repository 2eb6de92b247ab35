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

/// Softmax of z[0, n): e = exp(z − max)/Σ, returns log Σexp(z − max) + max (log-sum-exp); the sum
/// in eight lanes.
double softmaxInto(const double *z, double *e, std::int64_t n)
{
    // The maximum is exact in any order (only a shift: ±0 make no difference to exp).
    double zmax = -INFINITY;
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
    j = 0;
    for (; j + kLanes <= n; j += kLanes)
        store8(e + j, load8(e + j) / se);
    for (; j < n; ++j)
        e[j] = e[j] / se;
    return zmax + std::log(se);
}

/// z_g[j] = (q_g · key_{start+j}) / √d for j in [0, n) and G query heads sharing the keys: per key
/// the op sequence of one FP64 dot with four partial sums over the channels, (s0 + s1) + (s2 + s3),
/// eight keys at a time (each tile load feeds the G heads).
template <int G>
void scoresG(const double *const *q, const KvKeyTiles &kt, std::int64_t start, std::int64_t n, double scale,
             double *const *z)
{
    const std::int64_t d = kt.d;
    const std::int64_t t0 = start / kLanes, t1 = (start + n - 1) / kLanes;
    for (std::int64_t t = t0; t <= t1; ++t) {
        const double *tile = kt.t.data() + t * d * kLanes;
        v8d s0[G] = {}, s1[G] = {}, s2[G] = {}, s3[G] = {};
        std::int64_t c = 0;
        for (; c + 4 <= d; c += 4) {
            const double *k0 = tile + c * kLanes;
            const v8d a0 = load8(k0), a1 = load8(k0 + kLanes), a2 = load8(k0 + 2 * kLanes), a3 = load8(k0 + 3 * kLanes);
            for (int g = 0; g < G; ++g) {
                s0[g] += q[g][c] * a0;
                s1[g] += q[g][c + 1] * a1;
                s2[g] += q[g][c + 2] * a2;
                s3[g] += q[g][c + 3] * a3;
            }
        }
        for (; c < d; ++c) {
            const v8d a0 = load8(tile + c * kLanes);
            for (int g = 0; g < G; ++g)
                s0[g] += q[g][c] * a0;
        }
        const std::int64_t key0 = t * kLanes;
        for (int g = 0; g < G; ++g) {
            const v8d zz = ((s0[g] + s1[g]) + (s2[g] + s3[g])) * scale;
            if (key0 >= start && key0 + kLanes <= start + n)
                store8(z[g] + (key0 - start), zz);
            else
                for (std::int64_t l = 0; l < kLanes; ++l) {
                    const std::int64_t j = key0 + l - start;
                    if (j >= 0 && j < n)
                        z[g][j] = zz[l];
                }
        }
    }
}

/// o_g[c..c+8·NC) = Σ_j p_g[j]·v[j][c..] (sequential over j per channel), v FP64 rows of d; each
/// load of v feeds the G heads.
template <int G, int NC>
void weightedBlock(const double *const *p, const double *v, std::int64_t n, std::int64_t d, std::int64_t c,
                   double *const *o)
{
    v8d acc[G][NC] = {};
    for (std::int64_t j = 0; j < n; ++j) {
        const double *vj = v + j * d + c;
        for (int b = 0; b < NC; ++b) {
            const v8d x = load8(vj + b * 8);
            for (int g = 0; g < G; ++g)
                acc[g][b] += p[g][j] * x;
        }
    }
    for (int g = 0; g < G; ++g)
        for (int b = 0; b < NC; ++b)
            store8(o[g] + c + b * 8, acc[g][b]);
}

/// o_g[c] = Σ_j p_g[j]·v[start + j][c] (sequential over j) for G heads.
template <int G>
void weightedG(const double *const *p, const double *v, std::int64_t start, std::int64_t n, std::int64_t d,
               double *const *o)
{
    constexpr int NC = G <= 3 ? 8 : 4; // at most 24 accumulators
    const double *v0 = v + start * d;
    std::int64_t c = 0;
    for (; c + 8 * NC <= d; c += 8 * NC)
        weightedBlock<G, NC>(p, v0, n, d, c, o);
    for (; c + 8 <= d; c += 8)
        weightedBlock<G, 1>(p, v0, n, d, c, o);
    for (; c < d; ++c)
        for (int g = 0; g < G; ++g) {
            double s = 0;
            for (std::int64_t j = 0; j < n; ++j)
                s += p[g][j] * v0[j * d + c];
            o[g][c] = s;
        }
}

void scores(const double *q, const KvKeyTiles &kt, std::int64_t start, std::int64_t n, double scale, double *z)
{
    scoresG<1>(&q, kt, start, n, scale, &z);
}

void weighted(const double *p, const double *v, std::int64_t start, std::int64_t n, std::int64_t d, double *o)
{
    weightedG<1>(&p, v, start, n, d, &o);
}

/// The errors of G query heads (the same evaluated queries) against one KV head's K̂/V̂.
template <int G>
void againstG(const KvAttnRef *const *r, const KvKeyTiles &kq, KvAttnScratch &sc, KvAttentionError *out)
{
    const std::int64_t d = r[0]->d;
    const double scale = 1 / std::sqrt(static_cast<double>(d));
    std::int64_t nMax = 0;
    for (const std::int64_t n : r[0]->count)
        nMax = std::max(nMax, n);
    sc.z.resize(static_cast<std::size_t>(G * nMax));
    sc.e.resize(static_cast<std::size_t>(G * nMax));
    sc.o.resize(static_cast<std::size_t>(G * d));
    double *z[G], *pq[G], *oq[G];
    const double *qv[G];
    for (int g = 0; g < G; ++g) {
        z[g] = sc.z.data() + g * nMax;
        pq[g] = sc.e.data() + g * nMax;
        oq[g] = sc.o.data() + g * d;
    }
    double klSum[G] = {}, errSum[G] = {}, refSum[G] = {};
    for (std::size_t qi = 0; qi < r[0]->start.size(); ++qi) {
        const std::int64_t start = r[0]->start[qi], n = r[0]->count[qi];
        for (int g = 0; g < G; ++g)
            qv[g] = r[g]->q.data() + qi * static_cast<std::size_t>(d);
        scoresG<G>(qv, kq, start, n, scale, z);
        for (int g = 0; g < G; ++g) {
            const double lse = softmaxInto(z[g], pq[g], n);
            const double *lp = r[g]->lp.data() + r[g]->offset[qi], *p = r[g]->p.data() + r[g]->offset[qi];
            // KL(P‖P̂) = Σ p·(log p − log p̂) and max |p − p̂|, in eight lanes.
            v8d klv{}, mx{};
            std::int64_t j = 0;
            for (; j + kLanes <= n; j += kLanes) {
                const v8d pj = load8(p + j), diff = pj - load8(pq[g] + j);
                klv += pj * (load8(lp + j) - (load8(z[g] + j) - lse));
                const v8d ad = diff < 0 ? -diff : diff;
                mx = ad > mx ? ad : mx;
            }
            double kl = sum8(klv), maxErr = out[g].scoreMaxErr;
            for (int l = 0; l < kLanes; ++l)
                maxErr = std::max(maxErr, mx[l]);
            for (; j < n; ++j) {
                kl += p[j] * (lp[j] - (z[g][j] - lse));
                maxErr = std::max(maxErr, std::fabs(p[j] - pq[g][j]));
            }
            out[g].scoreMaxErr = maxErr;
            klSum[g] += std::max(0.0, kl);
        }
        weightedG<G>(pq, kq.values.data(), start, n, d, oq);
        for (int g = 0; g < G; ++g) {
            const double *o = r[g]->o.data() + qi * static_cast<std::size_t>(d);
            for (std::int64_t c = 0; c < d; ++c) {
                const double x = o[c] - oq[g][c];
                errSum[g] += x * x;
                refSum[g] += o[c] * o[c];
            }
            ++out[g].queries;
        }
    }
    for (int g = 0; g < G; ++g)
        if (out[g].queries > 0) {
            out[g].kl = klSum[g] / static_cast<double>(out[g].queries);
            out[g].outMse = errSum[g] / static_cast<double>(out[g].queries * d);
            out[g].outRel = refSum[g] > 0 ? errSum[g] / refSum[g] : 0;
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

KvAttnRef kvAttnRef(const float *q, const KvKeyTiles &keys, std::int64_t T, std::int64_t segment,
                    const std::vector<std::int64_t> &rows)
{
    KvAttnRef r;
    const std::int64_t d = keys.d;
    r.d = d;
    const double scale = 1 / std::sqrt(static_cast<double>(d));
    for (const std::int64_t i : rows) {
        std::int64_t start, n;
        kvCausalRange(i, T, segment, start, n);
        if (n <= 0)
            continue;
        r.keyEnd = std::max(r.keyEnd, start + n);
        r.start.push_back(start);
        r.count.push_back(n);
        const std::size_t off = r.lp.size();
        r.offset.push_back(off);
        const std::size_t qo = r.q.size();
        for (std::int64_t c = 0; c < d; ++c)
            r.q.push_back(q[i * d + c]);
        r.lp.resize(off + static_cast<std::size_t>(n));
        r.p.resize(off + static_cast<std::size_t>(n));
        double *lp = r.lp.data() + off, *p = r.p.data() + off;
        scores(r.q.data() + qo, keys, start, n, scale, lp);
        const double lse = softmaxInto(lp, p, n);
        for (std::int64_t j = 0; j < n; ++j)
            lp[j] -= lse;
        const std::size_t oo = r.o.size();
        r.o.resize(oo + static_cast<std::size_t>(d));
        weighted(p, keys.values.data(), start, n, d, r.o.data() + oo);
    }
    return r;
}

KvAttentionError kvAttnAgainst(const KvAttnRef &r, const KvKeyTiles &kq, KvAttnScratch &sc)
{
    KvAttentionError e;
    const KvAttnRef *rp = &r;
    againstG<1>(&rp, kq, sc, &e);
    return e;
}

void kvAttnAgainstGroup(const KvAttnRef *const *refs, std::int64_t heads, const KvKeyTiles &kq, KvAttnScratch &sc,
                        KvAttentionError *out)
{
    std::int64_t h = 0;
    for (; h + 3 <= heads; h += 3)
        againstG<3>(refs + h, kq, sc, out + h);
    if (heads - h == 2)
        againstG<2>(refs + h, kq, sc, out + h);
    else if (heads - h == 1)
        againstG<1>(refs + h, kq, sc, out + h);
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
