// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels.h
/// Launchers of the quantization and metrics kernels, defined next to their kernels: the generic
/// path's quantization (quantize.cu) and metric passes (metric_passes.cu), the value-table paths
/// of 16-bit inputs for FP8 (fp8_quant.cu), INT (int_quant.cu) and FP4 (fp4_quant.cu). Plain C++: device pointers as
/// typed pointers, the stream as void*. Every launcher checks the launch and throws GpuError.
#include <cstdint>

#include "plan.h"

namespace quantscope::gpu::launch {

using i64 = long long;
using u64 = unsigned long long;

/// Block counts the launchers will use for `chunks` chunks of 8 elements (persistent grids
/// sized by occupancy, so the partial-result buffers can be allocated first).
int blocksStats(int in, i64 chunks, int sms);
int blocksQuant(int in, int kind, i64 chunks, int sms);
int blocksHist(int in, int kind, int bins, i64 chunks, int sms);
/// Dynamic shared memory of the histogram kernel for `bins` bins.
std::size_t histSharedBytes(int bins);

/// W statistics pass (per-tensor scales, fresh): partial rows of kP1D doubles / kP1I counts with
/// the W fields filled.
void statsW(int in, const void *w, i64 n, int blocks, double *pd, i64 *pi, void *stream);

/// Per-group finite min/max (order-preserving keys) and non-finite flags for groups that are not
/// row-local. gmin must be preset to 0xFF bytes, gmax and gbad to 0.
void rangeGroups(int in, const void *w, i64 n, const QuantPlan &p, unsigned *gmin, unsigned *gmax, unsigned *gbad,
                 int sms, void *stream);

/// Scales, zero points and bad flags from the group ranges, or (statsRows > 0, one group) from the
/// W statistics partials, or (direct) from given min/max/bad.
void params(const QuantPlan &p, const unsigned *gmin, const unsigned *gmax, const unsigned *gbad, const double *statsD,
            const i64 *statsI, int statsRows, float *scales, signed char *zeros, unsigned char *bad,
            u64 *nonFiniteGroups, void *stream);

/// The single group of a per-tensor spec from parameters computed on the host (W's stats known).
void paramsDirect(const QuantPlan &p, float scale, int zero, bool bad, float *scales, signed char *zeros,
                  unsigned char *bad_, u64 *nonFiniteGroups, void *stream);

/// NVFP4's FP32 global scale 2688/amax (1.0 for amax = 0) into *out: amax from the W statistics
/// rows (rows > 0) or given (useGiven).
void nvGlobal(const double *statsD, int rows, float givenAmax, bool useGiven, float *out, void *stream);

struct Pass1 {
    unsigned char *codes = nullptr; ///< null: no codes (metrics of a given Ŵ)
    float *wHat = nullptr;          ///< Ŵ output (optional)
    const float *yIn = nullptr;     ///< Ŵ input (metrics of a given Ŵ)
    float *scales = nullptr;
    signed char *zeros = nullptr;
    unsigned char *bad = nullptr;
    u64 *nonFiniteGroups = nullptr;
    u64 *firstBadNeg = nullptr; ///< atomicMax of ~index (0: none)
    bool metrics = false;
    bool accW = false;      ///< accumulate W's extremes, counts and sum
    bool hwConvert = false; ///< FP32→FP64 by the conversion instruction, not bit operations
    double *pd = nullptr;   ///< partial rows [blocks][kP1D]
    i64 *pi = nullptr;      ///< [blocks][kP1I]
};
void quant(int in, const void *w, i64 n, const QuantPlan &p, const Pass1 &a, int blocks, void *stream);

/// Reduces pass 1 (and the W stats pass when wSource == 1), sets up the histograms and finds
/// the thresholds. Tw[bins+1] floats, Te[bins+1] and Ta[4097] doubles.
void finalize1(const double *pd1, const i64 *pi1, int rows1, const double *pdS, const i64 *piS, int rowsS,
               const HistConfig &hc, Stats1 *out, float *Tw, double *Te, double *Ta, void *stream);

/// Pass 2 switches (benchmark ablations; 0 in production).
inline constexpr int kPass2Aggregate = 1; ///< warp-merged shared atomics (__match_any_sync): slower on H200
inline constexpr int kPass2NoAtomics = 2; ///< compute the bins but count nothing
inline constexpr int kPass2NoMoments = 4; ///< skip the central moments
inline constexpr int kBitConvert = 8;     ///< passes 1 and 2: FP32→FP64 by bit operations, not F2F

struct Pass2 {
    const float *yIn = nullptr;
    const unsigned char *codes = nullptr; ///< pass 1's codes: Ŵ is dequantized from them
    const float *scales = nullptr;
    const signed char *zeros = nullptr;
    const unsigned char *bad = nullptr;
    const Stats1 *st = nullptr;
    const float *Tw = nullptr;
    const double *Te = nullptr, *Ta = nullptr;
    u64 *hist = nullptr;  ///< W[B], Ŵ[B], err[B], |err|[4096], 6 below/above counters (zeroed)
    double *pd = nullptr; ///< [blocks][kP2D]
    int bins = 256;
    bool wMoments = true;
    int flags = 0;
    bool hwConvert = false;
};
void hist(int in, const void *w, i64 n, const QuantPlan &p, const Pass2 &a, int blocks, void *stream);

/// Reduces pass 2's moment rows (percentiles are evaluated on the host from the |error| bins).
void finalize2(const double *pd2, int rows2, Stats2 *out, void *stream);

/// out[i] = the FP8 cast of the FP32 pattern first + i (test hook).
void fp8EncodeRange(bool e4m3, unsigned first, std::size_t count, unsigned char *out, void *stream);

// ---- value-table paths (fp8_quant.cu, int_quant.cu, fp4_quant.cu; 16-bit inputs) ---------------

/// Set in the run's flags word when W (or Ŵ) holds non-finite values: the engine reruns the
/// generic path, which reports them exactly like the CPU.
inline constexpr unsigned kFastNonFinite = 1;
/// INT pass 1 met an error that may not be an exact FP32 difference: pass 2 checks each element.
inline constexpr unsigned kFastInexact = 2;
/// Debug flag: never take the value-table paths (tests and benchmarks compare both).
inline constexpr int kNoFastPath = 16;

/// FP8 per tensor: a range pass (skipped when W's stats are given) writing one part per block,
/// the table of the codes of all 65536 values (which also zeroes the counters of the later
/// kernels: no memset), one pass writing the codes through it and counting W's values, then the
/// tables.
struct Fp8Zero {
    unsigned *gvh = nullptr; ///< 65536 value counts
    u64 *ctr = nullptr;      ///< the run's counters and histograms
    int ctrLen = 0;
    unsigned *bar = nullptr;   ///< the grid barrier of fp8Tables (2 words)
    unsigned *flags = nullptr; ///< set to the range pass's kFastNonFinite (or 0)
};
int fp8RangeBlocks(int in, i64 n, int sms);
/// parts: [blocks][3] (~min key, max key, flags).
void fp8Range(int in, const void *w, i64 n, unsigned *parts, int blocks, void *stream);
void fp8Lut(int in, const unsigned *parts, int rangeBlocks, bool given, float scaleGiven, const gpumath::Fp8Params &fp,
            unsigned char *lut, float *scales, signed char *zeros, unsigned char *bad, const Fp8Zero &zr, void *stream);
void fp8Pass(int in, const void *w, i64 n, const unsigned char *lut, const gpumath::Fp8Params &fp, const float *scales,
             unsigned char *codes, float *wHat, unsigned *gvh, int sms, void *stream);
/// Rows of pd (kP1D), pi (kP1I) and pd2 (kP2D) that fp8Tables writes.
int fp8TableRows();
/// Sums, Stats1, histograms and the moment rows from the value counts (one cooperative launch);
/// the host adds the pd2 rows.
void fp8Tables(int in, const unsigned *gvh, const float *scales, const gpumath::Fp8Params &fp, const HistConfig &hc,
               unsigned *flags, unsigned *bar, double *pd, i64 *pi, Stats1 *st1, u64 *hist, double *pd2, void *stream);

/// INT per group (QuantPlan::fastGroup, ≤ 16 levels, groups ≤ 128, FP32 arithmetic and scales).
struct IntFast1 {
    unsigned char *codes = nullptr;
    float *wHat = nullptr;
    float *scales = nullptr;
    signed char *zeros = nullptr;
    unsigned char *bad = nullptr;
    unsigned char *counts = nullptr; ///< [groups][16] code counts (byte b of word i: level 8(i/2) + 2b + i%2)
    /// NVFP4 (fp4Fast1): [kNvLevels] element counts per (block-scale byte, code), zeroed before;
    /// ProgressiveSpec (progFast1): [rows][16] counts per (row, level), written.
    u64 *levels = nullptr;
    unsigned *flags = nullptr;
    double *pd = nullptr; ///< [blocks][kP1D]
    i64 *pi = nullptr;    ///< [blocks][kP1I]
};
int blocksIntFast1(int in, const QuantPlan &p, i64 n, int sms);
void intFast1(int in, const void *w, i64 n, const QuantPlan &p, const IntFast1 &a, int blocks, void *stream);
int blocksGroupsY(i64 groups, int sms);
/// Ŵ's histogram and central moments from the code counts: rows [blocks][kP2D] of pd2.
void groupsY(const QuantPlan &p, const unsigned char *counts, const float *scales, const signed char *zeros,
             const Stats1 *st, const float *Tw, int bins, u64 *hist, double *pd2, int blocks, void *stream);
struct IntFast2 {
    const unsigned char *codes = nullptr;
    const float *scales = nullptr;
    const signed char *zeros = nullptr;
    const Stats1 *st = nullptr;
    const float *Te = nullptr, *Ta = nullptr; ///< FP32 error / |error| thresholds (HistConfig::thresholds 2)
    unsigned *gvh = nullptr;
    u64 *hist = nullptr;
    const unsigned *flags = nullptr; ///< pass 1's flags (kFastInexact)
    int bins = 256;
};
void intFast2(int in, const void *w, i64 n, const QuantPlan &p, const IntFast2 &a, int sms, void *stream);
/// FP4 E2M1 per group (fp4_quant.cu): MXFP4 in every mode, constOpt pow2 and NVFP4 on row-local
/// groups ≤ 128. Its pass 1 replaces intFast1; groupsY, intFast2 and valueW take the FP4 plan (the
/// 16 E2M1 codes as the 16 levels, x̂ = value·s, NVFP4's s = b/global).
bool fp4FastPlan(const QuantPlan &p);
/// NVFP4's global scale into *out from fp8Range's parts (W's amax).
void nvGlobalParts(const unsigned *parts, int blocks, float *out, void *stream);
int blocksFp4Fast1(int in, const QuantPlan &p, i64 n, int sms);
/// Codes, scales (zero points and bad flags 0), Σe², the error extremes; MXFP4 and constOpt: per-group
/// code counts (IntFast1::counts) and Ŵ's sums from them; NVFP4: the level table (IntFast1::levels)
/// instead, whose Ŵ comes from nvLevelsRow and nvLevelsY.
void fp4Fast1(int in, const void *w, i64 n, const QuantPlan &p, const IntFast1 &a, int blocks, void *stream);
/// NVFP4's levels: Ŵ = e2m1Value(code)·(b/global) is a function of b's E4M3 byte (< 128) and the code
/// alone, so Ŵ's statistics come from ≤ 2048 counted levels, not from every group.
inline constexpr int kNvLevels = 128 * 16;
/// Ŵ's sums, extremes and count from the level table as one pass-1 row (pd: kP1D, pi: kP1I; the
/// other fields neutral) for finalize1 to add after pass 1's rows; Ŵ overflow sets kFastNonFinite.
void nvLevelsRow(const u64 *levels, const float *global, unsigned *flags, double *pd, i64 *pi, void *stream);
/// Ŵ's histogram and central moments from the level table (groupsY's work; one pd2 row).
void nvLevelsY(const u64 *levels, const float *global, const Stats1 *st, const float *Tw, int bins, u64 *hist,
               double *pd2, void *stream);
/// ProgressiveSpec (kKindProg) on 16-bit inputs (fp8_quant.cu): stage 1 FP8 per tensor, stage 2 INT
/// per channel along rows (≤ 16 levels, FP32 arithmetic, cols = 16·2^t ≤ 32768). progRange: each
/// row's extremes (rowMm [rows][2]) and fp8Range's parts in one read of W; then fp8Lut (stage 1's
/// scale and code table, into the outer scale words); progParams: stage 2's row scales and zero
/// points (the plan's outerScale/outerBad set); progFast1: codes, Σe², error extremes, each row's
/// level counts (IntFast1::levels [rows][16]) and Ŵ's sums and extremes from them; then finalize1,
/// progLevelsY (Ŵ's histogram and moments from the counts), intFast2 (with P.teamLog2 =
/// log2(cols/8)) and valueW as for INT.
bool progFastPlan(const QuantPlan &p);
int progRangeBlocks(i64 rows, int sms);
void progRange(int in, const void *w, const QuantPlan &p, float *rowMm, unsigned *parts, int blocks, void *stream);
void progParams(const QuantPlan &p, const float *rowMm, float *scales, signed char *zeros, unsigned char *bad,
                void *stream);
int blocksProgFast1(int in, const QuantPlan &p, int sms);
void progFast1(int in, const void *w, const QuantPlan &p, const IntFast1 &a, const unsigned char *lut, int blocks,
               void *stream);
/// Blocks (pd2 rows) of progLevelsY.
int progLevelBlocks(const QuantPlan &p);
void progLevelsY(const QuantPlan &p, const u64 *levels, const float *scales, const signed char *zeros, const Stats1 *st,
                 const float *Tw, int bins, u64 *hist, double *pd2, int blocks, void *stream);
/// Rows of pv (2) and pd2 (kP2D) that valueW writes.
int valueWRows();
/// W's sums, mean, Σx², Σxx̂ (into Stats1), histogram and moment rows from its value counts (one
/// cooperative launch; bar: two zeroed words).
void valueW(int in, const unsigned *gvh, const HistConfig &hc, unsigned *flags, unsigned *bar, double *pv, Stats1 *st,
            u64 *hist, double *pd2, void *stream);

} // namespace quantscope::gpu::launch
