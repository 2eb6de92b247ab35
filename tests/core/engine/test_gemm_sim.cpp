// SPDX-License-Identifier: MIT
// Activation quantizers and the paired GEMM simulation against explicit loops written here:
// W4A8-int8 with INT32 accumulation and the zero-point term, FP8 paths with FP32 accumulation,
// W4A16 with BF16 operands.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <unistd.h>

#include "sim/gemm_sim.h"
#include "sim/gemm_sim_math.h"
#include "numeric/fp4math.h"
#include "quant/quantizer.h"
#include "engine/gemm_device.h"
#include "io/safetensors.h"
#include "quant/activation.h"
#include "quant/constopt.h"
#include "quant/fp8.h"
#include "quant/nvfp4.h"
#include "quant/progressive.h"
#include "quant/uniform.h"
#include "tensor/convert.h"
#include "util/error.h"

using namespace quantscope;

namespace {

std::vector<float> gaussian(std::int64_t R, std::int64_t C, std::uint64_t seed, float sigma, float outlier = 1.0f)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> nd(0.0f, sigma);
    std::vector<float> v(static_cast<std::size_t>(R * C));
    for (std::int64_t r = 0; r < R; ++r)
        for (std::int64_t c = 0; c < C; ++c)
            v[static_cast<std::size_t>(r * C + c)] = nd(rng) * (c % 50 == 7 ? outlier : 1.0f);
    return v;
}

/// Weights with a per-row offset, so that asymmetric INT4 zero points are far from 0.
std::vector<float> shiftedRows(std::int64_t N, std::int64_t K, std::uint64_t seed)
{
    auto w = gaussian(N, K, seed, 0.02f);
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t k = 0; k < K; ++k)
            w[static_cast<std::size_t>(n * K + k)] += 0.04f * static_cast<float>(n % 5 - 1);
    return w;
}

double relErr(const std::vector<double> &y, const std::vector<float> &yh)
{
    double e = 0, s = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        e += (y[i] - yh[i]) * (y[i] - yh[i]);
        s += y[i] * y[i];
    }
    return std::sqrt(e / s);
}

std::vector<double> exactProduct(const std::vector<float> &x, const std::vector<float> &w, std::int64_t M,
                                 std::int64_t N, std::int64_t K)
{
    std::vector<double> y(static_cast<std::size_t>(M * N));
    for (std::int64_t m = 0; m < M; ++m)
        for (std::int64_t n = 0; n < N; ++n) {
            double s = 0;
            for (std::int64_t k = 0; k < K; ++k)
                s += static_cast<double>(x[m * K + k]) * w[n * K + k];
            y[m * N + n] = s;
        }
    return y;
}

} // namespace

TEST(ActivationQuant, PerTokenAndPerTensorRules)
{
    const std::int64_t M = 12, K = 100;
    auto x = gaussian(M, K, 1, 1.0f, 30.0f);
    for (std::int64_t k = 0; k < K; ++k)
        x[static_cast<std::size_t>(5 * K + k)] = 0.0f; // a zero token
    const Tensor t = Tensor::fromFloats({M, K}, x);
    // int8-token: s = absmax/127, q = clamp(round_half_even(x/s), −128, 127).
    const auto a = quantizeActivations(t, ActQuantSpec::parse("int8-token"));
    ASSERT_EQ(a.scales.size(), static_cast<std::size_t>(M));
    std::size_t bad = 0;
    for (std::int64_t m = 0; m < M; ++m) {
        float amax = 0;
        for (std::int64_t k = 0; k < K; ++k)
            amax = std::max(amax, std::fabs(x[m * K + k]));
        float s = amax / 127.0f;
        if (s == 0)
            s = FLT_EPSILON;
        bad += a.scales[m] != s;
        for (std::int64_t k = 0; k < K; ++k) {
            const int q = std::clamp(static_cast<int>(std::nearbyint(x[m * K + k] / s)), -128, 127);
            bad += static_cast<std::int8_t>(a.codes[m * K + k]) != q;
            bad += a.dequantized[m * K + k] != s * static_cast<float>(q);
        }
    }
    EXPECT_EQ(bad, 0u);
    // fp8-token / fp8-tensor: s = absmax/448, e4m3(clamp(x/s)).
    for (const char *kind : {"fp8-token", "fp8-tensor"}) {
        const auto f = quantizeActivations(t, ActQuantSpec::parse(kind));
        const bool tok = std::string(kind) == "fp8-token";
        EXPECT_EQ(f.scales.size(), tok ? static_cast<std::size_t>(M) : 1u);
        bad = 0;
        float tmax = 0;
        for (float v : x)
            tmax = std::max(tmax, std::fabs(v));
        for (std::int64_t m = 0; m < M; ++m) {
            float amax = 0;
            for (std::int64_t k = 0; k < K; ++k)
                amax = std::max(amax, std::fabs(x[m * K + k]));
            float s = (tok ? amax : tmax) / 448.0f;
            if (s == 0)
                s = FLT_EPSILON;
            bad += f.scaleOf(m) != s;
            for (std::int64_t k = 0; k < K; ++k)
                bad += f.codes[m * K + k] != floatToE4m3(x[m * K + k] / s);
        }
        EXPECT_EQ(bad, 0u) << kind;
    }
    // static: the given scale, or the loaded tensor's amax/448, labelled.
    const auto s1 = quantizeActivations(t, ActQuantSpec::parse("static:0.05"));
    EXPECT_EQ(s1.scales[0], 0.05f);
    EXPECT_EQ(s1.scaleSource, "user");
    EXPECT_EQ(s1.codes[3], floatToE4m3(x[3] / 0.05f));
    const auto s2 = quantizeActivations(t, ActQuantSpec::parse("static"));
    const auto ft = quantizeActivations(t, ActQuantSpec::parse("fp8-tensor"));
    EXPECT_EQ(s2.scaleSource, "absmax of the loaded tensor");
    EXPECT_EQ(s2.scales[0], ft.scales[0]);
    EXPECT_EQ(s2.codes, ft.codes);
    EXPECT_THROW(ActQuantSpec::parse("static:-1"), UnsupportedError);
    EXPECT_THROW(ActQuantSpec::parse("int4-token"), UnsupportedError);
    EXPECT_EQ(ActQuantSpec::parse("static:0.25").name(), "static:0.25");
    // A 3-D activation [B, S, K] is flattened to [B·S, K].
    const auto a3 = quantizeActivations(Tensor::fromFloats({3, 4, K}, x), ActQuantSpec::parse("int8-token"));
    EXPECT_EQ(a3.rows, M);
    EXPECT_EQ(a3.codes, a.codes);
    EXPECT_EQ(a3.scales, a.scales);
}

TEST(GemmSim, W4A8Int8EqualsAnExplicitInt32Loop)
{
    const std::int64_t M = 16, N = 40, K = 256;
    const auto x = gaussian(M, K, 2, 1.0f, 20.0f);
    for (bool grouped : {false, true})
        for (bool sym : {true, false}) {
            const auto w = shiftedRows(N, K, 3);
            IntSpec s;
            s.bits = 4;
            s.granularity = grouped ? Granularity::Group : Granularity::Channel;
            s.group = 64;
            s.symmetric = sym;
            const Tensor wt = Tensor::fromFloats({N, K}, w);
            const auto qw = IntQuantizer(s).quantize(wt, {});
            GemmSimOptions o;
            o.act = ActQuantSpec::parse("int8-token");
            o.keepOutput = true;
            const auto r = simulateGemm(Tensor::fromFloats({M, K}, x), wt, qw, o);
            EXPECT_EQ(r.scheme, "W4A8-int8");
            EXPECT_EQ(r.zeroPointTerm, !sym);
            const auto xa = quantizeActivations(Tensor::fromFloats({M, K}, x), *o.act);
            const std::int64_t G = grouped ? K / 64 : 1, gl = K / G;
            std::size_t bad = 0;
            std::vector<float> yh(static_cast<std::size_t>(M * N));
            for (std::int64_t m = 0; m < M; ++m)
                for (std::int64_t n = 0; n < N; ++n) {
                    float y = 0.0f;
                    for (std::int64_t g = 0; g < G; ++g) {
                        std::int32_t acc = 0, sumx = 0;
                        for (std::int64_t k = g * gl; k < (g + 1) * gl; ++k) {
                            const std::int32_t xq = static_cast<std::int8_t>(xa.codes[m * K + k]);
                            const std::int32_t wq = static_cast<std::int8_t>(qw.codes[n * K + k]);
                            acc += xq * wq;
                            sumx += xq;
                        }
                        const std::int32_t z = sym ? 0 : qw.zeros[n * G + g];
                        const float sw = qw.scales[n * G + g];
                        y = y + (xa.scales[m] * sw) * static_cast<float>(acc - z * sumx);
                    }
                    yh[m * N + n] = y;
                    bad += std::memcmp(&y, &r.output[m * N + n], 4) != 0;
                }
            EXPECT_EQ(bad, 0u) << (grouped ? "group" : "channel") << (sym ? " sym" : " asym");
            const auto Y = exactProduct(x, w, M, N, K);
            EXPECT_NEAR(r.relErrOutput, relErr(Y, yh), 1e-12);
            // The output error stays close to the weight-only error (INT8 tokens are fine here).
            EXPECT_LT(r.relErrOutput, r.relErrWeightOnly * 1.3 + 0.01);
        }
}

TEST(GemmSim, AsymmetricWeightsNeedTheZeroPointTerm)
{
    const std::int64_t M = 16, N = 40, K = 256;
    const auto x = gaussian(M, K, 4, 1.0f);
    auto xs = x;
    for (auto &v : xs)
        v = std::fabs(v) + 0.2f; // post-activation-like: Σx_q far from 0
    const auto w = shiftedRows(N, K, 5);
    const Tensor wt = Tensor::fromFloats({N, K}, w);
    ProgressiveSpec ps;
    std::get<IntSpec>(ps.stage2).symmetric = false;
    const auto qw = ProgressiveQuantizer(ps).quantize(wt, {});
    ASSERT_FALSE(qw.zeros.empty());
    GemmSimOptions o;
    o.act = ActQuantSpec::parse("int8-token");
    const auto with = simulateGemm(Tensor::fromFloats({M, K}, xs), wt, qw, o);
    o.omitZeroPointTerm = true;
    const auto without = simulateGemm(Tensor::fromFloats({M, K}, xs), wt, qw, o);
    EXPECT_TRUE(with.zeroPointTerm);
    EXPECT_FALSE(without.zeroPointTerm);
    EXPECT_LT(with.relErrOutput, 0.2);
    EXPECT_GT(without.relErrOutput, 5 * with.relErrOutput);
    EXPECT_DOUBLE_EQ(with.relErrWeightOnly, without.relErrWeightOnly);
    std::printf("W4A8-int8, asymmetric INT4: output rel. error %.4f with the zero-point term, %.4f without "
                "(weight only %.4f)\n",
                with.relErrOutput, without.relErrOutput, with.relErrWeightOnly);
}

TEST(GemmSim, Fp8PathsEqualExplicitFp32Loops)
{
    const std::int64_t M = 10, N = 24, K = 128;
    const auto x = gaussian(M, K, 6, 1.0f, 10.0f);
    const auto w = gaussian(N, K, 7, 0.03f);
    const Tensor xt = Tensor::fromFloats({M, K}, x), wt = Tensor::fromFloats({N, K}, w);
    // W4A8-fp8 with the published W4A8 recipe: FP8 per tensor → INT4 per channel; FP8 per-tensor
    // dynamic activations. Epilogue (s_x · s2[n]) · s1.
    {
        const auto qw = ProgressiveQuantizer(ProgressiveSpec{}).quantize(wt, {});
        GemmSimOptions o;
        o.act = ActQuantSpec::parse("fp8-tensor");
        o.keepOutput = true;
        const auto r = simulateGemm(xt, wt, qw, o);
        EXPECT_EQ(r.scheme, "W4A8-fp8");
        const auto xa = quantizeActivations(xt, *o.act);
        std::size_t bad = 0;
        for (std::int64_t m = 0; m < M; ++m)
            for (std::int64_t n = 0; n < N; ++n) {
                float acc = 0.0f;
                for (std::int64_t k = 0; k < K; ++k) {
                    const float w8 =
                        e4m3ToFloat(floatToE4m3(static_cast<float>(static_cast<std::int8_t>(qw.codes[n * K + k]))));
                    acc = acc + e4m3ToFloat(xa.codes[m * K + k]) * w8;
                }
                const float y = 0.0f + ((xa.scales[0] * qw.scales[n]) * qw.outerScales[0]) * acc;
                bad += std::memcmp(&y, &r.output[m * N + n], 4) != 0;
            }
        EXPECT_EQ(bad, 0u);
    }
    // W8A8-fp8: FP8 per-channel weights, per-token FP8 activations.
    {
        Fp8Spec fs;
        fs.granularity = Granularity::Channel;
        const auto qw = Fp8Quantizer(fs).quantize(wt, {});
        GemmSimOptions o;
        o.act = ActQuantSpec::parse("fp8-token");
        o.keepOutput = true;
        const auto r = simulateGemm(xt, wt, qw, o);
        EXPECT_EQ(r.scheme, "W8A8-fp8");
        const auto xa = quantizeActivations(xt, *o.act);
        std::size_t bad = 0;
        for (std::int64_t m = 0; m < M; ++m)
            for (std::int64_t n = 0; n < N; ++n) {
                float acc = 0.0f;
                for (std::int64_t k = 0; k < K; ++k)
                    acc = acc + e4m3ToFloat(xa.codes[m * K + k]) * e4m3ToFloat(qw.codes[n * K + k]);
                const float y = 0.0f + (xa.scales[m] * qw.scales[n]) * acc;
                bad += std::memcmp(&y, &r.output[m * N + n], 4) != 0;
            }
        EXPECT_EQ(bad, 0u);
        EXPECT_LT(r.relErrOutput, 0.1);
    }
    // W4A16: BF16 operands, FP32 accumulation.
    {
        IntSpec is;
        is.group = 32;
        const auto qw = IntQuantizer(is).quantize(wt, {});
        GemmSimOptions o;
        o.keepOutput = true;
        const auto r = simulateGemm(xt, wt, qw, o);
        EXPECT_EQ(r.scheme, "W4A16");
        EXPECT_EQ(r.actQuant, "none");
        std::size_t bad = 0;
        for (std::int64_t m = 0; m < M; ++m)
            for (std::int64_t n = 0; n < N; ++n) {
                float acc = 0.0f;
                for (std::int64_t k = 0; k < K; ++k)
                    acc = acc +
                          bf16ToFloat(floatToBf16(x[m * K + k])) * bf16ToFloat(floatToBf16(qw.dequantized[n * K + k]));
                bad += std::memcmp(&acc, &r.output[m * N + n], 4) != 0;
            }
        EXPECT_EQ(bad, 0u);
        EXPECT_NEAR(r.relErrOutput, r.relErrWeightOnly, 0.01);
        EXPECT_GE(r.worstTokenRelErr, r.relErrOutput * 0.5);
        EXPECT_GE(r.worstToken, 0);
    }
}

TEST(GemmSim, Fp4WeightsAndRotatedActivations)
{
    const std::int64_t M = 8, N = 16, K = 128;
    const auto x = gaussian(M, K, 8, 1.0f, 25.0f);
    const auto w = gaussian(N, K, 9, 0.03f);
    const Tensor xt = Tensor::fromFloats({M, K}, x), wt = Tensor::fromFloats({N, K}, w);
    GemmSimOptions o;
    o.act = ActQuantSpec::parse("fp8-token");
    const auto nv = simulateGemm(xt, wt, NvFp4Quantizer(NvFp4Spec{}).quantize(wt, {}), o);
    EXPECT_EQ(nv.scheme, "W4A8-fp8");
    EXPECT_LT(nv.relErrOutput, 0.2);
    ConstOptSpec cs;
    cs.rotate = 64;
    const auto co = simulateGemm(xt, wt, ConstOptQuantizer(cs).quantize(wt, {}), o);
    EXPECT_TRUE(co.rotatedActivations);
    EXPECT_LT(co.relErrOutput, 0.25);
    EXPECT_NEAR(co.relErrOutput, co.relErrWeightOnly, 0.1);
    // Refusals: FP4 weights have no INT8 path; INT8 weights are not exact in E4M3; K mismatch.
    o.act = ActQuantSpec::parse("int8-token");
    EXPECT_THROW(simulateGemm(xt, wt, NvFp4Quantizer(NvFp4Spec{}).quantize(wt, {}), o), UnsupportedError);
    IntSpec i8;
    i8.bits = 8;
    i8.granularity = Granularity::Channel;
    o.act = ActQuantSpec::parse("fp8-tensor");
    EXPECT_THROW(simulateGemm(xt, wt, IntQuantizer(i8).quantize(wt, {}), o), UnsupportedError);
    o.act = ActQuantSpec::parse("int8-token");
    EXPECT_EQ(simulateGemm(xt, wt, IntQuantizer(i8).quantize(wt, {}), o).scheme, "W8A8-int8");
    const Tensor other = Tensor::fromFloats({M, 64}, std::vector<float>(static_cast<std::size_t>(M * 64), 1.0f));
    try {
        simulateGemm(other, wt, IntQuantizer(i8).quantize(wt, {}), o);
        FAIL() << "K mismatch accepted";
    } catch (const UnsupportedError &e) {
        EXPECT_NE(std::string(e.what()).find("64"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("128"), std::string::npos);
    }
}

TEST(GemmSim, PairedGemmRequestRunsTheSimulationOfItsActivation)
{
    // runPairedGemm (engine/gemm_device.h): the CLI's --activation [FILE:]NAME --act-quant set-up,
    // in core. Its result must be simulateGemm's on the same operands, and its JSON the "gemm"
    // object's keys in order.
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("qs_paired_gemm_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::int64_t M = 8, N = 24, K = 64;
    const Tensor x = Tensor::fromFloats({M, K}, gaussian(M, K, 11, 1.0f, 8.0f));
    const Tensor w = Tensor::fromFloats({N, K}, shiftedRows(N, K, 12));
    const fs::path model = dir / "model.safetensors", acts = dir / "acts.safetensors";
    writeSafetensors(model, {{"w", w}, {"x_in", x}});
    writeSafetensors(acts, {{"acts", x}});
    IntSpec spec;
    spec.bits = 4;
    spec.granularity = Granularity::Group;
    spec.group = 32;
    spec.symmetric = false;
    const QuantizedTensor q = IntQuantizer(spec).quantize(w, {});

    GemmSimOptions o;
    o.act = ActQuantSpec::parse("int8-token");
    const GemmSimResult direct = simulateGemm(x, w, q, o);

    PairedGemmRequest req;
    req.activation = acts.string() + ":acts"; // FILE:NAME
    req.actQuant = "int8-token";
    req.device = DeviceChoice::Cpu;
    const PairedGemmResult r = runPairedGemm(req, model, {}, w, q);
    EXPECT_EQ(r.activation.name, "acts");
    EXPECT_EQ(r.activation.file, acts.string());
    EXPECT_EQ(r.activation.shape, (Shape{M, K}));
    EXPECT_EQ(r.sim.scheme, direct.scheme);
    EXPECT_EQ(r.sim.actQuant, direct.actQuant);
    EXPECT_EQ(r.sim.relErrOutput, direct.relErrOutput);
    EXPECT_EQ(r.sim.relErrWeightOnly, direct.relErrWeightOnly);
    EXPECT_EQ(r.sim.worstToken, direct.worstToken);
    EXPECT_EQ(r.sim.actRelErr, direct.actRelErr);
    EXPECT_EQ(r.sim.device, "cpu");

    // NAME alone (no existing FILE before a ':'): the tensor of the weight's checkpoint.
    req.activation = "x_in";
    req.actQuant.reset();
    const PairedGemmResult wo = runPairedGemm(req, model, {}, w, q);
    const GemmSimResult directWo = simulateGemm(x, w, q, {});
    EXPECT_EQ(wo.activation.name, "x_in");
    EXPECT_EQ(wo.activation.file, model.string());
    EXPECT_EQ(wo.sim.relErrOutput, directWo.relErrOutput);
    EXPECT_EQ(wo.sim.actQuant, "none");

    // The JSON: the keys and order the CLI wrote by hand.
    const GemmSimResult &g = r.sim;
    nlohmann::ordered_json want;
    want["scheme"] = g.scheme;
    want["rel_err_output"] = g.relErrOutput;
    want["rel_err_weight_only"] = g.relErrWeightOnly;
    want["worst_token_rel_err"] = g.worstTokenRelErr;
    want["worst_token"] = g.worstToken;
    want["worst_token_rel_err_weight_only"] = g.worstTokenRelErrWeightOnly;
    want["worst_token_weight_only"] = g.worstTokenWeightOnly;
    want["activation"] = "acts";
    want["activation_file"] = acts.string();
    want["activation_shape"] = Shape{M, K};
    want["tokens"] = g.tokens;
    want["act_quant"] = g.actQuant;
    if (!g.actScaleSource.empty())
        want["act_scale_source"] = g.actScaleSource;
    want["act_rel_err"] = g.actRelErr;
    want["rotated_activations"] = g.rotatedActivations;
    want["zero_point_term"] = g.zeroPointTerm;
    want["device"] = "cpu";
    EXPECT_EQ(gemmSimJson(r.sim, r.activation).dump(), want.dump());
    GemmSimResult noted = g;
    noted.deviceNote = "no GPU";
    EXPECT_EQ(gemmSimJson(noted, r.activation).back(), "no GPU");

    // A bad --act-quant is refused as before (after the activation was read).
    req.actQuant = "int7-sideways";
    EXPECT_ANY_THROW(runPairedGemm(req, model, {}, w, q));
    fs::remove_all(dir);
}

TEST(GemmSim, FusedProductStepsEqualTheSeparateMultiplyAndAdd)
{
    // sim/gemm_sim_math.h: the device's fused steps give the CPU loop's bits because the products
    // are exact. A product rounded on its own (volatile: no contraction here) then added must equal
    // the fused form, for floats of every exponent and for every FP8 scheme's operand pair.
    std::mt19937_64 rng(77);
    std::uniform_int_distribution<std::uint32_t> bits;
    std::normal_distribution<double> nd(0.0, 1e3);
    auto finiteFloat = [&] {
        for (;;) {
            std::uint32_t u = bits(rng);
            float f;
            std::memcpy(&f, &u, 4);
            if (std::isfinite(f))
                return f;
        }
    };
    std::size_t diff = 0;
    for (int i = 0; i < 200000; ++i) {
        const float x = finiteFloat(), w = finiteFloat();
        const double y = i % 3 == 0 ? nd(rng) : static_cast<double>(finiteFloat()) * static_cast<double>(finiteFloat());
        volatile double p = static_cast<double>(x) * static_cast<double>(w);
        const double ref = y + p;
        const double got = gemmsim::fp64ProductStep(y, x, w);
        diff += std::memcmp(&ref, &got, 8) != 0;
    }
    EXPECT_EQ(diff, 0u) << "FP64 steps differ";

    std::vector<float> a, b;
    for (int c = 0; c < 256; ++c) {
        const float v = e4m3ToFloat(static_cast<std::uint8_t>(c));
        if (std::isfinite(v)) {
            a.push_back(v);
            b.push_back(v);
        }
    }
    for (int c = 0; c < 16; ++c)
        b.push_back(fp4::e2m1Value(static_cast<std::uint8_t>(c)));
    for (int q = -255; q <= 255; ++q)
        b.push_back(static_cast<float>(q));
    const std::vector<float> accs = {0.0f, -0.0f, 1e-3f, -7.25f, 3.1e5f, 1.0f / 3.0f, -2.5e-6f, 6.0e7f};
    diff = 0;
    for (const float av : a)
        for (const float bv : b)
            for (const float acc : accs) {
                volatile float p = av * bv;
                const float ref = acc + p;
                const float got = gemmsim::fp8ProductStep(acc, av, bv);
                diff += std::memcmp(&ref, &got, 4) != 0;
            }
    EXPECT_EQ(diff, 0u) << "FP8 steps differ";
}

TEST(GemmSim, PlanGivesTheCpuRunsScalesAndWeightDecode)
{
    // planGemm's runs and scales (what a device reads instead of the host's per-element operands)
    // against the layout element by element; for the int method, Ŵ decoded from the codes with the
    // plan (the device's decode) against the quantizer's Ŵ bit for bit.
    const std::int64_t M = 4, N = 24, K = 320;
    const Tensor xt = Tensor::fromFloats({M, K}, gaussian(M, K, 3, 1.0f));
    const Tensor wt = Tensor::fromFloats({N, K}, shiftedRows(N, K, 4));
    struct Case {
        nlohmann::json spec;
        const char *act;
    };
    const std::vector<Case> cases = {
        {{{"method", "int"}, {"group", 64}}, nullptr},
        {{{"method", "int"}, {"group", 64}, {"symmetric", false}}, "int8-token"},
        {{{"method", "int"}, {"group", 100}, {"symmetric", false}}, "fp8-tensor"},
        {{{"method", "int"}, {"granularity", "channel"}}, "fp8-token"},
        {{{"method", "int"}, {"granularity", "channel"}, {"axis", 1}}, "int8-token"},
        {{{"method", "int"}, {"granularity", "block"}, {"block", 16}, {"bits", 3}}, "int8-token"},
        {{{"method", "int"},
          {"group", 32},
          {"scale_dtype", "bf16"},
          {"scale_apply", "reciprocal"},
          {"symmetric", false}},
         nullptr},
        {{{"method", "fp8"}, {"granularity", "block"}, {"block", 64}}, "fp8-token"},
        {{{"method", "progressive"}}, "int8-token"},
        {{{"method", "nvfp4"}}, "fp8-token"},
        {{{"method", "mxfp4"}}, "static"},
    };
    for (const auto &cs : cases) {
        const QuantizedTensor q = makeQuantizer(cs.spec)->quantize(wt, {});
        GemmSimOptions o;
        if (cs.act)
            o.act = ActQuantSpec::parse(cs.act);
        const GemmPlan p = planGemm(xt.shape(), wt.shape(), q, o);
        const std::string what = cs.spec.dump();
        EXPECT_EQ(p.scheme, simulateGemm(xt, wt, q, o).scheme) << what;
        ASSERT_FALSE(p.segEnd.empty()) << what;
        ASSERT_EQ(p.segEnd.back(), K) << what;
        const std::size_t runs = p.segEnd.size();
        const bool outer = q.method == "progressive";
        EXPECT_EQ(p.outer, outer) << what;
        std::size_t bad = 0;
        for (std::int64_t n = 0; n < N; ++n) {
            std::size_t j = 0;
            std::int64_t k0 = 0;
            for (std::int64_t k = 0; k < K; ++k) {
                if (k == p.segEnd[j])
                    k0 = p.segEnd[j++];
                const std::int64_t g = q.layout.groupOf(n, k);
                // Every k of a run shares the run's groups; a new run starts where one changes.
                bad += g != q.layout.groupOf(n, k0);
                if (outer)
                    bad += q.outerLayout.groupOf(n, k) != q.outerLayout.groupOf(n, k0);
                if (k == k0 && k > 0)
                    bad += g == q.layout.groupOf(n, k - 1) &&
                           (!outer || q.outerLayout.groupOf(n, k) == q.outerLayout.groupOf(n, k - 1));
                const std::size_t si = static_cast<std::size_t>(n) * runs + j;
                const float s = q.method == "nvfp4" ? q.scales[static_cast<std::size_t>(g)] / q.outerScales[0]
                                                    : q.scales[static_cast<std::size_t>(g)];
                bad += std::memcmp(&s, &p.segS[si], 4) != 0;
                bad += p.segZ[si] != (q.zeros.empty() ? 0 : q.zeros[static_cast<std::size_t>(g)]);
                if (outer)
                    bad += p.segSo[si] != q.outerScales[static_cast<std::size_t>(q.outerLayout.groupOf(n, k))];
                if (p.intDequant) {
                    const std::size_t i = static_cast<std::size_t>(n * K + k);
                    const float h =
                        intDequant(p.intParams, static_cast<std::int8_t>(q.codes[i]), p.segS[si], p.segZ[si]);
                    bad += std::memcmp(&h, &q.dequantized[i], 4) != 0;
                }
            }
            bad += j + 1 != runs;
        }
        EXPECT_EQ(bad, 0u) << what;
        EXPECT_EQ(p.intDequant, q.method == "int") << what;
        EXPECT_EQ(p.codeKind, q.method == "int" || q.method == "progressive" ? GemmPlan::IntCodes
                              : q.method == "fp8"                            ? GemmPlan::E4m3
                                                                             : GemmPlan::E2m1)
            << what;
    }
}
