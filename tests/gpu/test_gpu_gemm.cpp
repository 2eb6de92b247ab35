// SPDX-License-Identifier: MIT
// The activation quantizers and the paired GEMM simulation on the GPU against the CPU: activation
// codes, scales and X̂ bit for bit; Ŷ bit for bit (the same op sequence, k in order); the per-token
// sums and the reported errors within 1e-12 relative (their FP64 reduction order differs). Skipped,
// with the reason, when no device is present.
#include "gpu_compare.h"

#include "engine/gemm_device.h"
#include "quant/activation.h"
#include "quant/hqq.h"
#include "sim/gemm_sim.h"

namespace {

void expectSameActivations(const QuantizedActivations &g, const QuantizedActivations &c, const std::string &what)
{
    EXPECT_EQ(g.rows, c.rows) << what;
    EXPECT_EQ(g.cols, c.cols) << what;
    EXPECT_EQ(g.int8, c.int8) << what;
    EXPECT_EQ(g.perToken, c.perToken) << what;
    EXPECT_EQ(g.codes, c.codes) << what;
    EXPECT_EQ(g.nonFinite, c.nonFinite) << what;
    EXPECT_EQ(g.scaleSource, c.scaleSource) << what;
    ASSERT_EQ(g.scales.size(), c.scales.size()) << what;
    for (std::size_t i = 0; i < c.scales.size(); ++i)
        EXPECT_TRUE(sameBits(g.scales[i], c.scales[i])) << what << " scale " << i;
    ASSERT_EQ(g.dequantized.size(), c.dequantized.size()) << what;
    std::size_t diff = 0;
    for (std::size_t i = 0; i < c.dequantized.size(); ++i)
        diff += !sameBits(g.dequantized[i], c.dequantized[i]);
    EXPECT_EQ(diff, 0u) << what << " X̂ differs";
}

void expectRel(double g, double c, const std::string &what)
{
    EXPECT_LE(std::abs(g - c), 1e-12 * std::max(std::abs(c), 1e-300)) << what << ": gpu " << g << " cpu " << c;
}

} // namespace

TEST(GpuGemm, ActivationQuantizersBitIdentical)
{
    REQUIRE_GPU();
    for (const bool nonFinite : {false, true})
        for (DType dt : {DType::F32, DType::BF16, DType::F16}) {
            const Tensor x = makeTensor(heavyTailed(37, 192, 11 + static_cast<int>(dt), nonFinite), 37, 192, dt);
            for (const char *k : {"int8-token", "fp8-token", "fp8-tensor", "static", "static:0.0125"}) {
                const ActQuantSpec spec = ActQuantSpec::parse(k);
                std::string why;
                const auto g = gpu->quantizeActivations(x, spec, why);
                ASSERT_TRUE(g.has_value()) << why;
                const QuantizedActivations c = quantizeActivations(x, spec);
                expectSameActivations(
                    *g, c, std::string(k) + " " + std::string(nameOf(dt)) + (nonFinite ? " with NaN/Inf" : ""));
            }
        }
}

namespace {

struct SimCase {
    nlohmann::json spec;
    const char *act;
};

const std::vector<SimCase> &simCases()
{
    static const std::vector<SimCase> cases = {
        {{{"method", "int"}, {"group", 64}}, nullptr},                                // W4A16
        {{{"method", "int"}, {"group", 64}}, "int8-token"},                           // W4A8-int8
        {{{"method", "int"}, {"group", 64}, {"symmetric", false}}, "int8-token"},     // with z·Σx
        {{{"method", "int"}, {"granularity", "channel"}}, "fp8-token"},               // W4A8-fp8
        {{{"method", "int"}, {"group", 100}, {"symmetric", false}}, "fp8-tensor"},    // ragged runs
        {{{"method", "int"}, {"granularity", "channel"}, {"axis", 1}}, "int8-token"}, // runs of one k
        {{{"method", "fp8"}}, "fp8-token"},                                           // W8A8-fp8
        {{{"method", "fp8"}, {"granularity", "block"}, {"block", 64}}, "static"},     // blocks
        {{{"method", "progressive"}}, "int8-token"},                                  // two scales
        {{{"method", "nvfp4"}}, "fp8-token"},
        {{{"method", "mxfp4"}}, "static:0.02"},
        {{{"method", "mxfp4"}}, nullptr},                        // A16 with the host's Ŵ uploaded
        {{{"method", "constopt"}, {"rotate", 64}}, "fp8-token"}, // rotated X
    };
    return cases;
}

/// The device's simulation against the CPU's: Ŷ bit for bit, the errors within 1e-12.
void expectSameSimulation(const GemmSimResult &g, const GemmSimResult &c, bool act, bool dropZ, const std::string &what)
{
    EXPECT_EQ(c.device, "cpu") << what;
    EXPECT_EQ(g.scheme, c.scheme) << what;
    EXPECT_EQ(g.actQuant, c.actQuant) << what;
    EXPECT_EQ(g.actScaleSource, c.actScaleSource) << what;
    EXPECT_EQ(g.zeroPointTerm, c.zeroPointTerm) << what;
    EXPECT_EQ(g.rotatedActivations, c.rotatedActivations) << what;
    EXPECT_EQ(g.tokens, c.tokens) << what;
    expectRel(g.actRelErr, c.actRelErr, what + " act rel err");
    expectRel(g.relErrOutput, c.relErrOutput, what + " output rel err");
    expectRel(g.relErrWeightOnly, c.relErrWeightOnly, what + " weight-only rel err");
    expectRel(g.worstTokenRelErr, c.worstTokenRelErr, what + " worst token");
    EXPECT_EQ(g.worstToken, c.worstToken) << what;
    EXPECT_EQ(g.worstTokenWeightOnly, c.worstTokenWeightOnly) << what;
    ASSERT_EQ(g.output.size(), c.output.size()) << what;
    std::size_t diff = 0;
    for (std::size_t i = 0; i < c.output.size(); ++i)
        diff += !sameBits(g.output[i], c.output[i]);
    EXPECT_EQ(diff, 0u) << what << " Ŷ differs";
    if (!act || dropZ)
        return;
    // The scheme's error is of the size of the weight's (a check that the sums mean something).
    EXPECT_GT(g.relErrOutput, 0.0) << what;
    EXPECT_LT(g.relErrOutput, 1.0) << what;
}

} // namespace

TEST(GpuGemm, PairedSimulationEqualsTheCpu)
{
    // Both device paths of simulateGemm: the whole simulation on the device from X, W and the codes
    // (GemmSimDevice::simulate), and the loops on operands the host prepared (without `simulate`).
    REQUIRE_GPU();
    const std::int64_t M = 70, N = 90, K = 320; // not multiples of the kernel's tiles
    const Tensor x = makeTensor(heavyTailed(M, K, 5, false), M, K, DType::BF16);
    const Tensor w = makeTensor(heavyTailed(N, K, 6, false), N, K, DType::BF16);
    const Backend &cpuB = BackendRegistry::instance().cpu();
    const auto planned = gemmDevice(DeviceChoice::Gpu);
    ASSERT_TRUE(planned);
    ASSERT_TRUE(planned->simulate);
    auto operandsOnly = std::make_shared<GemmSimDevice>(*planned);
    operandsOnly->simulate = nullptr;
    for (const auto &cs : simCases())
        for (const bool dropZ : {false, true}) {
            const QuantizedTensor qw = cpuB.quantize(*cpuB.upload(w, "w"), parseQuantSpec(cs.spec), {});
            GemmSimOptions o;
            if (cs.act)
                o.act = ActQuantSpec::parse(cs.act);
            o.keepOutput = true;
            o.omitZeroPointTerm = dropZ;
            const GemmSimResult c = simulateGemm(x, w, qw, o);
            for (const bool whole : {true, false}) {
                o.device = whole ? planned : std::shared_ptr<const GemmSimDevice>(operandsOnly);
                const GemmSimResult g = simulateGemm(x, w, qw, o);
                const std::string what = cs.spec.dump() + " " + (cs.act ? cs.act : "none") +
                                         (dropZ ? " without z·Σx" : "") + (whole ? " (planned)" : " (operands)");
                EXPECT_EQ(g.device, gpu->info().id) << what << ": " << g.deviceNote;
                EXPECT_EQ(g.deviceNote, "") << what;
                expectSameSimulation(g, c, cs.act != nullptr, dropZ, what);
            }
        }
}

TEST(GpuGemm, ResidentSimulationEqualsTheCpu)
{
    // simulateGemmResident from tensors already on the device: X and W uploaded once (BF16 as BF16,
    // and F16 / F32 X), Ŵ decoded from the codes or, where the quantize kept it there, the device's Ŵ.
    REQUIRE_GPU();
    const std::int64_t M = 37, N = 130, K = 256;
    const Tensor w = makeTensor(heavyTailed(N, K, 16, false), N, K, DType::BF16);
    const Backend &cpuB = BackendRegistry::instance().cpu();
    const auto dw = gpu->upload(w, "w");
    for (DType xdt : {DType::BF16, DType::F16, DType::F32}) {
        const Tensor x = makeTensor(heavyTailed(M, K, 15 + static_cast<int>(xdt), false), M, K, xdt);
        const auto dx = gpu->upload(x, "x");
        for (const auto &cs : simCases()) {
            const QuantSpec spec = parseQuantSpec(cs.spec);
            const QuantizedTensor qw = cpuB.quantize(*cpuB.upload(w, "w"), spec, {});
            GemmSimOptions o;
            if (cs.act)
                o.act = ActQuantSpec::parse(cs.act);
            o.keepOutput = true;
            const GemmSimResult c = simulateGemm(x, w, qw, o);
            const std::string what =
                cs.spec.dump() + " " + (cs.act ? cs.act : "none") + " X " + std::string(nameOf(xdt));
            std::string why;
            const auto g = simulateGemmResident(*gpu, *dx, *dw, nullptr, qw, o, why);
            ASSERT_TRUE(g.has_value()) << what << ": " << why;
            EXPECT_EQ(g->device, gpu->info().id) << what;
            expectSameSimulation(*g, c, cs.act != nullptr, false, what);
            // Ŵ left on the device by the GPU's quantize (its codes are the CPU's).
            if (!gpu->supports(spec).supported)
                continue;
            QuantizeOptions qo;
            qo.wantDequantized = false;
            qo.dequantizedOnDevice = true;
            const MeasuredRun mr = gpu->quantizeMeasured(*dw, spec, qo, {}, std::nullopt);
            if (!mr.deviceDequantized)
                continue;
            EXPECT_EQ(mr.quantized.codes, qw.codes) << what;
            const auto gh = simulateGemmResident(*gpu, *dx, *dw, mr.deviceDequantized.get(), mr.quantized, o, why);
            ASSERT_TRUE(gh.has_value()) << what << ": " << why;
            expectSameSimulation(*gh, c, cs.act != nullptr, false, what + " with the device's Ŵ");
        }
    }
}

TEST(GpuGemm, ResidentSimulationDeclinesNonFiniteActivations)
{
    // The dynamic quantizers' NaN/Inf tokens: the planned path declines (the host path reports them
    // as the CPU does), and simulateGemm then gives the CPU's result through the operand path.
    REQUIRE_GPU();
    const std::int64_t M = 9, N = 64, K = 128;
    const Tensor x = makeTensor(heavyTailed(M, K, 21, true), M, K, DType::BF16);
    const Tensor w = makeTensor(heavyTailed(N, K, 22, false), N, K, DType::BF16);
    const Backend &cpuB = BackendRegistry::instance().cpu();
    const QuantizedTensor qw =
        cpuB.quantize(*cpuB.upload(w, "w"), parseQuantSpec(nlohmann::json{{"method", "int"}, {"group", 64}}), {});
    GemmSimOptions o;
    o.act = ActQuantSpec::parse("int8-token");
    std::string why;
    EXPECT_FALSE(simulateGemmResident(*gpu, *gpu->upload(x, "x"), *gpu->upload(w, "w"), nullptr, qw, o, why));
    EXPECT_NE(why.find("NaN"), std::string::npos) << why;
}

TEST(GpuGemm, CpuChoiceAndUnavailableDeviceSayWhereItRan)
{
    REQUIRE_GPU();
    EXPECT_EQ(gemmDevice(DeviceChoice::Cpu), nullptr);
    const auto autoDev = gemmDevice(DeviceChoice::Auto);
    ASSERT_TRUE(autoDev);
    EXPECT_EQ(autoDev->id, gpu->info().id);
}

TEST(GpuGemm, CodesLeftOnTheDeviceGiveTheUploadedCodesResultBitForBit)
{
    // The fully resident simulation (issue 44): the codes the engine's quantize left on the device
    // read in place of uploading the host's copy of them — the same bytes, so every per-token sum
    // and Ŷ equal bit for bit, for each scheme.
    REQUIRE_GPU();
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    const std::int64_t M = 29, N = 96, K = 384;
    const Tensor w = makeTensor(heavyTailed(N, K, 31, false), N, K, DType::BF16);
    const Tensor x = makeTensor(heavyTailed(M, K, 32, false), M, K, DType::BF16);
    const auto dx = engine->upload(x, "x");
    const auto dw = engine->upload(w, "w");
    IntSpec s;
    s.bits = 4;
    s.group = 64;
    s.symmetric = false;
    const QuantSpec spec{s};
    gpu::PipelineOptions po;
    po.metrics = false;
    auto qrun = engine->enqueue(*dw, &spec, po);
    QuantizedTensor q;
    engine->collect(*qrun, &q, nullptr);
    const void *codes = engine->codesOnDevice(*qrun);
    ASSERT_NE(codes, nullptr);
    for (const char *act : {"int8-token", "fp8-token", static_cast<const char *>(nullptr)}) {
        GemmSimOptions o;
        if (act)
            o.act = ActQuantSpec::parse(act);
        o.keepOutput = true;
        const std::string what = act ? act : "none";
        const GemmPlan plan = planGemm(dx->shape(), dw->shape(), q, o);
        GemmDeviceRun up, dev;
        std::string why;
        ASSERT_TRUE(engine->simulateGemmPlanned(*dx, *dw, nullptr, q, plan, o, up, why)) << what << ": " << why;
        ASSERT_TRUE(engine->simulateGemmPlanned(*dx, *dw, nullptr, q, plan, o, dev, why, nullptr, codes))
            << what << ": " << why;
        ASSERT_EQ(up.sums.yy.size(), static_cast<std::size_t>(M)) << what;
        EXPECT_EQ(std::memcmp(up.sums.yy.data(), dev.sums.yy.data(), 8 * M), 0) << what;
        EXPECT_EQ(std::memcmp(up.sums.es.data(), dev.sums.es.data(), 8 * M), 0) << what;
        EXPECT_EQ(std::memcmp(up.sums.ew.data(), dev.sums.ew.data(), 8 * M), 0) << what;
        ASSERT_EQ(up.sums.output.size(), static_cast<std::size_t>(M * N)) << what;
        EXPECT_EQ(std::memcmp(up.sums.output.data(), dev.sums.output.data(), 4 * up.sums.output.size()), 0) << what;
        EXPECT_EQ(std::memcmp(&up.actErr, &dev.actErr, 8), 0) << what;
    }
    // Without host codes the device's are enough; without either the simulation declines.
    QuantizedTensor noCodes = q;
    noCodes.codes.clear();
    GemmSimOptions o;
    o.act = ActQuantSpec::parse("int8-token");
    const GemmPlan plan = planGemm(dx->shape(), dw->shape(), q, o);
    GemmDeviceRun r;
    std::string why;
    EXPECT_TRUE(engine->simulateGemmPlanned(*dx, *dw, nullptr, noCodes, plan, o, r, why, nullptr, codes)) << why;
    EXPECT_FALSE(engine->simulateGemmPlanned(*dx, *dw, nullptr, noCodes, plan, o, r, why));
    EXPECT_NE(why.find("codes"), std::string::npos) << why;
}
