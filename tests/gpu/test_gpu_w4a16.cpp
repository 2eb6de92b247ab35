// SPDX-License-Identifier: MIT
// The fused W4A16 GEMM (gpu/kernels/gemm/kernels_w4a16.h; issue 43) against an FP64 product of X (as
// stored, BF16) and Ŵ = s·(q − z) in FP64, on EVERY output element: groups 32, 64, 128 and per
// channel; M ∈ {1, 3, 16, 17, 64, 200}; the swapped small-M kernel and the original side by
// side at M ∈ {1, 2, 7, 8, 9, 16}, asymmetric and symmetric; the tiled kernel (every tile and
// ring depth) at M ∈ {17, 31, 64, 100, 128, 256}; N not a multiple of the tile; K
// slices 1, 3 and the launcher's choice; 8, 16 and 32 rows per warp; the MoE launch (blockIdx.z = expert) against the
// loop of per-expert launches; the lab's FP64 check on the device against the host's; the refused
// shapes. The bound (docs/numerics.md "Fused W4A16 GEMM"):
// |y − ref| ≤ 2^-8·|ref| + (1 + 2^-8)·(K·2^-23 + w)·Σ_k |x_k·ŵ_k|, w = 0 for group ≥ 128 (exact
// q − z, FP32 scale per group) and 2^-7 + 2^-15 for g32 / g64 (Ŵ rounded to BF16 twice).
// Skipped, with the reason, without a device.
#include "gpu_compare.h"

#include "device_buffer.h"
#include "w4_operands.h"

#include <cuda_runtime.h>

#include "kernels/gemm/kernels_w4a16.h"

namespace {

namespace L = quantscope::gpu::launch;

using Operands = W4Operands;

/// The zero points' extremes the kernels keep exact (136 + z in BF16 for z ∈ [−128, 120]).
Operands makeOperands(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t group, std::uint64_t seed,
                      bool symmetric = false)
{
    return makeW4Operands(m, n, k, group, seed, symmetric, -128, 120);
}

using Device = W4Device;
constexpr auto worstOfBound = w4a16WorstOfBound;

} // namespace

TEST(GpuW4a16Fused, EveryOutputWithinTheBoundOverGroupsShapesAndSplits)
{
    REQUIRE_GPU();
    ASSERT_TRUE(L::w4a16FusedBuilt());
    struct Shape {
        std::int64_t n, k;
    };
    int run = 0;
    for (const Shape sh : {Shape{72, 1024}, Shape{136, 384}, Shape{40, 2048}})
        for (const std::int64_t group : {std::int64_t(32), std::int64_t(64), std::int64_t(128), sh.k})
            for (const std::int64_t m : {1, 3, 16, 17, 64, 200}) {
                if (sh.k % group != 0)
                    continue;
                const Operands o = makeOperands(m, sh.n, sh.k, group, 0xA43ull + run);
                Device d({o});
                for (const int split : {0, 1, 3}) {
                    L::W4a16Tiling t;
                    t.kernel = m > 16 ? 1 : 0; // the original kernel above 16 rows (the tiled one: below)
                    t.splitK = split;
                    t.nPerWarp = 8 << (run++ % 3);
                    const L::W4a16Launch l = L::w4a16Fused(d.p, t, d.ws.p, d.cnt.p, nullptr);
                    CU(cudaDeviceSynchronize());
                    std::string where;
                    const double worst = worstOfBound(o, d.output(0), l.scaleInB, where);
                    const std::string what = "M=" + std::to_string(m) + " N=" + std::to_string(sh.n) +
                                             " K=" + std::to_string(sh.k) + " group " + std::to_string(group) +
                                             " split " + std::to_string(l.splitK) + " rows/warp " +
                                             std::to_string(l.nPerWarp) + " m-tile " + std::to_string(l.mTile);
                    EXPECT_LE(worst, 1.0) << what << ": worst |y − ref| / bound at " << where;
                    EXPECT_EQ(l.scaleInB, group < 128) << what;
                    if (split > 0) {
                        // The launcher splits K into slices of ⌈chunks / split⌉ chunks: fewer
                        // slices than asked when that rounds up (4 chunks, split 3: 2 slices).
                        const std::int64_t chunks = sh.k / 128, per = (chunks + split - 1) / split;
                        EXPECT_EQ(l.splitK, (chunks + per - 1) / per) << what;
                    }
                    EXPECT_TRUE(d.workspaceClean()) << what << ": the last block re-zeroes the workspace";
                }
            }
}

TEST(GpuW4a16Fused, SwappedSmallMKernelEveryOutputWithinTheBound)
{
    // The swapped kernel (rows of W as the mma's M, the tokens its n = 8) and, beside it, the
    // original at M ∈ {1, 2, 7, 8, 9, 16} (one and two n8 tiles of tokens), every group kind,
    // asymmetric and symmetric, one K slice and several, 16 and 32 rows of W a warp, 1, 2 and 4
    // chunks loaded ahead; N not a multiple of a block's 64 or 128 rows.
    REQUIRE_GPU();
    struct Shape {
        std::int64_t n, k;
    };
    int run = 0;
    for (const Shape sh : {Shape{72, 1024}, Shape{200, 384}, Shape{40, 2048}})
        for (const std::int64_t group : {std::int64_t(32), std::int64_t(64), std::int64_t(128), sh.k})
            for (const std::int64_t m : {1, 2, 7, 8, 9, 16}) {
                const bool symmetric = run % 5 == 4;
                const Operands o = makeOperands(m, sh.n, sh.k, group, 0x5A43ull + run, symmetric);
                Device d({o});
                for (const int kernel : {4, 3, 2, 1})
                    for (const int split : {1, 3, 0}) {
                        L::W4a16Tiling t;
                        t.kernel = kernel;
                        t.splitK = split;
                        t.nPerWarp = kernel == 2 ? 16 << (run % 2) : 8 << (run % 3);
                        // The pipelined kernel's ring: 4 or 8 chunks (anything below 8 asks for 4).
                        t.chunksAhead = kernel >= 3 ? (run % 2 ? 8 : 2) : 1 << (run % 3);
                        ++run;
                        const L::W4a16Launch l = L::w4a16Fused(d.p, t, d.ws.p, d.cnt.p, nullptr);
                        CU(cudaDeviceSynchronize());
                        std::string where;
                        const double worst = worstOfBound(o, d.output(0), l.scaleInB, where);
                        const std::string what = std::string(kernel == 4   ? "pipelined 8 warps"
                                                             : kernel == 3 ? "pipelined"
                                                             : kernel == 2 ? "swapped"
                                                                           : "original") +
                                                 " M=" + std::to_string(m) + " N=" + std::to_string(sh.n) +
                                                 " K=" + std::to_string(sh.k) + " group " + std::to_string(group) +
                                                 (symmetric ? " sym" : " asym") + " split " + std::to_string(l.splitK) +
                                                 " rows/warp " + std::to_string(l.nPerWarp) + " ahead " +
                                                 std::to_string(l.chunksAhead) + " tiles " + std::to_string(l.mTile);
                        EXPECT_LE(worst, 1.0) << what << ": worst |y − ref| / bound at " << where;
                        EXPECT_EQ(l.swapped, kernel >= 2) << what;
                        EXPECT_EQ(l.pipelined, kernel >= 3) << what;
                        EXPECT_EQ(l.scaleInB, group < 128) << what;
                        if (kernel == 2) {
                            EXPECT_EQ(l.mTile, m <= 8 ? 1 : 2) << what;
                            EXPECT_EQ(l.nPerWarp, t.nPerWarp) << what;
                            EXPECT_EQ(l.chunksAhead, l.nPerWarp == 32 ? std::min(t.chunksAhead, 2) : t.chunksAhead)
                                << what;
                        }
                        if (kernel >= 3) {
                            EXPECT_EQ(l.mTile, m <= 8 ? 1 : 2) << what;
                            EXPECT_EQ(l.nPerWarp, 16) << what;
                            EXPECT_EQ(l.warps, kernel == 4 ? 8 : 4) << what;
                            EXPECT_EQ(l.chunksAhead, t.chunksAhead >= 8 && kernel == 3 ? 8 : 4) << what;
                        }
                        if (split > 0) {
                            // The launcher splits K into slices of ⌈chunks / split⌉ chunks: fewer
                            // slices than asked when that rounds up (4 chunks, split 3: 2 slices).
                            const std::int64_t chunks = sh.k / 128, per = (chunks + split - 1) / split;
                            EXPECT_EQ(l.splitK, (chunks + per - 1) / per) << what;
                        }
                        EXPECT_TRUE(d.workspaceClean()) << what << ": the last block re-zeroes the workspace";
                    }
                // The launcher's own choice at these M is the swapped kernel.
                EXPECT_TRUE(L::w4a16Fused(d.p, {}, d.ws.p, d.cnt.p, nullptr).swapped) << "M=" << m;
                CU(cudaDeviceSynchronize());
            }
    // Above 16 rows the launcher runs the original kernel, even when asked for a swapped one.
    const Operands o = makeOperands(17, 72, 512, 128, 3);
    Device d({o});
    for (const int kernel : {2, 3, 4}) {
        L::W4a16Tiling t;
        t.kernel = kernel;
        const L::W4a16Launch l = L::w4a16Fused(d.p, t, d.ws.p, d.cnt.p, nullptr);
        CU(cudaDeviceSynchronize());
        EXPECT_FALSE(l.swapped) << "kernel " << kernel;
        EXPECT_FALSE(l.pipelined) << "kernel " << kernel;
        std::string where;
        EXPECT_LE(worstOfBound(o, d.output(0), false, where), 1.0) << "kernel " << kernel << " at " << where;
    }
}

TEST(GpuW4a16Fused, PipelinedKernelLongSlicesRestageEveryPiece)
{
    // The pipelined swapped kernel with one K slice over a long K: the X / scale stage holds a
    // piece of the slice at a time (M = 16: a few chunks), so the ring's copies run across many
    // restagings; g32 (four groups a chunk), g128 and per channel (one group over every piece),
    // both ring depths and 8 warps a block; the MoE batch (experts along the grid, 8 warps) at M = 9.
    REQUIRE_GPU();
    int run = 0;
    for (const std::int64_t group : {std::int64_t(32), std::int64_t(128), std::int64_t(4096)})
        for (const std::int64_t m : {16, 1})
            for (const int ahead : {4, 8, 0}) { // 0: 8 warps a block, ring of 4
                const bool symmetric = run % 2 == 0;
                const Operands o = makeOperands(m, 136, 4096, group, 0x91ull + run++, symmetric);
                Device d({o});
                L::W4a16Tiling t;
                t.kernel = ahead == 0 ? 4 : 3;
                t.splitK = 1;
                t.chunksAhead = ahead;
                const L::W4a16Launch l = L::w4a16Fused(d.p, t, d.ws.p, d.cnt.p, nullptr);
                CU(cudaDeviceSynchronize());
                std::string where;
                EXPECT_TRUE(l.pipelined);
                EXPECT_LE(worstOfBound(o, d.output(0), l.scaleInB, where), 1.0)
                    << "M=" << m << " group " << group << " ring " << ahead << " at " << where;
            }
    const int E = 3;
    std::vector<Operands> ex;
    for (int e = 0; e < E; ++e)
        ex.push_back(makeOperands(9, 72, 1024, 64, 300 + e));
    Device batched(ex);
    L::W4a16Tiling t;
    t.kernel = 4;
    t.splitK = 2;
    const L::W4a16Launch l = L::w4a16Fused(batched.p, t, batched.ws.p, batched.cnt.p, nullptr);
    CU(cudaDeviceSynchronize());
    EXPECT_TRUE(l.pipelined);
    for (int e = 0; e < E; ++e) {
        std::string where;
        EXPECT_LE(worstOfBound(ex[static_cast<std::size_t>(e)], batched.output(e), true, where), 1.0)
            << "expert " << e << " at " << where;
    }
    EXPECT_TRUE(batched.workspaceClean());
}

TEST(GpuW4a16Fused, RepeatedSplitLaunchesReuseTheWorkspace)
{
    REQUIRE_GPU();
    const Operands o = makeOperands(5, 264, 1024, 128, 7);
    Device d({o});
    L::W4a16Tiling t;
    t.splitK = 4;
    for (int r = 0; r < 3; ++r) {
        L::w4a16Fused(d.p, t, d.ws.p, d.cnt.p, nullptr);
        CU(cudaDeviceSynchronize());
        const auto y = d.output(0);
        std::string where;
        EXPECT_LE(worstOfBound(o, y, false, where), 1.0) << "launch " << r << " at " << where;
    }
    EXPECT_TRUE(d.workspaceClean());
}

TEST(GpuW4a16Fused, MoEBatchedLaunchMatchesThePerExpertLoop)
{
    REQUIRE_GPU();
    const int E = 3;
    // M = 16 and 1 and 9: the swapped kernel (the launcher's choice up to 16 rows); 24: the original.
    for (const std::int64_t m : {16, 1, 9, 24})
        for (const std::int64_t group : {std::int64_t(64), std::int64_t(128)}) {
            std::vector<Operands> ex;
            for (int e = 0; e < E; ++e)
                ex.push_back(makeOperands(m, 72, 512, group, 100 + e + 7 * m));
            Device batched(ex);
            L::W4a16Tiling one;
            one.splitK = 1; // deterministic: the loop and the batched launch must agree bit for bit
            EXPECT_EQ(L::w4a16Fused(batched.p, one, batched.ws.p, batched.cnt.p, nullptr).swapped, m <= 16)
                << "M " << m;
            CU(cudaDeviceSynchronize());
            for (int e = 0; e < E; ++e) {
                Device single({ex[static_cast<std::size_t>(e)]});
                L::w4a16Fused(single.p, one, single.ws.p, single.cnt.p, nullptr);
                CU(cudaDeviceSynchronize());
                EXPECT_EQ(batched.output(e), single.output(0)) << "expert " << e << " group " << group << " M " << m;
                std::string where;
                EXPECT_LE(worstOfBound(ex[static_cast<std::size_t>(e)], batched.output(e), group < 128, where), 1.0)
                    << "expert " << e << " M " << m << " at " << where;
            }
            // Split K across the experts' tiles: each expert's outputs within the bound.
            L::W4a16Tiling split;
            split.splitK = 2;
            const auto l = L::w4a16Fused(batched.p, split, batched.ws.p, batched.cnt.p, nullptr);
            CU(cudaDeviceSynchronize());
            EXPECT_EQ(l.splitK, 2);
            for (int e = 0; e < E; ++e) {
                std::string where;
                EXPECT_LE(worstOfBound(ex[static_cast<std::size_t>(e)], batched.output(e), group < 128, where), 1.0)
                    << "split expert " << e << " M " << m << " at " << where;
            }
            EXPECT_TRUE(batched.workspaceClean());
        }
}

TEST(GpuW4a16Fused, TiledKernelEveryOutputWithinTheBound)
{
    // The tiled kernel (kernel 5: X as the mma's A operand, block tiles of BM tokens × BN rows of W
    // through a cp.async ring of 2, 3 or 4 stages in shared memory) over every tile (1…8) and ring
    // depth, M ∈ {17, 31, 64, 100, 128, 256} (partial m-blocks of every tile), groups 32, 64, 128
    // and per channel, asymmetric and symmetric, one K slice, three and the launcher's choice; N
    // not a multiple of the tiles' 128 or 256 rows (odd N: the scalar stores).
    REQUIRE_GPU();
    struct Shape {
        std::int64_t n, k;
    };
    int run = 0;
    for (const Shape sh : {Shape{200, 384}, Shape{72, 1024}, Shape{263, 512}})
        for (const std::int64_t group : {std::int64_t(32), std::int64_t(64), std::int64_t(128), sh.k})
            for (const std::int64_t m : {17, 31, 64, 100, 128, 256}) {
                const bool symmetric = run % 4 == 3;
                const Operands o = makeOperands(m, sh.n, sh.k, group, 0x7E5ull + run, symmetric);
                Device d({o});
                for (const int split : {1, 3, 0}) {
                    L::W4a16Tiling t;
                    t.kernel = 5;
                    t.splitK = split;
                    t.nPerWarp = 1 + run % 8;
                    t.chunksAhead = 2 + run % 3;
                    ++run;
                    const L::W4a16Launch l = L::w4a16Fused(d.p, t, d.ws.p, d.cnt.p, nullptr);
                    CU(cudaDeviceSynchronize());
                    std::string where;
                    const double worst = worstOfBound(o, d.output(0), l.scaleInB, where);
                    const std::string what = "tiled M=" + std::to_string(m) + " N=" + std::to_string(sh.n) +
                                             " K=" + std::to_string(sh.k) + " group " + std::to_string(group) +
                                             (symmetric ? " sym" : " asym") + " tile " + std::to_string(l.tile) + " (" +
                                             std::to_string(l.bm) + "×" + std::to_string(l.bn) + ") stages " +
                                             std::to_string(l.chunksAhead) + " split " + std::to_string(l.splitK);
                    EXPECT_LE(worst, 1.0) << what << ": worst |y − ref| / bound at " << where;
                    EXPECT_TRUE(l.tiled) << what;
                    EXPECT_FALSE(l.swapped) << what;
                    EXPECT_EQ(l.tile, t.nPerWarp) << what;
                    EXPECT_EQ(l.chunksAhead, t.chunksAhead) << what;
                    EXPECT_EQ(l.scaleInB, group < 128) << what;
                    if (split > 0) {
                        // The launcher splits K into slices of ⌈chunks / split⌉ chunks: fewer
                        // slices than asked when that rounds up (4 chunks, split 3: 2 slices).
                        const std::int64_t chunks = sh.k / 128, per = (chunks + split - 1) / split;
                        EXPECT_EQ(l.splitK, (chunks + per - 1) / per) << what;
                    }
                    EXPECT_TRUE(d.workspaceClean()) << what << ": the last block re-zeroes the workspace";
                }
                // The launcher's own choice above 16 rows is the tiled kernel (its tile by M).
                const L::W4a16Launch l = L::w4a16Fused(d.p, {}, d.ws.p, d.cnt.p, nullptr);
                CU(cudaDeviceSynchronize());
                EXPECT_TRUE(l.tiled) << "M=" << m;
                EXPECT_EQ(l.bm, m <= 32 ? 32 : m <= 64 ? 64 : 128) << "M=" << m;
                std::string where;
                EXPECT_LE(worstOfBound(o, d.output(0), l.scaleInB, where), 1.0) << "auto M=" << m << " at " << where;
            }
}

TEST(GpuW4a16Fused, TiledKernelLongSlicesAndTheMoEBatch)
{
    // One K slice over a long K (the ring wraps many times; g128 and per channel groups span
    // chunks), every ring depth; then the MoE launch (blockIdx.z = expert) against the loop of
    // per-expert launches, bit for bit with one slice, within the bound with split K, at M = 16
    // (kernel 5 asked for: the MoE shape) and 40.
    REQUIRE_GPU();
    int run = 0;
    for (const std::int64_t group : {std::int64_t(128), std::int64_t(512), std::int64_t(4096), std::int64_t(32)})
        for (const int stages : {2, 3, 4}) {
            const Operands o = makeOperands(100, 136, 4096, group, 0x1A7ull + run, run % 2 == 0);
            Device d({o});
            L::W4a16Tiling t;
            t.kernel = 5;
            t.splitK = 1;
            t.chunksAhead = stages;
            t.nPerWarp = 1 + run++ % 8;
            const L::W4a16Launch l = L::w4a16Fused(d.p, t, d.ws.p, d.cnt.p, nullptr);
            CU(cudaDeviceSynchronize());
            std::string where;
            EXPECT_TRUE(l.tiled);
            EXPECT_LE(worstOfBound(o, d.output(0), l.scaleInB, where), 1.0)
                << "group " << group << " stages " << stages << " tile " << l.tile << " at " << where;
        }
    const int E = 3;
    for (const std::int64_t m : {16, 40})
        for (const std::int64_t group : {std::int64_t(64), std::int64_t(128)})
            for (const int tile : {1, 7, 0}) {
                std::vector<Operands> ex;
                for (int e = 0; e < E; ++e)
                    ex.push_back(makeOperands(m, 200, 1024, group, 500 + e + 11 * m + tile));
                Device batched(ex);
                L::W4a16Tiling one;
                one.kernel = 5;
                one.nPerWarp = tile;
                one.splitK = 1; // deterministic: the loop and the batched launch must agree bit for bit
                EXPECT_TRUE(L::w4a16Fused(batched.p, one, batched.ws.p, batched.cnt.p, nullptr).tiled);
                CU(cudaDeviceSynchronize());
                for (int e = 0; e < E; ++e) {
                    Device single({ex[static_cast<std::size_t>(e)]});
                    L::w4a16Fused(single.p, one, single.ws.p, single.cnt.p, nullptr);
                    CU(cudaDeviceSynchronize());
                    EXPECT_EQ(batched.output(e), single.output(0))
                        << "expert " << e << " group " << group << " M " << m << " tile " << tile;
                    std::string where;
                    EXPECT_LE(worstOfBound(ex[static_cast<std::size_t>(e)], batched.output(e), group < 128, where), 1.0)
                        << "expert " << e << " M " << m << " tile " << tile << " at " << where;
                }
                L::W4a16Tiling split = one;
                split.splitK = 3;
                const auto l = L::w4a16Fused(batched.p, split, batched.ws.p, batched.cnt.p, nullptr);
                CU(cudaDeviceSynchronize());
                EXPECT_EQ(l.splitK, 3);
                for (int e = 0; e < E; ++e) {
                    std::string where;
                    EXPECT_LE(worstOfBound(ex[static_cast<std::size_t>(e)], batched.output(e), group < 128, where), 1.0)
                        << "split expert " << e << " M " << m << " tile " << tile << " at " << where;
                }
                EXPECT_TRUE(batched.workspaceClean()) << "M " << m << " tile " << tile;
            }
}

TEST(GpuW4a16Fused, TheLabsDeviceCheckAgreesWithTheHostAndCatchesOneWrongOutput)
{
    REQUIRE_GPU();
    for (const std::int64_t group : {std::int64_t(64), std::int64_t(256)}) {
        const Operands o = makeOperands(9, 48, 512, group, 11);
        Device d({o});
        const auto l = L::w4a16Fused(d.p, {}, d.ws.p, d.cnt.p, nullptr);
        DevBuf res(16);
        auto *worstDev = static_cast<double *>(res.p);
        auto *countDev = reinterpret_cast<unsigned long long *>(static_cast<char *>(res.p) + 8);
        const double wRel = l.scaleInB ? std::ldexp(1.0, -7) + std::ldexp(1.0, -15) : 0.0;
        auto check = [&](long long stride, double &worst, unsigned long long &count) {
            L::w4a16CheckFp64(d.p, stride, wRel, worstDev, countDev, nullptr);
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(&worst, worstDev, 8, cudaMemcpyDeviceToHost), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(&count, countDev, 8, cudaMemcpyDeviceToHost), cudaSuccess);
        };
        double worst = 0;
        unsigned long long count = 0;
        check(1, worst, count);
        std::string where;
        const double host = worstOfBound(o, d.output(0), l.scaleInB, where);
        EXPECT_EQ(count, 9u * 48u) << "every output once";
        EXPECT_LE(worst, 1.0);
        EXPECT_NEAR(worst, host, 1e-9 + 1e-6 * host) << "the device's FP64 check and the host's agree";
        // Rows 0, 4, 8 and M − 1 = 8 again: 4 rows × N outputs.
        check(4, worst, count);
        EXPECT_EQ(count, 4u * 48u);
        // One output made wrong (the largest one's sign flipped) is caught.
        std::vector<std::uint16_t> y = d.output(0);
        const auto big = std::max_element(y.begin(), y.end(), [](std::uint16_t a, std::uint16_t b) {
            return std::fabs(bf16ToFloat(a)) < std::fabs(bf16ToFloat(b));
        });
        *big = static_cast<std::uint16_t>(*big ^ 0x8000u);
        ASSERT_EQ(cudaMemcpy(d.y.p, y.data(), 2 * y.size(), cudaMemcpyHostToDevice), cudaSuccess);
        check(1, worst, count);
        EXPECT_GT(worst, 1.0) << "group " << group;
    }
}

TEST(GpuW4a16Fused, RefusesShapesItDoesNotRun)
{
    // Host-side checks: no device needed.
    EXPECT_NE(L::w4a16FusedRefusal(192, 64), "");  // K not a multiple of 128
    EXPECT_NE(L::w4a16FusedRefusal(384, 96), "");  // group neither 32, 64 nor a multiple of 128
    EXPECT_NE(L::w4a16FusedRefusal(384, 256), ""); // 256 does not divide 384
    EXPECT_EQ(L::w4a16FusedRefusal(384, 384), "");
    EXPECT_EQ(L::w4a16FusedRefusal(14336, 128), "");
    const std::int8_t ok[] = {-128, 0, 120}, bad[] = {0, 121};
    EXPECT_TRUE(L::w4a16ZerosInRange(ok, 3));
    EXPECT_FALSE(L::w4a16ZerosInRange(bad, 2));
    L::W4a16Problem p;
    p.m = 1, p.n = 8, p.k = 192, p.group = 64;
    EXPECT_THROW(L::w4a16Fused(p, {}, nullptr, nullptr, nullptr), GpuError);
}
