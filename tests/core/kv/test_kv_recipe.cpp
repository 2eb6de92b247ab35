// SPDX-License-Identifier: MIT
// The recipe's kv_cache section: strict parsing, boundary protection and ranges per layer, and the
// toolkit configs that can state it (compressed-tensors' kv_cache_scheme, llm-compressor's YAML,
// Quark's kv_cache_quant_config) or the reason they cannot.
#include <gtest/gtest.h>

#include "export/config_export.h"
#include "recipe/recipe.h"
#include "util/error.h"

using namespace quantscope;
using ojson = nlohmann::ordered_json;
using nlohmann::json;

namespace {

Recipe withKv(const ojson &kv)
{
    ojson j = {
        {"quantscope_recipe", 1},
        {"rules", ojson::array({ojson{{"patterns", {"*"}}, {"specs", ojson::array({ojson{{"method", "fp8"}}})}}})},
        {"kv_cache", kv}};
    return Recipe::fromJson(j);
}

std::string refusal(const ojson &kv)
{
    try {
        withKv(kv);
    } catch (const FormatError &e) {
        return e.what();
    }
    return "accepted";
}

std::string exportRefusal(const Recipe &r, ExportFormat f)
{
    try {
        exportRecipeText(r, f);
    } catch (const UnsupportedError &e) {
        return e.what();
    }
    return "accepted";
}

} // namespace

TEST(KvRecipe, SectionRoundTripsAndResolvesLayers)
{
    const Recipe r = withKv({{"k", "constopt:c=0.195"},
                             {"v", "fp8"},
                             {"boundary", 2},
                             {"layers", 10},
                             {"ranges", ojson::array({ojson{{"layers", {4, 5}}, {"k", "int4"}, {"v", "int4"}}})}});
    ASSERT_TRUE(r.kvCache);
    EXPECT_EQ(Recipe::fromJson(r.toJson()), r);
    EXPECT_EQ(r.kvCache->schemesOf(0), (std::pair<std::string, std::string>{"bf16", "bf16"}));
    EXPECT_EQ(r.kvCache->schemesOf(1), (std::pair<std::string, std::string>{"bf16", "bf16"}));
    EXPECT_EQ(r.kvCache->schemesOf(2), (std::pair<std::string, std::string>{"constopt:c=0.195", "fp8"}));
    EXPECT_EQ(r.kvCache->schemesOf(5), (std::pair<std::string, std::string>{"int4", "int4"}));
    EXPECT_EQ(r.kvCache->schemesOf(8), (std::pair<std::string, std::string>{"bf16", "bf16"}));
    EXPECT_FALSE(r.kvCache->uniform());
    // A recipe without the section keeps its bytes (and hash) unchanged.
    const Recipe plain = Recipe::fromJson(ojson{{"quantscope_recipe", 1}, {"rules", ojson::array()}});
    EXPECT_EQ(plain.toJson().count("kv_cache"), 0u);
}

TEST(KvRecipe, EveryLieIsRefusedWithItsPath)
{
    EXPECT_NE(refusal({{"k", "int3"}}).find("kv_cache.k"), std::string::npos);
    EXPECT_NE(refusal({{"v", 4}}).find("kv_cache.v"), std::string::npos);
    EXPECT_NE(refusal({{"boundary", 2}}).find("needs kv_cache.layers"), std::string::npos);
    EXPECT_NE(refusal({{"boundary", -1}, {"layers", 4}}).find("kv_cache.boundary"), std::string::npos);
    EXPECT_NE(
        refusal({{"layers", 4}, {"ranges", ojson::array({ojson{{"layers", {3, 1}}, {"k", "fp8"}, {"v", "fp8"}}})}})
            .find("kv_cache.ranges[0].layers"),
        std::string::npos);
    EXPECT_NE(
        refusal({{"layers", 4}, {"ranges", ojson::array({ojson{{"layers", {1, 4}}, {"k", "fp8"}, {"v", "fp8"}}})}})
            .find("beyond kv_cache.layers"),
        std::string::npos);
    EXPECT_NE(refusal({{"ranges", ojson::array({ojson{{"layers", {1, 2}}, {"k", "fp8"}}})}}).find("ranges[0]"),
              std::string::npos);
    EXPECT_NE(refusal({{"kk", "fp8"}}).find("kk"), std::string::npos);
}

TEST(KvRecipe, Fp8KvCacheIsWrittenWhereTheToolkitsStateIt)
{
    const Recipe tensor = withKv({{"k", "fp8"}, {"v", "fp8"}});
    const json ct = json::parse(exportRecipeText(tensor, ExportFormat::CompressedTensors));
    const json want = {{"dynamic", false},     {"group_size", nullptr}, {"num_bits", 8},
                       {"strategy", "tensor"}, {"symmetric", true},     {"type", "float"}};
    EXPECT_EQ(ct["kv_cache_scheme"], want);
    const Recipe head = withKv({{"k", "fp8-head"}, {"v", "fp8-head"}});
    EXPECT_EQ(json::parse(exportRecipeText(head, ExportFormat::CompressedTensors))["kv_cache_scheme"]["strategy"],
              "attn_head");
    const std::string yaml = exportRecipeText(tensor, ExportFormat::LlmCompressor);
    EXPECT_NE(yaml.find("      kv_cache_scheme: " + want.dump()), std::string::npos) << yaml;
    const json q = json::parse(exportRecipeText(tensor, ExportFormat::Quark));
    EXPECT_EQ(q["export"]["kv_cache_group"], json::array({"*k_proj", "*v_proj"}));
    for (const char *p : {"*k_proj", "*v_proj"}) {
        const json &l = q["kv_cache_quant_config"][p];
        EXPECT_EQ(l["output_tensors"]["dtype"], "fp8_e4m3");
        EXPECT_EQ(l["output_tensors"]["qscheme"], "per_tensor");
        EXPECT_EQ(l["output_tensors"]["is_dynamic"], false);
        EXPECT_EQ(l["weight"], q["global_quant_config"]["weight"]); // the projection's own weight spec
    }
    // Without a section nothing changes.
    const Recipe none = Recipe::fromJson(ojson{
        {"quantscope_recipe", 1},
        {"rules", ojson::array({ojson{{"patterns", {"*"}}, {"specs", ojson::array({ojson{{"method", "fp8"}}})}}})}});
    EXPECT_TRUE(json::parse(exportRecipeText(none, ExportFormat::CompressedTensors))["kv_cache_scheme"].is_null());
    EXPECT_TRUE(json::parse(exportRecipeText(none, ExportFormat::Quark))["kv_cache_quant_config"].empty());
}

TEST(KvRecipe, WhatNoToolkitCanStateIsRefusedWithTheReason)
{
    const Recipe boundary = withKv({{"k", "fp8"}, {"v", "fp8"}, {"boundary", 2}, {"layers", 30}});
    EXPECT_NE(
        exportRefusal(boundary, ExportFormat::CompressedTensors).find("one KV-cache scheme for every attention layer"),
        std::string::npos);
    const Recipe mixed = withKv({{"k", "fp8"}, {"v", "int4"}});
    EXPECT_NE(exportRefusal(mixed, ExportFormat::Quark).find("K fp8, V int4"), std::string::npos);
    const Recipe fp4 = withKv({{"k", "constopt"}, {"v", "constopt"}});
    EXPECT_NE(exportRefusal(fp4, ExportFormat::CompressedTensors).find("FP8 KV cache only"), std::string::npos);
    const Recipe vllm = withKv({{"k", "fp8-vllm"}, {"v", "fp8-vllm"}});
    EXPECT_NE(exportRefusal(vllm, ExportFormat::LlmCompressor).find("--calculate-kv-scales"), std::string::npos);
    const Recipe head = withKv({{"k", "fp8-head"}, {"v", "fp8-head"}});
    EXPECT_NE(exportRefusal(head, ExportFormat::Quark).find("per tensor"), std::string::npos);
    // The Quantscope recipe itself keeps any section.
    EXPECT_EQ(exportRefusal(boundary, ExportFormat::Quantscope), "accepted");
}
