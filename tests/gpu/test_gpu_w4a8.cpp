// SPDX-License-Identifier: MIT
// The fused W4A8 GEMMs (gpu/kernels/gemm/kernels_w4a8.h; issue 43), INT8 and E4M3 activations:
// X quantized on the device (codes and token scales equal to the host's scalar quantizer bit for
// bit), then EVERY output element against an FP64 product
// of the same quantized operands (X's codes and token scales, W's codes, scales and zero points)
// within the bound of docs/numerics.md "Fused W4A8 GEMM":
//   |y − ref| ≤ 2⁻⁸·|ref| + (1 + 2⁻⁸)·c·Σ_k |s_tok·x_k·s·(q_k − z)|,
//   c = (K/32 + 3)·2⁻²⁴ (INT8), + 2⁻¹⁰ (E4M3: the FP8 tensor core's sums of ≤ 4 k32 steps).
// M ∈ {1, 3, 8, 9, 16}; groups 32, 64, 128 and per channel; symmetric and asymmetric (the zero
// points' extremes included); one K slice, three and the launcher's choice; 2 and 4 chunks ahead;
// N not a multiple of a block's 64 rows. Also: the workspace re-zeroed, the device's FP64 check
// agreeing with the host's and catching one wrong output, the refusals. Skipped without a device.
#include "gpu_compare.h"

#include "device_buffer.h"
#include "w4a8_operands.h"

#include <cuda_runtime.h>

#include "kernels/gemm/kernels_gemmlab.h"

namespace {

namespace L = quantscope::gpu::launch;
namespace gm = quantscope::gpumath;
using namespace w4a8test;

} // namespace

TEST(GpuW4a8Fused, XQuantizerOnTheDeviceEqualsTheHostBitForBit)
{
    REQUIRE_GPU();
    ASSERT_TRUE(L::w4a8FusedBuilt());
    // K = 4096: 8 elements a thread (16-byte loads); K = 1004: one a thread.
    for (const bool fp8 : {false, true})
        for (const std::int64_t m : {1, 9, 16})
            for (const std::int64_t k : {std::int64_t(4096), std::int64_t(1004)}) {
                Operands o = makeOperands(m, 8, k, k, fp8, false, 0x58ull + m + k);
                if (m == 9) // a zero row: scale 1, codes 0
                    std::fill(o.x.begin() + 2 * o.k, o.x.begin() + 3 * o.k, std::uint16_t(0));
                Device d(o);
                CU(cudaDeviceSynchronize());
                const HostX h = quantizeOnHost(o);
                EXPECT_EQ(d.read<float>(d.xs, static_cast<std::size_t>(m)), h.scale)
                    << "fp8 " << fp8 << " M " << m << " K " << k;
                EXPECT_EQ(d.read<std::uint8_t>(d.xq, o.x.size()), h.codes) << "fp8 " << fp8 << " M " << m << " K " << k;
            }
}

TEST(GpuW4a8Fused, EveryOutputWithinTheBoundOverGroupsShapesAndSplits)
{
    REQUIRE_GPU();
    struct Shape {
        std::int64_t n, k;
    };
    int run = 0;
    for (const bool fp8 : {false, true})
        for (const Shape sh : {Shape{72, 1024}, Shape{200, 384}, Shape{40, 2048}})
            for (const std::int64_t group : {std::int64_t(32), std::int64_t(64), std::int64_t(128), sh.k})
                for (const std::int64_t m : {1, 3, 8, 9, 16}) {
                    const bool symmetric = run % 3 == 2;
                    const Operands o = makeOperands(m, sh.n, sh.k, group, fp8, symmetric, 0x48A8ull + run);
                    Device d(o);
                    CU(cudaDeviceSynchronize());
                    const HostX hx = quantizeOnHost(o);
                    for (const int split : {1, 3, 0}) {
                        L::W4a8Tiling t;
                        t.splitK = split;
                        t.chunksAhead = run % 2 ? 4 : 2;
                        ++run;
                        const L::W4a8Launch l = L::w4a8Fused(d.p, t, d.ws.p, d.cnt.p, nullptr);
                        CU(cudaDeviceSynchronize());
                        std::string where;
                        const double worst =
                            worstOfBound(o, hx, d.read<std::uint16_t>(d.y, static_cast<std::size_t>(m * sh.n)), where);
                        const std::string what = std::string(fp8 ? "E4M3" : "INT8") + " M=" + std::to_string(m) +
                                                 " N=" + std::to_string(sh.n) + " K=" + std::to_string(sh.k) +
                                                 " group " + std::to_string(group) + (symmetric ? " sym" : " asym") +
                                                 " split " + std::to_string(l.splitK) + " ahead " +
                                                 std::to_string(l.chunksAhead);
                        EXPECT_LE(worst, 1.0) << what << ": worst |y − ref| / bound at " << where;
                        EXPECT_EQ(l.tokenTiles, m <= 8 ? 1 : 2) << what;
                        EXPECT_EQ(l.chunksAhead, t.chunksAhead) << what;
                        if (split > 0) {
                            EXPECT_EQ(l.splitK, std::min<std::int64_t>(split, sh.k / 128)) << what;
                        }
                        EXPECT_TRUE(d.workspaceClean()) << what << ": the last block re-zeroes the workspace";
                    }
                }
}

TEST(GpuW4a8Fused, LongKPerChannelAndRepeatedSplitLaunches)
{
    // The lab's shape class: per channel over a long K (one piece per slice, INT32 sums over
    // thousands of k), repeated split launches reusing the workspace.
    REQUIRE_GPU();
    for (const bool fp8 : {false, true})
        for (const std::int64_t group : {std::int64_t(14336), std::int64_t(128)}) {
            const Operands o = makeOperands(16, 136, 14336, group, fp8, false, 0x77ull + (fp8 ? 1 : 0));
            Device d(o);
            CU(cudaDeviceSynchronize());
            const HostX hx = quantizeOnHost(o);
            for (int r = 0; r < 3; ++r) {
                L::W4a8Tiling t;
                t.splitK = r == 0 ? 1 : 0;
                const L::W4a8Launch l = L::w4a8Fused(d.p, t, d.ws.p, d.cnt.p, nullptr);
                CU(cudaDeviceSynchronize());
                std::string where;
                EXPECT_LE(worstOfBound(o, hx, d.read<std::uint16_t>(d.y, 16 * 136), where), 1.0)
                    << (fp8 ? "E4M3" : "INT8") << " group " << group << " split " << l.splitK << " at " << where;
            }
            EXPECT_TRUE(d.workspaceClean());
        }
}

TEST(GpuW4a8Fused, TheDeviceCheckAgreesWithTheHostAndCatchesOneWrongOutput)
{
    REQUIRE_GPU();
    for (const bool fp8 : {false, true}) {
        const Operands o = makeOperands(9, 48, 512, 64, fp8, false, 11);
        Device d(o);
        L::w4a8Fused(d.p, {}, d.ws.p, d.cnt.p, nullptr);
        CU(cudaDeviceSynchronize());
        const HostX hx = quantizeOnHost(o);
        DevBuf res(16);
        auto *worstDev = static_cast<double *>(res.p);
        auto *countDev = reinterpret_cast<unsigned long long *>(static_cast<char *>(res.p) + 8);
        auto check = [&](double &worst, unsigned long long &count) {
            L::w4a8CheckFp64(d.p, worstDev, countDev, nullptr);
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(&worst, worstDev, 8, cudaMemcpyDeviceToHost), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(&count, countDev, 8, cudaMemcpyDeviceToHost), cudaSuccess);
        };
        double worst = 0;
        unsigned long long count = 0;
        check(worst, count);
        std::vector<std::uint16_t> y = d.read<std::uint16_t>(d.y, 9 * 48);
        std::string where;
        const double host = worstOfBound(o, hx, y, where);
        EXPECT_EQ(count, 9u * 48u) << "every output once";
        EXPECT_LE(worst, 1.0);
        EXPECT_NEAR(worst, host, 1e-9 + 1e-6 * host) << "the device's FP64 check and the host's agree";
        const auto big = std::max_element(y.begin(), y.end(), [](std::uint16_t a, std::uint16_t b) {
            return std::fabs(bf16ToFloat(a)) < std::fabs(bf16ToFloat(b));
        });
        *big = static_cast<std::uint16_t>(*big ^ 0x8000u);
        ASSERT_EQ(cudaMemcpy(d.y.p, y.data(), 2 * y.size(), cudaMemcpyHostToDevice), cudaSuccess);
        check(worst, count);
        EXPECT_GT(worst, 1.0) << "fp8 " << fp8;
    }
}

TEST(GpuW4a8Fused, TheUnfusedLabConversionsEqualTheScalarUnpackByteForByte)
{
    // The lab's unfused W4A8 paths (kernels_gemmlab.h) convert 16 codes a thread by the same bit
    // tricks where K is a multiple of 16 (else the scalar kernels): the INT8 codes q and the E4M3
    // bytes of q − z (per channel; zero points outside [−9, 8] through the scalar conversion).
    REQUIRE_GPU();
    for (const std::int64_t k : {std::int64_t(1024), std::int64_t(40)}) {
        const std::int64_t n = 24;
        const Operands o = makeOperands(1, n, k, k, true, false, 0x5Cull + k);
        std::vector<std::int8_t> z(o.z);
        z[3] = -20, z[7] = 12, z[11] = -128, z[13] = 127; // the scalar branch
        DevBuf w(o.packed.size()), zd(z.size()), q8(static_cast<std::size_t>(n * k)),
            f8(static_cast<std::size_t>(n * k));
        CU(cudaMemcpy(w.p, o.packed.data(), o.packed.size(), cudaMemcpyHostToDevice));
        CU(cudaMemcpy(zd.p, z.data(), z.size(), cudaMemcpyHostToDevice));
        L::labW4Unpack(static_cast<const std::uint8_t *>(w.p), n, k, static_cast<std::int8_t *>(q8.p), nullptr);
        L::labW4ToE4m3(static_cast<const std::uint8_t *>(w.p), static_cast<const std::int8_t *>(zd.p), n, k,
                       static_cast<std::uint8_t *>(f8.p), nullptr);
        CU(cudaDeviceSynchronize());
        std::vector<std::int8_t> gotQ(static_cast<std::size_t>(n * k));
        std::vector<std::uint8_t> gotF(gotQ.size());
        CU(cudaMemcpy(gotQ.data(), q8.p, gotQ.size(), cudaMemcpyDeviceToHost));
        CU(cudaMemcpy(gotF.data(), f8.p, gotF.size(), cudaMemcpyDeviceToHost));
        for (std::int64_t r = 0; r < n; ++r)
            for (std::int64_t i = 0; i < k; ++i) {
                const std::size_t at = static_cast<std::size_t>(r * k + i);
                ASSERT_EQ(gotQ[at], o.q[at]) << "K " << k << " row " << r << " k " << i;
                ASSERT_EQ(gotF[at], floatToE4m3(static_cast<float>(o.q[at] - z[static_cast<std::size_t>(r)])))
                    << "K " << k << " row " << r << " k " << i << " z " << int(z[static_cast<std::size_t>(r)]);
            }
    }
}

TEST(GpuW4a8Fused, TheFoldedLargeMRouteGivesTheUnfusedRoutesOutputsBitForBit)
{
    // The large-M W4A8-int8 route: q − z folded into the INT8 weight (every byte the scalar
    // q − z), then post-scale of Σ x·(q − z) — the same integers as the unfused route's
    // acc − z·Σx, so labPostScale (the vectorized rows and the scalar fallback) must give the
    // unfused epilogue's BF16 outputs bit for bit.
    REQUIRE_GPU();
    for (const std::int64_t k : {std::int64_t(1024), std::int64_t(48)}) {
        const std::int64_t n = 36, m = 5; // N a multiple of 4 (vector rows), then not (below)
        const Operands o = makeOperands(1, n, k, k, false, false, 0x77ull + k);
        std::vector<std::int8_t> z(o.z);
        for (auto &v : z) // the route refuses zero points outside the exact range (the engine checks)
            v = static_cast<std::int8_t>(std::clamp<int>(v, gm::kW4a8FoldZeroMin, gm::kW4a8FoldZeroMax));
        z[1] = gm::kW4a8FoldZeroMin, z[2] = gm::kW4a8FoldZeroMax, z[5] = -60, z[6] = 100;
        DevBuf w(o.packed.size()), zd(z.size()), f8(static_cast<std::size_t>(n * k));
        CU(cudaMemcpy(w.p, o.packed.data(), o.packed.size(), cudaMemcpyHostToDevice));
        CU(cudaMemcpy(zd.p, z.data(), z.size(), cudaMemcpyHostToDevice));
        ASSERT_TRUE(L::labW4FoldInt8(static_cast<const std::uint8_t *>(w.p), static_cast<const std::int8_t *>(zd.p), n,
                                     k, static_cast<std::int8_t *>(f8.p), nullptr));
        // Shapes it does not take are refused before anything is launched (the engine keeps the
        // unfused route): K not a multiple of 16, more rows than a grid's y extent.
        EXPECT_FALSE(L::labW4FoldInt8(static_cast<const std::uint8_t *>(w.p), static_cast<const std::int8_t *>(zd.p), n,
                                      40, static_cast<std::int8_t *>(f8.p), nullptr));
        EXPECT_FALSE(L::labW4FoldInt8(static_cast<const std::uint8_t *>(w.p), static_cast<const std::int8_t *>(zd.p),
                                      70000, 16, static_cast<std::int8_t *>(f8.p), nullptr));
        CU(cudaDeviceSynchronize());
        std::vector<std::int8_t> got(static_cast<std::size_t>(n * k));
        CU(cudaMemcpy(got.data(), f8.p, got.size(), cudaMemcpyDeviceToHost));
        for (std::int64_t r = 0; r < n; ++r)
            for (std::int64_t i = 0; i < k; ++i) {
                const std::size_t at = static_cast<std::size_t>(r * k + i);
                ASSERT_EQ(got[at], o.q[at] - z[static_cast<std::size_t>(r)]) << "K " << k << " row " << r << " k " << i;
            }
        // Σ_k x·q, Σx and Σ_k x·(q − z) on the host (exact integers), both epilogues on the device.
        std::mt19937 rng(static_cast<unsigned>(k));
        std::uniform_int_distribution<int> xd(-127, 127);
        std::uniform_real_distribution<float> sd(1e-3f, 4e-2f);
        for (const std::int64_t nn : {n, n - 1}) {
            std::vector<std::int32_t> acc(static_cast<std::size_t>(m * nn)), folded(acc.size()),
                rowSum(static_cast<std::size_t>(m));
            std::vector<float> tok(static_cast<std::size_t>(m)), ch(static_cast<std::size_t>(nn));
            for (auto &t : tok)
                t = sd(rng);
            for (auto &c : ch)
                c = sd(rng);
            for (std::int64_t r = 0; r < m; ++r) {
                std::vector<int> x(static_cast<std::size_t>(k));
                for (auto &v : x)
                    v = xd(rng);
                for (const int v : x)
                    rowSum[static_cast<std::size_t>(r)] += v;
                for (std::int64_t c = 0; c < nn; ++c) {
                    std::int32_t a = 0, b = 0;
                    for (std::int64_t i = 0; i < k; ++i) {
                        a += x[static_cast<std::size_t>(i)] * o.q[static_cast<std::size_t>(c * k + i)];
                        b += x[static_cast<std::size_t>(i)] *
                             static_cast<std::int32_t>(got[static_cast<std::size_t>(c * k + i)]);
                    }
                    acc[static_cast<std::size_t>(r * nn + c)] = a;
                    folded[static_cast<std::size_t>(r * nn + c)] = b;
                }
            }
            DevBuf dAcc(4 * acc.size()), dFold(4 * acc.size()), dRow(4 * rowSum.size()), dTok(4 * tok.size()),
                dCh(4 * ch.size()), y0(2 * acc.size()), y1(2 * acc.size());
            CU(cudaMemcpy(dAcc.p, acc.data(), 4 * acc.size(), cudaMemcpyHostToDevice));
            CU(cudaMemcpy(dFold.p, folded.data(), 4 * folded.size(), cudaMemcpyHostToDevice));
            CU(cudaMemcpy(dRow.p, rowSum.data(), 4 * rowSum.size(), cudaMemcpyHostToDevice));
            CU(cudaMemcpy(dTok.p, tok.data(), 4 * tok.size(), cudaMemcpyHostToDevice));
            CU(cudaMemcpy(dCh.p, ch.data(), 4 * ch.size(), cudaMemcpyHostToDevice));
            L::labW4a8Epilogue(static_cast<const std::int32_t *>(dAcc.p), static_cast<const std::int32_t *>(dRow.p),
                               static_cast<const std::int8_t *>(zd.p), static_cast<const float *>(dTok.p),
                               static_cast<const float *>(dCh.p), m, nn, y0.p, nullptr);
            L::labPostScale(dFold.p, true, static_cast<const float *>(dTok.p), static_cast<const float *>(dCh.p), m, nn,
                            y1.p, nullptr);
            CU(cudaDeviceSynchronize());
            std::vector<std::uint16_t> a0(acc.size()), a1(acc.size());
            CU(cudaMemcpy(a0.data(), y0.p, 2 * a0.size(), cudaMemcpyDeviceToHost));
            CU(cudaMemcpy(a1.data(), y1.p, 2 * a1.size(), cudaMemcpyDeviceToHost));
            for (std::size_t i = 0; i < a0.size(); ++i) {
                ASSERT_EQ(folded[i],
                          acc[i] - z[i % static_cast<std::size_t>(nn)] * rowSum[i / static_cast<std::size_t>(nn)]);
                ASSERT_EQ(a1[i], a0[i]) << "K " << k << " N " << nn << " output " << i;
            }
        }
    }
}

TEST(GpuW4a8Fused, RefusesShapesAndZeroPointsItDoesNotRun)
{
    // Host-side checks: no device needed.
    EXPECT_NE(L::w4a8FusedRefusal(false, 17, 512, 128), "");  // M above 16
    EXPECT_NE(L::w4a8FusedRefusal(false, 0, 512, 128), "");   // no rows
    EXPECT_NE(L::w4a8FusedRefusal(true, 4, 192, 64), "");     // K not a multiple of 128
    EXPECT_NE(L::w4a8FusedRefusal(true, 4, 131072, 128), ""); // K beyond the exact INT32 sums
    EXPECT_NE(L::w4a8FusedRefusal(false, 4, 384, 96), "");    // group neither 32, 64 nor a multiple of 128
    EXPECT_NE(L::w4a8FusedRefusal(false, 4, 384, 256), "");   // 256 does not divide 384
    if (L::w4a8FusedBuilt()) {
        EXPECT_EQ(L::w4a8FusedRefusal(false, 16, 14336, 14336), "");
        EXPECT_EQ(L::w4a8FusedRefusal(true, 1, 384, 32), "");
    }
    const std::int8_t ok[] = {-9, 0, 8}, bad[] = {0, 9}, low[] = {-10};
    EXPECT_EQ(L::w4a8ZerosRefusal(true, ok, 3), "");
    EXPECT_NE(L::w4a8ZerosRefusal(true, bad, 2), "");
    EXPECT_NE(L::w4a8ZerosRefusal(true, low, 1), "");
    EXPECT_EQ(L::w4a8ZerosRefusal(false, bad, 2), "") << "INT8 keeps any zero point exact";
    L::W4a8Problem p;
    p.m = 17, p.n = 8, p.k = 512, p.group = 128;
    EXPECT_THROW(L::w4a8Fused(p, {}, nullptr, nullptr, nullptr), GpuError);
}
