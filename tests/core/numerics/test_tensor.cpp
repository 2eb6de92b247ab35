// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "tensor/convert.h"
#include "tensor/tensor.h"
#include "util/error.h"

using namespace quantscope;

TEST(Tensor, NumelChecksNegativeAndOverflow)
{
    EXPECT_EQ(numelOf({}), 1);
    EXPECT_EQ(numelOf({3, 0, 5}), 0);
    EXPECT_EQ(numelOf({2, 3, 4}), 24);
    EXPECT_THROW(numelOf({2, -1}), FormatError);
    EXPECT_THROW(numelOf({1ll << 40, 1ll << 40}), FormatError);
}

TEST(Tensor, OwningF32RoundTripAndViews)
{
    std::vector<float> v(12);
    for (int i = 0; i < 12; ++i)
        v[i] = static_cast<float>(i) - 5.5f;
    Tensor t = Tensor::fromFloats({3, 4}, v);
    EXPECT_EQ(t.numel(), 12);
    EXPECT_EQ(t.nbytes(), 48u);
    EXPECT_TRUE(t.isContiguous());
    EXPECT_DOUBLE_EQ(t.at(7), 1.5);

    Tensor tr = t.transposed();
    EXPECT_EQ(tr.shape(), (Shape{4, 3}));
    EXPECT_FALSE(tr.isContiguous());
    // tr[i][j] == t[j][i]
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j)
            EXPECT_DOUBLE_EQ(tr.at(i * 3 + j), v[j * 4 + i]);
    std::vector<float> dec(12);
    tr.decodeTo(dec);
    EXPECT_FLOAT_EQ(dec[1], v[4]);

    Tensor r = t.rows(1, 3);
    EXPECT_EQ(r.shape(), (Shape{2, 4}));
    EXPECT_DOUBLE_EQ(r.at(0), v[4]);
    EXPECT_THROW(t.rows(2, 4), UnsupportedError);
    EXPECT_THROW(t.reshaped({5}), UnsupportedError);
    EXPECT_EQ(t.reshaped({12}).shape(), (Shape{12}));
    EXPECT_THROW(tr.reshaped({12}), UnsupportedError);
    EXPECT_THROW(t.at(12), UnsupportedError);
}

TEST(Tensor, BorrowedIsReadOnlyAndKeepsOwnerAlive)
{
    auto buf = std::make_shared<std::vector<std::uint16_t>>(4);
    (*buf)[2] = floatToBf16(-2.5f);
    Tensor t = Tensor::borrow(DType::BF16, {4}, reinterpret_cast<const std::byte *>(buf->data()), buf);
    std::weak_ptr<std::vector<std::uint16_t>> weak = buf;
    buf.reset();
    EXPECT_FALSE(weak.expired());
    EXPECT_DOUBLE_EQ(t.at(2), -2.5);
    EXPECT_THROW(t.mutableData(), UnsupportedError);
    t = Tensor();
    EXPECT_TRUE(weak.expired());
}

TEST(Tensor, PackedInt4AndFp4DecodeLowNibbleFirst)
{
    // docs/formats.md worked example: FP4 elements (1.0, -0.5) pack into byte 0x92.
    Tensor f4 = Tensor::fromBytes(DType::F4, {2}, {std::byte{0x92}});
    EXPECT_DOUBLE_EQ(f4.at(0), 1.0);
    EXPECT_DOUBLE_EQ(f4.at(1), -0.5);
    // Signed INT4 nibbles: element 0 = 0x1 (1), element 1 = 0xF (-1).
    Tensor i4 = Tensor::fromBytes(DType::I4, {2}, {std::byte{0xF1}});
    EXPECT_DOUBLE_EQ(i4.at(0), 1.0);
    EXPECT_DOUBLE_EQ(i4.at(1), -1.0);
    Tensor u4 = Tensor::fromBytes(DType::U4, {2}, {std::byte{0xF1}});
    EXPECT_DOUBLE_EQ(u4.at(1), 15.0);
    EXPECT_THROW(Tensor::fromBytes(DType::F4, {3}, {std::byte{0}}), FormatError);
    EXPECT_THROW(i4.transposed(), UnsupportedError);
}

TEST(Tensor, EveryDecodableDtypeDecodesZeroBytesToZero)
{
    for (int i = 0; i < kDTypeCount; ++i) {
        const auto dt = static_cast<DType>(i);
        if (!isDecodable(dt))
            continue;
        Tensor t = Tensor::zeros(dt, {4});
        for (int k = 0; k < 4; ++k)
            EXPECT_EQ(t.at(k), dt == DType::F8_E8M0 ? std::ldexp(1.0, -127) : 0.0) << nameOf(dt);
    }
    Tensor c = Tensor::zeros(DType::C64, {2});
    EXPECT_THROW(c.at(0), UnsupportedError);
}

TEST(Tensor, IntegerDtypesDecodeExactly)
{
    std::vector<std::byte> b(16);
    const std::int64_t big = -(1ll << 40);
    std::memcpy(b.data(), &big, 8);
    const std::uint64_t ubig = 1ull << 50;
    std::memcpy(b.data() + 8, &ubig, 8);
    Tensor i64 = Tensor::fromBytes(DType::I64, {2}, b);
    EXPECT_EQ(i64.at(0), -std::ldexp(1.0, 40));
    Tensor u64 = Tensor::fromBytes(DType::U64, {2}, b);
    EXPECT_EQ(u64.at(1), std::ldexp(1.0, 50));
    Tensor i8 = Tensor::fromBytes(DType::I8, {2}, {std::byte{0x80}, std::byte{0x7F}});
    EXPECT_EQ(i8.at(0), -128.0);
    EXPECT_EQ(i8.at(1), 127.0);
}
