// SPDX-License-Identifier: MIT
// The kvfast:: sums and histograms (kv_rows_cpu.h): kurtosis, squared differences, the unit and
// unrounded-curve histograms — FP64 sums in vector lanes, each in its documented order.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kv/kv_rows_cpu.h"
#include "numeric/fp4math.h"
#include "numeric/lanes.h"

// Vector values passed between internal functions: see kv_rows_cpu.cpp (-Wpsabi).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace quantscope::kvfast {

namespace {

using lanes::e2m1Round;
using lanes::v16f;
using lanes::v8d;
using lanes::v8f;

} // namespace

double excessKurtosis(const float *x, std::size_t n)
{
    // FP64 moments, each sum in 16 lanes (16 consecutive values a step, the lanes added pairwise
    // at the end), the tail after them in order.
    const std::size_t n16 = n / 16 * 16;
    auto sum16 = [](lanes::v8d a, lanes::v8d b) {
        const lanes::v8d c = a + b;
        return ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]));
    };
    lanes::v8d s0{}, s1{};
    for (std::size_t i = 0; i < n16; i += 16) {
        const lanes::v16f v = lanes::load16(x + i);
        s0 += lanes::lowD(v);
        s1 += lanes::highD(v);
    }
    double mean = sum16(s0, s1);
    for (std::size_t i = n16; i < n; ++i)
        mean += x[i];
    mean /= static_cast<double>(n);
    lanes::v8d a2{}, b2{}, a4{}, b4{};
    for (std::size_t i = 0; i < n16; i += 16) {
        const lanes::v16f v = lanes::load16(x + i);
        const lanes::v8d e0 = lanes::lowD(v) - mean, e1 = lanes::highD(v) - mean;
        const lanes::v8d q0 = e0 * e0, q1 = e1 * e1;
        a2 += q0;
        b2 += q1;
        a4 += q0 * q0;
        b4 += q1 * q1;
    }
    double m2 = sum16(a2, b2), m4 = sum16(a4, b4);
    for (std::size_t i = n16; i < n; ++i) {
        const double e = x[i] - mean, e2 = e * e;
        m2 += e2;
        m4 += e2 * e2;
    }
    m2 /= static_cast<double>(n);
    m4 /= static_cast<double>(n);
    return m2 > 0 ? m4 / (m2 * m2) - 3 : 0;
}

void sumSquaredDiffAdd(const float *a, const float *b, std::int64_t n, double *accOut)
{
    v8d acc[4];
    std::memcpy(acc, accOut, sizeof acc);
    for (std::int64_t i = 0; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; ++k) {
            v8f x, y;
            std::memcpy(&x, a + i + 8 * k, sizeof x);
            std::memcpy(&y, b + i + 8 * k, sizeof y);
            const v8d e = __builtin_convertvector(x, v8d) - __builtin_convertvector(y, v8d);
            acc[k] += e * e;
        }
    std::memcpy(accOut, acc, sizeof acc);
}

double sumSquaredDiffFinish(const double *accIn, const float *a, const float *b, std::int64_t tail)
{
    v8d acc[4];
    std::memcpy(acc, accIn, sizeof acc);
    const v8d s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    double sum = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    for (std::int64_t i = 0; i < tail; ++i) {
        const double e = static_cast<double>(a[i]) - b[i];
        sum += e * e;
    }
    return sum;
}

double sumSquaredDiff(const float *a, const float *b, std::int64_t n)
{
    double acc[32] = {};
    sumSquaredDiffAdd(a, b, n, acc);
    const std::int64_t tail = n % 32;
    return sumSquaredDiffFinish(acc, a + (n - tail), b + (n - tail), tail);
}

void unitHistogramAdd(const float *x, std::int64_t rows, std::int64_t d, int bins, double *W, double *WU, double *WU2)
{
    typedef std::int64_t v8l __attribute__((vector_size(64)));
    // A bin's three sums side by side while adding (as histogramAdd), copied in and back out.
    thread_local std::vector<double> rec;
    rec.resize(static_cast<std::size_t>(3 * bins));
    double *acc = rec.data();
    for (int k = 0; k < bins; ++k) {
        acc[3 * k] = W[k];
        acc[3 * k + 1] = WU[k];
        acc[3 * k + 2] = WU2[k];
    }
    double wu[32], wu2[32];
    std::int64_t bin[32];
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t g = 0; g < d; g += 32) {
            const std::int64_t len = std::min<std::int64_t>(32, d - g);
            const float *p = x + r * d + g;
            float m = 0;
            for (std::int64_t i = 0; i < len; ++i)
                m = std::max(m, std::fabs(p[i]));
            if (!(m > 0))
                continue;
            const double w = static_cast<double>(m) * m;
            if (len == 32) {
                for (int k = 0; k < 4; ++k) {
                    v8f pf;
                    std::memcpy(&pf, p + 8 * k, sizeof pf);
                    const v8d u = __builtin_convertvector(pf, v8d) / static_cast<double>(m);
                    // (u + 1)/2·bins ≥ 0 (|u| ≤ 1): truncation is the floor.
                    v8l b = __builtin_convertvector(((u + 1.0) * 0.5) * static_cast<double>(bins), v8l);
                    b = b < 0 ? v8l{} : b;
                    b = b > bins - 1 ? v8l{} + (bins - 1) : b;
                    const v8d a = w * u, a2 = a * u;
                    std::memcpy(wu + 8 * k, &a, sizeof a);
                    std::memcpy(wu2 + 8 * k, &a2, sizeof a2);
                    std::memcpy(bin + 8 * k, &b, sizeof b);
                }
                for (int i = 0; i < 32; ++i) {
                    double *e = acc + 3 * bin[i];
                    e[0] += w;
                    e[1] += wu[i];
                    e[2] += wu2[i];
                }
                continue;
            }
            for (std::int64_t i = 0; i < len; ++i) {
                const double u = static_cast<double>(p[i]) / m;
                const int b = std::clamp(static_cast<int>(std::floor((u + 1.0) * 0.5 * bins)), 0, bins - 1);
                acc[3 * b] += w;
                acc[3 * b + 1] += w * u;
                acc[3 * b + 2] += w * u * u;
            }
        }
    for (int k = 0; k < bins; ++k) {
        W[k] = acc[3 * k];
        WU[k] = acc[3 * k + 1];
        WU2[k] = acc[3 * k + 2];
    }
}

void unroundedTerms(const double *mean, const double *W, const double *WU, const double *WU2, std::int64_t n, float fc,
                    double *term)
{
    const double f = fc;
    std::int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        v8d m0, m1;
        std::memcpy(&m0, mean + i, sizeof m0);
        std::memcpy(&m1, mean + i + 8, sizeof m1);
        const v8f a0 = __builtin_convertvector(m0 / f, v8f), a1 = __builtin_convertvector(m1 / f, v8f);
        v16f a;
        std::memcpy(&a, &a0, sizeof a0);
        std::memcpy(reinterpret_cast<char *>(&a) + sizeof a0, &a1, sizeof a1);
        const v16f r = e2m1Round(a);
        v8f r0, r1;
        std::memcpy(&r0, &r, sizeof r0);
        std::memcpy(&r1, reinterpret_cast<const char *>(&r) + sizeof r0, sizeof r1);
        const v8d q[2] = {f * __builtin_convertvector(r0, v8d), f * __builtin_convertvector(r1, v8d)};
        for (int h = 0; h < 2; ++h) {
            v8d w, wu, wu2;
            std::memcpy(&w, W + i + 8 * h, sizeof w);
            std::memcpy(&wu, WU + i + 8 * h, sizeof wu);
            std::memcpy(&wu2, WU2 + i + 8 * h, sizeof wu2);
            const v8d t = wu2 - 2.0 * q[h] * wu + q[h] * q[h] * w;
            std::memcpy(term + i + 8 * h, &t, sizeof t);
        }
    }
    for (; i < n; ++i) {
        const double q = f * static_cast<double>(fp4::e2m1RoundValue(static_cast<float>(mean[i] / f)));
        term[i] = WU2[i] - 2 * q * WU[i] + q * q * W[i];
    }
}

void histogramAdd(const float *y, std::int64_t n, int bins, double *count, double *s1, double *s2)
{
    typedef std::int64_t v8l __attribute__((vector_size(64)));
    // The three sums of a bin side by side while adding (one cache line per value instead of three),
    // copied in and back out: each bin's sums see the same adds in the same order.
    thread_local std::vector<double> rec;
    rec.resize(static_cast<std::size_t>(3 * bins));
    double *r = rec.data();
    for (int k = 0; k < bins; ++k) {
        r[3 * k] = count[k];
        r[3 * k + 1] = s1[k];
        r[3 * k + 2] = s2[k];
    }
    std::int64_t i = 0;
    std::int64_t bin[8];
    double sq[8];
    for (; i + 8 <= n; i += 8) {
        v8f yf;
        std::memcpy(&yf, y + i, sizeof yf);
        const v8d v = __builtin_convertvector(yf, v8d);
        // (v + 1)·0.5 is (v + 1)/2 exactly (v + 1 is a normal FP64 value or 0).
        const v8d t = (v + 1.0) * 0.5 * static_cast<double>(bins);
        // Truncation equals the floor for t ≥ 0; t < 0 clamps to bin 0 either way.
        v8l b = __builtin_convertvector(t, v8l);
        b = t < 0.0 ? v8l{} : b;
        b = b > bins - 1 ? v8l{} + (bins - 1) : b;
        const v8d v2 = v * v;
        std::memcpy(bin, &b, sizeof b);
        std::memcpy(sq, &v2, sizeof v2);
        for (int l = 0; l < 8; ++l) {
            double *e = r + 3 * bin[l];
            e[0] += 1;
            e[1] += y[i + l];
            e[2] += sq[l];
        }
    }
    for (; i < n; ++i) {
        const int b = std::clamp(static_cast<int>(std::floor((static_cast<double>(y[i]) + 1) / 2 * bins)), 0, bins - 1);
        r[3 * b] += 1;
        r[3 * b + 1] += y[i];
        r[3 * b + 2] += static_cast<double>(y[i]) * y[i];
    }
    for (int k = 0; k < bins; ++k) {
        count[k] = r[3 * k];
        s1[k] = r[3 * k + 1];
        s2[k] = r[3 * k + 2];
    }
}

} // namespace quantscope::kvfast
