// SPDX-License-Identifier: MIT
// The output-aware error tr(ΔW G ΔWᵀ) on the GPU (BF16 hi + lo products, FP64 trace; docs/numerics.md
// "Output-aware error") against the CPU's FP64 row blocks: within kOutErrBound relative on seeded
// heavy-tailed weights with outlier channels, a realistic Gram (correlated channels, outliers,
// rank-deficient: fewer tokens than channels) and a diagonal one, 512×1024 and 300×200; Ŵ from the
// host or kept on the device; and a job on the GPU gives the CPU job's output error within the
// same bound. Skipped, with the reason, when no device is present.
#include "gpu_compare.h"

#include "../core/io/safetensors_fixture.h"

#include "engine/job.h"
#include "io/capture.h"
#include "io/safetensors.h"
#include "metrics/output_error.h"
#include "quant/quant_spec.h"

#include <cstdio>

namespace {

/// The documented bound (docs/numerics.md "Output-aware error"): |GPU − CPU| / CPU.
constexpr double kOutErrBound = 2e-5;

/// Heavy-tailed input rows (n tokens × k) with outlier channels, as activations look.
std::vector<float> activations(std::int64_t n, std::int64_t k, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::student_t_distribution<float> t(3.0f);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> common(static_cast<std::size_t>(n));
    for (auto &c : common)
        c = nd(rng);
    std::vector<float> x(static_cast<std::size_t>(n * k));
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < k; ++j) // a shared component correlates the channels
            x[static_cast<std::size_t>(i * k + j)] =
                (t(rng) + 0.7f * common[static_cast<std::size_t>(i)]) * (j % 97 == 5 ? 25.0f : 1.0f);
    return x;
}

/// G = XᵀX / n in FP64, rounded to FP32 once (as a capture stores it).
std::vector<float> gramOf(const std::vector<float> &x, std::int64_t n, std::int64_t k)
{
    std::vector<double> g(static_cast<std::size_t>(k * k), 0.0);
    for (std::int64_t t = 0; t < n; ++t) {
        const float *r = x.data() + t * k;
        for (std::int64_t a = 0; a < k; ++a) {
            const double ra = r[a];
            double *ga = g.data() + a * k;
            for (std::int64_t b = 0; b <= a; ++b)
                ga[b] += ra * r[b];
        }
    }
    std::vector<float> out(g.size());
    for (std::int64_t a = 0; a < k; ++a)
        for (std::int64_t b = 0; b <= a; ++b)
            out[static_cast<std::size_t>(a * k + b)] = out[static_cast<std::size_t>(b * k + a)] =
                static_cast<float>(g[static_cast<std::size_t>(a * k + b)] / static_cast<double>(n));
    return out;
}

GramMatrix gramMatrix(const std::vector<float> &g, std::int64_t k, bool diagonal)
{
    GramMatrix m;
    m.k = k;
    m.diagonal = diagonal;
    m.tokens = 1;
    if (diagonal)
        for (std::int64_t j = 0; j < k; ++j)
            m.value.push_back(g[static_cast<std::size_t>(j * k + j)]);
    else
        m.value.assign(g.begin(), g.end());
    return m;
}

std::vector<float> quantizedOf(const Tensor &w, const nlohmann::json &spec)
{
    QuantizeOptions o;
    o.wantDequantized = true;
    return makeQuantizer(parseQuantSpec(spec))->quantize(w, o).dequantized;
}

double relDiff(double a, double b)
{
    return b == 0 ? std::abs(a) : std::abs(a - b) / std::abs(b);
}

} // namespace

TEST(GpuOutputError, MatchesTheCpuOnRealisticData)
{
    REQUIRE_GPU();
    const Backend &cpu = BackendRegistry::instance().cpu();
    struct Case {
        std::int64_t n, k, tokens;
        DType dtype;
    };
    for (const Case c : {Case{512, 1024, 768, DType::BF16}, Case{300, 200, 4096, DType::F32}}) {
        const auto wv = heavyTailed(c.n, c.k, 3 + static_cast<std::uint64_t>(c.n), false);
        const Tensor w = makeTensor(wv, c.n, c.k, c.dtype);
        const std::vector<float> g = gramOf(activations(c.tokens, c.k, 5), c.tokens, c.k);
        const auto dw = gpu->upload(w, "w");
        for (const bool diagonal : {false, true}) {
            const GramMatrix gm = gramMatrix(g, c.k, diagonal);
            std::string whyNot;
            const auto dg = gpu->uploadGram(gm, whyNot);
            ASSERT_TRUE(dg) << whyNot;
            const auto hg = cpu.uploadGram(gm, whyNot);
            const auto hw = cpu.upload(w, "w");
            for (const nlohmann::json &spec : {nlohmann::json{{"method", "int"}, {"bits", 4}, {"group", 32}},
                                               nlohmann::json{{"method", "fp8"}}, nlohmann::json()}) {
                const std::vector<float> wHat = spec.is_null() ? std::vector<float>{} : quantizedOf(w, spec);
                const std::optional<double> ge = gpu->gramEnergy(*dw, nullptr, wHat, *dg, whyNot);
                const std::optional<double> ce = cpu.gramEnergy(*hw, nullptr, wHat, *hg, whyNot);
                ASSERT_TRUE(ge && ce) << whyNot;
                const double r = relDiff(*ge, *ce);
                const std::string what = std::to_string(c.n) + "x" + std::to_string(c.k) +
                                         (diagonal ? " diagonal " : " full ") + (spec.is_null() ? "W" : spec.dump());
                std::printf("[ rel.diff ] %-60s GPU %.12g CPU %.12g rel %.2e\n", what.c_str(), *ge, *ce, r);
                EXPECT_LE(r, diagonal ? 1e-12 : kOutErrBound) << what;
                EXPECT_GT(*ce, 0.0) << what;
                // The same bits on every call (fixed-order reductions).
                EXPECT_EQ(*gpu->gramEnergy(*dw, nullptr, wHat, *dg, whyNot), *ge) << what;
            }
        }
    }
}

TEST(GpuOutputError, TheJobOnTheGpuGivesTheCpuJobsOutputError)
{
    REQUIRE_GPU();
    quantscope::test::ScratchDir dir;
    const std::int64_t n = 512, k = 1024, tokens = 768;
    const std::vector<float> x = activations(tokens, k, 9);
    const std::vector<float> g = gramOf(x, tokens, k);
    std::vector<float> diag(static_cast<std::size_t>(k)), amax(diag.size()), mn(diag.size(), 1e30f),
        mx(diag.size(), -1e30f);
    for (std::int64_t i = 0; i < tokens; ++i)
        for (std::int64_t j = 0; j < k; ++j) {
            const float v = x[static_cast<std::size_t>(i * k + j)];
            amax[static_cast<std::size_t>(j)] = std::max(amax[static_cast<std::size_t>(j)], std::abs(v));
            mn[static_cast<std::size_t>(j)] = std::min(mn[static_cast<std::size_t>(j)], v);
            mx[static_cast<std::size_t>(j)] = std::max(mx[static_cast<std::size_t>(j)], v);
        }
    for (std::int64_t j = 0; j < k; ++j)
        diag[static_cast<std::size_t>(j)] = g[static_cast<std::size_t>(j * k + j)];
    const std::string p = "m.mlp.down_proj";
    writeSafetensors(dir / "c.safetensors",
                     {{p + ".input_gram", Tensor::fromFloats({k, k}, g)},
                      {p + ".input_gram_diag", Tensor::fromFloats({k}, diag)},
                      {p + ".input_absmax", Tensor::fromFloats({k}, amax)},
                      {p + ".input_min", Tensor::fromFloats({k}, mn)},
                      {p + ".input_max", Tensor::fromFloats({k}, mx)}},
                     {{"format", "quantscope-capture"},
                      {"version", "1"},
                      {"tokens", std::to_string(tokens)},
                      {"modules", "{\"" + p + "\": {\"in_features\": " + std::to_string(k) +
                                      ", \"out_features\": " + std::to_string(n) + "}}"},
                      {"attention", "{}"}});
    auto capture = std::make_shared<const Capture>(Capture::open(dir / "c.safetensors"));
    const auto wv = heavyTailed(n, k, 21, false);
    QuantizeJobRequest req;
    req.tensors = {p + ".weight"};
    req.specs = {JobSpec::typed("int4", parseQuantSpec({{"method", "int"}, {"bits", 4}, {"group", 128}})),
                 JobSpec::typed("fp8", parseQuantSpec({{"method", "fp8"}})),
                 JobSpec::typed("hqq", parseQuantSpec({{"method", "hqq"}, {"bits", 4}, {"group", 64}}))};
    req.capture = capture;
    TensorSource src;
    src.weight = [&](const std::string &) { return makeTensor(wv, n, k, DType::BF16); };
    req.device = DeviceChoice::Cpu;
    const QuantizeJobResult rc = runQuantizeJob(req, src, CancelToken());
    req.device = DeviceChoice::Gpu;
    const QuantizeJobResult rg = runQuantizeJob(req, src, CancelToken());
    ASSERT_EQ(rc.outcomes.size(), 3u);
    ASSERT_EQ(rg.outcomes.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        const QuantizeOutcome &c = rc.outcomes[i], &o = rg.outcomes[i];
        ASSERT_TRUE(c.ok() && o.ok()) << c.error << o.error;
        ASSERT_TRUE(c.outputError && o.outputError) << o.config;
        EXPECT_EQ(o.device, gpu->info().id) << o.config << ": " << o.deviceNote;
        EXPECT_EQ(o.outputError->note, "") << o.config; // computed where the run ran
        const double r = relDiff(o.outputError->error, c.outputError->error);
        std::printf("[ rel.diff ] job %-8s GPU %.12g CPU %.12g rel %.2e (reference rel %.2e)\n", o.config.c_str(),
                    o.outputError->error, c.outputError->error, r,
                    relDiff(o.outputError->reference, c.outputError->reference));
        EXPECT_LE(r, kOutErrBound) << o.config;
        EXPECT_LE(relDiff(o.outputError->reference, c.outputError->reference), kOutErrBound) << o.config;
        EXPECT_LE(relDiff(o.outputError->relative, c.outputError->relative), 2 * kOutErrBound) << o.config;
    }
}
