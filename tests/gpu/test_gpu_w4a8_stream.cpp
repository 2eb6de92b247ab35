// SPDX-License-Identifier: MIT
// The fused W4A8 GEMM's streaming kernel (gpu/kernels/gemm/gemm_w4a8_stream.cu, W4a8Tiling::kernel
// 2; issue 43): the row-order kernel's arithmetic on the tile-ordered copy that w4a8TileReorder
// writes (the W4A16 streaming kernel's copy with each word's nibbles in the split order).
//  - The copy itself: w4a16TileReorder's bytes with every word of codes through w4a8SplitNibbles
//    and the metadata unchanged.
//  - Every output of every case within the bound of docs/numerics.md "Fused W4A8 GEMM" against the
//    FP64 product of the quantized operands (w4a8_operands.h), INT8 and E4M3; and at one K slice
//    INT8's outputs equal to the row-order kernel's bit for bit (the same exact INT32 sums a
//    group, added in the same order; with several slices the FP32 partials meet in atomics in any
//    order), per channel at every split (exact INT32 partials, finished once). M ∈ {1, 2, 8, 9, 16}; groups 128, 256 and per channel;
//    asymmetric (zero points −128 and 120, the copy's extremes, for INT8) and symmetric; 4, 8 and
//    16 warps a block; 1 and 2 chunks a step; K slices 1, 3 and the launcher's; N not a multiple
//    of 16; the workspace left zero.
//  - K = 14336 (the lab's shape class) g128 and per channel at M = 16.
//  - The launcher's choice (the streaming kernel wherever it runs, the row-order kernel without
//    the copy, below group 128 or, INT8 per channel, without X's chunk sums) and the refusals.
//  - X's chunk sums (w4a8QuantizeX's and w4a8XSums's) against prefix sums of the codes read back.
//  - The warpgroup kernel (gemm_w4a8_wgmma.cu, INT8 per channel at 9 … 16 tokens, sm_90): the
//    row-order kernel's bits at every split, within the bound; the launcher's choice where it runs;
//    its refusals.
// Skipped, with the reason, without a device.
#include "gpu_compare.h"

#include "w4a8_operands.h"

#include <cuda_runtime.h>

#include "kernels/gemm/kernels_w4a16.h"

namespace {

using namespace w4a8test;

/// Operands whose zero points the tile copy keeps exact: INT8 [−128, 120] (the extremes at the
/// first and last group), E4M3 [−9, 8].
Operands streamOperands(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t group, bool fp8, bool symmetric,
                        std::uint64_t seed)
{
    Operands o;
    const int lo = fp8 ? gm::kW4a8Fp8ZeroMin : -128, hi = fp8 ? gm::kW4a8Fp8ZeroMax : 120;
    static_cast<W4Operands &>(o) = makeW4Operands(m, n, k, group, seed, symmetric, lo, hi,
                                                  fp8 ? gm::kW4a8Fp8ZeroMin : -8, fp8 ? gm::kW4a8Fp8ZeroMax : 7);
    o.fp8 = fp8;
    return o;
}

/// The tile-ordered copy of d's codes, scales and zero points (w4a8TileReorder), d.p pointing at it.
struct Copy {
    DevBuf buf;
    Copy(Device &d, const Operands &o) : buf(std::max<std::size_t>(16, tileBytes(o)))
    {
        L::W4a16Problem t;
        t.packed = d.p.packed, t.scales = d.p.scales, t.zeros = d.p.zeros;
        t.n = o.n, t.k = o.k, t.group = o.group;
        L::w4a8TileReorder(t, buf.p, nullptr);
        d.p.tilePacked = buf.p;
    }
    static std::size_t tileBytes(const Operands &o)
    {
        L::W4a16Problem t;
        t.n = o.n, t.k = o.k, t.group = o.group;
        return L::w4a16TileBytes(t);
    }
};

} // namespace

TEST(GpuW4a8Stream, EveryOutputWithinTheBoundAndInt8EqualsTheRowOrderKernelBitForBit)
{
    REQUIRE_GPU();
    ASSERT_TRUE(L::w4a8FusedBuilt());
    struct Shape {
        std::int64_t n, k;
    };
    int run = 0;
    for (const bool fp8 : {false, true})
        for (const Shape sh : {Shape{72, 1024}, Shape{200, 512}, Shape{40, 2048}})
            for (const std::int64_t group : {std::int64_t(128), std::int64_t(256), sh.k})
                for (const std::int64_t m : {1, 2, 8, 9, 16}) {
                    const bool symmetric = run % 4 == 3;
                    const Operands o = streamOperands(m, sh.n, sh.k, group, fp8, symmetric, 0x5A8ull + run);
                    Device d(o);
                    Copy copy(d, o);
                    CU(cudaDeviceSynchronize());
                    const HostX hx = quantizeOnHost(o);
                    const std::size_t outs = static_cast<std::size_t>(m * sh.n);
                    for (const int split : {1, 3, 0}) {
                        L::W4a8Tiling t;
                        t.kernel = 2;
                        t.wgmma = 1; // the mma.sync kernel (the warpgroup one: WarpgroupKernel… below)
                        t.splitK = split;
                        t.warps = 4 << (run % 3);
                        t.chunksAhead = 1 + (run / 3) % 2;
                        t.reduce = run % 2 == 0 ? 2 : 0; // the cluster sum where it runs, or the atomics
                        ++run;
                        const L::W4a8Launch l = L::w4a8Fused(d.p, t, d.ws.p, d.cnt.p, nullptr);
                        CU(cudaDeviceSynchronize());
                        const auto y = d.read<std::uint16_t>(d.y, outs);
                        const std::string what =
                            std::string(fp8 ? "E4M3" : "INT8") + " M=" + std::to_string(m) +
                            " N=" + std::to_string(sh.n) + " K=" + std::to_string(sh.k) + " group " +
                            std::to_string(group) + (symmetric ? " sym" : " asym") + " warps " +
                            std::to_string(l.warps) + " split " + std::to_string(l.splitK) + " chunks a step " +
                            std::to_string(l.chunksAhead) + (l.clusterReduce ? " (cluster sum)" : " (atomics)");
                        EXPECT_TRUE(l.streamed) << what;
                        if (t.reduce != 2 || l.splitK == 1 || !sm90()) {
                            EXPECT_FALSE(l.clusterReduce) << what;
                        } else if (l.splitK <= 8) { // 9 … 16 slices: where a cluster of that size fits
                            EXPECT_TRUE(l.clusterReduce) << what;
                        }
                        EXPECT_EQ(l.warps, t.warps) << what;
                        EXPECT_EQ(l.chunksAhead, t.chunksAhead) << what;
                        EXPECT_EQ(l.tokenTiles, m <= 8 ? 1 : 2) << what;
                        if (split > 0) { // ⌈chunks / split⌉ chunks a slice, no empty slice
                            const std::int64_t chunks = sh.k / 128, per = (chunks + split - 1) / split;
                            EXPECT_EQ(l.splitK, (chunks + per - 1) / per) << what;
                        }
                        std::string where;
                        EXPECT_LE(worstOfBound(o, hx, y, where), 1.0)
                            << what << ": worst |y − ref| / bound at " << where;
                        EXPECT_TRUE(d.workspaceClean()) << what << ": the last block re-zeroes the workspace";
                        // The row-order kernel at one slice: the same bits at one slice, and per channel
                        // at every split (the slices add exact INT32 partials; finished once).
                        if (!fp8 && (l.splitK == 1 || group == sh.k)) {
                            L::W4a8Tiling r;
                            r.kernel = 1;
                            r.splitK = 1;
                            const L::W4a8Launch lr = L::w4a8Fused(d.p, r, d.ws.p, d.cnt.p, nullptr);
                            CU(cudaDeviceSynchronize());
                            EXPECT_FALSE(lr.streamed) << what;
                            const auto yr = d.read<std::uint16_t>(d.y, outs);
                            std::size_t differ = 0;
                            for (std::size_t i = 0; i < outs; ++i)
                                differ += y[i] != yr[i];
                            EXPECT_EQ(differ, 0u) << what << ": outputs differing from the row-order kernel's";
                        }
                    }
                }
}

TEST(GpuW4a8Stream, TheCopyIsTheW4a16CopyWithEachWordsNibblesSplit)
{
    REQUIRE_GPU();
    // N not a multiple of 16 (the padded rows), two groups; both copies of the same operands, read
    // back whole: the codes' words through w4a8SplitNibbles, the metadata byte for byte.
    const Operands o = streamOperands(1, 40, 512, 256, false, false, 0x5A9ull);
    Device d(o);
    L::W4a16Problem t;
    t.packed = d.p.packed, t.scales = d.p.scales, t.zeros = d.p.zeros;
    t.n = o.n, t.k = o.k, t.group = o.group;
    const std::size_t bytes = L::w4a16TileBytes(t),
                      codeBytes = static_cast<std::size_t>((o.n + 15) / 16 * (o.k / 128)) * 1024;
    ASSERT_GT(bytes, codeBytes);
    DevBuf a16(bytes), a8(bytes);
    L::w4a16TileReorder(t, a16.p, nullptr);
    L::w4a8TileReorder(t, a8.p, nullptr);
    CU(cudaDeviceSynchronize());
    std::vector<std::uint32_t> h16(bytes / 4), h8(bytes / 4);
    CU(cudaMemcpy(h16.data(), a16.p, bytes, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(h8.data(), a8.p, bytes, cudaMemcpyDeviceToHost));
    std::size_t moved = 0;
    for (std::size_t i = 0; i < bytes / 4; ++i) {
        const std::uint32_t expect = i < codeBytes / 4 ? gm::w4a8SplitNibbles(h16[i]) : h16[i];
        ASSERT_EQ(h8[i], expect) << "word " << i << (i < codeBytes / 4 ? " (codes)" : " (metadata)");
        moved += h8[i] != h16[i];
    }
    EXPECT_GT(moved, codeBytes / 8) << "random codes: most words change order";
}

TEST(GpuW4a8Stream, LongKAtSixteenTokens)
{
    REQUIRE_GPU();
    for (const bool fp8 : {false, true})
        for (const std::int64_t group : {std::int64_t(128), std::int64_t(14336)}) {
            const Operands o = streamOperands(16, 136, 14336, group, fp8, false, 0x14336ull + group + (fp8 ? 1 : 0));
            Device d(o);
            Copy copy(d, o);
            CU(cudaDeviceSynchronize());
            const HostX hx = quantizeOnHost(o);
            std::vector<std::uint16_t> clustered, oneSlice;
            for (int r = 0; r < 5; ++r) {
                L::W4a8Tiling t;
                t.wgmma = 1;
                t.splitK = r == 0 ? 1 : r >= 3 ? 8 : 0; // 3, 4: eight slices summed in their cluster, twice
                t.warps = r == 2 ? 16 : 4;
                t.reduce = r >= 3 ? 2 : 0;
                const L::W4a8Launch l = L::w4a8Fused(d.p, t, d.ws.p, d.cnt.p, nullptr);
                CU(cudaDeviceSynchronize());
                EXPECT_TRUE(l.streamed) << "the launcher's choice with the copy given";
                const auto y = d.read<std::uint16_t>(d.y, 16 * 136);
                if (r == 0)
                    oneSlice = y;
                else if (!fp8 && group == 14336) // per channel INT8: exact partials, the same bits at any split
                    EXPECT_EQ(y, oneSlice) << "split " << l.splitK << " warps " << l.warps
                                           << (l.clusterReduce ? " (cluster sum)" : " (atomics)");
                std::string where;
                EXPECT_LE(worstOfBound(o, hx, y, where), 1.0)
                    << (fp8 ? "E4M3" : "INT8") << " group " << group << " split " << l.splitK << " warps " << l.warps
                    << (l.clusterReduce ? " (cluster sum)" : "") << " at " << where;
                if (r >= 3 && sm90()) {
                    EXPECT_TRUE(l.clusterReduce && l.splitK == 8);
                    if (r == 3)
                        clustered = y;
                    else
                        EXPECT_EQ(y, clustered) << (fp8 ? "E4M3" : "INT8") << " group " << group
                                                << ": the cluster sum changed its bits between launches";
                }
            }
            EXPECT_TRUE(d.workspaceClean());
        }
}

TEST(GpuW4a8Stream, WarpgroupKernelEqualsTheRowOrderBitsAtEverySplitAndStaysWithinTheBound)
{
    // The warpgroup kernel (gemm_w4a8_wgmma.cu: wgmma m64n16k32 with W's operands from registers and
    // X̂ through a shared-memory ring) sums the same exact INT32 products per output and finishes
    // them as the mma.sync kernels do: its outputs are the row-order kernel's one-slice bits at
    // every split, either sum of the slices, 1 or 2 chunks a step, M = 9 … 16, N not a multiple of
    // 64 (warps past the last tile), K up to the lab's 14336.
    REQUIRE_GPU();
    {
        const Operands o = streamOperands(16, 64, 512, 512, false, false, 7);
        Device d(o);
        if (const std::string why = L::w4a8WgmmaRefusal(d.p); !why.empty())
            GTEST_SKIP() << why;
    }
    struct Shape {
        std::int64_t n, k;
    };
    int run = 0;
    for (const Shape sh : {Shape{72, 1024}, Shape{200, 512}, Shape{40, 2048}, Shape{136, 14336}})
        for (const std::int64_t m : {9, 12, 16}) {
            const Operands o = streamOperands(m, sh.n, sh.k, sh.k, false, run % 2 == 1, 0x3A90ull + run);
            Device d(o);
            Copy copy(d, o);
            CU(cudaDeviceSynchronize());
            const HostX hx = quantizeOnHost(o);
            const std::size_t outs = static_cast<std::size_t>(m * sh.n);
            L::W4a8Tiling r;
            r.kernel = 1, r.splitK = 1;
            L::w4a8Fused(d.p, r, d.ws.p, d.cnt.p, nullptr);
            CU(cudaDeviceSynchronize());
            const auto yr = d.read<std::uint16_t>(d.y, outs);
            for (const int split : {1, 3, 8, 0})
                for (const int reduce : {2, 0}) {
                    L::W4a8Tiling t;
                    t.kernel = 2, t.wgmma = 2, t.splitK = split, t.reduce = reduce;
                    t.chunksAhead = 1 + run % 2;
                    ++run;
                    const L::W4a8Launch l = L::w4a8Fused(d.p, t, d.ws.p, d.cnt.p, nullptr);
                    CU(cudaDeviceSynchronize());
                    const std::string what = "M=" + std::to_string(m) + " N=" + std::to_string(sh.n) +
                                             " K=" + std::to_string(sh.k) + " split " + std::to_string(l.splitK) +
                                             " chunks a step " + std::to_string(l.chunksAhead) +
                                             (l.clusterReduce ? " (cluster sum)" : " (atomics)");
                    EXPECT_TRUE(l.wgmma && l.streamed) << what;
                    EXPECT_EQ(l.warps, 4) << what;
                    EXPECT_EQ(l.chunksAhead, t.chunksAhead) << what;
                    EXPECT_EQ(l.clusterReduce, reduce == 2 && l.splitK > 1 && l.splitK <= 8) << what;
                    const auto y = d.read<std::uint16_t>(d.y, outs);
                    std::size_t differ = 0;
                    for (std::size_t i = 0; i < outs; ++i)
                        differ += y[i] != yr[i];
                    EXPECT_EQ(differ, 0u) << what << ": outputs differing from the row-order kernel's";
                    std::string where;
                    EXPECT_LE(worstOfBound(o, hx, y, where), 1.0) << what << " at " << where;
                    EXPECT_TRUE(d.workspaceClean()) << what << ": the last block re-zeroes the workspace";
                }
        }
}

TEST(GpuW4a8Stream, TheWarpgroupKernelIsTheLaunchersChoiceWhereItRunsAndRefusesElsewhere)
{
    REQUIRE_GPU();
    const Operands pc = streamOperands(16, 64, 512, 512, false, false, 8);
    Device d(pc);
    Copy copy(d, pc);
    const std::string why = L::w4a8WgmmaRefusal(d.p);
    if (why.find("not in this build") != std::string::npos || why.find("sm_90 devices only") != std::string::npos) {
        // without it the launcher keeps the mma.sync kernel, and asking for it throws with the reason
        EXPECT_FALSE(L::w4a8Fused(d.p, {}, d.ws.p, d.cnt.p, nullptr).wgmma);
        L::W4a8Tiling t;
        t.kernel = 2, t.wgmma = 2;
        EXPECT_THROW(L::w4a8Fused(d.p, t, d.ws.p, d.cnt.p, nullptr), GpuError);
        CU(cudaDeviceSynchronize());
        GTEST_SKIP() << why;
    }
    EXPECT_EQ(why, "");
    EXPECT_TRUE(L::w4a8Fused(d.p, {}, d.ws.p, d.cnt.p, nullptr).wgmma) << "INT8 per channel, 16 tokens";
    L::W4a8Tiling mma;
    mma.wgmma = 1;
    EXPECT_FALSE(L::w4a8Fused(d.p, mma, d.ws.p, d.cnt.p, nullptr).wgmma) << "asked for the mma.sync kernel";
    CU(cudaDeviceSynchronize());
    L::W4a8Tiling ask;
    ask.kernel = 2, ask.wgmma = 2;
    // 8 tokens, groups, E4M3: the mma.sync kernel by default; asked for, a refusal naming the reason
    struct Case {
        std::int64_t m, group;
        bool fp8;
        const char *reason;
    };
    for (const Case c : {Case{8, 512, false, "9 to 16 tokens"}, Case{16, 128, false, "per channel only"},
                         Case{16, 512, true, "per channel only"}}) {
        const Operands o = streamOperands(c.m, 64, 512, c.group, c.fp8, false, 9 + c.m);
        Device e(o);
        Copy ce(e, o);
        EXPECT_NE(L::w4a8WgmmaRefusal(e.p).find(c.reason), std::string::npos) << L::w4a8WgmmaRefusal(e.p);
        const L::W4a8Launch l = L::w4a8Fused(e.p, {}, e.ws.p, e.cnt.p, nullptr);
        EXPECT_TRUE(l.streamed && !l.wgmma) << c.reason;
        EXPECT_THROW(L::w4a8Fused(e.p, ask, e.ws.p, e.cnt.p, nullptr), GpuError) << c.reason;
        CU(cudaDeviceSynchronize());
    }
}

TEST(GpuW4a8Stream, TheLaunchersChoiceAndTheRefusals)
{
    REQUIRE_GPU();
    // Group 64: the row-order kernel runs by default; asked for, the streaming kernel refuses.
    {
        const Operands o = streamOperands(4, 64, 512, 64, false, false, 3);
        Device d(o);
        d.p.tilePacked = d.w.p; // any non-null copy: the group decides first
        EXPECT_FALSE(L::w4a8Fused(d.p, {}, d.ws.p, d.cnt.p, nullptr).streamed);
        EXPECT_NE(L::w4a8TileRefusal(d.p).find("multiple of 128"), std::string::npos) << L::w4a8TileRefusal(d.p);
        L::W4a8Tiling t;
        t.kernel = 2;
        EXPECT_THROW(L::w4a8Fused(d.p, t, d.ws.p, d.cnt.p, nullptr), GpuError);
        CU(cudaDeviceSynchronize());
    }
    // Group 128 without the copy: the row-order kernel by default; asked for, a refusal naming the copy.
    {
        const Operands o = streamOperands(4, 64, 512, 128, true, false, 4);
        Device d(o);
        EXPECT_FALSE(L::w4a8Fused(d.p, {}, d.ws.p, d.cnt.p, nullptr).streamed);
        EXPECT_NE(L::w4a8TileRefusal(d.p).find("tile-ordered copy"), std::string::npos) << L::w4a8TileRefusal(d.p);
        L::W4a8Tiling t;
        t.kernel = 2;
        EXPECT_THROW(L::w4a8Fused(d.p, t, d.ws.p, d.cnt.p, nullptr), GpuError);
        Copy copy(d, o);
        EXPECT_EQ(L::w4a8TileRefusal(d.p), "");
        EXPECT_TRUE(L::w4a8Fused(d.p, {}, d.ws.p, d.cnt.p, nullptr).streamed);
        CU(cudaDeviceSynchronize());
        // X's codes off 16-byte alignment: the row-order kernel by default, a refusal when asked.
        L::W4a8Problem shifted = d.p;
        shifted.xq = static_cast<const char *>(d.p.xq) + 8;
        EXPECT_NE(L::w4a8TileRefusal(shifted).find("16-byte aligned"), std::string::npos)
            << L::w4a8TileRefusal(shifted);
        // M above the fused kernels' 16: the fused refusal's reason.
        d.p.m = 17;
        EXPECT_NE(L::w4a8TileRefusal(d.p).find("M ≤ 16"), std::string::npos) << L::w4a8TileRefusal(d.p);
    }
    // INT8 per channel without X's chunk sums: the row-order kernel by default; asked for, a refusal
    // naming them. (With groups the kernel sums Σx itself: the sums are not needed.)
    {
        const Operands o = streamOperands(9, 64, 512, 512, false, false, 5);
        Device d(o);
        Copy copy(d, o);
        EXPECT_TRUE(L::w4a8Fused(d.p, {}, d.ws.p, d.cnt.p, nullptr).streamed);
        d.p.xSums = nullptr;
        EXPECT_FALSE(L::w4a8Fused(d.p, {}, d.ws.p, d.cnt.p, nullptr).streamed);
        EXPECT_NE(L::w4a8TileRefusal(d.p).find("chunk sums"), std::string::npos) << L::w4a8TileRefusal(d.p);
        L::W4a8Tiling t;
        t.kernel = 2;
        EXPECT_THROW(L::w4a8Fused(d.p, t, d.ws.p, d.cnt.p, nullptr), GpuError);
        const Operands g = streamOperands(9, 64, 512, 128, false, false, 6);
        Device dg(g);
        Copy copyG(dg, g);
        dg.p.xSums = nullptr;
        EXPECT_TRUE(L::w4a8Fused(dg.p, {}, dg.ws.p, dg.cnt.p, nullptr).streamed);
        CU(cudaDeviceSynchronize());
    }
}

TEST(GpuW4a8Stream, XsChunkSumsArePrefixSumsOfTheCodesFromTheQuantizerAndFromTheCodes)
{
    REQUIRE_GPU();
    // K = 14336 (112 chunks: four rounds of the scan, the last partial) and 4096 + 128 (33: a round
    // of one), M = 1, 9 and 16; the codes read back, the prefix sums summed on the host per token.
    for (const std::int64_t k : {std::int64_t(14336), std::int64_t(4224)})
        for (const std::int64_t m : {1, 9, 16}) {
            const Operands o = streamOperands(m, 16, k, k, false, false, 0xC5u + m + k);
            Device d(o);
            const auto codes = d.read<std::int8_t>(d.xq, static_cast<std::size_t>(m * k));
            const std::size_t entries = L::w4a8XSumsBytes(k) / 4;
            ASSERT_EQ(entries, static_cast<std::size_t>(16 * (k / 128 + 1)));
            const auto fromQuantizer = d.read<int>(d.sums, entries);
            DevBuf again(L::w4a8XSumsBytes(k));
            CU(cudaMemset(again.p, 0x7F, L::w4a8XSumsBytes(k)));
            L::w4a8XSums(d.xq.p, m, k, static_cast<int *>(again.p), nullptr);
            CU(cudaDeviceSynchronize());
            const auto fromCodes = d.read<int>(again, entries);
            long long nonzero = 0;
            for (std::int64_t t = 0; t < m; ++t) {
                long long run = 0;
                for (std::int64_t c = 0; c <= k / 128; ++c) {
                    const std::size_t at = static_cast<std::size_t>(16 * c + t);
                    ASSERT_EQ(fromQuantizer[at], run) << "k " << k << " m " << m << " token " << t << " chunk " << c;
                    ASSERT_EQ(fromCodes[at], run) << "k " << k << " m " << m << " token " << t << " chunk " << c;
                    nonzero += run != 0;
                    if (c < k / 128)
                        for (std::int64_t i = 0; i < 128; ++i)
                            run += codes[static_cast<std::size_t>(t * k + 128 * c + i)];
                }
            }
            EXPECT_GT(nonzero, 0); // real sums, not a zeroed buffer
            // entries of tokens ≥ M are not written
            if (m < 16) {
                EXPECT_EQ(fromCodes[static_cast<std::size_t>(16 * 1 + m)], 0x7F7F7F7F);
            }
        }
    // The refusals: M above 16, K not a multiple of 128, codes off 16-byte alignment, E4M3 with sums.
    DevBuf codes(17 * 256 + 16), sums(L::w4a8XSumsBytes(256));
    EXPECT_THROW(L::w4a8XSums(codes.p, 17, 256, static_cast<int *>(sums.p), nullptr), GpuError);
    EXPECT_THROW(L::w4a8XSums(codes.p, 4, 200, static_cast<int *>(sums.p), nullptr), GpuError);
    EXPECT_THROW(L::w4a8XSums(static_cast<char *>(codes.p) + 8, 4, 256, static_cast<int *>(sums.p), nullptr), GpuError);
    DevBuf x(2 * 4 * 256), xs(16);
    EXPECT_THROW(
        L::w4a8QuantizeX(x.p, 4, 256, true, codes.p, static_cast<float *>(xs.p), static_cast<int *>(sums.p), nullptr),
        GpuError);
    CU(cudaDeviceSynchronize());
}
