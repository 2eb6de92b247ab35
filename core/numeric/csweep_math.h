// SPDX-License-Identifier: MIT
#pragma once
/// \file csweep_math.h
/// The per-group arithmetic of the constOpt c sweep (constopt_sweep.h), written once as QS_HD
/// functions so that the CPU reference and the GPU kernels (gpu/kernels/csweep.cu) compute every
/// group SSE with the same operations in the same order:
///   x̂ = e2m1RoundValue(x / s)·s            (FP32, one rounding each: __fdiv_rn/__fmul_rn on the device)
///   d = (double)x − (double)x̂;  e_j += d·d  (FP64, no fused multiply-add)
/// in four partial sums e_0..e_3 over runs of four elements (the tail into e_0), combined as
/// (e_0 + e_1) + (e_2 + e_3); a scale s ≤ 0 (or NaN) codes everything 0: Σ x² in one sum.
#include <cstdint>

#include "numeric/fp4math.h"
#include "numeric/qmath.h"

namespace quantscope::csweep {

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
QS_HD inline float fdiv(float a, float b)
{
    return __fdiv_rn(a, b);
}
QS_HD inline float fmul(float a, float b)
{
    return __fmul_rn(a, b);
}
#else
inline float fdiv(float a, float b)
{
    return a / b;
}
inline float fmul(float a, float b)
{
    return a * b;
}
#endif

/// constOpt's scale (fp4::constOptScale, the quantizer's and the kernels' one function):
/// pow2 → e8m0Scale(roundLog2Byte(fc·m)), unrounded → fc·m.
QS_HD inline float scaleOf(float m, float fc, bool pow2)
{
    return fp4::constOptScale(m, fc, !pow2);
}

/// (x − x̂)² in FP64 for a scale s > 0.
QS_HD inline double err2(float x, float s)
{
    const float xh = fmul(fp4::e2m1RoundValue(fdiv(x, s)), s);
    const double d = qmath::dsub(static_cast<double>(x), static_cast<double>(xh));
    return qmath::dmul(d, d);
}

/// Σ (x − x̂)² of one group of `len` elements read through `x(i)` (a pointer or a loader).
template <typename Load> QS_HD inline double groupSse(const Load &x, std::int64_t len, float s)
{
    if (!(s > 0.0f)) { // codes 0: x̂ = 0
        double e = 0;
        for (std::int64_t i = 0; i < len; ++i) {
            const double v = static_cast<double>(x(i));
            e = qmath::dadd(e, qmath::dmul(v, v));
        }
        return e;
    }
    double e[4] = {0, 0, 0, 0};
    std::int64_t i = 0;
    for (; i + 4 <= len; i += 4)
        for (int j = 0; j < 4; ++j)
            e[j] = qmath::dadd(e[j], err2(x(i + j), s));
    for (; i < len; ++i)
        e[0] = qmath::dadd(e[0], err2(x(i), s));
    return qmath::dadd(qmath::dadd(e[0], e[1]), qmath::dadd(e[2], e[3]));
}

/// The pow2 encoder over an ascending list fc[0..n) for a group of absmax m: the scale byte
/// roundLog2Byte(fc·m) is monotone in fc, so the list splits into runs of one byte each. Calls
/// f(byte, start, end) for every non-empty run [start, end), in order (the GPU adds the run's SSE
/// to a difference array at start and subtracts it at end).
template <typename F> QS_HD inline void pow2Runs(const float *fc, int n, float m, F &&f)
{
    if (n <= 0)
        return;
    const int bFirst = fp4::roundLog2Byte(fmul(fc[0], m));
    const int bLast = fp4::roundLog2Byte(fmul(fc[n - 1], m));
    int start = 0;
    for (int b = bFirst; b <= bLast && start < n; ++b) {
        int end = n;
        if (b != bLast) { // the first index whose byte exceeds b (binary search)
            int lo = start, hi = n;
            while (lo < hi) {
                const int mid = (lo + hi) >> 1;
                if (static_cast<int>(fp4::roundLog2Byte(fmul(fc[mid], m))) > b)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            end = lo;
        }
        if (end > start)
            f(b, start, end);
        start = end;
    }
}

/// A plain FP32 array as a loader.
struct PtrLoad {
    const float *p;
    QS_HD float operator()(std::int64_t i) const { return p[i]; }
};

} // namespace quantscope::csweep
