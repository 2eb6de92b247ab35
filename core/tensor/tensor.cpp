// SPDX-License-Identifier: MIT
#include "tensor/tensor.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "tensor/convert.h"
#include "util/bus_guard.h"
#include "util/error.h"
#include "util/memory.h"

namespace quantscope {

std::int64_t numelOf(const Shape &shape)
{
    std::int64_t n = 1;
    for (std::int64_t d : shape) {
        if (d < 0)
            throw FormatError("negative dimension " + std::to_string(d) + " in shape");
        if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d)
            throw FormatError("element count of shape " + shapeToString(shape) + " overflows");
        n *= d;
    }
    return n;
}

std::string shapeToString(const Shape &shape)
{
    if (shape.empty())
        return "scalar";
    std::string s;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i)
            s += 'x';
        s += std::to_string(shape[i]);
    }
    return s;
}

namespace {

std::vector<std::int64_t> contiguousStrides(const Shape &shape)
{
    std::vector<std::int64_t> st(shape.size());
    std::int64_t s = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
        st[i] = s;
        s *= std::max<std::int64_t>(shape[i], 1);
    }
    return st;
}

std::size_t packedBytes(DType t, std::int64_t numel)
{
    const auto bits = static_cast<std::uint64_t>(numel) * static_cast<std::uint64_t>(bitsOf(t));
    return static_cast<std::size_t>((bits + 7) / 8);
}

template <typename T> T load(const std::byte *p)
{
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

/// Reads element `i` (physical index, in elements) of a packed/plain buffer and decodes it.
double decodeAt(DType t, const std::byte *base, std::int64_t i)
{
    const auto *p = base;
    switch (t) {
    case DType::BOOL:
        return load<std::uint8_t>(p + i) != 0 ? 1.0 : 0.0;
    case DType::U8:
        return load<std::uint8_t>(p + i);
    case DType::I8:
        return load<std::int8_t>(p + i);
    case DType::F8_E5M2:
        return e5m2ToFloat(load<std::uint8_t>(p + i));
    case DType::F8_E4M3:
        return e4m3ToFloat(load<std::uint8_t>(p + i));
    case DType::F8_E8M0:
        return e8m0ToFloat(load<std::uint8_t>(p + i));
    case DType::F8_E4M3FNUZ:
        return e4m3fnuzToFloat(load<std::uint8_t>(p + i));
    case DType::F8_E5M2FNUZ:
        return e5m2fnuzToFloat(load<std::uint8_t>(p + i));
    case DType::I16:
        return load<std::int16_t>(p + 2 * i);
    case DType::U16:
        return load<std::uint16_t>(p + 2 * i);
    case DType::F16:
        return f16ToFloat(load<std::uint16_t>(p + 2 * i));
    case DType::BF16:
        return bf16ToFloat(load<std::uint16_t>(p + 2 * i));
    case DType::I32:
        return load<std::int32_t>(p + 4 * i);
    case DType::U32:
        return load<std::uint32_t>(p + 4 * i);
    case DType::F32:
        return load<float>(p + 4 * i);
    case DType::F64:
        return load<double>(p + 8 * i);
    case DType::I64:
        return static_cast<double>(load<std::int64_t>(p + 8 * i));
    case DType::U64:
        return static_cast<double>(load<std::uint64_t>(p + 8 * i));
    case DType::F4:
    case DType::I4:
    case DType::U4: {
        const auto byte = load<std::uint8_t>(p + i / 2);
        const std::uint8_t nib = (i % 2 == 0) ? (byte & 0x0F) : (byte >> 4);
        if (t == DType::F4)
            return e2m1ToFloat(nib);
        if (t == DType::U4)
            return nib;
        return (nib & 0x8) ? static_cast<int>(nib) - 16 : static_cast<int>(nib);
    }
    case DType::F6_E2M3:
    case DType::F6_E3M2: {
        // Packed 6-bit elements, element i occupies bits [6i, 6i+6) little-endian.
        const std::uint64_t bit = static_cast<std::uint64_t>(i) * 6;
        const std::uint64_t byte = bit / 8;
        const unsigned shift = static_cast<unsigned>(bit % 8);
        unsigned v = load<std::uint8_t>(p + byte);
        if (shift > 2)
            v |= static_cast<unsigned>(load<std::uint8_t>(p + byte + 1)) << 8;
        const auto code = static_cast<std::uint8_t>((v >> shift) & 0x3F);
        return t == DType::F6_E2M3 ? e2m3ToFloat(code) : e3m2ToFloat(code);
    }
    case DType::C64:
        break;
    }
    throw UnsupportedError("dtype " + std::string(nameOf(t)) + " has no real-valued decoding");
}

bool isSubByte(DType t)
{
    return bitsOf(t) < 8;
}

} // namespace

Tensor Tensor::zeros(DType dtype, Shape shape)
{
    const auto n = numelOf(shape);
    const std::size_t bytes = packedBytes(dtype, n);
    checkAllocation(bytes, {},
                    std::string("a ") + std::string(nameOf(dtype)) + " tensor of shape " + shapeToString(shape));
    return fromBytes(dtype, std::move(shape), std::vector<std::byte>(bytes));
}

Tensor Tensor::fromBytes(DType dtype, Shape shape, std::vector<std::byte> bytes)
{
    Tensor t;
    t.m_dtype = dtype;
    t.m_numel = numelOf(shape);
    if (bytes.size() != packedBytes(dtype, t.m_numel))
        throw FormatError("buffer of " + std::to_string(bytes.size()) + " bytes does not hold " +
                          std::string(nameOf(dtype)) + " " + shapeToString(shape));
    t.m_shape = std::move(shape);
    t.m_strides = contiguousStrides(t.m_shape);
    auto owner = std::make_shared<std::vector<std::byte>>(std::move(bytes));
    t.m_data = owner->data();
    t.m_owner = owner;
    t.m_owning = true;
    return t;
}

Tensor Tensor::fromFloats(Shape shape, std::span<const float> values)
{
    std::vector<std::byte> bytes(values.size() * sizeof(float));
    if (!values.empty())
        std::memcpy(bytes.data(), values.data(), bytes.size());
    return fromBytes(DType::F32, std::move(shape), std::move(bytes));
}

Tensor Tensor::borrow(DType dtype, Shape shape, const std::byte *data, std::shared_ptr<const void> keepAlive)
{
    Tensor t;
    t.m_dtype = dtype;
    t.m_numel = numelOf(shape);
    t.m_shape = std::move(shape);
    t.m_strides = contiguousStrides(t.m_shape);
    t.m_data = data;
    t.m_owner = std::move(keepAlive);
    return t;
}

std::size_t Tensor::nbytes() const noexcept
{
    return packedBytes(m_dtype, m_numel);
}

bool Tensor::isContiguous() const noexcept
{
    // Without building the contiguous strides (decodeRange asks on every call).
    if (m_strides.size() != m_shape.size())
        return false;
    std::int64_t s = 1;
    for (std::size_t i = m_shape.size(); i-- > 0;) {
        if (m_strides[i] != s)
            return false;
        s *= std::max<std::int64_t>(m_shape[i], 1);
    }
    return true;
}

std::byte *Tensor::mutableData()
{
    if (!m_owning)
        throw UnsupportedError("tensor is a read-only view (borrowed memory)");
    return const_cast<std::byte *>(m_data);
}

double Tensor::at(std::int64_t i) const
{
    if (i < 0 || i >= m_numel)
        throw UnsupportedError("element index " + std::to_string(i) + " out of range for shape " +
                               shapeToString(m_shape));
    std::int64_t phys = 0;
    if (isContiguous()) {
        phys = i;
    } else {
        std::int64_t rem = i;
        for (std::size_t d = m_shape.size(); d-- > 0;) {
            const auto idx = rem % m_shape[d];
            rem /= m_shape[d];
            phys += idx * m_strides[d];
        }
    }
    return decodeAt(m_dtype, m_data, phys);
}

void Tensor::decodeTo(std::span<float> out) const
{
    if (static_cast<std::int64_t>(out.size()) != m_numel)
        throw UnsupportedError("decode buffer has " + std::to_string(out.size()) + " elements, tensor has " +
                               std::to_string(m_numel));
    decodeRange(0, out);
}

void Tensor::decodeRange(std::int64_t first, std::span<float> out) const
{
    const auto n = static_cast<std::int64_t>(out.size());
    if (first < 0 || first + n > m_numel)
        throw UnsupportedError("decode range out of bounds for shape " + shapeToString(m_shape));
    if (n == 0)
        return;
    // No object with a destructor lives in `body`: a bus error inside it jumps out (bus_guard.h).
    auto body = [&] {
        if (isContiguous()) {
            switch (m_dtype) {
            case DType::F32:
                std::memcpy(out.data(), m_data + 4 * first, out.size() * sizeof(float));
                return;
            case DType::BF16: {
                // Inline widening (a BF16 is the top half of an FP32): vectorisable.
                const std::byte *src = m_data + 2 * first;
                for (std::int64_t i = 0; i < n; ++i) {
                    const std::uint32_t u = static_cast<std::uint32_t>(load<std::uint16_t>(src + 2 * i)) << 16;
                    std::memcpy(&out[i], &u, 4);
                }
                return;
            }
            case DType::F16:
                for (std::int64_t i = 0; i < n; ++i)
                    out[i] = f16ToFloat(load<std::uint16_t>(m_data + 2 * (first + i)));
                return;
            default:
                for (std::int64_t i = 0; i < n; ++i)
                    out[i] = static_cast<float>(decodeAt(m_dtype, m_data, first + i));
                return;
            }
        }
        for (std::int64_t i = 0; i < n; ++i)
            out[i] = static_cast<float>(at(first + i));
    };
    // A mapped tensor whose file is truncated meanwhile: an IoError naming the file, not SIGBUS.
    if (busguard::isMapped(m_data))
        busguard::guarded(body);
    else
        body();
}

Tensor Tensor::toF32() const
{
    Tensor t = zeros(DType::F32, m_shape);
    decodeTo(std::span<float>(reinterpret_cast<float *>(t.mutableData()), static_cast<std::size_t>(m_numel)));
    return t;
}

Shape matrixShape(const Shape &shape)
{
    if (shape.empty())
        return {1, 1};
    if (shape.size() == 1)
        return {1, shape[0]};
    std::int64_t rows = 1;
    for (std::size_t i = 0; i + 1 < shape.size(); ++i)
        rows *= shape[i];
    return {rows, shape.back()};
}

Tensor Tensor::contiguous() const
{
    if (isContiguous())
        return *this;
    const std::size_t item = static_cast<std::size_t>(bitsOf(m_dtype) / 8);
    std::vector<std::byte> out(static_cast<std::size_t>(m_numel) * item);
    for (std::int64_t i = 0; i < m_numel; ++i) {
        std::int64_t rem = i, phys = 0;
        for (std::size_t d = m_shape.size(); d-- > 0;) {
            phys += (rem % m_shape[d]) * m_strides[d];
            rem /= m_shape[d];
        }
        std::memcpy(out.data() + static_cast<std::size_t>(i) * item, m_data + static_cast<std::size_t>(phys) * item,
                    item);
    }
    return fromBytes(m_dtype, m_shape, std::move(out));
}

Tensor Tensor::reshaped(Shape shape) const
{
    if (!isContiguous())
        throw UnsupportedError("reshape of a non-contiguous view");
    if (numelOf(shape) != m_numel)
        throw UnsupportedError("cannot reshape " + shapeToString(m_shape) + " to " + shapeToString(shape));
    Tensor t = *this;
    t.m_shape = std::move(shape);
    t.m_strides = contiguousStrides(t.m_shape);
    return t;
}

Tensor Tensor::transposed() const
{
    if (rank() != 2)
        throw UnsupportedError("transpose needs a 2-D tensor, got " + shapeToString(m_shape));
    return reversedAxes();
}

Tensor Tensor::reversedAxes() const
{
    if (isSubByte(m_dtype))
        throw UnsupportedError("transpose of packed " + std::string(nameOf(m_dtype)) + " data");
    Tensor t = *this;
    std::reverse(t.m_shape.begin(), t.m_shape.end());
    std::reverse(t.m_strides.begin(), t.m_strides.end());
    return t;
}

Tensor Tensor::rows(std::int64_t begin, std::int64_t end) const
{
    if (rank() < 1 || begin < 0 || end < begin || end > m_shape[0])
        throw UnsupportedError("rows [" + std::to_string(begin) + ", " + std::to_string(end) +
                               ") out of range for shape " + shapeToString(m_shape));
    Tensor t = *this;
    const std::int64_t rowElems = m_strides.empty() ? 1 : m_strides[0];
    const std::int64_t firstBit = begin * rowElems * bitsOf(m_dtype);
    if (firstBit % 8 != 0)
        throw UnsupportedError("row " + std::to_string(begin) + " of packed " + std::string(nameOf(m_dtype)) +
                               " data does not start on a byte");
    t.m_data = m_data + firstBit / 8;
    t.m_shape[0] = end - begin;
    t.m_numel = numelOf(t.m_shape);
    return t;
}

} // namespace quantscope
