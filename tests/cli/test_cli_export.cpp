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

// A Quark export's `<module>.weight` holds packed int32 words under the logical weight's name:
// the commands that quantize decode the module first (and say so) and never quantize the words;
// its other parts are refused naming the tensor, the scheme and the fix; a float tensor works.
TEST(CliExport, PackedQuarkWeightIsDecodedOrRefusedNeverQuantized)
{
    const fs::path dir = fs::path(::testing::TempDir()) / ("qs_cli_packed_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path r = writeRecipe(dir, "w4.json", R"({"quantscope_recipe": 1,
        "rules": [{"patterns": ["*"], "specs": [{"method": "int", "bits": 4, "granularity": "group", "group": 128}]}],
        "exclude": [{"pattern": "*self_attn*"}, {"pattern": "*mlp.gate"}, {"pattern": "*lm_head"},
                    {"pattern": "*mlp.gate_proj"}, {"pattern": "*mlp.up_proj"}, {"pattern": "*mlp.down_proj"},
                    {"pattern": "*shared_experts*"}, {"pattern": "*embed_tokens"}]})");
    const fs::path out = dir / "quark";
    const Result res = run({"export", "--recipe", r.string(), "--format", "quark", "--checkpoint", demoDir().string(),
                            "--out-dir", out.string()});
    ASSERT_EQ(res.rc, 0) << res.err;
    const std::string module = "model.layers.1.mlp.experts.2.up_proj";

    // The logical weight (stored as I32 words) and the module name: decoded first, said on stderr;
    // the error is that of quantizing Ŵ (small), not of the words (MSE ~1e13).
    for (const std::string &name : {module + ".weight", module}) {
        const Result q = run({"quantize", out.string(), "--tensor", name, "--method", "int", "--bits", "8",
                              "--granularity", "channel", "--json"});
        ASSERT_EQ(q.rc, 0) << q.err;
        EXPECT_NE(q.err.find("decoded " + module + " (quark/real_quantized"), std::string::npos) << q.err;
        const auto j = nlohmann::json::parse(q.out);
        EXPECT_LT(j["metrics"]["mse"].get<double>(), 1e-3);
        EXPECT_LT(j["stats_in"]["max"].get<double>(), 10.0); // weights, not int32 words
    }
    // Its scale is a part, not weights: exit 1 naming the tensor, the scheme and the fix.
    for (const std::vector<std::string> &cmd :
         {std::vector<std::string>{"quantize", out.string(), "--tensor", module + ".weight_scale", "--method", "int"},
          {"spectrum", out.string(), "--tensor", module + ".weight_scale", "--top", "4"},
          {"sweep", out.string(), "--tensor", module + ".weight_scale"},
          {"sweep-c", out.string(), "--tensor", module + ".weight_scale"}}) {
        const Result q = run(cmd);
        EXPECT_EQ(q.rc, 1) << cmd[0];
        EXPECT_TRUE(q.out.empty()) << cmd[0];
        EXPECT_NE(q.err.find(module + ".weight_scale"), std::string::npos) << q.err;
        EXPECT_NE(q.err.find("quark/real_quantized"), std::string::npos) << q.err;
        EXPECT_NE(q.err.find("quantscope-cli decode"), std::string::npos) << q.err;
    }
    // A float tensor of the same checkpoint still quantizes as it is.
    const Result f = run(
        {"quantize", out.string(), "--tensor", "model.layers.0.self_attn.q_proj.weight", "--method", "int", "--json"});
    ASSERT_EQ(f.rc, 0) << f.err;
    EXPECT_EQ(f.err.find("decoded"), std::string::npos) << f.err;
    fs::remove_all(dir);
}

// Integer words the detection does not recognise are refused too (exit 1, tensor named).
TEST(CliExport, UndetectedIntegerTensorIsRefusedAsWeights)
{
    const fs::path dir = fs::path(::testing::TempDir()) / ("qs_cli_intw_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path npy = dir / "codes.npy";
    {
        // NumPy v1 header for int32 [4, 8], then 32 words.
        std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (4, 8), }";
        while ((10 + header.size() + 1) % 64 != 0)
            header += ' ';
        header += '\n';
        std::ofstream o(npy, std::ios::binary);
        o.write("\x93NUMPY\x01\x00", 8);
        const auto len = static_cast<unsigned short>(header.size());
        o.put(static_cast<char>(len & 0xff));
        o.put(static_cast<char>(len >> 8));
        o << header;
        for (int i = 0; i < 32; ++i) {
            const std::int32_t w = 0x12345678 + i;
            o.write(reinterpret_cast<const char *>(&w), 4);
        }
    }
    const Result q = run({"quantize", npy.string(), "--tensor", "codes", "--method", "int"});
    EXPECT_EQ(q.rc, 1);
    EXPECT_NE(q.err.find("'codes'"), std::string::npos) << q.err;
    EXPECT_NE(q.err.find("I32"), std::string::npos) << q.err;
    fs::remove_all(dir);
}
