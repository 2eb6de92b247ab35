// SPDX-License-Identifier: MIT
#include "quant/gguf_quant.h"

#include "ggml/ggml_quantize.h"
#include "quant/spec_json.h"
#include "util/error.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace quantscope {

namespace {

const std::vector<std::string> kTypes{"q4_0", "q4_1", "q5_0", "q5_1",  "q8_0",  "q2_k", "q3_k",
                                      "q4_k", "q5_k", "q6_k", "tq1_0", "tq2_0", "mxfp4"};

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace

std::vector<SpecField> GgufQuantSpec::fields()
{
    return {{"type", "enum", kTypes, 0, 0,
             "llama.cpp's block type: q4_0 q4_1 q5_0 q5_1 q8_0 mxfp4 (blocks of 32), q2_k … q6_k tq1_0 tq2_0 "
             "(super-blocks of 256)"},
            {"imatrix",
             "bool",
             {},
             0,
             0,
             "K-quants: importance weights from the paired capture (per input channel mean x², llama.cpp's imatrix)"}};
}

void GgufQuantSpec::validate() const
{
    if (imatrix && !ggml::isKQuant(type))
        throw UnsupportedError("gguf: imatrix applies to the K-quants (q2_k … q6_k); " +
                               std::string(ggml::typeName(type)) + " has no importance-weighted search");
    if (!ggml::quantizes(type))
        throw UnsupportedError("gguf: the type " + std::string(ggml::typeName(type)) +
                               " is not quantized here (one of " +
                               "q4_0 q4_1 q5_0 q5_1 q8_0 q2_k q3_k q4_k q5_k q6_k tq1_0 tq2_0 mxfp4)");
}

nlohmann::json GgufQuantSpec::toJson() const
{
    return {{"method", "gguf"}, {"type", lower(ggml::typeName(type))}, {"imatrix", imatrix}};
}

GgufQuantSpec GgufQuantSpec::fromJson(const nlohmann::json &j)
{
    specjson::refuseUnknownKeys(j, fields(), "gguf");
    GgufQuantSpec s;
    if (j.contains("type")) {
        const int i = specjson::parseChoice(j["type"], "type", kTypes);
        s.type = *ggml::typeFromName(kTypes[static_cast<std::size_t>(i)]);
    }
    if (j.contains("imatrix"))
        s.imatrix = specjson::parseBool(j["imatrix"], "imatrix");
    s.validate();
    return s;
}

GgufQuantizer::GgufQuantizer(GgufQuantSpec spec) : m_spec(spec)
{
    m_spec.validate();
}

QuantizedTensor GgufQuantizer::quantize(const Tensor &w, const QuantizeOptions &options,
                                        const CancelToken *cancel) const
{
    requireDecodable(w, options.tensorName);
    QuantizedTensor q = startQuantized(w, "gguf", m_spec.toJson(), options.tensorName);
    const ggml::TypeInfo *info = ggml::typeInfo(static_cast<std::uint32_t>(m_spec.type));
    const auto [rows, cols] = matrixView(w.shape());
    if (cols % info->blockSize != 0)
        throw UnsupportedError("gguf " + lower(info->name) + ": rows of K = " + std::to_string(cols) +
                                   " are not a whole number of blocks of " + std::to_string(info->blockSize) +
                                   " (llama.cpp quantizes along K; pick a type with blocks of 32, or another tensor)",
                               Location{{}, options.tensorName, {}});
    q.layout = makeLayout(w.shape(), Granularity::Group, info->blockSize, 0, 0, true, options.tensorName);
    if (cancel)
        cancel->check();
    const Tensor x = w.toF32().contiguous();
    const auto *xf = reinterpret_cast<const float *>(x.data());
    std::vector<float> importance;
    if (m_spec.imatrix) {
        const Calibration *cal = options.calibration.get();
        if (cal == nullptr || cal->gramDiag.empty())
            throw UnsupportedError("gguf imatrix needs the module's inputs and none were paired with " +
                                       options.tensorName +
                                       ": capture them first (quantscope-cli capture MODEL --tokens FILE.npy --out "
                                       "CAP.safetensors) and pass --capture CAP.safetensors",
                                   Location{{}, options.tensorName, {}});
        if (cal->k != cols)
            throw UnsupportedError("gguf imatrix: the capture's " + cal->module + " has " + std::to_string(cal->k) +
                                       " input channels, the weight " + std::to_string(cols),
                                   Location{{}, options.tensorName, {}});
        importance.assign(cal->gramDiag.begin(), cal->gramDiag.end()); // mean x² per channel, as FP32
    }
    const std::vector<std::byte> blocks =
        ggml::quantizeRows(m_spec.type, xf, rows, cols, importance.empty() ? nullptr : importance.data());
    if (cancel)
        cancel->check();
    const std::size_t nblocks = blocks.size() / static_cast<std::size_t>(info->typeSize);
    q.dequantized.resize(nblocks * static_cast<std::size_t>(info->blockSize));
    ggml::decodeBlocks(m_spec.type, blocks.data(), nblocks, q.dequantized.data());
    q.blockBytes = blocks.size();
    q.codeDtype = DType::U8;
    q.codeBits = 0;
    q.scaleDtype = DType::F16;
    q.scales.resize(nblocks);
    // Every block type here stores its (super-)block scale d as the F16 at offset 0, except Q2_K
    // (after the scales and codes, at 80), Q3_K (at 108), Q6_K (at 208), TQ1_0 (at 52), TQ2_0
    // (at 64); MXFP4's is the E8M0 byte at 0, kept as 2^(e − 127).
    const ggml::Type t = m_spec.type;
    const std::size_t dAt = t == ggml::Type::Q2_K    ? 80
                            : t == ggml::Type::Q3_K  ? 108
                            : t == ggml::Type::Q6_K  ? 208
                            : t == ggml::Type::TQ1_0 ? 52
                            : t == ggml::Type::TQ2_0 ? 64
                                                     : 0;
    const auto *b = reinterpret_cast<const unsigned char *>(blocks.data());
    if (t == ggml::Type::MXFP4)
        q.scaleDtype = DType::F8_E8M0;
    for (std::size_t i = 0; i < nblocks; ++i) {
        const unsigned char *p = b + i * static_cast<std::size_t>(info->typeSize) + dAt;
        q.scales[i] = t == ggml::Type::MXFP4 ? std::ldexp(1.0f, static_cast<int>(p[0]) - 127)
                                             : ggml::halfToFloat(static_cast<std::uint16_t>(p[0] | (p[1] << 8)));
    }
    return q;
}

void GgufQuantizer::dequantize(const QuantizedTensor &q, std::span<float> out) const
{
    if (q.dequantized.size() != out.size())
        throw UnsupportedError("gguf: Ŵ is kept with the result; this one has none", Location{{}, q.tensorName, {}});
    std::copy(q.dequantized.begin(), q.dequantized.end(), out.begin());
}

} // namespace quantscope
