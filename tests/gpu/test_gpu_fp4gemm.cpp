// SPDX-License-Identifier: MIT
// The fused MXFP4 / NVFP4 × BF16 GEMM for small M (gpu/kernels/gemm/kernels_fp4gemm.h; issue 43)
// on the engine quantizers' own codes and scales (MxFp4Quantizer, NvFp4Quantizer), packed here
// the way the kernel reads them, against an FP64 product of X (BF16 as stored) and the exact
// Ŵ = value·scale (/ global) on EVERY output element: M ∈ {1, 3, 8, 9, 16}, N = 200 (not a
// multiple of the 64 rows a block), K with an uneven split, K slices 1, 3 and the launcher's
// choice, 1, 2 and 4 chunks ahead. The bound (docs/numerics.md "Fused FP4 GEMM"):
// |y − ref| ≤ 2^-8·|ref| + (1 + 2^-8)·(K·2^-23 + w)·Σ_k |x_k·ŵ_k|, w = 0 (MXFP4) or 2^-23 (NVFP4's
// division by the global scale). Also: the device's own FP64 check against this one, the unfused
// route's BF16 Ŵ bit for bit, the refusals, the GEMM lab's mxfp4 / nvfp4 points (fused and unfused
// at M ≤ 16, the unfused route above, each checked on the device). Skipped, with the reason, without a device.
#include "gpu_compare.h"

#include "device_buffer.h"

#include <cuda_runtime.h>

#include "engine/gemm_bench_device.h"
#include "kernels/gemm/kernels_fp4gemm.h"
#include "numeric/fp4math.h"
#include "quant/mxfp4.h"
#include "quant/nvfp4.h"

namespace {

namespace L = quantscope::gpu::launch;

/// The engine's quantized W in the kernel's layout, X, and the exact Ŵ in FP64.
struct Operands {
    L::Fp4GemmFormat format = L::Fp4GemmFormat::Mxfp4;
    std::int64_t m = 0, n = 0, k = 0;
    std::vector<std::uint8_t> packed, scales;
    float global = 1.0f;
    std::vector<std::uint16_t> x;
    std::vector<double> w;      ///< exact Ŵ [N, K]
    std::vector<float> wEngine; ///< the quantizer's FP32 Ŵ
};

Operands makeOperands(L::Fp4GemmFormat f, std::int64_t m, std::int64_t n, std::int64_t k, std::uint64_t seed)
{
    Operands o;
    o.format = f, o.m = m, o.n = n, o.k = k;
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> w(static_cast<std::size_t>(n * k));
    for (std::int64_t r = 0; r < n; ++r) // rows of different magnitudes, a few outliers
        for (std::int64_t c = 0; c < k; ++c)
            w[static_cast<std::size_t>(r * k + c)] =
                normal(rng) * 0.02f * static_cast<float>(1 + r % 7) * (rng() % 97 == 0 ? 12.0f : 1.0f);
    const Tensor t = Tensor::fromFloats({n, k}, w);
    QuantizeOptions qo;
    qo.threads = 1;
    const QuantizedTensor q = f == L::Fp4GemmFormat::Mxfp4 ? MxFp4Quantizer(MxFp4Spec{}).quantize(t, qo)
                                                           : NvFp4Quantizer(NvFp4Spec{}).quantize(t, qo);
    const std::int64_t g = L::fp4GemmGroup(f);
    EXPECT_EQ(static_cast<std::int64_t>(q.scales.size()), n * (k / g));
    o.packed.resize(static_cast<std::size_t>(n * k / 2));
    for (std::size_t i = 0; i < o.packed.size(); ++i)
        o.packed[i] = static_cast<std::uint8_t>((q.codes[2 * i] & 0xF) | ((q.codes[2 * i + 1] & 0xF) << 4));
    o.scales.resize(q.scales.size());
    for (std::size_t i = 0; i < q.scales.size(); ++i) {
        if (f == L::Fp4GemmFormat::Mxfp4) {
            std::uint32_t b;
            std::memcpy(&b, &q.scales[i], 4);
            o.scales[i] = static_cast<std::uint8_t>(b >> 23); // 2^(byte − 127); byte 0: 2^-127
        } else {
            o.scales[i] = floatToE4m3(q.scales[i]);
            EXPECT_EQ(e4m3ToFloat(o.scales[i]), q.scales[i]);
        }
    }
    if (f == L::Fp4GemmFormat::Nvfp4)
        o.global = q.outerScales.at(0);
    o.w.resize(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) {
        const double v = quantscope::fp4::e2m1Value(q.codes[i]);
        const double s = q.scales[i / static_cast<std::size_t>(g)];
        o.w[i] = f == L::Fp4GemmFormat::Mxfp4 ? v * s : v * s / static_cast<double>(o.global);
    }
    o.wEngine = q.dequantized;
    o.x.resize(static_cast<std::size_t>(m * k));
    for (auto &v : o.x)
        v = floatToBf16(normal(rng) * (rng() % 17 == 0 ? 8.0f : 1.0f));
    return o;
}

double wRelOf(const Operands &o)
{
    return o.format == L::Fp4GemmFormat::Nvfp4 ? std::ldexp(1.0, -23) : 0.0;
}

/// Every output of y (BF16 [M, N]) against the FP64 reference; the worst err / bound.
double worstOfBound(const Operands &o, const std::vector<std::uint16_t> &y, std::string &where)
{
    double worst = 0;
    for (std::int64_t n = 0; n < o.n; ++n)
        for (std::int64_t m = 0; m < o.m; ++m) {
            double ref = 0, mag = 0;
            for (std::int64_t k = 0; k < o.k; ++k) {
                const double p = static_cast<double>(bf16ToFloat(o.x[static_cast<std::size_t>(m * o.k + k)])) *
                                 o.w[static_cast<std::size_t>(n * o.k + k)];
                ref += p;
                mag += std::fabs(p);
            }
            const double bound =
                std::ldexp(std::fabs(ref), -8) +
                (1.0 + std::ldexp(1.0, -8)) * (static_cast<double>(o.k) * std::ldexp(1.0, -23) + wRelOf(o)) * mag +
                1e-30;
            const double got = bf16ToFloat(y[static_cast<std::size_t>(m * o.n + n)]);
            double r = std::fabs(got - ref) / bound;
            if (!(r <= 1e30))
                r = 1e30;
            if (r > worst) {
                worst = r;
                where = "m=" + std::to_string(m) + " n=" + std::to_string(n) + " got " + std::to_string(got) + " ref " +
                        std::to_string(ref);
            }
        }
    return worst;
}

struct Device {
    DevBuf w, s, x, y, ws, cnt;
    L::Fp4GemmProblem p;
    explicit Device(const Operands &o)
        : w(o.packed.size()), s(o.scales.size()), x(2 * o.x.size()), y(2 * static_cast<std::size_t>(o.m * o.n)),
          ws(4 * static_cast<std::size_t>(o.m * o.n)), cnt(4 * static_cast<std::size_t>(o.n / 64 + 1))
    {
        cudaMemcpy(w.p, o.packed.data(), o.packed.size(), cudaMemcpyHostToDevice);
        cudaMemcpy(s.p, o.scales.data(), o.scales.size(), cudaMemcpyHostToDevice);
        cudaMemcpy(x.p, o.x.data(), 2 * o.x.size(), cudaMemcpyHostToDevice);
        p.format = o.format;
        p.packed = static_cast<const std::uint8_t *>(w.p);
        p.scales = static_cast<const std::uint8_t *>(s.p);
        p.globalScale = o.global;
        p.x = x.p;
        p.y = y.p;
        p.m = o.m, p.n = o.n, p.k = o.k;
        EXPECT_LE(L::fp4GemmWorkspaceBytes(p), 4 * static_cast<std::size_t>(o.m * o.n));
        EXPECT_LE(L::fp4GemmCounterBytes(p), 4 * static_cast<std::size_t>(o.n / 64 + 1));
        cudaMemset(ws.p, 0, 4 * static_cast<std::size_t>(o.m * o.n));
        cudaMemset(cnt.p, 0, 4 * static_cast<std::size_t>(o.n / 64 + 1));
    }
    std::vector<std::uint16_t> output() const
    {
        std::vector<std::uint16_t> out(static_cast<std::size_t>(p.m * p.n));
        cudaMemcpy(out.data(), y.p, 2 * out.size(), cudaMemcpyDeviceToHost);
        return out;
    }
    bool workspaceClean() const
    {
        std::vector<float> f(static_cast<std::size_t>(p.m * p.n));
        std::vector<unsigned> c(static_cast<std::size_t>(p.n / 64 + 1));
        cudaMemcpy(f.data(), ws.p, 4 * f.size(), cudaMemcpyDeviceToHost);
        cudaMemcpy(c.data(), cnt.p, 4 * c.size(), cudaMemcpyDeviceToHost);
        return std::all_of(f.begin(), f.end(), [](float v) { return v == 0.0f; }) &&
               std::all_of(c.begin(), c.end(), [](unsigned v) { return v == 0u; });
    }
};

const char *nameOf(L::Fp4GemmFormat f)
{
    return f == L::Fp4GemmFormat::Mxfp4 ? "mxfp4" : "nvfp4";
}

} // namespace

TEST(GpuFp4Gemm, EveryOutputWithinTheBoundForBothFormatsMsAndSplits)
{
    REQUIRE_GPU();
    ASSERT_TRUE(L::fp4GemmBuilt());
    int run = 0;
    for (const auto f : {L::Fp4GemmFormat::Mxfp4, L::Fp4GemmFormat::Nvfp4})
        for (const std::int64_t m : {1, 3, 8, 9, 16}) {
            const std::int64_t n = 200, k = 1280; // 10 chunks: split 3 → slices of 4, 4, 2
            const Operands o = makeOperands(f, m, n, k, 0xF4ull + run);
            ASSERT_EQ(L::fp4GemmDataRefusal(f, o.packed.data(), o.scales.data(), o.global, n, k), "");
            // The exact Ŵ is the engine's: equal for MXFP4, within NVFP4's two FP32 roundings.
            for (std::size_t i = 0; i < o.w.size(); ++i) {
                if (f == L::Fp4GemmFormat::Mxfp4)
                    ASSERT_EQ(o.w[i], static_cast<double>(o.wEngine[i])) << i;
                else
                    ASSERT_LE(std::fabs(o.w[i] - o.wEngine[i]), std::ldexp(std::fabs(o.w[i]), -23)) << i;
            }
            Device d(o);
            for (const int split : {0, 1, 3}) {
                L::Fp4GemmTiling t;
                t.splitK = split;
                t.chunksAhead = 1 << (run++ % 3);
                const L::Fp4GemmLaunch l = L::fp4GemmFused(d.p, t, d.ws.p, d.cnt.p, nullptr);
                CU(cudaDeviceSynchronize());
                std::string where;
                const auto y = d.output();
                const double worst = worstOfBound(o, y, where);
                const std::string what = std::string(nameOf(f)) + " M=" + std::to_string(m) + " split " +
                                         std::to_string(l.splitK) + " ahead " + std::to_string(l.chunksAhead);
                EXPECT_LE(worst, 1.0) << what << ": worst |y − ref| / bound at " << where;
                EXPECT_EQ(l.mTile, m <= 8 ? 1 : 2) << what;
                if (split > 0) {
                    EXPECT_EQ(l.splitK, split) << what;
                }
                EXPECT_TRUE(d.workspaceClean()) << what << ": the last block re-zeroes the workspace";
                // The device's FP64 check on the same output agrees with this one.
                DevBuf res(16);
                L::fp4GemmCheckFp64(d.p, 1, wRelOf(o), static_cast<double *>(res.p),
                                    reinterpret_cast<unsigned long long *>(static_cast<char *>(res.p) + 8), nullptr);
                double devWorst = -1;
                unsigned long long count = 0;
                CU(cudaMemcpy(&devWorst, res.p, 8, cudaMemcpyDeviceToHost));
                CU(cudaMemcpy(&count, static_cast<char *>(res.p) + 8, 8, cudaMemcpyDeviceToHost));
                EXPECT_EQ(count, static_cast<unsigned long long>(m * n)) << what;
                EXPECT_NEAR(devWorst, worst, 1e-6 * std::max(1.0, worst)) << what;
            }
        }
}

TEST(GpuFp4Gemm, TheUnfusedRoutesBf16WeightsBitForBit)
{
    REQUIRE_GPU();
    for (const auto f : {L::Fp4GemmFormat::Mxfp4, L::Fp4GemmFormat::Nvfp4}) {
        const Operands o = makeOperands(f, 1, 72, 256, 0x99ull);
        Device d(o);
        DevBuf wb(2 * o.packed.size() * 2);
        L::fp4GemmDequantBf16(d.p, wb.p, nullptr);
        std::vector<std::uint16_t> got(o.w.size());
        CU(cudaMemcpy(got.data(), wb.p, 2 * got.size(), cudaMemcpyDeviceToHost));
        const std::int64_t g = L::fp4GemmGroup(f);
        for (std::size_t i = 0; i < got.size(); ++i) {
            const std::uint8_t code = (o.packed[i / 2] >> (4 * (i & 1))) & 0xF;
            const float v = quantscope::fp4::e2m1Value(code);
            const std::uint8_t sb = o.scales[i / static_cast<std::size_t>(g)];
            const float want =
                f == L::Fp4GemmFormat::Mxfp4 ? v * quantscope::fp4::e8m0Scale(sb) : v * e4m3ToFloat(sb) / o.global;
            ASSERT_EQ(got[i], floatToBf16(want)) << nameOf(f) << " element " << i;
        }
    }
}

TEST(GpuFp4Gemm, RefusesShapesAndScalesItCannotKeepExact)
{
    EXPECT_NE(L::fp4GemmRefusal(17, 1024), "");
    EXPECT_NE(L::fp4GemmRefusal(0, 1024), "");
    EXPECT_NE(L::fp4GemmRefusal(4, 1000), "");
    std::vector<std::uint8_t> packed(64, 0), scales(4, 127);
    EXPECT_EQ(L::fp4GemmDataRefusal(L::Fp4GemmFormat::Mxfp4, packed.data(), scales.data(), 1.0f, 1, 128), "");
    scales[1] = 1; // a group of zeros may have any byte (the engine gives an all-zero group byte 0)
    EXPECT_EQ(L::fp4GemmDataRefusal(L::Fp4GemmFormat::Mxfp4, packed.data(), scales.data(), 1.0f, 1, 128), "");
    packed[16] = 0x80; // −0 in group 1 is still zero
    EXPECT_EQ(L::fp4GemmDataRefusal(L::Fp4GemmFormat::Mxfp4, packed.data(), scales.data(), 1.0f, 1, 128), "");
    packed[17] = 0x01; // 0.5·2^-126: subnormal in BF16
    EXPECT_NE(L::fp4GemmDataRefusal(L::Fp4GemmFormat::Mxfp4, packed.data(), scales.data(), 1.0f, 1, 128), "");
    std::vector<std::uint8_t> nv(8, 0x38);
    EXPECT_EQ(L::fp4GemmDataRefusal(L::Fp4GemmFormat::Nvfp4, packed.data(), nv.data(), 2.0f, 1, 128), "");
    EXPECT_NE(L::fp4GemmDataRefusal(L::Fp4GemmFormat::Nvfp4, packed.data(), nv.data(), 0.0f, 1, 128), "");
    nv[3] = 0x7F;
    EXPECT_NE(L::fp4GemmDataRefusal(L::Fp4GemmFormat::Nvfp4, packed.data(), nv.data(), 2.0f, 1, 128), "");
    if (!L::fp4GemmBuilt())
        return;
    DevBuf y(64);
    L::Fp4GemmProblem p;
    p.m = 17, p.n = 1, p.k = 128, p.y = y.p;
    EXPECT_THROW(L::fp4GemmFused(p, {}, nullptr, nullptr, nullptr), quantscope::GpuError);
}

TEST(GpuFp4Gemm, TheLabTimesFusedAndUnfusedAtSmallMAndRoutesAbove)
{
    REQUIRE_GPU();
    GemmBenchRequest req;
    req.n = 192, req.k = 512;
    req.m = {1, 9, 16, 17, 40};
    req.repeats = 20;
    req.warmup = 2;
    req.roofline = false;
    req.formats = {GemmFormat::Mxfp4, GemmFormat::Nvfp4};
    const GemmBenchResult r = runGemmBench(req, DeviceChoice::Gpu);
    ASSERT_EQ(r.device, gpu->info().id) << r.deviceNote;
    // Per format: M ≤ 16 gives the fused point then the unfused one; M > 16 the unfused route.
    ASSERT_EQ(r.points.size(), 2u * (3 * 2 + 2));
    std::size_t i = 0;
    for (const GemmFormat f : req.formats)
        for (const std::int64_t m : req.m) {
            const std::string name = toString(f);
            std::vector<std::pair<std::string, std::string>> want; // format, what the note says
            if (m <= 16)
                want = {{name, "fused: one kernel"}, {name + kFp4UnfusedSuffix, "unfused: FP4→BF16"}};
            else
                want = {{name, "unfused (M > 16 routes here)"}};
            for (const auto &[format, says] : want) {
                const GemmPoint &p = r.points[i++];
                const std::string what = format + " M=" + std::to_string(m);
                EXPECT_EQ(p.format, format) << what;
                EXPECT_EQ(p.m, m) << what;
                EXPECT_GT(p.timeUs, 0.0) << what;
                EXPECT_DOUBLE_EQ(p.bytes, gemmBytes(name, m, 192, 512)) << what;
                EXPECT_NE(p.note.find(says), std::string::npos) << what << ": " << p.note;
                EXPECT_NE(p.note.find("output checked"), std::string::npos) << what << ": " << p.note;
                EXPECT_NE(p.note.find("every element"), std::string::npos) << what << ": " << p.note;
            }
        }
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    const auto checks = engine->gemmLabChecks();
    ASSERT_EQ(checks.size(), r.points.size());
    for (const auto &c : checks) {
        EXPECT_EQ(c.samples, c.m * 192) << c.format << " M=" << c.m; // every output
        EXPECT_LE(c.worst, 1.0) << c.format << " M=" << c.m;
    }
}
