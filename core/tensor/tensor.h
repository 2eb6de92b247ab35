// SPDX-License-Identifier: MIT
#pragma once
/// \file tensor.h
/// A typed, strided view over host memory: owning (a byte buffer) or borrowing (an mmap or any
/// memory kept alive by a shared owner). Copying a Tensor copies the view, not the data.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tensor/dtype.h"

namespace quantscope {

using Shape = std::vector<std::int64_t>;

/// Number of elements of a shape (1 for rank 0); throws FormatError on negative entries or
/// overflow of int64.
std::int64_t numelOf(const Shape &shape);
/// "512x64" (or "scalar" for rank 0).
std::string shapeToString(const Shape &shape);
/// The 2-D matrix a tensor is quantized as: every dimension but the last folded into rows;
/// rank 1 → 1 × n, rank 0 → 1 × 1.
Shape matrixShape(const Shape &shape);

class Tensor {
public:
    Tensor() = default;

    /// A new zero-filled, contiguous, owning tensor.
    static Tensor zeros(DType dtype, Shape shape);
    /// Takes ownership of `bytes` (must hold exactly the packed size of `shape`).
    static Tensor fromBytes(DType dtype, Shape shape, std::vector<std::byte> bytes);
    /// A contiguous FP32 tensor copied from `values`.
    static Tensor fromFloats(Shape shape, std::span<const float> values);
    /// Borrows `data`; `keepAlive` keeps the memory (e.g. the mapping) alive while any view exists.
    static Tensor borrow(DType dtype, Shape shape, const std::byte *data, std::shared_ptr<const void> keepAlive);

    DType dtype() const noexcept { return m_dtype; }
    const Shape &shape() const noexcept { return m_shape; }
    /// Strides in elements. Packed sub-byte dtypes are always contiguous.
    const std::vector<std::int64_t> &strides() const noexcept { return m_strides; }
    int rank() const noexcept { return static_cast<int>(m_shape.size()); }
    std::int64_t dim(int i) const { return m_shape.at(static_cast<std::size_t>(i)); }
    std::int64_t numel() const noexcept { return m_numel; }
    /// Packed size of the elements in bytes (numel × bits / 8, rounded up).
    std::size_t nbytes() const noexcept;
    bool isContiguous() const noexcept;
    bool empty() const noexcept { return m_numel == 0; }
    bool valid() const noexcept { return m_data != nullptr || m_numel == 0; }

    /// First byte of the view (element 0). Read-only for borrowed tensors.
    const std::byte *data() const noexcept { return m_data; }
    /// Writable pointer; only for owning tensors (throws UnsupportedError for borrowed ones).
    std::byte *mutableData();

    /// Element at logical row-major index `i`, decoded to double (throws UnsupportedError for
    /// dtypes without arithmetic support: C64, F6_* only decode, complex never).
    double at(std::int64_t i) const;
    /// Decodes all elements in logical row-major order into `out` (size numel).
    void decodeTo(std::span<float> out) const;
    /// Decodes elements [first, first + out.size()) in logical row-major order.
    void decodeRange(std::int64_t first, std::span<float> out) const;
    /// Decodes into a new contiguous FP32 tensor.
    Tensor toF32() const;

    /// View with a new shape (same numel; requires a contiguous tensor).
    Tensor reshaped(Shape shape) const;
    /// This tensor if contiguous, else a contiguous owning copy in logical order (same dtype;
    /// byte dtypes — packed sub-byte dtypes are always contiguous).
    Tensor contiguous() const;
    /// View of a 2-D tensor transposed (strides swapped; byte dtypes only).
    Tensor transposed() const;
    /// View with the order of all axes reversed (the C-order reading of Fortran-order data; byte
    /// dtypes only).
    Tensor reversedAxes() const;
    /// View of rows [begin, end) along dim 0 (byte dtypes, or packed dtypes whose row is a whole
    /// number of bytes).
    Tensor rows(std::int64_t begin, std::int64_t end) const;

private:
    DType m_dtype = DType::F32;
    Shape m_shape;
    std::vector<std::int64_t> m_strides;
    std::int64_t m_numel = 0;
    const std::byte *m_data = nullptr;
    std::shared_ptr<const void> m_owner;
    bool m_owning = false;
};

} // namespace quantscope
