// SPDX-License-Identifier: MIT
#pragma once
/// \file kv_rows_cpu.h
/// CPU-only fast paths of kvQuantize (kv_schemes.h): the same op sequences as kv_math.h's per-row
/// and per-group functions, computed on 16 rows (or 16 consecutive values) at a time in the lanes of
/// GCC/Clang vector extensions (AVX-512 with -march=native, AVX2/SSE pairs otherwise; each lane is
/// the scalar operation: IEEE, no contraction). Row schemes transpose a tile of 16 rows into
/// [d][16]; rows past the last whole tile go through kv_math.h itself. Every function gives the
/// bits of kv_math.h's (tests/core/kv/test_kv_rows_cpu.cpp compares them on edge cases and
/// heavy-tailed data for every scheme). The GPU kernels keep calling kv_math.h.
#include <cstddef>
#include <cstdint>

namespace quantscope::kvfast {

/// kvmath::codebookRow on `rows` rows of d. `bound` must be non-decreasing (else the scalar path).
void codebookRows(const float *x, float *out, std::int64_t rows, std::int64_t d, std::int64_t b, float r, bool rotate,
                  const float *lv, const float *bound);

/// kvmath::constOptRotatedRow on `rows` rows of d.
void constOptRows(const float *x, float *out, std::int64_t rows, std::int64_t d, std::int64_t b, float r, float fc,
                  bool unrounded);

/// codebookRows for n level sets at once: each tile's norms, division and (for the sets with
/// rot[k]) rotation made once, then per set its codes, inverse rotation and norm; out[k] gets the
/// bits of codebookRows with rot[k], lv[k], bound[k]. Unsorted bounds: one set at a time.
void codebookRowsN(const float *x, float *const *out, std::int64_t rows, std::int64_t d, std::int64_t b, float r,
                   const bool *rot, const float *const *lv, const float *const *bound, int n);

/// constOptRows for n constants at once: each tile's rotation and group maxima made once; out[k]
/// gets the bits of constOptRows with fc[k], unrounded[k].
void constOptRowsN(const float *x, float *const *out, std::int64_t rows, std::int64_t d, std::int64_t b, float r,
                   const float *fc, const bool *unrounded, int n);

/// kvmath::absmax(x, n): the largest |x| — the same value in any order (x holds no NaN).
float absmax(const float *x, std::int64_t n);

/// kvmath::fp8Value(x[i], s) for i < n.
void fp8Values(const float *x, float *out, std::int64_t n, float s);

/// qmath::roundBf16(x[i]) for i < n.
void bf16Values(const float *x, float *out, std::int64_t n);

/// kvmath::mxfp4Row on `rows` rows of d.
void mxfp4Rows(const float *x, float *out, std::int64_t rows, std::int64_t d);

/// kvmath::nvfp4Row on `rows` rows of d.
void nvfp4Rows(const float *x, float *out, std::int64_t rows, std::int64_t d, float global);

/// kvmath::int4Group over one head [T, d]: K per channel over groups of 32 tokens, V per token
/// over groups of 32 channels.
void int4Head(const float *x, float *out, std::int64_t T, std::int64_t d, bool perChannel);

/// kvRotateRows (hadamardBlock on every block of b of every row), in place.
void rotateRows(float *x, std::int64_t rows, std::int64_t d, std::int64_t b);

/// kvmath::unitRow on every row, then (b ≥ 2) the rotation: the lab's rotated unit vectors.
void unitRotatedRows(const float *x, float *out, std::int64_t rows, std::int64_t d, std::int64_t b);

/// The lab's preparation of one layer's keys in one pass over 16-row tiles (b ≥ 2): rot = the
/// rotated rows (rotateRows's bits), unit = the rotated unit rows (unitRotatedRows's bits), and
/// normErr raised to the largest |‖rot_i‖ − ‖x_i‖|/‖x_i‖ over rows with ‖x_i‖ > 0 (each squared
/// norm an FP64 sum over the row in order, as a scalar loop gives it).
void prepareKeyRows(const float *x, float *rot, float *unit, std::int64_t rows, std::int64_t d, std::int64_t b,
                    double &normErr);

/// Excess kurtosis m4/m2² − 3 of x[0, n) (population moments; 0 when m2 = 0): FP64 sums in 16
/// lanes (i mod 16) added pairwise, the tail in order.
double excessKurtosis(const float *x, std::size_t n);

/// Σ (a_i − b_i)² in FP64 over 32 interleaved partial sums (i mod 32), added pairwise at the end:
/// not the sequential order (the lab's MSEs move by rounding only).
double sumSquaredDiff(const float *a, const float *b, std::int64_t n);

/// sumSquaredDiff in pieces: acc (32 partial sums, zero at the start) takes the whole blocks of 32
/// of each piece, in order (every piece but the last a multiple of 32 long); the finish adds the
/// partial sums and then the last piece's tail (its last `tail` values): the bits of one call.
void sumSquaredDiffAdd(const float *a, const float *b, std::int64_t n, double *acc);
double sumSquaredDiffFinish(const double *acc, const float *a, const float *b, std::int64_t tail);

/// The lab's unrounded-curve histogram (kv_lab.cpp): per group of 32 along d with m = max|y| > 0,
/// w = m², each y adds w, w·u, w·u² (u = y/m in FP64) to bin ⌊(u + 1)/2·bins⌋ (clamped), in the
/// element order of the scalar loop (the per-element values computed 8 at a time: the same bits).
void unitHistogramAdd(const float *x, std::int64_t rows, std::int64_t d, int bins, double *W, double *WU, double *WU2);

/// The unrounded curve's per-bin terms at fc (kv_lab.cpp): q = fc·e2m1RoundValue((float)(mean/fc)),
/// term = WU2 − 2q·WU + q²·W, for n bins, 16 at a time (each term's op sequence unchanged).
void unroundedTerms(const double *mean, const double *W, const double *WU, const double *WU2, std::int64_t n, float fc,
                    double *term);

/// KvUnitHistogram::add(y[i]) for i < n in order (bin ⌊(y + 1)/2·bins⌋ clamped; count, Σy, Σy²),
/// the bins and values computed 8 at a time: the same bits.
void histogramAdd(const float *y, std::int64_t n, int bins, double *count, double *s1, double *s2);

} // namespace quantscope::kvfast
