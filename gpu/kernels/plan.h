// SPDX-License-Identifier: MIT
#pragma once
/// \file plan.h
/// Plain data shared by the kernels (engine.cu) and the host side of the engine (engine_host.cpp):
/// what one quantization run computes, and the layout of the reduced results it leaves on the
/// device. No CUDA/HIP header.
#include <cstdint>

#include "device_math.h"

namespace quantscope::gpu {

/// Stored element type on the device.
enum InType : int { kInF32 = 0, kInBf16 = 1, kInF16 = 2 };
/// Quantizer kind.
enum QKind : int { kKindInt = 0, kKindFp8 = 1, kKindFp4 = 2, kKindProg = 3 };
// kKindProg: Quark's ProgressiveSpec with stage 1 FP8 per tensor (`fp`, its scale and NaN/Inf flag
// in the device words outerScale / outerBad) and stage 2 INT (`ip`, the plan's own groups) on the
// stage-1 domain values; Ŵ = a1(x̂1 · s1).
/// The FP4 E2M1 schemes of kKindFp4: they differ only in the group scale (and NVFP4's global
/// divisor); the per-element code and value are the same E2M1 operations.
enum Fp4Scheme : int { kFp4Mx = 0, kFp4Nv = 1, kFp4ConstOpt = 2 };
/// Granularity codes (the values of quantscope::Granularity).
enum Gran : int { kGranTensor = 0, kGranChannel = 1, kGranGroup = 2, kGranBlock = 3 };

/// Elements per thread per step (one 16-byte load of BF16/F16, two of F32).
inline constexpr int kChunk = 8;

struct QuantPlan {
    int kind = kKindInt;
    IntParams ip;
    gpumath::Fp8Params fp;
    int fp4 = kFp4Mx; ///< the FP4 scheme (kKindFp4)
    int mxMode = 0;   ///< MXFP4 shared-exponent mode (fp4::MxModeCode)
    /// NVFP4: the device word holding the FP32 global scale (written by launch::nvGlobal before
    /// pass 1 from W's statistics; every kernel reads it).
    const float *nvGlobal = nullptr;
    const float *outerScale = nullptr;       ///< ProgressiveSpec: stage 1's scale s1 (device)
    const unsigned char *outerBad = nullptr; ///< ProgressiveSpec: stage 1's NaN/Inf flag (device)
    float coC = 0.156f;                      ///< constOpt: (float)c
    bool coUnrounded = false;                ///< constOpt: s = c·m in FP32 (else 2^round(log2(c·m)), UE8M0)
    int gran = kGranTensor, axis = 0;
    std::int64_t rows = 1, cols = 1, group = 1, block = 1, gridRows = 1, gridCols = 1, groups = 1;
    /// Row-local groups whose size g is 8·2^t ≤ 8·warp and divides K (K % 8 == 0): one team of
    /// g/8 lanes reduces a group in registers; no separate range pass.
    bool fastGroup = false;
    int teamLog2 = 0;
    /// Every aligned chunk of 8 elements lies in one group (one group lookup per chunk).
    bool chunkUniform = false;
    bool hasZero = false;
};

// ---- reduced results (all FP64 sums; integer counts as int64) ---------------------------------
enum P1D : int { dSumW, dMinW, dMaxW, dSumY, dMinY, dMaxY, dSe, dSx, dSy, dSxy, dEmin, dEmax, kP1D };
enum P1I : int { iNF, iNan, iInf, iNFY, iNanY, iInfY, kP1I };
enum P2D : int { dS2W, dS3W, dS4W, dS2Y, dS3Y, dS4Y, kP2D };

/// How the histograms are set up (ErrorMetricsOptions + where W's stats come from).
struct HistConfig {
    int bins = 256;
    bool haveLo = false, haveHi = false;
    double lo = 0, hi = 0;
    /// W's stats: 0 from pass 1, 1 from the separate W stats pass, 2 given by the caller.
    int wSource = 0;
    double knownMin = 0, knownMax = 0, knownSum = 0;
    std::int64_t knownFinite = 0, knownNan = 0, knownInf = 0;
    bool wMoments = true; ///< compute W's central moments (false when the caller gave W's stats)
    /// Thresholds finalize 1 finds: 0 the W/Ŵ float table and FP64 error / |error| tables (the
    /// generic pass 2), 1 none (the value-table path bins with the formula itself), 2 the W/Ŵ
    /// table and FP32 error / |error| tables (the fast INT pass 2, whose errors are FP32 values).
    int thresholds = 0;
};

/// Pass 1 reduced, plus what pass 2 needs (device-resident; downloaded at the end).
struct Stats1 {
    double d[kP1D];
    std::int64_t i[kP1I];
    double meanW, meanY;
    double lo, hi;         ///< W/Ŵ histogram range
    double emin, emax;     ///< error histogram range (0, 0 when nothing counted)
    double errRange;       ///< RN(emax − emin)
    double maxAbs;         ///< max |e|
    float wScale, wOffset; ///< approximate bin of x: x·wScale + wOffset (FP32 guess, corrected by T)
    float eScale, eOffset; ///< approximate bin of e (FP32 guess)
    float aScale;          ///< approximate bin of |e|
    int flags;             ///< kFlag*
    /// Bit 1: the FP32 guess of a W/Ŵ bin is within half a bin (one correction step decides it);
    /// 2: the same for the error bin; 4: for the |error| bin. Else the correction loops.
    int fastBins;
};
inline constexpr int kFlagNonFiniteError = 1; ///< Ŵ non-finite where W is finite: CPU metrics

/// Pass 2 reduced.
struct Stats2 {
    double d[kP2D];
};

inline constexpr int kAbsBins = 4096;

} // namespace quantscope::gpu
