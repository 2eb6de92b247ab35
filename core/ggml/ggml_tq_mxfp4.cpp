// SPDX-License-Identifier: MIT
// llama.cpp's reference quantizers of the ternary types TQ1_0, TQ2_0 and of ggml's MXFP4
// (ggml-quants.c quantize_row_tq1_0_ref, quantize_row_tq2_0_ref, quantize_row_mxfp4_ref; gguf-py
// 0.19 quants.py TQ1_0 / TQ2_0 / MXFP4 quantize_blocks, which computes the same), written from
// them operation for operation in FP32. Op sequences: docs/numerics.md "GGUF block types".
#include "ggml/ggml_quantize.h"

#include "tensor/convert.h"

#include <bit>
#include <cmath>
#include <cstdint>

namespace quantscope::ggml::smallquants {

namespace {

void putF16(unsigned char *p, float v)
{
    const std::uint16_t h = floatToF16(v);
    p[0] = static_cast<unsigned char>(h & 0xFF);
    p[1] = static_cast<unsigned char>(h >> 8);
}

float blockAbsMax(const float *x, int n)
{
    float amax = 0.0f;
    for (int j = 0; j < n; ++j)
        amax = amax > std::fabs(x[j]) ? amax : std::fabs(x[j]); // ggml's MAX(amax, fabsf(v))
    return amax;
}

/// lroundf(x·id) + 1: the ternary digit 0, 1, 2 of −1, 0, 1 (round half away from zero).
unsigned trit(float x, float id)
{
    return static_cast<unsigned>(std::lround(x * id) + 1);
}

/// TQ1_0: 48 bytes of five base-3 digits, 4 bytes of four, F16 d; 54 bytes per 256.
void tq1Block(const float *x, unsigned char *y)
{
    const float d = blockAbsMax(x, 256);
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    const auto pack = [](unsigned q) { return static_cast<unsigned char>((q * 256 + (243 - 1)) / 243); };
    for (int m = 0; m < 32; ++m) { // elements 0–159: byte m holds x[m + 32n], n = 0 … 4
        unsigned q = 0;
        for (int n = 0; n < 5; ++n)
            q = q * 3 + trit(x[m + n * 32], id);
        y[m] = pack(q);
    }
    for (int m = 0; m < 16; ++m) { // elements 160–239: byte 32 + m holds x[160 + m + 16n]
        unsigned q = 0;
        for (int n = 0; n < 5; ++n)
            q = q * 3 + trit(x[160 + m + n * 16], id);
        y[32 + m] = pack(q);
    }
    for (int j = 0; j < 4; ++j) { // elements 240–255: qh[j] holds x[240 + j + 4m], m = 0 … 3
        unsigned q = 0;
        for (int m = 0; m < 4; ++m)
            q = q * 3 + trit(x[240 + j + m * 4], id);
        y[48 + j] = pack(q * 3); // the first value in the most significant trit
    }
    putF16(y + 52, d);
}

/// TQ2_0: 64 bytes of four 2-bit digits (x[m + 32n] in bits 2n, 2n+1 of byte 32·(j/128) + m),
/// F16 d; 66 bytes per 256.
void tq2Block(const float *x, unsigned char *y)
{
    const float d = blockAbsMax(x, 256);
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    for (int j = 0; j < 64; j += 32)
        for (int m = 0; m < 32; ++m) {
            unsigned q = 0;
            for (int n = 0; n < 4; ++n)
                q += (trit(x[j * 4 + m + n * 32], id) & 3u) << (2 * n);
            y[j + m] = static_cast<unsigned char>(q);
        }
    putF16(y + 64, d);
}

/// ggml's kvalues_mxfp4: the E2M1 values doubled.
constexpr float kMxfp4Doubled[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

/// ggml_e8m0_to_fp32_half: 2^(e − 128) (e < 2 as FP32 subnormals).
float e8m0Half(unsigned e)
{
    return std::bit_cast<float>(e < 2 ? std::uint32_t{0x00200000u} << e : (e - 1) << 23);
}

/// MXFP4: E8M0 byte e = floor(log2 amax) − 2 + 127, then per element the index of the doubled
/// table whose d·k is nearest (the first on ties); element j in the low nibble of byte j, j + 16
/// in its high nibble; 17 bytes per 32.
void mxfp4Block(const float *x, unsigned char *y)
{
    float amax = 0.0f;
    for (int j = 0; j < 32; ++j)
        if (amax < std::fabs(x[j]))
            amax = std::fabs(x[j]);
    // (uint8_t) of the float, through int as x86 converts (a negative value wraps).
    const unsigned e =
        amax > 0.0f ? static_cast<unsigned char>(static_cast<int>(std::floor(std::log2(amax)) - 2.0f + 127.0f)) : 0u;
    const float d = e8m0Half(e);
    y[0] = static_cast<unsigned char>(e);
    const auto best = [d](float v) {
        unsigned bi = 0;
        float be = std::fabs(kMxfp4Doubled[0] * d - v);
        for (unsigned i = 1; i < 16; ++i) {
            const float err = std::fabs(kMxfp4Doubled[i] * d - v);
            if (err < be) {
                bi = i;
                be = err;
            }
        }
        return bi;
    };
    for (int j = 0; j < 16; ++j)
        y[1 + j] = static_cast<unsigned char>(best(x[j]) | (best(x[16 + j]) << 4));
}

} // namespace

bool quantizes(Type t) noexcept
{
    return t == Type::TQ1_0 || t == Type::TQ2_0 || t == Type::MXFP4;
}

void quantize(Type t, const float *x, void *dst, std::int64_t nblocks)
{
    auto *y = static_cast<unsigned char *>(dst);
    for (std::int64_t b = 0; b < nblocks; ++b)
        switch (t) {
        case Type::TQ1_0:
            tq1Block(x + b * 256, y + b * 54);
            break;
        case Type::TQ2_0:
            tq2Block(x + b * 256, y + b * 66);
            break;
        case Type::MXFP4:
            mxfp4Block(x + b * 32, y + b * 17);
            break;
        default:
            return;
        }
}

} // namespace quantscope::ggml::smallquants
