// SPDX-License-Identifier: MIT
#pragma once
/// \file npy_writer.h
/// Minimal NumPy `.npy` (format 1.0) writer: little-endian, C order, atomic. Dtypes with a
/// NumPy equivalent only (F64, F32, F16, I8…I64, U8…U64, BOOL).
#include <filesystem>

#include "tensor/tensor.h"

namespace quantscope {

/// The NumPy descr string ("<f4", "|u1", …) of a dtype; throws UnsupportedError when NumPy has
/// no equivalent (BF16, FP8, packed types).
std::string npyDescr(DType t);

/// Writes `t` (any strides; written in logical order) to `path` atomically. Throws IoError or
/// UnsupportedError naming the path.
void writeNpy(const std::filesystem::path &path, const Tensor &t);

} // namespace quantscope
