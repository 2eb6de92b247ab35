// SPDX-License-Identifier: MIT
// The GEMM timing lab's fused W4A8 points (issue 43; CUDA builds only): beside the unfused
// w4a8-int8 / w4a8-fp8 paths (unpack / convert kernel + cuBLASLt + epilogue,
// engine_gemmlab_quant.cpp) the same packed weights, per-channel scales, zero points and X's codes
// with their token scales through the fused kernel (kernels_w4a8.h) for M ≤ 16, timed the same
// way (device events, rotating weight copies, median), every output checked on the device against an FP64 product within the
// bound of docs/numerics.md "Fused W4A8 GEMM". Above M = 16 the series takes the large-M route's
// time (w4a8-int8: z folded into the INT8 weight, engine_gemmlab_quant.cpp, where the zero points
// allow; else, and for w4a8-fp8, the unfused route's) and the note says so.
#include "gemmlab_lt.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "device_pool.h"
#include "gemm/kernels_w4a16.h"
#include "gemm/kernels_w4a8.h"
#include "util/error.h"

namespace quantscope::gpu::lab2 {

std::optional<GemmPoint> timeFusedW4a8(Engine::Impl &I, const GemmBenchRequest &request, const QuantizedTensor &q,
                                       bool fp8, const std::vector<std::shared_ptr<void>> &weights, const float *scales,
                                       const std::int8_t *zeros, const void *xCodes, const float *tokenScales,
                                       std::int64_t m, std::int64_t group, const GemmPoint &routed,
                                       std::vector<Engine::GemmLabCheck> &checks, std::string &why)
{
    const std::int64_t n = request.n, k = request.k;
    GemmPoint pt = routed;
    pt.format = fp8 ? kW4a8Fp8FusedFormat : kW4a8Int8FusedFormat;
    pt.epilogueUs = 0;
    char buf[600];
    if (m > launch::kW4a8FusedMaxM) {                // the routed point: the large-M route's time, labelled
        const bool own = routed.format == pt.format; // the folded INT8 route, checked by its caller
        pt.timeUs = routed.timeUs;
        pt.timeMinUs = routed.timeMinUs, pt.timeMaxUs = routed.timeMaxUs;
        pt.timeP10Us = routed.timeP10Us, pt.timeP90Us = routed.timeP90Us;
        pt.coldUs = routed.coldUs;
        pt.epilogueUs = routed.epilogueUs;
        setGemmRates(pt, 0);
        if (own)
            std::snprintf(buf, sizeof buf,
                          "routed: M > %lld runs the large-M route: ", static_cast<long long>(launch::kW4a8FusedMaxM));
        else
            std::snprintf(buf, sizeof buf,
                          "routed: M > %lld runs the unfused route (%s + cuBLASLt %s GEMM); the time of that point",
                          static_cast<long long>(launch::kW4a8FusedMaxM),
                          fp8 ? "INT4→E4M3 convert kernel" : "INT4→INT8 unpack kernel", fp8 ? "FP8" : "INT8");
        pt.note = own ? buf + routed.note : std::string(buf);
        if (!own && !checks.empty()) // its output is the unfused point's, checked there: one check a point
            checks.push_back({pt.format, m, checks.back().samples, checks.back().worst});
        return pt;
    }
    why = launch::w4a8FusedRefusal(fp8, m, k, group);
    if (why.empty())
        why = launch::w4a8ZerosRefusal(fp8, q.zeros.data(), q.zeros.size());
    if (!why.empty())
        return std::nullopt;
    const auto s = static_cast<cudaStream_t>(I.stream);
    const std::string what = "the GEMM lab's fused w4a8 operands";
    auto y = poolGet(I.pool, 2u * static_cast<std::size_t>(m * n), what);
    launch::W4a8Problem p;
    p.scales = scales;
    p.zeros = zeros;
    p.xq = xCodes;
    p.xScale = tokenScales;
    p.y = y.get();
    p.m = m, p.n = n, p.k = k, p.group = group;
    p.fp8 = fp8;
    // INT8 per channel: X's chunk sums, which the streaming kernel reads for its zero-point term
    // (with groups it sums Σx itself). They are an output of X's quantizer (w4a8QuantizeX writes them
    // with the codes), made here from the codes once, outside the timed launches like the codes
    // themselves; unaligned codes run the row-order kernel, which needs none.
    std::shared_ptr<void> xSums;
    if (!fp8 && group == k && reinterpret_cast<std::uintptr_t>(xCodes) % 16 == 0) {
        xSums = poolGet(I.pool, launch::w4a8XSumsBytes(k), what);
        launch::w4a8XSums(xCodes, m, k, static_cast<int *>(xSums.get()), s);
        p.xSums = static_cast<const int *>(xSums.get());
    }
    const std::size_t wsBytes = launch::w4a8WorkspaceBytes(p), cntBytes = launch::w4a8CounterBytes(p);
    auto ws = poolGet(I.pool, wsBytes, what), cnt = poolGet(I.pool, cntBytes, what);
    QS_GPU_CHECK(cudaMemsetAsync(ws.get(), 0, wsBytes, s));
    QS_GPU_CHECK(cudaMemsetAsync(cnt.get(), 0, cntBytes, s));
    launch::W4a8Launch used;
    const int copies = static_cast<int>(weights.size());
    const int stages = 1;
    // The streaming kernel reads a tile-ordered copy of the codes and metadata (w4a8TileReorder:
    // the W4A16 streaming kernel's layout, each word's nibbles split), made once per rotating weight
    // copy as a serving engine repacks at load, outside the timed launches (the first one's time
    // goes into the note).
    // Groups that are multiples of 128 with zero points the copy keeps exact (≤ 120).
    std::vector<std::shared_ptr<void>> tileOrdered;
    double tileUs = -1;
    launch::W4a16Problem tp;
    tp.scales = scales, tp.zeros = zeros, tp.n = n, tp.k = k, tp.group = group;
    if (group % 128 == 0 && launch::w4a16TileBytes(tp) > 0 && launch::w4a16ZerosInRange(q.zeros.data(), q.zeros.size()))
        tileOrdered = derivedCopies(
            I, weights, launch::w4a16TileBytes(tp),
            [&](const void *src, void *dst) {
                tp.packed = static_cast<const std::uint8_t *>(src);
                launch::w4a8TileReorder(tp, dst, s);
            },
            &tileUs, what);
    auto useCopy = [&](int c) {
        p.packed = static_cast<const std::uint8_t *>(weights[static_cast<std::size_t>(c)].get());
        p.tilePacked = tileOrdered.empty() ? nullptr : tileOrdered[static_cast<std::size_t>(c)].get();
    };
    // With the copy, the candidates are measured (fastestOf on the rotating copies, 3 interleaved
    // rounds of 3 launches, the lowest median): the streaming kernel with 4 warps a block, 1 or 2
    // chunks a step, the launcher's K slices and 8, 11, 14 (the H200's best at N = 4096,
    // K = 14336); 8 warps, 2 chunks a step; 16 warps, 1 chunk a step (each at the launcher's slices
    // and 8); 4 warps, 1 chunk a step at splits 8 and 14 with the slices summed in their cluster
    // instead of by atomics; 4 warps with 2 chunks a step and 8 warps with 1, split 8, in the
    // cluster; and the row-order kernel on W as stored. The note lists every median.
    launch::W4a8Tiling tiling;
    std::string tuned;
    if (!tileOrdered.empty()) {
        std::vector<launch::W4a8Tiling> cands;
        for (const int ahead : {1, 2})
            for (const int split : {0, 8, 11, 14}) {
                launch::W4a8Tiling t;
                t.kernel = 2, t.warps = 4, t.chunksAhead = ahead, t.splitK = split;
                cands.push_back(t);
            }
        for (const int warps : {8, 16})
            for (const int split : {0, 8}) {
                launch::W4a8Tiling t;
                t.kernel = 2, t.warps = warps, t.chunksAhead = warps == 8 ? 2 : 1, t.splitK = split;
                cands.push_back(t);
            }
        { // 8 warps, 1 chunk a step, split 8 (with 16 warps' launch bounds: the H200's best at M = 16)
            launch::W4a8Tiling t;
            t.kernel = 2, t.warps = 8, t.chunksAhead = 1, t.splitK = 8;
            cands.push_back(t);
        }
        // 4 warps, 1 chunk a step at splits 8 and 14 with the slices summed in their thread-block
        // cluster instead of by atomics (the H200's best at M = 8 and 16 with groups); per channel
        // (the exact INT32 form) also 4 warps with 2 chunks a step and 8 warps with 1, split 8, in
        // the cluster (its best at M = 8 and 16, bench/results/gpu-h200-2026-11-30e/).
        for (const int split : {8, 14}) {
            launch::W4a8Tiling t;
            t.kernel = 2, t.warps = 4, t.chunksAhead = 1, t.splitK = split, t.reduce = 2;
            cands.push_back(t);
        }
        for (const int warps : {4, 8}) {
            launch::W4a8Tiling t;
            t.kernel = 2, t.warps = warps, t.chunksAhead = warps == 4 ? 2 : 1, t.splitK = 8, t.reduce = 2;
            cands.push_back(t);
        }
        for (auto &c : cands) // the mma.sync kernel: the warpgroup one is asked for below
            c.wgmma = 1;
        // INT8 per channel at 9 … 16 tokens on sm_90: the warpgroup kernel, 1 chunk a step at the
        // launcher's K slices and at 8 and 10, 2 a step at 7, each summed in the cluster (the H200's
        // best at M = 16: bench/results/gpu-h200-2026-11-30f/)
        if (launch::w4a8WgmmaRefusal(p).empty())
            for (const auto &[ahead, split] : {std::pair{1, 0}, std::pair{1, 8}, std::pair{1, 10}, std::pair{2, 7}}) {
                launch::W4a8Tiling t;
                t.kernel = 2, t.wgmma = 2, t.chunksAhead = ahead, t.splitK = split, t.reduce = 2;
                cands.push_back(t);
            }
        cands.emplace_back();
        cands.back().kernel = 1;
        tiling = fastestCandidate(
            cands,
            [&](const launch::W4a8Tiling &t, int i) {
                useCopy(i % copies);
                launch::w4a8Fused(p, t, ws.get(), cnt.get(), s);
            },
            [](const launch::W4a8Tiling &t) {
                if (t.kernel == 1)
                    return std::string("row-order on W as stored");
                return (t.wgmma == 2 ? std::string("warpgroup (wgmma), ")
                                     : "streaming " + std::to_string(t.warps) + " warps, ") +
                       std::to_string(t.chunksAhead) + " chunk(s) a step, split " +
                       (t.splitK > 0 ? std::to_string(t.splitK) : std::string("auto")) +
                       (t.reduce == 2 ? " cluster sum" : "");
            },
            s, tuned);
    }
    const Step step = [&](int rep, const std::vector<cudaEvent_t> &mk) {
        useCopy(rep % copies);
        QS_GPU_CHECK(cudaEventRecord(mk[0], s));
        used = launch::w4a8Fused(p, tiling, ws.get(), cnt.get(), s);
        QS_GPU_CHECK(cudaEventRecord(mk[1], s));
        return true;
    };
    std::vector<double> runs;
    const auto t = timeStep(step, stages, request.warmup, request.repeats, s, &runs);
    if (!t) {
        why = "the fused kernel was refused";
        return std::nullopt;
    }
    { // the check: one more step on copy 0, then every output in FP64
        Events ev(static_cast<std::size_t>(stages) + 1);
        step(0, ev.ev);
    }
    auto res = poolGet(I.pool, 16, what);
    auto *worstDev = static_cast<double *>(res.get());
    auto *countDev = reinterpret_cast<unsigned long long *>(static_cast<char *>(res.get()) + 8);
    launch::w4a8CheckFp64(p, worstDev, countDev, s);
    double worst = 0;
    unsigned long long count = 0;
    QS_GPU_CHECK(cudaMemcpyAsync(&worst, worstDev, 8, cudaMemcpyDeviceToHost, s));
    QS_GPU_CHECK(cudaMemcpyAsync(&count, countDev, 8, cudaMemcpyDeviceToHost, s));
    QS_GPU_CHECK(cudaStreamSynchronize(s));

    setTimeSpread(pt, runs); // the fused kernel's own runs, not the routed point's
    pt.coldUs = t->second;
    pt.padded = false;
    pt.paddedM = m;
    setGemmRates(pt, 0);
    const std::string groupName = group == k ? "per-channel" : "g" + std::to_string(group);
    // how both INT8 per-channel streaming kernels sum and finish (the exact form)
    static constexpr const char *kExactPerChannel =
        "an exact INT32 sum over each K slice, the slices' sums added as integers, then "
        "s_tok·(s·(acc − (z + 8)·Σx)) once, Σx from X's chunk sums";
    const std::string layout =
        used.streamed
            ? "streaming on the tile-ordered copy, " + std::to_string(used.warps) + " warps a block, " +
                  (used.clusterReduce ? "the K slices summed in their thread-block cluster's shared memory, " : "")
            : std::string("row-order on W as stored, ");
    if (fp8)
        std::snprintf(buf, sizeof buf,
                      "fused: one kernel, mma.sync m16n8k32 E4M3 (INT4 → E4M3 q − z in registers: lop3, sub.f16x2, "
                      "cvt, prmt; FP32 sums of ≤ 128 k scaled per group, %s), swapped (Yᵀ = Ŵ·Xᵀ: 16 rows of W a warp "
                      "as the mma's M, %d token tile(s) of 8, %d chunk(s) of W ahead), %ssplit-K %d, %d blocks",
                      groupName.c_str(), used.tokenTiles, used.chunksAhead, layout.c_str(), used.splitK, used.blocks);
    else if (used.wgmma)
        std::snprintf(buf, sizeof buf,
                      "fused: one kernel, wgmma m64n16k32 s8 (one warpgroup a block: INT4 → INT8 q + 8 in registers "
                      "as the register operand A, 64 rows of W; X̂ a step ahead through a shared-memory ring as B; "
                      "%s; %s), %d chunk(s) of W a step, %ssplit-K %d, %d blocks",
                      kExactPerChannel, groupName.c_str(), used.chunksAhead, layout.c_str(), used.splitK, used.blocks);
    else if (used.streamed && group == k)
        std::snprintf(buf, sizeof buf,
                      "fused: one kernel, mma.sync m16n8k32 s8 (INT4 → INT8 q + 8 in registers: lop3 and a shift on "
                      "the split-nibble copy; %s; %s), swapped (Yᵀ = Ŵ·Xᵀ: 16 rows of W a warp as the mma's M, %d "
                      "token tile(s) of 8, %d chunk(s) of W ahead), %ssplit-K %d, %d blocks",
                      kExactPerChannel, groupName.c_str(), used.tokenTiles, used.chunksAhead, layout.c_str(),
                      used.splitK, used.blocks);
    else
        std::snprintf(buf, sizeof buf,
                      "fused: one kernel, mma.sync m16n8k32 s8 (INT4 → INT8 q + 8 in registers: lop3, and prmt on W "
                      "as stored or a shift on the split-nibble copy; exact "
                      "INT32 sums per group piece and Σx by dp4a + shuffles, s·(acc − (z + 8)·Σx) in "
                      "FP32, %s), swapped (Yᵀ = Ŵ·Xᵀ: 16 rows of W a warp as the mma's M, %d token tile(s) of 8, "
                      "%d chunk(s) of W ahead), %ssplit-K %d, %d blocks",
                      groupName.c_str(), used.tokenTiles, used.chunksAhead, layout.c_str(), used.splitK, used.blocks);
    pt.note = buf;
    if (tileUs >= 0) {
        std::snprintf(buf, sizeof buf, "; tile-ordered copy written once per weight in %.1f µs (not in the time)",
                      tileUs);
        pt.note += buf + tuned;
    }
    std::snprintf(buf, sizeof buf,
                  "; output %s against the FP64 Ŵ·X̂ on every element (%llu outputs), worst %.3g of "
                  "the bound",
                  worst <= 1.0 && count == static_cast<unsigned long long>(m * n) ? "checked" : "CHECK FAILED", count,
                  worst);
    pt.note += buf;
    if (copies > 1) {
        std::snprintf(buf, sizeof buf, "; %d rotating weight copies", copies);
        pt.note += buf;
    }
    checks.push_back({pt.format, m, static_cast<int>(std::min<unsigned long long>(count, 1u << 30)), worst});
    return pt;
}

} // namespace quantscope::gpu::lab2
