// SPDX-License-Identifier: MIT
// Residual spectra on the GPU (cuBLAS/cuSOLVER) against the CPU's FP64 reference: all σ (FP64
// Gram) within 1e-6·σ₁ (the bar: 1e-4·σ₁), the top k (FP32 products, FP64 QR) within
// 1e-5 relative for the same seed (bar: 1e-4), the τ·σ₁ counts identical; through the job, the
// spectrum says where it ran.
// Skipped, with the reason, when no device is present.
#include "gpu_compare.h"

#include "engine/job.h"
#include "engine/spectrum_device.h"
#include "metrics/spectrum.h"
#include "numeric/svd.h"

namespace {

std::vector<float> residualLike(std::int64_t R, std::int64_t C, std::uint64_t seed)
{
    // A quantization-residual-like matrix: heavy-tailed noise plus a low-rank part (a few large
    // singular values, a long tail), as the spectrum view shows.
    auto v = heavyTailed(R, C, seed, false);
    std::mt19937_64 rng(seed + 1);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    for (int r = 0; r < 3; ++r) {
        std::vector<float> u(static_cast<std::size_t>(R)), w(static_cast<std::size_t>(C));
        for (auto &x : u)
            x = nd(rng);
        for (auto &x : w)
            x = nd(rng) * 0.01f / static_cast<float>(r + 1);
        for (std::int64_t i = 0; i < R; ++i)
            for (std::int64_t j = 0; j < C; ++j)
                v[static_cast<std::size_t>(i * C + j)] +=
                    u[static_cast<std::size_t>(i)] * w[static_cast<std::size_t>(j)];
    }
    return v;
}

} // namespace

TEST(GpuSpectrum, AllAndTopKMatchTheCpu)
{
    REQUIRE_GPU();
    const auto device = spectrumDevice(DeviceChoice::Gpu);
    ASSERT_TRUE(device && device->singularValues);
    struct Shape {
        std::int64_t r, c;
    };
    for (const Shape sh : {Shape{300, 120}, Shape{96, 257}, Shape{512, 512}}) {
        const auto e = residualLike(sh.r, sh.c, 7 + sh.r);
        for (const int top : {0, 16}) {
            SpectrumOptions o;
            o.top = top;
            o.seed = 11;
            o.tau = 0.2;
            const Spectrum c = computeSpectrum(e, sh.r, sh.c, o);
            o.device = device;
            const Spectrum g = computeSpectrum(e, sh.r, sh.c, o);
            const std::string what = std::to_string(sh.r) + "x" + std::to_string(sh.c) + " top " + std::to_string(top);
            EXPECT_EQ(g.device, gpu->info().id) << what << ": " << g.deviceNote;
            EXPECT_EQ(c.device, "cpu") << what;
            EXPECT_EQ(g.complete, c.complete) << what;
            ASSERT_EQ(g.sigma.size(), c.sigma.size()) << what;
            const double s1 = c.sigma.front();
            for (std::size_t i = 0; i < c.sigma.size(); ++i) {
                if (top == 0) {
                    EXPECT_LE(std::abs(g.sigma[i] - c.sigma[i]), 1e-6 * s1) << what << " σ" << i;
                } else {
                    EXPECT_LE(std::abs(g.sigma[i] - c.sigma[i]), 1e-5 * c.sigma[i]) << what << " σ" << i;
                }
            }
            EXPECT_EQ(g.nSigmaGeTau, c.nSigmaGeTau) << what;
            EXPECT_EQ(g.nSigmaLtTau, c.nSigmaLtTau) << what;
            EXPECT_EQ(g.froNorm, c.froNorm) << what; // computed on the host either way
            EXPECT_NE(g.algorithm.find("device"), std::string::npos) << g.algorithm;
        }
    }
}

TEST(GpuSpectrum, BothTopKRoutesMatchTheCpuSketch)
{
    // The top k along each route (gpu::TopKRoute) against the CPU's FP64 subspace iteration with
    // the same Ω (numeric/svd.h singularValuesTop): wide, tall and square E, 0, 1 and 4 power
    // iterations. Direct (FP32 products) within 1e-5 relative, as above; the Gram route is FP64
    // throughout and spans the same subspaces, so within 1e-9 (an FP64 emulation of it agrees with
    // the CPU to ≈ 5e-14). A rank-2 E (σ₃… = 0) makes the Gram route's Cholesky fail and take the
    // Householder rerun; its two non-zero σ still match.
    REQUIRE_GPU();
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    struct Shape {
        std::int64_t r, c;
        bool rank2;
    };
    for (const Shape sh : {Shape{96, 257, false}, Shape{300, 120, false}, Shape{512, 512, false},
                           Shape{1000, 64, false}, Shape{120, 200, true}, Shape{200, 120, true}}) {
        auto e = residualLike(sh.r, sh.c, 17 + sh.c);
        if (sh.rank2) { // E = u₁w₁ᵀ + u₂w₂ᵀ exactly in FP32 products of small integers
            for (std::int64_t i = 0; i < sh.r; ++i)
                for (std::int64_t j = 0; j < sh.c; ++j)
                    e[static_cast<std::size_t>(i * sh.c + j)] =
                        static_cast<float>((i % 7 - 3) * (j % 5 - 2) + (i % 3 - 1) * (j % 11 - 5));
        }
        std::vector<double> a(e.begin(), e.end());
        for (const int p : {0, 1, 4}) {
            SpectrumOptions o;
            o.top = sh.rank2 ? 2 : 16;
            o.powerIters = p;
            o.seed = 23;
            const auto ref = singularValuesTop(a, sh.r, sh.c, o.top, p, o.oversample, o.seed);
            for (const auto route : {gpu::TopKRoute::Direct, gpu::TopKRoute::Gram, gpu::TopKRoute::GramGemm}) {
                const bool gram = route != gpu::TopKRoute::Direct;
                if (sh.rank2 && !gram)
                    continue; // the direct route's FP32 products leave rounding noise, not zeros, beyond σ₂
                std::string algorithm;
                const auto g =
                    engine->singularValues(e, sh.r, sh.c, o, gpu::SvdMethod::GramF64, algorithm, nullptr, route);
                const std::string what = std::to_string(sh.r) + "x" + std::to_string(sh.c) + " p" + std::to_string(p) +
                                         " route " + std::to_string(static_cast<int>(route)) + " (" + algorithm + ")";
                EXPECT_NE(algorithm.find(gram ? "Gram matrix" : "FP32 products"), std::string::npos) << what;
                if (sh.rank2) {
                    EXPECT_NE(algorithm.find("Householder"), std::string::npos) << what;
                }
                ASSERT_EQ(g.size(), ref.size()) << what;
                for (std::size_t i = 0; i < ref.size(); ++i)
                    EXPECT_LE(std::abs(g[i] - ref[i]), (gram ? 1e-9 : 1e-5) * ref[i]) << what << " σ" << i;
            }
        }
    }
}

TEST(GpuSpectrum, AutoPicksTheGramRouteForWideSketchesWithPowerIterations)
{
    // The benchmark's case (issue 44): 4096×14336, top 512 + 8, 8 iterations — the Gram route's
    // products are estimated at less than a third of the direct route's; the top 32 (l = 40) stay
    // direct (forming the 4096² Gram matrix alone costs more than their ten products).
    const gpu::TopKEstimate big = gpu::estimateTopK(4096, 14336, 520, 8);
    EXPECT_LT(big.gramMs * 3, big.directMs);
    EXPECT_EQ(gpu::chooseTopKRoute(4096, 14336, 520, 8), gpu::TopKRoute::Gram);
    EXPECT_EQ(gpu::chooseTopKRoute(14336, 4096, 520, 8), gpu::TopKRoute::Gram);
    EXPECT_EQ(gpu::chooseTopKRoute(4096, 14336, 40, 4), gpu::TopKRoute::Direct);
    // Without power iterations there is nothing to replace: E·Ω and Eᵀ·Q either way.
    EXPECT_EQ(gpu::chooseTopKRoute(4096, 14336, 520, 0), gpu::TopKRoute::Direct);
}

TEST(GpuSpectrum, GesvdAndGramAgree)
{
    REQUIRE_GPU();
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    const auto e = residualLike(200, 333, 3);
    SpectrumOptions o;
    std::string a1, a2;
    const auto gram = engine->singularValues(e, 200, 333, o, gpu::SvdMethod::GramF64, a1);
    const auto svd = engine->singularValues(e, 200, 333, o, gpu::SvdMethod::Gesvd, a2);
    ASSERT_EQ(gram.size(), 200u);
    ASSERT_EQ(svd.size(), 200u);
    EXPECT_NE(a1, a2);
    for (std::size_t i = 0; i < gram.size(); ++i)
        EXPECT_LE(std::abs(gram[i] - svd[i]), 1e-7 * svd.front()) << i;
}

TEST(GpuSpectrum, TheResidualOfAGpuQuantizationOnTheGpu)
{
    REQUIRE_GPU();
    const Tensor w = makeTensor(heavyTailed(64, 128, 5, false), 64, 128, DType::BF16);
    RunOptions ro;
    ro.device = DeviceChoice::Gpu;
    SpectrumOptions so;
    so.device = spectrumDevice(DeviceChoice::Gpu);
    const QuantizeRun run = runQuantize(w, parseQuantSpec({{"method", "int"}, {"group", 32}}), ro);
    std::vector<float> res(static_cast<std::size_t>(w.numel()));
    w.decodeTo(res);
    QuantizedTensor q = run.quantized;
    std::vector<float> deq(res.size());
    makeQuantizer(q.spec)->dequantize(q, deq);
    for (std::size_t i = 0; i < res.size(); ++i)
        res[i] -= deq[i];
    const Spectrum g = computeSpectrum(res, 64, 128, so);
    EXPECT_EQ(g.device, gpu->info().id) << g.deviceNote;
    EXPECT_EQ(g.sigma.size(), 64u);
}
