// SPDX-License-Identifier: MIT
#pragma once
/// \file w3lr_synthetic.h
/// The synthetic 3-bit weights the W3A16 + MiLo GEMM is timed on (the GEMM lab's w3a16-milo
/// points, engine_gemmlab_w3lr.cpp, and bench/gpu_w3lr_fused.cpp): codes u ∈ [0, 7], scales
/// s ∈ [0.004, 0.012] and zero points z ∈ [2.5, 4.5] per group of `group` along K (as HQQ's 3-bit
/// fits on N(0, 0.02)-like rows), Ŵ by the CPU's dequantize (compute fp32) and the GEMM's packed
/// codes (w3lr_pack.h). Host code; the caller's generator continues after it (the factors).
#include <cstdint>
#include <random>
#include <vector>

#include "../kernels/gemm/w3lr_pack.h"
#include "quant/hqq.h"

namespace quantscope::gpu {

struct W3SyntheticWeights {
    std::vector<std::uint8_t> codes;   ///< [N, K], one code an element
    std::vector<float> scales, zeros;  ///< per group
    std::vector<float> wHat;           ///< [N, K]
    std::vector<std::uint32_t> packed; ///< the GEMM's layout (empty: the shape did not pack)
};

inline W3SyntheticWeights syntheticW3Weights(std::int64_t n, std::int64_t k, std::int64_t group, std::mt19937_64 &rng)
{
    W3SyntheticWeights w;
    w.codes.resize(static_cast<std::size_t>(n * k));
    for (auto &c : w.codes)
        c = static_cast<std::uint8_t>(rng() % 8);
    std::uniform_real_distribution<float> sd(0.004f, 0.012f), zd(2.5f, 4.5f);
    w.scales.resize(static_cast<std::size_t>(n * (k / group)));
    w.zeros.resize(w.scales.size());
    for (std::size_t i = 0; i < w.scales.size(); ++i)
        w.scales[i] = sd(rng), w.zeros[i] = zd(rng);
    HqqSpec spec = HqqSpec::forPreset(HqqPreset::MiloCode);
    spec.axis = 1;
    spec.group = group;
    w.wHat.resize(w.codes.size());
    hqqDequantizeFlat(spec, w.codes, w.scales, w.zeros, w.wHat);
    if (!w3lr::packCodes(w.codes.data(), n, k, w.packed))
        w.packed.clear();
    return w;
}

} // namespace quantscope::gpu
