// SPDX-License-Identifier: MIT
#pragma once
/// \file kv_lloyd.h
/// Lloyd's iteration for a 16-level codebook on the prefix sums of a unit-coordinate histogram
/// (kv_codebook.h lloydMaxHistogram's op sequence), written once as QS_HD functions: the CPU
/// (kv_codebook.cpp) and the device (gpu/kernels/kv_lab.cu, the KV lab's refits) call this very
/// code, so a fit differs between the two only by the rounding of the prefix sums it is given.
/// Plain FP64 operators: the host build uses -ffp-contract=off, the device -fmad=false.
#include <cmath>

#ifndef QS_HD
#define QS_HD
#endif

namespace quantscope::kvlloyd {

inline constexpr int kLevels = 16;

struct Fit {
    double levels[kLevels];
    double mse;
    int iterations;
    double maxMove;
};

/// cut[i]: the first bin whose centre −1 + (j + ½)·2/B is ≥ the boundary (ℓ_{i−1} + ℓ_i)/2,
/// monotone; cut[0] = 0, cut[16] = B.
QS_HD inline void lloydCells(const double *lv, int B, int *cut)
{
    cut[0] = 0;
    cut[kLevels] = B;
    for (int i = 1; i < kLevels; ++i) {
        const double b = (lv[i - 1] + lv[i]) / 2;
        double j = ceil((b + 1) * B / 2 - 0.5);
        j = j < 0.0 ? 0.0 : (static_cast<double>(B) < j ? static_cast<double>(B) : j);
        const int ji = static_cast<int>(j);
        cut[i] = cut[i - 1] < ji ? ji : cut[i - 1];
    }
}

/// Level i's step on cells `cut`: true and *next = the mean of its cell's samples, or false for an
/// empty cell (the level stays).
QS_HD inline bool lloydLevelStep(const double *p0, const double *p1, const int *cut, int i, double *next)
{
    const double c = p0[cut[i + 1]] - p0[cut[i]];
    if (!(c > 0))
        return false;
    *next = (p1[cut[i + 1]] - p1[cut[i]]) / c;
    return true;
}

/// The levels sorted ascending after a step (insertion sort: std::sort's result on distinct values).
QS_HD inline void lloydSortLevels(double *lv)
{
    for (int i = 1; i < kLevels; ++i) {
        const double x = lv[i];
        int j = i - 1;
        for (; j >= 0 && x < lv[j]; --j)
            lv[j + 1] = lv[j];
        lv[j + 1] = x;
    }
}

/// The fit's MSE: the samples' distortion with each bin assigned by its centre (levels in order).
QS_HD inline double lloydMse(const double *p0, const double *p1, const double *p2, int B, const double *lv)
{
    int cut[kLevels + 1];
    lloydCells(lv, B, cut);
    const double total = p0[B];
    double sse = 0;
    for (int i = 0; i < kLevels; ++i) {
        const double l = lv[i];
        sse += (p2[cut[i + 1]] - p2[cut[i]]) - 2 * l * (p1[cut[i + 1]] - p1[cut[i]]) +
               l * l * (p0[cut[i + 1]] - p0[cut[i]]);
    }
    return total > 0 ? (0.0 < sse ? sse : 0.0) / total : 0;
}

/// Lloyd on prefix sums p0 (count), p1 (Σy), p2 (Σy²) of B bins (B + 1 entries each, p[0] = 0),
/// started from `init`: a level is the mean of its cell's samples; an empty cell keeps its level;
/// the levels are sorted after each step; stops when no level moves by more than `tol` or after
/// `maxIterations`. mse: the samples' distortion with each bin assigned by its centre. (The device
/// also runs the steps with one thread per level: the same functions, so the same bits.)
QS_HD inline Fit lloydOnPrefix(const double *p0, const double *p1, const double *p2, int B, const double *init,
                               double tol, int maxIterations)
{
    Fit fit;
    fit.iterations = 0;
    fit.maxMove = 0;
    double *lv = fit.levels;
    for (int i = 0; i < kLevels; ++i)
        lv[i] = init[i];
    const double total = p0[B];
    int cut[kLevels + 1];
    for (int it = 1; it <= maxIterations && total > 0; ++it) {
        lloydCells(lv, B, cut);
        double move = 0;
        for (int i = 0; i < kLevels; ++i) {
            double nl;
            if (!lloydLevelStep(p0, p1, cut, i, &nl))
                continue;
            const double mv = fabs(nl - lv[i]);
            move = move < mv ? mv : move;
            lv[i] = nl;
        }
        lloydSortLevels(lv);
        fit.iterations = it;
        fit.maxMove = move;
        if (move <= tol)
            break;
    }
    fit.mse = lloydMse(p0, p1, p2, B, lv);
    return fit;
}

} // namespace quantscope::kvlloyd
