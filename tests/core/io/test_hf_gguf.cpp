// SPDX-License-Identifier: MIT
// HF → GGUF (core/export/hf_gguf.h) on checkpoints written here: the q/k row permutation against
// an independent scalar statement of LlamaModel.permute, the types convert gives per --outtype,
// the llama.* keys, no tokenizer keys without a tokenizer, the pre-tokenizer table, the key list's
// replace-in-place, and refusals that leave no file. (Byte equality with convert_hf_to_gguf.py
// itself: tests/cli/gguf_hf_reference.py.)
#include "export/hf_gguf.h"
#include "recipe/recipe.h"
#include "io/gguf.h"
#include "io/safetensors.h"
#include "tensor/convert.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <unistd.h>

namespace quantscope {
namespace {

namespace fs = std::filesystem;

constexpr int kHeads = 4, kKv = 2, kHeadDim = 4, kHidden = 32, kFfn = 32, kVocab = 8;

struct Dir {
    fs::path path;
    explicit Dir(const std::string &name)
        : path(fs::temp_directory_path() / ("qs_hf_gguf_" + std::to_string(::getpid()) + "_" + name))
    {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~Dir() { fs::remove_all(path); }
};

/// Row r, column c holds r·100 + c (+ a tensor offset), so every row says where it came from.
Tensor rows(std::int64_t r, std::int64_t c, float offset)
{
    std::vector<float> v(static_cast<std::size_t>(r * c));
    for (std::int64_t i = 0; i < r; ++i)
        for (std::int64_t j = 0; j < c; ++j)
            v[static_cast<std::size_t>(i * c + j)] = offset + static_cast<float>(i * 100 + j) * 0.25f;
    return Tensor::fromFloats({r, c}, v);
}

Tensor asBf16(const Tensor &t)
{
    std::vector<float> v(static_cast<std::size_t>(t.numel()));
    t.decodeTo(v);
    std::vector<std::byte> b(v.size() * 2);
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::uint16_t h = floatToBf16(v[i]);
        std::memcpy(b.data() + 2 * i, &h, 2);
    }
    return Tensor::fromBytes(DType::BF16, t.shape(), std::move(b));
}

void writeCheckpoint(const fs::path &dir, const std::string &extraConfig = "")
{
    std::ofstream(dir / "config.json") << R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 32,
        "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 4,
        "vocab_size": 8, "max_position_embeddings": 64, "rms_norm_eps": 1e-6, "rope_theta": 10000.0)"
                                       << extraConfig << "}";
    std::vector<std::pair<std::string, Tensor>> ts;
    ts.emplace_back("model.embed_tokens.weight", asBf16(rows(kVocab, kHidden, 1)));
    ts.emplace_back("model.layers.0.input_layernorm.weight",
                    Tensor::fromFloats({kHidden}, std::vector<float>(kHidden, 1.f)));
    ts.emplace_back("model.layers.0.self_attn.q_proj.weight", rows(kHeads * kHeadDim, kHidden, 2));
    ts.emplace_back("model.layers.0.self_attn.k_proj.weight", rows(kKv * kHeadDim, kHidden, 3));
    ts.emplace_back("model.layers.0.self_attn.v_proj.weight", rows(kKv * kHeadDim, kHidden, 4));
    ts.emplace_back("model.layers.0.self_attn.o_proj.weight", rows(kHidden, kHeads * kHeadDim, 5));
    ts.emplace_back("model.layers.0.post_attention_layernorm.weight",
                    Tensor::fromFloats({kHidden}, std::vector<float>(kHidden, 2.f)));
    ts.emplace_back("model.layers.0.mlp.gate_proj.weight", rows(kFfn, kHidden, 6));
    ts.emplace_back("model.layers.0.mlp.up_proj.weight", rows(kFfn, kHidden, 7));
    ts.emplace_back("model.layers.0.mlp.down_proj.weight", rows(kHidden, kFfn, 8));
    ts.emplace_back("model.norm.weight", Tensor::fromFloats({kHidden}, std::vector<float>(kHidden, 3.f)));
    writeSafetensors(dir / "model.safetensors", ts);
}

std::vector<float> read(const GgufFile &g, const std::string &name)
{
    const Tensor t = g.tensor(name);
    std::vector<float> v(static_cast<std::size_t>(t.numel()));
    t.decodeTo(v);
    return v;
}

TEST(HfGguf, PermutesQkRowsAsLlamaModelPermute)
{
    Dir d("permute");
    writeCheckpoint(d.path);
    const fs::path out = d.path / "out.gguf";
    const GgufExportResult r = convertHfToGguf(d.path, out, HfOutType::F32);
    const GgufFile g = GgufFile::open(out);
    for (const auto &[name, heads, offset] :
         {std::tuple{"blk.0.attn_q.weight", kHeads, 2.f}, std::tuple{"blk.0.attn_k.weight", kKv, 3.f}}) {
        const std::vector<float> v = read(g, name);
        const int half = kHeadDim / 2;
        for (int row = 0; row < heads * kHeadDim; ++row) {
            // Output row (h, i, j) of shape (heads, half, 2) is input row (h, j, i) of (heads, 2, half).
            const int h = row / kHeadDim, i = (row % kHeadDim) / 2, j = row % 2;
            const int from = h * kHeadDim + j * half + i;
            for (int c = 0; c < kHidden; ++c)
                ASSERT_EQ(v[static_cast<std::size_t>(row * kHidden + c)],
                          offset + static_cast<float>(from * 100 + c) * 0.25f)
                    << name << " row " << row;
        }
    }
    // v_proj is not permuted.
    EXPECT_EQ(read(g, "blk.0.attn_v.weight")[kHidden], 4.f + 100 * 0.25f);
    // Keys, no tokenizer, no output.weight (no lm_head).
    const GgufKeyValue *kv = g.find("llama.attention.head_count_kv");
    ASSERT_NE(kv, nullptr);
    EXPECT_EQ(kv->value.get<int>(), kKv);
    EXPECT_EQ(g.find("llama.rope.dimension_count")->value.get<int>(), kHeadDim);
    EXPECT_EQ(g.find("general.file_type")->value.get<int>(), 0);
    EXPECT_EQ(g.stringValue("general.size_label"), "5.0K"); // 4,960 parameters, as gguf's size_label
    for (const GgufKeyValue &k : g.metadata())
        EXPECT_NE(k.key.rfind("tokenizer.", 0), 0u) << k.key;
    EXPECT_EQ(g.tensorInfo("output.weight"), nullptr);
    bool noted = false;
    for (const std::string &n : r.notes)
        noted = noted || n.find("no tokenizer") != std::string::npos;
    EXPECT_TRUE(noted);
}

TEST(HfGguf, OutTypesAsConvertGivesThem)
{
    Dir d("types");
    writeCheckpoint(d.path, R"(, "rope_scaling": {"rope_type": "yarn", "factor": 4.0,
        "original_max_position_embeddings": 16})");
    const fs::path out = d.path / "f16.gguf";
    (void)convertHfToGguf(d.path / "model.safetensors", out, HfOutType::F16);
    const GgufFile g = GgufFile::open(out);
    EXPECT_EQ(g.tensorInfo("blk.0.attn_norm.weight")->type, ggml::Type::F32);
    EXPECT_EQ(g.tensorInfo("output_norm.weight")->type, ggml::Type::F32);
    EXPECT_EQ(g.tensorInfo("token_embd.weight")->type, ggml::Type::F16);
    EXPECT_EQ(g.tensorInfo("blk.0.ffn_down.weight")->type, ggml::Type::F16);
    EXPECT_EQ(g.find("general.file_type")->value.get<int>(), 1);
    EXPECT_EQ(g.stringValue("llama.rope.scaling.type"), "yarn");
    EXPECT_EQ(g.find("llama.rope.scaling.original_context_length")->value.get<int>(), 16);
    // The BF16 embedding (1 + (r·100 + c)/4) converted to F16 element by element.
    const Tensor raw = g.rawBytes("token_embd.weight");
    const auto *h = reinterpret_cast<const std::uint16_t *>(raw.data());
    for (int i = 0; i < kVocab * kHidden; ++i) {
        const float x = bf16ToFloat(floatToBf16(1.f + static_cast<float>((i / kHidden) * 100 + i % kHidden) * 0.25f));
        ASSERT_EQ(h[i], floatToF16(x)) << i;
    }
    // Stored: the 2-D tensors keep their dtype.
    const fs::path stored = d.path / "stored.gguf";
    (void)convertHfToGguf(d.path, stored, HfOutType::Stored);
    const GgufFile s = GgufFile::open(stored);
    EXPECT_EQ(s.tensorInfo("token_embd.weight")->type, ggml::Type::BF16);
    EXPECT_EQ(s.tensorInfo("blk.0.attn_q.weight")->type, ggml::Type::F32);
}

TEST(HfGguf, BlockTypesConvertThenQuantizeWithTheMixOptions)
{
    Dir d("mix");
    writeCheckpoint(d.path);
    const fs::path out = d.path / "out.gguf";
    GgufExportOptions o;
    o.mix.fileType = ggml::FileType::F16; // with a recipe: convert as stored, then llama-quantize's F16 mix
    o.recipe = std::make_shared<const Recipe>(Recipe::fromJson(nlohmann::ordered_json::parse(R"({
        "quantscope_recipe": 1,
        "rules": [{"name": "v8", "patterns": ["*.v_proj"], "specs": [{"method": "gguf", "type": "q8_0"}]}]})")));
    const GgufExportResult r = exportGguf(d.path, out, o);
    const GgufFile g = GgufFile::open(out);
    EXPECT_EQ(g.tensorInfo("blk.0.attn_v.weight")->type, ggml::Type::Q8_0);
    EXPECT_EQ(g.tensorInfo("blk.0.attn_q.weight")->type, ggml::Type::F16);
    EXPECT_EQ(g.tensorInfo("blk.0.attn_norm.weight")->type, ggml::Type::F32);
    EXPECT_EQ(g.find("general.file_type")->value.get<int>(), 1);
    // The q rows are still permuted after the quantizing pass (F16 of row 1 is input row 2 of head 0).
    EXPECT_EQ(read(g, "blk.0.attn_q.weight")[kHidden], 2.f + 200 * 0.25f);
    EXPECT_FALSE(fs::exists(out.string() + ".convert.partial"));
    for (const GgufExportTensor &t : r.tensors)
        if (t.name == "token_embd.weight")
            EXPECT_EQ(t.from, "BF16"); // the checkpoint's dtype, not the staging file's
    // A recipe rule of another method is refused; nothing is left behind.
    const fs::path out2 = d.path / "out2.gguf";
    o.recipe = std::make_shared<const Recipe>(Recipe::fromJson(nlohmann::ordered_json::parse(R"({
        "quantscope_recipe": 1,
        "rules": [{"name": "w4", "patterns": ["*.v_proj"], "specs": [{"method": "int", "bits": 4}]}]})")));
    EXPECT_THROW((void)exportGguf(d.path, out2, o), UnsupportedError);
    EXPECT_FALSE(fs::exists(out2));
    EXPECT_FALSE(fs::exists(out2.string() + ".partial"));
    EXPECT_FALSE(fs::exists(out2.string() + ".convert.partial"));
}

TEST(HfGguf, PreTokenizerTable)
{
    using nlohmann::json;
    EXPECT_EQ(hfPreTokenizerName(json::parse(R"({"type": "ByteLevel", "add_prefix_space": false})")), "gpt-2");
    EXPECT_EQ(hfPreTokenizerName(json::parse(R"({"type": "Sequence", "pretokenizers": [
        {"type": "Digits", "individual_digits": true}, {"type": "ByteLevel", "use_regex": true}]})")),
              "smollm");
    EXPECT_EQ(hfPreTokenizerName(json::parse(R"({"type": "Sequence", "pretokenizers": [
        {"type": "Digits", "individual_digits": false}, {"type": "ByteLevel"}]})")),
              "default");
    EXPECT_EQ(hfPreTokenizerName(json::parse(R"({"type": "ByteLevel", "add_prefix_space": true})")), "default");
    EXPECT_EQ(hfPreTokenizerName(json()), "default");
}

TEST(HfGguf, KeyListReplacesInPlace)
{
    GgufKvList a, b;
    a.boolean("x", true);
    a.u32("y", 7);
    a.boolean("x", false); // as GGUFWriter: the value changes, the position stays
    b.boolean("x", false);
    b.u32("y", 7);
    EXPECT_EQ(a.size(), 2u);
    EXPECT_EQ(a.bytes(), b.bytes());
}

TEST(HfGguf, RefusalsLeaveNoFile)
{
    Dir d("refuse");
    writeCheckpoint(d.path, R"(, "rope_scaling": {"rope_type": "llama3", "factor": 8.0})");
    const fs::path out = d.path / "out.gguf";
    EXPECT_THROW((void)convertHfToGguf(d.path, out, HfOutType::F16), UnsupportedError);
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(out.string() + ".partial"));
    std::ofstream(d.path / "config.json") << R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 32,
        "num_hidden_layers": 1, "num_attention_heads": 4, "vocab_size": 8})";
    try {
        (void)convertHfToGguf(d.path, out, HfOutType::F16);
        FAIL() << "a config without intermediate_size was converted";
    } catch (const FormatError &e) {
        EXPECT_NE(std::string(e.what()).find("intermediate_size"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(out));
    std::ofstream(out) << "x";
    EXPECT_THROW((void)convertHfToGguf(d.path, out, HfOutType::F16), IoError); // an existing OUT is refused
}

} // namespace
} // namespace quantscope
