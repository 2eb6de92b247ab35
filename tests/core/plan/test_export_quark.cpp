// SPDX-License-Identifier: MIT
// The Quark real_quantized checkpoint writer (core/export/quark_writer.h): byte for byte equal to
// the files AMD Quark itself exported of stories260K (tests/interop/golden, every INT4 and W4A8
// case in both pack orders), a ProgressiveSpec result saved natively and re-exported gives
// Quark's tensors, the published W4A8 recipe on the demo model quantizes the experts only and
// leaves every other tensor bit for bit, a sharded input gives the same shards, and a refusal or
// a Cancel leaves no output folder.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <fstream>

#include <nlohmann/json.hpp>

#include "demo/demo.h"
#include "export/fp8block_writer.h"
#include "export/checkpoint_writer.h"
#include "recipe/recipe_check.h"
#include "export/quark_writer.h"
#include "io/checkpoint.h"
#include "io/native.h"
#include "io/quantized.h"
#include "io/safetensors.h"
#include "quant/quantizer.h"
#include "util/error.h"

namespace fs = std::filesystem;
using namespace quantscope;
using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

namespace {

const fs::path kGolden = fs::path(QUANTSCOPE_SOURCE_DIR) / "tests/interop/golden";

fs::path storiesFile()
{
    return fs::path(QUANTSCOPE_SHARED_DATA) / "stories260K" / "model.safetensors";
}

Recipe recipeOf(const ojson &spec, ojson exclude)
{
    return Recipe::fromJson(
        ojson{{"quantscope_recipe", 1},
              {"rules", ojson::array({{{"patterns", {"*"}}, {"dialect", "fnmatch"}, {"specs", ojson::array({spec})}}})},
              {"exclude", std::move(exclude)}});
}

ojson lmHeadOnly()
{
    return ojson::array({{{"pattern", "lm_head"}, {"dialect", "exact"}}});
}

/// The export driver's control with an optional cancel token and a fraction-only progress callback.
CheckpointExportControl exportControl(const CancelToken *cancel, std::function<void(double)> progress)
{
    CheckpointExportControl c;
    c.cancel = cancel;
    if (progress)
        c.progress = [progress](double f, const std::string &) { progress(f); };
    return c;
}

/// Each golden tensor is in `ours` with the same dtype, shape and bytes; returns how many.
/// `skip(name)`: golden tensors compared otherwise by the caller.
int expectSameTensors(const SafetensorsFile &ours, const SafetensorsFile &theirs,
                      const std::function<bool(const std::string &)> &skip = {})
{
    int compared = 0;
    for (const TensorEntry &e : theirs.entries()) {
        if (skip && skip(e.name))
            continue;
        const Tensor t = theirs.tensor(e.name);
        const TensorEntry *o = ours.find(e.name);
        EXPECT_TRUE(o) << e.name << " missing";
        if (!o)
            continue;
        const Tensor ot = ours.tensor(e.name);
        EXPECT_EQ(ot.dtype(), t.dtype()) << e.name;
        EXPECT_EQ(ot.shape(), t.shape()) << e.name;
        if (ot.nbytes() == t.nbytes())
            EXPECT_EQ(std::memcmp(ot.data(), t.data(), t.nbytes()), 0) << e.name;
        else
            ADD_FAILURE() << e.name << ": " << ot.nbytes() << " bytes, Quark's " << t.nbytes();
        ++compared;
    }
    return compared;
}

json readJson(const fs::path &p)
{
    std::ifstream in(p);
    return json::parse(in);
}

const ojson kW4A8{{"method", "progressive"}};

} // namespace

TEST(QuarkWriter, StoriesEqualsQuarksOwnFilesByteForByte)
{
    if (!fs::exists(storiesFile()))
        GTEST_SKIP() << storiesFile() << " is absent (set QUANTSCOPE_SHARED_DATA to the shared/data folder)";
    struct Case {
        std::string name;
        ojson spec; // the toolkit's spec in our terms (tests/core/io/test_toolkit_goldens.cpp)
        ActivationScheme act;
    };
    const ojson reciprocal{{"method", "int"}, {"bits", 4}, {"scale_apply", "reciprocal"}};
    auto with = [&](ojson extra) {
        ojson s = reciprocal;
        for (auto &[k, v] : extra.items())
            s[k] = v;
        return s;
    };
    const std::vector<Case> cases{
        {"w4a8_progressive", kW4A8, ActivationScheme::Fp8Dynamic},
        {"int4_channel_sym", with({{"granularity", "channel"}, {"axis", 0}}), ActivationScheme::None},
        {"int4_channel_asym", with({{"granularity", "channel"}, {"axis", 0}, {"symmetric", false}}),
         ActivationScheme::None},
        {"int4_group4_sym", with({{"granularity", "group"}, {"group", 4}}), ActivationScheme::None},
        {"int4_group4_asym", with({{"granularity", "group"}, {"group", 4}, {"symmetric", false}}),
         ActivationScheme::None},
    };
    const fs::path out = fs::temp_directory_path() / ("qs_quark_stories_" + std::to_string(::getpid()));
    int files = 0;
    for (const Case &c : cases)
        for (const std::string pack : {"reorder", "order"}) {
            const std::string folder = "quark_" + c.name + "_" + pack;
            if (!fs::exists(kGolden / folder / "model.safetensors"))
                continue;
            SCOPED_TRACE(folder);
            fs::remove_all(out);
            ExportOptions o;
            o.activations = c.act;
            o.packMethod = pack;
            const auto r = exportCheckpoint(storiesFile().string(), recipeOf(c.spec, lmHeadOnly()), ExportFormat::Quark,
                                            out.string(), o);
            EXPECT_FALSE(r.quantized.empty());
            const int n = expectSameTensors(SafetensorsFile::open(out / "model.safetensors"),
                                            SafetensorsFile::open(kGolden / folder / "model.safetensors"));
            EXPECT_GT(n, 40);
            json ours = readJson(out / "config.json")["quantization_config"];
            json theirs = readJson(kGolden / folder / "config.json")["quantization_config"];
            theirs.erase("version");
            EXPECT_EQ(ours, theirs);
            ++files;
        }
    EXPECT_EQ(files, 10);
    fs::remove_all(out);
}

TEST(QuarkWriter, ProgressiveSavedNativelyReExportsToQuarksTensors)
{
    if (!fs::exists(storiesFile()))
        GTEST_SKIP() << storiesFile() << " is absent (set QUANTSCOPE_SHARED_DATA to the shared/data folder)";
    const Checkpoint stories = Checkpoint::open(storiesFile());
    const auto golden = SafetensorsFile::open(kGolden / "quark_w4a8_progressive_reorder" / "model.safetensors");
    const fs::path saved =
        fs::temp_directory_path() / ("qs_quark_native_" + std::to_string(::getpid()) + ".safetensors");
    int modules = 0;
    for (const std::string mod :
         {"model.layers.0.mlp.gate_proj", "model.layers.1.self_attn.k_proj", "model.layers.1.mlp.down_proj"}) {
        SCOPED_TRACE(mod);
        QuantizeOptions qo;
        qo.tensorName = mod + ".weight";
        writeNative(saved, makeQuantizer(kW4A8)->quantize(stories.tensor(mod + ".weight"), qo));
        const QuantizedTensor back = readNative(Checkpoint::open(saved), mod);
        for (const auto &[name, t] : quarkModuleTensors(back, mod, "reorder")) {
            const Tensor g = golden.tensor(name);
            ASSERT_EQ(t.dtype(), g.dtype()) << name;
            ASSERT_EQ(t.shape(), g.shape()) << name;
            EXPECT_EQ(std::memcmp(t.data(), g.data(), g.nbytes()), 0) << name;
        }
        ++modules;
    }
    EXPECT_EQ(modules, 3);
    fs::remove(saved);
}

TEST(QuarkWriter, PublishedW4A8RecipeOnTheDemoQuantizesTheExpertsOnly)
{
    const fs::path dir = fs::temp_directory_path() / ("qs_quark_demo_" + std::to_string(::getpid()));
    const fs::path in = dir / "in", out = dir / "out";
    fs::remove_all(dir);
    demo::writeDemoCheckpoint(in);
    ojson exclude = ojson::array();
    for (const char *p : {"*self_attn*", "*mlp.gate", "*lm_head", "*mlp.gate_proj", "*mlp.up_proj", "*mlp.down_proj",
                          "*shared_experts*", "*mm_projector*", "*vision_tower*"})
        exclude.push_back({{"pattern", p}});
    const Recipe recipe = recipeOf(kW4A8, exclude);
    ExportOptions o;
    o.activations = ActivationScheme::Fp8Dynamic;
    std::vector<double> seen;
    const auto r = exportCheckpoint(in.string(), recipe, ExportFormat::Quark, out.string(), o,
                                    exportControl(nullptr, [&](double f) { seen.push_back(f); }));
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.back(), 1.0);
    ASSERT_FALSE(r.quantized.empty());
    for (const std::string &m : r.quantized)
        EXPECT_NE(m.find(".mlp.experts."), std::string::npos) << m << " is not a routed expert";

    // The published quantization_config's fields with their values (docs/formats.md).
    const json qc = readJson(out / "config.json")["quantization_config"];
    EXPECT_EQ(qc["quant_method"], "quark");
    const json &w = qc["global_quant_config"]["weight"];
    ASSERT_EQ(w.size(), 2u);
    EXPECT_EQ(w[0]["dtype"], "fp8_e4m3");
    EXPECT_EQ(w[0]["qscheme"], "per_tensor");
    EXPECT_EQ(w[0]["is_dynamic"], false);
    EXPECT_EQ(w[1]["dtype"], "int4");
    EXPECT_EQ(w[1]["qscheme"], "per_channel");
    EXPECT_EQ(w[1]["ch_axis"], 0);
    EXPECT_EQ(w[1]["is_dynamic"], false);
    const json &a = qc["global_quant_config"]["input_tensors"];
    EXPECT_EQ(a["dtype"], "fp8_e4m3");
    EXPECT_EQ(a["qscheme"], "per_tensor");
    EXPECT_EQ(a["is_dynamic"], true);
    EXPECT_EQ(qc["export"]["pack_method"], "reorder");
    EXPECT_EQ(qc["export"]["weight_format"], "real_quantized");
    EXPECT_EQ(qc["exclude"].size(), 9u);

    // Every tensor of a module not quantized is there bit for bit; the experts re-read to the
    // codes the engine gives.
    const Checkpoint src = Checkpoint::open(in), back = Checkpoint::open(out);
    const Detection det = detectQuantized(back);
    int untouched = 0, experts = 0;
    for (const TensorEntry &e : src.entries()) {
        const std::string mod = moduleOf(e.name);
        if (std::find(r.quantized.begin(), r.quantized.end(), mod) != r.quantized.end() && e.name == mod + ".weight") {
            const QuantizedModule *qm = det.find(mod);
            ASSERT_TRUE(qm) << mod;
            EXPECT_EQ(qm->format, QuantFormat::QuarkRealQuantized);
            EXPECT_TRUE(qm->scheme.twoStage);
            const QuantizedTensor q = makeQuantizer(kW4A8)->quantize(src.tensor(e.name), {});
            const Tensor codes = quantizedCodes(back, *qm);
            ASSERT_EQ(codes.numel(), static_cast<std::int64_t>(q.codes.size()));
            for (std::int64_t i = 0; i < codes.numel(); ++i)
                ASSERT_EQ(codes.at(i), static_cast<std::int8_t>(q.codes[static_cast<std::size_t>(i)]))
                    << mod << " " << i;
            ++experts;
            continue;
        }
        const Tensor a0 = src.tensor(e.name), b0 = back.tensor(e.name);
        ASSERT_EQ(b0.dtype(), a0.dtype()) << e.name;
        ASSERT_EQ(b0.shape(), a0.shape()) << e.name;
        EXPECT_EQ(std::memcmp(a0.data(), b0.data(), a0.nbytes()), 0) << e.name;
        ++untouched;
    }
    EXPECT_EQ(experts, static_cast<int>(r.quantized.size()));
    EXPECT_GT(untouched, 10);
    fs::remove_all(dir);
}

TEST(QuarkWriter, ShardedInputGivesTheSameShards)
{
    const fs::path dir = fs::temp_directory_path() / ("qs_quark_shards_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "in");
    // Two shards of the demo's weights: the first half of the tensors and the rest.
    const auto weights = demo::makeDemoWeights();
    std::vector<std::pair<std::string, Tensor>> a, b;
    ojson map = ojson::object();
    for (std::size_t i = 0; i < weights.size(); ++i) {
        const bool first = i < weights.size() / 2;
        (first ? a : b).push_back(weights[i]);
        map[weights[i].first] = first ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
    }
    writeSafetensors(dir / "in" / "model-00001-of-00002.safetensors", a, {{"format", "pt"}});
    writeSafetensors(dir / "in" / "model-00002-of-00002.safetensors", b, {{"format", "pt"}});
    std::ofstream(dir / "in" / "model.safetensors.index.json")
        << ojson{{"metadata", ojson::object()}, {"weight_map", map}}.dump();
    const Recipe recipe = recipeOf({{"method", "int"}, {"bits", 4}, {"granularity", "channel"}, {"axis", 0}},
                                   ojson::array({{{"pattern", "*embed_tokens"}}, {{"pattern", "*lm_head"}}}));
    const auto r = exportCheckpoint((dir / "in").string(), recipe, ExportFormat::Quark, (dir / "out").string());
    ASSERT_FALSE(r.quantized.empty());
    const json index = readJson(dir / "out" / "model.safetensors.index.json");
    for (const auto &[name, shard] : map.items()) {
        const std::string mod = moduleOf(name);
        const bool q = std::find(r.quantized.begin(), r.quantized.end(), mod) != r.quantized.end();
        EXPECT_EQ(index["weight_map"][q ? mod + ".weight" : name], shard) << name;
        if (q)
            EXPECT_EQ(index["weight_map"][mod + ".weight_scale"], shard) << name;
    }
    const Checkpoint back = Checkpoint::open(dir / "out");
    EXPECT_TRUE(back.sharded());
    EXPECT_EQ(detectQuantized(back).modules.size(), r.quantized.size());
    fs::remove_all(dir);
}

TEST(QuarkWriter, RefusalAndCancelLeaveNoOutput)
{
    const fs::path dir = fs::temp_directory_path() / ("qs_quark_refuse_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    demo::writeDemoCheckpoint(dir / "in");
    // HQQ has no Quark scheme; INT8 no packed INT4 layout: refused, naming the module or rule.
    for (const ojson &spec :
         {ojson{{"method", "hqq"}}, ojson{{"method", "int"}, {"bits", 8}, {"granularity", "channel"}}}) {
        SCOPED_TRACE(spec.dump());
        EXPECT_THROW(exportCheckpoint((dir / "in").string(), recipeOf(spec, lmHeadOnly()), ExportFormat::Quark,
                                      (dir / "out").string()),
                     UnsupportedError);
        EXPECT_FALSE(fs::exists(dir / "out"));
        EXPECT_FALSE(fs::exists(dir / "out.partial"));
    }
    const CancelToken cancel;
    cancel.cancel();
    EXPECT_THROW(exportCheckpoint((dir / "in").string(), recipeOf(kW4A8, lmHeadOnly()), ExportFormat::Quark,
                                  (dir / "out").string(), {}, exportControl(&cancel, {})),
                 Cancelled);
    EXPECT_FALSE(fs::exists(dir / "out"));
    EXPECT_FALSE(fs::exists(dir / "out.partial"));
    fs::remove_all(dir);
}

// compressed-tensors float-quantized (FP8) and nvfp4-pack-quantized: the toolkit's own files.
TEST(CtFloatWriter, StoriesEqualsTheToolkitsFilesByteForByte)
{
    if (!fs::exists(storiesFile()))
        GTEST_SKIP() << storiesFile() << " is absent (set QUANTSCOPE_SHARED_DATA to the shared/data folder)";
    struct Case {
        std::string golden;
        ojson spec;
        ojson exclude;
        ActivationScheme act;
    };
    const std::vector<Case> cases{
        {"ct_w8a8_fp8_channel",
         {{"method", "fp8"}, {"granularity", "channel"}},
         lmHeadOnly(),
         ActivationScheme::Fp8Dynamic},
        {"ct_w8a8_fp8_tensor",
         {{"method", "fp8"}, {"granularity", "tensor"}},
         lmHeadOnly(),
         ActivationScheme::Fp8Dynamic},
        {"ct_nvfp4a16_no_down_proj",
         {{"method", "nvfp4"}},
         ojson::array(
             {{{"pattern", "lm_head"}, {"dialect", "exact"}}, {{"pattern", ".*down_proj"}, {"dialect", "re"}}}),
         ActivationScheme::None},
    };
    const fs::path out = fs::temp_directory_path() / ("qs_ct_float_" + std::to_string(::getpid()));
    for (const Case &c : cases) {
        SCOPED_TRACE(c.golden);
        fs::remove_all(out);
        ExportOptions o;
        o.activations = c.act;
        const auto r = exportCheckpoint(storiesFile().string(), recipeOf(c.spec, c.exclude),
                                        ExportFormat::CompressedTensors, out.string(), o);
        EXPECT_FALSE(r.quantized.empty());
        const SafetensorsFile ours = SafetensorsFile::open(out / "model.safetensors");
        const SafetensorsFile theirs = SafetensorsFile::open(kGolden / c.golden / "model.safetensors");
        // NVFP4: compressed-tensors alone gives each module its own global scale; we give the
        // members of a fused group (q/k/v, gate/up) one — llm-compressor's fused update, which
        // vLLM requires — so their tensors differ from this golden by design. The shared scale
        // is the smallest of the golden's member scales (2688 / the group's largest |w|); every
        // other tensor is the toolkit's byte for byte.
        const bool nvfp4 = c.spec["method"] == "nvfp4";
        auto fused = [&](const std::string &name) {
            if (!nvfp4)
                return false;
            for (const char *m : {".q_proj.", ".k_proj.", ".v_proj.", ".gate_proj.", ".up_proj."})
                if (name.find(m) != std::string::npos)
                    return true;
            return false;
        };
        EXPECT_GT(expectSameTensors(ours, theirs, fused), nvfp4 ? 10 : 30);
        if (nvfp4) {
            std::map<std::string, float> smallest;
            for (const TensorEntry &e : theirs.entries())
                if (fused(e.name) && e.name.ends_with(".weight_global_scale")) {
                    std::vector<float> g(1);
                    theirs.tensor(e.name).decodeTo(g);
                    const std::string grp = sharedScaleGroupOf(e.name.substr(0, e.name.rfind('.')));
                    smallest[grp] = smallest.count(grp) ? std::min(smallest[grp], g[0]) : g[0];
                }
            int checked = 0;
            for (const TensorEntry &e : theirs.entries())
                if (fused(e.name) && e.name.ends_with(".weight_global_scale")) {
                    std::vector<float> g(1);
                    ours.tensor(e.name).decodeTo(g);
                    EXPECT_EQ(g[0], smallest[sharedScaleGroupOf(e.name.substr(0, e.name.rfind('.')))]) << e.name;
                    ++checked;
                }
            EXPECT_EQ(checked, 10); // q, k, v, gate, up of layers 0 and 1
        }
        // Byte-identical to the toolkit's file, so our decoder's reading of it is the golden
        // test's (tests/core/io/test_toolkit_goldens.cpp, bit for bit in the toolkit's dtype).
        EXPECT_EQ(detectQuantized(Checkpoint::open(out)).modules.size(), r.quantized.size());
    }
    fs::remove_all(out);
}

// The FP8 block layout (DeepSeek-V3 / Qwen3-FP8): weight F8_E4M3 + weight_scale_inv, one scheme
// per checkpoint; re-read by our FP8 block reader to the quantizer's codes and Ŵ.
TEST(Fp8BlockWriter, DemoRoundTripsAndOtherRecipesAreRefused)
{
    const fs::path dir = fs::temp_directory_path() / ("qs_fp8block_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    demo::writeDemoCheckpoint(dir / "in");
    const ojson spec{{"method", "fp8"}, {"granularity", "block"}, {"block", 128}};
    const Recipe recipe = recipeOf(spec, ojson::array({{{"pattern", "lm_head"}, {"dialect", "exact"}}}));
    const json qc = json::parse(exportRecipeText(recipe, ExportFormat::Fp8Block));
    EXPECT_EQ(qc["quant_method"], "fp8");
    EXPECT_EQ(qc["weight_block_size"], json::parse("[128, 128]"));
    EXPECT_EQ(qc["modules_to_not_convert"], json::parse(R"(["lm_head"])"));
    const auto r = exportCheckpoint((dir / "in").string(), recipe, ExportFormat::Fp8Block, (dir / "out").string());
    ASSERT_FALSE(r.quantized.empty());
    const Checkpoint src = Checkpoint::open(dir / "in"), back = Checkpoint::open(dir / "out");
    EXPECT_EQ(back.sharded(), src.sharded());
    const Detection det = detectQuantized(back);
    ASSERT_EQ(det.modules.size(), r.quantized.size());
    for (const QuantizedModule &m : det.modules) {
        SCOPED_TRACE(m.module);
        EXPECT_EQ(m.format, QuantFormat::Fp8Block);
        EXPECT_EQ(m.scheme.blockRows, 128);
        const QuantizedTensor q = makeQuantizer(spec)->quantize(src.tensor(m.name), {});
        const Tensor codes = quantizedCodes(back, m);
        ASSERT_EQ(codes.nbytes(), q.codes.size());
        EXPECT_EQ(std::memcmp(codes.data(), q.codes.data(), q.codes.size()), 0);
        std::vector<float> w(q.dequantized.size());
        decodeQuantized(back, m).decodeTo(w);
        for (std::size_t i = 0; i < w.size(); ++i)
            ASSERT_EQ(w[i], q.dequantized[i]) << i; // q · s in FP32, as the quantizer computes Ŵ
    }
    EXPECT_TRUE(back.find("lm_head.weight") || !src.find("lm_head.weight"));
    // One scheme per checkpoint, exact exclusions, no static activation scales.
    EXPECT_THROW(exportRecipeText(recipeOf({{"method", "fp8"}}, lmHeadOnly()), ExportFormat::Fp8Block),
                 UnsupportedError);
    EXPECT_THROW(exportRecipeText(recipeOf(spec, ojson::array({{{"pattern", "*lm_head"}}})), ExportFormat::Fp8Block),
                 UnsupportedError);
    ExportOptions st;
    st.activations = ActivationScheme::Fp8Static;
    EXPECT_THROW(exportRecipeText(recipe, ExportFormat::Fp8Block, st), UnsupportedError);
    fs::remove_all(dir);
}
