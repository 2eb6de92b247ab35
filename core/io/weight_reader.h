// SPDX-License-Identifier: MIT
#pragma once
/// \file weight_reader.h
/// A tensor read *as weights*: the one loader of every command that quantizes or analyses a
/// tensor (quantize, spectrum, sweep, sweep-c, gemm-bench) and of the window's jobs
/// (docs/cli.md "Quantized checkpoints as input").
///
///  * The name of a quantized module (`<module>` or its logical weight `<module>.weight`, also
///    when Quark stores its packed codes under that very name) is decoded to FP32 first, and
///    `note` says so: quantizing a quantized checkpoint means quantizing its Ŵ.
///  * Any other stored part of a quantized module (packed codes, scales, zero points, g_idx,
///    the shape), a tensor of a module the detection refuses, and any tensor whose dtype holds
///    integers (codes, indices) is refused: its elements are not weights.
#include <memory>
#include <string>
#include <string_view>

#include "io/checkpoint.h"
#include "io/quantized.h"
#include "tensor/tensor.h"

namespace quantscope {

class WeightReader {
public:
    /// Runs the quantized-module detection (non-strict: an undecodable module is refused by
    /// name when asked for, the others still decode).
    explicit WeightReader(std::shared_ptr<const Checkpoint> checkpoint);
    /// With a detection already made (the window's loader makes it once).
    WeightReader(std::shared_ptr<const Checkpoint> checkpoint, std::shared_ptr<const Detection> detection);

    /// The module `name` decodes, or nullptr for a plain tensor. Throws UnsupportedError (the
    /// message names the tensor, the scheme and the fix) for a name that is not weights, and
    /// FormatError for an unknown name.
    const QuantizedModule *resolve(std::string_view name) const;
    /// The tensor as weights: decoded FP32 for a quantized module, else the stored tensor.
    Tensor read(std::string_view name) const;
    /// The logical shape of `name` without reading values (resolve's refusals apply).
    Shape shape(std::string_view name) const;
    /// "decoded <module> (<format>, <scheme>) to FP32 first" when `name` decodes, else "".
    std::string note(std::string_view name) const;

    const Checkpoint &checkpoint() const noexcept { return *m_checkpoint; }
    const Detection &detection() const noexcept { return *m_detection; }

private:
    std::shared_ptr<const Checkpoint> m_checkpoint;
    std::shared_ptr<const Detection> m_detection;
};

/// True for element types whose values are not weights: integers (I8…U64, I4/U4), BOOL and
/// F8_E8M0 (power-of-two scale exponents).
bool holdsCodes(DType t) noexcept;

} // namespace quantscope
