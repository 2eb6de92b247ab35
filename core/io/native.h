// SPDX-License-Identifier: MIT
#pragma once
/// \file native.h
/// Quantscope's native layout for quantized tensors (docs/formats.md "Quantized tensors written"):
/// `<module>.qs_codes`, `<module>.qs_scale` (in the scale dtype), optional `<module>.qs_zero`,
/// and the spec JSON in `__metadata__["quantscope"]`. INT codes of ≤ 4 bits are packed two per
/// byte (U8 [rows, ceil(cols/2)], element 2k in the low nibble, two's complement); wider INT
/// codes are I8; FP8 codes keep their F8 dtype. HQQ / MiLo codes are unsigned (0 … 2^b − 1,
/// packed the same way up to 4 bits) with float zero points `<module>.qs_zero_point`; MiLo adds
/// its compensator `<module>.milo_U` / `.milo_V` (+ `_scale` for integer formats).
///
/// Read back (version 2): detectQuantized lists each module of such a file as one quantized
/// module (QuantFormat::QuantscopeNative) with its scheme, and decodeQuantized gives the method's
/// own dequantization of the stored codes — bit for bit the Ŵ the quantizer reported.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/checkpoint.h"
#include "io/quantized.h"
#include "quant/quantizer.h"

namespace quantscope {

/// The layout version written; files of version 1 (no layout block) are refused on reading.
inline constexpr int kNativeVersion = 2;

/// `model.layers.0.mlp.down_proj.weight` → `model.layers.0.mlp.down_proj`.
std::string moduleOf(const std::string &tensorName);

/// One module in the native layout: its tensors (`<module>.qs_codes`, `.qs_scale`, …) and its
/// entry of `__metadata__["quantscope"]["modules"]`.
struct NativeModule {
    std::vector<std::pair<std::string, Tensor>> tensors;
    nlohmann::ordered_json metadata;
};
/// The native tensors and metadata entry of `q` stored as `module` (shared by writeNative and
/// the checkpoint writer, export/checkpoint_writer.h).
NativeModule nativeModule(const QuantizedTensor &q, const std::string &module);
/// The `__metadata__["quantscope"]` value of a file holding `modules` ({MODULE: entry}).
std::string nativeMetadata(const nlohmann::ordered_json &modules);

/// Writes one quantized tensor atomically. Throws IoError naming the path.
void writeNative(const std::filesystem::path &path, const QuantizedTensor &q);

/// True when the checkpoint carries `__metadata__["quantscope"]` of the native layout.
bool isNativeCheckpoint(const Checkpoint &ck);
/// Appends the native modules of `ck` to `det` (strict: the first bad one throws FormatError
/// naming the module; else it goes to det.problems).
void detectNativeModules(const Checkpoint &ck, Detection &det, bool strict);
/// The stored result of one native module, rebuilt as the quantizer returned it (codes, scales,
/// zero points, outer level, compensator; no Ŵ, no history). Throws FormatError naming the
/// module and the part at fault.
QuantizedTensor readNative(const Checkpoint &ck, const std::string &module);
/// Ŵ of a native module (FP32, the stored shape) by the method's own dequantization.
Tensor decodeNative(const Checkpoint &ck, const QuantizedModule &m);
/// The codes of a native module: INT as I32 (HQQ / MiLo unsigned), FP8 in their F8 dtype, FP4 as
/// an F4 view.
Tensor nativeCodes(const Checkpoint &ck, const QuantizedModule &m);
/// The inner scale grid, the zero points (INT or float, code units) and the one outer scale
/// (NVFP4: 1 / global, ProgressiveSpec: s1) of a native module, as quantizedParams returns them.
QuantParams nativeParams(const Checkpoint &ck, const QuantizedModule &m);

} // namespace quantscope
