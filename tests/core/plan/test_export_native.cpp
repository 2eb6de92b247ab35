// SPDX-License-Identifier: MIT
// Whole checkpoints in Quantscope's native layout (`export --format quantscope`,
// core/export/checkpoint_writer.h NativeWriter; docs/formats.md "Checkpoints written"): every
// method the engine runs, each module listed in its own file's metadata (per shard), read back
// by detectQuantized and decoded bit for bit to the quantizer's Ŵ.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

#include "export/checkpoint_writer.h"
#include "io/checkpoint.h"
#include "io/native.h"
#include "io/quantized.h"
#include "io/safetensors.h"
#include "recipe/recipe.h"
#include "util/error.h"

namespace {

using namespace quantscope;
namespace fs = std::filesystem;
using nlohmann::json;
using ojson = nlohmann::ordered_json;

const ojson kHqq4{{"method", "hqq"}, {"bits", 4}, {"group", 64}};
const ojson kMilo3{{"method", "milo"}, {"bits", 3}, {"group", 64}, {"rank", 8}, {"passes", 2}};
const ojson kProgressive{{"method", "progressive"}};
const ojson kNvfp4{{"method", "nvfp4"}};
const ojson kConstOpt{{"method", "constopt"}};

json plain(const ojson &o)
{
    return json::parse(o.dump());
}

struct TempDir {
    fs::path path = fs::temp_directory_path() /
                    ("qs_export_native_" + std::to_string(::getpid()) + "_" + std::to_string(std::random_device{}()));
    TempDir() { fs::remove_all(path); }
    ~TempDir() { fs::remove_all(path); }
};

/// A small llama-shaped checkpoint (two layers, tied head stored); `sharded`: layer 0 in the
/// first shard, the rest in the second, with an index.
void writeLlama(const fs::path &dir, bool sharded)
{
    constexpr std::int64_t k = 128;
    fs::create_directories(dir);
    std::mt19937 rng(11);
    std::student_t_distribution<float> t(4.0f);
    std::vector<std::pair<std::string, Tensor>> shard[2];
    auto add = [&](int s, const std::string &name, Shape sh) {
        std::vector<float> v(static_cast<std::size_t>(sh.size() == 1 ? sh[0] : sh[0] * sh[1]));
        for (auto &x : v)
            x = 0.02f * t(rng);
        shard[sharded ? s : 0].emplace_back(name, Tensor::fromFloats(sh, v));
    };
    add(0, "model.embed_tokens.weight", {64, k});
    for (int l = 0; l < 2; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        for (const char *m : {"q_proj", "k_proj", "v_proj", "o_proj"})
            add(l, p + "self_attn." + m + ".weight", {k, k});
        add(l, p + "mlp.gate_proj.weight", {2 * k, k});
        add(l, p + "mlp.up_proj.weight", {2 * k, k});
        add(l, p + "mlp.down_proj.weight", {k, 2 * k});
        add(l, p + "input_layernorm.weight", {k});
    }
    add(1, "model.norm.weight", {k});
    add(1, "lm_head.weight", {64, k});
    if (!sharded) {
        writeSafetensors(dir / "model.safetensors", shard[0]);
    } else {
        json map = json::object();
        for (int s = 0; s < 2; ++s) {
            const std::string f = "model-0000" + std::to_string(s + 1) + "-of-00002.safetensors";
            writeSafetensors(dir / f, shard[s]);
            for (const auto &[n, _] : shard[s])
                map[n] = f;
        }
        std::ofstream(dir / "model.safetensors.index.json") << json{{"metadata", json::object()}, {"weight_map", map}};
    }
    std::ofstream(dir / "config.json") << json{
        {"architectures", {"LlamaForCausalLM"}},
        {"tie_word_embeddings", true}}.dump();
}

/// down_proj ProgressiveSpec, o_proj NVFP4, layer 0's k_proj constOpt (a fused member with its
/// own scheme: a serving rule the native target does not apply), layer 0 HQQ, the rest MiLo.
Recipe mixed()
{
    return Recipe::fromJson(
        ojson{{"quantscope_recipe", 1},
              {"rules", ojson::array({{{"patterns", {"*down_proj"}}, {"specs", {kProgressive}}},
                                      {{"patterns", {"*o_proj"}}, {"specs", {kNvfp4}}},
                                      {{"patterns", {"model.layers.0.self_attn.k_proj"}}, {"specs", {kConstOpt}}},
                                      {{"patterns", {"*layers.0.*"}}, {"specs", {kHqq4}}},
                                      {{"patterns", {"*"}}, {"specs", {kMilo3}}}})}});
}

json specFor(const std::string &module)
{
    if (module.ends_with("down_proj"))
        return plain(kProgressive);
    if (module.ends_with("o_proj"))
        return plain(kNvfp4);
    if (module == "model.layers.0.self_attn.k_proj")
        return plain(kConstOpt);
    return plain(module.starts_with("model.layers.0.") ? kHqq4 : kMilo3);
}

void expectEveryModuleDecodesToTheQuantizer(const fs::path &in, const fs::path &out, const CheckpointExportResult &r)
{
    EXPECT_EQ(r.quantized.size(), 14u); // embeddings and the tied head kept dense by default
    const Checkpoint src = Checkpoint::open(in);
    const Checkpoint back = Checkpoint::open(out);
    ASSERT_TRUE(isNativeCheckpoint(back));
    const Detection d = detectQuantized(back);
    EXPECT_TRUE(d.problems.empty());
    ASSERT_EQ(d.modules.size(), 14u);
    for (const std::string &module : r.quantized) {
        SCOPED_TRACE(module);
        const QuantizedModule *qm = d.find(module);
        ASSERT_TRUE(qm);
        EXPECT_EQ(qm->format, QuantFormat::QuantscopeNative);
        const json spec = specFor(module);
        EXPECT_EQ(qm->scheme.method, spec["method"].get<std::string>());
        const QuantizedTensor want = makeQuantizer(parseQuantSpec(spec))->quantize(src.tensor(module + ".weight"), {});
        const Tensor got = decodeQuantized(back, *qm);
        ASSERT_EQ(got.numel(), static_cast<std::int64_t>(want.dequantized.size()));
        std::vector<float> v(want.dequantized.size());
        got.decodeTo(v);
        EXPECT_EQ(std::memcmp(v.data(), want.dequantized.data(), v.size() * 4), 0);
        // The spec stored with the module is the recipe's.
        EXPECT_EQ(toJson(parseQuantSpec(readNative(back, module).spec)), toJson(parseQuantSpec(spec)));
    }
    for (const char *dense : {"model.embed_tokens", "lm_head"})
        EXPECT_FALSE(d.find(dense)) << dense;
    // The marker config: transformers refuses the unknown method by name.
    EXPECT_EQ(back.quantizationConfig()["quant_method"], "quantscope");
}

TEST(ExportNative, MixedMethodsCheckpointListsAndDecodesEveryModule)
{
    TempDir d;
    writeLlama(d.path / "in", false);
    const auto r =
        exportCheckpoint((d.path / "in").string(), mixed(), ExportFormat::Quantscope, (d.path / "out").string());
    expectEveryModuleDecodesToTheQuantizer(d.path / "in", d.path / "out", r);
    // One file, every module in its metadata.
    const SafetensorsFile f = SafetensorsFile::open(d.path / "out" / "model.safetensors");
    const json meta = json::parse(f.metadata().at("quantscope"));
    EXPECT_EQ(meta["format"], "quantscope-native");
    EXPECT_EQ(meta["version"], kNativeVersion);
    EXPECT_EQ(meta["modules"].size(), 14u);
}

TEST(ExportNative, ShardedCheckpointListsEachShardsModulesInThatShard)
{
    TempDir d;
    writeLlama(d.path / "in", true);
    const auto r =
        exportCheckpoint((d.path / "in").string(), mixed(), ExportFormat::Quantscope, (d.path / "out").string());
    expectEveryModuleDecodesToTheQuantizer(d.path / "in", d.path / "out", r);
    for (int s = 0; s < 2; ++s) {
        SCOPED_TRACE(s);
        const SafetensorsFile f =
            SafetensorsFile::open(d.path / "out" / ("model-0000" + std::to_string(s + 1) + "-of-00002.safetensors"));
        const json meta = json::parse(f.metadata().at("quantscope"));
        ASSERT_EQ(meta["modules"].size(), 7u);
        for (const auto &[module, _] : meta["modules"].items()) {
            EXPECT_TRUE(module.starts_with("model.layers." + std::to_string(s) + ".")) << module;
            EXPECT_TRUE(f.find(module + ".qs_codes")) << module; // its parts are in the same file
        }
    }
}

TEST(ExportNative, EveryMethodIsAcceptedAndNoServingRuleApplies)
{
    const auto w = makeCheckpointWriter(ExportFormat::Quantscope);
    EXPECT_TRUE(writesCheckpoints(ExportFormat::Quantscope));
    for (const ojson &s : {ojson{{"method", "int"}, {"bits", 2}, {"group", 48}}, ojson{{"method", "fp8"}}, kHqq4,
                           kMilo3, ojson{{"method", "mxfp4"}}, kNvfp4, kProgressive, kConstOpt}) {
        SCOPED_TRACE(s.dump());
        std::string why;
        EXPECT_TRUE(targetCanWrite(ExportFormat::Quantscope, parseQuantSpec(plain(s)), &why)) << why;
    }
    EXPECT_FALSE(w->servingLoaderRules());
    EXPECT_FALSE(w->schemesFromConfig());
}

TEST(ExportNative, IntTwoBitAndFp8ReadBackWithTheirStoredCodeSizes)
{
    TempDir d;
    writeLlama(d.path / "in", false);
    const Recipe r = Recipe::fromJson(ojson{
        {"quantscope_recipe", 1},
        {"rules",
         ojson::array({{{"patterns", {"*layers.0.*"}}, {"specs", {{{"method", "int"}, {"bits", 2}, {"group", 32}}}}},
                       {{"patterns", {"*"}}, {"specs", {{{"method", "fp8"}, {"granularity", "channel"}}}}}})}});
    const auto res = exportCheckpoint((d.path / "in").string(), r, ExportFormat::Quantscope, (d.path / "out").string());
    EXPECT_EQ(res.quantized.size(), 14u);
    EXPECT_EQ(detectQuantized(Checkpoint::open(d.path / "out")).modules.size(), 14u);
}

} // namespace
