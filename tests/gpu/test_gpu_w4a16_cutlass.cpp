// SPDX-License-Identifier: MIT
// The W4A16 GEMM's CUTLASS route (gpu/kernels/gemm/kernels_w4a16.h "CUTLASS route"; issue 43) on
// every output element, two ways:
//  - against the FP64 product of X and Ŵ = s·(q − z) within the route's bound (docs/numerics.md
//    "Fused W4A16 GEMM", its CUTLASS route): |y − ref| ≤ 2^-8·|ref| + (1 + 2^-8)·((K·2^-23 + w)·
//    Σ|x·ŵ| + zr·Σ|x·s·z|), w = zr = 1.5·2^-8 + 2^-14;
//  - against an emulation of the route's own Ŵ' = bf16(q·bf16(s) + bf16(−s·z)) (one BF16 FMA) in FP64 within
//    the accumulation and output rounding alone (2^-8·|ref'| + (1 + 2^-8)·K·2^-23·Σ|x·ŵ'|), which
//    pins the nibble order, the sign of z', the metadata layout and the swapped output layout.
// Groups 64, 128 and per channel, asymmetric and symmetric, zero points at INT8's extremes; M from
// 1 to 300 over the eight tiles (stream-K and persistent; 6…8 on the reordered W, which also pins
// the reorder); N not a multiple of the 128-row tile; the MoE batch
// (L = experts) against per-expert launches bit for bit on the persistent tile; the launcher's
// choice; the refusals; the device FP64 check with its z term against the host's.
// Skipped, with the reason, without a device, on a GPU other than Hopper, or in a build without
// the route.
#include "gpu_compare.h"

#include "device_buffer.h"
#include "w4_operands.h"

#include <cuda_runtime.h>

#include "kernels/gemm/kernels_w4a16.h"

namespace {

namespace L = quantscope::gpu::launch;

#define REQUIRE_CUTLASS_ROUTE()                                                                                        \
    do {                                                                                                               \
        REQUIRE_GPU();                                                                                                 \
        if (!L::w4a16CutlassBuilt())                                                                                   \
            GTEST_SKIP() << "this build has no CUTLASS route (scripts/fetch-cutlass.sh, then reconfigure)";            \
        L::W4a16Problem probe;                                                                                         \
        probe.m = 1, probe.n = 8, probe.k = 128, probe.group = 128;                                                    \
        if (const std::string why = L::w4a16CutlassRefusal(probe); !why.empty())                                       \
            GTEST_SKIP() << why;                                                                                       \
    } while (0)

using Operands = W4Operands;

/// The route takes any INT8 zero point: the extremes −128 and 127 (symmetric: every one 0).
Operands makeOperands(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t group, std::uint64_t seed,
                      bool symmetric)
{
    return makeW4Operands(m, n, k, group, seed, symmetric, -128, 127);
}

float bf16Round(float f)
{
    return bf16ToFloat(floatToBf16(f));
}

/// Worst err / bound over every output: against s·(q − z) with the route's bound (exact = false),
/// or against the emulated Ŵ' with the accumulation bound alone (exact = true).
double worstOfBound(const Operands &o, const std::vector<std::uint16_t> &y, bool emulated, std::string &where)
{
    const std::int64_t groups = o.k / o.group;
    std::vector<double> wRow(static_cast<std::size_t>(o.k)), zRow(wRow.size());
    double worst = 0;
    for (std::int64_t n = 0; n < o.n; ++n) {
        for (std::int64_t i = 0; i < o.k; ++i) {
            const std::size_t g = static_cast<std::size_t>(n * groups + i / o.group);
            const int q = o.q[static_cast<std::size_t>(n * o.k + i)];
            if (emulated) {
                const float sb = bf16Round(o.s[g]), zb = bf16Round(-o.s[g] * static_cast<float>(o.z[g]));
                // One rounding: q·s' is exact in FP32 (≤ 11 bits), the sum with z' too (or
                // within far less than BF16's half ulp): the FMA's result.
                wRow[i] = bf16Round(static_cast<float>(q) * sb + zb);
            } else {
                wRow[i] = static_cast<double>(o.s[g]) * (q - o.z[g]);
            }
            zRow[i] = std::fabs(static_cast<double>(o.s[g]) * o.z[g]);
        }
        for (std::int64_t m = 0; m < o.m; ++m) {
            double ref = 0, mag = 0, magZ = 0;
            for (std::int64_t i = 0; i < o.k; ++i) {
                const double xv = bf16ToFloat(o.x[static_cast<std::size_t>(m * o.k + i)]);
                ref += xv * wRow[i];
                mag += std::fabs(xv * wRow[i]);
                magZ += std::fabs(xv) * zRow[i];
            }
            const double acc = static_cast<double>(o.k) * std::ldexp(1.0, -23);
            const double bound =
                std::ldexp(std::fabs(ref), -8) +
                (1 + std::ldexp(1.0, -8)) *
                    (emulated ? acc * mag : (acc + L::kW4a16CutlassWRel) * mag + L::kW4a16CutlassZRel * magZ) +
                1e-30;
            keepWorst(bf16ToFloat(y[static_cast<std::size_t>(m * o.n + n)]), ref, bound, m, n, worst, where);
        }
    }
    return worst;
}

/// E experts' operands on the device, back to back, with the route's metadata, the reordered W
/// (where N % 64 allows) and the workspace.
struct Device : W4DeviceOperands {
    DevBuf meta, ws, cnt, reordered;
    explicit Device(const std::vector<Operands> &ex)
        : W4DeviceOperands(ex), meta(L::w4a16CutlassMetaBytes(p)), ws(workspace(p)), cnt(L::w4a16CounterBytes(p)),
          reordered(ex[0].packed.size() * ex.size())
    {
        L::w4a16CutlassPrepare(p, meta.p, nullptr);
        p.cutlassMeta = meta.p;
        if (L::w4a16CutlassShuffledRefusal(p).empty()) { // the reordered W of tiles 6…8
            L::w4a16CutlassReorder(p, reordered.p, nullptr);
            p.cutlassPacked = reordered.p;
        }
        cudaMemset(ws.p, 0, workspace(p));
        cudaMemset(cnt.p, 0, L::w4a16CounterBytes(p));
        cudaDeviceSynchronize();
    }
    static std::size_t workspace(L::W4a16Problem q)
    {
        q.cutlassMeta = &q; // any non-null pointer: the size with the route's region
        return std::max<std::size_t>(16, L::w4a16WorkspaceBytes(q));
    }
};

} // namespace

TEST(GpuW4a16Cutlass, EveryOutputWithinTheBoundOverGroupsShapesAndTiles)
{
    REQUIRE_CUTLASS_ROUTE();
    struct Shape {
        std::int64_t n, k;
    };
    int run = 0;
    for (const Shape sh : {Shape{72, 1024}, Shape{136, 384}, Shape{264, 2048}, Shape{192, 1024}})
        for (const std::int64_t group : {std::int64_t(64), std::int64_t(128), sh.k})
            for (const std::int64_t m : {1, 17, 33, 100, 256, 300}) {
                const bool symmetric = run % 4 == 3;
                const Operands o = makeOperands(m, sh.n, sh.k, group, 0xC47ull + run, symmetric);
                Device d({o});
                // The reordered tiles need N % 64 (their reorder atom): 192 only.
                EXPECT_EQ(d.p.cutlassPacked != nullptr, sh.n % 64 == 0) << L::w4a16CutlassShuffledRefusal(d.p);
                for (const int tile : {0, 1, 2, 3, 4, 5, 6, 7, 8}) {
                    ++run;
                    if (tile >= 6 && !d.p.cutlassPacked)
                        continue;
                    L::W4a16Tiling t;
                    t.kernel = 6;
                    t.nPerWarp = tile;
                    const L::W4a16Launch l = L::w4a16Fused(d.p, t, d.ws.p, d.cnt.p, nullptr);
                    CU(cudaDeviceSynchronize());
                    const std::string what = "M=" + std::to_string(m) + " N=" + std::to_string(sh.n) +
                                             " K=" + std::to_string(sh.k) + " group " + std::to_string(group) +
                                             (symmetric ? " sym" : " asym") + " tile " + std::to_string(l.tile);
                    ASSERT_TRUE(l.cutlass) << what;
                    EXPECT_EQ(l.tile, tile ? tile : m <= 32 ? 1 : m <= 64 ? 2 : m <= 512 ? 4 : 5) << what;
                    const auto y = d.output(0);
                    std::string where;
                    EXPECT_LE(worstOfBound(o, y, false, where), 1.0) << what << ": against s·(q − z) at " << where;
                    EXPECT_LE(worstOfBound(o, y, true, where), 1.0) << what << ": against the route's Ŵ' at " << where;
                }
            }
}

TEST(GpuW4a16Cutlass, TheMoeBatchEqualsPerExpertLaunchesAndTheBound)
{
    REQUIRE_CUTLASS_ROUTE();
    const std::int64_t n = 128, k = 768;
    for (const std::int64_t m : {16, 40}) {
        std::vector<Operands> ex;
        for (int e = 0; e < 3; ++e)
            ex.push_back(makeOperands(m, n, k, 128, 0xE0ull + 7 * e + m, false));
        Device batched(ex);
        L::W4a16Tiling t;
        t.kernel = 6;
        t.nPerWarp = 3; // the persistent tile: no split of K, so the same order as one expert alone
        ASSERT_TRUE(L::w4a16Fused(batched.p, t, batched.ws.p, batched.cnt.p, nullptr).cutlass);
        CU(cudaDeviceSynchronize());
        for (int e = 0; e < 3; ++e) {
            Device single({ex[static_cast<std::size_t>(e)]});
            L::w4a16Fused(single.p, t, single.ws.p, single.cnt.p, nullptr);
            CU(cudaDeviceSynchronize());
            EXPECT_EQ(batched.output(e), single.output(0)) << "M=" << m << " expert " << e;
            std::string where;
            EXPECT_LE(worstOfBound(ex[static_cast<std::size_t>(e)], batched.output(e), false, where), 1.0)
                << "M=" << m << " expert " << e << " at " << where;
        }
        // Stream-K over the batch, on the packed and on the reordered W: within the bound on every
        // expert.
        for (const int tile : {1, 6}) {
            t.nPerWarp = tile;
            ASSERT_NE(batched.p.cutlassPacked, nullptr);
            L::w4a16Fused(batched.p, t, batched.ws.p, batched.cnt.p, nullptr);
            CU(cudaDeviceSynchronize());
            for (int e = 0; e < 3; ++e) {
                std::string where;
                EXPECT_LE(worstOfBound(ex[static_cast<std::size_t>(e)], batched.output(e), true, where), 1.0)
                    << "stream-K tile " << tile << " M=" << m << " expert " << e << " at " << where;
            }
        }
    }
}

TEST(GpuW4a16Cutlass, TheLauncherTakesTheRouteAboveTheSwappedKernelOnlyWithItsMetadata)
{
    REQUIRE_CUTLASS_ROUTE();
    for (const std::int64_t m : {16, 17, 500}) {
        const Operands o = makeOperands(m, 64, 512, 128, 0x1A0ull + m, false);
        Device d({o});
        const L::W4a16Launch with = L::w4a16Fused(d.p, {}, d.ws.p, d.cnt.p, nullptr);
        EXPECT_EQ(with.cutlass, m > L::kW4a16SwappedMaxM) << "M=" << m;
        EXPECT_EQ(with.swapped, m <= L::kW4a16SwappedMaxM) << "M=" << m;
        L::W4a16Problem bare = d.p;
        bare.cutlassMeta = nullptr;
        const L::W4a16Launch without = L::w4a16Fused(bare, {}, d.ws.p, d.cnt.p, nullptr);
        EXPECT_FALSE(without.cutlass) << "M=" << m;
        EXPECT_EQ(without.tiled, m > L::kW4a16SwappedMaxM) << "M=" << m;
        L::W4a16Tiling forced;
        forced.kernel = 6;
        EXPECT_THROW(L::w4a16Fused(bare, forced, d.ws.p, d.cnt.p, nullptr), quantscope::GpuError) << "M=" << m;
        CU(cudaDeviceSynchronize());
        std::string where;
        EXPECT_LE(worstOfBound(o, d.output(0), false, where), 1.0) << "M=" << m << " at " << where;
    }
}

TEST(GpuW4a16Cutlass, RefusesWhatItCannotRunWithTheReason)
{
    REQUIRE_CUTLASS_ROUTE();
    L::W4a16Problem p;
    p.m = 32, p.n = 64, p.k = 1024, p.group = 128;
    EXPECT_EQ(L::w4a16CutlassRefusal(p), "");
    auto refused = [](L::W4a16Problem q, const char *needle) {
        const std::string why = L::w4a16CutlassRefusal(q);
        EXPECT_NE(why.find(needle), std::string::npos) << why;
    };
    L::W4a16Problem g32 = p;
    g32.group = 32;
    refused(g32, "group");
    L::W4a16Problem k = p;
    k.k = 1000, k.group = 1000;
    refused(k, "multiple of 128");
    L::W4a16Problem n = p;
    n.n = 60;
    refused(n, "N a multiple of 8");
    EXPECT_EQ(L::w4a16CutlassShuffledRefusal(p), "");
    L::W4a16Problem n72 = p;
    n72.n = 72;
    EXPECT_EQ(L::w4a16CutlassRefusal(n72), "");
    EXPECT_NE(L::w4a16CutlassShuffledRefusal(n72).find("N a multiple of 64"), std::string::npos);
    L::W4a16Problem strided = p;
    strided.experts = 2;
    strided.wStride = p.n * p.k; // twice the packed size: not back to back
    strided.sStride = p.n * (p.k / p.group), strided.xStride = p.m * p.k, strided.yStride = p.m * p.n;
    refused(strided, "back to back");
    L::W4a16Tiling forced;
    forced.kernel = 6;
    g32.cutlassMeta = &g32;
    EXPECT_THROW(L::w4a16Fused(g32, forced, nullptr, nullptr, nullptr), quantscope::GpuError);
    // A reordered tile without the reordered W: refused with the reason, nothing queued.
    L::W4a16Problem bare = p;
    bare.cutlassMeta = &bare;
    forced.nPerWarp = 6;
    EXPECT_THROW(L::w4a16Fused(bare, forced, nullptr, nullptr, nullptr), quantscope::GpuError);
}

TEST(GpuW4a16Cutlass, TheDeviceCheckWithItsZeroTermAgreesWithTheHost)
{
    REQUIRE_CUTLASS_ROUTE();
    const Operands o = makeOperands(48, 136, 1024, 128, 0xD11ull, false);
    Device d({o});
    L::W4a16Tiling t;
    t.kernel = 6;
    L::w4a16Fused(d.p, t, d.ws.p, d.cnt.p, nullptr);
    DevBuf res(16);
    L::w4a16CheckFp64(d.p, 1, L::kW4a16CutlassWRel, static_cast<double *>(res.p),
                      reinterpret_cast<unsigned long long *>(static_cast<char *>(res.p) + 8), nullptr,
                      L::kW4a16CutlassZRel);
    double worst = -1;
    unsigned long long count = 0;
    CU(cudaMemcpy(&worst, res.p, 8, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(&count, static_cast<char *>(res.p) + 8, 8, cudaMemcpyDeviceToHost));
    std::string where;
    const double host = worstOfBound(o, d.output(0), false, where);
    EXPECT_EQ(count, static_cast<unsigned long long>(o.m * o.n));
    EXPECT_NEAR(worst, host, 1e-6 * std::max(1.0, host));
    EXPECT_LE(worst, 1.0);
    EXPECT_GT(worst, 0.0); // the output is rounded: some output differs from the FP64 product
}
