// SPDX-License-Identifier: MIT
// What the real toolkits said about our exports (tests/interop/golden/export_checks.json, written
// by scripts/interop/check-exports.sh with compressed-tensors, llm-compressor and AMD Quark):
// every check passed, and the numbers recorded for our side are recomputed here from our own
// writer and decoder — the FNV-1a 64 hash of each module's decoded FP32 weight, so the summary
// speaks about the code under test and not about an older build.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "export/ct_writer.h"
#include "export/checkpoint_writer.h"
#include "io/checkpoint.h"
#include "io/quantized.h"

namespace fs = std::filesystem;
using namespace quantscope;
using json = nlohmann::json;

namespace {

const fs::path kSummary = fs::path(QUANTSCOPE_SOURCE_DIR) / "tests/interop/golden/export_checks.json";

std::uint64_t fnv1a64(const std::byte *p, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ull)
{
    for (std::size_t i = 0; i < n; ++i) {
        h ^= std::to_integer<std::uint8_t>(p[i]);
        h *= 0x100000001b3ull;
    }
    return h;
}

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

TEST(ExportInterop, TheToolkitsAcceptedEveryExport)
{
    const json s = summary();
    ASSERT_TRUE(s.contains("checks"));
    for (const char *name : {"ct_w4a16_group4_sym", "ct_w8a16_channel_asym", "ct_w8a8_fp8_channel", "ct_nvfp4a16",
                             "llmcompressor", "quark"}) {
        ASSERT_TRUE(s["checks"].contains(name)) << name;
        const json &c = s["checks"][name];
        EXPECT_EQ(c["status"], "passed") << name << ": " << c.dump().substr(0, 600);
    }
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
    int checks = 0;
    for (const auto &[name, c] : s["checks"].items()) {
        if (!name.starts_with("ct_"))
            continue;
        SCOPED_TRACE(name);
        ASSERT_TRUE(c.contains("modules")) << c.dump().substr(0, 400);
        // ModelCompressor's weights equal `decode`'s (rounded to the toolkit's dtype, BF16 for NVFP4).
        EXPECT_EQ(c["max_abs_diff"], 0.0);
        fs::remove_all(out);
        ExportOptions o;
        o.activations = *parseActivationScheme(c["activations"].get<std::string>());
        exportCheckpoint(stories.string(), Recipe::fromJson(c["recipe"]), ExportFormat::CompressedTensors, out.string(),
                         o);
        const Checkpoint back = Checkpoint::open(out);
        const Detection det = detectQuantized(back);
        std::uint64_t all = 0xcbf29ce484222325ull;
        int modules = 0;
        for (const auto &[module, m] : c["modules"].items()) {
            const QuantizedModule *qm = det.find(module);
            ASSERT_TRUE(qm) << module;
            const Tensor w = decodeQuantized(back, *qm);
            ASSERT_EQ(w.dtype(), DType::F32);
            EXPECT_EQ(hex(fnv1a64(w.data(), w.nbytes())), m["ours_fnv1a64"].get<std::string>()) << module;
            all = fnv1a64(w.data(), w.nbytes(), all);
            ++modules;
        }
        EXPECT_EQ(modules, static_cast<int>(det.modules.size()));
        EXPECT_EQ(hex(all), c["ours_fnv1a64"].get<std::string>());
        ++checks;
    }
    EXPECT_EQ(checks, 4);
    fs::remove_all(out);
}
