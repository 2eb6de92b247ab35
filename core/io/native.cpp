// SPDX-License-Identifier: MIT
#include "io/native.h"

#include <cstring>

#include "io/safetensors.h"
#include "tensor/convert.h"
#include "util/error.h"

namespace quantscope {

namespace {

/// Scales in their stored dtype (each value is exact in it: the quantizers round to it first).
std::vector<std::byte> encodeScales(const std::vector<float> &scales, DType dtype)
{
    const int sbits = bitsOf(dtype);
    std::vector<std::byte> sb(scales.size() * static_cast<std::size_t>(sbits / 8));
    for (std::size_t i = 0; i < scales.size(); ++i) {
        const float s = scales[i];
        switch (dtype) {
        case DType::F8_E4M3: {
            const std::uint8_t v = floatToE4m3(s); // an E4M3 value (NVFP4 block scale): exact
            std::memcpy(sb.data() + i, &v, 1);
            break;
        }
        case DType::BF16: {
            const std::uint16_t v = floatToBf16(s);
            std::memcpy(sb.data() + 2 * i, &v, 2);
            break;
        }
        case DType::F16: {
            const std::uint16_t v = floatToF16(s);
            std::memcpy(sb.data() + 2 * i, &v, 2);
            break;
        }
        case DType::F8_E8M0: {
            const std::uint8_t v = floatToE8m0(s, E8m0Rounding::Round); // s is a power of two: exact
            std::memcpy(sb.data() + i, &v, 1);
            break;
        }
        default:
            std::memcpy(sb.data() + 4 * i, &s, 4);
        }
    }
    return sb;
}

} // namespace

std::string moduleOf(const std::string &tensorName)
{
    const auto dot = tensorName.rfind('.');
    if (dot == std::string::npos || tensorName.substr(dot + 1) != "weight")
        return tensorName;
    return tensorName.substr(0, dot);
}

namespace {

nlohmann::ordered_json layoutJson(const GroupLayout &L)
{
    nlohmann::ordered_json j;
    j["granularity"] = toString(L.granularity);
    j["rows"] = L.rows;
    j["cols"] = L.cols;
    j["group"] = L.group;
    j["block"] = L.block;
    j["axis"] = L.axis;
    j["grid"] = {L.gridRows, L.gridCols};
    j["ragged"] = L.ragged;
    return j;
}

/// One compensator factor: FP16 values as F16 `[rows, cols]`; integer formats as I8 codes
/// `[rows, cols]` (INT3 formats unsigned 0…7, INT8 signed) and F32 scales `[groups]`.
nlohmann::ordered_json addFactor(std::vector<std::pair<std::string, Tensor>> &tensors, const std::string &name,
                                 const CompensatorFactor &f)
{
    nlohmann::ordered_json j{
        {"rows", f.rows}, {"cols", f.cols}, {"format", f.format}, {"code_bits", f.codeBits}, {"group", f.group}};
    if (f.codes.empty()) {
        tensors.emplace_back(name, Tensor::fromBytes(DType::F16, {f.rows, f.cols}, encodeScales(f.values, DType::F16)));
        return j;
    }
    std::vector<std::byte> cb(f.codes.size());
    std::memcpy(cb.data(), f.codes.data(), cb.size());
    tensors.emplace_back(name, Tensor::fromBytes(DType::I8, {f.rows, f.cols}, std::move(cb)));
    tensors.emplace_back(name + "_scale", Tensor::fromBytes(f.scaleDtype, {static_cast<std::int64_t>(f.scales.size())},
                                                            encodeScales(f.scales, f.scaleDtype)));
    j["scale_dtype"] = std::string(nameOf(f.scaleDtype));
    return j;
}

} // namespace

NativeModule nativeModule(const QuantizedTensor &q, const std::string &module)
{
    if (q.blockBytes > 0) // gguf: packed ggml blocks, not codes and scales (a GGUF writer would store them)
        throw UnsupportedError("the native layout stores codes and scales; " + q.method +
                                   " results are packed ggml blocks and are not saved (decode or compare Ŵ instead)",
                               Location{{}, q.tensorName, {}});
    const auto rows = q.layout.rows, cols = q.layout.cols;
    std::vector<std::pair<std::string, Tensor>> tensors;
    std::string codesLayout;

    const bool fp4 = q.codeDtype == DType::F4;           // E2M1 nibbles, packed like INT4
    const bool unsignedCodes = q.codeDtype == DType::U8; // HQQ / MiLo: 0 … 2^b − 1
    if (((q.codeDtype == DType::I8 || unsignedCodes) && q.codeBits <= 4) || fp4) {
        const std::int64_t packedCols = (cols + 1) / 2;
        std::vector<std::byte> packed(static_cast<std::size_t>(rows * packedCols));
        for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t c = 0; c < cols; ++c) {
                const auto nib = static_cast<std::uint8_t>(q.codes[static_cast<std::size_t>(r * cols + c)] & 0x0F);
                auto &b = packed[static_cast<std::size_t>(r * packedCols + c / 2)];
                b |= std::byte{static_cast<std::uint8_t>(c % 2 ? nib << 4 : nib)};
            }
        tensors.emplace_back(module + ".qs_codes", Tensor::fromBytes(DType::U8, {rows, packedCols}, std::move(packed)));
        codesLayout = fp4             ? "fp4x2-low-nibble-first"
                      : unsignedCodes ? "uint4x2-low-nibble-first"
                                      : "int4x2-low-nibble-first";
    } else {
        std::vector<std::byte> bytes(q.codes.size());
        if (!bytes.empty())
            std::memcpy(bytes.data(), q.codes.data(), bytes.size());
        tensors.emplace_back(module + ".qs_codes", Tensor::fromBytes(q.codeDtype, {rows, cols}, std::move(bytes)));
        codesLayout = q.codeDtype == DType::I8 ? "int8" : unsignedCodes ? "uint8" : std::string(nameOf(q.codeDtype));
    }

    // Scales in their stored dtype.
    const Shape scaleShape = q.layout.scaleShape();
    tensors.emplace_back(module + ".qs_scale",
                         Tensor::fromBytes(q.scaleDtype, scaleShape, encodeScales(q.scales, q.scaleDtype)));
    // Two-level results: the outer scale (NVFP4 global, progressive stage 1) as `qs_global` when
    // it is one per tensor, else `qs_outer_scale`; outer zero points as `qs_outer_zero`.
    if (!q.outerScales.empty()) {
        const Shape os = q.outerLayout.scaleShape();
        const bool global = q.outerLayout.granularity == Granularity::Tensor;
        tensors.emplace_back(module + (global ? ".qs_global" : ".qs_outer_scale"),
                             Tensor::fromBytes(q.outerScaleDtype, os, encodeScales(q.outerScales, q.outerScaleDtype)));
        if (!q.outerZeros.empty()) {
            std::vector<std::byte> zb(q.outerZeros.size());
            std::memcpy(zb.data(), q.outerZeros.data(), zb.size());
            tensors.emplace_back(module + ".qs_outer_zero", Tensor::fromBytes(DType::I8, os, std::move(zb)));
        }
    }
    if (!q.zeros.empty()) {
        std::vector<std::byte> zb(q.zeros.size());
        std::memcpy(zb.data(), q.zeros.data(), zb.size());
        tensors.emplace_back(module + ".qs_zero", Tensor::fromBytes(DType::I8, scaleShape, std::move(zb)));
    }
    // HQQ / MiLo: float zero points in code units, one per group, in their stored dtype.
    if (!q.zeroPoints.empty())
        tensors.emplace_back(
            module + ".qs_zero_point",
            Tensor::fromBytes(q.zeroPointDtype, scaleShape, encodeScales(q.zeroPoints, q.zeroPointDtype)));
    nlohmann::ordered_json comp;
    if (q.compU && q.compV && q.rank > 0) {
        comp["rank"] = q.rank;
        comp["requested_rank"] = q.requestedRank;
        comp["u"] = addFactor(tensors, module + ".milo_U", *q.compU);
        comp["v"] = addFactor(tensors, module + ".milo_V", *q.compV);
    }

    nlohmann::ordered_json m;
    m["method"] = q.method;
    m["spec"] = q.spec;
    m["shape"] = q.shape;
    m["source_dtype"] = std::string(nameOf(q.sourceDtype));
    m["codes"] = codesLayout;
    m["code_dtype"] = std::string(nameOf(q.codeDtype));
    m["code_bits"] = q.codeBits;
    m["scale_shape"] = scaleShape;
    m["scale_dtype"] = std::string(nameOf(q.scaleDtype));
    m["layout"] = layoutJson(q.layout);
    if (!q.zeroPoints.empty())
        m["zero_point_dtype"] = std::string(nameOf(q.zeroPointDtype));
    m["ragged"] = q.layout.ragged;
    m["nonfinite_groups"] = q.nonFiniteGroups;
    if (!q.outerScales.empty()) {
        m["outer_scale_shape"] = q.outerLayout.scaleShape();
        m["outer_scale_dtype"] = std::string(nameOf(q.outerScaleDtype));
        m["outer_layout"] = layoutJson(q.outerLayout);
    }
    if (!comp.empty())
        m["compensator"] = comp;
    if (q.chosenPass >= 0)
        m["chosen_pass"] = q.chosenPass;
    if (!q.report.empty())
        m["report"] = q.report;
    return {std::move(tensors), std::move(m)};
}

std::string nativeMetadata(const nlohmann::ordered_json &modules)
{
    nlohmann::ordered_json meta;
    meta["format"] = "quantscope-native";
    meta["version"] = kNativeVersion;
    meta["modules"] = modules.is_null() ? nlohmann::ordered_json::object() : modules;
    return meta.dump();
}

void writeNative(const std::filesystem::path &path, const QuantizedTensor &q)
{
    const std::string module = moduleOf(q.tensorName.empty() ? "tensor" : q.tensorName);
    NativeModule nm = nativeModule(q, module);
    nlohmann::ordered_json modules;
    modules[module] = std::move(nm.metadata);
    writeSafetensors(path, nm.tensors, {{"quantscope", nativeMetadata(modules)}, {"format", "pt"}});
}

} // namespace quantscope
