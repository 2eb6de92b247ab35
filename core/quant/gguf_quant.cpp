// SPDX-License-Identifier: MIT
#include "quant/gguf_quant.h"

#include "ggml/ggml_block_math.h"
#include "ggml/ggml_quantize.h"
#include "quant/spec_json.h"
#include "util/error.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace quantscope {

namespace {

const std::vector<std::string> kTypes{"q4_0",  "q4_1",   "q5_0",   "q5_1",  "q8_0",    "q2_k",   "q3_k",  "q4_k",
                                      "q5_k",  "q6_k",   "iq1_s",  "iq1_m", "iq2_xxs", "iq2_xs", "iq2_s", "iq3_xxs",
                                      "iq3_s", "iq4_nl", "iq4_xs", "tq1_0", "tq2_0",   "mxfp4"};

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
             "llama.cpp's block type: q4_0 q4_1 q5_0 q5_1 q8_0 iq4_nl mxfp4 (blocks of 32), q2_k … q6_k, "
             "tq1_0 tq2_0 and the i-quants iq1_s … iq4_xs (super-blocks of 256)"},
            {"imatrix",
             "bool",
             {},
             0,
             0,
             "K-quants and i-quants: importance weights from the paired capture (per input channel mean x², "
             "llama.cpp's imatrix); iq1_s iq1_m iq2_xxs iq2_xs iq2_s iq3_xxs require it"}};
}

void GgufQuantSpec::validate() const
{
    if (imatrix && !ggml::takesImportance(type))
        throw UnsupportedError("gguf: imatrix applies to the K-quants (q2_k … q6_k) and i-quants; " +
                               std::string(ggml::typeName(type)) + " has no importance-weighted search");
    if (!ggml::quantizes(type))
        throw UnsupportedError("gguf: the type " + std::string(ggml::typeName(type)) +
                               " is not quantized here (one of " +
                               "q4_0 q4_1 q5_0 q5_1 q8_0 q2_k … q6_k iq1_s iq1_m iq2_xxs iq2_xs iq2_s iq3_xxs iq3_s "
                               "iq4_nl iq4_xs tq1_0 tq2_0 mxfp4)");
    if (!imatrix && ggml::requiresImportance(type))
        throw UnsupportedError("gguf: " + lower(ggml::typeName(type)) +
                               " needs an importance matrix, as llama.cpp's llama-quantize does (\"this quantization "
                               "requires an imatrix\"): set imatrix (--imatrix) and pair a capture (--capture)");
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

QuantizedTensor ggufStart(const GgufQuantSpec &spec, const Shape &shape, DType source, const std::string &tensorName)
{
    QuantizedTensor q;
    q.method = "gguf";
    q.spec = spec.toJson();
    q.tensorName = tensorName;
    q.shape = shape;
    q.sourceDtype = source;
    const ggml::TypeInfo *info = ggml::typeInfo(static_cast<std::uint32_t>(spec.type));
    const std::int64_t cols = matrixView(shape).second;
    if (cols % info->blockSize != 0)
        throw UnsupportedError("gguf " + lower(info->name) + ": rows of K = " + std::to_string(cols) +
                                   " are not a whole number of blocks of " + std::to_string(info->blockSize) +
                                   " (llama.cpp quantizes along K; pick a type with blocks of 32, or another tensor)",
                               Location{{}, tensorName, {}});
    q.layout = makeLayout(shape, Granularity::Group, info->blockSize, 0, 0, true, tensorName);
    q.codeDtype = DType::U8;
    q.codeBits = 0;
    q.scaleDtype = DType::F16;
    return q;
}

std::vector<float> ggufImportance(const GgufQuantSpec &spec, const QuantizeOptions &options, std::int64_t cols)
{
    std::vector<float> importance;
    if (!spec.imatrix)
        return importance;
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
    return importance;
}

QuantizedTensor GgufQuantizer::quantize(const Tensor &w, const QuantizeOptions &options,
                                        const CancelToken *cancel) const
{
    requireDecodable(w, options.tensorName);
    QuantizedTensor q = ggufStart(m_spec, w.shape(), w.dtype(), options.tensorName);
    const ggml::TypeInfo *info = ggml::typeInfo(static_cast<std::uint32_t>(m_spec.type));
    const auto [rows, cols] = matrixView(w.shape());
    if (cancel)
        cancel->check();
    const Tensor x = w.toF32().contiguous();
    const auto *xf = reinterpret_cast<const float *>(x.data());
    const std::vector<float> importance = ggufImportance(m_spec, options, cols);
    const std::vector<std::byte> blocks =
        ggml::quantizeRows(m_spec.type, xf, rows, cols, importance.empty() ? nullptr : importance.data());
    if (cancel)
        cancel->check();
    const std::size_t nblocks = blocks.size() / static_cast<std::size_t>(info->typeSize);
    q.dequantized.resize(nblocks * static_cast<std::size_t>(info->blockSize));
    ggml::decodeBlocks(m_spec.type, blocks.data(), nblocks, q.dequantized.data());
    q.blockBytes = blocks.size();
    q.scales.resize(nblocks);
    // Each block's (super-)block scale d: the F16 at offset 0, except Q2_K (80), Q3_K (108), Q6_K
    // (208), TQ1_0 (52), TQ2_0 (64) and IQ1_M (its four nibbles in the tops of the four uint16
    // scales at 48); MXFP4's is the E8M0 byte at 0, kept as 2^(e − 127).
    const ggml::Type t = m_spec.type;
    const std::size_t dAt = t == ggml::Type::TQ1_0 ? 52
                            : t == ggml::Type::TQ2_0
                                ? 64
                                : static_cast<std::size_t>(ggml::blockmath::scaleOffset(static_cast<int>(t)));
    const auto *b = reinterpret_cast<const unsigned char *>(blocks.data());
    if (t == ggml::Type::MXFP4)
        q.scaleDtype = DType::F8_E8M0;
    for (std::size_t i = 0; i < nblocks; ++i) {
        const unsigned char *p = b + i * static_cast<std::size_t>(info->typeSize) + dAt;
        if (t == ggml::Type::IQ1_M) {
            std::uint16_t d = 0;
            for (int k = 0; k < 4; ++k)
                d = static_cast<std::uint16_t>(d | (((p[48 + 2 * k + 1] >> 4) & 0xF) << (4 * k)));
            q.scales[i] = ggml::halfToFloat(d);
        } else if (t == ggml::Type::MXFP4) {
            q.scales[i] = std::ldexp(1.0f, static_cast<int>(p[0]) - 127);
        } else {
            q.scales[i] = ggml::blockmath::f16At(p);
        }
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
