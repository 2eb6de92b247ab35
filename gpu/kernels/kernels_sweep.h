// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_sweep.h
/// Launchers of the Walsh–Hadamard rotation (hadamard.cu) and of the constOpt c sweep (csweep.cu).
/// Plain C++: device pointers as typed pointers, the stream as void*. Every launcher checks the
/// launch and throws GpuError.
#include <cstddef>
#include <cstdint>

namespace quantscope::gpu::launch {

/// The largest rotation block the device kernel takes (one block of d FP32 values in shared memory);
/// the caller rotates larger ones on the CPU.
inline constexpr int kMaxHadamard = 4096;

/// out[rows·K] (FP32) = the rows of w (stored as kInF32 / kInBf16 / kInF16), rotated in blocks of
/// d along K with core/numeric/hadamard.h's op sequence (every output the same FP32 additions in the
/// same order, then ·r); d a power of two in [2, kMaxHadamard] dividing K, or d = 1: decoded only.
void hadamardRows(int in, const void *w, long long rows, long long K, int d, float r, float *out, void *stream);

/// Per-channel moment sums of the R×C matrix w (channel_moments.cu): rows[3r + {0, 1, 2}] = the
/// count of finite values of row r, Σ(x − μ)², Σ(x − μ)⁴ about its mean; cols[3c + …] the same per
/// column. `scratch` holds channelMomentsScratch(R, C) bytes.
std::size_t channelMomentsScratch(long long R, long long C);
void channelMoments(int in, const void *w, long long R, long long C, double *rows, double *cols, double *scratch,
                    void *stream);

/// What the group pass leaves for the host (zeroed by the caller).
struct SweepCounters {
    unsigned long long counted = 0;   ///< elements of the finite groups
    unsigned long long nonFinite = 0; ///< groups holding NaN/Inf
    unsigned amaxBits = 0;            ///< FP32 bits of the largest finite group absmax
    unsigned pad = 0;
};

/// Groups of `group` along K of the FP32 matrix x [rows, K] (the last one of a row ragged):
/// m[g] = max |x| of group g, or −1 for a group holding NaN/Inf; the counters.
void sweepGroups(const float *x, long long rows, long long K, long long group, float *m, SweepCounters *ctr, int sms,
                 void *stream);

/// c values evaluated per launch (the per-block sums live in shared memory).
inline constexpr int kSweepTile = 1024;

/// Blocks the sweep kernels use (the caller sizes `parts` by it).
int sweepBlocks(long long groups, int sms);

/// One tile of at most kSweepTile values fc[0..n) (ascending for pow2; any order unrounded):
/// parts[block][i] (two 64-bit words each: lo, hi) = the block's sum of the groups' fixed-point
/// SSEs k = RNE(SSE·2^-unit) at fc[i] (pow2: as a difference array over i); bad[i] |= 1 where a
/// group SSE did not convert (numeric/fixedsum.h).
void sweepTile(bool pow2, const float *x, long long rows, long long K, long long group, const float *m, const float *fc,
               int n, int unit, unsigned long long *parts, unsigned *bad, int blocks, void *stream);

/// out[i] (lo, hi) = Σ over blocks of parts[block][i], i < n; pow2: then the inclusive prefix sum.
void sweepReduce(bool pow2, const unsigned long long *parts, int blocks, int n, unsigned long long *out, void *stream);

} // namespace quantscope::gpu::launch
