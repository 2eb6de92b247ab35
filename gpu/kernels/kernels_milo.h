// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_milo.h
/// Launchers of MiLo's device loop and of the range sketch's helpers (milo.cu). Plain C++: device
/// pointers typed, the stream as void*. Every launcher checks its launch.
#include <cstdint>

namespace quantscope::gpu::launch {

/// R [n × l] column-major = the row-major Philox normals Ω [n, l] of (seed, stream) (util/philox.h)
/// rounded to FP32: R[j·n + i] = f(normalAt(i·l + j)).
void philoxNormalColMajor(std::uint64_t seed, std::uint32_t stream, int n, int l, float *R, void *s);
/// The same in FP64 (no rounding).
void philoxNormalColMajor64(std::uint64_t seed, std::uint32_t stream, int n, int l, double *R, void *s);
/// *flag |= (*info != 0).
void orFlag(const int *info, int *flag, void *s);
/// *flag |= (*info != 0 or not gpumath::cholDiagonalOk over the diagonal of the Cholesky factor R
/// [l × l], column-major, leading dimension l). One thread block.
void cholCheck(const double *R, int l, double minRatio, const int *info, int *flag, void *s);
/// One CholeskyQR pass on a thin column-major Y [rows × l], l ≤ kSmallQrCols, in place: the Gram
/// matrix YᵀY in FP64 (partials over blocks of 128 rows, each in row order, added in block order),
/// its Cholesky factor R (into R, l × l column-major, zeros below), Y ← Y·R⁻¹ row by row; a
/// non-positive or non-finite pivot sets *failed (DPOTRF's info ≠ 0 in the general path).
/// `parts` holds smallQrPartBlocks(rows)·l·l doubles. Three launches in all.
constexpr int kSmallQrCols = 32;
int smallQrPartBlocks(int rows);
void cholQrSmall(double *Y, int rows, int l, double *parts, double *R, int *failed, void *s);
/// out[i] = f(in[i]).
void toFloat(const double *in, long long n, float *out, void *s);

/// The run's device words (zeroed once before pass 1).
struct MiloState {
    double eps[1000]; ///< ε of pass t at [t − 1]
    double bestEps;
    int bestPass; ///< 1-based; 0 before the first pass
    int stopped;  ///< the stop rule fired (later passes commit nothing)
    int isBest;   ///< the last committed pass is the best so far
    int passesDone;
    unsigned long long nonFinite; ///< non-finite elements of W (decodeF32)
};

/// What the host reads after each pass (its one small copy).
struct MiloStatus {
    double eps;
    int stop;  ///< last pass: the stop rule fired
    int retry; ///< the sketch's Cholesky failed: rerun the pass's sketch with Householder QR
    int isBest;
    int pad;
    unsigned long long nonFinite;
};

/// out = FP32 of W (kInF32 / kInBf16 / kInF16; out null: count only); st->nonFinite counts NaN/Inf.
void decodeF32(int in, const void *w, long long n, float *out, MiloState *st, void *s);
/// e[i] = (double)W[i] − (double)Ŵ[i] (exact; W as stored, kInF32 / kInBf16 / kInF16).
void residual64(int in, const void *w, const float *wHat, long long n, double *e, void *s);
/// Per block of `kMiloSumBlocks`: Σ d² in FP64 over a fixed slice, written to parts[block] (a fixed
/// split, so a fixed order).
constexpr int kMiloSumBlocks = 1024;
void sumSquares(const double *d, long long n, double *parts, void *s);
/// sumSquares (the same slices and order: the same bits) and, unless *skip, the next pass's input
/// in place of Ŵ in the same pass over d = E − U·V: uv = (W − Ŵ) − d in FP64 and
/// wt[i] = W[i] − f(uv) in FP32 (the CPU's W − f(U·V)).
void nextWSumSquares(int in, const void *w, float *wt, const double *d, long long n, const int *skip, double *parts,
                     void *s);
/// nextWSumSquares for thin sketches (r ≤ kThinUpdateCols) with D = E − P1·P2ᵀ formed on the way
/// instead of read (E column-major [K × N], P1 [K × r], P2 [N × r], FP64; D is not stored, E is
/// left as it was): per element p = Σ_c P1[k, c]·P2[n, c] by FMA in c order, d = E − p, Σ d² and,
/// unless *skip, wt[i] = W[i] − f(E − d). Tiles of 128 × 32 elements; each of kMiloSumBlocks blocks
/// takes a fixed contiguous run of them, its sum in its tiles' order, then the fixed tree: a fixed
/// order (not sumSquares' slices), so ε's bits are the same on every run.
constexpr int kThinUpdateCols = 32;
void thinUpdate(int in, const void *w, float *wt, const double *e, const double *p1, const double *p2, long long K,
                long long N, int r, const int *skip, double *parts, void *s);
/// One thread block: ε = √(Σ parts in a fixed order); unless *failed (then status.retry), records
/// ε as pass t's, evaluates the stop rule (paper: milomath::paperShouldStop; else none) and the
/// best pass (paper: the smallest ε; else the last), and writes the status.
void passEnd(const double *parts, MiloState *st, int t, bool paper, const int *failed, MiloStatus *status, void *s);
/// The MiLo factors of the returned pass in FP32 from the sketch's FP64 eigen-decomposition of
/// B·Bᵀ (lambda ascending, [l]): ua = Q·W_B [m × l], vb = Bᵀ·W_B [n × l] (column-major).
/// U [N, l] and V [l, K] row-major, component c = l − 1 − (ascending index); aIsX: A = Eᵀ.
void miloFactors(const double *ua, const double *vb, const double *lambda, int m, int n, int l, bool aIsX, long long N,
                 long long K, float *U, float *V, void *s);
/// The sign rule of quant/milo.h on U [N, r], V [r, K] (row-major), in place.
void miloSigns(float *U, float *V, long long N, long long K, int r, int *flips, void *s);
/// A factor's compensator (milomath kinds; kind −1: FP16 values only): per group of the flattened
/// x, scales[g], codes[i], values[i].
void compensator(const float *x, long long n, long long group, int kind, float *scales, signed char *codes,
                 float *values, void *s);
/// The final Ŵ: out[i] = f(Ŵ_hqq[i] + p[i]) with Ŵ_hqq from the codes, z and stored scale of the
/// element's group (kHqqFinal's formula; a bad group 0) and p the FP64 compensator product (null:
/// Ŵ_hqq itself).
void hqqPlusProduct(const unsigned char *codes, const float *zero, const float *scales, const unsigned char *bad,
                    long long numel, long long groups, long long group, bool axis1, bool fp16, const double *p,
                    float *out, void *s);

} // namespace quantscope::gpu::launch
