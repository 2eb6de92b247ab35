// SPDX-License-Identifier: MIT
// `quantscope-cli export` end to end: OUT holds exactly what stdout shows; usage errors exit 2;
// a recipe the target cannot express exits 1 with the reason and writes no file; a checkpoint
// export re-reads as compressed-tensors (the decoder answers for its modules).
#include "cli_run.h"

#include <nlohmann/json.hpp>

using namespace cli_test;

namespace {

fs::path writeRecipe(const fs::path &dir, const std::string &name, const std::string &json)
{
    const fs::path p = dir / name;
    std::ofstream(p) << json;
    return p;
}

} // namespace

TEST(CliExport, OutFileEqualsStdoutAndRefusalsWriteNothing)
{
    const fs::path dir = fs::path(::testing::TempDir()) / ("qs_cli_export_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path w4a8 = writeRecipe(dir, "w4a8.json", R"({"quantscope_recipe": 1,
        "rules": [{"patterns": ["*"], "specs": [{"method": "progressive"}]}],
        "exclude": [{"pattern": "*lm_head"}]})");
    for (const std::string fmt : {"quark", "quark-script", "quantscope"}) {
        const Result shown = run({"export", "--recipe", w4a8.string(), "--format", fmt});
        ASSERT_EQ(shown.rc, 0) << shown.err;
        const fs::path out = dir / ("out_" + fmt);
        const Result written = run({"export", "--recipe", w4a8.string(), "--format", fmt, out.string()});
        ASSERT_EQ(written.rc, 0) << written.err;
        EXPECT_EQ(slurp(out), shown.out) << fmt;
    }
    const auto q = nlohmann::json::parse(slurp(dir / "out_quark"));
    EXPECT_EQ(q["global_quant_config"]["weight"].size(), 2u);

    const Result refused =
        run({"export", "--recipe", w4a8.string(), "--format", "compressed-tensors", (dir / "ct.json").string()});
    EXPECT_EQ(refused.rc, 1);
    EXPECT_NE(refused.err.find("two-stage"), std::string::npos) << refused.err;
    EXPECT_FALSE(fs::exists(dir / "ct.json"));
    EXPECT_FALSE(fs::exists(dir / "ct.json.tmp"));

    EXPECT_EQ(run({"export", "--recipe", w4a8.string(), "--format", "gguf"}).rc, 2);
    EXPECT_EQ(run({"export", "--format", "quark"}).rc, 2);
    const Result bad = run({"export", "--recipe", (dir / "missing.json").string(), "--format", "quark"});
    EXPECT_EQ(bad.rc, 1);
    EXPECT_NE(bad.err.find("missing.json"), std::string::npos) << bad.err;
    fs::remove_all(dir);
}

TEST(CliExport, CheckpointExportDecodesWithTheCli)
{
    const fs::path stories = fs::path(QUANTSCOPE_SHARED_DATA) / "stories260K" / "model.safetensors";
    if (!fs::exists(stories))
        GTEST_SKIP() << stories << " is absent (set QUANTSCOPE_SHARED_DATA to the shared/data folder)";
    const fs::path dir = fs::path(::testing::TempDir()) / ("qs_cli_export_ck_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path r = writeRecipe(dir, "r.json", R"({"quantscope_recipe": 1,
        "rules": [{"patterns": ["*"], "specs": [{"method": "int", "group": 4}]}],
        "exclude": [{"pattern": "lm_head", "dialect": "exact"}]})");
    const fs::path out = dir / "ct";
    const Result res = run({"export", "--recipe", r.string(), "--format", "compressed-tensors", "--checkpoint",
                            stories.string(), "--out-dir", out.string()});
    ASSERT_EQ(res.rc, 0) << res.err;
    EXPECT_TRUE(fs::exists(out / "model.safetensors"));
    EXPECT_FALSE(fs::exists(dir / "ct.partial"));
    const Result doctor = run({"doctor", out.string()});
    EXPECT_EQ(doctor.rc, 0) << doctor.out; // healthy: info only
    // A non-empty DIR is refused.
    const Result again = run({"export", "--recipe", r.string(), "--format", "compressed-tensors", "--checkpoint",
                              stories.string(), "--out-dir", out.string()});
    EXPECT_EQ(again.rc, 1);
    fs::remove_all(dir);
}

TEST(CliExport, QuarkCheckpointOfTheDemoReadsBackAsQuark)
{
    const fs::path dir = fs::path(::testing::TempDir()) / ("qs_cli_export_quark_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path r = writeRecipe(dir, "w4a8.json", R"({"quantscope_recipe": 1,
        "rules": [{"patterns": ["*"], "specs": [{"method": "progressive"}]}],
        "exclude": [{"pattern": "*self_attn*"}, {"pattern": "*mlp.gate"}, {"pattern": "*lm_head"},
                    {"pattern": "*mlp.gate_proj"}, {"pattern": "*mlp.up_proj"}, {"pattern": "*mlp.down_proj"},
                    {"pattern": "*shared_experts*"}, {"pattern": "*embed_tokens"}]})");
    const fs::path out = dir / "quark";
    const Result res = run({"export", "--recipe", r.string(), "--format", "quark", "--activations", "fp8-dynamic",
                            "--checkpoint", demoDir().string(), "--out-dir", out.string()});
    ASSERT_EQ(res.rc, 0) << res.err;
    EXPECT_FALSE(fs::exists(dir / "quark.partial"));
    const Result info = run({"info", out.string(), "--tensor", "model.layers.1.mlp.experts.2.up_proj", "--json"});
    ASSERT_EQ(info.rc, 0) << info.err;
    const auto j = nlohmann::json::parse(info.out);
    EXPECT_EQ(j["tensors"][0]["format"], "quark/real_quantized");
    EXPECT_EQ(j["tensors"][0]["scheme"]["two_stage"], true);
    const Result dec = run({"decode", out.string(), "--tensor", "model.layers.1.mlp.experts.2.up_proj", "--out",
                            (dir / "w.npy").string()});
    EXPECT_EQ(dec.rc, 0) << dec.err;
    // HQQ has no Quark scheme: exit 1 with the reason, no folder.
    const fs::path h = writeRecipe(dir, "hqq.json", R"({"quantscope_recipe": 1,
        "rules": [{"patterns": ["*"], "specs": [{"method": "hqq"}]}]})");
    const Result refused = run({"export", "--recipe", h.string(), "--format", "quark", "--checkpoint",
                                demoDir().string(), "--out-dir", (dir / "no").string()});
    EXPECT_EQ(refused.rc, 1);
    EXPECT_FALSE(fs::exists(dir / "no"));
    fs::remove_all(dir);
}
