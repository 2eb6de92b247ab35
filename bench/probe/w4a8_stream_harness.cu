// SPDX-License-Identifier: MIT
// Standalone timing of the fused W4A8 small-M kernels (issue 43; bench/probe/build.sh): the
// row-order kernel (W4a8Tiling::kernel 1) on W as stored against the streaming kernel (2) on the
// tile-ordered copy (w4a8TileReorder), N = 4096, K = 14336, g128, INT8 and E4M3, M ∈ {1, 8, 16},
// timed as the lab does (every repeat queued, CUDA events around each launch, four rotating
// weight copies, median of 40), a warps × split-K × chunks-a-step sweep of the streaming kernel,
// and INT8's outputs of both at one K slice compared bit for bit (equal by construction: the
// same exact INT32 sums a group, added in the same order). The bound on every element is the GPU
// tests' and the benchmark's business (test_gpu_w4a8_stream.cpp, qs_bench_gpu_w4a8_fused).
// QS_PROBE_GROUP=G: the group (default 128; 14336 per channel). `ncu16`: one launch at M = 16 for Nsight Compute; `ncu M WARPS U SPLIT REDUCE`: one INT8 launch at
// that M and tiling (W4a8Tiling's fields; each configuration launched once before, untimed).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/gemm/kernels_w4a16.h"
#include "kernels/gemm/kernels_w4a8.h"
#include "probe_timing.h"
using namespace quantscope::gpu::launch;

int main(int argc, char **argv)
{
    // `ncu16`: one launch of the streaming INT8 kernel at M = 16 (4 warps, 2 chunks a step, split 8:
    // the lab's choice on the H200), for Nsight Compute.
    const bool ncuAny = argc > 6 && std::string(argv[1]) == "ncu";
    const bool ncu16 = ncuAny || (argc > 1 && std::string(argv[1]) == "ncu16");
    const long long ncuM = ncuAny ? std::atoll(argv[2]) : 16;
    std::mt19937 rng(11);
    const long long N = 4096, K = 14336;
    const long long G =
        std::getenv("QS_PROBE_GROUP") ? std::atoll(std::getenv("QS_PROBE_GROUP")) : 128; // K: per channel
    const int copies = 4;
    const long long wBytes = N * K / 2, sCount = N * (K / G);
    const ProbeW4 ops = probeW4(rng, wBytes, sCount, -9, 18); // zero points in [−9, 8]: E4M3's range too
    const std::vector<uint8_t> &hw = ops.codes;
    float *s = ops.s;
    int8_t *z = ops.z;
    W4a16Problem tp;
    tp.scales = s, tp.zeros = z, tp.n = N, tp.k = K, tp.group = G;
    const size_t tb = w4a16TileBytes(tp);
    std::vector<void *> packed, tile;
    for (int c = 0; c < copies; ++c) {
        void *pw, *pt;
        CK(cudaMalloc(&pw, wBytes));
        CK(cudaMemcpy(pw, hw.data(), wBytes, cudaMemcpyHostToDevice));
        CK(cudaMalloc(&pt, tb));
        tp.packed = (const uint8_t *)pw;
        w4a8TileReorder(tp, pt, nullptr);
        packed.push_back(pw);
        tile.push_back(pt);
    }
    for (long long M : {1, 8, 16})
        for (bool fp8 : {false, true}) {
            if (ncu16 && (M != ncuM || fp8))
                continue;
            const ProbeX px = probeX(rng, M, K, fp8);
            void *x = px.x, *y, *y2, *ws, *cnt;
            float *sx = px.sx;
            CK(cudaMalloc(&y, M * N * 2));
            CK(cudaMalloc(&y2, M * N * 2));
            W4a8Problem p;
            p.scales = s, p.zeros = z, p.xq = x, p.xScale = sx, p.y = y;
            p.m = M, p.n = N, p.k = K, p.group = G, p.fp8 = fp8;
            int *sums = nullptr; // INT8: X's chunk sums, the streaming kernel's zero-point term
            CK(cudaMalloc(&sums, w4a8XSumsBytes(K)));
            if (!fp8)
                w4a8XSums(x, M, K, sums, nullptr);
            p.xSums = fp8 ? nullptr : sums;

            const size_t wsb = w4a8WorkspaceBytes(p), cb = w4a8CounterBytes(p);
            CK(cudaMalloc(&ws, wsb));
            CK(cudaMalloc(&cnt, cb));
            CK(cudaMemset(ws, 0, wsb));
            CK(cudaMemset(cnt, 0, cb));
            auto timeIt = [&](const W4a8Tiling &t, W4a8Launch *used) {
                return probeMedianUs([&](int i) {
                    p.packed = (const uint8_t *)packed[i % copies];
                    p.tilePacked = tile[i % copies];
                    *used = w4a8Fused(p, t, ws, cnt, nullptr);
                });
            };
            auto output = [&](const W4a8Tiling &t, void *dst) {
                p.packed = (const uint8_t *)packed[0];
                p.tilePacked = tile[0];
                p.y = dst;
                w4a8Fused(p, t, ws, cnt, nullptr);
                CK(cudaDeviceSynchronize());
                p.y = y;
                std::vector<uint16_t> h(M * N);
                CK(cudaMemcpy(h.data(), dst, h.size() * 2, cudaMemcpyDeviceToHost));
                return h;
            };
            printf("== %s M %lld N %lld K %lld g %lld\n", fp8 ? "E4M3" : "INT8", M, N, K, G);
            W4a8Launch u;
            if (ncu16) {
                W4a8Tiling tn;
                tn.kernel = 2, tn.warps = 4, tn.chunksAhead = 2, tn.splitK = 8;
                if (ncuAny)
                    tn.warps = std::atoi(argv[3]), tn.chunksAhead = std::atoi(argv[4]), tn.splitK = std::atoi(argv[5]),
                    tn.reduce = std::atoi(argv[6]);
                p.packed = (const uint8_t *)packed[0];
                p.tilePacked = tile[0];
                u = w4a8Fused(p, tn, ws, cnt, nullptr); // the untimed launch (ncu: --launch-skip 1)
                CK(cudaDeviceSynchronize());
                p.packed = (const uint8_t *)packed[1];
                p.tilePacked = tile[1];
                u = w4a8Fused(p, tn, ws, cnt, nullptr);
                CK(cudaDeviceSynchronize());
                printf("ncu16: warps %d split %d U %d\n", u.warps, u.splitK, u.chunksAhead);
                return 0;
            }
            W4a8Tiling row;
            row.kernel = 1;
            const float tr = timeIt(row, &u);
            printf("row-order (kernel 1 default) split %d U %d: %.2f us\n", u.splitK, u.chunksAhead, tr);
            W4a8Tiling st;
            st.kernel = 2;
            const float ts = timeIt(st, &u);
            printf("stream    (kernel 2 default) warps %d split %d U %d %s: %.2f us\n", u.warps, u.splitK,
                   u.chunksAhead, u.clusterReduce ? "cluster" : "atomics", ts);
            W4a8Tiling r1 = row, s1 = st;
            r1.splitK = s1.splitK = 1; // one slice: several add FP32 partials by atomics in any order
            const auto hr = output(r1, y2), hsd = output(s1, y);
            long long diff = 0;
            for (size_t i = 0; i < hr.size(); ++i)
                diff += hr[i] != hsd[i];
            printf("bits vs row-order at one slice: %lld of %zu differ\n", diff, hr.size());
            for (int nw : {4, 8, 16})
                for (int sk : {0, 4, 8, 11, 14, 16, 22, 28})
                    for (int uu : {1, 2})
                        for (int rd : {2, 1}) { // the cluster sum where it runs, then the atomics
                            W4a8Tiling tt;
                            tt.kernel = 2, tt.splitK = sk, tt.chunksAhead = uu, tt.warps = nw, tt.reduce = rd;
                            const float v = timeIt(tt, &u);
                            printf("  sweep stream warps %d split %d (asked %d) U %d %s: %.2f us (blocks %d)\n",
                                   u.warps, u.splitK, sk, uu, u.clusterReduce ? "cluster" : "atomics", v, u.blocks);
                            if (u.splitK == 1 || (rd == 2 && !u.clusterReduce))
                                break; // nothing to compare
                        }
            if (!fp8 && G == K && M > 8) { // the warpgroup kernel (W4a8Tiling::wgmma 2; sm_90a builds)
                W4a8Tiling w2 = st;
                w2.wgmma = 2, w2.splitK = 1;
                const auto hw = output(w2, y);
                long long dw = 0;
                for (size_t i = 0; i < hr.size(); ++i)
                    dw += hr[i] != hw[i];
                printf("wgmma bits vs row-order at one slice (wgmma at split 1): %lld of %zu differ\n", dw, hr.size());
                for (int sk : {0, 4, 6, 7, 8, 10, 11, 14, 16})
                    for (int uu : {1, 2})
                        for (int rd : {2, 1}) {
                            W4a8Tiling tt;
                            tt.kernel = 2, tt.wgmma = 2, tt.splitK = sk, tt.chunksAhead = uu, tt.reduce = rd;
                            const float v = timeIt(tt, &u);
                            printf("  sweep stream warps %d split %d (asked %d) U %d %s_wg: %.2f us (blocks %d)\n",
                                   u.warps, u.splitK, sk, uu, u.clusterReduce ? "cluster" : "atomics", v, u.blocks);
                            if (rd == 2 && !u.clusterReduce)
                                break;
                        }
                W4a8Tiling w8 = st;
                w8.wgmma = 2, w8.splitK = 8, w8.reduce = 2;
                const auto h8 = output(w8, y);
                dw = 0;
                for (size_t i = 0; i < hr.size(); ++i)
                    dw += hr[i] != h8[i];
                printf("wgmma bits vs row-order at one slice (wgmma at split 8, cluster): %lld of %zu differ\n", dw,
                       hr.size());
            }
            cudaFree(x), cudaFree(sx), cudaFree(y), cudaFree(y2), cudaFree(ws), cudaFree(cnt), cudaFree(sums);
        }
    return 0;
}
