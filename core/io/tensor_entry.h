// SPDX-License-Identifier: MIT
#pragma once
/// \file tensor_entry.h
/// One stored tensor as a reader lists it: name, dtype, shape and where its bytes lie. Every
/// reader (safetensors, sharded index, .npy, .npz) describes its tensors with it.
#include <cstdint>
#include <filesystem>
#include <string>

#include "tensor/tensor.h"

namespace quantscope {

/// One tensor as the header describes it.
struct TensorEntry {
    std::string name;
    DType dtype = DType::F32;
    Shape shape;
    std::uint64_t begin = 0;      ///< data_offsets[0], relative to the byte buffer
    std::uint64_t end = 0;        ///< data_offsets[1]
    std::uint64_t fileOffset = 0; ///< absolute offset of the first byte in the file
    std::filesystem::path file;   ///< the file holding it
    std::uint64_t nbytes() const noexcept { return end - begin; }
};

} // namespace quantscope
