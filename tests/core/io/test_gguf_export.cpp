// SPDX-License-Identifier: MIT
// GGUF export: llama-quantize's per-tensor mix (ggml_mix.h), the importance-matrix readers and the
// writer's all-or-nothing contract (export/gguf_export.h). Byte identity with llama-quantize's own
// output is checked by tests/cli/gguf_export_reference.py against goldens it wrote.
#include "engine/job.h"
#include "export/gguf_export.h"
#include "ggml/ggml_mix.h"
#include "ggml/ggml_quantize.h"
#include "ggml/ggml_types.h"
#include "io/checkpoint.h"
#include "io/gguf.h"
#include "recipe/recipe.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace quantscope;
using ggml::Type;
namespace fs = std::filesystem;

namespace {

fs::path tempDir()
{
    const fs::path d = fs::temp_directory_path() / ("qs_gguf_export_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
}

/// A llama model's tensor list: `layers` blocks, hidden `h`, FFN `ff`, GQA KV width `kv`.
std::vector<ggml::MixTensor> llamaTensors(int layers, std::uint64_t h, std::uint64_t ff, std::uint64_t kv, bool output)
{
    std::vector<ggml::MixTensor> t;
    t.push_back({"token_embd.weight", {h, 1000}, Type::F16});
    for (int i = 0; i < layers; ++i) {
        const std::string b = "blk." + std::to_string(i) + ".";
        t.push_back({b + "attn_norm.weight", {h}, Type::F32});
        t.push_back({b + "attn_q.weight", {h, h}, Type::F16});
        t.push_back({b + "attn_k.weight", {h, kv}, Type::F16});
        t.push_back({b + "attn_v.weight", {h, kv}, Type::F16});
        t.push_back({b + "attn_output.weight", {h, h}, Type::F16});
        t.push_back({b + "ffn_gate.weight", {h, ff}, Type::F16});
        t.push_back({b + "ffn_up.weight", {h, ff}, Type::F16});
        t.push_back({b + "ffn_down.weight", {ff, h}, Type::F16});
        t.push_back({b + "ffn_norm.weight", {h}, Type::F32});
    }
    t.push_back({"output_norm.weight", {h}, Type::F32});
    if (output)
        t.push_back({"output.weight", {h, 1000}, Type::F16});
    return t;
}

ggml::MixModel llamaModel(int layers, bool output)
{
    ggml::MixModel m;
    m.arch = "llama";
    m.layers = layers;
    m.heads = 32;
    m.headsKv = 8;
    m.hasOutput = output;
    m.attentionV = layers;
    return m;
}

Type typeOf(const std::vector<ggml::MixChoice> &c, const std::string &name)
{
    for (const auto &x : c)
        if (x.name == name)
            return x.type;
    ADD_FAILURE() << "no choice for " << name;
    return Type::F32;
}

// ---- GGUF files for the export ----------------------------------------------------------------

struct W {
    std::string b;
    template <typename T> W &put(T v)
    {
        b.append(reinterpret_cast<const char *>(&v), sizeof(T));
        return *this;
    }
    W &str(const std::string &s)
    {
        put<std::uint64_t>(s.size());
        b += s;
        return *this;
    }
};

struct SrcTensor {
    std::string name;
    std::vector<std::uint64_t> ne;
    std::vector<float> values; ///< F32
};

/// A v3 GGUF (arch llama, 2 layers' hyperparameters) with F32 tensors.
fs::path writeSource(const std::vector<SrcTensor> &ts, const std::string &file)
{
    W o;
    o.b = "GGUF";
    o.put<std::uint32_t>(3).put<std::uint64_t>(ts.size()).put<std::uint64_t>(4);
    o.str("general.architecture").put<std::uint32_t>(8).str("llama");
    o.str("llama.block_count").put<std::uint32_t>(4).put<std::uint32_t>(2);
    o.str("llama.attention.head_count").put<std::uint32_t>(4).put<std::uint32_t>(4);
    o.str("tokenizer.ggml.tokens").put<std::uint32_t>(9).put<std::uint32_t>(8).put<std::uint64_t>(2).str("a").str("b");
    std::uint64_t off = 0;
    for (const auto &t : ts) {
        o.str(t.name).put<std::uint32_t>(static_cast<std::uint32_t>(t.ne.size()));
        for (auto n : t.ne)
            o.put<std::uint64_t>(n);
        o.put<std::uint32_t>(0).put<std::uint64_t>(off);
        off += (t.values.size() * 4 + 31) / 32 * 32;
    }
    while (o.b.size() % 32)
        o.b += '\0';
    for (const auto &t : ts) {
        o.b.append(reinterpret_cast<const char *>(t.values.data()), t.values.size() * 4);
        while (o.b.size() % 32)
            o.b += '\0';
    }
    const fs::path p = tempDir() / file;
    std::ofstream(p, std::ios::binary).write(o.b.data(), static_cast<std::streamsize>(o.b.size()));
    return p;
}

std::vector<float> heavy(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::student_t_distribution<float> t(4.0f);
    std::vector<float> v(n);
    for (auto &x : v)
        x = 0.02f * t(rng);
    return v;
}

fs::path smallModel()
{
    std::vector<SrcTensor> ts;
    for (int i = 0; i < 2; ++i) {
        const std::string b = "blk." + std::to_string(i) + ".";
        ts.push_back({b + "attn_norm.weight", {256}, std::vector<float>(256, 1.0f)});
        ts.push_back({b + "attn_v.weight", {256, 8}, heavy(256 * 8, 10 + i)});
        ts.push_back({b + "ffn_down.weight", {256, 4}, heavy(256 * 4, 20 + i)});
        ts.push_back({b + "attn_q.weight", {288, 4}, heavy(288 * 4, 30 + i)}); // 288: not a super-block
    }
    return writeSource(ts, "model.gguf");
}

} // namespace

TEST(GgufMix, Q4KMGivesLlamaCppsChoicePerTensor)
{
    const auto tensors = llamaTensors(32, 4096, 14336, 1024, true);
    ggml::MixOptions o;
    const auto c = ggml::chooseTypes(llamaModel(32, true), tensors, o);
    ASSERT_EQ(c.size(), tensors.size());
    // use_more_bits(i, 32): i < 4, i ≥ 28, (i − 4) % 3 == 2.
    const std::set<int> more = {0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31};
    for (int i = 0; i < 32; ++i) {
        const std::string b = "blk." + std::to_string(i) + ".";
        SCOPED_TRACE(b);
        const Type want = more.count(i) ? Type::Q6_K : Type::Q4_K;
        EXPECT_EQ(typeOf(c, b + "attn_v.weight"), want);
        EXPECT_EQ(typeOf(c, b + "ffn_down.weight"), want);
        EXPECT_EQ(typeOf(c, b + "attn_q.weight"), Type::Q4_K);
        EXPECT_EQ(typeOf(c, b + "ffn_up.weight"), Type::Q4_K);
        EXPECT_EQ(typeOf(c, b + "attn_norm.weight"), Type::F32);
    }
    EXPECT_EQ(typeOf(c, "output.weight"), Type::Q6_K);
    EXPECT_EQ(typeOf(c, "token_embd.weight"), Type::Q4_K);
    // llama-quantize's order: non-block tensors first (by name), then blk.0 … blk.31 (by layer).
    EXPECT_EQ(c.front().name, "output.weight");
    std::vector<std::string> blocks;
    for (const auto &x : c)
        if (x.name.ends_with("attn_q.weight"))
            blocks.push_back(x.name);
    EXPECT_EQ(blocks[10], "blk.10.attn_q.weight");
    EXPECT_EQ(c[c.size() - 1].name, "blk.31.ffn_up.weight");
}

TEST(GgufMix, TiedEmbeddingFallbacksOverridesAndPure)
{
    // SmolLM2-135M's shapes: hidden 576 is not a whole super-block of 256.
    auto tensors = llamaTensors(30, 576, 1536, 192, false);
    ggml::MixOptions o;
    auto c = ggml::chooseTypes(llamaModel(30, false), tensors, o);
    EXPECT_EQ(typeOf(c, "token_embd.weight"), Type::Q8_0);     // tied: the output's rule, rows not whole blocks
    EXPECT_EQ(typeOf(c, "blk.5.attn_q.weight"), Type::Q5_0);   // Q4_K → Q5_0
    EXPECT_EQ(typeOf(c, "blk.0.attn_v.weight"), Type::Q8_0);   // Q6_K → Q8_0
    EXPECT_EQ(typeOf(c, "blk.0.ffn_down.weight"), Type::Q6_K); // 1536 = 6 · 256
    EXPECT_EQ(typeOf(c, "blk.4.ffn_down.weight"), Type::Q4_K);

    // --tensor-type: the first match wins and replaces the mix; the fallback still applies.
    o.tensorTypes = {{"blk\\.4\\.ffn_down", Type::Q5_K}, {"ffn_down", Type::Q8_0}, {"attn_q", Type::Q4_K}};
    c = ggml::chooseTypes(llamaModel(30, false), tensors, o);
    EXPECT_EQ(typeOf(c, "blk.4.ffn_down.weight"), Type::Q5_K);
    EXPECT_EQ(typeOf(c, "blk.0.ffn_down.weight"), Type::Q8_0); // the pattern, not use_more_bits' Q6_K
    EXPECT_EQ(typeOf(c, "blk.5.attn_q.weight"), Type::Q5_0);   // Q4_K asked, 576 columns: Q5_0

    // --pure: the default type everywhere, the fallback still applied.
    ggml::MixOptions pure;
    pure.pure = true;
    c = ggml::chooseTypes(llamaModel(30, false), tensors, pure);
    EXPECT_EQ(typeOf(c, "blk.0.attn_v.weight"), Type::Q5_0);
    EXPECT_EQ(typeOf(c, "blk.0.ffn_down.weight"), Type::Q4_K);
    EXPECT_EQ(typeOf(c, "token_embd.weight"), Type::Q5_0);

    // Q2_K on 576-wide rows falls back to Q4_0; Q2_K_S needs an importance matrix.
    ggml::MixOptions q2;
    q2.fileType = ggml::FileType::Q2_K;
    c = ggml::chooseTypes(llamaModel(30, false), tensors, q2);
    EXPECT_EQ(typeOf(c, "blk.3.attn_q.weight"), Type::Q4_0);
    EXPECT_EQ(typeOf(c, "blk.3.ffn_down.weight"), Type::Q3_K);
    q2.fileType = ggml::FileType::Q2_K_S;
    auto wide = llamaTensors(8, 4096, 14336, 1024, true);
    EXPECT_THROW((void)ggml::chooseTypes(llamaModel(8, true), wide, q2), UnsupportedError);
    q2.haveImatrix = true;
    EXPECT_NO_THROW((void)ggml::chooseTypes(llamaModel(8, true), wide, q2));
    std::string why;
    EXPECT_FALSE(ggml::fileTypeFromName("TQ1_0", &why));
    EXPECT_NE(why.find("ternary"), std::string::npos);
    EXPECT_EQ(ggml::fileTypeFromName("iq4_xs"), ggml::FileType::IQ4_XS);
    EXPECT_EQ(ggml::fileTypeFromName("q4_k_m"), ggml::FileType::Q4_K_M);
}

TEST(GgufMix, IQuantRulesOnAGqa4Llama)
{
    // llama-quant.cpp's i-quant rules where the byte-identity goldens (GQA 2, 8 layers) do not
    // reach: GQA 4 (32 heads, 8 KV heads), 32 layers, untied output.
    const auto tensors = llamaTensors(32, 4096, 14336, 1024, true);
    const auto model = llamaModel(32, true);
    ggml::MixOptions o;
    o.fileType = ggml::FileType::IQ4_XS;
    auto c = ggml::chooseTypes(model, tensors, o);
    EXPECT_EQ(typeOf(c, "blk.0.attn_v.weight"), Type::Q5_K);   // IQ4_* with GQA ≥ 4
    EXPECT_EQ(typeOf(c, "blk.3.ffn_down.weight"), Type::Q5_K); // first eighth, no imatrix
    EXPECT_EQ(typeOf(c, "blk.4.ffn_down.weight"), Type::IQ4_XS);
    EXPECT_EQ(typeOf(c, "output.weight"), Type::Q6_K);
    o.haveImatrix = true;
    c = ggml::chooseTypes(model, tensors, o);
    EXPECT_EQ(typeOf(c, "blk.3.ffn_down.weight"), Type::IQ4_XS); // with an imatrix: no promotion
    o.fileType = ggml::FileType::IQ2_XXS;
    c = ggml::chooseTypes(model, tensors, o);
    EXPECT_EQ(typeOf(c, "blk.0.attn_v.weight"), Type::Q4_K); // GQA ≥ 4
    EXPECT_EQ(typeOf(c, "blk.3.ffn_down.weight"), Type::Q2_K);
    EXPECT_EQ(typeOf(c, "blk.4.ffn_down.weight"), Type::IQ2_XXS);
    EXPECT_EQ(typeOf(c, "token_embd.weight"), Type::Q2_K);
    EXPECT_EQ(typeOf(c, "output.weight"), Type::Q5_K);
    EXPECT_TRUE(std::any_of(c.begin(), c.end(), [](const auto &x) { return x.requiresImatrix; }));
    o.fileType = ggml::FileType::IQ3_XS;
    c = ggml::chooseTypes(model, tensors, o);
    EXPECT_EQ(typeOf(c, "blk.3.ffn_gate.weight"), Type::IQ3_S);   // outside the middle
    EXPECT_EQ(typeOf(c, "blk.4.ffn_gate.weight"), Type::IQ3_XXS); // n/8 ≤ i < 7n/8
    EXPECT_EQ(typeOf(c, "blk.28.ffn_up.weight"), Type::IQ3_S);
    EXPECT_EQ(typeOf(c, "blk.0.attn_v.weight"), Type::Q4_K);
    o.fileType = ggml::FileType::IQ1_S;
    c = ggml::chooseTypes(model, tensors, o);
    EXPECT_EQ(typeOf(c, "blk.5.attn_output.weight"), Type::IQ2_XXS);
    // Without an imatrix, the mixes with lattice types are refused naming the tensor.
    o.haveImatrix = false;
    for (const auto f : {ggml::FileType::IQ1_S, ggml::FileType::IQ2_M, ggml::FileType::IQ3_XXS}) {
        o.fileType = f;
        try {
            (void)ggml::chooseTypes(model, tensors, o);
            ADD_FAILURE() << ggml::fileTypeName(f);
        } catch (const UnsupportedError &e) {
            EXPECT_NE(std::string(e.what()).find("importance matrix"), std::string::npos) << e.what();
        }
    }
    // Rows that are not whole super-blocks: the i-quants fall back to IQ4_NL.
    auto narrow = llamaTensors(8, 4096, 14336 + 32, 1024, true);
    o.fileType = ggml::FileType::IQ3_S;
    c = ggml::chooseTypes(llamaModel(8, true), narrow, o);
    EXPECT_EQ(typeOf(c, "blk.5.ffn_down.weight"), Type::IQ4_NL);
}

TEST(GgufMix, Q3KMAndQ4KSRulesOfAttnV)
{
    const auto tensors = llamaTensors(8, 4096, 14336, 1024, true);
    ggml::MixOptions o;
    o.fileType = ggml::FileType::Q3_K_M;
    auto c = ggml::chooseTypes(llamaModel(8, true), tensors, o);
    EXPECT_EQ(typeOf(c, "blk.0.attn_v.weight"), Type::Q5_K);
    EXPECT_EQ(typeOf(c, "blk.1.attn_v.weight"), Type::Q5_K);
    EXPECT_EQ(typeOf(c, "blk.2.attn_v.weight"), Type::Q4_K);
    EXPECT_EQ(typeOf(c, "blk.3.attn_output.weight"), Type::Q4_K);
    EXPECT_EQ(typeOf(c, "blk.3.attn_q.weight"), Type::Q3_K);
    o.fileType = ggml::FileType::Q4_K_S;
    c = ggml::chooseTypes(llamaModel(8, true), tensors, o);
    EXPECT_EQ(typeOf(c, "blk.3.attn_v.weight"), Type::Q5_K);
    EXPECT_EQ(typeOf(c, "blk.4.attn_v.weight"), Type::Q4_K);
    EXPECT_EQ(typeOf(c, "blk.0.ffn_down.weight"), Type::Q5_K); // i < n/8 = 1
    EXPECT_EQ(typeOf(c, "blk.1.ffn_down.weight"), Type::Q4_K);
}

TEST(GgufExport, WritesLlamaCppBlocksAndKeepsMetadata)
{
    const fs::path src = smallModel();
    const fs::path out = tempDir() / "out-q4km.gguf";
    fs::remove(out);
    GgufExportOptions o; // Q4_K_M
    const GgufExportResult r = exportGguf(src, out, o);
    ASSERT_TRUE(fs::exists(out));
    EXPECT_FALSE(fs::exists(out.string() + ".partial"));
    const GgufFile in = GgufFile::open(src), back = GgufFile::open(out);
    EXPECT_EQ(back.architecture(), "llama");
    ASSERT_NE(back.find("tokenizer.ggml.tokens"), nullptr);
    EXPECT_EQ(back.find("tokenizer.ggml.tokens")->value, nlohmann::json::array({"a", "b"}));
    ASSERT_NE(back.find("general.file_type"), nullptr);
    EXPECT_EQ(back.find("general.file_type")->value.get<int>(), 15);
    EXPECT_EQ(back.find("general.quantization_version")->value.get<int>(), 2);
    ASSERT_EQ(back.tensors().size(), in.tensors().size());
    EXPECT_EQ(back.tensors()[0].name, "blk.0.attn_norm.weight");
    EXPECT_EQ(back.tensorInfo("blk.0.attn_v.weight")->type, Type::Q4_K); // use_more_bits(0, 2) is false
    EXPECT_EQ(back.tensorInfo("blk.1.attn_v.weight")->type, Type::Q6_K); // i ≥ 7·2/8
    EXPECT_EQ(back.tensorInfo("blk.0.attn_q.weight")->type, Type::Q5_0); // 288 columns: the fallback
    EXPECT_EQ(back.tensorInfo("blk.0.attn_norm.weight")->type, Type::F32);
    // Every stored block equals the ggml quantizer's on the source values.
    for (const auto &t : in.tensors()) {
        SCOPED_TRACE(t.name);
        const Type to = back.tensorInfo(t.name)->type;
        const Tensor raw = back.rawBytes(t.name);
        const Tensor x = in.tensor(t.name);
        std::vector<float> v(static_cast<std::size_t>(x.numel()));
        x.decodeTo(v);
        if (to == Type::F32) {
            ASSERT_EQ(std::memcmp(raw.data(), v.data(), v.size() * 4), 0);
            continue;
        }
        const auto want =
            ggml::quantizeRows(to, v.data(), static_cast<std::int64_t>(t.ne[1]), static_cast<std::int64_t>(t.ne[0]));
        ASSERT_EQ(static_cast<std::size_t>(raw.numel()), want.size());
        EXPECT_EQ(std::memcmp(raw.data(), want.data(), want.size()), 0);
    }
    bool sawError = false;
    for (const auto &t : r.tensors)
        if (t.quantized) {
            EXPECT_GT(t.relErr, 0.0) << t.name;
            EXPECT_LT(t.relErr, 0.05) << t.name;
            sawError = true;
        }
    EXPECT_TRUE(sawError);
    // An existing OUT is never overwritten.
    EXPECT_THROW((void)exportGguf(src, out, o), IoError);
}

TEST(GgufExport, RefusalsLeaveNoFile)
{
    const fs::path src = smallModel();
    const fs::path out = tempDir() / "refused.gguf";
    fs::remove(out);
    GgufExportOptions o;
    o.mix.fileType = ggml::FileType::Q2_K_S; // llama.cpp requires an importance matrix for it
    EXPECT_THROW((void)exportGguf(src, out, o), UnsupportedError);
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(out.string() + ".partial"));

    // A block-typed source needs --allow-requantize.
    GgufExportOptions q8;
    q8.mix.fileType = ggml::FileType::Q8_0;
    const fs::path mid = tempDir() / "mid-q8.gguf";
    fs::remove(mid);
    (void)exportGguf(src, mid, q8);
    GgufExportOptions again;
    again.mix.fileType = ggml::FileType::Q4_0;
    try {
        (void)exportGguf(mid, out, again);
        FAIL() << "requantized without --allow-requantize";
    } catch (const UnsupportedError &e) {
        EXPECT_NE(std::string(e.what()).find("--allow-requantize"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("blk.0."), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(out));
    again.allowRequantize = true;
    EXPECT_NO_THROW((void)exportGguf(mid, out, again));
    EXPECT_TRUE(fs::exists(out));
}

namespace {

std::string imatrixDat(const std::vector<std::pair<std::string, std::vector<float>>> &entries, int ncall)
{
    W o;
    o.put<std::int32_t>(static_cast<std::int32_t>(entries.size()));
    for (const auto &[name, v] : entries) {
        o.put<std::int32_t>(static_cast<std::int32_t>(name.size()));
        o.b += name;
        o.put<std::int32_t>(ncall).put<std::int32_t>(static_cast<std::int32_t>(v.size()));
        o.b.append(reinterpret_cast<const char *>(v.data()), v.size() * 4);
    }
    o.put<std::int32_t>(ncall).put<std::int32_t>(4);
    o.b += "wiki";
    return o.b;
}

fs::path writeBytes(const std::string &b, const std::string &name)
{
    const fs::path p = tempDir() / name;
    std::ofstream(p, std::ios::binary).write(b.data(), static_cast<std::streamsize>(b.size()));
    return p;
}

} // namespace

TEST(GgufImatrix, LegacyFileAndEveryLie)
{
    const GgufFile model = GgufFile::open(smallModel());
    std::vector<float> w(256);
    for (std::size_t i = 0; i < w.size(); ++i)
        w[i] = 4.0f * static_cast<float>(i + 1);
    const std::string good = imatrixDat({{"blk.0.attn_v.weight", w}, {"blk.1.attn_v.weight", w}}, 4);
    const Imatrix im = loadImatrix(writeBytes(good, "good.dat"), model);
    ASSERT_EQ(im.weights.size(), 2u);
    EXPECT_EQ(im.weights.at("blk.0.attn_v.weight")[9], 10.0f); // values / ncall

    const auto refused = [&](const std::string &bytes, const std::string &needle) {
        const fs::path p = writeBytes(bytes, "lie.dat");
        try {
            (void)loadImatrix(p, model);
            ADD_FAILURE() << "accepted: " << needle;
        } catch (const FormatError &e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
        }
    };
    refused(good.substr(0, 2), "entry count");
    refused(imatrixDat({}, 1), "entry count is 0");
    std::string longName = good;
    const std::int32_t huge = 1 << 30;
    std::memcpy(longName.data() + 4, &huge, 4);
    refused(longName, "name length");
    refused(good.substr(0, 4 + 4 + 19 + 8 + 100), "values");
    std::vector<float> bad = w;
    bad[3] = std::nanf("");
    refused(imatrixDat({{"blk.0.attn_v.weight", bad}}, 1), "not finite");
    refused(imatrixDat({{"blk.0.attn_v.weight", w}, {"blk.0.attn_v.weight", w}}, 1), "twice");
    refused(imatrixDat({{std::string("bad\xff", 4), w}}, 1), "UTF-8");
}

TEST(GgufImatrix, WeightsReachTheKQuantsAndLegacyTypesAreRefused)
{
    const fs::path src = smallModel();
    const GgufFile model = GgufFile::open(src);
    std::vector<float> w(256);
    std::mt19937 rng(7);
    for (auto &x : w)
        x = std::uniform_real_distribution<float>(0.1f, 9.0f)(rng);
    const fs::path dat = writeBytes(imatrixDat({{"blk.0.attn_v.weight", w}}, 1), "weights.dat");
    const fs::path out = tempDir() / "imatrix-q4km.gguf";
    fs::remove(out);
    GgufExportOptions o;
    o.imatrix = dat;
    const GgufExportResult r = exportGguf(src, out, o);
    const GgufFile back = GgufFile::open(out);
    ASSERT_NE(back.find("quantize.imatrix.entries_count"), nullptr);
    const Tensor raw = back.rawBytes("blk.0.attn_v.weight");
    const Tensor x = model.tensor("blk.0.attn_v.weight");
    std::vector<float> v(static_cast<std::size_t>(x.numel()));
    x.decodeTo(v);
    const auto weighted = ggml::quantizeRows(Type::Q4_K, v.data(), 8, 256, w.data());
    const auto plain = ggml::quantizeRows(Type::Q4_K, v.data(), 8, 256);
    EXPECT_EQ(std::memcmp(raw.data(), weighted.data(), weighted.size()), 0);
    EXPECT_NE(std::memcmp(weighted.data(), plain.data(), plain.size()), 0); // the weights mattered
    for (const auto &t : r.tensors)
        EXPECT_EQ(t.imatrix, t.name == "blk.0.attn_v.weight") << t.name;

    // Importance weights for a tensor that becomes Q5_0: llama.cpp's weighted legacy quantizer
    // is not built, so the export refuses rather than write other codes.
    std::vector<float> w288(288, 1.0f);
    const fs::path dat2 = writeBytes(imatrixDat({{"blk.0.attn_q.weight", w288}}, 1), "legacy.dat");
    GgufExportOptions o2;
    o2.imatrix = dat2;
    const fs::path out2 = tempDir() / "refused-imatrix.gguf";
    fs::remove(out2);
    try {
        (void)exportGguf(src, out2, o2);
        FAIL() << "accepted importance weights for Q5_0";
    } catch (const UnsupportedError &e) {
        EXPECT_NE(std::string(e.what()).find("blk.0.attn_q.weight"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(out2));
    // Weights of the wrong length name both counts.
    const fs::path dat3 =
        writeBytes(imatrixDat({{"blk.0.attn_v.weight", std::vector<float>(100, 1.0f)}}, 1), "short.dat");
    GgufExportOptions o3;
    o3.imatrix = dat3;
    try {
        (void)planGgufExport(src, o3);
        FAIL() << "accepted 100 weights for 256 columns";
    } catch (const UnsupportedError &e) {
        EXPECT_NE(std::string(e.what()).find("100"), std::string::npos) << e.what();
    }
}

TEST(GgufImatrix, QuantizeWithTheImatrixGivesTheExportsBytes)
{
    // `quantize --method gguf --type q4_k --imatrix FILE` and `export-gguf --imatrix FILE` weight
    // the same tensor with the same entry: the same blocks, and Ŵ is their decode.
    const fs::path src = smallModel();
    std::vector<float> w(256);
    std::mt19937 rng(11);
    for (auto &x : w)
        x = std::uniform_real_distribution<float>(0.1f, 9.0f)(rng);
    const fs::path dat = writeBytes(imatrixDat({{"blk.0.attn_v.weight", w}}, 3), "same-bytes.dat");
    const fs::path out = tempDir() / "same-bytes.gguf";
    fs::remove(out);
    GgufExportOptions o; // Q4_K_M: blk.0.attn_v.weight becomes Q4_K
    o.imatrix = dat;
    (void)exportGguf(src, out, o);
    const GgufFile back = GgufFile::open(out);
    ASSERT_EQ(back.tensorInfo("blk.0.attn_v.weight")->type, Type::Q4_K);
    const Tensor raw = back.rawBytes("blk.0.attn_v.weight");

    const auto ck = std::make_shared<const Checkpoint>(Checkpoint::open(src));
    const Imatrix im = loadImatrix(dat);
    for (const std::string name : {"blk.0.attn_v.weight", "model.layers.0.self_attn.v_proj.weight"}) {
        SCOPED_TRACE(name);
        const std::vector<float> iw = importanceOf(im, *ck, name, 256);
        const Tensor x = ck->tensor(name);
        std::vector<float> v(static_cast<std::size_t>(x.numel()));
        x.decodeTo(v);
        const auto blocks = ggml::quantizeRows(Type::Q4_K, v.data(), 8, 256, iw.data());
        ASSERT_EQ(blocks.size(), raw.nbytes());
        EXPECT_EQ(std::memcmp(blocks.data(), raw.data(), blocks.size()), 0);
        // Through the engine's job, as quantize runs it.
        QuantizeJobRequest request;
        request.tensors = {name};
        request.specs = {JobSpec::parse("A", {{"method", "gguf"}, {"type", "q4_k"}, {"imatrix", true}})};
        request.keepQuantized = true;
        request.importance = [&](const std::string &t, std::int64_t k) { return importanceOf(im, *ck, t, k); };
        TensorSource source;
        source.weight = [&](const std::string &n) { return ck->tensor(n); };
        const QuantizeJobResult r = runQuantizeJob(request, source, CancelToken());
        ASSERT_TRUE(r.outcomes.front().ok()) << r.outcomes.front().error;
        std::vector<float> exported(static_cast<std::size_t>(x.numel()));
        back.tensor("blk.0.attn_v.weight").decodeTo(exported);
        const std::vector<float> &got = r.outcomes.front().quantized->dequantized;
        ASSERT_EQ(got.size(), exported.size());
        EXPECT_EQ(std::memcmp(got.data(), exported.data(), got.size() * 4), 0);
    }
}

TEST(GgufImatrix, QuantizeRefusesWhatTheImatrixCannotGive)
{
    const fs::path src = smallModel();
    const auto ck = std::make_shared<const Checkpoint>(Checkpoint::open(src));
    const fs::path dat = writeBytes(imatrixDat({{"blk.0.attn_v.weight", std::vector<float>(256, 1.0f)},
                                                {"blk.0.ffn_down.weight", std::vector<float>(100, 1.0f)}},
                                               1),
                                    "errors.dat");
    const Imatrix im = loadImatrix(dat);
    const auto refused = [&](const std::string &tensor, std::int64_t k, const std::string &needle) {
        try {
            (void)importanceOf(im, *ck, tensor, k);
            ADD_FAILURE() << "accepted " << tensor;
        } catch (const UnsupportedError &e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(dat.string()), std::string::npos) << what;
            EXPECT_NE(what.find(tensor), std::string::npos) << what;
            EXPECT_NE(what.find(needle), std::string::npos) << what;
        }
    };
    refused("blk.1.attn_v.weight", 256, "no entry");                               // absent, by GGUF name
    refused("model.layers.1.self_attn.v_proj.weight", 256, "blk.1.attn_v.weight"); // absent, HF name mapped
    refused("blk.0.ffn_down.weight", 256, "holds 100 weights");                    // the column count disagrees
    refused("blk.0.attn_v.weight", 288, "256 weights");
    // A file that is not an importance matrix is a FormatError.
    EXPECT_THROW((void)loadImatrix(writeBytes("xx", "short.dat")), FormatError);
    // In a job, the tensor's gguf imatrix run fails with the message; other runs go on.
    QuantizeJobRequest request;
    request.tensors = {"blk.1.attn_v.weight"};
    request.specs = {JobSpec::parse("A", {{"method", "gguf"}, {"type", "q4_k"}, {"imatrix", true}}),
                     JobSpec::parse("B", {{"method", "gguf"}, {"type", "q4_k"}})};
    request.importance = [&](const std::string &t, std::int64_t k) { return importanceOf(im, *ck, t, k); };
    TensorSource source;
    source.weight = [&](const std::string &n) { return ck->tensor(n); };
    const QuantizeJobResult r = runQuantizeJob(request, source, CancelToken());
    ASSERT_EQ(r.outcomes.size(), 2u);
    EXPECT_NE(r.outcomes[0].error.find("no entry"), std::string::npos) << r.outcomes[0].error;
    EXPECT_TRUE(r.outcomes[1].ok()) << r.outcomes[1].error;
}

TEST(GgufExport, RecipeRulesGiveTheCustomMix)
{
    const fs::path src = smallModel();
    const fs::path out = tempDir() / "recipe-mix.gguf";
    fs::remove(out);
    GgufExportOptions o;
    o.recipe = std::make_shared<const Recipe>(Recipe::fromJson(nlohmann::ordered_json::parse(R"({
        "quantscope_recipe": 1,
        "rules": [{"name": "v8", "patterns": ["*.v_proj"], "specs": [{"method": "gguf", "type": "q8_0"}]}],
        "exclude": [{"pattern": "model.layers.1.mlp.down_proj"}]})")));
    const GgufExportResult r = exportGguf(src, out, o);
    const GgufFile back = GgufFile::open(out);
    EXPECT_EQ(back.tensorInfo("blk.0.attn_v.weight")->type, Type::Q8_0);
    EXPECT_EQ(back.tensorInfo("blk.1.attn_v.weight")->type, Type::Q8_0);
    EXPECT_EQ(back.tensorInfo("blk.1.ffn_down.weight")->type, Type::F32);  // excluded: as stored
    EXPECT_EQ(back.tensorInfo("blk.0.ffn_down.weight")->type, Type::Q4_K); // llama.cpp's choice
    for (const auto &t : r.tensors)
        if (t.name == "blk.0.attn_v.weight")
            EXPECT_NE(t.why.find("recipe"), std::string::npos) << t.why;

    // A rule of another method cannot be stored in GGUF: refused naming the module, nothing written.
    GgufExportOptions bad;
    bad.recipe = std::make_shared<const Recipe>(Recipe::fromJson(nlohmann::ordered_json::parse(R"({
        "quantscope_recipe": 1,
        "rules": [{"name": "int4", "patterns": ["*"], "specs": [{"method": "int", "bits": 4}]}]})")));
    const fs::path out2 = tempDir() / "recipe-refused.gguf";
    fs::remove(out2);
    try {
        (void)exportGguf(src, out2, bad);
        FAIL() << "wrote INT4 into a GGUF";
    } catch (const UnsupportedError &e) {
        EXPECT_NE(std::string(e.what()).find("int"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("model.layers.0"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(out2));
}
