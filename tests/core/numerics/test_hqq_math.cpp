// SPDX-License-Identifier: MIT
// The QS_HD arithmetic HQQ shares with the GPU kernels (core/quant/hqq_math.h): the libm-free pow
// against the C library's, the exact fixed-point sums, and a host emulation of the device
// algorithm (one group at a time through hqqGroupSums, the 128-bit global sum, the stop rule, the
// final codes — gpu/kernels/hqq.cu's order of work) against hqqQuantizeFlat (the CPU's AVX2 path
// where built): the two must agree bit for bit, which is what makes the GPU's codes the CPU's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

#include "numeric/qmath.h"
#include "quant/hqq.h"
#include "quant/hqq_math.h"

using namespace quantscope;

namespace {

bool sameBits(float a, float b)
{
    return std::memcmp(&a, &b, 4) == 0;
}

struct Emulated {
    std::vector<std::uint8_t> codes;
    std::vector<float> scales, zeros, deq;
    std::vector<float> errs;
    std::int64_t bad = 0, firstBad = -1;
};

/// gpu/kernels/hqq.cu's algorithm, run on the host with the same QS_HD functions. chunk 0: one
/// launch per iteration (kHqqIterate); chunk > 0: the fused chunks (kHqqChunk) — every group runs
/// `chunk` iterations from the kept z before the chunk's errors are known, each iteration's z in a
/// slot, then hqqChunkVerdict picks the kept slot (the speculative iterations after a stop are
/// dropped).
Emulated emulateDevice(const std::vector<float> &w, const HqqSpec &s, int chunk = 0)
{
    const auto n = static_cast<std::int64_t>(w.size());
    const std::int64_t g = s.group, G = n / g;
    const bool a1 = s.axis == 1, fp16 = s.compute == HqqCompute::Fp16;
    const float qmax = static_cast<float>((1 << s.bits) - 1);
    auto idx = [&](std::int64_t j, std::int64_t t) { return a1 ? j * g + t : t * G + j; };
    std::vector<float> sig(G), z(G);
    std::vector<std::uint8_t> bad(G);
    Emulated e;
    float amax = 0.0f;
    for (std::int64_t j = 0; j < G; ++j) {
        float mn = std::numeric_limits<float>::infinity(), mx = -mn;
        bool nf = false;
        for (std::int64_t t = 0; t < g; ++t) {
            const float v = w[idx(j, t)];
            if (!qmath::isFinite(v)) {
                nf = true;
                if (e.firstBad < 0 || idx(j, t) < e.firstBad)
                    e.firstBad = idx(j, t);
            }
            mn = v < mn ? v : mn;
            mx = v > mx ? v : mx;
        }
        if (nf) {
            bad[j] = 1, sig[j] = 1.0f, z[j] = 0.0f, ++e.bad;
            continue;
        }
        amax = std::max(amax, std::max(std::fabs(mn), std::fabs(mx)));
        const float d = mx - mn;
        float sg = qmax / d;
        if (s.preset == HqqPreset::HqqLib && std::fabs(d) <= 1e-4f)
            sg = 1.0f;
        sg = sg > 2e4f ? 2e4f : sg;
        float zz = -mn * sg;
        if (s.roundsZero())
            zz = hqqmath::rne(zz);
        sig[j] = fp16 ? qmath::roundF16(sg) : sg;
        z[j] = fp16 ? qmath::roundF16(zz) : zz;
    }
    const std::int64_t counted = (G - e.bad) * g;
    hqqmath::HqqIterParams P;
    P.qmax = qmax;
    P.fp16 = fp16;
    P.powExp = hqqPowExponent(fp16);
    const float zfactor = static_cast<float>(G) / static_cast<float>(n);
    const int unit = hqqmath::hqqFixedUnit(amax, qmax, counted);
    float best = std::numeric_limits<float>::infinity();
    auto groupSums = [&](std::int64_t j, float zz, double &es, double &zs) {
        auto x = [&](std::int64_t t) {
            const float v = w[idx(j, t)];
            return fp16 ? qmath::roundF16(v) : v;
        };
        if (g == 64) // the device's fused path: the unrolled variant
            hqqmath::hqqGroupSums<64>(hqqmath::hqqElems(x), g, sig[j], zz, P, es, zs);
        else
            hqqmath::hqqGroupSums(hqqmath::hqqElems(x), g, sig[j], zz, P, es, zs);
    };
    if (chunk > 0) {
        std::vector<float> zh(static_cast<std::size_t>(chunk * G)), hist(static_cast<std::size_t>(s.iters));
        int slot = -1, itersRun = 0;
        for (int it0 = 1; counted > 0 && it0 <= s.iters; it0 += chunk) {
            const int count = std::min(chunk, s.iters - it0 + 1);
            std::vector<hqqmath::U128> total(static_cast<std::size_t>(count));
            std::vector<unsigned> status(static_cast<std::size_t>(count), 0u);
            for (std::int64_t j = 0; j < G; ++j) {
                if (bad[j])
                    continue;
                float zz = slot < 0 ? z[j] : zh[static_cast<std::size_t>(slot * G + j)];
                for (int k = 0; k < count; ++k) {
                    double es, zs;
                    groupSums(j, zz, es, zs);
                    zz = hqqmath::hqqNewZero(zs, zfactor, g, fp16);
                    zh[static_cast<std::size_t>(k * G + j)] = zz;
                    hqqmath::U128 kf;
                    status[k] |= hqqmath::hqqToFixed(es, unit, kf);
                    total[k] = hqqmath::add(total[k], kf);
                }
            }
            std::vector<float> errs(static_cast<std::size_t>(count));
            for (int k = 0; k < count; ++k)
                errs[k] = hqqmath::hqqGlobalError(total[k], unit, status[k], counted, fp16);
            bool stopped = false;
            slot = hqqmath::hqqChunkVerdict(errs.data(), it0, count, best, hist.data(), itersRun, stopped);
            if (stopped)
                break;
        }
        for (std::int64_t j = 0; j < G; ++j)
            if (!bad[j] && slot >= 0)
                z[j] = zh[static_cast<std::size_t>(slot * G + j)];
        e.errs.assign(hist.begin(), hist.begin() + itersRun);
    }
    for (int it = 1; chunk == 0 && counted > 0 && it <= s.iters; ++it) {
        hqqmath::U128 total;
        unsigned status = 0;
        for (std::int64_t j = G - 1; j >= 0; --j) { // any order: the sum is exact
            if (bad[j])
                continue;
            double es, zs;
            groupSums(j, z[j], es, zs);
            z[j] = hqqmath::hqqNewZero(zs, zfactor, g, fp16);
            hqqmath::U128 k;
            status |= hqqmath::hqqToFixed(es, unit, k);
            total = hqqmath::add(total, k);
        }
        const float err = hqqmath::hqqGlobalError(total, unit, status, counted, fp16);
        e.errs.push_back(err);
        if (err < best)
            best = err;
        else
            break;
    }
    e.codes.assign(n, 0);
    e.deq.assign(n, 0.0f);
    e.scales.assign(G, 1.0f);
    e.zeros.assign(G, 0.0f);
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t j = a1 ? i / g : i % G;
        if (bad[j])
            continue;
        const float sc = fp16 ? qmath::roundF16(1.0f / sig[j]) : 1.0f / sig[j];
        e.scales[j] = sc;
        e.zeros[j] = z[j];
        const float q = hqqmath::clampf(hqqmath::rne(w[i] * sig[j] + z[j]), 0.0f, qmax);
        e.codes[i] = static_cast<std::uint8_t>(q);
        e.deq[i] = fp16 ? qmath::roundF16(qmath::roundF16(q - z[j]) * sc) : (q - z[j]) * sc;
    }
    return e;
}

std::vector<float> studentT(std::int64_t n, unsigned seed, float scale)
{
    std::mt19937 gen(seed);
    std::student_t_distribution<float> td(3.0f);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (auto &x : v)
        x = scale * td(gen);
    return v;
}

} // namespace

TEST(HqqMath, PowTableMatchesTheCLibraryAfterFp16Rounding)
{
    // The fp16 table moved from std::pow to hqqPow: every entry that can matter (|e| ≥ 0.16) is
    // unchanged, so compute fp16 gives the codes it gave before.
    const float e = hqqPowExponent(true);
    EXPECT_EQ(e, -0.300048828125f);
    const auto &table = hqqFp16PowTable();
    int diff = 0, checked = 0;
    for (std::uint32_t b = 0; b < 0x7C00u; ++b) {
        const float a = b >= 0x400u ? qmath::fromBits(((b >> 10) + 112u) << 23 | (b & 0x3FFu) << 13)
                                    : static_cast<float>(b) / 16777216.0f;
        if (a < hqqmath::kHqqShrinkFrom)
            continue;
        ++checked;
        diff += !sameBits(table[b], qmath::roundF16(std::pow(a, e)));
    }
    EXPECT_GT(checked, 19000);
    EXPECT_EQ(diff, 0);
    EXPECT_TRUE(std::isinf(hqqmath::hqqPow(0.0f, e)));
    EXPECT_EQ(hqqmath::hqqPow(std::numeric_limits<float>::infinity(), e), 0.0f);
}

TEST(HqqMath, PowIsCorrectlyRoundedAndWithinOneUlpOfTheCLibrary)
{
    const float e = hqqPowExponent(false);
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> lg(-140.0f, 120.0f);
    int ulp1 = 0, worse = 0;
    const int N = 400000;
    for (int i = 0; i < N; ++i) {
        const float a = std::exp2(lg(gen));
        const float mine = hqqmath::hqqPow(a, e), lib = std::pow(a, e);
        const auto d = static_cast<std::int64_t>(qmath::bitsOf(mine)) - static_cast<std::int64_t>(qmath::bitsOf(lib));
        ulp1 += d == 1 || d == -1;
        worse += d > 1 || d < -1;
        // Against an FP64 reference: within half an ulp plus the FP64 error.
        const double ref = std::pow(static_cast<double>(a), static_cast<double>(e));
        ASSERT_LE(std::fabs(static_cast<double>(mine) - ref), 0.5000001 * std::ldexp(1.0, std::ilogb(ref) - 23))
            << "a = " << a;
    }
    // glibc's powf is not correctly rounded everywhere (0.82 ulp bound): it differs from hqqPow by
    // one ulp in about 0.07 % of these arguments (compute fp32 with |e| ≥ 0.16 only).
    EXPECT_EQ(worse, 0);
    EXPECT_LE(ulp1, N / 500) << "hqqPow and the C library's powf differ by one ulp in " << ulp1 << " of " << N;
    std::printf("[ measured ] hqqPow vs the C library's powf: %d of %d differ by one ulp\n", ulp1, N);
}

TEST(HqqMath, FixedSumsAreExactForFp16Sums)
{
    // Sums of FP16 values (compute fp16's |e| sums) are multiples of 2^-24: the fixed-point total
    // equals the exact FP64 sum, in any order.
    std::mt19937 gen(3);
    std::uniform_int_distribution<int> bits(0, 0x7BFF);
    const int unit = hqqmath::hqqFixedUnit(2.0f, 15.0f, 1 << 20);
    for (int rep = 0; rep < 50; ++rep) {
        double seq = 0.0;
        hqqmath::U128 fwd, bwd;
        std::vector<double> vals;
        for (int i = 0; i < 1000; ++i) {
            const auto b = static_cast<std::uint32_t>(bits(gen)) & 0x5FFFu; // below 2^8
            const float a = b >= 0x400u ? qmath::fromBits(((b >> 10) + 112u) << 23 | (b & 0x3FFu) << 13)
                                        : static_cast<float>(b) / 16777216.0f;
            vals.push_back(a);
            seq += a;
        }
        for (std::size_t i = 0; i < vals.size(); ++i) {
            hqqmath::U128 k1, k2;
            ASSERT_EQ(hqqmath::hqqToFixed(vals[i], unit, k1), 0u);
            ASSERT_EQ(hqqmath::hqqToFixed(vals[vals.size() - 1 - i], unit, k2), 0u);
            EXPECT_EQ(hqqmath::hqqToDouble(k1, unit), vals[i]);
            fwd = hqqmath::add(fwd, k1);
            bwd = hqqmath::add(bwd, k2);
        }
        EXPECT_EQ(fwd.lo, bwd.lo);
        EXPECT_EQ(fwd.hi, bwd.hi);
        EXPECT_EQ(hqqmath::hqqToDouble(fwd, unit), seq);
    }
    hqqmath::U128 k;
    EXPECT_EQ(hqqmath::hqqToFixed(std::numeric_limits<double>::infinity(), unit, k), hqqmath::kHqqSumInf);
    EXPECT_EQ(hqqmath::hqqToFixed(std::nan(""), unit, k), hqqmath::kHqqSumNaN);
    EXPECT_TRUE(std::isinf(hqqmath::hqqGlobalError(k, unit, hqqmath::kHqqSumInf, 64, true)));
}

TEST(HqqMath, DeviceAlgorithmEmulatedMatchesTheCpuBitForBit)
{
    struct Case {
        std::int64_t rows, cols, g;
        int bits, axis;
        HqqPreset preset;
        float scale;
    };
    const Case cases[] = {
        {64, 256, 64, 4, 1, HqqPreset::HqqLib, 0.02f},   {64, 256, 64, 4, 0, HqqPreset::HqqLib, 1.0f},
        {172, 64, 64, 3, 0, HqqPreset::MiloCode, 0.02f}, {172, 64, 64, 3, 1, HqqPreset::MiloCode, 3.0f},
        {24, 40, 48, 2, 1, HqqPreset::HqqLib, 1.0f},     {21, 30, 35, 5, 0, HqqPreset::MiloCode, 2.0f},
        {16, 64, 16, 8, 0, HqqPreset::HqqLib, 0.5f},     {30, 86, 43, 4, 1, HqqPreset::MiloCode, 10.0f},
    };
    float maxErr = 0.0f;
    int stoppedInsideAChunk = 0;
    // chunk 0: the per-iteration kernels; 1, 3, 4, 8: the fused chunks (stops inside a chunk, at its
    // end, iteration limits that are not a multiple of the chunk).
    for (const int chunk : {0, 1, 3, 4, 8})
        for (const int iters : {20, 7})
            for (const auto &c : cases)
                for (HqqCompute comp : {HqqCompute::Fp32, HqqCompute::Fp16})
                    for (bool nonFinite : {false, true}) {
                        HqqSpec s = HqqSpec::forPreset(c.preset);
                        s.bits = c.bits, s.group = c.g, s.axis = c.axis, s.compute = comp, s.iters = iters;
                        SCOPED_TRACE(s.toJson().dump() + " scale " + std::to_string(c.scale) +
                                     (nonFinite ? " NaN" : "") + " chunk " + std::to_string(chunk));
                        auto w = studentT(c.rows * c.cols, static_cast<unsigned>(c.rows * 7 + c.g), c.scale);
                        if (nonFinite) {
                            w[5] = std::numeric_limits<float>::quiet_NaN();
                            w[w.size() - 3] = -std::numeric_limits<float>::infinity();
                        }
                        const HqqResult r = hqqQuantizeFlat(w, s, true, 2, "t", nullptr);
                        const Emulated e = emulateDevice(w, s, chunk);
                        const auto ran = static_cast<int>(r.history.size());
                        stoppedInsideAChunk += chunk > 1 && ran < iters && ran % chunk != 0;
                        std::int64_t codeDiff = 0, deqDiff = 0, scaleDiff = 0, zeroDiff = 0;
                        for (std::size_t i = 0; i < w.size(); ++i) {
                            codeDiff += r.codes[i] != e.codes[i];
                            deqDiff += !sameBits(r.dequantized[i], e.deq[i]);
                        }
                        for (std::size_t j = 0; j < r.scales.size(); ++j) {
                            scaleDiff += !sameBits(r.scales[j], e.scales[j]);
                            zeroDiff += !sameBits(r.zeros[j], e.zeros[j]);
                        }
                        EXPECT_EQ(codeDiff, 0);
                        EXPECT_EQ(deqDiff, 0);
                        EXPECT_EQ(scaleDiff, 0);
                        EXPECT_EQ(zeroDiff, 0);
                        EXPECT_EQ(r.nonFiniteGroups, e.bad);
                        EXPECT_EQ(r.firstNonFinite, e.firstBad);
                        EXPECT_EQ(nonFinite, e.bad > 0);
                        ASSERT_EQ(r.history.size(), e.errs.size());
                        for (std::size_t i = 0; i < e.errs.size(); ++i)
                            EXPECT_TRUE(sameBits(static_cast<float>(r.history[i].eps), e.errs[i]))
                                << "iteration " << i + 1;
                        for (std::size_t i = 0; i < w.size(); ++i)
                            if (qmath::isFinite(w[i]))
                                maxErr = std::max(maxErr, std::fabs(w[i] - r.dequantized[i]));
                    }
    // Large scales put |e| above kHqqShrinkFrom: the pow path took part.
    EXPECT_GT(maxErr, 2.0f * hqqmath::kHqqShrinkFrom);
    // The fused chunks dropped speculative iterations somewhere.
    EXPECT_GT(stoppedInsideAChunk, 0);
}

TEST(HqqMath, CodeTableGivesTheSameElementResultsAsTheDivision)
{
    // The device reads W_r of each code from a per-group table instead of dividing per element:
    // |e| and the z term must be the same bits for every element, both precisions, every bit width
    // the table serves, including elements that clamp and codes that round to −0.
    std::mt19937 rng(5);
    std::normal_distribution<float> nd(0.0f, 0.02f);
    std::uniform_real_distribution<float> ud(0.5f, 3000.0f);
    std::size_t compared = 0;
    for (const bool fp16 : {false, true})
        for (const float qmax : {1.0f, 3.0f, 7.0f, 15.0f})
            for (int grp = 0; grp < 200; ++grp) {
                hqqmath::HqqIterParams P;
                P.qmax = qmax;
                P.fp16 = fp16;
                P.powExp = fp16 ? -0.300048828125f : -0.3f;
                float s = ud(rng), zz = std::uniform_real_distribution<float>(-1.0f, qmax + 1.0f)(rng);
                if (fp16) {
                    s = qmath::roundF16(s);
                    zz = qmath::roundF16(zz);
                }
                float T[16];
                for (int c = 0; c <= static_cast<int>(qmax); ++c)
                    T[c] = hqqmath::hqqDequantCode(static_cast<float>(c), s, zz, fp16);
                for (int t = 0; t < 64; ++t) {
                    float x = nd(rng) * (t % 9 == 0 ? 40.0f : 1.0f);
                    if (fp16)
                        x = qmath::roundF16(x);
                    float a1, v1, a2, v2;
                    hqqmath::hqqElement(x, s, zz, P, a1, v1);
                    hqqmath::hqqElement(x, s, zz, P, a2, v2, T, 1);
                    ASSERT_EQ(std::memcmp(&a1, &a2, 4), 0) << x << " s " << s << " z " << zz;
                    ASSERT_EQ(std::memcmp(&v1, &v2, 4), 0) << x << " s " << s << " z " << zz;
                    ++compared;
                }
            }
    EXPECT_EQ(compared, 2u * 4u * 200u * 64u);
}

TEST(HqqMath, ChunkVerdictAppliesTheStopRuleInOrder)
{
    // hqq.cpp's loop: an error below the best goes on; equal, larger or NaN stops after that
    // iteration, whose z is kept. The chunk's later errors were speculative: not recorded.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    struct Case {
        std::vector<float> errs;
        float best;
        int kept;
        bool stopped;
    };
    const Case cases[] = {{{3.0f, 2.0f, 2.0f, 1.0f}, 5.0f, 2, true},
                          {{3.0f, 2.0f, 1.5f, 1.0f}, 5.0f, 3, false},
                          {{6.0f, 1.0f}, 5.0f, 0, true},
                          {{4.0f, nan, 1.0f}, 5.0f, 1, true},
                          {{1.0f}, std::numeric_limits<float>::infinity(), 0, false}};
    for (const Case &c : cases) {
        std::vector<float> hist(20, -1.0f);
        float best = c.best;
        int itersRun = 4;
        bool stopped = false;
        const int kept = hqqmath::hqqChunkVerdict(c.errs.data(), 5, static_cast<int>(c.errs.size()), best, hist.data(),
                                                  itersRun, stopped);
        EXPECT_EQ(kept, c.kept);
        EXPECT_EQ(stopped, c.stopped);
        EXPECT_EQ(itersRun, 5 + c.kept);
        for (int k = 0; k <= c.kept; ++k)
            EXPECT_TRUE(sameBits(hist[4 + k], c.errs[k]));
        for (std::size_t k = 4 + c.kept + 1; k < hist.size(); ++k)
            EXPECT_EQ(hist[k], -1.0f);
        float expectBest = c.best;
        for (int k = 0; k <= c.kept; ++k)
            expectBest = c.errs[k] < expectBest ? c.errs[k] : expectBest;
        EXPECT_TRUE(sameBits(best, expectBest));
    }
}
