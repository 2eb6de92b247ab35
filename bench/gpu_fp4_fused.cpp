// SPDX-License-Identifier: MIT
// The fused MXFP4 / NVFP4 × BF16 GEMM (issue 43) on the device, as `quantscope-cli gemm-bench
// --formats bf16,mxfp4,nvfp4` runs it (runGemmBench on the GPU backend):
//   1. N = 4096, K = 14336 (--rows N --cols K; the engine's quantizers on a seeded N(0, 0.02)
//      tensor) over --m-sweep (default 1, 2, 4, 8, 16): BF16 cuBLASLt, the fused kernel (the
//      format's point) and the unfused route (dequantize to BF16 + cuBLASLt BF16, "-unfused"), each
//      with bytes per token, weight-read roofline fraction and speed-up over BF16, every output
//      checked on the device against the FP64 product of the exact Ŵ;
//   2. --sweep: the kernel's tiling (split-K × chunks ahead 1, 2, 4) at M = 1, 8, 16 on seeded
//      codes and scales, each launch checked against FP64 on every element.
// Usage: qs_bench_gpu_fp4_fused [--out DIR] [--rows N] [--cols K] [--repeats R] [--warmup W]
//            [--m-sweep LIST] [--sweep]
// bench/gemm_fp4_torch.py times PyTorch's dequantize + matmul and torch.matmul on the same shapes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "gemm_bench_common.h"
#include "engine/gemm_bench_device.h"
#include "engine/registry.h"
#include "kernels/gemm/kernels_fp4gemm.h"
#include "register.h"

using namespace quantscope;
namespace L = quantscope::gpu::launch;

namespace {

/// The tiling sweep of one format on seeded codes and scales (MXFP4 bytes 120…124; NVFP4 E4M3
/// bytes 0x30…0x4F, global 100): median µs of each (split-K, chunks ahead) and the FP64 check.
nlohmann::json sweepFormat(L::Fp4GemmFormat f, long long n, long long k, int repeats, int warmup, bool &ok)
{
    const long long g = L::fp4GemmGroup(f), maxM = L::kFp4GemmMaxM;
    std::mt19937_64 rng(0xF4);
    std::vector<std::uint8_t> w(static_cast<std::size_t>(n * k / 2)), s(static_cast<std::size_t>(n * (k / g)));
    for (auto &b : w)
        b = static_cast<std::uint8_t>(rng());
    for (auto &b : s)
        b = static_cast<std::uint8_t>(f == L::Fp4GemmFormat::Mxfp4 ? 120 + rng() % 5 : 0x30 + rng() % 32);
    std::vector<std::uint16_t> x(static_cast<std::size_t>(maxM * k));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (auto &v : x) {
        const float fv = normal(rng);
        std::uint32_t u;
        std::memcpy(&u, &fv, 4);
        v = static_cast<std::uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16); // BF16, nearest even
    }
    void *dW, *dS, *dX, *dY, *dWs, *dCnt, *dRes;
    L::Fp4GemmProblem p;
    p.format = f;
    p.globalScale = f == L::Fp4GemmFormat::Nvfp4 ? 100.0f : 1.0f;
    p.m = maxM, p.n = n, p.k = k;
    QS_BENCH_CK(cudaMalloc(&dW, w.size()));
    QS_BENCH_CK(cudaMalloc(&dS, s.size()));
    QS_BENCH_CK(cudaMalloc(&dX, 2 * x.size()));
    QS_BENCH_CK(cudaMalloc(&dY, 2 * static_cast<std::size_t>(maxM * n)));
    QS_BENCH_CK(cudaMalloc(&dWs, L::fp4GemmWorkspaceBytes(p)));
    QS_BENCH_CK(cudaMalloc(&dCnt, L::fp4GemmCounterBytes(p)));
    QS_BENCH_CK(cudaMalloc(&dRes, 16));
    QS_BENCH_CK(cudaMemcpy(dW, w.data(), w.size(), cudaMemcpyHostToDevice));
    QS_BENCH_CK(cudaMemcpy(dS, s.data(), s.size(), cudaMemcpyHostToDevice));
    QS_BENCH_CK(cudaMemcpy(dX, x.data(), 2 * x.size(), cudaMemcpyHostToDevice));
    QS_BENCH_CK(cudaMemset(dWs, 0, L::fp4GemmWorkspaceBytes(p)));
    QS_BENCH_CK(cudaMemset(dCnt, 0, L::fp4GemmCounterBytes(p)));
    p.packed = static_cast<const std::uint8_t *>(dW);
    p.scales = static_cast<const std::uint8_t *>(dS);
    p.x = dX;
    p.y = dY;
    cudaEvent_t e0, e1;
    QS_BENCH_CK(cudaEventCreate(&e0));
    QS_BENCH_CK(cudaEventCreate(&e1));
    const char *name = f == L::Fp4GemmFormat::Mxfp4 ? "mxfp4" : "nvfp4";
    nlohmann::json out = nlohmann::json::array();
    for (const long long m : {1LL, 8LL, 16LL})
        for (const int ahead : {1, 2, 4})
            for (const int sk : {0, 1, 4, 8, 16, 28}) {
                p.m = m;
                L::Fp4GemmTiling t;
                t.splitK = sk;
                t.chunksAhead = ahead;
                L::Fp4GemmLaunch used;
                for (int i = 0; i < warmup; ++i)
                    L::fp4GemmFused(p, t, dWs, dCnt, nullptr);
                std::vector<double> us;
                for (int r = 0; r < repeats; ++r) {
                    QS_BENCH_CK(cudaEventRecord(e0));
                    used = L::fp4GemmFused(p, t, dWs, dCnt, nullptr);
                    QS_BENCH_CK(cudaEventRecord(e1));
                    QS_BENCH_CK(cudaEventSynchronize(e1));
                    float ms = 0;
                    QS_BENCH_CK(cudaEventElapsedTime(&ms, e0, e1));
                    us.push_back(1e3 * ms);
                }
                std::sort(us.begin(), us.end());
                const double wRel = f == L::Fp4GemmFormat::Nvfp4 ? std::ldexp(1.0, -23) : 0.0;
                L::fp4GemmCheckFp64(p, 1, wRel, static_cast<double *>(dRes),
                                    reinterpret_cast<unsigned long long *>(static_cast<char *>(dRes) + 8), nullptr);
                double worst = 0;
                unsigned long long count = 0;
                QS_BENCH_CK(cudaMemcpy(&worst, dRes, 8, cudaMemcpyDeviceToHost));
                QS_BENCH_CK(cudaMemcpy(&count, static_cast<char *>(dRes) + 8, 8, cudaMemcpyDeviceToHost));
                const bool good = worst <= 1.0 && count == static_cast<unsigned long long>(m * n);
                ok = ok && good;
                std::printf("sweep %s M %2lld ahead %d split-K %2d (ran %2d, %4d blocks): %8.2f µs  check %s "
                            "(worst %.3g of the bound)\n",
                            name, m, ahead, sk, used.splitK, used.blocks, us[us.size() / 2], good ? "ok" : "FAILED",
                            worst);
                out.push_back({{"format", name},
                               {"m", m},
                               {"chunks_ahead", ahead},
                               {"split_k", sk},
                               {"split_k_ran", used.splitK},
                               {"blocks", used.blocks},
                               {"time_us", us[us.size() / 2]},
                               {"check_worst", worst},
                               {"checked_outputs", count}});
            }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    for (void *ptr : {dW, dS, dX, dY, dWs, dCnt, dRes})
        cudaFree(ptr);
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    const bench::FusedBenchArgs args = bench::parseFusedBenchArgs(argc, argv, {1, 2, 4, 8, 16});
    const bench::CommonOptions &opt = args.opt;
    const Backend *gpu = bench::fusedBenchGpu(L::fp4GemmBuilt(), "fused FP4 GEMM");
    if (!gpu)
        return 2;
    const GemmBenchRequest q = bench::fusedLabRequest(args, {GemmFormat::Bf16, GemmFormat::Mxfp4, GemmFormat::Nvfp4});
    const GemmBenchResult dense = bench::runPrintedLab(q);
    bool ok = bench::gemmPointsChecked(dense);
    nlohmann::json sweepDoc = nlohmann::json::array();
    if (args.sweep)
        for (const auto f : {L::Fp4GemmFormat::Mxfp4, L::Fp4GemmFormat::Nvfp4})
            for (auto &row : sweepFormat(f, q.n, q.k, q.repeats, q.warmup, ok))
                sweepDoc.push_back(row);
    bench::writeFusedDoc(opt.out, "gpu_fp4_fused", *gpu, q,
                         "CUDA events around each launch on the engine stream (runGemmBench); warm-up; median of the "
                         "repeats; rotating weight copies under 2x L2",
                         ok, {{"dense", toJson(dense)}, {"sweep", sweepDoc}});
    return ok ? 0 : 1;
}
