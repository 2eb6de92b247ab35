// SPDX-License-Identifier: MIT
// The FP4 schemes (MXFP4, NVFP4, constOpt), Quark's reciprocal INT rule and ProgressiveSpec on
// the GPU against the CPU reference, bit for bit (gpu_compare.h). Skipped, with the reason, when
// no device is present.
#include <algorithm>
#include <cmath>

#include "gpu_compare.h"
#include "numeric/fp4math.h"
#include "tensor/convert.h"

namespace {

/// MXFP4 data: heavy-tailed values (a zero row, NaN/Inf on request) plus groups that probe the
/// edges of the op sequence: an all-zero group, a group of −0, exact E2M1 ties (amax 6: s = 1 in
/// even/floor), an amax whose `even` rounding carries into the next binade, tiny groups whose
/// exponent clamps to byte 0 (s = 2^-127, an FP32 subnormal: -ftz=false matters), a lone NaN and
/// a lone −Inf; on request (`huge`) a group near FLT_MAX whose Ŵ overflows to ±Inf in `even` and
/// `ceil` (the engine's CPU-metrics fallback; F16 makes the inputs Inf: non-finite groups).
std::vector<float> mxfp4Data(std::int64_t R, std::int64_t C, std::uint64_t seed, bool nonFinite, bool huge)
{
    auto v = heavyTailed(R, C, seed, nonFinite);
    auto at = [&](std::int64_t r, std::int64_t c) -> float & { return v[static_cast<std::size_t>(r * C + c)]; };
    const std::int64_t g = std::min<std::int64_t>(C, 32);
    for (std::int64_t c = 0; c < g; ++c) {
        at(0, c) = 0.0f;  // all-zero group
        at(1, c) = -0.0f; // all −0
        const float ties[] = {6.0f, 0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
        at(3, c) = (c % 2 ? -1.0f : 1.0f) * ties[c % 8];                        // RNE ties at s = 1
        at(4, c) = c == 5 ? 7.5f : 0.1f * static_cast<float>(c);                // even: 7.5 → 8 (carry)
        at(5, c) = (c % 3 ? 1.0f : -1.0f) * 1e-39f * static_cast<float>(c + 1); // byte 0
        if (huge)
            at(6, c) = (c % 2 ? 1.0f : -1.0f) * 3e38f / static_cast<float>(c + 1);
        at(7, c) = 1e-3f * static_cast<float>(c) - 0.01f;
    }
    if (nonFinite && R > 9) {
        at(8, C - 1) = std::numeric_limits<float>::quiet_NaN(); // in the ragged last group
        at(9, 1) = -std::numeric_limits<float>::infinity();
    }
    return v;
}

} // namespace

TEST(GpuQuant, Mxfp4AllModesAllDtypesBitIdentical)
{
    REQUIRE_GPU();
    struct Case {
        std::int64_t r, c;
        bool nonFinite, huge;
    };
    // 96: whole groups (chunk-uniform); 100: a ragged last group of 4; 40: one group + 8.
    for (const Case cs : {Case{37, 96, false, false}, Case{29, 100, false, false}, Case{24, 100, true, false},
                          Case{16, 40, true, false}, Case{12, 100, false, true}}) {
        for (DType dt : {DType::F32, DType::BF16, DType::F16}) {
            const auto v = mxfp4Data(cs.r, cs.c, 500 + cs.c + static_cast<int>(dt), cs.nonFinite, cs.huge);
            const Tensor w = makeTensor(v, cs.r, cs.c, dt);
            for (const char *mode : {"even", "floor", "ceil"})
                for (int group : {32, 16, 64}) {
                    const nlohmann::json spec{{"method", "mxfp4"}, {"mode", mode}, {"group", group}};
                    const std::string what = std::string(nameOf(dt)) + " " + std::to_string(cs.r) + "x" +
                                             std::to_string(cs.c) + (cs.nonFinite ? " with NaN/Inf" : "") +
                                             (cs.huge ? " with values near FLT_MAX" : "");
                    compareOnBoth(*gpu, w, spec, what);
                    // The fields expectQuantized leaves out, on the quantize-only path.
                    const Backend &cpu = BackendRegistry::instance().cpu();
                    QuantizeOptions qo;
                    qo.tensorName = what;
                    const QuantSpec typed = parseQuantSpec(spec);
                    const QuantizedTensor c = cpu.quantize(*cpu.upload(w, what), typed, qo);
                    const QuantizedTensor g = gpu->quantize(*gpu->upload(w, what), typed, qo);
                    const std::string label = what + " " + spec.dump();
                    EXPECT_EQ(g.method, c.method) << label;
                    EXPECT_EQ(g.codeBits, c.codeBits) << label;
                    EXPECT_EQ(g.codeDtype, DType::F4) << label;
                    EXPECT_EQ(g.scaleDtype, DType::F8_E8M0) << label;
                    EXPECT_EQ(g.sourceDtype, c.sourceDtype) << label;
                    EXPECT_EQ(g.layout.group, c.layout.group) << label;
                    EXPECT_EQ(g.layout.gridCols, c.layout.gridCols) << label;
                    EXPECT_EQ(g.codes, c.codes) << label;
                    EXPECT_EQ(g.nonFiniteGroups, c.nonFiniteGroups) << label;
                    EXPECT_EQ(g.firstNonFinite, c.firstNonFinite) << label;
                    ASSERT_EQ(g.scales.size(), c.scales.size()) << label;
                    std::size_t scaleDiff = 0;
                    for (std::size_t i = 0; i < c.scales.size(); ++i)
                        scaleDiff += !sameBits(g.scales[i], c.scales[i]);
                    EXPECT_EQ(scaleDiff, 0u) << label;
                    if (cs.nonFinite) {
                        EXPECT_GT(c.nonFiniteGroups, 0) << label;
                    } else if (!(cs.huge && dt == DType::F16)) {
                        EXPECT_EQ(c.nonFiniteGroups, 0) << label;
                    }
                }
        }
    }
}

TEST(GpuQuant, Fp4ValueTablePathBitIdenticalToTheCpuAndTheGenericKernels)
{
    // The FP4 value-table path (fp4_quant.cu, then int_quant.cu's Ŵ-from-counts, pass 2 and W
    // tables) on BF16/F16 data with the edge groups of mxfp4Data (all zero, all −0, E2M1 ties at
    // s = 1, the `even` carry, byte-0 subnormal groups), for MXFP4 in every mode, constOpt pow2 at
    // several c and NVFP4, at several group sizes: codes, scales (NVFP4's global scale too), Ŵ
    // and every metric as the CPU, codes and scales as the generic kernels (kNoFastPath).
    // NaN/Inf, and values near FLT_MAX whose Ŵ overflows, must leave the path (the generic
    // kernels report them) with the same results.
    REQUIRE_GPU();
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    const Backend &cpu = BackendRegistry::instance().cpu();
    const std::vector<nlohmann::json> specs = {
        {{"method", "mxfp4"}},
        {{"method", "mxfp4"}, {"mode", "floor"}},
        {{"method", "mxfp4"}, {"mode", "ceil"}, {"group", 16}},
        {{"method", "mxfp4"}, {"group", 64}},
        {{"method", "mxfp4"}, {"mode", "floor"}, {"group", 128}},
        {{"method", "mxfp4"}, {"mode", "ceil"}, {"group", 8}},
        {{"method", "constopt"}},
        {{"method", "constopt"}, {"c", 0.05}, {"group", 16}},
        {{"method", "constopt"}, {"c", 0.3331}, {"group", 128}},
        {{"method", "constopt"}, {"c", 0.01}, {"group", 8}},
        {{"method", "nvfp4"}},
        {{"method", "nvfp4"}, {"group", 32}},
        {{"method", "nvfp4"}, {"group", 8}},
    };
    struct Variant {
        bool nonFinite, huge;
    };
    int fastRuns = 0;
    for (DType dt : {DType::BF16, DType::F16})
        for (const Variant var : {Variant{false, false}, Variant{true, false}, Variant{false, true}}) {
            const std::int64_t R = 40, C = 256;
            const Tensor w = makeTensor(mxfp4Data(R, C, 31 + static_cast<int>(dt), var.nonFinite, var.huge), R, C, dt);
            for (const auto &spec : specs) {
                const std::string what = std::string(nameOf(dt)) + (var.nonFinite ? " with NaN/Inf" : "") +
                                         (var.huge ? " near FLT_MAX" : "") + " " + spec.dump();
                const EngineResult g = runEngine(*engine, w, spec, 0);
                if (var.nonFinite)
                    EXPECT_FALSE(g.fast) << what;
                else if (!var.huge)
                    EXPECT_TRUE(g.fast) << what;
                fastRuns += g.fast ? 1 : 0;
                QuantizeOptions qo;
                qo.tensorName = "w";
                qo.wantDequantized = true;
                const MeasuredRun c =
                    cpu.quantizeMeasured(*cpu.upload(w, "w"), parseQuantSpec(spec), qo, {}, std::nullopt);
                expectQuantized(g.q, c.quantized, what);
                expectMetrics(g.m, c.metrics, what);
                ASSERT_EQ(g.q.outerScales.size(), c.quantized.outerScales.size()) << what;
                for (std::size_t i = 0; i < c.quantized.outerScales.size(); ++i)
                    EXPECT_TRUE(sameBits(g.q.outerScales[i], c.quantized.outerScales[i])) << what << " global scale";
                const EngineResult gen = runEngine(*engine, w, spec, gpu::launch::kNoFastPath);
                EXPECT_FALSE(gen.fast) << what;
                expectQuantized(gen.q, g.q, what + " generic vs value table");
            }
        }
    EXPECT_GE(fastRuns, 26); // BF16 and F16 × thirteen specs on finite data at least
    // W's stats given at open: the path computes W's sums from its value counts all the same.
    const Tensor w = makeTensor(mxfp4Data(32, 128, 7, false, false), 32, 128, DType::BF16);
    compareOnBoth(*gpu, w, specs[0], "bf16 32x128", {}, true);
    compareOnBoth(*gpu, w, specs[6], "bf16 32x128", {}, true);
    compareOnBoth(*gpu, w, specs[10], "bf16 32x128", {}, true); // NVFP4's global from W's absmax
    // All zeros: MXFP4 byte 0, NVFP4 global 1.0 and every block scale 0.125; on the path.
    const Tensor z = makeTensor(std::vector<float>(16 * 64, 0.0f), 16, 64, DType::BF16);
    for (const auto &spec : {specs[0], specs[6], specs[10]}) {
        EXPECT_TRUE(runEngine(*engine, z, spec, 0).fast) << spec.dump();
        compareOnBoth(*gpu, z, spec, "bf16 zeros");
    }
    // Other metrics options on the path: 100 bins, explicit lo/hi, symlog (the CPU from Ŵ).
    ErrorMetricsOptions o;
    o.bins = 100;
    compareOnBoth(*gpu, w, specs[0], "bins 100", o);
    o.lo = -0.01;
    o.hi = 0.013;
    compareOnBoth(*gpu, w, specs[6], "lo/hi", o);
}

TEST(GpuQuant, Nvfp4ThresholdTiesAndLevelTableBitIdentical)
{
    // NVFP4 on the value-table path codes by the group's FP32 thresholds (nvCodeThresholds) and
    // takes Ŵ's sums, histogram and moments from the (block-scale byte, code) level table. Data
    // that makes every rounding a tie: the tensor's amax A = 2688·2^-k chosen so that the global
    // scale G is a power of two, each group's amax 6·b/G for an E4M3 value b (every byte from
    // subnormal to 448, so the block scale is b itself and e = b/G has ≤ 4 significant bits); the
    // elements at x = T·e for every code threshold T (x/e = T exactly), at the E2M1 values v·e,
    // one BF16 step either side of T·e, and random values; groups whose target underflows (b → 0.125)
    // and an all-zero group. Codes, scales, the global scale, Ŵ and every metric as the CPU's.
    REQUIRE_GPU();
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    float A = 0.0f, G = 0.0f;
    for (int k = 3; k < 24 && G == 0.0f; ++k) { // k ≥ 3: a global scale other than 1
        const float a = std::ldexp(2688.0f, -k);
        const float g = fp4::nvGlobalScale(a);
        int ex = 0;
        if (std::frexp(g, &ex) == 0.5f) {
            A = a;
            G = g;
        }
    }
    ASSERT_GT(G, 0.0f) << "no amax 2688·2^-k gives a power-of-two global scale";
    const std::int64_t R = 48, C = 256; // 16 groups of 16 per row
    std::vector<float> v(static_cast<std::size_t>(R * C));
    std::mt19937_64 rng(44);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    const float thr[7] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
    const float val[7] = {0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
    std::uint32_t byte = 1;
    for (std::int64_t g0 = 0; g0 < R * C; g0 += 16) {
        float *x = v.data() + g0;
        const std::int64_t gi = g0 / 16;
        if (gi == 1)
            continue; // all zeros: every block scale 0.125, the global from the others
        const float b = e4m3ToFloat(static_cast<std::uint8_t>(byte));
        byte = byte % 0x7E + 1; // every positive finite E4M3 value in turn
        const float e = b / G;  // exact: G is a power of two
        const float sgn = gi % 2 ? -1.0f : 1.0f;
        if (gi % 37 == 5) { // target (amax/6)·G = 2^-10 (a tie to E4M3 0) or less: b = 0.125
            for (int j = 0; j < 16; ++j)
                x[j] = sgn * std::ldexp(6.0f, -10 - (j % 3)) / G * (j % 2 ? -1.0f : 1.0f);
            continue;
        }
        x[0] = sgn * 6.0f * e; // the group's amax: target b exactly
        for (int j = 1; j < 16; ++j) {
            const int kind = static_cast<int>(rng() % 4);
            const int t = static_cast<int>(rng() % 7);
            const float s = rng() % 2 ? -1.0f : 1.0f;
            if (kind == 0)
                x[j] = s * thr[t] * e; // a tie of the code's rounding
            else if (kind == 1)
                x[j] = s * val[t] * e;
            else if (kind == 2) // one BF16 step either side of the tie
                x[j] = s * thr[t] * e * (rng() % 2 ? 1.0f + 0x1p-7f : 1.0f - 0x1p-8f);
            else
                x[j] = 5.9f * e * unit(rng);
        }
    }
    v[static_cast<std::size_t>(C + 3)] = A; // row 1 carries the tensor's amax (≥ every 6·b/G)
    for (DType dt : {DType::BF16, DType::F16}) {
        const Tensor w = makeTensor(v, R, C, dt);
        const nlohmann::json spec{{"method", "nvfp4"}};
        const std::string what = std::string(nameOf(dt)) + " NVFP4 ties, global " + std::to_string(G);
        const EngineResult g = runEngine(*engine, w, spec, 0);
        EXPECT_TRUE(g.fast) << what;
        const Backend &cpu = BackendRegistry::instance().cpu();
        QuantizeOptions qo;
        qo.tensorName = "w";
        qo.wantDequantized = true;
        const MeasuredRun c = cpu.quantizeMeasured(*cpu.upload(w, "w"), parseQuantSpec(spec), qo, {}, std::nullopt);
        expectQuantized(g.q, c.quantized, what);
        expectMetrics(g.m, c.metrics, what);
        ASSERT_EQ(g.q.outerScales.size(), 1u) << what;
        ASSERT_EQ(c.quantized.outerScales.size(), 1u) << what;
        EXPECT_TRUE(sameBits(g.q.outerScales[0], c.quantized.outerScales[0])) << what;
        if (dt == DType::BF16) {
            EXPECT_TRUE(sameBits(c.quantized.outerScales[0], G)) << what; // the data was built for it
        }
        const EngineResult gen = runEngine(*engine, w, spec, gpu::launch::kNoFastPath);
        expectQuantized(gen.q, g.q, what + " generic vs value table");
    }
}

TEST(GpuQuant, Mxfp4StrictRefusesRaggedKOnBothAndRunsWholeGroups)
{
    REQUIRE_GPU();
    const Backend &cpu = BackendRegistry::instance().cpu();
    QuantizeOptions qo;
    qo.tensorName = "strict";
    const nlohmann::json spec{{"method", "mxfp4"}, {"strict", true}};
    const QuantSpec typed = parseQuantSpec(spec);
    const Tensor ragged = makeTensor(mxfp4Data(8, 100, 9, false, false), 8, 100, DType::BF16);
    EXPECT_THROW(cpu.quantize(*cpu.upload(ragged, "strict"), typed, qo), Error);
    EXPECT_THROW(gpu->quantize(*gpu->upload(ragged, "strict"), typed, qo), Error);
    const Tensor whole = makeTensor(mxfp4Data(8, 128, 9, false, false), 8, 128, DType::BF16);
    compareOnBoth(*gpu, whole, spec, "bf16 8x128 strict");
}

TEST(GpuQuant, Mxfp4RunsOnTheGpu)
{
    REQUIRE_GPU();
    for (const char *mode : {"even", "floor", "ceil"}) {
        const nlohmann::json spec{{"method", "mxfp4"}, {"mode", mode}};
        EXPECT_TRUE(gpu->supports(parseQuantSpec(spec)).supported) << spec.dump();
    }
    bool listed = false;
    for (const auto &m : gpu->capabilities())
        if (m.method == "mxfp4") {
            listed = true;
            EXPECT_TRUE(m.supported) << m.options;
        }
    EXPECT_TRUE(listed);
}

namespace {

/// Runs spec on both backends, compares everything (compareOnBoth), then the fields it leaves
/// out on the quantize-only path: method, dtypes, layout, the outer (global) scale and the report.
void compareQuantizeOnly(const Backend &gpu, const Tensor &w, const nlohmann::json &spec, const std::string &what)
{
    compareOnBoth(gpu, w, spec, what);
    const Backend &cpu = BackendRegistry::instance().cpu();
    QuantizeOptions qo;
    qo.tensorName = what;
    const QuantSpec typed = parseQuantSpec(spec);
    const QuantizedTensor c = cpu.quantize(*cpu.upload(w, what), typed, qo);
    const QuantizedTensor g = gpu.quantize(*gpu.upload(w, what), typed, qo);
    const std::string label = what + " " + spec.dump();
    EXPECT_EQ(g.method, c.method) << label;
    EXPECT_EQ(g.codeBits, c.codeBits) << label;
    EXPECT_EQ(g.codeDtype, c.codeDtype) << label;
    EXPECT_EQ(g.scaleDtype, c.scaleDtype) << label;
    EXPECT_EQ(g.sourceDtype, c.sourceDtype) << label;
    EXPECT_EQ(g.layout.group, c.layout.group) << label;
    EXPECT_EQ(g.layout.gridCols, c.layout.gridCols) << label;
    EXPECT_EQ(g.layout.ragged, c.layout.ragged) << label;
    EXPECT_EQ(g.codes, c.codes) << label;
    EXPECT_EQ(g.report, c.report) << label;
    EXPECT_EQ(g.outerScaleDtype, c.outerScaleDtype) << label;
    ASSERT_EQ(g.outerScales.size(), c.outerScales.size()) << label;
    for (std::size_t i = 0; i < c.outerScales.size(); ++i)
        EXPECT_TRUE(sameBits(g.outerScales[i], c.outerScales[i]))
            << label << " outer scale " << g.outerScales[i] << " vs " << c.outerScales[i];
    EXPECT_EQ(g.outerLayout.granularity, c.outerLayout.granularity) << label;
    EXPECT_EQ(g.nonFiniteGroups, c.nonFiniteGroups) << label;
    EXPECT_EQ(g.firstNonFinite, c.firstNonFinite) << label;
    // The result decodes to the same Ŵ with the CPU's own dequantization (outer scales included).
    std::vector<float> dg(static_cast<std::size_t>(w.numel())), dc(dg.size());
    makeQuantizer(g.spec)->dequantize(g, dg);
    makeQuantizer(c.spec)->dequantize(c, dc);
    std::size_t diff = 0;
    for (std::size_t i = 0; i < dc.size(); ++i)
        diff += !sameBits(dg[i], dc[i]);
    EXPECT_EQ(diff, 0u) << label << " decoded Ŵ differs";
}

struct Fp4Case {
    std::int64_t r, c;
    bool nonFinite, huge;
};
// 96: whole groups; 100: a ragged last group; 40: one group of 32 + 8; huge: values near FLT_MAX.
const Fp4Case kFp4Cases[] = {{37, 96, false, false},
                             {29, 100, false, false},
                             {24, 100, true, false},
                             {16, 40, true, false},
                             {12, 100, false, true}};

std::string caseName(const Fp4Case &cs, DType dt)
{
    return std::string(nameOf(dt)) + " " + std::to_string(cs.r) + "x" + std::to_string(cs.c) +
           (cs.nonFinite ? " with NaN/Inf" : "") + (cs.huge ? " with values near FLT_MAX" : "");
}

} // namespace

TEST(GpuQuant, Nvfp4AllDtypesBitIdentical)
{
    REQUIRE_GPU();
    for (const Fp4Case cs : kFp4Cases)
        for (DType dt : {DType::F32, DType::BF16, DType::F16}) {
            const auto v = mxfp4Data(cs.r, cs.c, 700 + cs.c + static_cast<int>(dt), cs.nonFinite, cs.huge);
            const Tensor w = makeTensor(v, cs.r, cs.c, dt);
            for (int group : {16, 32, 8})
                compareQuantizeOnly(*gpu, w, {{"method", "nvfp4"}, {"group", group}}, caseName(cs, dt));
        }
    // Stats given at open take the global scale from W's stats instead of the device's range pass.
    const Tensor w = makeTensor(mxfp4Data(24, 96, 3, false, false), 24, 96, DType::BF16);
    compareOnBoth(*gpu, w, {{"method", "nvfp4"}}, "bf16 24x96", {}, true);
}

TEST(GpuQuant, Nvfp4GlobalScaleEdges)
{
    REQUIRE_GPU();
    // All zeros: amax 0, global 1.0, every block scale underflows to 0 → 0.125. One tiny value:
    // 2688/amax overflows to Inf → 1.0. Only NaN/Inf: no finite amax → 1.0, every group bad.
    std::vector<float> zeros(8 * 64, 0.0f), tiny(8 * 64, 0.0f), bad(8 * 64, std::numeric_limits<float>::quiet_NaN());
    tiny[77] = 1e-44f;
    bad[5] = std::numeric_limits<float>::infinity();
    for (const auto &[name, v] : {std::pair{"zeros", zeros}, std::pair{"tiny", tiny}, std::pair{"nan", bad}}) {
        const Tensor w = makeTensor(v, 8, 64, DType::F32);
        compareQuantizeOnly(*gpu, w, {{"method", "nvfp4"}}, name);
    }
}

TEST(GpuQuant, ConstOptBothEncodersBitIdentical)
{
    REQUIRE_GPU();
    for (const Fp4Case cs : kFp4Cases)
        for (DType dt : {DType::F32, DType::BF16, DType::F16}) {
            const auto v = mxfp4Data(cs.r, cs.c, 900 + cs.c + static_cast<int>(dt), cs.nonFinite, cs.huge);
            const Tensor w = makeTensor(v, cs.r, cs.c, dt);
            for (const char *enc : {"pow2", "unrounded"})
                for (double c : {0.156, 0.05, 0.3331})
                    for (int group : {32, 16, 64})
                        compareQuantizeOnly(*gpu, w,
                                            {{"method", "constopt"}, {"encoder", enc}, {"c", c}, {"group", group}},
                                            caseName(cs, dt));
        }
}

TEST(GpuQuant, QuarksReciprocalIntRuleBitIdentical)
{
    // AMD Quark's x·(1/s) rule (scale_apply 'reciprocal'): the generic kernels run the shared
    // scalar function; the value-table path is not taken for it.
    REQUIRE_GPU();
    const auto v = heavyTailed(33, 256, 41, true);
    for (DType dt : {DType::F32, DType::BF16, DType::F16}) {
        const Tensor w = makeTensor(v, 33, 256, dt);
        for (const nlohmann::json &base : std::vector<nlohmann::json>{
                 {{"method", "int"}, {"granularity", "channel"}},
                 {{"method", "int"}, {"group", 128}, {"symmetric", false}},
                 {{"method", "int"}, {"group", 32}, {"arith", "source"}},
                 {{"method", "int"}, {"bits", 8}, {"granularity", "tensor"}},
                 {{"method", "int"}, {"granularity", "block"}, {"block", 16}, {"rounding", "half_away"}}}) {
            nlohmann::json spec = base;
            spec["scale_apply"] = "reciprocal";
            EXPECT_TRUE(gpu->supports(parseQuantSpec(spec)).supported) << spec.dump();
            compareOnBoth(*gpu, w, spec, std::string(nameOf(dt)) + " 33x256");
        }
    }
    RunOptions ro;
    ro.device = DeviceChoice::Gpu;
    const QuantSpec reciprocal = parseQuantSpec({{"method", "int"}, {"scale_apply", "reciprocal"}});
    const Tensor w = makeTensor(heavyTailed(16, 256, 3, false), 16, 256, DType::BF16);
    const QuantizeRun run = runQuantize(w, reciprocal, ro);
    EXPECT_NE(run.device, "cpu") << run.deviceNote;
    EXPECT_EQ(run.deviceNote, "");
}

TEST(GpuQuant, Fp4MethodsRunOnTheGpu)
{
    REQUIRE_GPU();
    for (const nlohmann::json &spec : std::vector<nlohmann::json>{
             {{"method", "nvfp4"}}, {{"method", "constopt"}}, {{"method", "constopt"}, {"encoder", "unrounded"}}})
        EXPECT_TRUE(gpu->supports(parseQuantSpec(spec)).supported) << spec.dump();
    for (const auto &m : gpu->capabilities()) {
        if (m.method == "nvfp4" || m.method == "mxfp4" || m.method == "int" || m.method == "constopt" ||
            m.method == "progressive") {
            EXPECT_TRUE(m.supported) << m.method << ": " << m.options;
        }
    }
}

TEST(GpuQuant, ProgressiveStage1Fp8PerTensorStage2IntBitIdentical)
{
    // Quark's ProgressiveSpec: stage 1 FP8 per tensor, stage 2 INT on the FP8-domain values; every
    // stage-2 granularity (per tensor included: its range is over the domain values, not W),
    // both scale rules, both FP8 formats, FP32 and source arithmetic, NaN/Inf (the whole tensor's
    // stage-1 codes are 0).
    REQUIRE_GPU();
    const std::vector<nlohmann::json> specs = {
        {{"method", "progressive"}},
        {{"method", "progressive"}, {"stage2", {{"granularity", "group"}, {"group", 128}, {"symmetric", false}}}},
        {{"method", "progressive"}, {"stage2", {{"granularity", "group"}, {"group", 32}, {"scale_apply", "divide"}}}},
        {{"method", "progressive"}, {"stage2", {{"granularity", "tensor"}, {"bits", 8}}}},
        {{"method", "progressive"}, {"stage2", {{"granularity", "channel"}, {"axis", 1}}}},
        {{"method", "progressive"}, {"stage2", {{"granularity", "block"}, {"block", 16}, {"arith", "source"}}}},
        {{"method", "progressive"}, {"stage1", {{"format", "e5m2"}, {"arith", "source"}}}},
        {{"method", "progressive"}, {"stage2", {{"group", 100}, {"granularity", "group"}}}},
    };
    for (const bool nonFinite : {false, true})
        for (DType dt : {DType::F32, DType::BF16, DType::F16}) {
            const Tensor w = makeTensor(heavyTailed(37, 256, 61 + static_cast<int>(dt), nonFinite), 37, 256, dt);
            for (const auto &spec : specs) {
                EXPECT_TRUE(gpu->supports(parseQuantSpec(spec)).supported) << spec.dump();
                compareQuantizeOnly(*gpu, w, spec, std::string(nameOf(dt)) + (nonFinite ? " with NaN/Inf" : ""));
            }
        }
    // Stage 1's scale (and a per-tensor stage 2's range) from the stats at open.
    for (const bool nonFinite : {false, true}) {
        const Tensor w = makeTensor(heavyTailed(24, 128, 5, nonFinite), 24, 128, DType::BF16);
        compareOnBoth(*gpu, w, specs[0], "bf16 24x128", {}, true);
        compareOnBoth(*gpu, w, specs[3], "bf16 24x128", {}, true);
    }
}

TEST(GpuQuant, ProgressiveValueTablePathBitIdenticalToTheCpuAndTheGenericKernels)
{
    // ProgressiveSpec on the value-table path (fp8_quant.cu: the row range pass, stage 1's code
    // table, stage 2's row scales, pass 1 with the rows' level counts; Ŵ from the (row, level)
    // counts; INT pass 2 with stage 1's scale): stage 2 per channel along rows — Quark's default
    // (symmetric, x·(1/s)), asymmetric, 3 bits with the division, stage 1 E5M2 — on BF16/F16 rows of
    // 16 to 8192 columns (one unit a row to two a thread) with a zero row, lattice values (exact FP8
    // values, repeated) and random ones: codes, scales, stage 1's scale, Ŵ and every metric as the
    // CPU, codes and scales as the generic kernels. NaN/Inf must leave the path with the same
    // results; a stage 2 per group, per column, or rows of a length that is not 16·2^t run the
    // generic kernels.
    REQUIRE_GPU();
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    const Backend &cpu = BackendRegistry::instance().cpu();
    const std::vector<nlohmann::json> onPath = {
        {{"method", "progressive"}},
        {{"method", "progressive"}, {"stage2", {{"symmetric", false}}}},
        {{"method", "progressive"}, {"stage2", {{"bits", 3}, {"scale_apply", "divide"}}}},
        {{"method", "progressive"}, {"stage1", {{"format", "e5m2"}}}},
    };
    const std::vector<nlohmann::json> offPath = {
        {{"method", "progressive"}, {"stage2", {{"granularity", "group"}, {"group", 32}}}},
        {{"method", "progressive"}, {"stage2", {{"granularity", "channel"}, {"axis", 1}}}},
    };
    struct Shape2 {
        std::int64_t r, c;
    };
    int fastRuns = 0;
    for (const Shape2 sh : {Shape2{37, 256}, Shape2{9, 4096}, Shape2{11, 16}, Shape2{3, 8192}, Shape2{7, 48}})
        for (DType dt : {DType::BF16, DType::F16})
            for (const bool nonFinite : {false, true}) {
                auto v = heavyTailed(sh.r, sh.c, 90 + sh.c + static_cast<int>(dt), nonFinite);
                for (std::int64_t c = 0; c < sh.c; c += 3) // lattice values in row 1: k/16, repeated
                    v[static_cast<std::size_t>(sh.c + c)] = static_cast<float>(static_cast<int>(c % 37) - 18) / 16.0f;
                const Tensor w = makeTensor(v, sh.r, sh.c, dt);
                const bool pow2 = sh.c == 16 || sh.c == 256 || sh.c == 4096 || sh.c == 8192;
                // heavyTailed places NaN/Inf only in tensors of more than five rows.
                const bool hasNonFinite = std::any_of(v.begin(), v.end(), [](float x) { return !std::isfinite(x); });
                EXPECT_EQ(hasNonFinite, nonFinite && sh.r > 5);
                for (std::size_t i = 0; i < onPath.size() + offPath.size(); ++i) {
                    const nlohmann::json &spec = i < onPath.size() ? onPath[i] : offPath[i - onPath.size()];
                    const std::string what = std::string(nameOf(dt)) + " " + std::to_string(sh.r) + "x" +
                                             std::to_string(sh.c) + (nonFinite ? " with NaN/Inf " : " ") + spec.dump();
                    const EngineResult g = runEngine(*engine, w, spec, 0);
                    EXPECT_EQ(g.fast, i < onPath.size() && pow2 && !hasNonFinite) << what;
                    fastRuns += g.fast ? 1 : 0;
                    QuantizeOptions qo;
                    qo.tensorName = "w";
                    qo.wantDequantized = true;
                    const MeasuredRun c =
                        cpu.quantizeMeasured(*cpu.upload(w, "w"), parseQuantSpec(spec), qo, {}, std::nullopt);
                    expectQuantized(g.q, c.quantized, what);
                    expectMetrics(g.m, c.metrics, what);
                    ASSERT_EQ(g.q.outerScales.size(), c.quantized.outerScales.size()) << what;
                    for (std::size_t k = 0; k < c.quantized.outerScales.size(); ++k)
                        EXPECT_TRUE(sameBits(g.q.outerScales[k], c.quantized.outerScales[k])) << what << " stage 1";
                    if (g.fast) {
                        const EngineResult gen = runEngine(*engine, w, spec, gpu::launch::kNoFastPath);
                        EXPECT_FALSE(gen.fast) << what;
                        expectQuantized(gen.q, g.q, what + " generic vs value table");
                    }
                }
            }
    EXPECT_GE(fastRuns, 32); // four shapes × BF16/F16 × four specs on finite data
    // Stage 1's scale from the stats at open, on the path.
    const Tensor w = makeTensor(heavyTailed(24, 128, 5, false), 24, 128, DType::BF16);
    compareOnBoth(*gpu, w, onPath[0], "bf16 24x128 stats at open", {}, true);
    compareOnBoth(*gpu, w, onPath[1], "bf16 24x128 stats at open", {}, true);
}

TEST(GpuQuant, ProgressiveOtherStageCombinationsRunOnTheCpuAndSaySo)
{
    REQUIRE_GPU();
    const QuantSpec spec = parseQuantSpec({{"method", "progressive"}, {"stage1", {{"method", "int"}, {"bits", 8}}}});
    const Capability cap = gpu->supports(spec);
    EXPECT_FALSE(cap.supported);
    EXPECT_NE(cap.reason.find("stage 1 FP8 per tensor"), std::string::npos) << cap.reason;
    RunOptions ro;
    ro.device = DeviceChoice::Gpu;
    const Tensor w = makeTensor(heavyTailed(16, 128, 8, false), 16, 128, DType::BF16);
    const QuantizeRun run = runQuantize(w, spec, ro);
    EXPECT_EQ(run.device, "cpu");
    EXPECT_EQ(run.deviceNote, cap.reason);
}

TEST(GpuQuant, ConstOptWithHadamardRotationBitIdentical)
{
    // The device rotates W (bit for bit hadamard.h), quantizes the rotated tensor, rotates Ŵ back
    // and measures it against W: codes, scales, Ŵ and metrics as the CPU; the report's rotated
    // kurtosis within the moments' tolerance, its absmax exact.
    REQUIRE_GPU();
    const Backend &cpu = BackendRegistry::instance().cpu();
    for (const bool nonFinite : {false, true})
        for (DType dt : {DType::F32, DType::BF16}) {
            const Tensor w = makeTensor(heavyTailed(24, 4096, 77 + static_cast<int>(dt), nonFinite), 24, 4096, dt);
            for (const int d : {32, 128, 4096})
                for (const char *enc : {"pow2", "unrounded"}) {
                    const nlohmann::json spec{{"method", "constopt"}, {"rotate", d}, {"encoder", enc}};
                    const QuantSpec typed = parseQuantSpec(spec);
                    ASSERT_TRUE(gpu->supports(typed).supported) << spec.dump();
                    const std::string what = std::string(nameOf(dt)) + (nonFinite ? " with NaN/Inf" : "");
                    compareOnBoth(*gpu, w, spec, what);
                    QuantizeOptions qo;
                    qo.tensorName = what;
                    const QuantizedTensor c = cpu.quantize(*cpu.upload(w, what), typed, qo);
                    const QuantizedTensor g = gpu->quantize(*gpu->upload(w, what), typed, qo);
                    const std::string label = what + " " + spec.dump();
                    EXPECT_EQ(g.codes, c.codes) << label;
                    EXPECT_EQ(g.spec, c.spec) << label;
                    EXPECT_EQ(g.report["rotate"], c.report["rotate"]) << label;
                    EXPECT_EQ(g.report["rotated_absmax"], c.report["rotated_absmax"]) << label;
                    ASSERT_EQ(g.report["rotated_excess_kurtosis"].is_number(),
                              c.report["rotated_excess_kurtosis"].is_number())
                        << label;
                    if (c.report["rotated_excess_kurtosis"].is_number()) {
                        const double kc = c.report["rotated_excess_kurtosis"], kg = g.report["rotated_excess_kurtosis"];
                        EXPECT_LE(std::abs(kg - kc), 1e-9 * std::max(1.0, std::abs(kc))) << label;
                    }
                }
        }
    const Capability big = gpu->supports(parseQuantSpec({{"method", "constopt"}, {"rotate", 8192}}));
    EXPECT_FALSE(big.supported);
    EXPECT_NE(big.reason.find("4096"), std::string::npos) << big.reason;
}
