// SPDX-License-Identifier: MIT
// The device Walsh–Hadamard rotation and the device c sweep against the CPU reference
// (docs/numerics.md "FP4 constOpt"): the rotation bit for bit, the sweep's every MSE, c*, its
// interval and the counts bit for bit (the MSEs are exact fixed-point sums on both sides).
// Skipped, with the reason, when no device is present.
#include "gpu_compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>

#include "engine/registry.h"
#include "engine/sweep_device.h"
#include "io/checkpoint.h"
#include "host/engine.h"
#include "quant/constopt_sweep.h"
#include "numeric/hadamard.h"
#include "register.h"
#include "tensor/convert.h"

using namespace quantscope;

namespace {

bool sameBits(double a, double b)
{
    return std::memcmp(&a, &b, 8) == 0 || (std::isnan(a) && std::isnan(b));
}

/// Every number of the sweep's JSON but the timing, the references (CPU in both) and the device.
void expectSameSweep(const CSweepResult &g, const CSweepResult &c, const std::string &what)
{
    ASSERT_EQ(g.c, c.c) << what;
    ASSERT_EQ(g.mse.size(), c.mse.size()) << what;
    std::size_t diff = 0, first = c.mse.size();
    for (std::size_t i = 0; i < c.mse.size(); ++i)
        if (!sameBits(g.mse[i], c.mse[i])) {
            ++diff;
            first = std::min(first, i);
        }
    EXPECT_EQ(diff, 0u) << what << ": first at c = " << (first < c.c.size() ? c.c[first] : 0.0) << " gpu "
                        << (first < g.mse.size() ? g.mse[first] : 0.0) << " cpu "
                        << (first < c.mse.size() ? c.mse[first] : 0.0);
    EXPECT_TRUE(sameBits(g.cStar, c.cStar)) << what << " c* " << g.cStar << " vs " << c.cStar;
    EXPECT_TRUE(sameBits(g.cStarMse, c.cStarMse)) << what;
    EXPECT_TRUE(sameBits(g.gridArgmin, c.gridArgmin)) << what;
    EXPECT_TRUE(sameBits(g.intervalLo, c.intervalLo)) << what;
    EXPECT_TRUE(sameBits(g.intervalHi, c.intervalHi)) << what;
    EXPECT_TRUE(sameBits(g.mseAtDefault, c.mseAtDefault)) << what;
    EXPECT_EQ(g.numel, c.numel) << what;
    EXPECT_EQ(g.groups, c.groups) << what;
    EXPECT_EQ(g.nonFiniteGroups, c.nonFiniteGroups) << what;
    EXPECT_TRUE(sameBits(g.int4Mse, c.int4Mse)) << what;
    EXPECT_TRUE(sameBits(g.mxfp4Mse, c.mxfp4Mse)) << what;
    EXPECT_TRUE(sameBits(g.lloydMax.mse, c.lloydMax.mse)) << what;
    EXPECT_EQ(c.device, "cpu") << what;
}

/// The sweep on the GPU and on the CPU; the GPU one must have run there.
void compareSweep(const Tensor &w, CSweepOptions o, const std::string &what, bool expectGpu = true)
{
    o.device = sweepDevice(DeviceChoice::Gpu);
    const CSweepResult g = sweepC(w, o);
    o.device = nullptr;
    const CSweepResult c = sweepC(w, o);
    const std::string id = BackendRegistry::instance().gpu()->info().id;
    if (expectGpu) {
        EXPECT_EQ(g.device, id) << what << ": " << g.deviceNote;
        EXPECT_TRUE(g.deviceNote.empty()) << what << ": " << g.deviceNote;
    }
    expectSameSweep(g, c, what);
}

std::unique_ptr<gpu::Engine> engineOrFail()
{
    std::string reason;
    auto e = gpu::Engine::create(0, reason);
    EXPECT_TRUE(e) << reason;
    return e;
}

} // namespace

TEST(GpuSweep, HadamardRowsBitIdentical)
{
    REQUIRE_GPU();
    auto engine = engineOrFail();
    ASSERT_TRUE(engine);
    const std::int64_t R = 5, K = 8192;
    auto v = heavyTailed(R, K, 3, false);
    for (int i = 0; i < 64; ++i) // subnormals and large values take part too
        v[static_cast<std::size_t>(100 + i)] = std::ldexp(1.0f + static_cast<float>(i) / 64, i % 2 ? -140 : 100);
    for (const DType dt : {DType::F32, DType::BF16, DType::F16}) {
        const Tensor w = makeTensor(v, R, K, dt);
        auto up = engine->upload(w, "w");
        std::vector<float> x(static_cast<std::size_t>(R * K));
        w.decodeTo(x);
        // d = 1: decoded only.
        const auto dec = engine->downloadFloats(*engine->hadamardRows(*up, 0));
        ASSERT_EQ(dec.size(), x.size());
        EXPECT_EQ(std::memcmp(dec.data(), x.data(), x.size() * 4), 0) << nameOf(dt);
        for (const std::int64_t d : {2, 4, 32, 128, 1024, 4096}) {
            std::vector<float> cpu = x;
            hadamardRows(cpu, R, K, d, 2);
            const auto dev = engine->downloadFloats(*engine->hadamardRows(*up, d));
            ASSERT_EQ(dev.size(), cpu.size());
            std::size_t diff = 0, first = 0;
            for (std::size_t i = 0; i < cpu.size(); ++i)
                if (std::memcmp(&dev[i], &cpu[i], 4) != 0 && !(std::isnan(dev[i]) && std::isnan(cpu[i])))
                    first = diff++ ? first : i;
            EXPECT_EQ(diff, 0u) << nameOf(dt) << " d " << d << " first at " << first << ": " << dev[first] << " vs "
                                << cpu[first];
        }
    }
    // K not a multiple of the kernel's tile (rows straddle tiles); a NaN stays inside its block.
    const std::int64_t R2 = 37, K2 = 96;
    auto v2 = heavyTailed(R2, K2, 4, true);
    const Tensor w2 = makeTensor(v2, R2, K2, DType::BF16);
    auto up2 = engine->upload(w2, "w2");
    std::vector<float> x2(static_cast<std::size_t>(R2 * K2));
    w2.decodeTo(x2);
    hadamardRows(x2, R2, K2, 32, 1);
    const auto d2 = engine->downloadFloats(*engine->hadamardRows(*up2, 32));
    for (std::size_t i = 0; i < x2.size(); ++i)
        ASSERT_TRUE(std::memcmp(&d2[i], &x2[i], 4) == 0 || (std::isnan(d2[i]) && std::isnan(x2[i]))) << i;
    EXPECT_THROW(engine->hadamardRows(*up2, 64), GpuError); // does not divide K
    EXPECT_THROW(engine->hadamardRows(*up2, 12), GpuError); // not a power of two
}

TEST(GpuSweep, SweepCEqualsTheCpu)
{
    REQUIRE_GPU();
    struct Case {
        std::int64_t R, K, group, rotate;
        DType dt;
        bool nonFinite;
    };
    for (const Case cs :
         {Case{64, 200, 32, 0, DType::F32, true}, // ragged groups, a NaN and an Inf group
          Case{48, 256, 32, 0, DType::BF16, false}, Case{48, 256, 32, 64, DType::BF16, true}, // rotated, a NaN block
          Case{40, 512, 32, 512, DType::F32, false},
          Case{33, 120, 48, 8, DType::F16, false}, // groups > 32: the generic kernels
          Case{20, 90, 6, 0, DType::F32, true},    // groups not a multiple of 4
          Case{16, 64, 64, 4, DType::BF16, false}}) {
        const Tensor w =
            makeTensor(heavyTailed(cs.R, cs.K, 17 + static_cast<std::uint64_t>(cs.K), cs.nonFinite), cs.R, cs.K, cs.dt);
        for (const auto enc : {ConstOptEncoder::Pow2, ConstOptEncoder::Unrounded}) {
            CSweepOptions o;
            o.group = cs.group;
            o.rotate = cs.rotate;
            o.encoder = enc;
            o.threads = 2;
            const std::string what = std::to_string(cs.R) + "x" + std::to_string(cs.K) + " g" +
                                     std::to_string(cs.group) + " rot" + std::to_string(cs.rotate) + " " +
                                     std::string(nameOf(cs.dt)) + " " + toString(enc);
            compareSweep(w, o, what);
            // A user grid (coarse: a group's byte jumps by more than one between neighbours).
            o.lo = 0.02;
            o.hi = 0.9;
            o.step = 0.037;
            o.defaultC = 0.2;
            compareSweep(w, o, what + " user grid");
        }
    }
}

TEST(GpuSweep, ZeroTensorAndLargeRotationFallBack)
{
    REQUIRE_GPU();
    const Tensor z = Tensor::fromFloats({8, 64}, std::vector<float>(512, 0.0f));
    for (const auto enc : {ConstOptEncoder::Pow2, ConstOptEncoder::Unrounded}) {
        CSweepOptions o;
        o.encoder = enc;
        compareSweep(z, o, "all zero " + toString(enc));
        o.device = sweepDevice(DeviceChoice::Gpu);
        const auto r = sweepC(z, o);
        for (double m : r.mse)
            EXPECT_EQ(m, 0.0);
    }
    // d = 8192 > 4096: the grid runs on the CPU, saying why; the numbers are the CPU's anyway.
    const Tensor w = makeTensor(heavyTailed(3, 8192, 8, false), 3, 8192, DType::F32);
    CSweepOptions o;
    o.rotate = 8192;
    o.device = sweepDevice(DeviceChoice::Gpu);
    const auto g = sweepC(w, o);
    EXPECT_EQ(g.device, "cpu");
    EXPECT_NE(g.deviceNote.find("4096"), std::string::npos) << g.deviceNote;
    o.device = nullptr;
    expectSameSweep(g, sweepC(w, o), "rotate 8192");
}

/// The evaluators directly: c values in any order, several tiles of 1024, duplicates.
TEST(GpuSweep, EvaluatorAnyOrderManyTiles)
{
    REQUIRE_GPU();
    auto engine = engineOrFail();
    ASSERT_TRUE(engine);
    const std::int64_t R = 24, K = 160;
    const auto v = heavyTailed(R, K, 21, true);
    const Tensor w = Tensor::fromFloats({R, K}, v);
    auto x = engine->hadamardRows(*engine->upload(w, "w"), 0);
    std::vector<double> cs;
    for (int i = 0; i < 2500; ++i)
        cs.push_back(0.01 + 0.0004 * i);
    cs.push_back(0.2);
    cs.push_back(0.2);
    std::shuffle(cs.begin(), cs.end(), std::mt19937_64(5));
    for (const bool pow2 : {true, false}) {
        const auto enc = pow2 ? ConstOptEncoder::Pow2 : ConstOptEncoder::Unrounded;
        const auto cpu = makeCpuSweepEvaluator(v, R, K, 32, enc, 0.05f, 0.4f, 2);
        const auto dev = engine->sweepEvaluator(x, 32, pow2);
        const auto a = dev->mse(cs, nullptr), b = cpu->mse(cs, nullptr);
        ASSERT_EQ(a.size(), b.size());
        std::size_t diff = 0;
        for (std::size_t i = 0; i < a.size(); ++i)
            diff += !sameBits(a[i], b[i]);
        EXPECT_EQ(diff, 0u) << (pow2 ? "pow2" : "unrounded");
        EXPECT_TRUE(sameBits(dev->mse(0.156f), cpu->mse(0.156f)));
        EXPECT_GT(b[0], 0.0);
    }
}

/// Student-t 14336×4096-like data, scaled down, and the real weights of stories260K.
TEST(GpuSweep, RealWeightsEqualTheCpu)
{
    REQUIRE_GPU();
    namespace fs = std::filesystem;
    const fs::path stories = fs::path(QUANTSCOPE_SHARED_DATA) / "stories260K";
    std::vector<fs::path> files;
    for (const char *f : {"model.safetensors", "model.bf16.safetensors"})
        if (fs::exists(stories / f))
            files.push_back(stories / f);
    if (files.empty())
        GTEST_SKIP() << "real weights not found: " << stories;
    int tensors = 0;
    for (const fs::path &file : files) {
        const Checkpoint ck = Checkpoint::open(file);
        for (const TensorEntry &e : ck.entries()) {
            if (e.shape.size() != 2 || e.shape[0] * e.shape[1] < 1024)
                continue;
            const Tensor w = ck.tensor(e.name);
            for (const auto enc : {ConstOptEncoder::Pow2, ConstOptEncoder::Unrounded})
                for (const std::int64_t rot : {std::int64_t{0}, std::int64_t{64}}) {
                    if (rot && e.shape[1] % rot != 0)
                        continue;
                    CSweepOptions o;
                    o.encoder = enc;
                    o.rotate = rot;
                    o.threads = 2;
                    compareSweep(w, o,
                                 file.filename().string() + ":" + e.name + " " + toString(enc) + " rot" +
                                     std::to_string(rot));
                }
            ++tensors;
        }
    }
    EXPECT_GT(tensors, 0);
}
