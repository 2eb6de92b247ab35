// SPDX-License-Identifier: MIT
// HQQ on the GPU against the CPU reference (issue 19 item 1): every preset × compute precision ×
// axis × bits {2, 3, 4, 8} × group sizes on heavy-tailed data with a NaN group and an Inf, in
// F32, BF16 and F16; the demo weights; stories260K when present. Codes, stored scales and zero
// points, Ŵ and the iteration history (each err_i) bit for bit, the metrics as compareOnBoth
// checks them (the engine's fused metrics of the device's Ŵ).
#include <cstdlib>

#include "gpu_compare.h"

#include "quant/hqq.h"

namespace {

nlohmann::json hqqSpec(const char *preset, int bits, std::int64_t group, int axis, const char *compute)
{
    return {{"method", "hqq"}, {"preset", preset}, {"bits", bits},
            {"group", group},  {"axis", axis},     {"compute", compute}};
}

/// compareOnBoth plus the fields only HQQ fills. Returns the iterations the CPU ran.
int compareHqq(const Backend &gpu, const Tensor &w, const nlohmann::json &spec, const std::string &what,
               bool withStats = false)
{
    const Backend &cpu = BackendRegistry::instance().cpu();
    QuantizeOptions qo;
    qo.tensorName = what;
    qo.wantDequantized = true;
    const ErrorMetricsOptions mo;
    std::optional<TensorStats> st;
    if (withStats)
        st = computeStats(w, StatsOptions{});
    const QuantSpec typed = parseQuantSpec(spec);
    const MeasuredRun c = cpu.quantizeMeasured(*cpu.upload(w, what), typed, qo, mo, st);
    const MeasuredRun g = gpu.quantizeMeasured(*gpu.upload(w, what), typed, qo, mo, st);
    const std::string label = what + " " + spec.dump() + (withStats ? " (stats at open)" : "");
    const QuantizedTensor &gq = g.quantized, &cq = c.quantized;
    expectQuantized(gq, cq, label);
    expectMetrics(g.metrics, c.metrics, label);
    EXPECT_EQ(gq.dequantized.size(), cq.dequantized.size()) << label;
    EXPECT_EQ(gq.method, "hqq") << label;
    EXPECT_EQ(gq.codeBits, cq.codeBits) << label;
    EXPECT_EQ(gq.zeroPointDtype, cq.zeroPointDtype) << label;
    EXPECT_EQ(gq.layout.gridRows, cq.layout.gridRows) << label;
    EXPECT_EQ(gq.layout.gridCols, cq.layout.gridCols) << label;
    EXPECT_EQ(gq.layout.group, cq.layout.group) << label;
    EXPECT_EQ(gq.shape, cq.shape) << label;
    EXPECT_EQ(gq.sourceDtype, cq.sourceDtype) << label;
    EXPECT_EQ(gq.chosenPass, cq.chosenPass) << label;
    EXPECT_EQ(gq.storedBytes(), cq.storedBytes()) << label;
    EXPECT_TRUE(gq.zeros.empty()) << label;
    std::size_t zeroDiff = 0;
    EXPECT_EQ(gq.zeroPoints.size(), cq.zeroPoints.size()) << label;
    for (std::size_t j = 0; j < std::min(gq.zeroPoints.size(), cq.zeroPoints.size()); ++j)
        zeroDiff += !sameBits(gq.zeroPoints[j], cq.zeroPoints[j]);
    EXPECT_EQ(zeroDiff, 0u) << label << " zero points differ";
    EXPECT_EQ(gq.history.size(), cq.history.size()) << label << " iterations";
    for (std::size_t i = 0; i < std::min(gq.history.size(), cq.history.size()); ++i) {
        EXPECT_EQ(gq.history[i].pass, cq.history[i].pass) << label;
        EXPECT_TRUE(sameBits(static_cast<float>(gq.history[i].eps), static_cast<float>(cq.history[i].eps)))
            << label << " err of iteration " << i + 1 << ": gpu " << gq.history[i].eps << " cpu " << cq.history[i].eps;
    }
    return static_cast<int>(cq.history.size());
}

} // namespace

TEST(GpuHqq, SupportedWithEveryOption)
{
    REQUIRE_GPU();
    for (const char *preset : {"hqq-lib", "milo-code"})
        for (const char *zr : {"preset", "always", "never"}) {
            nlohmann::json s = hqqSpec(preset, 3, 64, 0, "fp16");
            s["zero_rounding"] = zr;
            EXPECT_TRUE(gpu->supports(parseQuantSpec(s)).supported) << s.dump();
        }
    bool listed = false;
    for (const MethodSupport &m : gpu->capabilities())
        if (m.method == "hqq") {
            listed = true;
            EXPECT_TRUE(m.supported);
        }
    EXPECT_TRUE(listed);
}

TEST(GpuHqq, PresetsComputesAxesBitsGroupsBitIdentical)
{
    REQUIRE_GPU();
    // 60 × 344 = 20640 = 2^5·3·5·43: groups of 8, 32, 96 (hqq-lib: multiples of 8; 96 ∤ 344 wraps
    // axis-1 groups across rows) and 43, 32, 120 (milo-code: any size). Outlier columns (×30) put
    // |e| above the shrink threshold: the pow path takes part. Row 5 holds a NaN, the end an Inf.
    const std::int64_t R = 60, C = 344;
    const auto v = heavyTailed(R, C, 11, true);
    const Tensor w = makeTensor(v, R, C, DType::F32);
    int stoppedEarly = 0, runs = 0;
    for (const char *preset : {"hqq-lib", "milo-code"}) {
        const bool lib = std::string(preset) == "hqq-lib";
        for (const char *compute : {"fp16", "fp32"})
            for (int axis : {0, 1})
                for (int bits : {2, 3, 4, 8})
                    for (std::int64_t group :
                         lib ? std::vector<std::int64_t>{8, 32, 96} : std::vector<std::int64_t>{43, 32, 120}) {
                        const int iters = compareHqq(*gpu, w, hqqSpec(preset, bits, group, axis, compute), "heavy");
                        stoppedEarly += iters < 20;
                        ++runs;
                    }
    }
    EXPECT_EQ(runs, 96);
    EXPECT_GT(stoppedEarly, 0) << "no run met the stop rule";
}

TEST(GpuHqq, SourceDtypesZeroRoundingItersAndStatsAtOpen)
{
    REQUIRE_GPU();
    const std::int64_t R = 48, C = 256;
    const auto v = heavyTailed(R, C, 5, true);
    for (DType dt : {DType::BF16, DType::F16}) {
        const Tensor w = makeTensor(v, R, C, dt);
        for (const char *compute : {"fp16", "fp32"}) {
            compareHqq(*gpu, w, hqqSpec("hqq-lib", 4, 64, 1, compute), std::string(nameOf(dt)));
            compareHqq(*gpu, w, hqqSpec("milo-code", 3, 64, 0, compute), std::string(nameOf(dt)), true);
        }
    }
    const Tensor w = makeTensor(v, R, C, DType::F32);
    for (const char *zr : {"always", "never"}) {
        nlohmann::json s = hqqSpec("hqq-lib", 3, 64, 1, "fp16");
        s["zero_rounding"] = zr;
        compareHqq(*gpu, w, s, "zero rounding");
    }
    for (int iters : {1, 2, 50}) {
        nlohmann::json s = hqqSpec("milo-code", 4, 32, 0, "fp32");
        s["iters"] = iters;
        const int ran = compareHqq(*gpu, w, s, "iters");
        EXPECT_LE(ran, iters);
    }
}

TEST(GpuHqq, FusedIterationsOfGroupsOf64BitIdentical)
{
    REQUIRE_GPU();
    // The fused chunks are not the default (gpu/host/hqq_device.h): chosen here through
    // QS_HQQ_CHUNK, which the engine reads once per process — ctest runs each test in its own
    // process, so there this test runs the chunks of 4 (alone in a shared process, the defaults).
    setenv("QS_HQQ_CHUNK", "4", 1);
    // Groups of 64 with ≤ 4 bits take the fused chunks (launch::hqqIterateChunk: each thread's
    // group in registers for several iterations, the stop rule applied afterwards); 8 bits the
    // per-iteration kernels. 768 groups: three thread blocks. Iteration limits below, at and
    // above the chunk, so that the rule fires inside a chunk, at its end, or never; a NaN row and
    // an Inf. Every case against the CPU reference bit for bit.
    const std::int64_t R = 128, C = 384;
    const auto v = heavyTailed(R, C, 21, true);
    int runs = 0, stoppedEarly = 0;
    for (DType dt : {DType::F32, DType::BF16}) {
        const Tensor w = makeTensor(v, R, C, dt);
        for (const char *preset : {"hqq-lib", "milo-code"})
            for (const char *compute : {"fp16", "fp32"})
                for (int axis : {0, 1})
                    for (int bits : {2, 3, 4, 8})
                        for (int iters : {1, 3, 4, 5, 9, 20}) {
                            if (dt == DType::BF16 && (bits == 2 || iters < 9))
                                continue;
                            nlohmann::json s = hqqSpec(preset, bits, 64, axis, compute);
                            s["iters"] = iters;
                            const int ran = compareHqq(*gpu, w, s, "fused " + std::string(nameOf(dt)));
                            EXPECT_LE(ran, iters);
                            stoppedEarly += ran < iters;
                            ++runs;
                        }
    }
    EXPECT_GT(runs, 200);
    EXPECT_GT(stoppedEarly, 0) << "no run met the stop rule";
}

TEST(GpuHqq, AllGroupsNonFiniteAndConstantGroups)
{
    REQUIRE_GPU();
    // Every group non-finite: no iteration runs, every code 0, s = 1, z = 0 (the quantizer's
    // results only: metrics of a tensor without one finite value are not HQQ's subject).
    std::vector<float> v(256, std::numeric_limits<float>::quiet_NaN());
    {
        const Tensor w = Tensor::fromFloats({4, 64}, v);
        const QuantSpec spec = parseQuantSpec(hqqSpec("hqq-lib", 4, 64, 1, "fp16"));
        QuantizeOptions qo;
        qo.wantDequantized = true;
        const QuantizedTensor g = gpu->quantize(*gpu->upload(w, "nan"), spec, qo, nullptr);
        const Backend &cpu = BackendRegistry::instance().cpu();
        const QuantizedTensor c = cpu.quantize(*cpu.upload(w, "nan"), spec, qo, nullptr);
        expectQuantized(g, c, "all NaN");
        EXPECT_EQ(g.nonFiniteGroups, 4);
        EXPECT_EQ(g.firstNonFinite, 0);
        EXPECT_TRUE(g.history.empty());
        EXPECT_EQ(g.zeroPoints, std::vector<float>(4, 0.0f));
        EXPECT_EQ(g.scales, std::vector<float>(4, 1.0f));
        EXPECT_EQ(g.codes, std::vector<std::uint8_t>(256, 0));
    }
    // Constant groups (range 0: σ = 1 for hqq-lib, the 2e4 cap for milo-code) and exact zeros.
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = i < 128 ? 0.25f : (i < 192 ? 0.0f : static_cast<float>(i % 7) * 0.125f);
    for (const char *preset : {"hqq-lib", "milo-code"})
        for (const char *compute : {"fp16", "fp32"})
            compareHqq(*gpu, Tensor::fromFloats({4, 64}, v), hqqSpec(preset, 4, 64, 1, compute), "constant groups");
}

TEST(GpuHqq, QuantizeOnlyAndRefusals)
{
    REQUIRE_GPU();
    const auto v = heavyTailed(32, 128, 9, false);
    const Tensor w = makeTensor(v, 32, 128, DType::BF16);
    const QuantSpec spec = parseQuantSpec(hqqSpec("hqq-lib", 4, 64, 1, "fp16"));
    QuantizeOptions qo;
    qo.wantDequantized = false;
    const QuantizedTensor g = gpu->quantize(*gpu->upload(w, "w"), spec, qo, nullptr);
    const Backend &cpu = BackendRegistry::instance().cpu();
    const QuantizedTensor c = cpu.quantize(*cpu.upload(w, "w"), spec, qo, nullptr);
    EXPECT_TRUE(g.dequantized.empty());
    EXPECT_EQ(g.codes, c.codes);
    EXPECT_EQ(g.zeroPoints, c.zeroPoints);
    // numel not divisible by the group: refused on both, naming the tensor.
    const Tensor odd = makeTensor(heavyTailed(3, 40, 1, false), 3, 40, DType::F32);
    const QuantSpec s64 = parseQuantSpec(hqqSpec("milo-code", 3, 64, 0, "fp16"));
    EXPECT_THROW(gpu->quantize(*gpu->upload(odd, "odd"), s64, qo, nullptr), UnsupportedError);
    EXPECT_THROW(cpu.quantize(*cpu.upload(odd, "odd"), s64, qo, nullptr), UnsupportedError);
}

TEST(GpuHqq, DemoWeights)
{
    REQUIRE_GPU();
    int done = 0;
    for (const auto &[name, w] : demo::makeDemoWeights()) {
        if (w.numel() % 64 != 0 || (w.numel() < 4096 && done > 0))
            continue;
        for (const auto &spec : {hqqSpec("hqq-lib", 4, 64, 1, "fp16"), hqqSpec("hqq-lib", 4, 64, 1, "fp32"),
                                 hqqSpec("milo-code", 3, 64, 0, "fp16"), hqqSpec("milo-code", 3, 64, 0, "fp32")})
            compareHqq(*gpu, w, spec, name);
        ++done;
    }
    EXPECT_GT(done, 3);
}

TEST(GpuHqq, RealWeightsBitIdentical)
{
    REQUIRE_GPU();
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    const fs::path stories = fs::path(QUANTSCOPE_SHARED_DATA) / "stories260K";
    for (const char *f : {"model.safetensors", "model.bf16.safetensors"})
        if (fs::exists(stories / f))
            files.push_back(stories / f);
    if (const char *m = std::getenv("QUANTSCOPE_MINILM"); m && *m && fs::exists(m))
        files.emplace_back(m);
    if (files.empty())
        GTEST_SKIP() << "real weights not found: " << stories
                     << " (../shared absent) and QUANTSCOPE_MINILM unset: skipped";
    int tensors = 0;
    for (const fs::path &file : files) {
        const Checkpoint ck = Checkpoint::open(file);
        for (const TensorEntry &e : ck.entries()) {
            if (e.shape.size() != 2 || e.shape[0] * e.shape[1] < 1024 || (e.shape[0] * e.shape[1]) % 64 != 0)
                continue;
            const Tensor w = ck.tensor(e.name);
            const std::string what = file.filename().string() + ":" + e.name;
            const bool big = w.numel() > (1 << 20); // the CPU reference takes a while: headline cases only
            compareHqq(*gpu, w, hqqSpec("hqq-lib", 4, 64, 1, "fp16"), what);
            compareHqq(*gpu, w, hqqSpec("milo-code", 3, 64, 0, "fp16"), what);
            if (!big) {
                compareHqq(*gpu, w, hqqSpec("hqq-lib", 4, 64, 1, "fp32"), what);
                compareHqq(*gpu, w, hqqSpec("hqq-lib", 3, 64, 0, "fp32"), what);
            }
            ++tensors;
        }
    }
    EXPECT_GT(tensors, 5);
}
