// SPDX-License-Identifier: MIT
#pragma once
/// \file kv_lab_parts.h
/// runKvLab's CPU helpers (kv_lab.cpp): the c grid, the constOpt curves on rotated keys (pow2 by
/// the c sweep's evaluator, unrounded from a histogram), MSEs, mean squares and the attention
/// errors' accumulation over layers.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "kv/kv_lab.h"

namespace quantscope::kvlab {

/// lo, lo + step, … up to hi (rounded to a whole number of steps).
std::vector<double> grid(double lo, double hi, double step);

/// The index of the first minimum.
std::size_t argmin(const std::vector<double> &v);

/// A large FP32 buffer left uninitialised (its writers fill every element, layer by layer on the
/// workers, so its pages are first touched there rather than zeroed on one thread up front).
struct RawFloats {
    std::unique_ptr<float[]> p;
    std::size_t n = 0;
    void allocate(std::size_t count)
    {
        p.reset(new float[count]);
        n = count;
    }
    void release()
    {
        p.reset();
        n = 0;
    }
    bool empty() const { return n == 0; }
    float *data() { return p.get(); }
    std::span<const float> span() const { return {p.get(), n}; }
};

/// constOpt pow2 MSE over an ascending grid on a rotated [rows, d] matrix (groups of 32 along d).
std::vector<double> pow2Curve(std::span<const float> x, std::int64_t d, const std::vector<double> &cs, int threads);

/// constOpt unrounded (s = fc·m) MSE over the grid on a rotated [rows, d] matrix.
std::vector<double> unroundedCurve(std::span<const float> x, std::int64_t d, const std::vector<double> &cs);

/// Σ (a − b)² / n (kvfast::sumSquaredDiff's order); 0 when n = 0.
double mseOf(const float *a, const float *b, std::int64_t n);

/// The mean of x² (FP64, summed in order).
double meanSquare(const std::vector<float> &x);

/// meanSquare of two arrays: the two sums (each in order) in one loop, so that their adds' latency
/// overlaps.
void meanSquares(const std::vector<float> &a, const std::vector<float> &b, double &ma, double &mb);

/// Adds one head's attention errors to a scheme's over layers (KL re-weighted by queries; the
/// output error's sums).
void accumulate(KvAttentionError &sum, const KvAttentionError &e, double &oRef, double &oErr, std::int64_t d);

} // namespace quantscope::kvlab
