// SPDX-License-Identifier: MIT
#pragma once
/// \file groupwise.h
/// The CPU driver shared by the one-shot quantizers whose groups are defined by a GroupLayout:
/// pass 1 finds each group's finite min/max (and NaN/Inf), the policy turns them into scale and
/// zero point, pass 2 codes every element (and dequantizes on request). Rows are split over
/// threads; min/max merges are exact, so the result does not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "numeric/qmath.h"
#include "quant/quantizer.h"
#include "util/buffers.h"
#include "util/parallel.h"

namespace quantscope::detail {

/// Calls fn(c0, c1, g) for each run [c0, c1) of row r whose elements share group g.
template <typename Fn> void forRowSegments(const GroupLayout &L, std::int64_t r, Fn &&fn)
{
    const std::int64_t C = L.cols;
    switch (L.granularity) {
    case Granularity::Tensor:
        fn(0, C, 0);
        return;
    case Granularity::Channel:
        if (L.axis == 0)
            fn(0, C, r);
        else
            for (std::int64_t c = 0; c < C; ++c)
                fn(c, c + 1, c);
        return;
    case Granularity::Group:
        for (std::int64_t j = 0; j < L.gridCols; ++j)
            fn(j * L.group, std::min(C, (j + 1) * L.group), r * L.gridCols + j);
        return;
    case Granularity::Block: {
        const std::int64_t base = (r / L.block) * L.gridCols;
        for (std::int64_t j = 0; j < L.gridCols; ++j)
            fn(j * L.block, std::min(C, (j + 1) * L.block), base + j);
        return;
    }
    }
}

/// Policy: void params(float mn, float mx, float &s, int &z) const;
/// void codeSpan(const float *x, std::int64_t n, float s, int z, std::uint8_t *codes, float *deq) const
/// (deq may be null); float dequant(std::uint8_t c, float s, int z) const; badScale(), badCode(),
/// hasZeroPoint().
template <typename Policy>
void quantizeGroupwise(const Tensor &w, const Policy &policy, QuantizedTensor &out, const QuantizeOptions &options,
                       const CancelToken *cancel)
{
    const GroupLayout &L = out.layout;
    const std::int64_t R = L.rows, C = L.cols, G = L.groupCount();
    const int threads = resolveThreads(options.threads);
    assignZeroedLarge(out.codes, static_cast<std::size_t>(R * C));
    out.scales.assign(static_cast<std::size_t>(G), 0.0f);
    if (options.wantDequantized)
        assignZeroedLarge(out.dequantized, static_cast<std::size_t>(R * C));

    // Groups owned by one row (group / channel axis 0) need no cross-thread merge.
    const bool rowLocal = L.granularity == Granularity::Group || (L.granularity == Granularity::Channel && L.axis == 0);
    const int parts = static_cast<int>(std::clamp<std::int64_t>(R, 1, threads));
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<std::vector<float>> mins, maxs;
    std::vector<std::vector<std::uint8_t>> bads;
    std::vector<float> gmin(static_cast<std::size_t>(G), inf), gmax(static_cast<std::size_t>(G), -inf);
    std::vector<std::uint8_t> gbad(static_cast<std::size_t>(G), 0);
    std::vector<std::int64_t> firstBad(static_cast<std::size_t>(parts), -1);
    if (!rowLocal) {
        mins.assign(static_cast<std::size_t>(parts), std::vector<float>(static_cast<std::size_t>(G), inf));
        maxs.assign(static_cast<std::size_t>(parts), std::vector<float>(static_cast<std::size_t>(G), -inf));
        bads.assign(static_cast<std::size_t>(parts), std::vector<std::uint8_t>(static_cast<std::size_t>(G), 0));
    }

    // Pass 1: finite min/max per group, non-finite flags (branch-free inner loop).
    parallelSlices(R, parts, cancel, [&](int p, std::int64_t r0, std::int64_t r1) {
        std::vector<float> row(static_cast<std::size_t>(C));
        float *mn = rowLocal ? gmin.data() : mins[static_cast<std::size_t>(p)].data();
        float *mx = rowLocal ? gmax.data() : maxs[static_cast<std::size_t>(p)].data();
        std::uint8_t *bd = rowLocal ? gbad.data() : bads[static_cast<std::size_t>(p)].data();
        for (std::int64_t r = r0; r < r1; ++r) {
            if (cancel && (r & 63) == 0)
                cancel->check();
            w.decodeRange(r * C, row);
            forRowSegments(L, r, [&](std::int64_t c0, std::int64_t c1, std::int64_t g) {
                const float *x = row.data() + c0;
                const std::int64_t len = c1 - c0;
                float lo = mn[g], hi = mx[g];
                std::uint32_t bad = 0;
                for (std::int64_t i = 0; i < len; ++i) {
                    const float v = x[i];
                    bad |= static_cast<std::uint32_t>((qmath::bitsOf(v) & 0x7F800000u) == 0x7F800000u);
                    lo = v < lo ? v : lo; // NaN never wins a comparison
                    hi = v > hi ? v : hi;
                }
                mn[g] = lo;
                mx[g] = hi;
                if (bad) {
                    bd[g] = 1;
                    for (std::int64_t i = 0; i < len; ++i)
                        if (!qmath::isFinite(x[i])) {
                            auto &fb = firstBad[static_cast<std::size_t>(p)];
                            if (fb < 0 || r * C + c0 + i < fb)
                                fb = r * C + c0 + i;
                            break;
                        }
                }
            });
        }
    });
    if (!rowLocal) {
        for (int p = 0; p < parts; ++p)
            for (std::int64_t g = 0; g < G; ++g) {
                gmin[g] = std::min(gmin[g], mins[static_cast<std::size_t>(p)][g]);
                gmax[g] = std::max(gmax[g], maxs[static_cast<std::size_t>(p)][g]);
                gbad[g] |= bads[static_cast<std::size_t>(p)][g];
            }
    }
    for (auto f : firstBad)
        if (f >= 0 && (out.firstNonFinite < 0 || f < out.firstNonFinite))
            out.firstNonFinite = f;

    // Scales and zero points.
    std::vector<int> zeros(static_cast<std::size_t>(G), 0);
    for (std::int64_t g = 0; g < G; ++g) {
        if (gbad[g]) {
            ++out.nonFiniteGroups;
            out.scales[g] = policy.badScale();
            continue;
        }
        // An all-empty group (0 elements) keeps min/max ±inf: treat as zero.
        const float mn = gmin[g] == inf ? 0.0f : gmin[g];
        const float mx = gmax[g] == -inf ? 0.0f : gmax[g];
        policy.params(mn, mx, out.scales[g], zeros[g]);
    }
    if (policy.hasZeroPoint()) {
        out.zeros.resize(static_cast<std::size_t>(G));
        for (std::int64_t g = 0; g < G; ++g)
            out.zeros[g] = static_cast<std::int8_t>(zeros[g]);
    }

    // Pass 2: codes (and Ŵ), one run of equal group at a time.
    parallelSlices(R, parts, cancel, [&](int, std::int64_t r0, std::int64_t r1) {
        std::vector<float> row(static_cast<std::size_t>(C));
        for (std::int64_t r = r0; r < r1; ++r) {
            if (cancel && (r & 63) == 0)
                cancel->check();
            w.decodeRange(r * C, row);
            std::uint8_t *codes = out.codes.data() + r * C;
            float *deq = options.wantDequantized ? out.dequantized.data() + r * C : nullptr;
            forRowSegments(L, r, [&](std::int64_t c0, std::int64_t c1, std::int64_t g) {
                if (gbad[g]) {
                    for (std::int64_t c = c0; c < c1; ++c) {
                        codes[c] = policy.badCode();
                        if (deq)
                            deq[c] = 0.0f;
                    }
                    return;
                }
                policy.codeSpan(row.data() + c0, c1 - c0, out.scales[g], zeros[g], codes + c0,
                                deq ? deq + c0 : nullptr);
            });
        }
    });
}

/// max |x| over the finite elements of `w` (0 when none); exact, so independent of threads.
inline float finiteAbsMax(const Tensor &w, int threads, const CancelToken *cancel)
{
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const std::int64_t R = matrixView(w.shape()).first, C = matrixView(w.shape()).second;
    const int parts = static_cast<int>(std::clamp<std::int64_t>(R, 1, resolveThreads(threads)));
    std::vector<float> part(static_cast<std::size_t>(parts), 0.0f);
    parallelSlices(R, parts, cancel, [&](int p, std::int64_t r0, std::int64_t r1) {
        std::vector<float> row(static_cast<std::size_t>(C));
        float m = 0.0f;
        for (std::int64_t r = r0; r < r1; ++r) {
            w.decodeRange(r * C, row);
            for (const float v : row) {
                const float a = qmath::absf(v);
                m = (a > m && qmath::isFinite(v)) ? a : m;
            }
        }
        part[static_cast<std::size_t>(p)] = m;
    });
    float m = 0.0f;
    for (const float v : part)
        m = v > m ? v : m;
    return m;
}

/// Dequantizes codes with the policy (any thread count gives the same bits).
template <typename Policy>
void dequantizeGroupwise(const QuantizedTensor &q, const Policy &policy, std::span<float> out)
{
    const GroupLayout &L = q.layout;
    for (std::int64_t r = 0; r < L.rows; ++r)
        for (std::int64_t c = 0; c < L.cols; ++c) {
            const std::int64_t i = r * L.cols + c;
            const std::int64_t g = L.groupOf(r, c);
            const int z = q.zeros.empty() ? 0 : q.zeros[g];
            out[i] = policy.dequant(q.codes[i], q.scales[g], z);
        }
}

} // namespace quantscope::detail
