// SPDX-License-Identifier: MIT
#pragma once
/// \file fp4gemm_math.h
/// The fused FP4 GEMM's element operations (gemm_fp4.cu; docs/numerics.md "Fused FP4 GEMM"),
/// written once as QS_HD functions so that the host tests them over every code and scale
/// (tests/gpu/test_device_math_fp4gemm.cpp, label core). No CUDA header: kernel sources define
/// QS_HD as `__host__ __device__` before including; integer operations only (the byte permute is
/// PTX prmt on the device and the same selection on the host, selector nibbles ≤ 7 throughout).
#include <cstdint>

#ifndef QS_HD
#define QS_HD
#endif

namespace quantscope::fp4gemm {

/// The byte permute of two words with selector nibbles in [0, 7] (bytes 0–3 of a, 4–7 of b; only
/// the selector's low 16 bits count): __byte_perm on the device.
QS_HD inline std::uint32_t bytePerm(std::uint32_t a, std::uint32_t b, std::uint32_t sel)
{
#if defined(__CUDA_ARCH__)
    return __byte_perm(a, b, sel);
#else
    const std::uint64_t both = (static_cast<std::uint64_t>(b) << 32) | a;
    std::uint32_t r = 0;
    for (int i = 0; i < 4; ++i) {
        const unsigned s = (sel >> (4 * i)) & 0x7u;
        r |= static_cast<std::uint32_t>((both >> (8 * s)) & 0xFFu) << (8 * i);
    }
    return r;
#endif
}

/// BF16 bits of the E2M1 magnitudes t = 0…7 (0, 0.5, 1, 1.5, 2, 3, 4, 6): 0x0000, 0x3F00,
/// 0x3F80, 0x3FC0, 0x4000, 0x4040, 0x4080, 0x40C0, as byte tables for the permute (low bytes of
/// t = 0–3 | 4–7, high bytes of t = 0–3 | 4–7). Every E2M1 value is a normal BF16 (or zero).
inline constexpr std::uint32_t kLo03 = 0xC0800000u, kLo47 = 0xC0804000u;
inline constexpr std::uint32_t kHi03 = 0x3F3F3F00u, kHi47 = 0x40404040u;

/// The BF16 pairs of one word of eight E2M1 codes n0…n7 (n_j in bits 4j…4j+3, bit 3 the sign):
/// p[j] = (bf16 value of n_j | bf16 value of n_{j+4}) (low | high half), exactly. The magnitudes
/// by two table permutes per four codes, interleaved by one permute per pair, the sign bits
/// moved into bits 15 and 31 by one shift and one and-or: 18 integer operations per 8 codes.
QS_HD inline void e2m1PairsBf16(std::uint32_t word, std::uint32_t (&p)[4])
{
    const std::uint32_t m = word & 0x77777777u;        // the magnitudes (selector nibbles ≤ 7)
    const std::uint32_t selA = bytePerm(m, 0u, 0x20u); // nibbles n0, n1, n4, n5
    const std::uint32_t selB = bytePerm(m, 0u, 0x31u); // nibbles n2, n3, n6, n7
    const std::uint32_t lA = bytePerm(kLo03, kLo47, selA), hA = bytePerm(kHi03, kHi47, selA);
    const std::uint32_t lB = bytePerm(kLo03, kLo47, selB), hB = bytePerm(kHi03, kHi47, selB);
    p[0] = bytePerm(lA, hA, 0x6240u) | ((word << 12) & 0x80008000u); // codes 0, 4
    p[1] = bytePerm(lA, hA, 0x7351u) | ((word << 8) & 0x80008000u);  // codes 1, 5
    p[2] = bytePerm(lB, hB, 0x6240u) | ((word << 4) & 0x80008000u);  // codes 2, 6
    p[3] = bytePerm(lB, hB, 0x7351u) | (word & 0x80008000u);         // codes 3, 7
}

/// MXFP4's UE8M0 scale byte as a BF16 pair: BF16 has FP32's exponent field, so 2^(byte − 127)
/// is the bits byte << 7 in each half (byte 0 gives 0, not 2^-127: the kernel refuses a group
/// with a non-zero code there, fp4GemmDataRefusal).
QS_HD inline std::uint32_t mxScalePair(std::uint32_t byte)
{
    return byte * 0x00800080u;
}

/// The BF16 bits of an E4M3 (e4m3fn) byte, exactly (≤ 4 significant bits; E4M3's subnormals
/// m·2^-9 are BF16 normals). NaN (0x7F, 0xFF) is not mapped (the kernel refuses such scales).
QS_HD inline std::uint16_t e4m3Bf16Bits(std::uint32_t byte)
{
    const std::uint32_t s = (byte & 0x80u) << 8, e = (byte >> 3) & 0xFu, m = byte & 0x7u;
    if (e != 0)
        return static_cast<std::uint16_t>(s | ((e + 120u) << 7) | (m << 4));
    if (m == 0)
        return static_cast<std::uint16_t>(s);
    const std::uint32_t lead = m >= 4 ? 2u : m >= 2 ? 1u : 0u; // m·2^-9 = 1.f·2^(lead − 9)
    return static_cast<std::uint16_t>(s | ((118u + lead) << 7) | (((m << (3 - lead)) & 0x7u) << 4));
}

/// NVFP4's E4M3 block scale byte as a BF16 pair (the same value in both halves).
QS_HD inline std::uint32_t nvScalePair(std::uint32_t byte)
{
    return static_cast<std::uint32_t>(e4m3Bf16Bits(byte)) * 0x00010001u;
}

/// Whether an MXFP4 scale byte keeps every value·2^(byte − 127) a normal, finite BF16
/// (0.5·2^(byte − 127) ≥ 2^-126 and 6·2^(byte − 127) < 2^128): bytes 2…252.
QS_HD inline bool mxScaleExact(std::uint32_t byte)
{
    return byte >= 2u && byte <= 252u;
}

} // namespace quantscope::fp4gemm
