// SPDX-License-Identifier: MIT
// Fidelity against files the toolkits themselves wrote (tests/interop/golden, made by
// scripts/interop/make-toolkit-goldens.sh with AMD Quark 0.13 and compressed-tensors 0.20 from
// the real stories260K weights): every module of every golden checkpoint decodes to the toolkit's
// own dequantized weights bit for bit in the toolkit's output dtype, at the toolkit's shape; and
// our quantizers give Quark's codes and scales from the original weights.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/checkpoint.h"
#include "io/quantized.h"
#include "quant/quant_spec.h"
#include "quant/quantizer.h"
#include "tensor/convert.h"

namespace fs = std::filesystem;
using namespace quantscope;
using nlohmann::json;

namespace {

const fs::path kGolden = fs::path(QUANTSCOPE_SOURCE_DIR) / "tests/interop/golden";

json readJson(const fs::path &p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return json::parse(ss.str());
}

std::vector<json> cases(const std::string &status = "ok")
{
    std::vector<json> out;
    const json index = readJson(kGolden / "INDEX.json");
    for (const auto &c : index["cases"])
        if (c["status"] == status)
            out.push_back(c);
    return out;
}

std::vector<std::string> caseNames()
{
    std::vector<std::string> names;
    for (const auto &c : cases())
        names.push_back(c["case"]);
    return names;
}

json caseOf(const std::string &name)
{
    for (const auto &c : cases())
        if (c["case"] == name)
            return c;
    return {};
}

/// Our FP32 values in the expected tensor's dtype, as bit patterns, and the expected ones.
std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> inDtypeOf(const Tensor &expected, const Tensor &ours)
{
    std::vector<float> e(static_cast<std::size_t>(expected.numel())), o(static_cast<std::size_t>(ours.numel()));
    expected.decodeTo(e);
    ours.decodeTo(o);
    std::vector<std::uint32_t> eb(e.size()), ob(o.size());
    for (std::size_t i = 0; i < e.size(); ++i) {
        if (expected.dtype() == DType::BF16) {
            eb[i] = floatToBf16(e[i]);
            ob[i] = i < o.size() ? floatToBf16(o[i]) : 0;
        } else {
            std::memcpy(&eb[i], &e[i], 4);
            if (i < o.size())
                std::memcpy(&ob[i], &o[i], 4);
        }
    }
    return {eb, ob};
}

class ToolkitGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(ToolkitGolden, EveryModuleDecodesToTheToolkitsOwnWeights)
{
    const json c = caseOf(GetParam());
    const fs::path dir = kGolden / GetParam();
    const Checkpoint ck = Checkpoint::open(dir / "model.safetensors"); // config.json beside it
    DetectOptions lax;
    lax.strict = false;
    const Detection det = detectQuantized(ck, lax);
    for (const auto &p : det.problems)
        ADD_FAILURE() << GetParam() << ": " << p.message;
    const Checkpoint expected = Checkpoint::open(dir / "expected_dequant.safetensors");
    ASSERT_FALSE(c["modules"].empty());
    for (const auto &modJ : c["modules"]) {
        const std::string mod = modJ;
        SCOPED_TRACE(mod);
        const Tensor want = expected.tensor(mod + ".weight");
        const QuantizedModule *m = det.find(mod);
        Tensor got;
        if (m) {
            got = decodeQuantized(ck, *m);
        } else {
            // Not quantized by the toolkit (an ignored module): stored dense.
            ASSERT_NE(ck.find(mod + ".weight"), nullptr);
            got = ck.tensor(mod + ".weight").toF32();
        }
        ASSERT_EQ(got.shape(), want.shape()) << "decoded at another shape than the toolkit's";
        const auto [wantBits, gotBits] = inDtypeOf(want, got);
        std::int64_t differ = 0, first = -1;
        for (std::size_t i = 0; i < wantBits.size(); ++i)
            if (wantBits[i] != gotBits[i] && differ++ == 0)
                first = static_cast<std::int64_t>(i);
        EXPECT_EQ(differ, 0) << "elements differing from the toolkit's " << nameOf(want.dtype())
                             << " weights; first at " << first;
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, ToolkitGolden, ::testing::ValuesIn(caseNames()),
                         [](const auto &info) { return info.param; });

/// Our spec for each Quark golden (the toolkit's spec in our terms, docs/numerics.md).
struct QuarkCase {
    const char *folder;
    const char *spec;
};

const QuarkCase kQuarkCases[] = {
    {"quark_w4a8_progressive_reorder", R"({"method": "progressive"})"},
    {"quark_int4_channel_sym_reorder", R"({"method": "int", "bits": 4, "granularity": "channel", "axis": 0,
      "symmetric": true, "scale_apply": "reciprocal"})"},
    {"quark_int4_channel_asym_reorder", R"({"method": "int", "bits": 4, "granularity": "channel", "axis": 0,
      "symmetric": false, "scale_apply": "reciprocal"})"},
    {"quark_int4_group4_sym_reorder", R"({"method": "int", "bits": 4, "granularity": "group", "group": 4,
      "symmetric": true, "scale_apply": "reciprocal"})"},
    {"quark_int4_group4_asym_reorder", R"({"method": "int", "bits": 4, "granularity": "group", "group": 4,
      "symmetric": false, "scale_apply": "reciprocal"})"},
    {"quark_fp8_w8a8_reorder", R"({"method": "fp8", "format": "e4m3", "granularity": "tensor"})"},
};

std::vector<float> floats(const Tensor &t)
{
    std::vector<float> v(static_cast<std::size_t>(t.numel()));
    t.decodeTo(v);
    return v;
}

class QuarkCodes : public ::testing::TestWithParam<QuarkCase> {};

TEST_P(QuarkCodes, OurQuantizerGivesQuarksCodesAndScales)
{
    const fs::path original = fs::path(QUANTSCOPE_SHARED_DATA) / "stories260K" / "model.safetensors";
    if (!fs::exists(original))
        GTEST_SKIP() << "../shared/data/stories260K is absent: the original weights Quark quantized are needed";
    const QuarkCase qc = GetParam();
    const json c = caseOf(qc.folder);
    ASSERT_FALSE(c.is_null()) << qc.folder;
    const Checkpoint weights = Checkpoint::open(original);
    const Checkpoint expected = Checkpoint::open(kGolden / qc.folder / "expected_codes.safetensors");
    const auto quantizer = makeQuantizer(parseQuantSpec(json::parse(qc.spec)));
    const bool progressive = std::string(qc.spec).find("progressive") != std::string::npos;
    for (const auto &modJ : c["modules"]) {
        const std::string mod = modJ;
        SCOPED_TRACE(mod);
        QuantizeOptions o;
        o.tensorName = mod + ".weight";
        const QuantizedTensor q = quantizer->quantize(weights.tensor(mod + ".weight"), o);
        // Codes: INT codes as int8, FP8 codes as their bit patterns.
        const Tensor want = expected.tensor(mod + ".codes");
        ASSERT_EQ(static_cast<std::int64_t>(q.codes.size()), want.numel());
        std::int64_t differ = 0;
        for (std::int64_t i = 0; i < want.numel(); ++i) {
            const auto wantByte = static_cast<std::uint8_t>(want.data()[i]);
            differ += q.codes[static_cast<std::size_t>(i)] != wantByte;
        }
        EXPECT_EQ(differ, 0) << "codes differing from Quark's";
        // Scales: the inner level's (s2 for ProgressiveSpec), and s1.
        const auto scales = floats(expected.tensor(mod + (progressive ? ".weight_scale_2" : ".weight_scale")));
        ASSERT_EQ(q.scales.size(), scales.size());
        for (std::size_t i = 0; i < scales.size(); ++i)
            ASSERT_EQ(q.scales[i], scales[i]) << "scale " << i;
        if (progressive) {
            ASSERT_EQ(q.outerScales.size(), 1u);
            EXPECT_EQ(q.outerScales[0], floats(expected.tensor(mod + ".weight_scale"))[0]) << "s1";
        }
        if (const std::string zname = mod + (progressive ? ".weight_zero_point_2" : ".weight_zero_point");
            expected.find(zname)) {
            const auto z = floats(expected.tensor(zname));
            for (std::size_t i = 0; i < z.size(); ++i)
                ASSERT_EQ(q.zeros.empty() ? 0 : q.zeros[i], static_cast<int>(z[i])) << "zero point " << i;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Quark, QuarkCodes, ::testing::ValuesIn(kQuarkCases), [](const auto &info) {
    std::string n = info.param.folder;
    return n.substr(6, n.size() - 6 - 8); // without "quark_" and "_reorder"
});

} // namespace
