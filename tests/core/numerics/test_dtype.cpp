// SPDX-License-Identifier: MIT
// DType table and the narrow-format conversions (docs/numerics.md "Casts";
// docs/toolkits.md §1.4, §6).
// Every decoder is checked on every code against a decoder written here from the format's
// definition ((-1)^s · 1.m · 2^(e−bias), std::ldexp); the encoders on pinned cases and round
// trips (the exhaustive encoder check is the `slow` test quantscope_convert_exhaustive).
#include "tensor/convert.h"
#include "tensor/dtype.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <gtest/gtest.h>
#include <limits>
#include <string>
#include <string_view>

namespace qs = quantscope;

namespace {

// ---------------------------------------------------------------------------------------------
// dtype table
// ---------------------------------------------------------------------------------------------

struct Expected {
    qs::DType type;
    const char *name;
    int bits;
    bool floating;
};

// docs/toolkits.md §1.4, in safetensors order.
constexpr Expected kSafetensors[] = {
    {qs::DType::BOOL, "BOOL", 8, false},
    {qs::DType::F4, "F4", 4, true},
    {qs::DType::F6_E2M3, "F6_E2M3", 6, true},
    {qs::DType::F6_E3M2, "F6_E3M2", 6, true},
    {qs::DType::U8, "U8", 8, false},
    {qs::DType::I8, "I8", 8, false},
    {qs::DType::F8_E5M2, "F8_E5M2", 8, true},
    {qs::DType::F8_E4M3, "F8_E4M3", 8, true},
    {qs::DType::F8_E8M0, "F8_E8M0", 8, true},
    {qs::DType::F8_E4M3FNUZ, "F8_E4M3FNUZ", 8, true},
    {qs::DType::F8_E5M2FNUZ, "F8_E5M2FNUZ", 8, true},
    {qs::DType::I16, "I16", 16, false},
    {qs::DType::U16, "U16", 16, false},
    {qs::DType::F16, "F16", 16, true},
    {qs::DType::BF16, "BF16", 16, true},
    {qs::DType::I32, "I32", 32, false},
    {qs::DType::U32, "U32", 32, false},
    {qs::DType::F32, "F32", 32, true},
    {qs::DType::C64, "C64", 64, false},
    {qs::DType::F64, "F64", 64, true},
    {qs::DType::I64, "I64", 64, false},
    {qs::DType::U64, "U64", 64, false},
};
static_assert(std::size(kSafetensors) == qs::kSafetensorsDTypeCount);

TEST(DType, SafetensorsStringsRoundTrip)
{
    for (int i = 0; i < qs::kSafetensorsDTypeCount; ++i) {
        const Expected &e = kSafetensors[i];
        SCOPED_TRACE(e.name);
        EXPECT_EQ(static_cast<int>(e.type), i) << "enum order is safetensors' order";
        EXPECT_EQ(qs::nameOf(e.type), std::string_view(e.name));
        const auto parsed = qs::dtypeFromSafetensors(e.name);
        ASSERT_TRUE(parsed.has_value());
        EXPECT_EQ(*parsed, e.type);
        EXPECT_EQ(qs::dtypeFromSafetensors(qs::nameOf(e.type)), e.type);
        EXPECT_EQ(qs::bitsOf(e.type), e.bits);
        EXPECT_EQ(qs::isFloating(e.type), e.floating);
        EXPECT_EQ(qs::isDecodable(e.type), e.type != qs::DType::C64);
    }
}

TEST(DType, QuantscopeNativeInt4)
{
    EXPECT_EQ(qs::nameOf(qs::DType::I4), "I4");
    EXPECT_EQ(qs::nameOf(qs::DType::U4), "U4");
    EXPECT_EQ(qs::bitsOf(qs::DType::I4), 4);
    EXPECT_EQ(qs::bitsOf(qs::DType::U4), 4);
    EXPECT_TRUE(qs::isDecodable(qs::DType::I4));
    EXPECT_TRUE(qs::isDecodable(qs::DType::U4));
    EXPECT_FALSE(qs::isFloating(qs::DType::I4));
    EXPECT_FALSE(qs::isFloating(qs::DType::U4));
    EXPECT_EQ(qs::kDTypeCount, 24);
}

TEST(DType, RefusesNearMisses)
{
    for (const char *s : {"f32", "F8_E4M3FN", "I4", "U4", "", "F32 ", " F32", "F8_E5M2FN", "BFLOAT16", "bf16", "F8",
                          "F8_E4M3FNUZ_", "FP16", "C128", "F4_E2M1"}) {
        SCOPED_TRACE(s);
        EXPECT_FALSE(qs::dtypeFromSafetensors(s).has_value());
    }
    // An embedded NUL must not match by prefix.
    EXPECT_FALSE(qs::dtypeFromSafetensors(std::string_view("F32\0", 4)).has_value());
}

// ---------------------------------------------------------------------------------------------
// Independent decoder, from the format definition
// ---------------------------------------------------------------------------------------------

enum class Kind { Finite, E4m3fn, Ieee, Fnuz };

struct Spec {
    const char *name;
    int eBits;
    int mBits;
    int bias;
    Kind kind;
};

double refDecode(std::uint32_t code, const Spec &f)
{
    const int s = static_cast<int>((code >> (f.eBits + f.mBits)) & 1u);
    const int eMax = (1 << f.eBits) - 1;
    const int e = static_cast<int>(code >> f.mBits) & eMax;
    const int m = static_cast<int>(code) & ((1 << f.mBits) - 1);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (f.kind == Kind::E4m3fn && e == eMax && m == (1 << f.mBits) - 1)
        return nan;
    if (f.kind == Kind::Ieee && e == eMax)
        return m == 0 ? (s ? -HUGE_VAL : HUGE_VAL) : nan;
    if (f.kind == Kind::Fnuz && s == 1 && e == 0 && m == 0)
        return nan;
    const double mag =
        e == 0 ? std::ldexp(m, 1 - f.bias - f.mBits) : std::ldexp((1 << f.mBits) + m, e - f.bias - f.mBits);
    return s ? -mag : mag;
}

template <typename Decode> void checkAllCodes(const Spec &f, Decode decode)
{
    const std::uint32_t n = 1u << (1 + f.eBits + f.mBits);
    int failures = 0;
    for (std::uint32_t c = 0; c < n && failures < 10; ++c) {
        const double ref = refDecode(c, f);
        const float got = decode(c);
        if (std::isnan(ref)) {
            if (!std::isnan(got)) {
                ADD_FAILURE() << f.name << " code 0x" << std::hex << c << ": expected NaN, got " << got;
                ++failures;
            }
            continue;
        }
        const auto refF = static_cast<float>(ref);
        ASSERT_EQ(static_cast<double>(refF), ref) << f.name << ": every code must fit FP32";
        if (std::bit_cast<std::uint32_t>(refF) != std::bit_cast<std::uint32_t>(got)) {
            ADD_FAILURE() << f.name << " code 0x" << std::hex << c << ": expected " << ref << ", got " << got;
            ++failures;
        }
    }
}

TEST(Convert, DecodeEveryCode)
{
    checkAllCodes({"BF16", 8, 7, 127, Kind::Ieee},
                  [](std::uint32_t c) { return qs::bf16ToFloat(static_cast<std::uint16_t>(c)); });
    checkAllCodes({"F16", 5, 10, 15, Kind::Ieee},
                  [](std::uint32_t c) { return qs::f16ToFloat(static_cast<std::uint16_t>(c)); });
    checkAllCodes({"E4M3", 4, 3, 7, Kind::E4m3fn},
                  [](std::uint32_t c) { return qs::e4m3ToFloat(static_cast<std::uint8_t>(c)); });
    checkAllCodes({"E5M2", 5, 2, 15, Kind::Ieee},
                  [](std::uint32_t c) { return qs::e5m2ToFloat(static_cast<std::uint8_t>(c)); });
    checkAllCodes({"E4M3FNUZ", 4, 3, 8, Kind::Fnuz},
                  [](std::uint32_t c) { return qs::e4m3fnuzToFloat(static_cast<std::uint8_t>(c)); });
    checkAllCodes({"E5M2FNUZ", 5, 2, 16, Kind::Fnuz},
                  [](std::uint32_t c) { return qs::e5m2fnuzToFloat(static_cast<std::uint8_t>(c)); });
    checkAllCodes({"E2M1", 2, 1, 1, Kind::Finite},
                  [](std::uint32_t c) { return qs::e2m1ToFloat(static_cast<std::uint8_t>(c)); });
    checkAllCodes({"E2M3", 2, 3, 1, Kind::Finite},
                  [](std::uint32_t c) { return qs::e2m3ToFloat(static_cast<std::uint8_t>(c)); });
    checkAllCodes({"E3M2", 3, 2, 3, Kind::Finite},
                  [](std::uint32_t c) { return qs::e3m2ToFloat(static_cast<std::uint8_t>(c)); });
}

TEST(Convert, DecodeE8m0EveryCode)
{
    for (int c = 0; c < 255; ++c)
        EXPECT_EQ(qs::e8m0ToFloat(static_cast<std::uint8_t>(c)), static_cast<float>(std::ldexp(1.0, c - 127)))
            << "code " << c;
    EXPECT_TRUE(std::isnan(qs::e8m0ToFloat(0xFF)));
}

TEST(Convert, DecodeIgnoresHighBitsOfSubByteCodes)
{
    for (int c = 0; c < 256; ++c) {
        const auto b = static_cast<std::uint8_t>(c);
        EXPECT_EQ(std::bit_cast<std::uint32_t>(qs::e2m1ToFloat(b)),
                  std::bit_cast<std::uint32_t>(qs::e2m1ToFloat(b & 0x0F)));
        EXPECT_EQ(std::bit_cast<std::uint32_t>(qs::e2m3ToFloat(b)),
                  std::bit_cast<std::uint32_t>(qs::e2m3ToFloat(b & 0x3F)));
        EXPECT_EQ(std::bit_cast<std::uint32_t>(qs::e3m2ToFloat(b)),
                  std::bit_cast<std::uint32_t>(qs::e3m2ToFloat(b & 0x3F)));
    }
}

TEST(Convert, DecodePinnedValues)
{
    EXPECT_EQ(qs::e4m3ToFloat(0x7E), 448.0f);
    EXPECT_EQ(qs::e4m3ToFloat(0xFE), -448.0f);
    EXPECT_EQ(qs::e4m3ToFloat(0x08), 0x1p-6f);
    EXPECT_EQ(qs::e4m3ToFloat(0x01), 0x1p-9f);
    EXPECT_EQ(qs::e4m3ToFloat(0x38), 1.0f);
    EXPECT_TRUE(std::isnan(qs::e4m3ToFloat(0x7F)));
    EXPECT_TRUE(std::isnan(qs::e4m3ToFloat(0xFF)));
    EXPECT_TRUE(std::signbit(qs::e4m3ToFloat(0x80)));
    EXPECT_EQ(qs::e4m3ToFloat(0x80), 0.0f);

    EXPECT_EQ(qs::e5m2ToFloat(0x7B), 57344.0f);
    EXPECT_EQ(qs::e5m2ToFloat(0x7C), std::numeric_limits<float>::infinity());
    EXPECT_EQ(qs::e5m2ToFloat(0xFC), -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(qs::e5m2ToFloat(0x7D)));
    EXPECT_TRUE(std::isnan(qs::e5m2ToFloat(0x7E)));
    EXPECT_TRUE(std::isnan(qs::e5m2ToFloat(0x7F)));
    EXPECT_EQ(qs::e5m2ToFloat(0x04), 0x1p-14f);
    EXPECT_EQ(qs::e5m2ToFloat(0x01), 0x1p-16f);

    EXPECT_EQ(qs::e4m3fnuzToFloat(0x7F), 240.0f);
    EXPECT_TRUE(std::isnan(qs::e4m3fnuzToFloat(0x80)));
    EXPECT_EQ(qs::e4m3fnuzToFloat(0x40), 1.0f);
    EXPECT_EQ(qs::e5m2fnuzToFloat(0x7F), 57344.0f);
    EXPECT_TRUE(std::isnan(qs::e5m2fnuzToFloat(0x80)));
    EXPECT_EQ(qs::e5m2fnuzToFloat(0x40), 1.0f);

    const float e2m1[16] = {0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f,
                            -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};
    for (int c = 0; c < 16; ++c)
        EXPECT_EQ(std::bit_cast<std::uint32_t>(qs::e2m1ToFloat(static_cast<std::uint8_t>(c))),
                  std::bit_cast<std::uint32_t>(e2m1[c]))
            << "E2M1 code " << c;

    EXPECT_EQ(qs::e2m3ToFloat(0x1F), 7.5f);
    EXPECT_EQ(qs::e2m3ToFloat(0x01), 0.125f);
    EXPECT_EQ(qs::e3m2ToFloat(0x1F), 28.0f);
    EXPECT_EQ(qs::e3m2ToFloat(0x01), 0.0625f);

    EXPECT_EQ(qs::e8m0ToFloat(0x7F), 1.0f);
    EXPECT_EQ(qs::e8m0ToFloat(0x00), 0x1p-127f);
    EXPECT_EQ(qs::e8m0ToFloat(0xFE), 0x1p127f);
    EXPECT_TRUE(std::isnan(qs::e8m0ToFloat(0xFF)));

    EXPECT_EQ(qs::bf16ToFloat(0x3F80), 1.0f);
    EXPECT_EQ(qs::f16ToFloat(0x7BFF), 65504.0f);
    EXPECT_EQ(qs::f16ToFloat(0x0001), 0x1p-24f);
}

// ---------------------------------------------------------------------------------------------
// Encoders: pinned cases
// ---------------------------------------------------------------------------------------------

float f32(std::uint32_t bits)
{
    return std::bit_cast<float>(bits);
}

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kMax = std::numeric_limits<float>::max();

#define EXPECT_CODE(expr, expected) EXPECT_EQ(static_cast<unsigned>(expr), static_cast<unsigned>(expected)) << #expr

TEST(Convert, E4m3Encode)
{
    EXPECT_CODE(qs::floatToE4m3(448.0f), 0x7E);
    EXPECT_CODE(qs::floatToE4m3(464.0f), 0x7E); // tie between 448 and (absent) 480
    EXPECT_CODE(qs::floatToE4m3(470.0f), 0x7E);
    EXPECT_CODE(qs::floatToE4m3(480.0f), 0x7E); // torch's legacy cast gives NaN here
    EXPECT_CODE(qs::floatToE4m3(1e30f), 0x7E);
    EXPECT_CODE(qs::floatToE4m3(kMax), 0x7E);
    EXPECT_CODE(qs::floatToE4m3(kInf), 0x7E);
    EXPECT_CODE(qs::floatToE4m3(-kInf), 0xFE);
    EXPECT_CODE(qs::floatToE4m3(-480.0f), 0xFE);
    EXPECT_CODE(qs::floatToE4m3(kNaN), 0x7F);
    EXPECT_CODE(qs::floatToE4m3(-kNaN), 0xFF);
    EXPECT_CODE(qs::floatToE4m3(f32(0x7F800001u)), 0x7F); // signalling NaN
    EXPECT_CODE(qs::floatToE4m3(0.0f), 0x00);
    EXPECT_CODE(qs::floatToE4m3(-0.0f), 0x80);
    EXPECT_CODE(qs::floatToE4m3(1.0f), 0x38);
    EXPECT_CODE(qs::floatToE4m3(1.0625f), 0x38); // tie → even mantissa 000
    EXPECT_CODE(qs::floatToE4m3(1.1875f), 0x3A); // tie → even mantissa 010
    EXPECT_CODE(qs::floatToE4m3(416.0f), 0x7D);
    EXPECT_CODE(qs::floatToE4m3(432.0f), 0x7E); // tie 416|448 → 448 (mantissa 110)
    EXPECT_CODE(qs::floatToE4m3(400.0f), 0x7C); // tie 384|416 → 384 (mantissa 100)
    // subnormal quantum 2^-9: ties k + 1/2 go to the even k
    EXPECT_CODE(qs::floatToE4m3(0x1p-10f), 0x00);
    EXPECT_CODE(qs::floatToE4m3(-0x1p-10f), 0x80);
    EXPECT_CODE(qs::floatToE4m3(f32(0x3A800001u)), 0x01); // just above 2^-10
    EXPECT_CODE(qs::floatToE4m3(3 * 0x1p-10f), 0x02);
    EXPECT_CODE(qs::floatToE4m3(5 * 0x1p-10f), 0x02);
    EXPECT_CODE(qs::floatToE4m3(7 * 0x1p-10f), 0x04);
    EXPECT_CODE(qs::floatToE4m3(13 * 0x1p-10f), 0x06);
    EXPECT_CODE(qs::floatToE4m3(15 * 0x1p-10f), 0x08); // tie 7|8 → the smallest normal 2^-6
    EXPECT_CODE(qs::floatToE4m3(0x1p-149f), 0x00);
    EXPECT_CODE(qs::floatToE4m3(-0x1p-149f), 0x80);
    EXPECT_CODE(qs::floatToE4m3(0x1p-9f), 0x01);
}

TEST(Convert, E5m2Encode)
{
    EXPECT_CODE(qs::floatToE5m2(57344.0f), 0x7B);
    EXPECT_CODE(qs::floatToE5m2(61440.0f), 0x7B); // would tie up to Inf without the clamp
    EXPECT_CODE(qs::floatToE5m2(1e10f), 0x7B);
    EXPECT_CODE(qs::floatToE5m2(kInf), 0x7B);
    EXPECT_CODE(qs::floatToE5m2(-kInf), 0xFB);
    EXPECT_CODE(qs::floatToE5m2(kNaN), 0x7E);
    EXPECT_CODE(qs::floatToE5m2(-kNaN), 0xFE);
    EXPECT_CODE(qs::floatToE5m2(0.0f), 0x00);
    EXPECT_CODE(qs::floatToE5m2(-0.0f), 0x80);
    EXPECT_CODE(qs::floatToE5m2(1.0f), 0x3C);
    EXPECT_CODE(qs::floatToE5m2(1.125f), 0x3C); // tie → even
    EXPECT_CODE(qs::floatToE5m2(1.375f), 0x3E); // tie → even
    EXPECT_CODE(qs::floatToE5m2(0x1p-16f), 0x01);
    EXPECT_CODE(qs::floatToE5m2(0x1p-17f), 0x00); // tie 0|1 → 0
    EXPECT_CODE(qs::floatToE5m2(3 * 0x1p-17f), 0x02);
    EXPECT_CODE(qs::floatToE5m2(7 * 0x1p-17f), 0x04); // tie 3|4 → the smallest normal 2^-14
}

TEST(Convert, E2m1Encode)
{
    struct Case {
        float x;
        unsigned code;
    };
    const Case cases[] = {
        {0.0f, 0x0}, {0.25f, 0x0}, {0.2500001f, 0x1}, {0.5f, 0x1}, {0.75f, 0x2}, {1.0f, 0x2}, {1.25f, 0x2},
        {1.5f, 0x3}, {1.75f, 0x4}, {2.0f, 0x4},       {2.5f, 0x4}, {3.0f, 0x5},  {3.5f, 0x6}, {4.0f, 0x6},
        {5.0f, 0x6}, {5.01f, 0x7}, {6.0f, 0x7},       {7.0f, 0x7}, {1e9f, 0x7},  {kInf, 0x7},
    };
    for (const Case &c : cases) {
        EXPECT_CODE(qs::floatToE2m1(c.x), c.code) << " x = " << c.x;
        EXPECT_CODE(qs::floatToE2m1(-c.x), c.code | 0x8) << " x = " << -c.x;
    }
    EXPECT_CODE(qs::floatToE2m1(-0.0f), 0x8);
    EXPECT_CODE(qs::floatToE2m1(0x1p-149f), 0x0);
    EXPECT_CODE(qs::floatToE2m1(kNaN), 0x0);
    EXPECT_CODE(qs::floatToE2m1(-kNaN), 0x0);
}

TEST(Convert, Bf16Encode)
{
    EXPECT_CODE(qs::floatToBf16(1.0f), 0x3F80);
    EXPECT_CODE(qs::floatToBf16(65504.0f), 0x4780); // 65504 = 0x477FE000 rounds up to 65536
    EXPECT_CODE(qs::floatToBf16(65520.0f), 0x4780);
    EXPECT_CODE(qs::floatToBf16(f32(0x3F808000u)), 0x3F80); // tie → even
    EXPECT_CODE(qs::floatToBf16(f32(0x3F818000u)), 0x3F82); // tie → even
    // overflow: the largest finite BF16 is 0x7F7F; its upper midpoint 0x7F7F8000 ties to Inf
    EXPECT_CODE(qs::floatToBf16(f32(0x7F7F7FFFu)), 0x7F7F);
    EXPECT_CODE(qs::floatToBf16(f32(0x7F7F8000u)), 0x7F80);
    EXPECT_CODE(qs::floatToBf16(kMax), 0x7F80);
    EXPECT_CODE(qs::floatToBf16(-kMax), 0xFF80);
    EXPECT_CODE(qs::floatToBf16(kInf), 0x7F80);
    EXPECT_CODE(qs::floatToBf16(-kInf), 0xFF80);
    EXPECT_CODE(qs::floatToBf16(kNaN), 0x7FC0);
    EXPECT_CODE(qs::floatToBf16(-kNaN), 0xFFC0);
    EXPECT_CODE(qs::floatToBf16(f32(0x7F800001u)), 0x7FC0); // sNaN must not round to Inf
    EXPECT_CODE(qs::floatToBf16(f32(0x7FFFFFFFu)), 0x7FC0); // must not carry into the sign
    EXPECT_CODE(qs::floatToBf16(-0.0f), 0x8000);
    EXPECT_CODE(qs::floatToBf16(0x1p-149f), 0x0000);
    EXPECT_CODE(qs::floatToBf16(f32(0x00008000u)), 0x0000); // subnormal tie → even
    EXPECT_CODE(qs::floatToBf16(f32(0x00018000u)), 0x0002);
}

TEST(Convert, F16Encode)
{
    EXPECT_CODE(qs::floatToF16(1.0f), 0x3C00);
    EXPECT_CODE(qs::floatToF16(65504.0f), 0x7BFF);
    EXPECT_CODE(qs::floatToF16(65519.0f), 0x7BFF);
    EXPECT_CODE(qs::floatToF16(f32(0x477FEFFFu)), 0x7BFF); // just below 65520
    EXPECT_CODE(qs::floatToF16(65520.0f), 0x7C00);
    EXPECT_CODE(qs::floatToF16(-65520.0f), 0xFC00);
    EXPECT_CODE(qs::floatToF16(65536.0f), 0x7C00);
    EXPECT_CODE(qs::floatToF16(kMax), 0x7C00);
    EXPECT_CODE(qs::floatToF16(kInf), 0x7C00);
    EXPECT_CODE(qs::floatToF16(-kInf), 0xFC00);
    EXPECT_CODE(qs::floatToF16(kNaN), 0x7E00);
    EXPECT_CODE(qs::floatToF16(-kNaN), 0xFE00);
    EXPECT_CODE(qs::floatToF16(f32(0x7F800001u)), 0x7E00);
    EXPECT_CODE(qs::floatToF16(-0.0f), 0x8000);
    EXPECT_CODE(qs::floatToF16(1.0f + 0x1p-11f), 0x3C00); // tie → even
    EXPECT_CODE(qs::floatToF16(1.0f + 3 * 0x1p-11f), 0x3C02);
    EXPECT_CODE(qs::floatToF16(0x1p-24f), 0x0001);
    EXPECT_CODE(qs::floatToF16(0x1p-25f), 0x0000); // subnormal tie → even
    EXPECT_CODE(qs::floatToF16(f32(0x33000001u)), 0x0001);
    EXPECT_CODE(qs::floatToF16(3 * 0x1p-25f), 0x0002);
    EXPECT_CODE(qs::floatToF16(0x1p-14f - 0x1p-25f), 0x0400); // tie 0x3FF|0x400 → normal
}

TEST(Convert, RoundTripEveryCode)
{
    for (std::uint32_t c = 0; c < 65536; ++c) {
        const auto h = static_cast<std::uint16_t>(c);
        if (!std::isnan(qs::bf16ToFloat(h))) {
            ASSERT_EQ(qs::floatToBf16(qs::bf16ToFloat(h)), h) << "BF16 0x" << std::hex << c;
        }
        if (!std::isnan(qs::f16ToFloat(h))) {
            ASSERT_EQ(qs::floatToF16(qs::f16ToFloat(h)), h) << "F16 0x" << std::hex << c;
        }
    }
    for (std::uint32_t c = 0; c < 256; ++c) {
        const auto b = static_cast<std::uint8_t>(c);
        if ((c & 0x7F) != 0x7F) {
            EXPECT_CODE(qs::floatToE4m3(qs::e4m3ToFloat(b)), b);
        }
        if ((c & 0x7F) < 0x7C) {
            EXPECT_CODE(qs::floatToE5m2(qs::e5m2ToFloat(b)), b);
        } else if ((c & 0x7F) == 0x7C) { // Inf saturates to the largest finite
            EXPECT_CODE(qs::floatToE5m2(qs::e5m2ToFloat(b)), (c & 0x80) | 0x7B);
        }
    }
    for (std::uint32_t c = 0; c < 16; ++c)
        EXPECT_CODE(qs::floatToE2m1(qs::e2m1ToFloat(static_cast<std::uint8_t>(c))), c);
}

// ---------------------------------------------------------------------------------------------
// E8M0
// ---------------------------------------------------------------------------------------------

TEST(Convert, E8m0EncodePinned)
{
    using R = qs::E8m0Rounding;
    for (R r : {R::Floor, R::Ceil, R::Round}) {
        EXPECT_CODE(qs::floatToE8m0(1.0f, r), 127);
        EXPECT_CODE(qs::floatToE8m0(0x1p-127f, r), 0);
        EXPECT_CODE(qs::floatToE8m0(0x1p-126f, r), 1);
        EXPECT_CODE(qs::floatToE8m0(0x1p127f, r), 254);
        EXPECT_CODE(qs::floatToE8m0(0x1p-149f, r), 0);
        EXPECT_CODE(qs::floatToE8m0(kMax, r), 254);
        EXPECT_CODE(qs::floatToE8m0(kInf, r), 254);
        EXPECT_CODE(qs::floatToE8m0(kNaN, r), 0xFF);
        EXPECT_CODE(qs::floatToE8m0(-kNaN, r), 0xFF);
        EXPECT_CODE(qs::floatToE8m0(0.0f, r), 0);
        EXPECT_CODE(qs::floatToE8m0(-0.0f, r), 0);
        EXPECT_CODE(qs::floatToE8m0(-1.0f, r), 0);
        EXPECT_CODE(qs::floatToE8m0(-kInf, r), 0);
    }
    EXPECT_CODE(qs::floatToE8m0(1.5f, R::Floor), 127);
    EXPECT_CODE(qs::floatToE8m0(1.5f, R::Ceil), 128);
    EXPECT_CODE(qs::floatToE8m0(1.5f, R::Round), 128);
    EXPECT_CODE(qs::floatToE8m0(1.4f, R::Round), 127);
    EXPECT_CODE(qs::floatToE8m0(f32(0x3FB504F3u), R::Round), 127); // largest float < √2
    EXPECT_CODE(qs::floatToE8m0(f32(0x3FB504F4u), R::Round), 128); // smallest float > √2
    EXPECT_CODE(qs::floatToE8m0(f32(0x3F800001u), R::Ceil), 128);
    EXPECT_CODE(qs::floatToE8m0(0.75f, R::Floor), 126);
    EXPECT_CODE(qs::floatToE8m0(0.75f, R::Ceil), 127);
    EXPECT_CODE(qs::floatToE8m0(1.5f * 0x1p-127f, R::Ceil), 1);
    EXPECT_CODE(qs::floatToE8m0(1.5f * 0x1p-127f, R::Floor), 0);
    EXPECT_CODE(qs::floatToE8m0(1.5f * 0x1p-127f, R::Round), 1);
    EXPECT_CODE(qs::floatToE8m0(1.4f * 0x1p-127f, R::Round), 0);
}

// floor/ceil/round of log2(x) in long double: FP32 values lie at least ~2^-25 (relative) from
// any √2 · 2^k, far beyond log2l's error, so this is exact.
TEST(Convert, E8m0EncodeAgainstLog2)
{
    using R = qs::E8m0Rounding;
    auto ref = [](float x, R r) {
        const long double l = std::log2(static_cast<long double>(x));
        const long double k = r == R::Floor ? std::floor(l) : r == R::Ceil ? std::ceil(l) : std::round(l);
        return static_cast<unsigned>(std::fmax(0.0L, std::fmin(254.0L, k + 127)));
    };
    int failures = 0;
    auto check = [&](std::uint32_t u) {
        const float x = f32(u);
        for (R r : {R::Floor, R::Ceil, R::Round}) {
            const unsigned got = qs::floatToE8m0(x, r);
            if (got != ref(x, r) && failures++ < 10)
                ADD_FAILURE() << "x bits 0x" << std::hex << u << " mode " << static_cast<int>(r) << std::dec
                              << ": expected " << ref(x, r) << ", got " << got;
        }
    };
    for (std::uint32_t u = 1; u < 0x7F800000u; u += 997)
        check(u);
    for (std::uint32_t e = 0; e < 255; ++e)
        for (std::uint32_t f : {0u, 1u, 0x3504F3u, 0x3504F4u, 0x400000u, 0x7FFFFFu})
            if ((e << 23 | f) != 0)
                check(e << 23 | f);
    for (std::uint32_t lead = 0; lead < 23; ++lead) // subnormals: every leading-bit position
        for (std::uint32_t low : {0u, 1u})
            check((1u << lead) | (low & ((1u << lead) - 1)));
    EXPECT_EQ(failures, 0);
}

} // namespace
