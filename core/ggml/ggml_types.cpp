// SPDX-License-Identifier: MIT
// ggml's block types decoded to FP32. Each decoder repeats gguf-py's numpy expression for the
// type (gguf/quants.py, gguf 0.19) operation for operation in FP32 with no contraction
// (-ffp-contract=off), so the result is bit-identical: docs/numerics.md "GGUF block types".
#include "ggml/ggml_types.h"

#include "ggml/ggml_block_math.h"
#include "util/error.h"

#include <array>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <mutex>

namespace quantscope::ggml {

namespace {

#include "ggml/ggml_grids.inc"

constexpr int QK_K = 256;

const std::vector<TypeInfo> kTypes = {
    {Type::F32, "F32", 1, 4, true},
    {Type::F16, "F16", 1, 2, true},
    {Type::Q4_0, "Q4_0", 32, 18, true},
    {Type::Q4_1, "Q4_1", 32, 20, true},
    {Type::Q5_0, "Q5_0", 32, 22, true},
    {Type::Q5_1, "Q5_1", 32, 24, true},
    {Type::Q8_0, "Q8_0", 32, 34, true},
    {Type::Q8_1, "Q8_1", 32, 40, false},
    {Type::Q2_K, "Q2_K", QK_K, 2 + 2 + QK_K / 16 + QK_K / 4, true},
    {Type::Q3_K, "Q3_K", QK_K, 2 + QK_K / 4 + QK_K / 8 + 12, true},
    {Type::Q4_K, "Q4_K", QK_K, 2 + 2 + QK_K / 2 + 12, true},
    {Type::Q5_K, "Q5_K", QK_K, 2 + 2 + QK_K / 2 + QK_K / 8 + 12, true},
    {Type::Q6_K, "Q6_K", QK_K, 2 + QK_K / 2 + QK_K / 4 + QK_K / 16, true},
    {Type::Q8_K, "Q8_K", QK_K, 4 + QK_K + QK_K / 8, true},
    {Type::IQ2_XXS, "IQ2_XXS", QK_K, 2 + QK_K / 4, true},
    {Type::IQ2_XS, "IQ2_XS", QK_K, 2 + QK_K / 4 + QK_K / 32, true},
    {Type::IQ3_XXS, "IQ3_XXS", QK_K, 2 + QK_K / 4 + QK_K / 8, true},
    {Type::IQ1_S, "IQ1_S", QK_K, 2 + QK_K / 8 + QK_K / 16, true},
    {Type::IQ4_NL, "IQ4_NL", 32, 18, true},
    {Type::IQ3_S, "IQ3_S", QK_K, 2 + QK_K / 4 + QK_K / 8 + QK_K / 32 + 4, true},
    {Type::IQ2_S, "IQ2_S", QK_K, 2 + QK_K / 4 + QK_K / 16, true},
    {Type::IQ4_XS, "IQ4_XS", QK_K, 2 + 2 + QK_K / 2 + QK_K / 64, true},
    {Type::I8, "I8", 1, 1, false},
    {Type::I16, "I16", 1, 2, false},
    {Type::I32, "I32", 1, 4, false},
    {Type::I64, "I64", 1, 8, false},
    {Type::F64, "F64", 1, 8, false},
    {Type::IQ1_M, "IQ1_M", QK_K, QK_K / 8 + QK_K / 16 + QK_K / 32, true},
    {Type::BF16, "BF16", 1, 2, true},
    {Type::TQ1_0, "TQ1_0", QK_K, 2 + 4 * 13, true},
    {Type::TQ2_0, "TQ2_0", QK_K, 2 + 64, true},
    {Type::MXFP4, "MXFP4", 32, 17, true},
    {Type::NVFP4, "NVFP4", 64, 36, true},
    {Type::Q1_0, "Q1_0", 128, 18, false},
};

/// An unpacked lattice: rows × cols values (gguf-py's init_grid).
struct Grid {
    int cols = 8;
    std::vector<float> values;
    const float *row(std::uint32_t i) const { return values.data() + static_cast<std::size_t>(i) * cols; }
};

Grid unpackGrid(const char *hex, const int *map, int mapSize, int cols)
{
    int bits = 0;
    while ((1 << bits) < mapSize)
        ++bits;
    const int perByte = 8 / bits;
    const int step = 8 / perByte;
    Grid g;
    g.cols = cols;
    const std::size_t n = std::strlen(hex) / 2;
    g.values.reserve(n * static_cast<std::size_t>(perByte));
    auto nib = [](char c) {
        unsigned v = static_cast<unsigned char>(c);
        return (v > 0x40 ? v + 9 : v) & 0x0Fu;
    };
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned byte = (nib(hex[2 * i]) << 4) | nib(hex[2 * i + 1]);
        for (int k = 0; k < perByte; ++k)
            g.values.push_back(static_cast<float>(map[(byte >> (k * step)) & ((1u << bits) - 1)]));
    }
    return g;
}

struct Grids {
    Grid iq2xxs, iq2xs, iq2s, iq3xxs, iq3s, iq1s;
};

const Grids &grids()
{
    static const Grids g = [] {
        Grids r;
        r.iq2xxs = unpackGrid(kGridHex_IQ2_XXS, kGridMap_IQ2_XXS, 3, 8);
        r.iq2xs = unpackGrid(kGridHex_IQ2_XS, kGridMap_IQ2_XS, 3, 8);
        r.iq2s = unpackGrid(kGridHex_IQ2_S, kGridMap_IQ2_S, 3, 8);
        r.iq3xxs = unpackGrid(kGridHex_IQ3_XXS, kGridMap_IQ3_XXS, 8, 4);
        r.iq3s = unpackGrid(kGridHex_IQ3_S, kGridMap_IQ3_S, 8, 4);
        r.iq1s = unpackGrid(kGridHex_IQ1_S, kGridMap_IQ1_S, 3, 8);
        return r;
    }();
    return g;
}

inline std::uint16_t u16(const unsigned char *p)
{
    return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}
inline std::uint32_t u32(const unsigned char *p)
{
    return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
           (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
inline float f16(const unsigned char *p)
{
    return halfToFloat(u16(p));
}
inline float sign(unsigned bits, int j)
{
    return ((bits >> j) & 1u) ? -1.0f : 1.0f;
}

constexpr std::array<std::int8_t, 16> kFp4Doubled = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
constexpr std::array<std::int8_t, 16> kIq4nl = {-127, -104, -83, -65, -49, -35, -22, -10,
                                                1,    13,   25,  38,  53,  69,  89,  113};

/// Low nibbles are elements 0..15, high nibbles 16..31 (Q4_0, Q4_1, IQ4_NL, Q5_* low bits).
inline unsigned nibble32(const unsigned char *qs, int e)
{
    return (qs[e & 15] >> (4 * (e >> 4))) & 0x0Fu;
}

float e8m0Half(unsigned x)
{
    const std::uint32_t bits = x < 2 ? (0x00200000u << x) : ((x - 1) << 23);
    return std::bit_cast<float>(bits);
}

float ue4m3Half(unsigned x)
{
    const int exp = static_cast<int>((x >> 3) & 0xFu);
    const float man = static_cast<float>(x & 7u);
    if (x == 0 || x == 0x7F)
        return 0.0f;
    const float raw = exp == 0 ? man * 0x1p-9f : (1.0f + man / 8.0f) * std::ldexp(1.0f, exp - 7);
    return raw * 0.5f;
}

void decodeBlock(Type t, const unsigned char *b, float *y)
{
    switch (t) {
    case Type::F32:
        std::memcpy(y, b, 4);
        return;
    case Type::F16:
        *y = f16(b);
        return;
    case Type::BF16:
        *y = std::bit_cast<float>(static_cast<std::uint32_t>(u16(b)) << 16);
        return;
    case Type::Q4_0:
    case Type::Q4_1:
    case Type::Q5_0:
    case Type::Q5_1:
    case Type::Q8_0:
    case Type::Q2_K:
    case Type::Q3_K:
    case Type::Q4_K:
    case Type::Q5_K:
    case Type::Q6_K: // the types the gguf method quantizes: ggml_block_math.h, shared with the GPU kernels
        blockmath::decode(static_cast<int>(t), b, y);
        return;
    case Type::Q8_K: { // ggml dequantize_row_q8_K: d (F32) · q
        float d;
        std::memcpy(&d, b, 4);
        for (int e = 0; e < QK_K; ++e)
            y[e] = d * static_cast<float>(static_cast<std::int8_t>(b[4 + e]));
        return;
    }
    case Type::TQ1_0: {
        const unsigned char *qs = b, *qh = b + 48;
        const float d = f16(b + 52);
        static constexpr unsigned pow3[5] = {1, 3, 9, 27, 81};
        for (int e = 0; e < QK_K; ++e) {
            unsigned v;
            if (e < 160)
                v = qs[e % 32] * pow3[e / 32];
            else if (e < 240)
                v = qs[32 + (e - 160) % 16] * pow3[(e - 160) / 16];
            else
                v = qh[(e - 240) % 4] * pow3[(e - 240) / 4];
            v &= 0xFF; // numpy multiplies uint8 by uint8 modulo 256, as ggml's uint8_t does
            y[e] = d * static_cast<float>(static_cast<int>((v * 3) >> 8) - 1);
        }
        return;
    }
    case Type::TQ2_0: {
        const float d = f16(b + 64);
        for (int e = 0; e < QK_K; ++e) {
            const int g = e / 128, s = (e % 128) / 32, j = e % 32;
            y[e] = d * static_cast<float>(static_cast<int>((b[g * 32 + j] >> (2 * s)) & 3) - 1);
        }
        return;
    }
    case Type::MXFP4: {
        const float d = e8m0Half(b[0]);
        for (int e = 0; e < 32; ++e)
            y[e] = d * static_cast<float>(kFp4Doubled[nibble32(b + 1, e)]);
        return;
    }
    case Type::NVFP4: {
        for (int sb = 0; sb < 4; ++sb) {
            const float d = ue4m3Half(b[sb]);
            const unsigned char *qs = b + 4 + sb * 8;
            for (int j = 0; j < 16; ++j) {
                const unsigned q = j < 8 ? (qs[j] & 0x0F) : (qs[j - 8] >> 4);
                y[sb * 16 + j] = d * static_cast<float>(kFp4Doubled[q]);
            }
        }
        return;
    }
    case Type::IQ4_NL: {
        const float d = f16(b);
        for (int e = 0; e < 32; ++e)
            y[e] = d * static_cast<float>(kIq4nl[nibble32(b + 2, e)]);
        return;
    }
    case Type::IQ4_XS: {
        const float d = f16(b);
        const std::uint16_t sh = u16(b + 2);
        const unsigned char *sl = b + 4, *qs = b + 8;
        for (int ib = 0; ib < 8; ++ib) {
            const unsigned lo = (sl[ib / 2] >> (4 * (ib % 2))) & 0x0F;
            const unsigned hi = (sh >> (2 * ib)) & 0x03;
            const float dl = d * static_cast<float>(static_cast<int>(lo | (hi << 4)) - 32);
            for (int k = 0; k < 32; ++k) {
                const unsigned q = (qs[ib * 16 + k % 16] >> (4 * (k / 16))) & 0x0F;
                y[ib * 32 + k] = dl * static_cast<float>(kIq4nl[q]);
            }
        }
        return;
    }
    case Type::IQ2_XXS:
    case Type::IQ3_XXS: {
        const bool three = t == Type::IQ3_XXS;
        const float d = f16(b);
        const unsigned char *qs = b + 2;
        for (int ib = 0; ib < 8; ++ib) {
            const std::uint32_t aux = three ? u32(b + 2 + 64 + 4 * ib) : u32(qs + 8 * ib + 4);
            const float db = three ? d * (0.5f + static_cast<float>(aux >> 28)) * 0.5f
                                   : d * (0.5f + static_cast<float>(aux >> 28)) * 0.25f;
            for (int l = 0; l < 4; ++l) {
                const unsigned signs = kKsigns[(aux >> (7 * l)) & 0x7F];
                for (int j = 0; j < 8; ++j) {
                    float g;
                    if (three) {
                        const int k = ib * 8 + l * 2 + j / 4; // 4 values per index byte
                        g = grids().iq3xxs.row(qs[k])[j % 4];
                    } else {
                        g = grids().iq2xxs.row(qs[8 * ib + l])[j];
                    }
                    y[ib * 32 + l * 8 + j] = db * g * sign(signs, j);
                }
            }
        }
        return;
    }
    case Type::IQ2_XS: {
        const float d = f16(b);
        const unsigned char *qs = b + 2, *sc = b + 66;
        for (int k = 0; k < 32; ++k) {
            const std::uint16_t q = u16(qs + 2 * k);
            const unsigned s = (sc[k / 4] >> (4 * ((k / 2) % 2))) & 0x0F;
            const float db = d * (0.5f + static_cast<float>(s)) * 0.25f;
            const unsigned signs = kKsigns[q >> 9];
            const float *g = grids().iq2xs.row(q & 511);
            for (int j = 0; j < 8; ++j)
                y[k * 8 + j] = db * g[j] * sign(signs, j);
        }
        return;
    }
    case Type::IQ2_S: {
        const float d = f16(b);
        const unsigned char *qs = b + 2, *sg = b + 34, *qh = b + 66, *sc = b + 74;
        for (int k = 0; k < 32; ++k) {
            const unsigned idx = qs[k] | (((qh[k / 4] >> (2 * (k % 4))) & 3u) << 8);
            const unsigned s = (sc[k / 4] >> (4 * ((k / 2) % 2))) & 0x0F;
            const float db = d * (0.5f + static_cast<float>(s)) * 0.25f;
            const float *g = grids().iq2s.row(idx);
            for (int j = 0; j < 8; ++j)
                y[k * 8 + j] = db * g[j] * sign(sg[k], j);
        }
        return;
    }
    case Type::IQ3_S: {
        const float d = f16(b);
        const unsigned char *qs = b + 2, *qh = b + 66, *sg = b + 74, *sc = b + 106;
        for (int e = 0; e < QK_K; ++e) {
            const int k = e / 4;
            const unsigned idx = qs[k] | (((qh[k / 8] >> (k % 8)) & 1u) << 8);
            const int ib = e / 32;
            const unsigned s = (sc[ib / 2] >> (4 * (ib % 2))) & 0x0F;
            const float db = d * static_cast<float>(1 + 2 * s);
            y[e] = db * grids().iq3s.row(idx)[e % 4] * sign(sg[e / 8], e % 8);
        }
        return;
    }
    case Type::IQ1_S: {
        const float d = f16(b);
        const unsigned char *qs = b + 2, *qhp = b + 34;
        for (int ib = 0; ib < 8; ++ib) {
            const std::uint16_t qh = u16(qhp + 2 * ib);
            const float dl = d * static_cast<float>(2 * ((qh >> 12) & 7) + 1);
            const float delta = (qh & 0x8000) == 0 ? 0.125f : -0.125f;
            for (int l = 0; l < 4; ++l) {
                const unsigned idx = qs[ib * 4 + l] | (((qh >> (3 * l)) & 7u) << 8);
                const float *g = grids().iq1s.row(idx);
                for (int j = 0; j < 8; ++j)
                    y[ib * 32 + l * 8 + j] = dl * (g[j] + delta);
            }
        }
        return;
    }
    case Type::IQ1_M: {
        const unsigned char *qs = b, *qh = b + 32, *scb = b + 48;
        std::uint16_t sc[4];
        for (int i = 0; i < 4; ++i)
            sc[i] = u16(scb + 2 * i);
        const std::uint16_t dbits = static_cast<std::uint16_t>(((sc[0] & 0xF000) >> 12) | ((sc[1] & 0xF000) >> 8) |
                                                               ((sc[2] & 0xF000) >> 4) | (sc[3] & 0xF000));
        const float d = halfToFloat(dbits);
        for (int k = 0; k < 32; ++k) { // k = ib·4 + half·2 + l: 8 values each
            const int si = k / 2;      // scale index ib·2 + half
            const unsigned s = (sc[si / 4] >> (3 * (si % 4))) & 7u;
            const float dl = d * static_cast<float>(2 * s + 1);
            const unsigned h = qh[k / 2] >> (4 * (k % 2));
            const unsigned idx = qs[k] | ((h & 7u) << 8);
            const float delta = (h & 0x08) == 0 ? 0.125f : -0.125f;
            const float *g = grids().iq1s.row(idx);
            for (int j = 0; j < 8; ++j)
                y[k * 8 + j] = dl * (g[j] + delta);
        }
        return;
    }
    default:
        break;
    }
    throw UnsupportedError("the ggml type " + std::string(typeName(t)) + " does not decode to FP32");
}

} // namespace

float halfToFloat(std::uint16_t h) noexcept
{
    return blockmath::f16ToF32(h); // exact, the GPU's own conversion
}

const std::vector<TypeInfo> &allTypes()
{
    return kTypes;
}

const TypeInfo *typeInfo(std::uint32_t id) noexcept
{
    for (const TypeInfo &t : kTypes)
        if (static_cast<std::uint32_t>(t.type) == id)
            return &t;
    return nullptr;
}

const std::vector<std::uint16_t> &latticeWords(Type t)
{
    // gguf-py's hex: little-endian uint16 words; the 2-bit grids are ggml's words as they are, the
    // 3-bit ones hold a nibble per value, which ggml packs into 3 bits.
    const auto words = [](const char *hex, bool threeBit) {
        std::vector<std::uint16_t> w(std::strlen(hex) / 4);
        const auto nib = [](char c) { return static_cast<unsigned>(c <= '9' ? c - '0' : c - 'a' + 10); };
        for (std::size_t i = 0; i < w.size(); ++i) {
            const char *p = hex + 4 * i;
            const unsigned v = (nib(p[0]) << 4 | nib(p[1])) | (nib(p[2]) << 12 | nib(p[3]) << 8);
            unsigned r = v;
            if (threeBit) {
                r = 0;
                for (int k = 0; k < 4; ++k)
                    r |= ((v >> (4 * k)) & 0xFu) << (3 * k);
            }
            w[i] = static_cast<std::uint16_t>(r);
        }
        return w;
    };
    static const std::vector<std::uint16_t> iq2xxs = words(kGridHex_IQ2_XXS, false),
                                            iq2xs = words(kGridHex_IQ2_XS, false), iq2s = words(kGridHex_IQ2_S, false),
                                            iq1s = words(kGridHex_IQ1_S, false), iq3xxs = words(kGridHex_IQ3_XXS, true),
                                            iq3s = words(kGridHex_IQ3_S, true), none;
    switch (t) {
    case Type::IQ2_XXS:
        return iq2xxs;
    case Type::IQ2_XS:
        return iq2xs;
    case Type::IQ2_S:
        return iq2s;
    case Type::IQ1_S:
    case Type::IQ1_M:
        return iq1s;
    case Type::IQ3_XXS:
        return iq3xxs;
    case Type::IQ3_S:
        return iq3s;
    default:
        return none;
    }
}

std::string_view typeName(Type t) noexcept
{
    const TypeInfo *i = typeInfo(static_cast<std::uint32_t>(t));
    return i ? i->name : std::string_view("unknown");
}

std::optional<Type> typeFromName(std::string_view name) noexcept
{
    for (const TypeInfo &t : kTypes) {
        if (t.name.size() != name.size())
            continue;
        bool same = true;
        for (std::size_t i = 0; i < name.size() && same; ++i)
            same = std::toupper(static_cast<unsigned char>(name[i])) == static_cast<unsigned char>(t.name[i]);
        if (same)
            return t.type;
    }
    return std::nullopt;
}

std::string schemeText(Type t)
{
    const std::string n(typeName(t));
    switch (t) {
    case Type::F32:
    case Type::F16:
    case Type::BF16:
    case Type::F64:
        return n + ": dense floats";
    case Type::I8:
    case Type::I16:
    case Type::I32:
    case Type::I64:
        return n + ": dense integers";
    case Type::Q4_0:
        return n + ": blocks of 32, F16 scale d, 4-bit codes, w = d·(q − 8)";
    case Type::Q4_1:
        return n + ": blocks of 32, F16 scale d and min m, 4-bit codes, w = d·q + m";
    case Type::Q5_0:
        return n + ": blocks of 32, F16 scale d, 5-bit codes, w = d·(q − 16)";
    case Type::Q5_1:
        return n + ": blocks of 32, F16 scale d and min m, 5-bit codes, w = d·q + m";
    case Type::Q8_0:
        return n + ": blocks of 32, F16 scale d, 8-bit signed codes, w = d·q";
    case Type::Q8_1:
        return n + ": blocks of 32, F32 scale and sum, 8-bit signed codes (activations only)";
    case Type::Q2_K:
        return n + ": super-blocks of 256, 16 sub-blocks of 16, 4-bit scales and mins (F16 d, dmin), 2-bit codes";
    case Type::Q3_K:
        return n + ": super-blocks of 256, 16 sub-blocks of 16, 6-bit signed scales (F16 d), 3-bit codes";
    case Type::Q4_K:
        return n + ": super-blocks of 256, 8 sub-blocks of 32, 6-bit scales and mins (F16 d, dmin), 4-bit codes";
    case Type::Q5_K:
        return n + ": super-blocks of 256, 8 sub-blocks of 32, 6-bit scales and mins (F16 d, dmin), 5-bit codes";
    case Type::Q6_K:
        return n + ": super-blocks of 256, 16 sub-blocks of 16, 8-bit signed scales (F16 d), 6-bit codes";
    case Type::Q8_K:
        return n + ": super-blocks of 256, F32 scale, 8-bit signed codes (activations only)";
    case Type::IQ2_XXS:
        return n + ": super-blocks of 256, 8 sub-blocks of 32 with 4-bit scales, 8-value E8-lattice codes (256 "
                   "points) + 7-bit sign patterns; 2.06 bits per weight";
    case Type::IQ2_XS:
        return n + ": super-blocks of 256, 16 sub-blocks of 16 with 4-bit scales, 9-bit E8-lattice codes (512 "
                   "points) + 7-bit signs; 2.31 bits per weight";
    case Type::IQ2_S:
        return n + ": super-blocks of 256, 16 sub-blocks of 16 with 4-bit scales, 10-bit lattice codes (1024 "
                   "points), explicit sign bits; 2.5 bits per weight";
    case Type::IQ3_XXS:
        return n + ": super-blocks of 256, 8 sub-blocks of 32 with 4-bit scales, 4-value lattice codes (256 "
                   "points) + 7-bit signs; 3.06 bits per weight";
    case Type::IQ3_S:
        return n + ": super-blocks of 256, 8 sub-blocks of 32 with 4-bit odd scales, 9-bit 4-value lattice codes "
                   "(512 points), explicit sign bits; 3.44 bits per weight";
    case Type::IQ1_S:
        return n + ": super-blocks of 256, 8 sub-blocks of 32 with 3-bit odd scales and a ±1/8 shift, 11-bit "
                   "ternary-lattice codes (2048 points); 1.56 bits per weight";
    case Type::IQ1_M:
        return n + ": super-blocks of 256, 16 sub-blocks of 16 with 3-bit odd scales (F16 d split over their high "
                   "bits), ±1/8 shift per 8, 11-bit ternary-lattice codes; 1.75 bits per weight";
    case Type::IQ4_NL:
        return n + ": blocks of 32, F16 scale d, 4-bit indexes into a 16-value non-linear table";
    case Type::IQ4_XS:
        return n + ": super-blocks of 256, 8 sub-blocks of 32 with 6-bit signed scales, 4-bit indexes into a "
                   "16-value non-linear table; 4.25 bits per weight";
    case Type::TQ1_0:
        return n + ": super-blocks of 256, F16 scale, ternary codes {−1, 0, 1} packed 5 per byte (base 3); "
                   "1.69 bits per weight";
    case Type::TQ2_0:
        return n + ": super-blocks of 256, F16 scale, ternary codes {−1, 0, 1} in 2 bits; 2.06 bits per weight";
    case Type::MXFP4:
        return n + ": blocks of 32, E8M0 scale, FP4 E2M1 codes (ggml: low nibbles elements 0–15, high 16–31; "
                   "OCP MX packs element pairs)";
    case Type::NVFP4:
        return n + ": blocks of 64 as 4 sub-blocks of 16, UE4M3 scale each, FP4 E2M1 codes (ggml: no per-tensor "
                   "FP32 scale; low nibbles elements 0–7, high 8–15 of each 16)";
    case Type::Q1_0:
        return n + ": blocks of 128, F16 scale, 1-bit codes";
    }
    return n;
}

void decodeBlocks(Type t, const std::byte *src, std::size_t nblocks, float *out)
{
    const TypeInfo *info = typeInfo(static_cast<std::uint32_t>(t));
    if (!info || !info->decodes)
        throw UnsupportedError("the ggml type " + std::string(typeName(t)) + " does not decode to FP32");
    const auto *b = reinterpret_cast<const unsigned char *>(src);
    for (std::size_t i = 0; i < nblocks; ++i)
        decodeBlock(t, b + i * static_cast<std::size_t>(info->typeSize),
                    out + i * static_cast<std::size_t>(info->blockSize));
}

} // namespace quantscope::ggml
