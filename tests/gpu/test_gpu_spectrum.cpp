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
