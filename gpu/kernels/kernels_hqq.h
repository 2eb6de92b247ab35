// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_hqq.h
/// Launchers of the HQQ kernels (hqq.cu): the CPU's op sequence (core/quant/hqq.h) on the device,
/// one thread per group, the arithmetic the QS_HD functions of core/quant/hqq_math.h.
///   init      per group: range, NaN/Inf flag, σ and z (FP16-rounded with compute fp16), the
///             largest finite |W| (the fixed-point unit of the global error)
///   iterate   one launch per iteration: every group's Σ|e| and new z; the groups' sums become
///             128-bit integers added exactly (32-bit limbs in 64-bit atomics: any order gives the
///             same total); the last block to finish evaluates err_i, records it and sets the stop
///             word, which every later launch checks first (no host synchronisation)
///   chunk     groups of kHqqFusedGroup elements, ≤ 4 bits (in place of `iterate`): a thread loads its
///             group once into registers and runs up to kHqqMaxChunk iterations on it, keeping each
///             iteration's z (zHist) and adding each iteration's Σ|e| to that iteration's exact
///             sum; the last block applies the stop rule to the chunk's errors in order
///             (hqqmath::hqqChunkVerdict) and names the slot of zHist holding the kept z — the
///             iterations after a stop were speculative and are dropped, so the result is the
///             per-iteration kernel's (and the CPU's) bit for bit, with W read once per chunk
///   final     per element: codes from FP32 W with the kept σ, z; stored scale and zero; Ŵ (and
///             MiLo's FP64 residual against the original W, when asked)
/// Plain C++: device pointers typed, the stream as void*. Every launcher checks its launch.
#include <cstdint>

namespace quantscope::gpu::launch {

/// The group size of the fused iterations (a thread's group in registers) and the most
/// iterations one chunk launch runs.
constexpr long long kHqqFusedGroup = 64;
constexpr int kHqqMaxChunk = 8;

/// The run's device words (zeroed before init).
struct HqqState {
    unsigned long long acc[4];          ///< the iteration's Σ|e|: 32-bit limbs of 128-bit integers
    unsigned long long badGroups;       ///< groups holding NaN/Inf
    unsigned long long firstBadNeg;     ///< atomicMax of ~(flat index) of a non-finite element (0: none)
    unsigned status;                    ///< hqqmath::kHqqSum* bits of the iteration
    unsigned blocksDone;                ///< blocks of the iteration that finished
    unsigned amaxBits;                  ///< largest |W| over finite groups (FP32 bits)
    int stopped;                        ///< the early-stop rule fired (later iterations do nothing)
    int itersRun;                       ///< iterations evaluated
    float best;                         ///< best err so far (+inf before the first)
    int zSlot1;                         ///< chunk: 1 + the zHist slot holding the current z (0: `zero` holds it)
    unsigned chunkStatus[kHqqMaxChunk]; ///< chunk: hqqmath::kHqqSum* bits of each iteration
    unsigned long long chunkAcc[kHqqMaxChunk][4]; ///< chunk: each iteration's Σ|e| as acc
};

struct HqqArgs {
    const void *w = nullptr; ///< W as stored (kInF32 / kInBf16 / kInF16)
    int in = 0;
    long long numel = 0, groups = 0, group = 0;
    bool axis1 = true, fp16 = false, libRange = true, roundZero = false;
    float qmax = 15.0f, powExp = -0.3f, zfactor = 1.0f;
    float *sigma = nullptr, *zero = nullptr; ///< per group, the optimiser dtype
    unsigned char *bad = nullptr;
    HqqState *st = nullptr;
    float *errHist = nullptr; ///< err of iteration i at [i − 1]
    float *zHist = nullptr;   ///< chunk: a slot of `groups` z values per iteration of a chunk (null: no fused path)
    unsigned char *codes = nullptr;
    float *scales = nullptr, *zeros = nullptr; ///< stored per group
    float *wHat = nullptr;                     ///< Ŵ (optional)
    /// MiLo's residual, written by the codes pass (optional): e64[i] = (double)W0[i] − (double)Ŵ[i]
    /// with W0 the original tensor as stored (w0, in0: kInF32 / kInBf16 / kInF16), the bits
    /// milo.cu's residual64 gives.
    const void *w0 = nullptr;
    int in0 = 0;
    double *e64 = nullptr;
};

void hqqInit(const HqqArgs &a, void *stream);
/// Iteration `iter` (1-based); does nothing once the stop word is set.
void hqqIterate(const HqqArgs &a, int iter, void *stream);
/// Whether the fused chunks serve these arguments (group kHqqFusedGroup, ≤ 4 bits — the code
/// table — and zHist given).
bool hqqChunked(const HqqArgs &a);
/// Iterations it0 … it0 + count − 1 (1-based, count ≤ kHqqMaxChunk) fused; does nothing once the
/// stop word is set. Needs hqqChunked(a).
void hqqIterateChunk(const HqqArgs &a, int it0, int count, void *stream);
void hqqFinal(const HqqArgs &a, void *stream);

} // namespace quantscope::gpu::launch
