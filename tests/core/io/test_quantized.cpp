// SPDX-License-Identifier: MIT
// Quantized-module readers. Fixture files are written with writeSafetensors from the layouts of
// docs/formats.md / docs/toolkits.md (packers below are written independently of
// core/io/quantized.cpp: bit strings, explicit nibble slots), decoded back by the reader and
// compared with the values the fixture was made from. The worked examples of docs/formats.md are
// pinned word for word.
#include "io/checkpoint.h"
#include "io/quantized.h"
#include "io/safetensors.h"
#include "safetensors_fixture.h"
#include "tensor/convert.h"
#include "util/error.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

using namespace quantscope;
using namespace quantscope::test;

namespace {

// ---- independent packers ------------------------------------------------------------------------

/// compressed-tensors dense packing of one row: value + 2^(b−1), element i at bit i·b.
std::vector<std::uint32_t> ctPackRow(const std::vector<int> &v, int b)
{
    std::vector<bool> bits;
    for (int x : v) {
        const unsigned u = static_cast<unsigned>(x + (1 << (b - 1)));
        for (int j = 0; j < b; ++j)
            bits.push_back(((u >> j) & 1u) != 0);
    }
    std::vector<std::uint32_t> words((bits.size() + 31) / 32, 0u);
    for (std::size_t i = 0; i < bits.size(); ++i)
        if (bits[i])
            words[i / 32] |= 1u << (i % 32);
    return words;
}

/// compressed-tensors before #715: 32/b values per word.
std::vector<std::uint32_t> ctPackRowLegacy(const std::vector<int> &v, int b)
{
    const std::size_t pf = static_cast<std::size_t>(32 / b);
    std::vector<std::uint32_t> words((v.size() + pf - 1) / pf, 0u);
    for (std::size_t i = 0; i < v.size(); ++i)
        words[i / pf] |= static_cast<std::uint32_t>(v[i] + (1 << (b - 1))) << ((i % pf) * b);
    return words;
}

/// Quark Pack_4_bits of one row: nibble slot s of word c holds element 8c + order[s].
std::vector<std::uint32_t> quarkPackRow(const std::vector<int> &v, bool reorder)
{
    static const int awq[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    std::vector<std::uint32_t> words((v.size() + 7) / 8, 0u);
    for (std::size_t c = 0; c < words.size(); ++c)
        for (int s = 0; s < 8; ++s) {
            const std::size_t idx = 8 * c + static_cast<std::size_t>(reorder ? awq[s] : s);
            if (idx < v.size())
                words[c] |= (static_cast<std::uint32_t>(v[idx]) & 0xFu) << (4 * s);
        }
    return words;
}

/// FP4 E2M1 code of an exactly representable value.
std::uint8_t fp4Code(float x)
{
    static const float mag[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
    for (std::uint8_t c = 0; c < 8; ++c)
        if (std::fabs(x) == mag[c])
            return static_cast<std::uint8_t>(c | (std::signbit(x) ? 8 : 0));
    throw std::runtime_error("not an FP4 value");
}

// ---- tensors ---------------------------------------------------------------------------------

template <typename T> Tensor make(DType d, Shape s, const std::vector<T> &v)
{
    std::vector<std::byte> b(v.size() * sizeof(T));
    if (!b.empty())
        std::memcpy(b.data(), v.data(), b.size());
    return Tensor::fromBytes(d, std::move(s), std::move(b));
}
Tensor i32(Shape s, const std::vector<std::uint32_t> &v)
{
    return make(DType::I32, std::move(s), v);
}
Tensor f32(Shape s, const std::vector<float> &v)
{
    return make(DType::F32, std::move(s), v);
}
Tensor i64(const std::vector<std::int64_t> &v)
{
    return make(DType::I64, {static_cast<std::int64_t>(v.size())}, v);
}
Tensor bf16(Shape s, const std::vector<float> &v)
{
    std::vector<std::uint16_t> h;
    for (float x : v)
        h.push_back(floatToBf16(x));
    return make(DType::BF16, std::move(s), h);
}

/// Packs rows of codes [N][K] into [N, words] with a row packer.
template <typename F> Tensor packRows(const std::vector<std::vector<int>> &q, F pack)
{
    std::vector<std::uint32_t> all;
    std::int64_t w = 0;
    for (const auto &row : q) {
        const auto r = pack(row);
        w = static_cast<std::int64_t>(r.size());
        all.insert(all.end(), r.begin(), r.end());
    }
    return i32({static_cast<std::int64_t>(q.size()), w}, all);
}

std::vector<std::vector<int>> transpose(const std::vector<std::vector<int>> &q)
{
    if (q.empty())
        return {};
    std::vector<std::vector<int>> t(q[0].size(), std::vector<int>(q.size()));
    for (std::size_t i = 0; i < q.size(); ++i)
        for (std::size_t j = 0; j < q[0].size(); ++j)
            t[j][i] = q[i][j];
    return t;
}

std::vector<float> decoded(const Tensor &t)
{
    std::vector<float> v(static_cast<std::size_t>(t.numel()));
    t.decodeTo(v);
    return v;
}

void writeConfig(const fs::path &dir, const std::string &qc)
{
    writeBytes(dir / "config.json", "{\"model_type\": \"llama\", \"quantization_config\": " + qc + "}");
}

/// The compressed-tensors config_groups JSON of one weights scheme.
std::string ctConfig(const std::string &weights, const std::string &format = "pack-quantized")
{
    return R"({"quant_method": "compressed-tensors", "format": ")" + format +
           R"(", "quantization_status": "compressed", "ignore": ["lm_head"],
      "config_groups": {"group_0": {"targets": ["Linear"], "weights": )" +
           weights + R"(, "input_activations": null, "output_activations": null, "format": ")" + format + "\"}}}";
}

FormatError detectFails(const fs::path &p)
{
    const Checkpoint ck = Checkpoint::open(p);
    try {
        detectQuantized(ck);
    } catch (const FormatError &e) {
        return e;
    }
    throw std::runtime_error("expected a FormatError detecting " + p.string());
}

void expectMentions(const Error &e, const std::string &module, const std::string &text)
{
    EXPECT_EQ(e.where().tensor, module) << e.what();
    EXPECT_NE(std::string(e.what()).find(module), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << "expected '" << text << "' in: " << e.what();
}

/// Random signed codes of b bits, [N][K].
std::vector<std::vector<int>> randomCodes(std::int64_t N, std::int64_t K, int b, unsigned seed, bool isSigned = true)
{
    std::mt19937 rng(seed);
    const int lo = isSigned ? -(1 << (b - 1)) : 0, hi = isSigned ? (1 << (b - 1)) - 1 : (1 << b) - 1;
    std::uniform_int_distribution<int> d(lo, hi);
    std::vector<std::vector<int>> q(static_cast<std::size_t>(N), std::vector<int>(static_cast<std::size_t>(K)));
    for (auto &r : q)
        for (auto &x : r)
            x = d(rng);
    return q;
}

std::vector<float> randomScales(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(0.01f, 0.2f);
    std::vector<float> s(n);
    for (auto &x : s)
        x = d(rng);
    return s;
}

class Quantized : public ::testing::Test {
protected:
    ScratchDir dir;
    fs::path file(const std::string &n = "model.safetensors") const { return dir / n; }
};

const std::string kMod = "model.layers.0.mlp.down_proj";

} // namespace

// ---- worked examples (docs/formats.md) ---------------------------------------------------------

TEST(WorkedExamples, PackedWordsAreThoseOfFormatsMd)
{
    EXPECT_EQ(ctPackRow({-8, -7, -6, -5, -4, -3, -2, -1}, 4), std::vector<std::uint32_t>{0x76543210u});
    EXPECT_EQ(quarkPackRow({0, 1, 2, 3, 4, 5, 6, 7}, false), std::vector<std::uint32_t>{0x76543210u});
    EXPECT_EQ(quarkPackRow({0, 1, 2, 3, 4, 5, 6, 7}, true), std::vector<std::uint32_t>{0x75316420u});
    // Quark per-group transpose: q[n][k] = n − 4 + k, N = 8, K = 2 → rows of [K, N/8].
    std::vector<std::vector<int>> q(8, std::vector<int>(2));
    for (int n = 0; n < 8; ++n)
        for (int k = 0; k < 2; ++k)
            q[n][k] = n - 4 + k;
    const auto t = transpose(q);
    EXPECT_EQ(quarkPackRow(t[0], true), std::vector<std::uint32_t>{0x31FD20ECu});
    EXPECT_EQ(quarkPackRow(t[1], true), std::vector<std::uint32_t>{0x420E31FDu});
    EXPECT_EQ(fp4Code(1.0f) | (fp4Code(-0.5f) << 4), 0x92);
    // 6 bits, K = 80: 15 words dense, 16 in the older layout.
    EXPECT_EQ(ctPackRow(std::vector<int>(80, 0), 6).size(), 15u);
    EXPECT_EQ(ctPackRowLegacy(std::vector<int>(80, 0), 6).size(), 16u);
}

TEST_F(Quantized, CompressedTensorsInt4WordDecodesToMinus8ToMinus1)
{
    // One row of 32 codes: the first word is the worked example 0x76543210.
    std::vector<int> row;
    for (int i = 0; i < 32; ++i)
        row.push_back(i % 16 - 8);
    const auto words = ctPackRow(row, 4);
    ASSERT_EQ(words[0], 0x76543210u);
    writeSafetensors(file(), {{kMod + ".weight_packed", i32({1, 4}, words)},
                              {kMod + ".weight_scale", f32({1, 1}, {0.5f})},
                              {kMod + ".weight_shape", i64({1, 32})}});
    writeConfig(dir.path(), ctConfig(R"({"num_bits": 4, "type": "int", "symmetric": true,
        "group_size": 32, "strategy": "group"})"));
    const Checkpoint ck = Checkpoint::open(file());
    const Detection det = detectQuantized(ck);
    ASSERT_EQ(det.modules.size(), 1u);
    const QuantizedModule &m = det.modules[0];
    EXPECT_EQ(m.name, kMod + ".weight");
    EXPECT_EQ(formatName(m.format), "compressed-tensors/pack-quantized");
    EXPECT_EQ(m.scheme.text(), "INT4 sym, group 32 along K, c-t packing, F32 scales");
    EXPECT_TRUE(m.scheme.fromConfig);
    EXPECT_EQ(m.shape, (Shape{1, 32}));
    const Tensor codes = quantizedCodes(ck, m);
    for (int i = 0; i < 8; ++i)
        EXPECT_EQ(codes.at(i), i - 8);
    const auto w = decoded(decodeQuantized(ck, m));
    for (int i = 0; i < 32; ++i)
        EXPECT_EQ(w[i], 0.5f * static_cast<float>(row[i]));
    EXPECT_TRUE(det.find(kMod) && det.find(kMod + ".weight") && det.find(kMod + ".weight_scale"));
    EXPECT_TRUE(det.isPart(kMod + ".weight_shape"));
}

TEST_F(Quantized, CompressedTensorsFormatIsDecidedPerModuleFromItsTensors)
{
    // compressed-tensors 0.20 stores 8-bit weight-only modules as weight_packed even when the
    // top-level format says int-quantized (the format is per module); the toolkit loads it.
    std::vector<std::vector<int>> q(2, std::vector<int>(8));
    for (int n = 0; n < 2; ++n)
        for (int k = 0; k < 8; ++k)
            q[n][k] = (k * 37 + n * 11) % 256 - 128;
    writeSafetensors(file(), {{kMod + ".weight_packed", packRows(q, [](auto &r) { return ctPackRow(r, 8); })},
                              {kMod + ".weight_scale", f32({2, 1}, {0.25f, 2.0f})},
                              {kMod + ".weight_shape", i64({2, 8})}});
    writeConfig(dir.path(), R"({"quant_method": "compressed-tensors", "format": "int-quantized",
      "quantization_status": "compressed", "config_groups": {"group_0": {"targets": ["Linear"],
      "weights": {"num_bits": 8, "type": "int", "symmetric": true, "strategy": "channel"}}}})");
    const Checkpoint ck = Checkpoint::open(file());
    const Detection det = detectQuantized(ck); // strict: no refusal
    ASSERT_EQ(det.modules.size(), 1u);
    const QuantizedModule &m = det.modules[0];
    EXPECT_EQ(formatName(m.format), "compressed-tensors/pack-quantized");
    ASSERT_EQ(m.warnings.size(), 1u);
    EXPECT_NE(m.warnings[0].find("int-quantized"), std::string::npos) << m.warnings[0];
    const auto w = decoded(decodeQuantized(ck, m));
    for (int n = 0; n < 2; ++n)
        for (int k = 0; k < 8; ++k)
            EXPECT_EQ(w[static_cast<std::size_t>(n * 8 + k)], (n ? 2.0f : 0.25f) * static_cast<float>(q[n][k]));
}

TEST_F(Quantized, QuarkOrderAndReorderWordsDecodeTo0To7)
{
    for (const std::string method : {"order", "reorder"}) {
        SCOPED_TRACE(method);
        const std::uint32_t word = method == "order" ? 0x76543210u : 0x75316420u;
        writeSafetensors(file(), {{kMod + ".weight", i32({1, 1}, {word})}, {kMod + ".weight_scale", f32({1}, {2.0f})}});
        writeConfig(dir.path(), R"({"quant_method": "quark", "global_quant_config": {"weight":
            {"dtype": "int4", "qscheme": "per_channel", "ch_axis": 0, "symmetric": true}},
            "export": {"pack_method": ")" +
                                    method + R"(", "weight_format": "real_quantized"}})");
        const Checkpoint ck = Checkpoint::open(file());
        const Detection det = detectQuantized(ck);
        ASSERT_EQ(det.modules.size(), 1u);
        const QuantizedModule &m = det.modules[0];
        EXPECT_EQ(formatName(m.format), "quark/real_quantized");
        EXPECT_EQ(m.scheme.packOrder, method == "order" ? PackOrder::QuarkOrder : PackOrder::QuarkReorder);
        const Tensor codes = quantizedCodes(ck, m);
        const auto w = decoded(decodeQuantized(ck, m));
        for (int i = 0; i < 8; ++i) {
            EXPECT_EQ(codes.at(i), i);
            EXPECT_EQ(w[i], 2.0f * i);
        }
    }
}

TEST_F(Quantized, QuarkPerGroupTransposeWordsAndTransposedScales)
{
    // N = 8, K = 2, group 1 (2 groups): stored [2, 1] words, scales [2, 8] transposed.
    const std::vector<std::uint32_t> words = {0x31FD20ECu, 0x420E31FDu};
    std::vector<float> sT(16); // sT[g][n]
    for (int g = 0; g < 2; ++g)
        for (int n = 0; n < 8; ++n)
            sT[g * 8 + n] = 0.25f * static_cast<float>(1 + n + 8 * g);
    writeSafetensors(file(), {{kMod + ".weight", i32({2, 1}, words)}, {kMod + ".weight_scale", f32({2, 8}, sT)}});
    writeConfig(dir.path(), R"({"quant_method": "quark", "global_quant_config": {"weight":
        {"dtype": "int4", "qscheme": "per_group", "group_size": 1, "ch_axis": -1, "symmetric": true}},
        "export": {"pack_method": "reorder"}})");
    const Checkpoint ck = Checkpoint::open(file());
    const Detection det = detectQuantized(ck);
    ASSERT_EQ(det.modules.size(), 1u);
    const QuantizedModule &m = det.modules[0];
    EXPECT_EQ(m.shape, (Shape{8, 2}));
    EXPECT_TRUE(m.scheme.transposed);
    EXPECT_EQ(m.scheme.groupSize, 1);
    const Tensor codes = quantizedCodes(ck, m);
    const auto w = decoded(decodeQuantized(ck, m));
    for (int n = 0; n < 8; ++n)
        for (int k = 0; k < 2; ++k) {
            EXPECT_EQ(codes.at(n * 2 + k), n - 4 + k);
            EXPECT_EQ(w[n * 2 + k], sT[k * 8 + n] * static_cast<float>(n - 4 + k));
        }
}

TEST_F(Quantized, QuarkPerGroupWithNNotDivisibleBy8DropsThePadding)
{
    // N = 6 outputs, K = 2, group 1: Quark pads N to 8 before packing the transposed rows, so
    // each of the K rows is one word whose last two nibbles are padding; the scales keep N = 6.
    for (const bool reorder : {true, false}) {
        SCOPED_TRACE(reorder ? "reorder" : "order");
        std::vector<std::uint32_t> words;
        for (int k = 0; k < 2; ++k) {
            std::vector<int> row(8, 0);
            for (int n = 0; n < 6; ++n)
                row[static_cast<std::size_t>(n)] = n - 3 + k;
            const auto w = quarkPackRow(row, reorder);
            words.insert(words.end(), w.begin(), w.end());
        }
        std::vector<float> sT(12); // sT[g][n]
        for (int g = 0; g < 2; ++g)
            for (int n = 0; n < 6; ++n)
                sT[static_cast<std::size_t>(g * 6 + n)] = 0.5f * static_cast<float>(1 + n + 6 * g);
        writeSafetensors(file(), {{kMod + ".weight", i32({2, 1}, words)}, {kMod + ".weight_scale", f32({2, 6}, sT)}});
        writeConfig(dir.path(), std::string(R"({"quant_method": "quark", "global_quant_config": {"weight":
            {"dtype": "int4", "qscheme": "per_group", "group_size": 1, "symmetric": true}},
            "export": {"pack_method": ")") +
                                    (reorder ? "reorder" : "order") + "\"}}");
        const Checkpoint ck = Checkpoint::open(file());
        const Detection det = detectQuantized(ck);
        ASSERT_EQ(det.modules.size(), 1u);
        const QuantizedModule &m = det.modules[0];
        EXPECT_EQ(m.shape, (Shape{6, 2}));
        ASSERT_EQ(m.warnings.size(), 1u);
        EXPECT_NE(m.warnings[0].find("N = 6 is padded to 8"), std::string::npos) << m.warnings[0];
        const auto w = decoded(decodeQuantized(ck, m));
        ASSERT_EQ(w.size(), 12u);
        for (int n = 0; n < 6; ++n)
            for (int k = 0; k < 2; ++k)
                EXPECT_EQ(w[static_cast<std::size_t>(n * 2 + k)],
                          sT[static_cast<std::size_t>(k * 6 + n)] * static_cast<float>(n - 3 + k));
    }
}

TEST_F(Quantized, QuarkPerChannelKPaddedToEightIsStrippedByTheModelsDimensions)
{
    // K = 12 (config.json intermediate_size): Quark packs rows padded to 16 codes, two words.
    std::vector<std::uint32_t> words;
    std::vector<std::vector<int>> q(2, std::vector<int>(12));
    for (int n = 0; n < 2; ++n) {
        std::vector<int> row(16, 0);
        for (int k = 0; k < 12; ++k)
            row[static_cast<std::size_t>(k)] = q[n][k] = (k + 3 * n) % 16 - 8;
        const auto w = quarkPackRow(row, true);
        words.insert(words.end(), w.begin(), w.end());
    }
    writeSafetensors(file(),
                     {{kMod + ".weight", i32({2, 2}, words)}, {kMod + ".weight_scale", f32({2}, {0.5f, 3.0f})}});
    const std::string quark = R"({"quant_method": "quark", "global_quant_config": {"weight":
        {"dtype": "int4", "qscheme": "per_channel", "ch_axis": 0, "symmetric": true}},
        "export": {"pack_method": "reorder"}})";
    writeBytes(dir.path() / "config.json", R"({"model_type": "llama", "hidden_size": 8, "intermediate_size": 12,
        "quantization_config": )" + quark + "}");
    {
        const Checkpoint ck = Checkpoint::open(file());
        const Detection det = detectQuantized(ck);
        ASSERT_EQ(det.modules.size(), 1u);
        const QuantizedModule &m = det.modules[0];
        EXPECT_EQ(m.shape, (Shape{2, 12}));
        ASSERT_EQ(m.warnings.size(), 1u);
        EXPECT_NE(m.warnings[0].find("intermediate_size"), std::string::npos) << m.warnings[0];
        const auto w = decoded(decodeQuantized(ck, m));
        ASSERT_EQ(w.size(), 24u);
        for (int n = 0; n < 2; ++n)
            for (int k = 0; k < 12; ++k)
                EXPECT_EQ(w[static_cast<std::size_t>(n * 12 + k)], (n ? 3.0f : 0.5f) * static_cast<float>(q[n][k]));
    }
    // Without a dimension to go by, the padded width is read and the warning says so.
    writeBytes(dir.path() / "config.json", R"({"model_type": "llama", "hidden_size": 64,
        "quantization_config": )" + quark + "}");
    const Checkpoint ck = Checkpoint::open(file());
    const Detection det = detectQuantized(ck);
    ASSERT_EQ(det.modules.size(), 1u);
    EXPECT_EQ(det.modules[0].shape, (Shape{2, 16}));
    ASSERT_EQ(det.modules[0].warnings.size(), 1u);
    EXPECT_NE(det.modules[0].warnings[0].find("any padding"), std::string::npos);
}

TEST_F(Quantized, Nvfp4ByteAndScales)
{
    // Row of 16: (1.0, −0.5) repeated → bytes 0x92; scale 0.5 (E4M3), global 2 → ×0.25.
    std::vector<std::uint8_t> bytes(8, static_cast<std::uint8_t>(fp4Code(1.0f) | fp4Code(-0.5f) << 4));
    ASSERT_EQ(bytes[0], 0x92);
    writeSafetensors(
        file(), {{kMod + ".weight_packed", make(DType::U8, {1, 8}, bytes)},
                 {kMod + ".weight_scale", make(DType::F8_E4M3, {1, 1}, std::vector<std::uint8_t>{floatToE4m3(0.5f)})},
                 {kMod + ".weight_global_scale", f32({1}, {2.0f})}});
    writeConfig(dir.path(), ctConfig(R"({"num_bits": 4, "type": "float", "symmetric": true,
        "group_size": 16, "strategy": "tensor_group", "scale_dtype": "torch.float8_e4m3fn"})",
                                     "nvfp4-pack-quantized"));
    const Checkpoint ck = Checkpoint::open(file());
    const QuantizedModule m = detectQuantized(ck).modules.at(0);
    EXPECT_EQ(formatName(m.format), "compressed-tensors/nvfp4-pack-quantized");
    EXPECT_EQ(m.shape, (Shape{1, 16}));
    EXPECT_TRUE(m.scheme.globalScale);
    const auto w = decoded(decodeQuantized(ck, m));
    for (int i = 0; i < 16; ++i)
        EXPECT_EQ(w[i], (i % 2 ? -0.5f : 1.0f) * 0.25f) << i;
    EXPECT_EQ(quantizedCodes(ck, m).dtype(), DType::F4);
}

TEST_F(Quantized, Mxfp4WithE8m0ScalesAndTheirHealth)
{
    // Two rows of K = 64: groups of 32 with scales 2^(e−127); one scale is 0xFF (NaN).
    std::vector<std::uint8_t> packed(2 * 32);
    std::vector<float> vals(128);
    const float grid[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
    for (int i = 0; i < 128; ++i)
        vals[i] = grid[i % 8] * (i % 3 == 0 ? -1.0f : 1.0f);
    for (int i = 0; i < 64; ++i)
        packed[i] = static_cast<std::uint8_t>(fp4Code(vals[2 * i]) | fp4Code(vals[2 * i + 1]) << 4);
    const std::vector<std::uint8_t> e = {127, 129, 120, 0xFF};
    writeSafetensors(file(), {{kMod + ".weight_packed", make(DType::U8, {2, 32}, packed)},
                              {kMod + ".weight_scale", make(DType::U8, {2, 2}, e)}});
    const Checkpoint ck = Checkpoint::open(file()); // no config: from the tensors
    const QuantizedModule m = detectQuantized(ck).modules.at(0);
    EXPECT_EQ(formatName(m.format), "compressed-tensors/mxfp4-pack-quantized");
    EXPECT_EQ(m.scheme.groupSize, 32);
    EXPECT_EQ(m.scheme.text(), "FP4 E2M1, group 32 along K, FP4 pairs low nibble first, E8M0 scales");
    EXPECT_EQ(m.scaleHealth.nan, 1);
    const auto w = decoded(decodeQuantized(ck, m));
    for (int i = 0; i < 96; ++i) {
        const int r = i / 64, g = (i % 64) / 32;
        EXPECT_EQ(w[i], vals[i] * std::ldexp(1.0f, e[r * 2 + g] - 127)) << i;
    }
    EXPECT_TRUE(std::isnan(w[127]));
}

// ---- compressed-tensors pack-quantized in depth -------------------------------------------------

TEST_F(Quantized, SixBitK80DenseAndLegacyLayoutsAreTellApart)
{
    const auto q = randomCodes(3, 80, 6, 7);
    const auto s = randomScales(3, 8);
    for (bool legacy : {false, true}) {
        SCOPED_TRACE(legacy);
        const Tensor P = legacy ? packRows(q, [](auto &r) { return ctPackRowLegacy(r, 6); })
                                : packRows(q, [](auto &r) { return ctPackRow(r, 6); });
        EXPECT_EQ(P.dim(1), legacy ? 16 : 15);
        writeSafetensors(file(), {{kMod + ".weight_packed", P},
                                  {kMod + ".weight_scale", bf16({3, 1}, s)},
                                  {kMod + ".weight_shape", i64({3, 80})}});
        for (bool withConfig : {false, true}) {
            std::error_code ec;
            fs::remove(dir / "config.json", ec);
            if (withConfig)
                writeConfig(dir.path(), ctConfig(R"({"num_bits": 6, "type": "int", "symmetric": true,
                    "group_size": null, "strategy": "channel"})"));
            const Checkpoint ck = Checkpoint::open(file());
            const QuantizedModule m = detectQuantized(ck).modules.at(0);
            EXPECT_EQ(m.scheme.bits, 6);
            EXPECT_EQ(m.scheme.packOrder, legacy ? PackOrder::CtLegacy : PackOrder::CtDense);
            EXPECT_EQ(m.scheme.granularity, Granularity::Channel);
            const auto w = decoded(decodeQuantized(ck, m));
            for (int n = 0; n < 3; ++n)
                for (int k = 0; k < 80; ++k)
                    ASSERT_EQ(w[n * 80 + k], bf16ToFloat(floatToBf16(s[n])) * static_cast<float>(q[n][k]));
        }
    }
}

TEST_F(Quantized, AmbiguousLegacyOrDenseWordCountIsRefused)
{
    // 6 bits, K = 6: dense ceil(36/32) = 2 words and legacy ceil(6/5) = 2 words, and they differ.
    const auto q = randomCodes(2, 6, 6, 3);
    writeSafetensors(file(), {{kMod + ".weight_packed", packRows(q, [](auto &r) { return ctPackRow(r, 6); })},
                              {kMod + ".weight_scale", f32({2, 1}, {1.0f, 1.0f})},
                              {kMod + ".weight_shape", i64({2, 6})}});
    writeConfig(dir.path(), ctConfig(R"({"num_bits": 6, "type": "int", "symmetric": true, "strategy": "channel"})"));
    expectMentions(detectFails(file()), kMod, "ambiguous");
}

TEST_F(Quantized, ThreeBitAsymmetricRaggedGroupsWithPackedZeroPoints)
{
    // N = 5, K = 81, group 32 → 3 groups (the last holds 17 columns). Zero points packed dim 0.
    // (K = 81: 8 words dense, 9 in the 32/b layout; K = 100 would be ambiguous, 10 and 10.)
    const int b = 3;
    const std::int64_t N = 5, K = 81, G = 3;
    const auto q = randomCodes(N, K, b, 11);
    const auto zp = randomCodes(N, G, b, 12); // [N][G]
    const auto s = randomScales(static_cast<std::size_t>(N * G), 13);
    // Packed along dim 0: column g's N zero points form one packed "row", stored as column g.
    std::vector<std::vector<std::uint32_t>> cols;
    for (const auto &col : transpose(zp))
        cols.push_back(ctPackRow(col, b));
    const std::int64_t ZR = static_cast<std::int64_t>(cols[0].size());
    std::vector<std::uint32_t> zwords(static_cast<std::size_t>(ZR * G));
    for (std::int64_t w = 0; w < ZR; ++w)
        for (std::int64_t g = 0; g < G; ++g)
            zwords[static_cast<std::size_t>(w * G + g)] =
                cols[static_cast<std::size_t>(g)][static_cast<std::size_t>(w)];
    writeSafetensors(file(), {{kMod + ".weight_packed", packRows(q, [&](auto &r) { return ctPackRow(r, b); })},
                              {kMod + ".weight_scale", f32({N, G}, s)},
                              {kMod + ".weight_zero_point", i32({ZR, G}, zwords)},
                              {kMod + ".weight_shape", i64({N, K})}});
    writeConfig(dir.path(), ctConfig(R"({"num_bits": 3, "type": "int", "symmetric": false,
        "group_size": 32, "strategy": "group"})"));
    const Checkpoint ck = Checkpoint::open(file());
    const QuantizedModule m = detectQuantized(ck).modules.at(0);
    EXPECT_FALSE(m.scheme.symmetric);
    EXPECT_EQ(m.scheme.text(), "INT3 asym, group 32 along K, c-t packing, F32 scales");
    EXPECT_EQ(ZR, 1); // ceil(5·3/32) words along N
    const auto w = decoded(decodeQuantized(ck, m));
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t k = 0; k < K; ++k) {
            const std::int64_t g = k / 32;
            ASSERT_EQ(w[n * K + k], static_cast<float>(q[n][k] - zp[n][g]) * s[n * G + g]) << n << "," << k;
        }
}

TEST_F(Quantized, OlderUnpackedZeroPointsAreReadToo)
{
    const std::int64_t N = 3, K = 16;
    const auto q = randomCodes(N, K, 4, 61);
    const std::vector<std::int8_t> zp = {-3, 0, 7};
    const std::vector<float> s = {0.5f, 0.25f, 2.0f};
    writeSafetensors(file(), {{kMod + ".weight_packed", packRows(q, [](auto &r) { return ctPackRow(r, 4); })},
                              {kMod + ".weight_scale", f32({N, 1}, s)},
                              {kMod + ".weight_zero_point", make(DType::I8, {N, 1}, zp)},
                              {kMod + ".weight_shape", i64({N, K})}});
    writeConfig(dir.path(), ctConfig(R"({"num_bits": 4, "type": "int", "symmetric": false, "strategy": "channel"})"));
    const Checkpoint ck = Checkpoint::open(file());
    const QuantizedModule m = detectQuantized(ck).modules.at(0);
    EXPECT_FALSE(m.zeroPointPacked);
    const auto w = decoded(decodeQuantized(ck, m));
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t k = 0; k < K; ++k)
            ASSERT_EQ(w[n * K + k], static_cast<float>(q[n][k] - zp[n]) * s[n]);
}

TEST_F(Quantized, ActOrderGIdxPicksTheGroupOfEachColumn)
{
    const std::int64_t N = 2, K = 8;
    const auto q = randomCodes(N, K, 4, 21);
    const std::vector<float> s = {1, 2, 3, 4};
    const std::vector<std::int32_t> gidx = {1, 0, 1, 0, 0, 1, 1, 0};
    writeSafetensors(file(), {{kMod + ".weight_packed", packRows(q, [](auto &r) { return ctPackRow(r, 4); })},
                              {kMod + ".weight_scale", f32({N, 2}, s)},
                              {kMod + ".weight_shape", i64({N, K})},
                              {kMod + ".weight_g_idx", make(DType::I32, {K}, gidx)}});
    writeConfig(dir.path(), ctConfig(R"({"num_bits": 4, "type": "int", "symmetric": true,
        "group_size": 4, "strategy": "group", "actorder": "group"})"));
    const Checkpoint ck = Checkpoint::open(file());
    const QuantizedModule m = detectQuantized(ck).modules.at(0);
    EXPECT_TRUE(m.scheme.actOrder);
    const auto w = decoded(decodeQuantized(ck, m));
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t k = 0; k < K; ++k)
            EXPECT_EQ(w[n * K + k], static_cast<float>(q[n][k]) * s[n * 2 + gidx[k]]);
}

TEST_F(Quantized, OneRowAndZeroSizeModules)
{
    // 1 row, K = 9 (ragged against group 4); and a 0-row, and a 0-column module.
    const auto q = randomCodes(1, 9, 4, 5);
    writeSafetensors(file(), {{"a.weight_packed", packRows(q, [](auto &r) { return ctPackRow(r, 4); })},
                              {"a.weight_scale", f32({1, 3}, {1, 2, 3})},
                              {"a.weight_shape", i64({1, 9})},
                              {"b.weight_packed", i32({0, 2}, {})},
                              {"b.weight_scale", f32({0, 4}, {})},
                              {"b.weight_shape", i64({0, 16})},
                              {"c.weight_packed", i32({3, 0}, {})},
                              {"c.weight_scale", f32({3, 0}, {})},
                              {"c.weight_shape", i64({3, 0})}});
    writeConfig(dir.path(), ctConfig(R"({"num_bits": 4, "type": "int", "symmetric": true,
        "group_size": 4, "strategy": "group"})"));
    const Checkpoint ck = Checkpoint::open(file());
    const Detection det = detectQuantized(ck);
    ASSERT_EQ(det.modules.size(), 3u);
    const auto w = decoded(decodeQuantized(ck, *det.find("a")));
    for (int k = 0; k < 9; ++k)
        EXPECT_EQ(w[k], static_cast<float>(q[0][k]) * static_cast<float>(1 + k / 4));
    EXPECT_EQ(decodeQuantized(ck, *det.find("b")).shape(), (Shape{0, 16}));
    EXPECT_EQ(decodeQuantized(ck, *det.find("c")).shape(), (Shape{3, 0}));
}

TEST_F(Quantized, WithoutConfigTheBitWidthAndGroupComeFromTheShapes)
{
    const auto q = randomCodes(4, 64, 4, 31);
    const auto s = randomScales(8, 32);
    writeSafetensors(file(), {{kMod + ".weight_packed", packRows(q, [](auto &r) { return ctPackRow(r, 4); })},
                              {kMod + ".weight_scale", f32({4, 2}, s)},
                              {kMod + ".weight_shape", i64({4, 64})}});
    const Checkpoint ck = Checkpoint::open(file());
    const QuantizedModule m = detectQuantized(ck).modules.at(0);
    EXPECT_FALSE(m.scheme.fromConfig);
    EXPECT_EQ(m.scheme.bits, 4);
    EXPECT_EQ(m.scheme.groupSize, 32);
    const auto w = decoded(decodeQuantized(ck, m));
    for (int n = 0; n < 4; ++n)
        for (int k = 0; k < 64; ++k)
            ASSERT_EQ(w[n * 64 + k], static_cast<float>(q[n][k]) * s[n * 2 + k / 32]);
}

// ---- naive / float / FP8 block ----------------------------------------------------------------------

TEST_F(Quantized, Int8ChannelAndFp8TensorNaiveFormats)
{
    const std::vector<std::int8_t> qi = {-128, -1, 0, 1, 127, 5};
    std::vector<std::uint8_t> qf;
    const std::vector<float> fv = {448.0f, -0.5f, 0.015625f, 3.0f};
    for (float x : fv)
        qf.push_back(floatToE4m3(x));
    writeSafetensors(file(), {{"i.weight", make(DType::I8, {2, 3}, qi)},
                              {"i.weight_scale", bf16({2, 1}, {0.5f, 0.25f})},
                              {"f.weight", make(DType::F8_E4M3, {2, 2}, qf)},
                              {"f.weight_scale", f32({1}, {0.125f})},
                              {"norm.weight", f32({3}, {1, 1, 1})}});
    const Checkpoint ck = Checkpoint::open(file());
    const Detection det = detectQuantized(ck);
    ASSERT_EQ(det.modules.size(), 2u);
    const QuantizedModule &i = *det.find("i");
    EXPECT_EQ(formatName(i.format), "compressed-tensors/int-quantized");
    EXPECT_EQ(i.scheme.text(), "INT8 sym, per channel, BF16 scales");
    const auto wi = decoded(decodeQuantized(ck, i));
    for (int k = 0; k < 6; ++k)
        EXPECT_EQ(wi[k], static_cast<float>(qi[k]) * (k < 3 ? 0.5f : 0.25f));
    const QuantizedModule &f = *det.find("f");
    EXPECT_EQ(formatName(f.format), "compressed-tensors/float-quantized");
    EXPECT_EQ(f.scheme.granularity, Granularity::Tensor);
    const auto wf = decoded(decodeQuantized(ck, f));
    for (int k = 0; k < 4; ++k)
        EXPECT_EQ(wf[k], fv[k] * 0.125f);
    EXPECT_EQ(det.find("norm"), nullptr);
}

TEST_F(Quantized, CompressedTensorsFp8BlockNeedsItsBlockStructure)
{
    const std::int64_t N = 130, K = 200; // ragged: 2 x 2 blocks of 128
    std::vector<std::uint8_t> q(static_cast<std::size_t>(N * K));
    for (std::size_t i = 0; i < q.size(); ++i)
        q[i] = floatToE4m3(static_cast<float>(static_cast<int>(i % 17) - 8) * 0.25f);
    const std::vector<float> s = {1.0f, 2.0f, 4.0f, 8.0f};
    writeSafetensors(file(),
                     {{kMod + ".weight", make(DType::F8_E4M3, {N, K}, q)}, {kMod + ".weight_scale", f32({2, 2}, s)}});
    expectMentions(detectFails(file()), kMod, "block grid needs its block size from config.json");
    writeConfig(dir.path(), ctConfig(R"({"num_bits": 8, "type": "float", "symmetric": true,
        "strategy": "block", "block_structure": [128, 128]})",
                                     "float-quantized"));
    const Checkpoint ck = Checkpoint::open(file());
    const QuantizedModule m = detectQuantized(ck).modules.at(0);
    EXPECT_EQ(m.scheme.text(), "FP8 E4M3, block 128x128, F32 scales");
    const auto w = decoded(decodeQuantized(ck, m));
    for (std::int64_t n = 0; n < N; n += 7)
        for (std::int64_t k = 0; k < K; k += 3)
            ASSERT_EQ(w[n * K + k], e4m3ToFloat(q[n * K + k]) * s[(n / 128) * 2 + k / 128]);
}

TEST_F(Quantized, DeepSeekFp8BlockReadsTheBlockSizeFromTheConfigOnly)
{
    const std::int64_t N = 3, K = 5;
    std::vector<std::uint8_t> q;
    for (int i = 0; i < N * K; ++i)
        q.push_back(floatToE4m3(static_cast<float>(i) - 7.0f));
    const std::vector<float> sinv = {0.5f, 1.5f, 2.0f, 4.0f, -1.0f, 3.0f};
    writeSafetensors(
        file(), {{kMod + ".weight", make(DType::F8_E4M3, {N, K}, q)}, {kMod + ".weight_scale_inv", f32({3, 2}, sinv)}});
    expectMentions(detectFails(file()), kMod, "no quantization_config.weight_block_size");
    writeConfig(dir.path(), R"({"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
        "weight_block_size": [1, 4]})");
    const Checkpoint ck = Checkpoint::open(file());
    const QuantizedModule m = detectQuantized(ck).modules.at(0);
    EXPECT_EQ(formatName(m.format), "fp8-block");
    EXPECT_EQ(m.scheme.text(), "FP8 E4M3, block 1x4, F32 inverse scales");
    const auto w = decoded(decodeQuantized(ck, m));
    for (int n = 0; n < N; ++n)
        for (int k = 0; k < K; ++k)
            EXPECT_EQ(w[n * K + k], (static_cast<float>(n * K + k) - 7.0f) * sinv[n * 2 + k / 4]);
    // A grid that does not fit the config's blocks.
    writeConfig(dir.path(), R"({"quant_method": "fp8", "weight_block_size": [2, 2]})");
    expectMentions(detectFails(file()), kMod, "need [2, 3]");
}

// ---- Quark W4A8 (ProgressiveSpec) ------------------------------------------------------------------

TEST_F(Quantized, QuarkTwoStageW4A8AsPublished)
{
    const std::int64_t N = 16, K = 24;
    const auto q = randomCodes(N, K, 4, 41);
    const auto s2 = randomScales(N, 42);
    const float s1 = 0.0078125f;
    std::vector<int> z2(N);
    for (int n = 0; n < N; ++n)
        z2[n] = n % 3 - 1;
    writeSafetensors(file(), {{kMod + ".weight", packRows(q, [](auto &r) { return quarkPackRow(r, true); })},
                              {kMod + ".weight_scale", f32({1}, {s1})},
                              {kMod + ".weight_scale_2", f32({N}, s2)},
                              {kMod + ".weight_zero_point_2", i32({2}, quarkPackRow(z2, true))}});
    writeConfig(dir.path(), R"({"quant_method": "quark",
      "global_quant_config": {"weight": [
          {"dtype": "fp8_e4m3", "qscheme": "per_tensor", "is_dynamic": false},
          {"dtype": "int4", "qscheme": "per_channel", "ch_axis": 0, "is_dynamic": false}],
        "input_tensors": {"dtype": "fp8_e4m3", "qscheme": "per_tensor", "is_dynamic": true}},
      "exclude": ["*self_attn*", "*mlp.gate", "*lm_head"],
      "export": {"pack_method": "reorder", "weight_format": "real_quantized"}})");
    const Checkpoint ck = Checkpoint::open(file());
    const QuantizedModule m = detectQuantized(ck).modules.at(0);
    EXPECT_TRUE(m.scheme.twoStage);
    EXPECT_EQ(m.scheme.granularity, Granularity::Channel);
    EXPECT_EQ(m.shape, (Shape{N, K}));
    const auto w = decoded(decodeQuantized(ck, m));
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t k = 0; k < K; ++k)
            ASSERT_EQ(w[n * K + k], s1 * (s2[n] * static_cast<float>(q[n][k] - z2[n])));
    // A scalar (0-rank) s1 is accepted too; no config: reorder assumed and said so.
    std::error_code ec;
    fs::remove(dir / "config.json", ec);
    writeSafetensors(file(), {{kMod + ".weight", packRows(q, [](auto &r) { return quarkPackRow(r, true); })},
                              {kMod + ".weight_scale", f32({}, {s1})},
                              {kMod + ".weight_scale_2", f32({N}, s2)}});
    const Checkpoint ck2 = Checkpoint::open(file());
    const QuantizedModule m2 = detectQuantized(ck2).modules.at(0);
    EXPECT_TRUE(m2.scheme.packOrderAssumed);
    EXPECT_NE(m2.scheme.text().find("assumed"), std::string::npos);
    const auto w2 = decoded(decodeQuantized(ck2, m2));
    EXPECT_EQ(w2[5], s1 * (s2[0] * static_cast<float>(q[0][5])));
}

// ---- bad companions ---------------------------------------------------------------------------------

TEST_F(Quantized, ScaleGridThatDoesNotFitIsRefusedWithWhatWouldHaveBeenBroadcast)
{
    const auto q = randomCodes(4, 128, 4, 51);
    writeSafetensors(file(), {{kMod + ".weight_packed", packRows(q, [](auto &r) { return ctPackRow(r, 4); })},
                              {kMod + ".weight_scale", f32({4, 2}, std::vector<float>(8, 1.0f))},
                              {kMod + ".weight_shape", i64({4, 128})}});
    writeConfig(dir.path(), ctConfig(R"({"num_bits": 4, "type": "int", "symmetric": true,
        "group_size": 32, "strategy": "group"})"));
    const FormatError e = detectFails(file());
    expectMentions(e, kMod, "weight_scale has shape [4, 2], but group 32 along K = 128");
    expectMentions(e, kMod, "needs [4, 4]");
    expectMentions(e, kMod, "each scale to 64 columns instead of 32");
}

TEST_F(Quantized, WeightShapeThatLiesIsRefused)
{
    const auto q = randomCodes(4, 64, 4, 52);
    writeSafetensors(file(), {{kMod + ".weight_packed", packRows(q, [](auto &r) { return ctPackRow(r, 4); })},
                              {kMod + ".weight_scale", f32({4, 1}, std::vector<float>(4, 1.0f))},
                              {kMod + ".weight_shape", i64({4, 100})}});
    writeConfig(dir.path(), ctConfig(R"({"num_bits": 4, "type": "int", "symmetric": true, "strategy": "channel"})"));
    expectMentions(detectFails(file()), kMod, "weight_shape [4, 100] lies or the pack layout is unknown");
    writeSafetensors(file(), {{kMod + ".weight_packed", packRows(q, [](auto &r) { return ctPackRow(r, 4); })},
                              {kMod + ".weight_scale", f32({4, 1}, std::vector<float>(4, 1.0f))},
                              {kMod + ".weight_shape", i64({5, 64})}});
    expectMentions(detectFails(file()), kMod, "weight_shape [5, 64] lies");
    // A K so large that K·bits overflows (the fuzz finding of docs/reliability.md; UBSan reported
    // the overflow before the fix): refused as a lie, with and without the config's num_bits.
    const std::int64_t huge = 3963167672086036512;
    writeSafetensors(file(), {{kMod + ".weight_packed", packRows(q, [](auto &r) { return ctPackRow(r, 4); })},
                              {kMod + ".weight_scale", f32({4, 1}, std::vector<float>(4, 1.0f))},
                              {kMod + ".weight_shape", i64({4, huge})}});
    expectMentions(detectFails(file()), kMod, "K = 3963167672086036512 codes cannot fit in the 8 I32 words");
    fs::remove(dir.path() / "config.json");
    expectMentions(detectFails(file()), kMod, "cannot fit in the 8 I32 words of each row");
}

TEST_F(Quantized, MissingScaleOrZeroPointIsRefused)
{
    const auto q = randomCodes(4, 64, 4, 53);
    const Tensor P = packRows(q, [](auto &r) { return ctPackRow(r, 4); });
    writeSafetensors(file(), {{kMod + ".weight_packed", P}, {kMod + ".weight_shape", i64({4, 64})}});
    expectMentions(detectFails(file()), kMod, "without weight_scale");
    writeSafetensors(file(), {{kMod + ".weight_packed", P},
                              {kMod + ".weight_scale", f32({4, 1}, std::vector<float>(4, 1.0f))},
                              {kMod + ".weight_shape", i64({4, 64})}});
    writeConfig(dir.path(), ctConfig(R"({"num_bits": 4, "type": "int", "symmetric": false, "strategy": "channel"})"));
    expectMentions(detectFails(file()), kMod, "weight_zero_point is missing");
}

TEST_F(Quantized, UnknownPackLayoutIsRefused)
{
    writeSafetensors(file(), {{kMod + ".weight", i32({1, 1}, {0u})}, {kMod + ".weight_scale", f32({1}, {1.0f})}});
    writeConfig(dir.path(), R"({"quant_method": "quark", "global_quant_config": {"weight":
        {"dtype": "int4", "qscheme": "per_channel"}}, "export": {"pack_method": "zigzag"}})");
    expectMentions(detectFails(file()), kMod, "unknown pack layout: export.pack_method 'zigzag'");
    // A packed I32 with a word count no layout explains.
    writeSafetensors(file(), {{kMod + ".weight_packed", i32({1, 3}, {0u, 0u, 0u})},
                              {kMod + ".weight_scale", f32({1, 1}, {1.0f})},
                              {kMod + ".weight_shape", i64({1, 8})}});
    writeConfig(dir.path(), ctConfig(R"({"num_bits": 4, "type": "int", "symmetric": true, "strategy": "channel"})"));
    expectMentions(detectFails(file()), kMod, "pack layout is unknown");
}

TEST_F(Quantized, NanInfAndZeroScalesLoadAndAreCounted)
{
    const auto q = randomCodes(4, 8, 4, 54);
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    writeSafetensors(file(), {{kMod + ".weight_packed", packRows(q, [](auto &r) { return ctPackRow(r, 4); })},
                              {kMod + ".weight_scale", f32({4, 1}, {nan, inf, 0.0f, 1.0f})},
                              {kMod + ".weight_shape", i64({4, 8})}});
    writeConfig(dir.path(), ctConfig(R"({"num_bits": 4, "type": "int", "symmetric": true, "strategy": "channel"})"));
    const Checkpoint ck = Checkpoint::open(file());
    const QuantizedModule m = detectQuantized(ck).modules.at(0);
    EXPECT_EQ(m.scaleHealth.nan, 1);
    EXPECT_EQ(m.scaleHealth.inf, 1);
    EXPECT_EQ(m.scaleHealth.zero, 1);
    const auto w = decoded(decodeQuantized(ck, m));
    EXPECT_TRUE(std::isnan(w[0]));
}

TEST_F(Quantized, ConfigContradictingTheTensorsIsRefusedAndNonStrictModeCollects)
{
    const auto q = randomCodes(2, 16, 4, 55);
    writeSafetensors(file(), {{kMod + ".weight_packed", packRows(q, [](auto &r) { return ctPackRow(r, 4); })},
                              {kMod + ".weight_scale", f32({2, 1}, {1.0f, 1.0f})},
                              {kMod + ".weight_shape", i64({2, 16})},
                              {"other.weight", f32({2}, {1, 2})}});
    writeConfig(dir.path(), ctConfig(R"({"num_bits": 4, "type": "int", "symmetric": true,
        "group_size": 8, "strategy": "group"})"));
    expectMentions(detectFails(file()), kMod, "group 8 along K = 16");
    const Checkpoint ck = Checkpoint::open(file());
    DetectOptions lax;
    lax.strict = false;
    const Detection det = detectQuantized(ck, lax);
    EXPECT_TRUE(det.modules.empty());
    ASSERT_EQ(det.problems.size(), 1u);
    EXPECT_NE(det.problems[0].message.find(kMod), std::string::npos);
    EXPECT_EQ(det.problems[0].module, kMod);
    EXPECT_EQ(det.problem(kMod + ".weight_packed"), &det.problems[0]);
    EXPECT_EQ(det.problem(kMod + ".weight"), &det.problems[0]);
    EXPECT_EQ(det.problem("other.weight"), nullptr);
}

TEST(Fnmatch, QuarkPatterns)
{
    EXPECT_TRUE(fnmatchName("*mlp.up_proj", "model.layers.0.mlp.up_proj"));
    EXPECT_FALSE(fnmatchName("*mlp.up_proj", "model.layers.1.mlp.experts.42.up_proj"));
    EXPECT_TRUE(fnmatchName("*self_attn*", "model.layers.3.self_attn.q_proj"));
    EXPECT_TRUE(fnmatchName("layer.?.x", "layer.7.x"));
    EXPECT_TRUE(fnmatchName("l[0-2].x", "l1.x"));
    EXPECT_FALSE(fnmatchName("l[!0-2].x", "l1.x"));
}
