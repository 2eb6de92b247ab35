// SPDX-License-Identifier: MIT
// What the real toolkits said about our exports (tests/interop/golden/export_checks.json, written
// by scripts/interop/check-exports.sh with compressed-tensors, llm-compressor and AMD Quark):
// every check of the matrix passed or was refused by our export with the recorded reason (and
// still is), and the numbers recorded for our side are recomputed here from our own writer and
// decoder — the FNV-1a 64 hash of each module's decoded FP32 weight, so the summary
// speaks about the code under test and not about an older build.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "demo/demo.h"
#include "export/ct_writer.h"
#include "export/checkpoint_writer.h"
#include "io/checkpoint.h"
#include "io/quantized.h"
#include "util/hash.h"
#include "util/error.h"

namespace fs = std::filesystem;
using namespace quantscope;
using json = nlohmann::json;

namespace {

const fs::path kSummary = fs::path(QUANTSCOPE_SOURCE_DIR) / "tests/interop/golden/export_checks.json";

std::string hex(std::uint64_t h)
{
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

json summary()
{
    std::ifstream in(kSummary);
    EXPECT_TRUE(in) << kSummary << " is missing: run scripts/interop/check-exports.sh";
    return in ? json::parse(in) : json();
}

} // namespace

namespace {

// How scripts/interop/check_exports.py invoked `quantscope-cli export` for a case: the same
// activations, pack method and --no-default-excludes.
ExportOptions optionsOf(const json &c)
{
    ExportOptions o;
    const auto act = parseActivationScheme(c.value("activations", std::string("none")));
    EXPECT_TRUE(act.has_value()) << c.value("activations", std::string());
    if (act)
        o.activations = *act;
    o.packMethod = c.value("pack_method", std::string("reorder"));
    o.defaultExcludes = c.value("default_excludes", true);
    return o;
}

} // namespace

TEST(ExportInterop, TheToolkitsAcceptedEveryExport)
{
    const json s = summary();
    ASSERT_TRUE(s.contains("checks"));
    // The matrix of docs/formats.md "Checked by the toolkits": every case is there, and each
    // passed (the toolkit's own code gave our weights and schemes) or was refused by our export.
    for (const char *name :
         {"ct_w4a16_group4_sym", "ct_w4a16_group4_asym", "ct_w8a16_channel_sym", "ct_w8a16_channel_asym",
          "ct_w8a8_fp8_channel", "ct_fp8_channel_weight_only", "ct_nvfp4a16", "quark_int4_channel_sym",
          "quark_int4_group4_sym", "quark_int4_group4_asym_order", "quark_w4a8_progressive",
          "ct_mixed_layer0_int8_rest_w4a16", "ct_overlap_override", "quark_overlap_override_config",
          "ct_lm_head_quantized", "ct_demo_moe_experts_w4a16", "llmcompressor", "quark"}) {
        ASSERT_TRUE(s["checks"].contains(name)) << name;
        const json &c = s["checks"][name];
        EXPECT_EQ(c["status"], "passed") << name << ": " << c.dump().substr(0, 600);
    }
    for (const char *name : {"refused_ct_w4a16_group128", "refused_quark_int4_group128", "refused_fp8_block128",
                             "refused_ct_fp8_block128", "refused_ct_fused_qk_int8_v_int4", "refused_ct_fp8_static"}) {
        ASSERT_TRUE(s["checks"].contains(name)) << name;
        const json &c = s["checks"][name];
        EXPECT_EQ(c["status"], "refused") << name << ": " << c.dump().substr(0, 600);
        EXPECT_NE(c["message"].get<std::string>().find(c["key"].get<std::string>()), std::string::npos) << name;
    }
    for (const auto &[name, c] : s["checks"].items())
        EXPECT_TRUE(c["status"] == "passed" || c["status"] == "refused") << name << ": " << c.dump().substr(0, 600);
    // Every module resolved, by the toolkit's own rule, to the recipe's scheme.
    for (const auto &[name, c] : s["checks"].items()) {
        if (c.contains("resolution_equals_recipe"))
            EXPECT_EQ(c["resolution_equals_recipe"], true) << name;
    }
    const json &overlap = s["checks"]["quark_overlap_override_config"];
    EXPECT_TRUE(overlap["mismatches"].empty());
    EXPECT_EQ(overlap["resolution"]["model.layers.1.mlp.down_proj"]["get_layer_quant_config"]["bits"], 8);
    EXPECT_EQ(overlap["resolution"]["model.layers.1.mlp.down_proj"]["setup_config_per_layer"]["strategy"], "group");
    EXPECT_EQ(overlap["resolution"]["model.layers.2.mlp.down_proj"]["setup_config_per_layer"]["bits"], 4);
    EXPECT_EQ(overlap["resolution"]["model.layers.0.mlp.down_proj"]["setup_config_per_layer"]["strategy"], "channel");
    // NVFP4: one global scale per fused group, the toolkit's.
    EXPECT_EQ(s["checks"]["ct_nvfp4a16"]["nvfp4_global_scale"]["equal"], true);
    // transformers' from_pretrained gave our weights and finite logits.
    for (const char *name : {"ct_w4a16_group4_sym", "ct_w8a8_fp8_channel"}) {
        const json &t = s["checks"][name]["transformers"];
        EXPECT_EQ(t["status"], "ok") << name;
        EXPECT_EQ(t["max_abs_diff"], 0.0) << name;
        EXPECT_EQ(t["logits_finite"], true) << name;
    }
    // A quantized head is written untied.
    EXPECT_EQ(s["checks"]["ct_lm_head_quantized"]["tie_word_embeddings_written"], false);
    EXPECT_TRUE(s["checks"]["ct_lm_head_quantized"]["modules"].contains("lm_head"));
    // llm-compressor turned our YAML into its QuantizationModifier.
    bool modifier = false;
    for (const auto &m : s["checks"]["llmcompressor"]["modifiers"])
        modifier = modifier || m["type"] == "QuantizationModifier";
    EXPECT_TRUE(modifier);
    // Quark parsed the W4A8 config into its two stage tensor configs, FP8 E4M3 then INT4.
    const json &q = s["checks"]["quark"];
    EXPECT_EQ(q["weight_spec_classes"], json::parse(R"(["QTensorConfig", "QTensorConfig"])"));
    ASSERT_EQ(q["weight_dtypes"].size(), 2u);
    EXPECT_NE(q["weight_dtypes"][0].get<std::string>().find("fp8_e4m3"), std::string::npos);
    EXPECT_NE(q["weight_dtypes"][1].get<std::string>().find("int4"), std::string::npos);
    EXPECT_EQ(q["weight_to_dict_equals_ours"], true);
}

TEST(ExportInterop, DecompressionMatchesOurDecoderAsRecomputedHere)
{
    const fs::path stories = fs::path(QUANTSCOPE_SHARED_DATA) / "stories260K" / "model.safetensors";
    if (!fs::exists(stories))
        GTEST_SKIP() << stories << " is absent (set QUANTSCOPE_SHARED_DATA to the shared/data folder)";
    const json s = summary();
    const fs::path out = fs::temp_directory_path() / ("qs_export_interop_" + std::to_string(::getpid()));
    const fs::path demoDir = fs::temp_directory_path() / ("qs_export_interop_demo_" + std::to_string(::getpid()));
    fs::remove_all(demoDir);
    demo::writeDemoCheckpoint(demoDir); // what `quantscope-cli demo` writes (the default seed)
    int checks = 0;
    for (const auto &[name, c] : s["checks"].items()) {
        if (!name.starts_with("ct_") || c["status"] != "passed")
            continue;
        SCOPED_TRACE(name);
        ASSERT_TRUE(c.contains("modules")) << c.dump().substr(0, 400);
        // ModelCompressor's weights equal `decode`'s (rounded to the toolkit's dtype, BF16 for NVFP4).
        EXPECT_EQ(c["max_abs_diff"], 0.0);
        fs::remove_all(out);
        const fs::path input = c.value("checkpoint", std::string("stories")) == "demo" ? demoDir : stories;
        exportCheckpoint(input.string(), Recipe::fromJson(c["recipe"]), ExportFormat::CompressedTensors, out.string(),
                         optionsOf(c));
        const Checkpoint back = Checkpoint::open(out);
        const Detection det = detectQuantized(back);
        std::uint64_t all = kFnv1aStandardBasis;
        int modules = 0;
        for (const auto &[module, m] : c["modules"].items()) {
            const QuantizedModule *qm = det.find(module);
            ASSERT_TRUE(qm) << module;
            const Tensor w = decodeQuantized(back, *qm);
            ASSERT_EQ(w.dtype(), DType::F32);
            EXPECT_EQ(hex(fnv1a64(w.data(), w.nbytes(), kFnv1aStandardBasis)), m["ours_fnv1a64"].get<std::string>())
                << module;
            all = fnv1a64(w.data(), w.nbytes(), all);
            ++modules;
        }
        EXPECT_EQ(modules, static_cast<int>(det.modules.size()));
        EXPECT_EQ(hex(all), c["ours_fnv1a64"].get<std::string>());
        ++checks;
    }
    EXPECT_EQ(checks, 11);
    fs::remove_all(out);
    fs::remove_all(demoDir);
}

TEST(ExportInterop, RefusedCasesAreStillRefusedWithTheRecordedReason)
{
    const fs::path stories = fs::path(QUANTSCOPE_SHARED_DATA) / "stories260K" / "model.safetensors";
    if (!fs::exists(stories))
        GTEST_SKIP() << stories << " is absent (set QUANTSCOPE_SHARED_DATA to the shared/data folder)";
    const json s = summary();
    const fs::path out = fs::temp_directory_path() / ("qs_export_interop_refused_" + std::to_string(::getpid()));
    int refused = 0;
    for (const auto &[name, c] : s["checks"].items()) {
        if (c["status"] != "refused")
            continue;
        SCOPED_TRACE(name);
        const auto format = parseExportFormat(c["format"].get<std::string>());
        ASSERT_TRUE(format.has_value()) << c["format"];
        const std::string key = c["key"].get<std::string>();
        fs::remove_all(out);
        try {
            exportCheckpoint(stories.string(), Recipe::fromJson(c["recipe"]), *format, out.string(), optionsOf(c));
            ADD_FAILURE() << "exported; the summary recorded a refusal: " << c["message"];
        } catch (const UnsupportedError &e) {
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what() << "\nkey: " << key;
        }
        EXPECT_FALSE(fs::exists(out));
        ++refused;
    }
    EXPECT_EQ(refused, 6);
    fs::remove_all(out);
}
