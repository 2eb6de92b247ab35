// SPDX-License-Identifier: MIT
#pragma once
/// \file npy.h
/// NumPy `.npy` reader, format versions 1.0, 2.0 and 3.0 (docs/formats.md "NumPy").
///
/// Decisions (also in docs/formats-readers.md):
///  * Little-endian (or byte-order-free) data at an offset aligned to the item size is mapped:
///    the tensor borrows the mapping. Misaligned little-endian data is copied; big-endian data
///    is byte-swapped into an owning tensor.
///  * Fortran order: a 2-D array is returned as a strided (transposed) view of its bytes with the
///    logical shape; rank ≥ 3 is copied into C order (Tensor has no general permute).
///  * Object ('O'), structured (a list descr), complex ('c'), unicode ('U'), bytes ('S'), void
///    ('V') and datetime ('M', 'm') dtypes are refused by name.
///  * Trailing bytes after the array data are refused (strict, as for safetensors); with
///    ReadOptions::lenient they are accepted with a warning (NumPy itself ignores them).
///  * Every refusal is a FormatError naming the file and the absolute byte offset.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "tensor/tensor.h"

namespace quantscope {

/// The parsed header of one array.
struct NpyHeader {
    int major = 1, minor = 0;
    std::string descr;        ///< as written ("<f4", "|u1", ">i8", …)
    DType dtype = DType::F32; ///< element type after byte-order handling
    bool bigEndian = false;   ///< stored big-endian (byte-swapped on read)
    bool fortranOrder = false;
    Shape shape;                   ///< logical shape, as NumPy reports it
    std::uint64_t headerStart = 0; ///< offset of the header dict (relative to the array start)
    std::uint64_t dataOffset = 0;  ///< offset of the first data byte (relative to the array start)
    std::uint64_t dataBytes = 0;   ///< numel × itemsize
};

/// Parses the header of an array whose bytes start at `bytes` (size `size`: what is available
/// after it). `fileLabel` and `base` (the absolute offset of `bytes` in the file) are used in
/// error messages; `tensor` names the array (npz member) where there is one. Checks the data
/// fits into `size` unless `headerOnly` (then only the header must fit).
NpyHeader parseNpyHeader(const std::byte *bytes, std::uint64_t size, const std::string &fileLabel, std::uint64_t base,
                         const std::string &tensor = {}, bool headerOnly = false);

/// Builds the tensor of a parsed array from its bytes. `keepAlive` owns `bytes` (mapping or
/// buffer); little-endian aligned data is borrowed, anything else is copied/swapped.
Tensor npyTensor(const NpyHeader &h, const std::byte *bytes, std::shared_ptr<const void> keepAlive);

/// An opened .npy file (memory-mapped).
class NpyFile {
public:
    /// Throws IoError (cannot open/map) or FormatError (header lies), naming the file and offset.
    static NpyFile open(const std::filesystem::path &path, const ReadOptions &options = {});

    const std::filesystem::path &path() const noexcept { return m_path; }
    const NpyHeader &header() const noexcept { return m_header; }
    /// The array (a borrowed view of the mapping when little-endian and aligned).
    Tensor tensor() const;
    /// Absolute offset of the first data byte.
    std::uint64_t dataOffset() const noexcept { return m_header.dataOffset; }
    const std::vector<std::string> &warnings() const noexcept { return m_warnings; }

private:
    std::filesystem::path m_path;
    std::shared_ptr<const void> m_map;
    const std::byte *m_base = nullptr;
    NpyHeader m_header;
    std::vector<std::string> m_warnings;
};

/// Reads a whole .npy file into a tensor (convenience over NpyFile).
Tensor readNpy(const std::filesystem::path &path, const ReadOptions &options = {});

/// The matrix shape an activation is quantized as: rank ≥ 3 `[B, S, …, K]` → `[B·S·…, K]`;
/// rank 2 unchanged; rank 1 `[K]` → `[1, K]`; rank 0 → `[1, 1]`.
Shape activationMatrixShape(const Shape &shape);
/// `t` viewed (contiguous) or copied (strided) as activationMatrixShape(t.shape()).
Tensor activationMatrix(const Tensor &t);

} // namespace quantscope
