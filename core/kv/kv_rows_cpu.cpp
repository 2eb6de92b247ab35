// SPDX-License-Identifier: MIT
#include "kv/kv_rows_cpu.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kv/kv_math.h"
#include "numeric/fp4math.h"
#include "numeric/hadamard.h"
#include "numeric/lanes.h"
#include "numeric/qmath.h"

// Vector values passed between these internal functions: without -march=native GCC notes that
// their calling convention differs from an AVX-512 build's (-Wpsabi); nothing here crosses a
// library boundary.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace quantscope::kvfast {

namespace {

constexpr std::int64_t W = 16; // lanes

using lanes::absv;
using lanes::bits;
using lanes::e2m1Round;
using lanes::fromBits;
using lanes::splat;
using lanes::v16f;
using lanes::v16i;
using lanes::v16u;
using lanes::v8d;
using lanes::v8f;

inline v16f load(const float *p)
{
    return lanes::load16(p);
}
inline void store(float *p, v16f v)
{
    lanes::store16(p, v);
}

/// kvmath::e4m3Code then e4m3Value, lane by lane.
inline v16f e4m3Round(v16f x)
{
    const v16u u = bits(x);
    const v16u sign = (u >> 24) & 0x80u;
    v16u a = u & 0x7FFFFFFFu;
    const v16i nan = a > 0x7F800000u;
    a = a < 0x43E00000u ? a : v16u{} + 0x43E00000u;
    const v16i field = __builtin_convertvector(a >> 23, v16i);
    const v16i eEff = field > 1 ? field : v16i{} + 1;
    const v16u sig = (a & 0x007FFFFFu) | (__builtin_convertvector(field != 0, v16u) & (1u << 23));
    const v16i d = eEff - 121;
    v16i shift = 20 + (d < 0 ? -d : v16i{});
    shift = shift < 31 ? shift : v16i{} + 31;
    const v16u sh = __builtin_convertvector(shift, v16u);
    const v16u half = ((v16u{} + 1u) << (sh - 1u)) - 1u;
    const v16u rounded = (sig + half + ((sig >> sh) & 1u)) >> sh;
    const v16u code = (__builtin_convertvector(d > 0 ? d : v16i{}, v16u) << 3) + rounded;
    const v16u b = (sign | (nan ? v16u{} + 0x7Fu : code)) & 0xFFu;
    // e4m3Value
    const v16u vs = (b & 0x80u) << 24, e = (b >> 3) & 0xFu, m = b & 7u;
    const v16f sub = fromBits(vs | bits(__builtin_convertvector(m, v16f) * 0.001953125f));
    const v16f norm = fromBits(vs | ((e + 120u) << 23) | (m << 20));
    const v16f qnan = fromBits(vs | 0x7FC00000u);
    return (e == 15u && m == 7u) ? qnan : (e == 0u ? sub : norm);
}

/// In-place transpose of a 16×16 block held as 16 vectors: four stages, each swapping the
/// off-diagonal K×K blocks (pure data movement).
template <int K> inline void transposeStage(v16f *m)
{
    for (int i = 0; i < 16; ++i) {
        if (i & K)
            continue;
        const v16f a = m[i], b = m[i + K];
        if constexpr (K == 8) {
            m[i] = __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
            m[i + K] = __builtin_shufflevector(a, b, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
        } else if constexpr (K == 4) {
            m[i] = __builtin_shufflevector(a, b, 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27);
            m[i + K] = __builtin_shufflevector(a, b, 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31);
        } else if constexpr (K == 2) {
            m[i] = __builtin_shufflevector(a, b, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29);
            m[i + K] = __builtin_shufflevector(a, b, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31);
        } else {
            m[i] = __builtin_shufflevector(a, b, 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30);
            m[i + K] = __builtin_shufflevector(a, b, 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31);
        }
    }
}
inline void transpose16(v16f *m)
{
    transposeStage<8>(m);
    transposeStage<4>(m);
    transposeStage<2>(m);
    transposeStage<1>(m);
}

/// A tile of 16 rows of d, transposed: t[j][l] = row l's element j.
void gather(const float *x, std::int64_t d, v16f *t)
{
    std::int64_t j0 = 0;
    for (; j0 + W <= d; j0 += W) {
        v16f m[W];
        for (std::int64_t l = 0; l < W; ++l)
            m[l] = load(x + l * d + j0);
        transpose16(m);
        for (std::int64_t c = 0; c < W; ++c)
            t[j0 + c] = m[c];
    }
    for (std::int64_t l = 0; l < W; ++l)
        for (std::int64_t j = j0; j < d; ++j)
            t[j][l] = x[l * d + j];
}
void scatter(const v16f *t, std::int64_t d, float *out)
{
    std::int64_t j0 = 0;
    for (; j0 + W <= d; j0 += W) {
        v16f m[W];
        for (std::int64_t c = 0; c < W; ++c)
            m[c] = t[j0 + c];
        transpose16(m);
        for (std::int64_t l = 0; l < W; ++l)
            store(out + l * d + j0, m[l]);
    }
    for (std::int64_t l = 0; l < W; ++l)
        for (std::int64_t j = j0; j < d; ++j)
            out[l * d + j] = t[j][l];
}

/// hadamardBlock on every block of b of every lane.
void hadamardT(v16f *t, std::int64_t d, std::int64_t b, float r)
{
    for (std::int64_t o = 0; o < d; o += b) {
        v16f *blk = t + o;
        for (std::int64_t h = 1; h < b; h *= 2)
            for (std::int64_t i = 0; i < b; i += 2 * h)
                for (std::int64_t j = i; j < i + h; ++j) {
                    const v16f a = blk[j], c = blk[j + h];
                    blk[j] = a + c;
                    blk[j + h] = a - c;
                }
        for (std::int64_t j = 0; j < b; ++j)
            blk[j] = blk[j] * r;
    }
}

/// Σ x² in FP64 per lane, sequential over j (codebookRow's and unitRow's norm).
void norm2(const v16f *t, std::int64_t d, double *n2)
{
    v8d lo{}, hi{};
    for (std::int64_t j = 0; j < d; ++j) {
        v8f a, b;
        std::memcpy(&a, &t[j], sizeof a);
        std::memcpy(&b, reinterpret_cast<const char *>(&t[j]) + sizeof a, sizeof b);
        const v8d da = __builtin_convertvector(a, v8d), db = __builtin_convertvector(b, v8d);
        lo = lo + da * da;
        hi = hi + db * db;
    }
    for (int l = 0; l < 8; ++l) {
        n2[l] = lo[l];
        n2[8 + l] = hi[l];
    }
}

/// One block of W rows for the codebook paths: gathered lane-wise into t, their norms (the FP64
/// sum of squares, its square root in FP32: nf; FP16-rounded: n), zero rows flagged (nf 1 there),
/// and t divided by nf.
void normalizedBlock(const float *x, std::int64_t d, v16f *t, v16f &nf, v16f &n, v16i &zero)
{
    gather(x, d, t);
    double n2[W];
    norm2(t, d, n2);
    for (int l = 0; l < W; ++l) {
        nf[l] = static_cast<float>(kvmath::dsqrt(n2[l]));
        n[l] = qmath::roundF16(nf[l]);
        zero[l] = !(nf[l] > 0.0f) ? -1 : 0;
        if (zero[l])
            nf[l] = 1.0f;
    }
    for (std::int64_t j = 0; j < d; ++j)
        t[j] = t[j] / nf;
}

} // namespace

void codebookRows(const float *x, float *out, std::int64_t rows, std::int64_t d, std::int64_t b, float r, bool rotate,
                  const float *lv, const float *bound)
{
    bool sorted = true;
    for (int i = 0; i + 1 < 15; ++i)
        sorted &= bound[i] <= bound[i + 1];
    std::int64_t i0 = 0;
    if (sorted) {
        std::vector<v16f> t(static_cast<std::size_t>(d));
        for (; i0 + W <= rows; i0 += W) {
            v16f nf, n;
            v16i zero;
            normalizedBlock(x + i0 * d, d, t.data(), nf, n, zero);
            if (rotate)
                hadamardT(t.data(), d, b, r);
            for (std::int64_t j = 0; j < d; ++j) {
                const v16f y = t[j];
                v16f v = splat(lv[0]);
                for (int k = 0; k < 15; ++k)
                    v = y >= bound[k] ? splat(lv[k + 1]) : v;
                t[j] = v;
            }
            if (rotate)
                hadamardT(t.data(), d, b, r);
            for (std::int64_t j = 0; j < d; ++j)
                t[j] = zero ? v16f{} : n * t[j];
            scatter(t.data(), d, out + i0 * d);
        }
    }
    std::vector<float> tmp(static_cast<std::size_t>(d));
    for (std::int64_t i = i0; i < rows; ++i)
        kvmath::codebookRow(x + i * d, out + i * d, d, b, r, rotate, lv, bound, tmp.data());
}

void constOptRows(const float *x, float *out, std::int64_t rows, std::int64_t d, std::int64_t b, float r, float fc,
                  bool unrounded)
{
    std::int64_t i0 = 0;
    {
        std::vector<v16f> t(static_cast<std::size_t>(d));
        for (; i0 + W <= rows; i0 += W) {
            gather(x + i0 * d, d, t.data());
            hadamardT(t.data(), d, b, r);
            for (std::int64_t g = 0; g < d; g += kvmath::kGroup) {
                const std::int64_t len = std::min<std::int64_t>(kvmath::kGroup, d - g);
                v16f m{};
                for (std::int64_t j = g; j < g + len; ++j) {
                    const v16f a = absv(t[j]);
                    m = m < a ? a : m;
                }
                v16f s, sd;
                for (int l = 0; l < W; ++l) {
                    s[l] = fp4::constOptScale(m[l], fc, unrounded);
                    sd[l] = s[l] > 0.0f ? s[l] : 1.0f;
                }
                const v16i pos = s > 0.0f;
                for (std::int64_t j = g; j < g + len; ++j)
                    t[j] = pos ? e2m1Round(t[j] / sd) * s : v16f{};
            }
            hadamardT(t.data(), d, b, r);
            scatter(t.data(), d, out + i0 * d);
        }
    }
    std::vector<float> tmp(static_cast<std::size_t>(d));
    for (std::int64_t i = i0; i < rows; ++i)
        kvmath::constOptRotatedRow(x + i * d, out + i * d, d, b, r, fc, unrounded, tmp.data());
}

namespace {

/// codebookRows's code step on a tile: each value to its level (bounds ascending).
inline void codebookCodes(const v16f *y, v16f *out, std::int64_t d, const float *lv, const float *bound)
{
    for (std::int64_t j = 0; j < d; ++j) {
        v16f v = splat(lv[0]);
        for (int k = 0; k < 15; ++k)
            v = y[j] >= bound[k] ? splat(lv[k + 1]) : v;
        out[j] = v;
    }
}

} // namespace

void codebookRowsN(const float *x, float *const *out, std::int64_t rows, std::int64_t d, std::int64_t b, float r,
                   const bool *rot, const float *const *lv, const float *const *bound, int n)
{
    bool sorted = true;
    for (int k = 0; k < n; ++k)
        for (int i = 0; i + 1 < 15; ++i)
            sorted &= bound[k][i] <= bound[k][i + 1];
    if (!sorted) {
        for (int k = 0; k < n; ++k)
            codebookRows(x, out[k], rows, d, b, r, rot[k], lv[k], bound[k]);
        return;
    }
    std::int64_t i0 = 0;
    std::vector<v16f> t(static_cast<std::size_t>(d)), u(static_cast<std::size_t>(d));
    for (; i0 + W <= rows; i0 += W) {
        v16f nf, nn;
        v16i zero;
        normalizedBlock(x + i0 * d, d, t.data(), nf, nn, zero);
        // The sets without the rotation first, then the rotated ones from t rotated once.
        for (const bool rotated : {false, true}) {
            bool any = false;
            for (int k = 0; k < n; ++k)
                any |= rot[k] == rotated;
            if (!any)
                continue;
            if (rotated)
                hadamardT(t.data(), d, b, r);
            for (int k = 0; k < n; ++k) {
                if (rot[k] != rotated)
                    continue;
                codebookCodes(t.data(), u.data(), d, lv[k], bound[k]);
                if (rotated)
                    hadamardT(u.data(), d, b, r);
                for (std::int64_t j = 0; j < d; ++j)
                    u[j] = zero ? v16f{} : nn * u[j];
                scatter(u.data(), d, out[k] + i0 * d);
            }
        }
    }
    if (i0 < rows)
        for (int k = 0; k < n; ++k)
            codebookRows(x + i0 * d, out[k] + i0 * d, rows - i0, d, b, r, rot[k], lv[k], bound[k]);
}

void constOptRowsN(const float *x, float *const *out, std::int64_t rows, std::int64_t d, std::int64_t b, float r,
                   const float *fc, const bool *unrounded, int n)
{
    std::int64_t i0 = 0;
    std::vector<v16f> t(static_cast<std::size_t>(d)), u(static_cast<std::size_t>(d)),
        gmax(static_cast<std::size_t>((d + kvmath::kGroup - 1) / kvmath::kGroup));
    for (; i0 + W <= rows; i0 += W) {
        gather(x + i0 * d, d, t.data());
        hadamardT(t.data(), d, b, r);
        for (std::int64_t g = 0; g < d; g += kvmath::kGroup) {
            const std::int64_t len = std::min<std::int64_t>(kvmath::kGroup, d - g);
            v16f m{};
            for (std::int64_t j = g; j < g + len; ++j) {
                const v16f a = absv(t[j]);
                m = m < a ? a : m;
            }
            gmax[static_cast<std::size_t>(g / kvmath::kGroup)] = m;
        }
        for (int k = 0; k < n; ++k) {
            for (std::int64_t g = 0; g < d; g += kvmath::kGroup) {
                const std::int64_t len = std::min<std::int64_t>(kvmath::kGroup, d - g);
                const v16f m = gmax[static_cast<std::size_t>(g / kvmath::kGroup)];
                v16f sc, sd;
                for (int l = 0; l < W; ++l) {
                    sc[l] = fp4::constOptScale(m[l], fc[k], unrounded[k]);
                    sd[l] = sc[l] > 0.0f ? sc[l] : 1.0f;
                }
                const v16i pos = sc > 0.0f;
                for (std::int64_t j = g; j < g + len; ++j)
                    u[j] = pos ? e2m1Round(t[j] / sd) * sc : v16f{};
            }
            hadamardT(u.data(), d, b, r);
            scatter(u.data(), d, out[k] + i0 * d);
        }
    }
    if (i0 < rows)
        for (int k = 0; k < n; ++k)
            constOptRows(x + i0 * d, out[k] + i0 * d, rows - i0, d, b, r, fc[k], unrounded[k]);
}

float absmax(const float *x, std::int64_t n)
{
    v16f m{};
    std::int64_t i = 0;
    for (; i + W <= n; i += W) {
        const v16f a = absv(load(x + i));
        m = m < a ? a : m;
    }
    float r = 0;
    for (int l = 0; l < W; ++l)
        r = kvmath::maxf(r, m[l]);
    for (; i < n; ++i)
        r = kvmath::maxf(r, qmath::absf(x[i]));
    return r;
}

void fp8Values(const float *x, float *out, std::int64_t n, float s)
{
    std::int64_t i = 0;
    if (s > 0.0f)
        for (; i + W <= n; i += W)
            store(out + i, e4m3Round(load(x + i) / s) * s);
    for (; i < n; ++i)
        out[i] = kvmath::fp8Value(x[i], s);
}

void bf16Values(const float *x, float *out, std::int64_t n)
{
    std::int64_t i = 0;
    for (; i + W <= n; i += W) {
        const v16u u = bits(load(x + i));
        const v16u nanv = (u | 0x00400000u) & 0xFFFF0000u;
        const v16u r = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u;
        store(out + i, fromBits((u & 0x7FFFFFFFu) > 0x7F800000u ? nanv : r));
    }
    for (; i < n; ++i)
        out[i] = qmath::roundBf16(x[i]);
}

void mxfp4Rows(const float *x, float *out, std::int64_t rows, std::int64_t d)
{
    for (std::int64_t i = 0; i < rows; ++i) {
        const float *xr = x + i * d;
        float *orow = out + i * d;
        if (d % W != 0) {
            kvmath::mxfp4Row(xr, orow, d);
            continue;
        }
        for (std::int64_t g = 0; g < d; g += kvmath::kGroup) {
            const std::int64_t len = std::min<std::int64_t>(kvmath::kGroup, d - g);
            // The scale reads max(|mn|, |mx|) only: the order of the min/max reduction is free.
            v16f mn = load(xr + g), mx = mn;
            for (std::int64_t j = g + W; j < g + len; j += W) {
                const v16f v = load(xr + j);
                mn = v < mn ? v : mn;
                mx = mx < v ? v : mx;
            }
            float a = mn[0], bmax = mx[0];
            for (int l = 1; l < W; ++l) {
                a = kvmath::minf(a, mn[l]);
                bmax = kvmath::maxf(bmax, mx[l]);
            }
            const float s = fp4::mxGroupScale(a, bmax, fp4::MxEven);
            for (std::int64_t j = g; j < g + len; j += W)
                store(orow + j, e2m1Round(load(xr + j) / s) * s);
        }
    }
}

void nvfp4Rows(const float *x, float *out, std::int64_t rows, std::int64_t d, float global)
{
    for (std::int64_t i = 0; i < rows; ++i) {
        const float *xr = x + i * d;
        float *orow = out + i * d;
        if (d % W != 0) {
            kvmath::nvfp4Row(xr, orow, d, global);
            continue;
        }
        for (std::int64_t g = 0; g < d; g += kvmath::kNvGroup) {
            const v16f a = absv(load(xr + g));
            float amax = 0;
            for (int l = 0; l < W; ++l)
                amax = kvmath::maxf(amax, a[l]);
            float bs = kvmath::e4m3Value(kvmath::e4m3Code(fp4::nvBlockTarget(amax, global)));
            if (bs == 0.0f)
                bs = 0.125f;
            const float eff = fp4::nvEffective(bs, global);
            store(orow + g, e2m1Round(load(xr + g) / eff) * eff);
        }
    }
}

namespace {

/// kvmath::int4Group's per-element step on 16 lanes, given the group's s and z per lane.
inline v16f int4Values(v16f x, v16f s, v16f z)
{
    const v16i pos = s > 0.0f;
    const v16f sd = pos ? s : splat(1.0f);
    const v16f y = (x - z) / sd;
    // qmath::roundInt(y, false): RNE through 2^23, sign kept; |y| ≥ 2^23 is integral already.
    const v16f ay = absv(y);
    const v16f rr = (ay + 8388608.0f) - 8388608.0f;
    v16f q = ay < 8388608.0f ? fromBits(bits(rr) | (bits(y) & 0x80000000u)) : y;
    q = q < 0.0f ? v16f{} : (15.0f < q ? splat(15.0f) : q);
    return pos ? q * s + z : z;
}

} // namespace

void int4Head(const float *x, float *out, std::int64_t T, std::int64_t d, bool perChannel)
{
    constexpr std::int64_t G = kvmath::kGroup;
    if (perChannel) {
        for (std::int64_t t = 0; t < T; t += G) {
            const std::int64_t len = std::min(G, T - t);
            std::int64_t j = 0;
            for (; j + W <= d; j += W) {
                v16f mn = load(x + t * d + j), mx = mn;
                for (std::int64_t i = 0; i < len; ++i) {
                    const v16f v = load(x + (t + i) * d + j);
                    mn = v < mn ? v : mn; // minf(mn, v), sequential over the tokens
                    mx = mx < v ? v : mx;
                }
                v16f s, z;
                for (int l = 0; l < W; ++l) {
                    s[l] = qmath::roundF16(kvmath::fdiv(kvmath::fsub(mx[l], mn[l]), 15.0f));
                    z[l] = qmath::roundF16(mn[l]);
                }
                for (std::int64_t i = 0; i < len; ++i)
                    store(out + (t + i) * d + j, int4Values(load(x + (t + i) * d + j), s, z));
            }
            for (; j < d; ++j)
                kvmath::int4Group(x + t * d + j, out + t * d + j, len, d);
        }
        return;
    }
    std::int64_t i0 = 0;
    if (d % G == 0) {
        std::vector<v16f> t(static_cast<std::size_t>(d));
        for (; i0 + W <= T; i0 += W) {
            gather(x + i0 * d, d, t.data());
            for (std::int64_t g = 0; g < d; g += G) {
                v16f mn = t[g], mx = mn;
                for (std::int64_t j = g; j < g + G; ++j) {
                    mn = t[j] < mn ? t[j] : mn;
                    mx = mx < t[j] ? t[j] : mx;
                }
                v16f s, z;
                for (int l = 0; l < W; ++l) {
                    s[l] = qmath::roundF16(kvmath::fdiv(kvmath::fsub(mx[l], mn[l]), 15.0f));
                    z[l] = qmath::roundF16(mn[l]);
                }
                for (std::int64_t j = g; j < g + G; ++j)
                    t[j] = int4Values(t[j], s, z);
            }
            scatter(t.data(), d, out + i0 * d);
        }
    }
    for (std::int64_t i = i0; i < T; ++i)
        for (std::int64_t j = 0; j < d; j += G)
            kvmath::int4Group(x + i * d + j, out + i * d + j, std::min(G, d - j), 1);
}

void rotateRows(float *x, std::int64_t rows, std::int64_t d, std::int64_t b)
{
    const float r = hadamardNorm(b);
    std::int64_t i0 = 0;
    std::vector<v16f> t(static_cast<std::size_t>(d));
    for (; i0 + W <= rows; i0 += W) {
        gather(x + i0 * d, d, t.data());
        hadamardT(t.data(), d, b, r);
        scatter(t.data(), d, x + i0 * d);
    }
    for (std::int64_t i = i0; i < rows; ++i)
        for (std::int64_t o = 0; o < d; o += b)
            hadamardBlock(x + i * d + o, b, r);
}

void unitRotatedRows(const float *x, float *out, std::int64_t rows, std::int64_t d, std::int64_t b)
{
    const float r = b >= 2 ? hadamardNorm(b) : 1.0f;
    std::int64_t i0 = 0;
    std::vector<v16f> t(static_cast<std::size_t>(d));
    for (; i0 + W <= rows; i0 += W) {
        gather(x + i0 * d, d, t.data());
        double n2[W];
        norm2(t.data(), d, n2);
        v16f n;
        for (int l = 0; l < W; ++l)
            n[l] = static_cast<float>(kvmath::dsqrt(n2[l]));
        const v16i pos = n > 0.0f;
        const v16f nd = pos ? n : splat(1.0f);
        for (std::int64_t j = 0; j < d; ++j)
            t[j] = pos ? t[j] / nd : v16f{};
        if (b >= 2)
            hadamardT(t.data(), d, b, r);
        scatter(t.data(), d, out + i0 * d);
    }
    for (std::int64_t i = i0; i < rows; ++i) {
        kvmath::unitRow(x + i * d, out + i * d, d);
        if (b >= 2)
            for (std::int64_t o = 0; o < d; o += b)
                hadamardBlock(out + i * d + o, b, r);
    }
}

void prepareKeyRows(const float *x, float *rot, float *unit, std::int64_t rows, std::int64_t d, std::int64_t b,
                    double &normErr)
{
    const float r = hadamardNorm(b);
    auto raise = [&](double a, double rr) {
        if (a > 0)
            normErr = std::max(normErr, std::fabs(std::sqrt(rr) - std::sqrt(a)) / std::sqrt(a));
    };
    std::int64_t i0 = 0;
    std::vector<v16f> t(static_cast<std::size_t>(d)), u(static_cast<std::size_t>(d));
    for (; i0 + W <= rows; i0 += W) {
        gather(x + i0 * d, d, t.data());
        double a[W], rr[W];
        norm2(t.data(), d, a);
        std::copy(t.begin(), t.end(), u.begin());
        hadamardT(t.data(), d, b, r);
        norm2(t.data(), d, rr);
        scatter(t.data(), d, rot + i0 * d);
        v16f n;
        for (int l = 0; l < W; ++l) {
            n[l] = static_cast<float>(kvmath::dsqrt(a[l]));
            raise(a[l], rr[l]);
        }
        const v16i pos = n > 0.0f;
        const v16f nd = pos ? n : splat(1.0f);
        for (std::int64_t j = 0; j < d; ++j)
            u[j] = pos ? u[j] / nd : v16f{};
        hadamardT(u.data(), d, b, r);
        scatter(u.data(), d, unit + i0 * d);
    }
    if (i0 < rows) {
        std::copy(x + i0 * d, x + rows * d, rot + i0 * d);
        rotateRows(rot + i0 * d, rows - i0, d, b);
        unitRotatedRows(x + i0 * d, unit + i0 * d, rows - i0, d, b);
        for (std::int64_t i = i0; i < rows; ++i) {
            double a = 0, s = 0;
            for (std::int64_t j = 0; j < d; ++j) {
                a += static_cast<double>(x[i * d + j]) * x[i * d + j];
                s += static_cast<double>(rot[i * d + j]) * rot[i * d + j];
            }
            raise(a, s);
        }
    }
}

} // namespace quantscope::kvfast
