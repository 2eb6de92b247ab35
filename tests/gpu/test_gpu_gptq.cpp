// SPDX-License-Identifier: MIT
// GPTQ on the device against the CPU reference (docs/numerics.md "GPTQ", "On the GPU"): U from
// cuSOLVER equals the CPU's Eigen factor within one FP32 ulp; given the device's U, the CPU's column
// loop (gptqColumns) gives the device's codes and Ŵ bit for bit (same op sequence, the lazy-batch
// update one FMA chain per element); the observer's scales and zero points are the CPU's; on the
// stories260K modules of the committed capture the device's codes equal llm-compressor's golden;
// without a capture it refuses as the CPU does. Skipped, with the reason, when no device is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "../core/numerics/gptq_synthetic.h"
#include "gpu_compare.h"
#include "host/engine.h"
#include "io/capture.h"
#include "io/safetensors.h"
#include "quant/data_aware.h"
#include "quant/uniform.h"
#include "util/error.h"

namespace fs = std::filesystem;

namespace {

const fs::path kCapture = fs::path(QUANTSCOPE_SOURCE_DIR) / "tests/data/capture/stories260K.capture.safetensors";
const fs::path kGolden = fs::path(QUANTSCOPE_SOURCE_DIR) / "tests/data/gptq/stories260K.gptq.safetensors";

/// A calibration of K inputs from R seeded rows: Student-t activations with a few outlier channels
/// (×20) and `deadChannels` channels that are always zero (H_jj = 0).
Calibration syntheticCalibration(std::int64_t k, std::int64_t rows, int deadChannels, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::student_t_distribution<double> t(4.0);
    std::vector<double> x(static_cast<std::size_t>(rows * k));
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t j = 0; j < k; ++j) {
            const double big = j % 97 == 11 ? 20.0 : 1.0;
            x[r * k + j] = j < deadChannels ? 0.0 : t(rng) * big + (j % 13 == 0 ? 0.5 : 0.0);
        }
    Calibration c;
    c.module = "synthetic";
    c.source = "synthetic.capture.safetensors";
    c.k = k;
    c.tokens = rows;
    c.gram.assign(static_cast<std::size_t>(k * k), 0.0);
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t i = 0; i < k; ++i) {
            const double xi = x[r * k + i];
            if (xi == 0.0)
                continue;
            for (std::int64_t j = 0; j < k; ++j)
                c.gram[i * k + j] += xi * x[r * k + j];
        }
    for (double &g : c.gram) // the capture stores an FP32 Gram
        g = static_cast<double>(static_cast<float>(g / static_cast<double>(rows)));
    for (std::int64_t i = 0; i < k; ++i)
        c.gramDiag.push_back(c.gram[i * k + i]);
    return c;
}

int ulpDistance(float a, float b)
{
    std::int32_t ia, ib;
    std::memcpy(&ia, &a, 4);
    std::memcpy(&ib, &b, 4);
    if ((ia < 0) != (ib < 0))
        return a == b ? 0 : 1 << 30;
    return std::abs(ia - ib);
}

/// The device's run against the CPU's columns on the device's U: codes, Ŵ, scales and zero points
/// bit for bit, the loss within 1e-9 relative; U within one ulp of the CPU's own factor.
void compareGptq(gpu::Engine &engine, const Tensor &w, const Calibration &cal, const nlohmann::json &specJson,
                 const std::string &what)
{
    SCOPED_TRACE(what + " " + specJson.dump());
    const GptqSpec spec = GptqSpec::fromJson(specJson);
    const auto [n, k] = matrixView(w.shape());
    auto dw = engine.upload(w, what);
    gpu::GptqDeviceOptions o;
    o.wantDequantized = true;
    o.wantFactor = true;
    const gpu::GptqDeviceResult g = engine.gptq(*dw, spec, cal, o);

    std::string source;
    const std::vector<double> h = gptqHessian(cal, source);
    const GptqOrder order = gptqOrder(h, k, spec);
    bool fallback = false;
    const std::vector<float> uCpu = gptqFactor(h, k, order, 0, fallback);
    EXPECT_EQ(g.quantized.report.value("rtn_fallback", !fallback), fallback);
    ASSERT_EQ(g.u.size(), uCpu.size());
    int worst = 0;
    std::size_t offByOne = 0;
    for (std::size_t i = 0; i < uCpu.size(); ++i) {
        const int d = ulpDistance(g.u[i], uCpu[i]);
        worst = std::max(worst, d);
        offByOne += d == 1;
    }
    EXPECT_LE(worst, 1) << "U differs from the CPU's by more than one FP32 ulp";

    QuantizeOptions ro;
    ro.wantDequantized = false;
    ro.wantCodes = true;
    QuantizedTensor c = IntQuantizer(spec.quant).quantize(w, ro);
    std::vector<float> wf(static_cast<std::size_t>(w.numel()));
    w.decodeRange(0, wf);
    const GptqInfo info = gptqColumns(wf, n, k, order, g.u, spec, c, true, 0, nullptr);
    EXPECT_EQ(g.quantized.scales, c.scales);
    EXPECT_EQ(g.quantized.zeros, c.zeros);
    ASSERT_EQ(g.quantized.codes.size(), c.codes.size());
    std::size_t codes = 0, values = 0;
    for (std::size_t i = 0; i < c.codes.size(); ++i) {
        codes += g.quantized.codes[i] != c.codes[i];
        values += !sameBits(g.quantized.dequantized[i], c.dequantized[i]);
    }
    EXPECT_EQ(codes, 0u) << "codes differ from the CPU's columns on the device's U";
    EXPECT_EQ(values, 0u) << "Ŵ differs from the CPU's columns on the device's U";
    const double lossG = g.quantized.report.value("loss", -1.0);
    EXPECT_NEAR(lossG, info.loss, 1e-9 * std::max(1.0, info.loss));
    EXPECT_EQ(g.quantized.report.value("dead_columns", -1), order.deadColumns);
    std::printf("[ measured ] %s %s: U %zu of %zu elements one ulp from the CPU's; device %.3f ms (U %.3f ms)\n",
                what.c_str(), specJson.dump().c_str(), offByOne, uCpu.size(), g.deviceMs, g.factorMs);
}

} // namespace

/// The GPU backend (skipped without one, or on HIP, where GPTQ runs on the CPU) and an engine of its own.
#define REQUIRE_GPTQ_ENGINE(engine)                                                                                    \
    REQUIRE_GPU();                                                                                                     \
    if (gpu->info().kind == DeviceKind::Hip)                                                                           \
        GTEST_SKIP() << "HIP build: GPTQ runs on the CPU";                                                             \
    std::string engine##Reason;                                                                                        \
    auto engine = gpu::Engine::create(0, engine##Reason);                                                              \
    ASSERT_TRUE(engine) << engine##Reason

TEST(GpuGptq, ColumnsEqualTheCpuOnTheDevicesFactor)
{
    REQUIRE_GPTQ_ENGINE(engine);
    // K = 520: four blocks of 128 and a ragged one of 8; N = 200: a ragged tile of rows; channel 0..2 dead.
    const std::int64_t N = 200, K = 520;
    const Calibration cal = syntheticCalibration(K, 700, 3, 17);
    const Tensor wF32 = makeTensor(heavyTailed(N, K, 5, false), N, K, DType::F32);
    const Tensor wBf16 = makeTensor(heavyTailed(N, K, 6, false), N, K, DType::BF16);
    const std::vector<nlohmann::json> specs = {
        {{"method", "gptq"}, {"bits", 4}, {"granularity", "group"}, {"group", 8}},
        {{"method", "gptq"}, {"bits", 4}, {"granularity", "group"}, {"group", 8}, {"symmetric", false}},
        {{"method", "gptq"}, {"bits", 3}, {"granularity", "channel"}, {"actorder", "static"}},
        {{"method", "gptq"}, {"bits", 4}, {"granularity", "group"}, {"group", 40}, {"actorder", "weight"}},
        {{"method", "gptq"}, {"bits", 8}, {"granularity", "tensor"}, {"block_size", 32}, {"dampening", 0.1}},
        {{"method", "gptq"},
         {"bits", 2},
         {"granularity", "group"},
         {"group", 104},
         {"block_size", 100},
         {"symmetric", false},
         {"actorder", "static"}},
    };
    for (const auto &s : specs) {
        compareGptq(*engine, wF32, cal, s, "F32 200x520");
        compareGptq(*engine, wBf16, cal, s, "BF16 200x520");
    }
}

TEST(GpuGptq, ALargeLayerEqualsTheCpuColumns)
{
    REQUIRE_GPTQ_ENGINE(engine);
    const std::int64_t N = 1536, K = 1024;
    const Calibration cal = syntheticCalibration(K, 1200, 0, 23);
    const Tensor w = makeTensor(heavyTailed(N, K, 8, false), N, K, DType::BF16);
    compareGptq(*engine, w, cal, {{"method", "gptq"}, {"bits", 4}, {"granularity", "group"}, {"group", 128}},
                "BF16 1536x1024");
}

// Through the backend on the real model: every stories260K module of the golden's w4g32 set and its
// act-order configurations, the device's codes against llm-compressor's own.
TEST(GpuGptq, StoriesModulesEqualLlmCompressorGolden)
{
    REQUIRE_GPU();
    if (gpu->info().kind == DeviceKind::Hip)
        GTEST_SKIP() << "HIP build: GPTQ runs on the CPU";
    const fs::path model = fs::path(QUANTSCOPE_SHARED_DATA) / "stories260K" / "model.safetensors";
    if (!fs::exists(model) || !fs::exists(kCapture) || !fs::exists(kGolden))
        GTEST_SKIP() << "needs " << model << " (../shared/data), " << kCapture << " and " << kGolden;
    const auto golden = SafetensorsFile::open(kGolden);
    const auto file = SafetensorsFile::open(model);
    const Capture cap = Capture::open(kCapture);
    const auto configs = nlohmann::json::parse(golden.metadata().at("configs"));
    std::int64_t compared = 0, differing = 0, runs = 0;
    for (const auto &[name, cfg] : configs.items()) {
        const nlohmann::json spec = test::gptqSpecOfGolden(cfg);
        for (const auto &m : cfg["modules"]) {
            const std::string module = m;
            SCOPED_TRACE(name + " " + module);
            const Tensor w = file.tensor(module + ".weight");
            QuantizeOptions o;
            o.tensorName = module + ".weight";
            o.wantDequantized = true;
            o.calibration = std::make_shared<const Calibration>(calibrationOf(cap, module));
            const QuantSpec typed = parseQuantSpec(spec);
            ASSERT_TRUE(gpu->supports(typed).supported);
            const QuantizedTensor q = gpu->quantize(*gpu->upload(w, module), typed, o);
            std::vector<float> codes(static_cast<std::size_t>(golden.tensor(name + "/" + module + ".codes").numel()));
            golden.tensor(name + "/" + module + ".codes").decodeRange(0, codes);
            ASSERT_EQ(q.codes.size(), codes.size());
            for (std::size_t i = 0; i < codes.size(); ++i) {
                ++compared;
                differing += static_cast<std::int8_t>(q.codes[i]) != static_cast<int>(codes[i]);
            }
            ++runs;
        }
    }
    std::printf("[ measured ] gptq on the device vs llm-compressor: %lld of %lld codes differ over %lld module runs\n",
                static_cast<long long>(differing), static_cast<long long>(compared), static_cast<long long>(runs));
    EXPECT_GT(runs, 40);
    EXPECT_EQ(differing, 0);
}

TEST(GpuGptq, RefusalsAndTheRtnFallback)
{
    REQUIRE_GPU();
    if (gpu->info().kind == DeviceKind::Hip)
        GTEST_SKIP() << "HIP build: GPTQ runs on the CPU";
    const Tensor w = makeTensor(heavyTailed(16, 64, 3, false), 16, 64, DType::F32);
    const QuantSpec typed = parseQuantSpec({{"method", "gptq"}, {"bits", 4}, {"granularity", "group"}, {"group", 16}});
    // Without a capture: the CPU's message, naming the tensor and what to run first.
    QuantizeOptions none;
    none.tensorName = "w.weight";
    try {
        gpu->quantize(*gpu->upload(w, "w"), typed, none);
        ADD_FAILURE() << "gptq without a capture ran";
    } catch (const UnsupportedError &e) {
        EXPECT_NE(std::string(e.what()).find("quantscope-cli capture"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("w.weight"), std::string::npos) << e.what();
    }
    // block_size beyond the device's block: the CPU runs it, and says so.
    EXPECT_FALSE(
        gpu->supports(parseQuantSpec({{"method", "gptq"}, {"bits", 4}, {"block_size", 256}, {"group", 16}})).supported);
    // A Hessian that is not positive definite: both fall back to round to nearest (U = I).
    Calibration bad;
    bad.module = "bad";
    bad.source = "bad.capture.safetensors";
    bad.k = 64;
    bad.gram.assign(64 * 64, 0.0);
    for (int i = 0; i < 64; ++i)
        bad.gram[i * 64 + i] = i == 9 ? -50.0 : 1.0;
    QuantizeOptions o;
    o.tensorName = "w.weight";
    o.calibration = std::make_shared<const Calibration>(bad);
    const QuantizedTensor g = gpu->quantize(*gpu->upload(w, "w"), typed, o);
    const QuantizedTensor c =
        BackendRegistry::instance().cpu().quantize(*BackendRegistry::instance().cpu().upload(w, "w"), typed, o);
    EXPECT_TRUE(g.report.value("rtn_fallback", false));
    EXPECT_TRUE(c.report.value("rtn_fallback", false));
    EXPECT_EQ(g.codes, c.codes);
    // K mismatch.
    Calibration other = bad;
    other.k = 32;
    o.calibration = std::make_shared<const Calibration>(other);
    EXPECT_THROW(gpu->quantize(*gpu->upload(w, "w"), typed, o), UnsupportedError);
}

// The K = 1024 layer of eight blocks against llm-compressor's own codes (the CPU test's golden and
// bound, tests/core/numerics/test_gptq.cpp): a code within rounding of a tie may round the other way
// and move its row's later columns, in at most 4 of the 128 rows (the CPU's own differ in ≤ 2, the
// device's U is the CPU's within an ulp); the loss agrees to 1e-3.
TEST(GpuGptq, LargeLayerEqualsLlmCompressorUpToTies)
{
    REQUIRE_GPU();
    if (gpu->info().kind == DeviceKind::Hip)
        GTEST_SKIP() << "HIP build: GPTQ runs on the CPU";
    if (!fs::exists(test::kGptqLargeGolden))
        GTEST_SKIP() << "needs " << test::kGptqLargeGolden;
    const test::GptqSyntheticLayer layer = test::gptqSyntheticLayer();
    const Tensor w = Tensor::fromFloats({layer.n, layer.k}, layer.w);
    for (const auto &g : test::gptqLargeGolden()) {
        SCOPED_TRACE(g.name);
        QuantizeOptions o;
        o.tensorName = "synthetic-1024";
        o.calibration = std::make_shared<const Calibration>(layer.calibration);
        const QuantizedTensor q = gpu->quantize(*gpu->upload(w, "synthetic-1024"), parseQuantSpec(g.spec), o);
        ASSERT_EQ(q.codes.size(), g.codes.size());
        const std::size_t rows = test::gptqRowsDiffering(q.codes, g.codes, layer.n, layer.k);
        const double loss = q.report.value("loss", 0.0);
        std::printf("[ measured ] device %s: %zu of 128 rows differ from llm-compressor's; loss %.6g vs %.6g\n",
                    g.name.c_str(), rows, loss, g.loss);
        EXPECT_LE(rows, 4u);
        EXPECT_NEAR(loss, g.loss, 1e-3 * g.loss);
    }
}

// The FP targets (fp8, nvfp4, mxfp4) are never run through the INT column kernel: the backend sends
// them to the CPU and says so, and the device refuses them if asked directly.
TEST(GpuGptq, FpTargetsRunOnTheCpu)
{
    REQUIRE_GPU();
    if (gpu->info().kind == DeviceKind::Hip)
        GTEST_SKIP() << "HIP build: GPTQ runs on the CPU";
    const test::GptqSyntheticLayer layer = test::gptqSyntheticLayer();
    const Tensor w = Tensor::fromFloats({layer.n, layer.k}, layer.w);
    QuantizeOptions o;
    o.tensorName = "synthetic-1024";
    o.calibration = std::make_shared<const Calibration>(layer.calibration);
    for (const char *t : {"fp8", "nvfp4", "mxfp4"}) {
        SCOPED_TRACE(t);
        const QuantSpec spec = parseQuantSpec({{"method", "gptq"}, {"target", t}});
        const auto cap = gpu->supports(spec);
        EXPECT_FALSE(cap.supported);
        EXPECT_NE(cap.reason.find("runs on the CPU"), std::string::npos) << cap.reason;
        EXPECT_THROW(gpu->quantize(*gpu->upload(w, "synthetic-1024"), spec, o), UnsupportedError);
    }
}
