// SPDX-License-Identifier: MIT
// The fused W4A16 GEMM's streaming kernel (gpu/kernels/gemm/gemm_w4a16_stream.cu, W4a16Tiling::kernel
// 7; issue 43): the swapped kernel's arithmetic on a tile-ordered copy of W and its metadata.
//  - The copy (w4a16TileReorder) byte for byte against the layout kernels_w4a16.h documents,
//    rebuilt here on the host from the codes, scales and zero points (N not a multiple of the
//    16-row tile: the padding rows; two experts).
//  - Every output of every case within the bound of docs/numerics.md "Fused W4A16 GEMM" against
//    the FP64 product (w4_operands.h), and at one K slice the swapped kernel's outputs bit for bit
//    (the same sums in the same order; with several slices the FP32 partials meet in atomics in
//    any order). M ∈ {1, 2, 7, 8, 9, 16}, groups 128, 256 and per channel, asymmetric and
//    symmetric, 1 and 2 chunks a step, 4, 8 and 16 warps a block, K slices 1, 3 and the launcher's;
//    K = 14336 with X staged in several pieces.
//  - The MoE batch against per-expert launches bit for bit; the launcher's choice; the refusals.
// Skipped, with the reason, without a device.
#include "gpu_compare.h"

#include "device_buffer.h"
#include "w4_operands.h"

#include <cstring>

#include <cuda_runtime.h>

#include "kernels/gemm/kernels_w4a16.h"

namespace {

namespace L = quantscope::gpu::launch;

W4Operands makeOperands(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t group, std::uint64_t seed,
                        bool symmetric = false)
{
    return makeW4Operands(m, n, k, group, seed, symmetric, -128, 120);
}

/// The tile-ordered copy of E experts on the device, and p pointing at it.
struct TileCopy {
    DevBuf buf;
    explicit TileCopy(L::W4a16Problem &p) : buf(std::max<std::size_t>(16, L::w4a16TileBytes(p)))
    {
        L::w4a16TileReorder(p, buf.p, nullptr);
        p.tilePacked = buf.p;
    }
    std::vector<std::uint8_t> bytes(const L::W4a16Problem &p) const
    {
        std::vector<std::uint8_t> out(L::w4a16TileBytes(p));
        cudaMemcpy(out.data(), buf.p, out.size(), cudaMemcpyDeviceToHost);
        return out;
    }
};

/// The documented layout of one expert's copy, built from its operands.
std::vector<std::uint8_t> expectedCopy(const W4Operands &o)
{
    const std::int64_t tiles = (o.n + 15) / 16, chunks = o.k / 128, groups = o.k / o.group;
    std::vector<std::uint8_t> out(static_cast<std::size_t>(tiles * chunks * 1024 + tiles * groups * 96), 0);
    for (std::int64_t t = 0; t < tiles; ++t)
        for (std::int64_t ch = 0; ch < chunks; ++ch)
            for (int h = 0; h < 2; ++h)
                for (int lane = 0; lane < 32; ++lane) {
                    const std::int64_t row = 16 * t + lane / 4 + 8 * h;
                    if (row >= o.n)
                        continue;
                    for (int b = 0; b < 16; ++b)
                        out[static_cast<std::size_t>((t * chunks + ch) * 1024 + 512 * h + 16 * lane + b)] =
                            o.packed[static_cast<std::size_t>(row * (o.k / 2) + 64 * ch + 16 * (lane % 4) + b)];
                }
    const std::size_t meta = static_cast<std::size_t>(tiles * chunks * 1024);
    for (std::int64_t t = 0; t < tiles; ++t)
        for (std::int64_t g = 0; g < groups; ++g)
            for (int gid = 0; gid < 8; ++gid)
                for (int h = 0; h < 2; ++h) {
                    const std::int64_t row = 16 * t + gid + 8 * h;
                    const float s = row < o.n ? o.s[static_cast<std::size_t>(row * groups + g)] : 0.0f;
                    const float z = 136.0f + (row < o.n ? o.z[static_cast<std::size_t>(row * groups + g)] : 0);
                    const std::uint16_t zb = quantscope::floatToBf16(z); // exact: an integer ≤ 256
                    const std::size_t at = meta + static_cast<std::size_t>((t * groups + g) * 96);
                    std::memcpy(&out[at + 8 * gid + 4 * h], &s, 4);
                    std::memcpy(&out[at + 64 + 4 * gid + 2 * h], &zb, 2);
                }
    return out;
}

} // namespace

TEST(GpuW4a16Stream, TheTileOrderedCopyIsTheDocumentedLayout)
{
    REQUIRE_GPU();
    for (const std::int64_t group : {std::int64_t(128), std::int64_t(256), std::int64_t(1024)}) {
        const std::vector<W4Operands> ex = {makeOperands(1, 200, 1024, group, 11),
                                            makeOperands(1, 200, 1024, group, 12)};
        W4DeviceOperands d(ex);
        const TileCopy copy(d.p);
        CU(cudaDeviceSynchronize());
        const std::vector<std::uint8_t> got = copy.bytes(d.p);
        std::vector<std::uint8_t> want = expectedCopy(ex[0]);
        const std::vector<std::uint8_t> second = expectedCopy(ex[1]);
        want.insert(want.end(), second.begin(), second.end());
        ASSERT_EQ(got.size(), want.size()) << "group " << group;
        std::size_t first = got.size();
        for (std::size_t i = 0; i < got.size() && first == got.size(); ++i)
            if (got[i] != want[i])
                first = i;
        EXPECT_EQ(first, got.size()) << "group " << group << ": the first differing byte";
    }
}

TEST(GpuW4a16Stream, EveryOutputWithinTheBoundAndOneSliceGivesTheSwappedKernelsBits)
{
    REQUIRE_GPU();
    struct Shape {
        std::int64_t n, k;
    };
    int run = 0;
    for (const Shape sh : {Shape{72, 1024}, Shape{200, 384}, Shape{40, 2048}, Shape{24, 14336}})
        for (const std::int64_t group : {std::int64_t(128), std::int64_t(256), sh.k})
            for (const std::int64_t m : {1, 2, 7, 8, 9, 16}) {
                if (sh.k % group != 0 || (sh.k == 14336 && group == 256 && m != 9))
                    continue;
                const bool symmetric = run % 5 == 4;
                const W4Operands o = makeOperands(m, sh.n, sh.k, group, 0x57ull + run, symmetric);
                W4Device d({o});
                const TileCopy copy(d.p);
                L::W4a16Tiling swapped;
                swapped.kernel = 2, swapped.splitK = 1;
                L::w4a16Fused(d.p, swapped, d.ws.p, d.cnt.p, nullptr);
                CU(cudaDeviceSynchronize());
                const std::vector<std::uint16_t> reference = d.output(0);
                for (const int ahead : {1, 2})
                    for (const int split : {1, 3, 0}) {
                        L::W4a16Tiling t;
                        t.kernel = 7, t.splitK = split, t.chunksAhead = ahead, t.warps = 4 << (run % 3);
                        t.reduce = run % 2 == 0 ? 2 : 0; // the cluster sum where it runs, or the atomics
                        ++run;
                        CU(cudaMemset(d.y.p, 0xFF, 2 * static_cast<std::size_t>(m * sh.n)));
                        const L::W4a16Launch l = L::w4a16Fused(d.p, t, d.ws.p, d.cnt.p, nullptr);
                        CU(cudaDeviceSynchronize());
                        const std::string what =
                            "M=" + std::to_string(m) + " N=" + std::to_string(sh.n) + " K=" + std::to_string(sh.k) +
                            " group " + std::to_string(group) + (symmetric ? " sym" : " asym") + " ahead " +
                            std::to_string(ahead) + " warps " + std::to_string(t.warps) + " split " +
                            std::to_string(l.splitK) + (l.clusterReduce ? " (cluster sum)" : " (atomics)");
                        const std::vector<std::uint16_t> y = d.output(0);
                        std::string where;
                        EXPECT_LE(w4a16WorstOfBound(o, y, false, where), 1.0) << what << " at " << where;
                        EXPECT_TRUE(l.streamed && l.swapped) << what;
                        EXPECT_EQ(l.chunksAhead, ahead) << what;
                        EXPECT_EQ(l.warps, t.warps) << what;
                        EXPECT_EQ(l.mTile, m <= 8 ? 1 : 2) << what;
                        if (split > 0) {
                            const std::int64_t chunks = sh.k / 128, per = (chunks + split - 1) / split;
                            EXPECT_EQ(l.splitK, (chunks + per - 1) / per) << what;
                        }
                        // The cluster sum runs for 2 … 8 slices on sm_90 where asked.
                        if (t.reduce != 2 || l.splitK == 1 || !sm90()) {
                            EXPECT_FALSE(l.clusterReduce) << what;
                        } else if (l.splitK <= 8) { // 9 … 16 slices: where a cluster of that size fits
                            EXPECT_TRUE(l.clusterReduce) << what;
                        }
                        if (l.splitK == 1) {
                            EXPECT_EQ(y, reference) << what << ": not the swapped kernel's bits";
                        }
                        EXPECT_TRUE(d.workspaceClean()) << what << ": the last block re-zeroes the workspace";
                    }
            }
}

TEST(GpuW4a16Stream, TheClusterSumIsTheSameBitsOnEveryLaunchAndWithinTheBound)
{
    REQUIRE_GPU();
    if (!sm90())
        GTEST_SKIP() << "thread-block clusters need compute capability 9.0 or newer";
    // K = 14336 at 8 slices (the launcher's M = 16 shape, fewer rows), 16 and 4 warps, and an N that
    // leaves warps of the last block past the last tile (their outputs must not be stored).
    for (const std::int64_t m : {1, 16})
        for (const int warps : {16, 4}) {
            const W4Operands o = makeOperands(m, warps == 16 ? 520 : 200, 14336, 128, 0xC1ull + m + warps);
            W4Device d({o});
            const TileCopy copy(d.p);
            L::W4a16Tiling t;
            t.kernel = 7, t.splitK = 8, t.warps = warps, t.reduce = 2;
            std::vector<std::vector<std::uint16_t>> runs;
            for (int i = 0; i < 3; ++i) {
                CU(cudaMemset(d.y.p, 0xFF, 2 * static_cast<std::size_t>(m * o.n)));
                const L::W4a16Launch l = L::w4a16Fused(d.p, t, d.ws.p, d.cnt.p, nullptr);
                CU(cudaDeviceSynchronize());
                EXPECT_TRUE(l.clusterReduce && l.splitK == 8) << "M=" << m << " warps " << warps;
                runs.push_back(d.output(0));
            }
            EXPECT_EQ(runs[0], runs[1]) << "M=" << m << " warps " << warps << ": the cluster sum changed its bits";
            EXPECT_EQ(runs[0], runs[2]) << "M=" << m << " warps " << warps << ": the cluster sum changed its bits";
            std::string where;
            EXPECT_LE(w4a16WorstOfBound(o, runs[0], false, where), 1.0)
                << "M=" << m << " warps " << warps << " at " << where;
            EXPECT_TRUE(d.workspaceClean()) << "the cluster sum leaves the workspace untouched";
            t.reduce = 1; // the atomics on the same operands: within the same bound
            CU(cudaMemset(d.y.p, 0xFF, 2 * static_cast<std::size_t>(m * o.n)));
            EXPECT_FALSE(L::w4a16Fused(d.p, t, d.ws.p, d.cnt.p, nullptr).clusterReduce);
            CU(cudaDeviceSynchronize());
            EXPECT_LE(w4a16WorstOfBound(o, d.output(0), false, where), 1.0) << "atomics, M=" << m << " at " << where;
        }
}

TEST(GpuW4a16Stream, TheMoEBatchEqualsPerExpertLaunches)
{
    REQUIRE_GPU();
    for (const std::int64_t m : {5, 16}) {
        std::vector<W4Operands> ex;
        for (int e = 0; e < 3; ++e)
            ex.push_back(makeOperands(m, 200, 2048, 128, 0x4E00ull + 7 * e + m));
        W4Device batched(ex);
        const TileCopy copy(batched.p);
        L::W4a16Tiling t;
        t.kernel = 7, t.splitK = 1, t.warps = m == 16 ? 16 : 4;
        EXPECT_TRUE(L::w4a16Fused(batched.p, t, batched.ws.p, batched.cnt.p, nullptr).streamed);
        CU(cudaDeviceSynchronize());
        for (int e = 0; e < 3; ++e) {
            W4Device one({ex[static_cast<std::size_t>(e)]});
            one.p.tilePacked = static_cast<const char *>(copy.buf.p) + e * L::w4a16TileBytes(one.p);
            L::w4a16Fused(one.p, t, one.ws.p, one.cnt.p, nullptr);
            CU(cudaDeviceSynchronize());
            EXPECT_EQ(batched.output(e), one.output(0)) << "M=" << m << " expert " << e;
            std::string where;
            EXPECT_LE(w4a16WorstOfBound(ex[static_cast<std::size_t>(e)], batched.output(e), false, where), 1.0)
                << "M=" << m << " expert " << e << " at " << where;
        }
    }
}

TEST(GpuW4a16Stream, TheLauncherTakesItWithTheCopyAndRefusesWhatItCannotRun)
{
    REQUIRE_GPU();
    const W4Operands o = makeOperands(4, 72, 1024, 128, 5);
    W4Device d({o});
    EXPECT_FALSE(L::w4a16Fused(d.p, {}, d.ws.p, d.cnt.p, nullptr).streamed) << "no copy: the swapped kernel";
    L::W4a16Tiling seven;
    seven.kernel = 7;
    try {
        L::w4a16Fused(d.p, seven, d.ws.p, d.cnt.p, nullptr);
        ADD_FAILURE() << "kernel 7 without the copy ran";
    } catch (const GpuError &e) {
        EXPECT_NE(std::string(e.what()).find("tile-ordered copy"), std::string::npos) << e.what();
    }
    const TileCopy copy(d.p);
    EXPECT_EQ(L::w4a16TileRefusal(d.p), "");
    const L::W4a16Launch four = L::w4a16Fused(d.p, {}, d.ws.p, d.cnt.p, nullptr);
    EXPECT_TRUE(four.streamed) << "with the copy: the streaming kernel";
    EXPECT_TRUE(four.warps == 8 && four.chunksAhead == 2) << "up to 8 rows of X: 8 warps, 2 chunks a step";
    CU(cudaDeviceSynchronize());
    std::string where;
    EXPECT_LE(w4a16WorstOfBound(o, d.output(0), false, where), 1.0) << where;
    { // above 8 rows of X: 16 warps, 1 chunk a step
        const W4Operands o16 = makeOperands(16, 72, 1024, 128, 6);
        W4Device d16({o16});
        const TileCopy copy16(d16.p);
        const L::W4a16Launch sixteen = L::w4a16Fused(d16.p, {}, d16.ws.p, d16.cnt.p, nullptr);
        CU(cudaDeviceSynchronize());
        EXPECT_TRUE(sixteen.streamed && sixteen.warps == 16 && sixteen.chunksAhead == 1)
            << "M = 16: " << sixteen.warps << " warps, " << sixteen.chunksAhead << " chunk(s) a step";
        EXPECT_LE(w4a16WorstOfBound(o16, d16.output(0), false, where), 1.0) << "M = 16 at " << where;
    }

    L::W4a16Problem p = d.p;
    p.m = 17; // above the swapped kernel's M: the tiled kernel by default, refused when asked
    EXPECT_NE(L::w4a16TileRefusal(p), "");
    EXPECT_THROW(L::w4a16Fused(p, seven, nullptr, nullptr, nullptr), GpuError);
    p = d.p;
    p.group = 64; // the scale inside the W fragment: not this kernel's
    EXPECT_EQ(L::w4a16TileBytes(p), 0u);
    EXPECT_NE(L::w4a16TileRefusal(p), "");
    EXPECT_THROW(L::w4a16TileReorder(p, copy.buf.p, nullptr), GpuError);
    EXPECT_THROW(L::w4a16Fused(p, seven, nullptr, nullptr, nullptr), GpuError);
    EXPECT_FALSE(L::w4a16Fused(p, {}, d.ws.p, d.cnt.p, nullptr).streamed) << "g64 with a copy: the swapped kernel";
    CU(cudaDeviceSynchronize());
}
