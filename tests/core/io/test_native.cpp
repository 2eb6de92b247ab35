// SPDX-License-Identifier: MIT
// The native layout (`quantize --save`) as a first-class quantized module: every method's result
// saved, listed by detectQuantized as one module with its scheme, and decoded bit for bit to the
// Ŵ the engine reported (the job the CLI and the window run). Also the documented nibble order
// and sign convention, checked on hand-made codes.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "engine/job.h"
#include "io/checkpoint.h"
#include "io/native.h"
#include "io/quantized.h"
#include "io/safetensors.h"

using namespace quantscope;

namespace {

/// Heavy-tailed weights with a few outlier rows, [N, K].
Tensor sampleWeight(std::int64_t N, std::int64_t K, unsigned seed)
{
    std::mt19937 rng(seed);
    std::student_t_distribution<float> t(3.0f);
    std::vector<float> w(static_cast<std::size_t>(N * K));
    for (std::int64_t i = 0; i < N * K; ++i)
        w[static_cast<std::size_t>(i)] = 0.02f * t(rng) * ((i / K) % 7 == 3 ? 8.0f : 1.0f);
    return Tensor::fromFloats({N, K}, w);
}

std::shared_ptr<const QuantizedTensor> engineResult(const Tensor &w, const nlohmann::json &spec)
{
    QuantizeJobRequest request;
    request.tensors = {"model.layers.0.mlp.down_proj.weight"};
    request.configs = {{"c", spec}};
    request.device = DeviceChoice::Cpu;
    request.profileChannels = false;
    request.keepQuantized = true;
    TensorSource source;
    source.weight = [&w](const std::string &) { return w; };
    const QuantizeJobResult r = runQuantizeJob(request, source, CancelToken());
    EXPECT_EQ(r.outcomes.size(), 1u);
    if (r.outcomes.size() != 1)
        return nullptr;
    EXPECT_TRUE(r.outcomes[0].ok()) << spec.dump() << ": " << r.outcomes[0].error;
    return r.outcomes[0].quantized;
}

std::filesystem::path tempFile(const std::string &name)
{
    return std::filesystem::path(::testing::TempDir()) / ("qs_native_" + name + ".safetensors");
}

} // namespace

TEST(NativeLayout, EveryMethodSavesListsAndDecodesToTheEngineResult)
{
    std::vector<nlohmann::json> specs;
    for (const MethodInfo &m : quantizerMethods()) // every method the engine offers, at its defaults
        // gptq/awq need a capture (their round trips are in test_gptq.cpp); gguf's packed ggml
        // blocks are refused by the native layout (below)
        if (m.method != "gptq" && m.method != "awq" && m.method != "gguf")
            specs.push_back(m.defaults);
    const std::vector<nlohmann::json> variants = {
        {{"method", "int"}, {"bits", 4}, {"granularity", "group"}, {"group", 32}, {"symmetric", false}},
        {{"method", "int"}, {"bits", 3}, {"granularity", "channel"}, {"scale_dtype", "bf16"}},
        {{"method", "int"}, {"bits", 8}, {"granularity", "block"}, {"block", 32}, {"symmetric", false}},
        {{"method", "int"}, {"bits", 2}, {"granularity", "group"}, {"group", 48}, {"scale_dtype", "fp16"}},
        {{"method", "int"}, {"bits", 6}, {"granularity", "tensor"}},
        {{"method", "fp8"}, {"format", "e5m2"}, {"granularity", "channel"}},
        {{"method", "fp8"}, {"granularity", "block"}, {"block", 32}},
        {{"method", "hqq"}, {"bits", 3}, {"group", 32}, {"compute", "fp16"}},
        {{"method", "hqq"}, {"preset", "milo-code"}, {"group", 64}},
        {{"method", "hqq"}, {"bits", 8}, {"group", 64}, {"axis", 0}},
        {{"method", "milo"}, {"rank", 4}, {"passes", 2}, {"compensator", "fp16"}},
        {{"method", "milo"}, {"rank", 4}, {"passes", 2}, {"compensator", "int8"}},
        {{"method", "milo"}, {"rank", 3}, {"passes", 2}, {"compensator", "int3"}},
        {{"method", "milo"}, {"rank", 5}, {"passes", 2}, {"compensator", "milo-code-int3"}},
        {{"method", "constopt"}, {"rotate", 16}},
    };
    specs.insert(specs.end(), variants.begin(), variants.end());
    const Tensor w = sampleWeight(64, 192, 7); // K = 192: group 48 and block 32 fit, 128 is ragged
    const std::string module = "model.layers.0.mlp.down_proj";
    for (const nlohmann::json &spec : specs) {
        SCOPED_TRACE(spec.dump());
        const auto q = engineResult(w, spec);
        ASSERT_TRUE(q);
        ASSERT_EQ(q->dequantized.size(), static_cast<std::size_t>(w.numel()));
        const auto path = tempFile(spec.value("method", "x"));
        writeNative(path, *q);

        const Checkpoint ck = Checkpoint::open(path);
        ASSERT_TRUE(isNativeCheckpoint(ck));
        const Detection det = detectQuantized(ck);
        ASSERT_EQ(det.modules.size(), 1u);
        const QuantizedModule &m = det.modules[0];
        EXPECT_EQ(m.module, module);
        EXPECT_EQ(m.format, QuantFormat::QuantscopeNative);
        EXPECT_EQ(m.scheme.method, q->method);
        EXPECT_EQ(m.shape, w.shape());
        for (const TensorEntry &e : ck.entries()) // no raw qs_* part is left as a plain tensor
            EXPECT_TRUE(det.isPart(e.name)) << e.name;
        if (q->method == "hqq" || q->method == "milo")
            EXPECT_NE(m.scheme.text().find("float zero points"), std::string::npos) << m.scheme.text();
        if (q->method == "milo")
            EXPECT_NE(m.scheme.text().find("compensator"), std::string::npos) << m.scheme.text();

        // Ŵ bit for bit (NaN patterns included) against the engine's own.
        const Tensor decoded = decodeQuantized(ck, m);
        ASSERT_EQ(decoded.shape(), w.shape());
        std::vector<float> got(static_cast<std::size_t>(decoded.numel()));
        decoded.decodeTo(got);
        std::size_t differ = 0, first = 0;
        for (std::size_t i = 0; i < got.size(); ++i)
            if (std::bit_cast<std::uint32_t>(got[i]) != std::bit_cast<std::uint32_t>(q->dequantized[i]) &&
                differ++ == 0)
                first = i;
        EXPECT_EQ(differ, 0u) << "first at " << first << ": " << got[first] << " vs " << q->dequantized[first];

        // The codes as the quantizer produced them.
        const Tensor codes = quantizedCodes(ck, m);
        ASSERT_EQ(codes.numel(), w.numel());
        if (codes.dtype() == DType::I32) {
            std::vector<float> c(static_cast<std::size_t>(codes.numel()));
            codes.decodeTo(c);
            for (std::size_t i = 0; i < c.size(); ++i) {
                const int want = q->codeDtype == DType::U8 ? static_cast<int>(q->codes[i])
                                                           : static_cast<int>(static_cast<std::int8_t>(q->codes[i]));
                ASSERT_EQ(static_cast<int>(c[i]), want) << "code " << i;
            }
        }
        // The scale grid and zero points as the quantizer produced them.
        const QuantParams p = quantizedParams(ck, m);
        ASSERT_EQ(p.scales.size(), q->scales.size());
        for (std::size_t i = 0; i < p.scales.size(); ++i)
            ASSERT_EQ(std::bit_cast<std::uint32_t>(p.scales[i]), std::bit_cast<std::uint32_t>(q->scales[i])) << i;
        EXPECT_EQ(p.zeroPoints.size(), q->zeroPoints.empty() ? q->zeros.size() : q->zeroPoints.size());
        std::filesystem::remove(path);
    }
}

TEST(NativeLayout, NibbleOrderAndSignAsDocumented)
{
    // docs/formats.md: element 2k in the low nibble, INT codes two's complement. INT4 symmetric
    // per tensor of (−1, 2, 7, 0) codes (−1, 2, 7, 0) → bytes 0x2F, 0x07.
    const std::vector<float> x = {-1.0f, 2.0f, 7.0f, 0.0f};
    const auto q = makeQuantizer({{"method", "int"}, {"bits", 4}, {"granularity", "tensor"}})
                       ->quantize(Tensor::fromFloats({1, 4}, x), {});
    ASSERT_EQ(q.codes, (std::vector<std::uint8_t>{0xFF, 2, 7, 0})); // int8 −1 as a byte
    QuantizedTensor named = q;
    named.tensorName = "layer.weight";
    const auto path = tempFile("nibbles");
    writeNative(path, named);
    const auto f = SafetensorsFile::open(path);
    const Tensor codes = f.tensor("layer.qs_codes");
    ASSERT_EQ(codes.dtype(), DType::U8);
    ASSERT_EQ(codes.shape(), (Shape{1, 2}));
    EXPECT_EQ(std::to_integer<int>(codes.data()[0]), 0x2F);
    EXPECT_EQ(std::to_integer<int>(codes.data()[1]), 0x07);
    // Read back: the signed codes again.
    const Checkpoint ck = Checkpoint::open(path);
    const Detection det = detectQuantized(ck);
    ASSERT_EQ(det.modules.size(), 1u);
    const Tensor back = quantizedCodes(ck, det.modules[0]);
    for (std::int64_t i = 0; i < 4; ++i)
        EXPECT_EQ(back.at(i), static_cast<double>(static_cast<std::int8_t>(q.codes[static_cast<std::size_t>(i)])));
    std::filesystem::remove(path);
}

TEST(NativeLayout, VersionOneFilesAndMissingPartsAreRefusedByName)
{
    const auto q = makeQuantizer({{"method", "int"}, {"bits", 8}})->quantize(sampleWeight(4, 32, 1), {});
    QuantizedTensor named = q;
    named.tensorName = "blk.weight";
    const auto path = tempFile("bad");
    writeNative(path, named);
    // Drop the scale: the module is refused naming the part; non-strict detection keeps going.
    const auto f = SafetensorsFile::open(path);
    const auto bad = tempFile("bad2");
    writeSafetensors(bad, {{"blk.qs_codes", f.tensor("blk.qs_codes")}}, f.metadata());
    const Checkpoint ck = Checkpoint::open(bad);
    try {
        (void)detectQuantized(ck);
        FAIL() << "a native module without its scale was accepted";
    } catch (const FormatError &e) {
        EXPECT_NE(std::string(e.what()).find("blk.qs_scale"), std::string::npos) << e.what();
    }
    DetectOptions lenient;
    lenient.strict = false;
    const Detection det = detectQuantized(ck, lenient);
    EXPECT_TRUE(det.modules.empty());
    ASSERT_EQ(det.problems.size(), 1u);
    EXPECT_EQ(det.problems[0].module, "blk");
    // Version 1 metadata (no layout block): refused with the remedy.
    auto meta = nlohmann::json::parse(f.metadata().at("quantscope"));
    meta["version"] = 1;
    auto md = f.metadata();
    md["quantscope"] = meta.dump();
    writeSafetensors(bad, {{"blk.qs_codes", f.tensor("blk.qs_codes")}, {"blk.qs_scale", f.tensor("blk.qs_scale")}}, md);
    try {
        (void)detectQuantized(Checkpoint::open(bad));
        FAIL() << "a version-1 file was accepted";
    } catch (const FormatError &e) {
        EXPECT_NE(std::string(e.what()).find("quantize --save"), std::string::npos) << e.what();
    }
    // Integer fields that hold floats or out-of-range integers (nlohmann would cast them,
    // undefined beyond the range), a version that is not a number, no module list: each refused
    // naming the module, never read as some other number (docs/reliability.md).
    const auto good = nlohmann::json::parse(f.metadata().at("quantscope"));
    const std::vector<std::pair<std::string, nlohmann::json>> lies = {
        {"/modules/blk/layout/rows", 1e67},       {"/modules/blk/layout/group", 2.5},
        {"/modules/blk/shape/1", 1e300},          {"/modules/blk/code_bits", 4294967304LL},
        {"/modules/blk/nonfinite_groups", -1e40}, {"/version", "2"}};
    for (const auto &[pointer, value] : lies) {
        auto m = good;
        ASSERT_TRUE(m.contains(nlohmann::json::json_pointer(pointer))) << pointer;
        m[nlohmann::json::json_pointer(pointer)] = value;
        md["quantscope"] = m.dump();
        writeSafetensors(bad, {{"blk.qs_codes", f.tensor("blk.qs_codes")}, {"blk.qs_scale", f.tensor("blk.qs_scale")}},
                         md);
        try {
            (void)detectQuantized(Checkpoint::open(bad));
            ADD_FAILURE() << pointer << " = " << value.dump() << " was accepted";
        } catch (const FormatError &e) {
            EXPECT_NE(std::string(e.what()).find("blk"), std::string::npos) << e.what();
        }
    }
    auto noModules = good;
    noModules.erase("modules");
    md["quantscope"] = noModules.dump();
    writeSafetensors(bad, {{"blk.qs_codes", f.tensor("blk.qs_codes")}, {"blk.qs_scale", f.tensor("blk.qs_scale")}}, md);
    EXPECT_NO_THROW((void)detectQuantized(Checkpoint::open(bad))); // nothing listed: no native module
    std::filesystem::remove(path);
    std::filesystem::remove(bad);
}

// What a dequantizer reads through the metadata is checked before it runs (a fuzzed native file
// reached a null read in ProgressiveSpec's stage 1 and out-of-bounds scale reads; docs/reliability.md):
// the spec's method, a layout whose groups leave its scale grid, a progressive module without its
// outer scales, MiLo compensators of the wrong shape. Each is refused naming the module.
TEST(NativeLayout, MetadataThatDoesNotFitItsPartsIsRefused)
{
    struct Lie {
        nlohmann::json spec;
        std::string pointer; ///< empty: erase `erase`
        nlohmann::json value;
        std::string erase;
    };
    const std::vector<Lie> lies = {
        {{{"method", "int"}, {"bits", 4}, {"group", 8}}, "/modules/blk/spec/method", "fp8", ""},
        {{{"method", "int"}, {"bits", 4}, {"group", 8}}, "/modules/blk/layout/grid/0", 1, ""},
        {{{"method", "int"}, {"bits", 4}, {"group", 8}}, "/modules/blk/layout/group", 64, ""},
        {{{"method", "int"}, {"bits", 4}, {"group", 8}}, "/modules/blk/layout/rows", 4611686018427387904LL, ""},
        {{{"method", "progressive"}}, "", nullptr, "outer_layout"},
        {{{"method", "nvfp4"}}, "", nullptr, "outer_layout"},
        {{{"method", "milo"}, {"rank", 2}, {"passes", 1}}, "/modules/blk/compensator/rank", 3, ""},
    };
    for (const Lie &lie : lies) {
        QuantizedTensor q = makeQuantizer(lie.spec)->quantize(sampleWeight(4, 32, 3), {});
        q.tensorName = "blk.weight";
        const auto path = tempFile("lie");
        writeNative(path, q);
        const auto f = SafetensorsFile::open(path);
        ASSERT_NO_THROW(
            (void)decodeQuantized(Checkpoint::open(path), *detectQuantized(Checkpoint::open(path)).find("blk")))
            << lie.spec.dump();
        auto meta = nlohmann::json::parse(f.metadata().at("quantscope"));
        if (lie.pointer.empty()) {
            ASSERT_TRUE(meta["modules"]["blk"].contains(lie.erase)) << lie.spec.dump();
            meta["modules"]["blk"].erase(lie.erase);
        } else {
            ASSERT_TRUE(meta.contains(nlohmann::json::json_pointer(lie.pointer))) << lie.pointer;
            meta[nlohmann::json::json_pointer(lie.pointer)] = lie.value;
        }
        auto md = f.metadata();
        md["quantscope"] = meta.dump();
        std::vector<std::pair<std::string, Tensor>> parts;
        for (const auto &e : f.entries())
            parts.emplace_back(e.name, f.tensor(e.name));
        const auto bad = tempFile("lie2");
        writeSafetensors(bad, parts, md);
        try {
            const Checkpoint ck = Checkpoint::open(bad);
            const Detection det = detectQuantized(ck);
            const QuantizedModule *m = det.find("blk");
            if (m)
                (void)decodeQuantized(ck, *m);
            ADD_FAILURE() << lie.spec.dump() << ": " << lie.pointer << lie.erase << " was accepted";
        } catch (const FormatError &e) {
            EXPECT_NE(std::string(e.what()).find("blk"), std::string::npos) << e.what();
        }
        std::filesystem::remove(path);
        std::filesystem::remove(bad);
    }
}
