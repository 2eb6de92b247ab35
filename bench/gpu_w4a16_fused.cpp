// SPDX-License-Identifier: MIT
// The fused W4A16 GEMM (issue 43) on the device, as `quantscope-cli gemm-bench --formats bf16,w4a16`
// runs it (runGemmBench on the GPU backend), and its MoE launch:
//   1. N = 4096, K = 14336 (--rows N --cols K), g128 (the engine's quantizer on a seeded
//      N(0, 0.02) tensor): BF16 cuBLASLt, unfused W4A16 (dequantize + cuBLASLt) and the fused
//      kernel over --m-sweep, each with its bytes per token, weight-read roofline fraction and
//      speed-up over BF16; then g32, g64 and per channel at --group-m;
//   2. MoE: 16 experts × (M = 16, N = 2048, K = 7168) g128, the fused kernel as one launch over
//      all experts (blockIdx.z) and as a loop of 16 launches; expert 0's outputs checked on every
//      element against FP64 (the bar: batched ≤ 60 µs), with the launcher's choice (the streaming
//      kernel on the tile-ordered copy), the streaming kernel with 1 and 2 chunks a step and with
//      8 and 16 warps a block, the
//      swapped kernel, the tiled kernel's 16 × 128 and 16 × 256 tiles and the CUTLASS tiles;
//   3. the fused kernels side by side at M ∈ {1, 2, 4, 8, 16}, g128 and g32: the original
//      (tokens as the mma's M), the swapped small-M kernel (rows of W as the mma's M), the
//      streaming kernel (the swapped arithmetic on a tile-ordered copy of W) and the swapped kernel pipelined (W through a cp.async ring in shared memory; 4 and 8 warps a
//      block); at M ∈ {32, 64, 128, 256} the original and the tiled kernel (block tiles of X and
//      W through a cp.async ring); each with the launcher's tiling and checked against FP64 on
//      every element;
//   4. --sweep: the original kernel's tiling (split-K × rows per warp) at M ∈ {1, 16, 64, 128},
//      the swapped kernel's (split-K × rows per warp 16, 32 × chunks ahead 1, 2, 4) at M = 1, 16
//      the streaming one's (split-K × 1, 2 chunks a step) and the pipelined one's (split-K × ring
//      of 4, 8 chunks; 8 warps: ring 4) at M = 1, 8, 16;
//      the tiled kernel's tiles 1…8 × 3, 4 stages at M ∈ {32, 64, 128, 256}, split-K 1, 2, 4, 8
//      for tiles 3…6 at M = 64, 128, and the MoE batch's tiles 1, 7, 2 × stages × split-K.
// Usage: qs_bench_gpu_w4a16_fused [--out DIR] [--rows N] [--cols K] [--repeats R] [--warmup W]
//            [--m-sweep LIST] [--group-m LIST] [--split S] [--rows-per-warp R] [--sweep]
// bench/gemm_w4a16_torch.py times PyTorch's tinygemm and torch.matmul on the same shapes.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "gemm_bench_common.h"
#include "engine/gemm_bench_device.h"
#include "engine/registry.h"
#include "kernels/gemm/kernels_w4a16.h"
#include "register.h"

using namespace quantscope;
namespace L = quantscope::gpu::launch;

namespace {

/// One MoE variant: a label and the tiling of its launches.
struct MoeVariant {
    std::string name;
    L::W4a16Tiling tiling;
};

/// MoE: E experts of seeded packed INT4 (g128), scales, zeros and BF16 X; per variant the fused
/// kernel as one batched launch (the first variant also as a loop of per-expert launches), median
/// µs; expert 0 checked after each variant's launch.
nlohmann::json moeFused(int E, long long m, long long n, long long k, int repeats, int warmup, bool &ok,
                        const std::vector<MoeVariant> &variants)
{
    const long long group = 128, groups = n * (k / group);
    std::mt19937_64 rng(0x43);
    std::vector<std::uint8_t> w(static_cast<std::size_t>(E * n * k / 2));
    std::vector<float> s(static_cast<std::size_t>(E * groups));
    std::vector<std::int8_t> z(s.size());
    std::vector<std::uint16_t> x(static_cast<std::size_t>(E * m * k));
    for (auto &b : w)
        b = static_cast<std::uint8_t>(rng());
    for (std::size_t i = 0; i < s.size(); ++i) {
        s[i] = 1e-3f * (1.0f + static_cast<float>(rng() % 1000) / 1000.0f);
        z[i] = static_cast<std::int8_t>(static_cast<int>(rng() % 16) - 8);
    }
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (auto &v : x) {
        const float f = normal(rng);
        std::uint32_t u;
        std::memcpy(&u, &f, 4);
        v = static_cast<std::uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16); // BF16, nearest even
    }
    void *dW, *dS, *dZ, *dX, *dY, *dWs, *dCnt, *dRes, *dMeta, *dReordered, *dTile;
    L::W4a16Problem p;
    p.m = m, p.n = n, p.k = k, p.group = group, p.experts = E;
    p.wStride = n * k / 2, p.sStride = groups, p.xStride = m * k, p.yStride = m * n;
    // The CUTLASS route's metadata (prepared below, once) and its workspace region, when it runs here.
    const bool cutlass = L::w4a16CutlassRefusal(p).empty();
    QS_BENCH_CK(cudaMalloc(&dMeta, std::max<std::size_t>(16, L::w4a16CutlassMetaBytes(p))));
    QS_BENCH_CK(cudaMalloc(&dReordered, w.size()));
    QS_BENCH_CK(cudaMalloc(&dTile, std::max<std::size_t>(16, L::w4a16TileBytes(p))));
    if (cutlass)
        p.cutlassMeta = dMeta;
    QS_BENCH_CK(cudaMalloc(&dW, w.size()));
    QS_BENCH_CK(cudaMalloc(&dS, 4 * s.size()));
    QS_BENCH_CK(cudaMalloc(&dZ, z.size()));
    QS_BENCH_CK(cudaMalloc(&dX, 2 * x.size()));
    QS_BENCH_CK(cudaMalloc(&dY, 2 * static_cast<std::size_t>(E * m * n)));
    QS_BENCH_CK(cudaMalloc(&dWs, L::w4a16WorkspaceBytes(p)));
    QS_BENCH_CK(cudaMalloc(&dCnt, L::w4a16CounterBytes(p)));
    QS_BENCH_CK(cudaMalloc(&dRes, 16));
    QS_BENCH_CK(cudaMemcpy(dW, w.data(), w.size(), cudaMemcpyHostToDevice));
    QS_BENCH_CK(cudaMemcpy(dS, s.data(), 4 * s.size(), cudaMemcpyHostToDevice));
    QS_BENCH_CK(cudaMemcpy(dZ, z.data(), z.size(), cudaMemcpyHostToDevice));
    QS_BENCH_CK(cudaMemcpy(dX, x.data(), 2 * x.size(), cudaMemcpyHostToDevice));
    QS_BENCH_CK(cudaMemset(dWs, 0, L::w4a16WorkspaceBytes(p)));
    QS_BENCH_CK(cudaMemset(dCnt, 0, L::w4a16CounterBytes(p)));
    p.packed = static_cast<const std::uint8_t *>(dW);
    p.scales = static_cast<const float *>(dS);
    p.zeros = static_cast<const std::int8_t *>(dZ);
    p.x = dX;
    p.y = dY;
    if (cutlass)
        L::w4a16CutlassPrepare(p, dMeta, nullptr);
    if (cutlass && L::w4a16CutlassShuffledRefusal(p).empty()) { // the reordered W of tiles 6…8
        L::w4a16CutlassReorder(p, dReordered, nullptr);
        p.cutlassPacked = dReordered;
    }
    if (L::w4a16TileBytes(p) > 0) { // the streaming kernel's tile-ordered copy (the launcher's choice at M ≤ 16)
        L::w4a16TileReorder(p, dTile, nullptr);
        p.tilePacked = dTile;
    }
    L::W4a16Launch used;
    L::W4a16Tiling tiling = variants.front().tiling;
    auto batched = [&] { used = L::w4a16Fused(p, tiling, dWs, dCnt, nullptr); };
    auto loop = [&] {
        for (int e = 0; e < E; ++e) {
            L::W4a16Problem one = p;
            one.experts = 1;
            one.packed += e * p.wStride;
            one.scales += e * p.sStride;
            one.zeros += e * p.sStride;
            one.x = static_cast<const std::uint16_t *>(dX) + e * p.xStride;
            one.y = static_cast<std::uint16_t *>(dY) + e * p.yStride;
            if (p.tilePacked)
                one.tilePacked = static_cast<const char *>(p.tilePacked) + e * L::w4a16TileBytes(one);
            L::w4a16Fused(one, tiling, dWs, dCnt, nullptr);
        }
    };
    auto time = [&](const std::function<void()> &f) { return bench::medianEventUs(f, repeats, warmup); };
    const double loopUs = time(loop);
    const double bytes = static_cast<double>(E) * (n * k / 2.0 + 5.0 * groups + 2.0 * m * k + 2.0 * m * n);
    nlohmann::json doc{{"experts", E},      {"m", m},         {"n", n},        {"k", k}, {"group", group},
                       {"loop_us", loopUs}, {"bytes", bytes}, {"bar_us", 60.0}};
    nlohmann::json all = nlohmann::json::array();
    for (const MoeVariant &v : variants) {
        tiling = v.tiling;
        if (tiling.kernel == 6 && (!cutlass || (tiling.nPerWarp >= 6 && !p.cutlassPacked))) {
            std::printf("MoE [%s]: not run (%s)\n", v.name.c_str(), L::w4a16CutlassRefusal(p).c_str());
            continue;
        }
        const double batchedUs = time(batched);
        batched();
        L::w4a16CheckFp64(p, 1, used.cutlass ? L::kW4a16CutlassWRel : 0.0, static_cast<double *>(dRes),
                          reinterpret_cast<unsigned long long *>(static_cast<char *>(dRes) + 8), nullptr,
                          used.cutlass ? L::kW4a16CutlassZRel : 0.0);
        double worst = 0;
        unsigned long long count = 0;
        QS_BENCH_CK(cudaMemcpy(&worst, dRes, 8, cudaMemcpyDeviceToHost));
        QS_BENCH_CK(cudaMemcpy(&count, static_cast<char *>(dRes) + 8, 8, cudaMemcpyDeviceToHost));
        const bool good = worst <= 1.0 && count == static_cast<unsigned long long>(m * n);
        ok = ok && good;
        char tile[96] = "";
        if (used.tiled)
            std::snprintf(tile, sizeof tile, ", tiled %d×%d tile %d, %d stages", used.bm, used.bn, used.tile,
                          used.chunksAhead);
        else if (used.streamed)
            std::snprintf(tile, sizeof tile, ", streaming, %d chunk(s) a step, %d warps", used.chunksAhead, used.warps);
        else if (used.cutlass)
            std::snprintf(tile, sizeof tile, ", CUTLASS tile %d (%d tokens × %d rows of W, %s)", used.tile, used.bm,
                          used.bn, used.splitK == 0 ? "stream-K" : "persistent");
        std::printf(
            "MoE fused W4A16 %d × (M=%lld, N=%lld, K=%lld) g128 [%s]: batched %.1f µs/step (split-K %d, %d "
            "blocks%s)%s; %.0f GB/s; expert 0 %s (%llu outputs, worst %.3g of the bound); bar (batched ≤ "
            "60 µs): %s\n",
            E, m, n, k, v.name.c_str(), batchedUs, used.splitK, used.blocks, tile,
            &v == &variants.front()
                ? (", loop of " + std::to_string(E) + " launches " + std::to_string(loopUs) + " µs/step").c_str()
                : "",
            bytes / (batchedUs * 1e-6) / 1e9, good ? "checked" : "CHECK FAILED", count, worst,
            batchedUs <= 60.0 ? "met" : "MISSED");
        nlohmann::json one{{"variant", v.name},          {"batched_us", batchedUs},   {"split_k", used.splitK},
                           {"blocks", used.blocks},      {"tiled", used.tiled},       {"tile", used.tile},
                           {"stages", used.chunksAhead}, {"check_worst", worst},      {"checked_outputs", count},
                           {"cutlass", used.cutlass},    {"streamed", used.streamed}, {"met", batchedUs <= 60.0}};
        if (&v == &variants.front())
            doc.update(one);
        all.push_back(one);
    }
    for (void *d : {dW, dS, dZ, dX, dY, dWs, dCnt, dRes, dMeta, dReordered, dTile})
        cudaFree(d);
    doc["variants"] = all;
    return doc;
}

} // namespace

int main(int argc, char **argv)
{
    std::vector<std::int64_t> groupMs = {1, 16, 128};
    int split = 0, rowsPerWarp = 0;
    const bench::FusedBenchArgs args =
        bench::parseFusedBenchArgs(argc, argv, {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 8192},
                                   [&](const std::string &a, const std::function<std::string()> &next) {
                                       if (a == "--group-m")
                                           groupMs = parseMSweep(next());
                                       else if (a == "--split")
                                           split = std::stoi(next());
                                       else if (a == "--rows-per-warp")
                                           rowsPerWarp = std::stoi(next());
                                       else
                                           return false;
                                       return true;
                                   });
    const bench::CommonOptions &opt = args.opt;
    const bool sweep = args.sweep;
    const Backend *gpu = bench::fusedBenchGpu(L::w4a16FusedBuilt(), "fused W4A16");
    if (!gpu)
        return 2;
    GemmBenchRequest q = bench::fusedLabRequest(args, {GemmFormat::Bf16, GemmFormat::W4a16});
    q.w4a16SplitK = split;
    q.w4a16RowsPerWarp = rowsPerWarp;
    const GemmBenchResult dense = bench::runPrintedLab(q);
    bool ok = bench::gemmPointsChecked(dense);
    nlohmann::json groupsDoc = nlohmann::json::object();
    for (const std::int64_t g : {std::int64_t(32), std::int64_t(64), std::int64_t(0)}) {
        GemmBenchRequest qg = q;
        qg.m = groupMs;
        qg.w4Group = g;
        qg.formats = {GemmFormat::W4a16};
        const GemmBenchResult r = runGemmBench(qg, DeviceChoice::Gpu);
        std::printf("group %s:\n", g == 0 ? "per channel" : std::to_string(g).c_str());
        bench::printGemmPoints(r);
        ok = ok && bench::gemmPointsChecked(r);
        groupsDoc[g == 0 ? "channel" : "g" + std::to_string(g)] = toJson(r);
    }
    // The kernels side by side (the launcher's tiling each): kernel 1 original, 2 swapped, 3 swapped
    // and pipelined (cp.async ring), 4 the same with 8 warps a block, 5 tiled.
    auto kernelName = [](int kernel) {
        return kernel == 1   ? "original"
               : kernel == 2 ? "swapped"
               : kernel == 3 ? "pipelined"
               : kernel == 4 ? "pipe-8w"
               : kernel == 6 ? "cutlass"
               : kernel == 7 ? "stream"
                             : "tiled";
    };
    nlohmann::json kernelsDoc = nlohmann::json::array();
    // Up to 16 rows: original, swapped, pipelined (4 and 8 warps); 32 … 256 rows: original and
    // the tiled kernel (kernel 5, the launcher's choice there).
    struct KernelSet {
        std::vector<std::int64_t> ms;
        std::vector<int> kernels;
    };
    // Kernel 6 is the CUTLASS route (g128 only here: it refuses g32), the launcher's choice above 16
    // rows where it is built; 512 … 8192 rows: the tiled kernel against it.
    const KernelSet sets[] = {
        {{1, 2, 4, 8, 16}, {1, 2, 3, 4, 6, 7}}, {{32, 64, 128, 256}, {1, 5, 6}}, {{512, 1024, 8192}, {5, 6}}};
    const bool cutlassHere = [&] {
        L::W4a16Problem probe;
        probe.m = 1, probe.n = q.n, probe.k = q.k, probe.group = 128;
        return L::w4a16CutlassRefusal(probe).empty();
    }();
    for (const KernelSet &set : sets)
        for (const std::int64_t g : {std::int64_t(128), std::int64_t(32)}) {
            std::map<std::int64_t, double> original;
            for (const int kernel : set.kernels) {
                if ((kernel == 6 && (g != 128 || !cutlassHere)) || (kernel == 7 && g % 128 != 0))
                    continue;
                if (set.ms.front() >= 512 && g != 128)
                    continue;
                GemmBenchRequest qk = q;
                qk.m = set.ms;
                qk.w4Group = g;
                qk.formats = {GemmFormat::W4a16};
                qk.w4a16Kernel = kernel;
                qk.roofline = false;
                const GemmBenchResult r = runGemmBench(qk, DeviceChoice::Gpu);
                ok = ok && bench::gemmPointsChecked(r);
                for (const auto &p : r.points)
                    if (p.format == kW4a16FusedFormat) {
                        if (kernel == 1)
                            original[p.m] = p.timeUs;
                        char ratio[64] = "";
                        if (kernel >= 2 && original.count(p.m) && p.timeUs > 0)
                            std::snprintf(ratio, sizeof ratio, " (%.2f× faster than the original)",
                                          original[p.m] / p.timeUs);
                        std::printf("kernels g%lld %-9s M %3lld: %8.2f µs%s  %s\n", static_cast<long long>(g),
                                    kernelName(kernel), static_cast<long long>(p.m), p.timeUs, ratio, p.note.c_str());
                        kernelsDoc.push_back({{"group", g},
                                              {"kernel", kernelName(kernel)},
                                              {"m", p.m},
                                              {"time_us", p.timeUs},
                                              {"note", p.note}});
                    }
            }
        }
    nlohmann::json sweepDoc = nlohmann::json::array();
    auto sweepPoint = [&](int kernel, int rpw, int sk, int ahead, std::vector<std::int64_t> mList) {
        GemmBenchRequest qs = q;
        qs.m = std::move(mList);
        qs.formats = {GemmFormat::W4a16};
        qs.w4a16SplitK = sk;
        qs.w4a16RowsPerWarp = rpw;
        qs.w4a16Kernel = kernel;
        qs.w4a16ChunksAhead = ahead;
        qs.roofline = false;
        const GemmBenchResult r = runGemmBench(qs, DeviceChoice::Gpu);
        ok = ok && bench::gemmPointsChecked(r);
        for (const auto &p : r.points)
            if (p.format == kW4a16FusedFormat) {
                std::printf("sweep %-9s rows/warp %2d split-K %2d ahead %d M %4lld: %8.2f µs  %s\n", kernelName(kernel),
                            rpw, sk, ahead, static_cast<long long>(p.m), p.timeUs, p.note.c_str());
                sweepDoc.push_back({{"kernel", kernelName(kernel)},
                                    {"rows_per_warp", rpw},
                                    {"split_k", sk},
                                    {"chunks_ahead", ahead},
                                    {"m", p.m},
                                    {"time_us", p.timeUs},
                                    {"note", p.note}});
            }
    };
    // The CUTLASS route's eight tiles (16, 64, 128 tokens stream-K; 128, 256 tokens persistent; on
    // the reordered W 128 stream-K, 256 persistent, 64 stream-K).
    if (cutlassHere)
        for (const int tile : {1, 2, 3, 4, 5, 6, 7, 8})
            sweepPoint(6, tile, 0, 0, {1, 16, 64, 128, 256, 1024, 8192});
    if (sweep) {
        for (const int rpw : {8, 16, 32})
            for (const int sk : {1, 2, 4, 8, 16, 28})
                sweepPoint(1, rpw, sk, 0, {1, 16, 64, 128});
        for (const int rpw : {16, 32})
            for (const int ahead : {1, 2, 4})
                for (const int sk : {0, 4, 8, 12, 16, 28})
                    if (!(rpw == 32 && ahead == 4))
                        sweepPoint(2, rpw, sk, ahead, {1, 16});
        // The streaming kernel: split-K × 1, 2 chunks a step.
        for (const int ahead : {1, 2})
            for (const int sk : {0, 4, 7, 8, 14, 16, 28})
                sweepPoint(7, 16, sk, ahead, {1, 8, 16});
        // The pipelined variant: ring of 4 or 8 chunks a warp (16 rows of W a warp).
        for (const int ahead : {4, 8})
            for (const int sk : {0, 4, 8, 12, 16, 28})
                sweepPoint(3, 16, sk, ahead, {1, 8, 16});
        for (const int sk : {0, 4, 8, 12, 16, 28}) // 8 warps a block, ring of 4
            sweepPoint(4, 16, sk, 4, {1, 8, 16});
        // The tiled kernel: every tile × 3, 4 stages (the launcher's split), then split-K for the
        // mid-size tiles (rows/warp in these lines: the tile's number, ahead: its stages).
        for (int tile = 1; tile <= 8; ++tile)
            for (const int stages : {3, 4})
                sweepPoint(5, tile, 0, stages, {32, 64, 128, 256});
        for (const int tile : {3, 4, 5, 6})
            for (const int sk : {1, 2, 4, 8})
                sweepPoint(5, tile, sk, 4, {64, 128});
    }
    // MoE: the launcher's choice (the swapped kernel at M = 16), the tiled kernel with 16 × 128 and
    // 16 × 256 tiles; with --sweep also their stages and splits.
    std::vector<MoeVariant> moeVariants = {{"auto", {}}};
    for (const int ahead : {1, 2}) { // the streaming kernel (the launcher's choice) and the swapped one
        L::W4a16Tiling t;
        t.kernel = 7;
        t.chunksAhead = ahead;
        moeVariants.push_back({"stream " + std::to_string(ahead) + " chunk(s) a step", t});
    }
    {
        L::W4a16Tiling t;
        t.kernel = 7;
        t.warps = 8;
        moeVariants.push_back({"stream 2 chunk(s) a step, 8 warps", t});
        t.warps = 16;
        moeVariants.push_back({"stream 2 chunk(s) a step, 16 warps", t});
        t = {};
        t.kernel = 2;
        moeVariants.push_back({"swapped", t});
    }
    auto tiledVariant = [](int tile, int stages, int splitK) {
        L::W4a16Tiling t;
        t.kernel = 5;
        t.nPerWarp = tile;
        t.chunksAhead = stages;
        t.splitK = splitK;
        return MoeVariant{"tiled tile " + std::to_string(tile) + " stages " + std::to_string(stages) + " split " +
                              (splitK > 0 ? std::to_string(splitK) : std::string("auto")),
                          t};
    };
    moeVariants.push_back(tiledVariant(1, 4, 0));
    moeVariants.push_back(tiledVariant(7, 4, 0));
    for (const int tile : {1, 2, 3, 6, 8}) { // the CUTLASS route over all experts (L = 16)
        L::W4a16Tiling t;
        t.kernel = 6;
        t.nPerWarp = tile;
        moeVariants.push_back({"cutlass tile " + std::to_string(tile), t});
    }
    if (sweep)
        for (const int tile : {1, 7, 2})
            for (const int stages : {3, 4})
                for (const int sk : {1, 2, 4, 0})
                    if (!(stages == 4 && sk == 0 && tile != 2))
                        moeVariants.push_back(tiledVariant(tile, stages, sk));
    const nlohmann::json moe = moeFused(16, 16, 2048, 7168, q.repeats, q.warmup, ok, moeVariants);
    bench::writeFusedDoc(
        opt.out, "gpu_w4a16_fused", *gpu, q,
        "CUDA events around each launch on the engine stream (runGemmBench); warm-up; median of the "
        "repeats; rotating weight copies under 2x L2",
        ok,
        {{"dense", toJson(dense)}, {"groups", groupsDoc}, {"moe", moe}, {"kernels", kernelsDoc}, {"sweep", sweepDoc}});
    return ok ? 0 : 1;
}
