// SPDX-License-Identifier: MIT
#pragma once
// Test helper shared by the core and GPU tests: a tensor of F32, BF16 or F16 holding given values
// (rounded to the dtype, round to nearest even).
#include "tensor/convert.h"
#include "tensor/tensor.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace quantscope::test {

/// `values` as a tensor of `dtype` (F32, BF16 or F16) and shape `shape`.
inline Tensor tensorOf(const std::vector<float> &values, Shape shape, DType dtype)
{
    if (dtype == DType::F32)
        return Tensor::fromFloats(std::move(shape), values);
    std::vector<std::byte> bytes(values.size() * 2);
    for (std::size_t i = 0; i < values.size(); ++i) {
        const std::uint16_t h = dtype == DType::BF16 ? floatToBf16(values[i]) : floatToF16(values[i]);
        std::memcpy(bytes.data() + 2 * i, &h, 2);
    }
    return Tensor::fromBytes(dtype, std::move(shape), std::move(bytes));
}

} // namespace quantscope::test
