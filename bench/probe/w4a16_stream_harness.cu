// SPDX-License-Identifier: MIT
// Standalone timing of the fused W4A16 small-M kernels (issue 43; bench/probe/build.sh): the swapped
// kernel (2) on W as stored against the streaming kernel (7) on the tile-ordered copy, N = 4096,
// K = 14336, g128 at M = 1 and 16 and the MoE batch 16 × (16, 2048, 7168), timed as the lab does
// (every repeat queued, CUDA events around each launch, four rotating weight copies, median of 40),
// a split-K × chunks-a-step sweep of kernel 7, and the outputs of both at the same split compared
// bit for bit (equal at one slice; several slices add FP32 partials by atomics in any order). The
// outputs' bound is the GPU tests' and the benchmark's business (test_gpu_w4a16_stream.cpp,
// qs_bench_gpu_w4a16_fused); this is the design loop's quick measure. `ncu`: one M = 1 case only,
// for Nsight Compute; `ncu16 W`: one launch of kernel 7 at M = 16, split 8, W warps a block.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include <random>
#include <algorithm>
#include <string>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "kernels/gemm/kernels_w4a16.h"
#include "probe_timing.h"
using namespace quantscope::gpu::launch;

static int ncuWarps = 0; // ncu16: the streaming kernel at M = 16 with these warps, split 8, one launch

struct Weights {
    std::vector<void *> packed, tile;
};

int main(int argc, char **argv)
{
    std::mt19937 rng(7);
    auto run = [&](long long M, long long N, long long K, long long G, int E, int copies, bool sweep) {
        const long long wBytes = N * K / 2 * E, sCount = N * (K / G) * E;
        const ProbeW4 ops = probeW4(rng, wBytes, sCount, -8, 16);
        const std::vector<uint8_t> &hw = ops.codes;
        std::vector<__nv_bfloat16> hx(M * K * E);
        for (auto &v : hx)
            v = __float2bfloat16(((int)(rng() % 2001) - 1000) / 1000.0f);
        Weights w;
        float *s = ops.s;
        int8_t *z = ops.z;
        void *x, *y, *y2;
        CK(cudaMalloc(&x, M * K * 2 * E));
        CK(cudaMalloc(&y, M * N * 2 * E));
        CK(cudaMalloc(&y2, M * N * 2 * E));
        CK(cudaMemcpy(x, hx.data(), M * K * 2 * E, cudaMemcpyHostToDevice));
        W4a16Problem p;
        p.scales = s;
        p.zeros = z;
        p.x = x;
        p.y = y;
        p.m = M;
        p.n = N;
        p.k = K;
        p.group = G;
        p.experts = E;
        p.wStride = N * K / 2;
        p.sStride = N * (K / G);
        p.xStride = M * K;
        p.yStride = M * N;
        const size_t tb = w4a16TileBytes(p);
        for (int c = 0; c < copies; ++c) {
            void *pw, *pt;
            CK(cudaMalloc(&pw, wBytes));
            CK(cudaMemcpy(pw, hw.data(), wBytes, cudaMemcpyHostToDevice));
            CK(cudaMalloc(&pt, tb));
            p.packed = (const uint8_t *)pw;
            w4a16TileReorder(p, pt, nullptr);
            w.packed.push_back(pw);
            w.tile.push_back(pt);
        }
        CK(cudaDeviceSynchronize());
        void *ws, *cnt;
        size_t wsb = w4a16WorkspaceBytes(p), cb = w4a16CounterBytes(p);
        CK(cudaMalloc(&ws, wsb));
        CK(cudaMalloc(&cnt, cb));
        CK(cudaMemset(ws, 0, wsb));
        CK(cudaMemset(cnt, 0, cb));
        cudaEvent_t a, b;
        cudaEventCreate(&a);
        cudaEventCreate(&b);
        auto timeIt = [&](W4a16Tiling t, bool tile, W4a16Launch *used) {
            return probeMedianUs([&](int i) {
                p.packed = (const uint8_t *)w.packed[i % copies];
                p.tilePacked = tile ? w.tile[i % copies] : nullptr;
                *used = w4a16Fused(p, t, ws, cnt, nullptr);
            });
        };
        auto output = [&](W4a16Tiling t, bool tile, void *dst) {
            p.packed = (const uint8_t *)w.packed[0];
            p.tilePacked = tile ? w.tile[0] : nullptr;
            p.y = dst;
            w4a16Fused(p, t, ws, cnt, nullptr);
            CK(cudaDeviceSynchronize());
            p.y = y;
            std::vector<uint16_t> h(M * N * E);
            CK(cudaMemcpy(h.data(), dst, h.size() * 2, cudaMemcpyDeviceToHost));
            return h;
        };
        printf("== M %lld N %lld K %lld g %lld E %d (tile copy %.1f MB)\n", M, N, K, G, E, tb / 1e6);
        W4a16Launch u;
        if (ncuWarps > 0) {
            W4a16Tiling tn;
            tn.kernel = 7;
            tn.splitK = 8;
            tn.warps = ncuWarps;
            p.packed = (const uint8_t *)w.packed[0];
            p.tilePacked = w.tile[0];
            u = w4a16Fused(p, tn, ws, cnt, nullptr);
            CK(cudaDeviceSynchronize());
            printf("ncu16: warps %d split %d\n", u.warps, u.splitK);
            return;
        }
        W4a16Tiling t2;
        t2.kernel = 2;
        float a2 = timeIt(t2, false, &u);
        printf("swapped (kernel 2 default) split %d U %d: %.2f us\n", u.splitK, u.chunksAhead, a2);
        W4a16Tiling t7;
        t7.kernel = 7;
        float a7 = timeIt(t7, true, &u);
        printf("stream  (kernel 7 default) split %d U %d warps %d %s: %.2f us\n", u.splitK, u.chunksAhead, u.warps,
               u.clusterReduce ? "cluster" : "atomics", a7);
        // bits: the same split
        W4a16Tiling c2 = t2, c7 = t7;
        c2.splitK = u.splitK;
        c2.chunksAhead = 1;
        c7.splitK = u.splitK;
        auto h2 = output(c2, false, y2), h7 = output(c7, true, y);
        long long diff = 0;
        for (size_t i = 0; i < h2.size(); ++i)
            diff += h2[i] != h7[i];
        printf("bits vs swapped at split %d: %lld of %zu differ\n", u.splitK, diff, h2.size());
        if (sweep)
            for (int nw : {4, 8, 16})
                for (int sk : {0, 4, 6, 8, 11, 14, 16})
                    for (int uu : {1, 2})
                        for (int rd : {2, 1}) { // the cluster sum where it runs, then the atomics
                            W4a16Tiling tt;
                            tt.kernel = 7;
                            tt.splitK = sk;
                            tt.chunksAhead = uu;
                            tt.warps = nw;
                            tt.reduce = rd;
                            float v = timeIt(tt, true, &u);
                            printf("  sweep stream warps %d split %d (asked %d) U %d %s: %.2f us (blocks %d)\n",
                                   u.warps, u.splitK, sk, uu, u.clusterReduce ? "cluster" : "atomics", v, u.blocks);
                            if (u.splitK == 1 || (rd == 2 && !u.clusterReduce))
                                break; // nothing to compare
                        }
        for (auto v : w.packed)
            cudaFree(v);
        for (auto v : w.tile)
            cudaFree(v);
        cudaFree(s);
        cudaFree(z);
        cudaFree(x);
        cudaFree(y);
        cudaFree(y2);
        cudaFree(ws);
        cudaFree(cnt);
    };
    if (argc > 1 && std::string(argv[1]) == "ncu") {
        run(1, 4096, 14336, 128, 1, 4, false);
        return 0;
    }
    if (argc > 2 && std::string(argv[1]) == "ncu16") { // M = 16 at split 8, the warps given, once each
        ncuWarps = std::atoi(argv[2]);
        run(16, 4096, 14336, 128, 1, 1, false);
        return 0;
    }
    for (long long M : {1, 16})
        run(M, 4096, 14336, 128, 1, 4, true);
    run(16, 2048, 7168, 128, 16, 2, true);
    return 0;
}
