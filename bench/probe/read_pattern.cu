// SPDX-License-Identifier: MIT
// Probe (issue 43; bench/probe/build.sh): what read rate the swapped W4A16 kernel's access pattern
// allows on this GPU, against the same bytes as contiguous KiB a warp a chunk (the streaming
// kernel's tile-ordered copy), for 4096 × 14336 packed INT4 (29 MB): a plain grid-stride stream;
// "rows" (lane (gid, tig) reads 16 bytes of rows gid and gid + 8 at 64·chunk + 16·tig, as the
// swapped kernel) with no L2 hint, L2::128B or L2::256B prefetch; "tile" (lane reads 16·lane +
// 512·h of one KiB a chunk); 1, 2, 4 chunks a step; K split 1 … 14. Warm (the weight may sit in
// the 50 MB L2) and cold (256 MB written before each timed launch). Only loads and an XOR: no
// arithmetic of the GEMM.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#include "probe_timing.h" // CK

template <int H> __device__ __forceinline__ uint4 ld(const void *p)
{
    uint4 r;
    if (H == 0)
        asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                     : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                     : "l"(p));
    if (H == 1)
        asm volatile("ld.global.nc.L1::no_allocate.L2::128B.v4.u32 {%0,%1,%2,%3}, [%4];"
                     : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                     : "l"(p));
    if (H == 2)
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                     : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                     : "l"(p));
    return r;
}
__global__ void empty(unsigned *o)
{
    if (threadIdx.x == 1234567)
        o[0] = 1;
}

// Contiguous stream: each thread U loads of 16 B a step.
template <int U> __global__ void stream(const uint4 *w, long long n16, unsigned *o)
{
    unsigned acc = 0;
    const long long stride = (long long)gridDim.x * blockDim.x * U;
    for (long long i = (long long)blockIdx.x * blockDim.x * U + threadIdx.x; i < n16; i += stride) {
        uint4 r[U];
#pragma unroll
        for (int u = 0; u < U; ++u)
            r[u] = (i + u * blockDim.x < n16) ? ld<0>(w + i + u * blockDim.x) : make_uint4(0, 0, 0, 0);
#pragma unroll
        for (int u = 0; u < U; ++u)
            acc ^= r[u].x ^ r[u].y ^ r[u].z ^ r[u].w;
    }
    if (acc == 0x12345678u)
        o[0] = acc;
}

// The swapped kernel's pattern: 4 warps a block, 16 rows a warp, K split in `split` slices,
// chunk = 64 B of each row; lane (gid, q) reads rows gid, gid+8 at 64ch + 16q. Tile=true: the
// warp's 16 rows × 64 B of a chunk are one contiguous KiB (lane reads 16 lane + 512 h).
template <int U, int H, bool Tile> __global__ void rows(const uint8_t *w, int N, int K, int split, unsigned *o)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, gid = lane >> 2, q = lane & 3;
    const long long n0 = (long long)blockIdx.x * 64 + warp * 16;
    const int chunks = K / 128, per = (chunks + split - 1) / split;
    const int c0 = blockIdx.y * per, c1 = min(c0 + per, chunks);
    const long long halfK = K / 2;
    const uint8_t *p[2];
    for (int h = 0; h < 2; ++h)
        p[h] = Tile ? w + (n0 / 16) * (long long)chunks * 1024 + 512 * h + 16 * lane
                    : w + (n0 + gid + 8 * h) * halfK + 16 * q;
    const int step = Tile ? 1024 : 64;
    unsigned acc = 0;
    for (int ch = c0; ch < c1; ch += U) {
        uint4 r[U][2];
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
            for (int h = 0; h < 2; ++h)
                r[u][h] = ch + u < c1 ? ld<H>(p[h] + (long long)step * (ch + u)) : make_uint4(0, 0, 0, 0);
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
            for (int h = 0; h < 2; ++h)
                acc ^= r[u][h].x ^ r[u][h].y ^ r[u][h].z ^ r[u][h].w;
    }
    if (acc == 0x12345678u)
        o[0] = acc;
}

template <class F> float timeIt(F f)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int i = 0; i < 5; ++i)
        f();
    std::vector<float> ts;
    for (int i = 0; i < 41; ++i) {
        cudaEventRecord(a);
        f();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        ts.push_back(ms * 1000);
    }
    std::sort(ts.begin(), ts.end());
    // back-to-back
    cudaEventRecord(a);
    for (int i = 0; i < 100; ++i)
        f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    printf("  median %.2f us  min %.2f  b2b %.2f us", ts[20], ts[0], ms * 10);
    return ts[20];
}

/// One "rows" / "tile" variant of the probe: its label and its launch (128 threads a block).
template <int U, int H, bool T> void launchRows(dim3 g, const uint8_t *w, int n, int k, int split, unsigned *o)
{
    rows<U, H, T><<<g, 128>>>(w, n, k, split, o);
}
struct Variant {
    const char *name;
    void (*launch)(dim3, const uint8_t *, int, int, int, unsigned *);
};
const Variant kWarmVariants[] = {
    {"rows U1 plain", launchRows<1, 0, false>},  {"rows U2 plain", launchRows<2, 0, false>},
    {"rows U4 plain", launchRows<4, 0, false>},  {"rows U2 L2:128", launchRows<2, 1, false>},
    {"rows U2 L2:256", launchRows<2, 2, false>}, {"rows U4 L2:256", launchRows<4, 2, false>},
    {"tile U1", launchRows<1, 0, true>},         {"tile U2", launchRows<2, 0, true>},
    {"tile U4", launchRows<4, 0, true>},         {"tile U4 L2:256", launchRows<4, 2, true>}};
const Variant kColdVariants[] = {{"rows U2 plain", launchRows<2, 0, false>},
                                 {"rows U2 L2:256", launchRows<2, 2, false>},
                                 {"tile U2", launchRows<2, 0, true>},
                                 {"tile U4", launchRows<4, 0, true>}};

int main()
{
    const int N = 4096, K = 14336;
    const long long bytes = (long long)N * K / 2;
    uint8_t *w;
    unsigned *o;
    CK(cudaMalloc(&w, bytes));
    CK(cudaMalloc(&o, 64));
    CK(cudaMemset(w, 0x5a, bytes));
    // A large buffer to flush L2 is not used: the weight (29 MB) fits the H200's 50 MB L2, so flush.
    uint8_t *flush;
    const long long fb = 256ll << 20;
    CK(cudaMalloc(&flush, fb));
    int sms;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    printf("SMs %d, bytes %lld\n", sms, bytes);
    auto flushL2 = [&] { cudaMemsetAsync(flush, 1, fb); };
    // Times with an L2 flush before each timed launch (the lab's weights are cold? report both).
    for (int cold = 0; cold < 2; ++cold) {
        printf("=== %s\n", cold ? "L2 flushed before each launch (flush inside the timing: subtract)"
                                : "warm (back-to-back, weight may sit in L2)");
        auto run = [&](const char *name, auto launch) {
            printf("%-40s", name);
            float t = timeIt([&] { launch(); });
            printf("  -> %.0f GB/s\n", bytes / (t * 1e3));
        };
        run("empty", [&] { empty<<<1, 32>>>(o); });
        if (cold)
            continue;
        for (int bpsm : {2, 4, 8, 16}) {
            char nm[64];
            snprintf(nm, 64, "stream U4 256thr %d blk/SM", bpsm);
            run(nm, [&] { stream<4><<<sms * bpsm, 256>>>((const uint4 *)w, bytes / 16, o); });
        }
        for (int split : {1, 2, 4, 7, 8, 14})
            for (const Variant &v : kWarmVariants) {
                char nm[80];
                snprintf(nm, 80, "%s split %d", v.name, split);
                run(nm, [&] { v.launch(dim3(N / 64, split), w, N, K, split, o); });
            }
    }
    // Cold: flush then one launch, timed by events around the launch only.
    printf("=== cold (flush, then event-timed launch)\n");
    auto cold = [&](const char *name, auto launch) {
        cudaEvent_t a, b;
        cudaEventCreate(&a);
        cudaEventCreate(&b);
        std::vector<float> ts;
        for (int i = 0; i < 25; ++i) {
            flushL2();
            cudaEventRecord(a);
            launch();
            cudaEventRecord(b);
            cudaEventSynchronize(b);
            float ms;
            cudaEventElapsedTime(&ms, a, b);
            ts.push_back(ms * 1000);
        }
        std::sort(ts.begin(), ts.end());
        printf("%-40s cold median %.2f us -> %.0f GB/s\n", name, ts[12], bytes / (ts[12] * 1e3));
    };
    cold("stream U4 256thr 8 blk/SM", [&] { stream<4><<<sms * 8, 256>>>((const uint4 *)w, bytes / 16, o); });
    for (int split : {2, 4, 8})
        for (const Variant &v : kColdVariants) {
            char nm[80];
            snprintf(nm, 80, "%s split %d", v.name, split);
            cold(nm, [&] { v.launch(dim3(N / 64, split), w, N, K, split, o); });
        }
    return 0;
}
