// SPDX-License-Identifier: MIT
// Standalone probe for MiLo's thin pass (issue 44; docs/perf.md, MiLo's whole call): the product's
// launch::thinUpdate (FP64 FMA chains, 2 × 8 elements a thread) against the same work with the
// FP64 tensor cores (`mma.sync.aligned.m8n8k4.row.col.f64`, DMMA), on MiLo's rank-32 shape
// (E column-major [K × N] = [14336 × 4096], P1 [K × 32], P2 [N × 32], W as FP32).
// Prints both kernels' median time (the lab's way, probe_timing.h) and how their results differ:
// W_t's bits (the DMMA sums its four products a step in its own rounding, not the FMA chain in c
// order that GpuMilo.ThinUpdateFormsDOnTheWayBitForBitAsTheHostSequence pins) and ε² (relative).
// Built by bench/probe/build.sh (OUTDIR/milo_thin_dmma).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/kernels_milo.h"
#include "kernels/plan.h"
#include "probe_timing.h"

namespace {

constexpr int kThreads = 256, kTileK = 128, kTileN = 32, kCols = 32;

__device__ __forceinline__ void dmma(double &d0, double &d1, double a, double b)
{
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d0), "+d"(d1)
                 : "d"(a), "d"(b));
}

/// Warp w of a block takes rows 16w … 16w + 15 of the 128 × 32 tile: two m8 × four n8 fragments.
/// Fragment layout of m8n8k4 (PTX ISA): A[gid][tig], B[tig][gid], D[gid][2·tig + j], with
/// gid = lane / 4, tig = lane % 4. Blocks take contiguous runs of tiles in k-major order, as the
/// product's kernel does; the sums of d² go to parts[block] by a fixed tree.
__global__ void __launch_bounds__(kThreads, 2)
    kThinDmma(const float *__restrict__ w, float *__restrict__ wt, const double *__restrict__ E,
              const double *__restrict__ P1, const double *__restrict__ P2, long long K, long long N, int r,
              double *parts)
{
    __shared__ double s1[kCols][kTileK];
    __shared__ double s2[kCols][kTileN];
    __shared__ double red[kThreads];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, gid = lane >> 2, tig = lane & 3;
    const int r4 = (r + 3) / 4 * 4;
    const long long tilesN = (N + kTileN - 1) / kTileN, tiles = ((K + kTileK - 1) / kTileK) * tilesN;
    const long long per = (tiles + gridDim.x - 1) / gridDim.x, t0 = per * blockIdx.x;
    const long long t1 = t0 + per < tiles ? t0 + per : tiles;
    long long kLoaded = -1;
    double acc = 0.0;
    for (long long t = t0; t < t1; ++t) {
        const long long k0 = (t / tilesN) * kTileK, n0 = (t % tilesN) * kTileN;
        // This thread's 16 elements: (mi, ni, j) → k = k0 + 16·warp + 8·mi + gid, n = n0 + 8·ni + 2·tig + j;
        // at() gives the element's index in E, −1 outside the matrix.
        const auto at = [&](int mi, int ni, int j) -> long long {
            const long long k = k0 + 16 * warp + 8 * mi + gid, n = n0 + 8 * ni + 2 * tig + j;
            return k < K && n < N ? k + K * n : -1;
        };
        double ev[2][4][2];
        float wv[2][4][2];
#pragma unroll
        for (int mi = 0; mi < 2; ++mi)
#pragma unroll
            for (int ni = 0; ni < 4; ++ni)
#pragma unroll
                for (int j = 0; j < 2; ++j) {
                    const long long i = at(mi, ni, j);
                    ev[mi][ni][j] = i >= 0 ? E[i] : 0.0;
                    wv[mi][ni][j] = i >= 0 ? w[i] : 0.0f;
                }
        __syncthreads();
        if (k0 != kLoaded) {
            for (int e = threadIdx.x; e < r4 * kTileK; e += kThreads) {
                const int c = e / kTileK, i = e % kTileK;
                s1[c][i] = c < r && k0 + i < K ? P1[k0 + i + c * K] : 0.0;
            }
            kLoaded = k0;
        }
        for (int e = threadIdx.x; e < r4 * kTileN; e += kThreads) {
            const int c = e / kTileN, j = e % kTileN;
            s2[c][j] = c < r && n0 + j < N ? P2[n0 + j + c * N] : 0.0;
        }
        __syncthreads();
        double d[2][4][2] = {};
        for (int c0 = 0; c0 < r4; c0 += 4) {
            double a[2], b[4];
#pragma unroll
            for (int mi = 0; mi < 2; ++mi)
                a[mi] = s1[c0 + tig][16 * warp + 8 * mi + gid];
#pragma unroll
            for (int ni = 0; ni < 4; ++ni)
                b[ni] = s2[c0 + tig][8 * ni + gid];
#pragma unroll
            for (int mi = 0; mi < 2; ++mi)
#pragma unroll
                for (int ni = 0; ni < 4; ++ni)
                    dmma(d[mi][ni][0], d[mi][ni][1], a[mi], b[ni]);
        }
#pragma unroll
        for (int mi = 0; mi < 2; ++mi)
#pragma unroll
            for (int ni = 0; ni < 4; ++ni)
#pragma unroll
                for (int j = 0; j < 2; ++j) {
                    const long long i = at(mi, ni, j);
                    if (i < 0)
                        continue;
                    const double ei = ev[mi][ni][j], di = ei - d[mi][ni][j];
                    acc += di * di;
                    wt[i] = wv[mi][ni][j] - static_cast<float>(ei - di);
                }
    }
    red[threadIdx.x] = acc;
    __syncthreads();
    for (int h = kThreads / 2; h > 0; h /= 2) {
        if (static_cast<int>(threadIdx.x) < h)
            red[threadIdx.x] += red[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        parts[blockIdx.x] = red[0];
}

} // namespace

int main()
{
    using namespace quantscope::gpu;
    const long long K = 14336, N = 4096, n = K * N;
    const int r = 32, blocks = launch::kMiloSumBlocks;
    std::mt19937 gen(7);
    std::normal_distribution<double> nd(0.0, 1.0);
    std::vector<float> w(n), wt(n);
    std::vector<double> e(n), p1(K * r), p2(N * r);
    for (long long i = 0; i < n; ++i) {
        w[i] = static_cast<float>(nd(gen) * 0.02);
        wt[i] = w[i] + static_cast<float>(nd(gen) * 0.002);
        e[i] = static_cast<double>(w[i]) - static_cast<double>(wt[i]);
    }
    for (double &x : p1)
        x = nd(gen) * 0.01;
    for (double &x : p2)
        x = nd(gen) * 0.01;
    float *dw, *dwt, *dwt2;
    double *de, *dp1, *dp2, *parts, *parts2;
    CK(cudaMalloc(&dw, n * 4));
    CK(cudaMalloc(&dwt, n * 4));
    CK(cudaMalloc(&dwt2, n * 4));
    CK(cudaMalloc(&de, n * 8));
    CK(cudaMalloc(&dp1, p1.size() * 8));
    CK(cudaMalloc(&dp2, p2.size() * 8));
    CK(cudaMalloc(&parts, blocks * 8));
    CK(cudaMalloc(&parts2, blocks * 8));
    CK(cudaMemcpy(dw, w.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(de, e.data(), n * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dp1, p1.data(), p1.size() * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dp2, p2.data(), p2.size() * 8, cudaMemcpyHostToDevice));
    // The outputs of one launch of each, from the same W_t.
    CK(cudaMemcpy(dwt, wt.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dwt2, wt.data(), n * 4, cudaMemcpyHostToDevice));
    launch::thinUpdate(kInF32, dw, dwt, de, dp1, dp2, K, N, r, nullptr, parts, nullptr);
    kThinDmma<<<blocks, kThreads>>>(dw, dwt2, de, dp1, dp2, K, N, r, parts2);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<float> a(n), b(n);
    std::vector<double> pa(blocks), pb(blocks);
    CK(cudaMemcpy(a.data(), dwt, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), dwt2, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(pa.data(), parts, blocks * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(pb.data(), parts2, blocks * 8, cudaMemcpyDeviceToHost));
    long long differ = 0;
    for (long long i = 0; i < n; ++i)
        differ += std::memcmp(&a[i], &b[i], 4) != 0;
    double sa = 0, sb = 0;
    for (int i = 0; i < blocks; ++i)
        sa += pa[i], sb += pb[i];
    // A host check of a few elements against the FMA chain (the layout of the DMMA fragments).
    long long hostBad = 0;
    for (long long s = 0; s < 4096; ++s) {
        const long long i = (s * 2654435761LL) % n, k = i % K, col = i / K;
        double p = 0;
        for (int c = 0; c < r; ++c)
            p = std::fma(p1[k + c * K], p2[col + c * N], p);
        const double d = e[i] - p;
        const float want = w[i] - static_cast<float>(e[i] - d);
        hostBad += std::fabs(static_cast<double>(b[i]) - want) > 1e-6 * (std::fabs(want) + 1e-3);
    }
    const float tFma = probeMedianUs(
        [&](int) { launch::thinUpdate(kInF32, dw, dwt, de, dp1, dp2, K, N, r, nullptr, parts, nullptr); });
    const float tDmma =
        probeMedianUs([&](int) { kThinDmma<<<blocks, kThreads>>>(dw, dwt2, de, dp1, dp2, K, N, r, parts2); });
    std::printf("thin pass, K %lld N %lld r %d: FMA chain (the product) %.1f us, DMMA %.1f us\n", K, N, r, tFma, tDmma);
    std::printf("W_t bits that differ: %lld of %lld; eps^2 relative difference %.3e; DMMA elements off the FMA "
                "chain by more than 1e-6 relative (4096 sampled): %lld\n",
                differ, n, std::fabs(sa - sb) / sa, hostBad);
    return 0;
}
