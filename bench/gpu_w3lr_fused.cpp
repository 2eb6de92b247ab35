// SPDX-License-Identifier: MIT
// The fused W3A16 GEMM with MiLo's rank-r compensator (issue 43) on the device: what rank r
// costs at inference. N = 4096, K = 14336 (--rows N --cols K), g64 3-bit HQQ weights (synthetic
// codes u ∈ [0, 7] with realistic scales and float zero points; Ŵ the CPU's hqqDequantizeFlat of
// the milo-code preset's op order, grouped along K), a compensator of int8-coded factors
// (quantizeCompensator: Û [N, r], V̂ [r, K] as stored values, FP32). For M ∈ --ms (1, 4, 16) and
// r ∈ --ranks (0, 16, 32, 64, 128):
//   w3          the fused W3 GEMM alone (rank 0)
//   w3+r        the fused GEMM + compensator: the T = X·V̂ᵀ pre-kernel and the GEMM with Û·T in
//               its epilogue, overlapped by programmatic dependent launch ("w3+r seq": plain
//               stream order, for the overlap's worth)
//   bf16        cuBLASLt on BF16 weights (bf16(Ŵ), rank 0)
//   unfused     dequantize W3 + Û·V̂ into BF16 (one kernel) + cuBLASLt
// every output checked against the FP64 product (w3lr_pack.h reference and bounds), the ratio
// (w3 + r) / (w3 alone) printed per M (the bar: ≤ 1.2 at M = 1, r = 32). Timing: CUDA events
// around each step (pre-kernel + GEMM together), rotating weight copies over 2× L2, warm-up,
// median of --repeats.
// Usage: qs_bench_gpu_w3lr_fused [--out DIR] [--rows N] [--cols K] [--group G] [--ms LIST]
//            [--ranks LIST] [--repeats R] [--warmup W]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "gemm_bench_common.h"
#include "kernels/gemm/kernels_w3lr.h"
#include "host/w3lr_synthetic.h"
#include "kernels/gemm/w3lr_pack.h"
#include "quant/hqq.h"
#include "quant/milo.h"

using namespace quantscope;
namespace L = quantscope::gpu::launch;
namespace W = quantscope::gpu::w3lr;

namespace {

#define LT(call)                                                                                                       \
    do {                                                                                                               \
        if (cublasStatus_t s_ = (call); s_ != CUBLAS_STATUS_SUCCESS) {                                                 \
            std::fprintf(stderr, "%s: cuBLASLt status %d\n", #call, static_cast<int>(s_));                             \
            std::exit(2);                                                                                              \
        }                                                                                                              \
    } while (0)

std::vector<long long> parseList(const std::string &csv)
{
    std::vector<long long> v;
    std::stringstream ss(csv);
    for (std::string item; std::getline(ss, item, ',');)
        v.push_back(std::stoll(item));
    return v;
}

void *devCopy(const void *src, std::size_t bytes)
{
    void *p = nullptr;
    QS_BENCH_CK(cudaMalloc(&p, std::max<std::size_t>(bytes, 16)));
    if (bytes)
        QS_BENCH_CK(cudaMemcpy(p, src, bytes, cudaMemcpyHostToDevice));
    return p;
}

/// Y[M, N] = X[M, K]·Wᵀ in BF16 by cuBLASLt (FP32 compute), W BF16 [N, K] row-major.
struct LtGemm {
    cublasLtHandle_t lt = nullptr;
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    cublasLtMatmulAlgo_t algo{};
    void *ws = nullptr;
    std::size_t wsBytes = 32u << 20;
    LtGemm(long long m, long long n, long long k)
    {
        LT(cublasLtCreate(&lt));
        LT(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
        const cublasOperation_t tA = CUBLAS_OP_T, tB = CUBLAS_OP_N;
        LT(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &tA, sizeof tA));
        LT(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tB, sizeof tB));
        // Column-major: Yᵀ [N, M] = (W as K × N)ᵀ · (X as K × M).
        LT(cublasLtMatrixLayoutCreate(&a, CUDA_R_16BF, k, n, k));
        LT(cublasLtMatrixLayoutCreate(&b, CUDA_R_16BF, k, m, k));
        LT(cublasLtMatrixLayoutCreate(&d, CUDA_R_16BF, n, m, n));
        QS_BENCH_CK(cudaMalloc(&ws, wsBytes));
        cublasLtMatmulPreference_t pref = nullptr;
        LT(cublasLtMatmulPreferenceCreate(&pref));
        LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsBytes,
                                                sizeof wsBytes));
        cublasLtMatmulHeuristicResult_t res{};
        int found = 0;
        LT(cublasLtMatmulAlgoGetHeuristic(lt, desc, a, b, d, d, pref, 1, &res, &found));
        cublasLtMatmulPreferenceDestroy(pref);
        if (found < 1) {
            std::fprintf(stderr, "cuBLASLt: no algorithm for M=%lld\n", m);
            std::exit(2);
        }
        algo = res.algo;
    }
    ~LtGemm()
    {
        cudaFree(ws);
        cublasLtMatrixLayoutDestroy(a), cublasLtMatrixLayoutDestroy(b), cublasLtMatrixLayoutDestroy(d);
        cublasLtMatmulDescDestroy(desc);
        cublasLtDestroy(lt);
    }
    void run(const void *w, const void *x, void *y, cudaStream_t s)
    {
        const float one = 1.0f, zero = 0.0f;
        LT(cublasLtMatmul(lt, desc, &one, w, a, x, b, &zero, y, d, y, d, &algo, ws, wsBytes, s));
    }
};

/// Median µs of `repeats` runs of step(rep) between two events, after `warmup` untimed runs.
double timeMedian(const std::function<void(int)> &step, int warmup, int repeats, cudaStream_t s)
{
    cudaEvent_t e0, e1;
    QS_BENCH_CK(cudaEventCreate(&e0));
    QS_BENCH_CK(cudaEventCreate(&e1));
    for (int i = 0; i < warmup; ++i)
        step(i);
    std::vector<double> t;
    for (int i = 0; i < repeats; ++i) {
        QS_BENCH_CK(cudaEventRecord(e0, s));
        step(warmup + i);
        QS_BENCH_CK(cudaEventRecord(e1, s));
        QS_BENCH_CK(cudaEventSynchronize(e1));
        float ms = 0;
        QS_BENCH_CK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(1000.0 * ms);
    }
    cudaEventDestroy(e0), cudaEventDestroy(e1);
    return bench::summarize(t).median;
}

std::vector<std::uint16_t> download(const void *y, long long count)
{
    std::vector<std::uint16_t> out(static_cast<std::size_t>(count));
    QS_BENCH_CK(cudaMemcpy(out.data(), y, 2 * out.size(), cudaMemcpyDeviceToHost));
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    long long n = 4096, k = 14336, group = 64;
    std::vector<long long> ms = {1, 4, 16}, ranks = {0, 16, 32, 64, 128};
    int repeats = 50, warmup = 10;
    std::string out;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "--out")
            out = next();
        else if (a == "--rows")
            n = std::stoll(next());
        else if (a == "--cols")
            k = std::stoll(next());
        else if (a == "--group")
            group = std::stoll(next());
        else if (a == "--ms")
            ms = parseList(next());
        else if (a == "--ranks")
            ranks = parseList(next());
        else if (a == "--repeats")
            repeats = std::stoi(next());
        else if (a == "--warmup")
            warmup = std::stoi(next());
        else {
            std::fprintf(stderr, "unknown option %s\n", a.c_str());
            return 2;
        }
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
        std::printf("no GPU: nothing measured\n");
        return 0;
    }
    for (const long long r : ranks)
        for (const long long m : ms)
            if (const std::string why = L::w3lrRefusal(m, k, group, static_cast<int>(r)); !why.empty()) {
                std::fprintf(stderr, "refused: %s\n", why.c_str());
                return 2;
            }
    cudaDeviceProp prop{};
    QS_BENCH_CK(cudaGetDeviceProperties(&prop, 0));
    const long long maxRank = ranks.empty() ? 0 : *std::max_element(ranks.begin(), ranks.end());

    // The weights: the GEMM lab's synthetic 3-bit codes, scales and zero points (host/w3lr_synthetic.h).
    std::mt19937_64 rng(0x3143);
    const gpu::W3SyntheticWeights syn = gpu::syntheticW3Weights(n, k, group, rng);
    if (syn.packed.empty()) {
        std::fprintf(stderr, "packing failed\n");
        return 2;
    }
    const std::vector<std::uint8_t> &codes = syn.codes;
    const std::vector<float> &scales = syn.scales, &zeros = syn.zeros, &wHat = syn.wHat;
    const std::vector<std::uint32_t> &packed = syn.packed;
    std::normal_distribution<float> fd(0.0f, 0.01f);
    std::vector<float> uAll(static_cast<std::size_t>(n * maxRank)), vAll(static_cast<std::size_t>(maxRank * k));
    for (auto &e : uAll)
        e = fd(rng);
    for (auto &e : vAll)
        e = fd(rng);
    std::vector<std::uint16_t> wBf16(wHat.size());
    for (std::size_t i = 0; i < wHat.size(); ++i)
        wBf16[i] = floatToBf16(wHat[i]);

    // Rotating copies of everything the GEMMs read (W3 + meta ≈ 29 MiB at the default shape).
    const std::size_t w3Bytes = 4 * packed.size() + 8 * scales.size();
    const int copies =
        static_cast<int>(std::max<long long>(2, 2 * prop.l2CacheSize / static_cast<long long>(w3Bytes) + 1));
    struct Copy {
        void *w, *s, *z, *bf;
    };
    std::vector<Copy> cp;
    for (int c = 0; c < copies; ++c)
        cp.push_back({devCopy(packed.data(), 4 * packed.size()), devCopy(scales.data(), 4 * scales.size()),
                      devCopy(zeros.data(), 4 * zeros.size()),
                      c < 2 ? devCopy(wBf16.data(), 2 * wBf16.size()) : nullptr});
    cudaStream_t s;
    QS_BENCH_CK(cudaStreamCreate(&s));
    const long long mMax = *std::max_element(ms.begin(), ms.end());
    void *dy = nullptr, *dq = nullptr, *dws = nullptr, *dcnt = nullptr;
    QS_BENCH_CK(cudaMalloc(&dy, 2 * static_cast<std::size_t>(mMax * n)));
    QS_BENCH_CK(cudaMalloc(&dq, 2 * static_cast<std::size_t>(n * k)));
    QS_BENCH_CK(cudaMalloc(&dws, 4 * static_cast<std::size_t>(mMax * n + mMax * std::max(maxRank, 1LL))));
    QS_BENCH_CK(cudaMalloc(&dcnt, 4 * static_cast<std::size_t>(n)));
    QS_BENCH_CK(cudaMemset(dws, 0, 4 * static_cast<std::size_t>(mMax * n + mMax * std::max(maxRank, 1LL))));
    QS_BENCH_CK(cudaMemset(dcnt, 0, 4 * static_cast<std::size_t>(n)));

    std::printf("fused W3A16 + MiLo compensator: N=%lld K=%lld g%lld, %s, %d weight copies, median of %d\n", n, k,
                group, prop.name, copies, repeats);
    std::printf("%-10s %4s %5s %10s %8s %9s  %s\n", "series", "M", "rank", "time_us", "vs w3", "B/token", "check");
    bool ok = true;
    nlohmann::json points = nlohmann::json::array();
    auto record = [&](const std::string &series, long long m, long long r, double us, double ratio, double bytes,
                      double worst, const std::string &note) {
        const bool pass = worst <= 1.0;
        ok = ok && pass;
        std::printf("%-10s %4lld %5lld %10.2f %7.3fx %9.0f  %s worst %.3g of the bound%s\n", series.c_str(), m, r, us,
                    ratio, bytes / static_cast<double>(m), pass ? "checked" : "CHECK FAILED", worst, note.c_str());
        std::fflush(stdout);
        points.push_back({{"series", series},
                          {"m", m},
                          {"rank", r},
                          {"time_us", us},
                          {"ratio_vs_w3", ratio},
                          {"bytes", bytes},
                          {"bytes_per_token", bytes / static_cast<double>(m)},
                          {"worst_of_bound", worst},
                          {"checked", pass},
                          {"note", note}});
    };
    nlohmann::json ratios = nlohmann::json::array();
    for (const long long m : ms) {
        std::vector<std::uint16_t> x(static_cast<std::size_t>(m * k));
        std::normal_distribution<float> xd(0.0f, 1.0f);
        for (auto &e : x)
            e = floatToBf16(xd(rng));
        void *dx = devCopy(x.data(), 2 * x.size());
        LtGemm lt(m, n, k);
        double w3Us = 0;
        for (const long long r : ranks) {
            // The compensator's stored factors at rank r: Û = U[:, :r], V̂ = V[:r, :] int8-coded (g64).
            std::vector<float> ur(static_cast<std::size_t>(n * r));
            for (long long row = 0; row < n; ++row)
                std::copy_n(uAll.begin() + row * maxRank, r, ur.begin() + row * r);
            std::vector<float> vr(vAll.begin(), vAll.begin() + r * k);
            if (r > 0) {
                ur = quantizeCompensator(ur, n, r, CompensatorFormat::Int8, 64).values;
                vr = quantizeCompensator(vr, r, k, CompensatorFormat::Int8, 64).values;
            }
            void *du = devCopy(ur.data(), 4 * ur.size()), *dv = devCopy(vr.data(), 4 * vr.size());
            W::HostOperands o;
            o.m = m, o.n = n, o.k = k, o.group = group, o.rank = static_cast<int>(r);
            o.codes = codes.data(), o.scales = scales.data(), o.zeros = zeros.data(), o.wHat = wHat.data();
            o.u = ur.data(), o.v = vr.data(), o.x = x.data();
            const W::Reference R = W::reference(o);
            L::W3lrProblem p;
            p.x = dx, p.y = dy, p.m = m, p.n = n, p.k = k, p.group = group, p.rank = static_cast<int>(r);
            p.u = static_cast<const float *>(du), p.v = static_cast<const float *>(dv);
            auto at = [&](int rep) {
                const Copy &c = cp[static_cast<std::size_t>(rep % copies)];
                p.packed = static_cast<const std::uint32_t *>(c.w);
                p.scales = static_cast<const float *>(c.s), p.zeros = static_cast<const float *>(c.z);
            };
            // Bytes a step reads / writes: packed codes + scales + zeros + factors + X + Y.
            const double bytes = static_cast<double>(w3Bytes) + 4.0 * static_cast<double>(n * r + r * k) +
                                 2.0 * static_cast<double>(m * k + m * n);
            for (const int pdl : {0, -1}) {
                if (pdl == -1 && r == 0)
                    continue;
                L::W3lrTiling t;
                t.pdl = pdl;
                L::W3lrLaunch used;
                const double us = timeMedian(
                    [&](int rep) {
                        at(rep);
                        used = L::w3lrFused(p, t, dws, dcnt, s);
                    },
                    warmup, repeats, s);
                at(0);
                L::w3lrFused(p, t, dws, dcnt, s);
                QS_BENCH_CK(cudaStreamSynchronize(s));
                const double worst = W::worstOfBound(o, R, download(dy, m * n).data(), false);
                if (r == 0)
                    w3Us = us;
                char note[160];
                std::snprintf(note, sizeof note, "; split-K %d, %d blocks, %d token tile(s)%s", used.splitK,
                              used.blocks, used.tokenTiles,
                              r == 0     ? ""
                              : used.pdl ? ", PDL"
                                         : ", stream order");
                const std::string series = r == 0 ? "w3" : pdl == -1 ? "w3+r seq" : "w3+r";
                record(series, m, r, us, w3Us > 0 ? us / w3Us : 0.0, bytes, worst, note);
                if (r > 0 && pdl == 0)
                    ratios.push_back({{"m", m}, {"rank", r}, {"ratio", w3Us > 0 ? us / w3Us : 0.0}});
            }
            if (r == 0) { // BF16 cuBLASLt on bf16(Ŵ), against the rank-0 reference (unfused bound)
                const double us = timeMedian(
                    [&](int rep) { lt.run(cp[static_cast<std::size_t>(rep % 2)].bf, dx, dy, s); }, warmup, repeats, s);
                lt.run(cp[0].bf, dx, dy, s);
                QS_BENCH_CK(cudaStreamSynchronize(s));
                record("bf16", m, 0, us, w3Us > 0 ? us / w3Us : 0.0, 2.0 * static_cast<double>(n * k + m * k + m * n),
                       W::worstOfBound(o, R, download(dy, m * n).data(), true), "; cuBLASLt, BF16 weights");
            }
            { // unfused: dequantize W3 + Û·V̂ into BF16, then cuBLASLt
                const double us = timeMedian(
                    [&](int rep) {
                        at(rep);
                        L::w3lrDequantBf16(p, dq, s);
                        lt.run(dq, dx, dy, s);
                    },
                    warmup, repeats, s);
                at(0);
                L::w3lrDequantBf16(p, dq, s);
                lt.run(dq, dx, dy, s);
                QS_BENCH_CK(cudaStreamSynchronize(s));
                record("unfused", m, r, us, w3Us > 0 ? us / w3Us : 0.0, bytes,
                       W::worstOfBound(o, R, download(dy, m * n).data(), true),
                       "; dequantize (W3 + Û·V̂ → BF16) + cuBLASLt");
            }
            cudaFree(du), cudaFree(dv);
        }
        cudaFree(dx);
    }
    std::printf("(w3 + r) / (w3 alone):\n");
    for (const auto &rt : ratios)
        std::printf("  M %3lld rank %4lld: %.3f%s\n", rt["m"].get<long long>(), rt["rank"].get<long long>(),
                    rt["ratio"].get<double>(),
                    rt["m"].get<long long>() == 1 && rt["rank"].get<long long>() == 32
                        ? (rt["ratio"].get<double>() <= 1.2 ? "  (bar ≤ 1.2: met)" : "  (bar ≤ 1.2: NOT met)")
                        : "");
    std::printf("outputs %s\n", ok ? "all within the FP64 bound" : "CHECK FAILED");
    if (!out.empty()) {
        nlohmann::json doc{{"benchmark", "gpu_w3lr_fused"},
                           {"date", bench::utcNow()},
                           {"device", prop.name},
                           {"n", n},
                           {"k", k},
                           {"group", group},
                           {"repeats", repeats},
                           {"warmup", warmup},
                           {"weight_copies", copies},
                           {"outputs_checked", ok},
                           {"points", points},
                           {"ratios", ratios}};
        std::filesystem::create_directories(out);
        std::ofstream f(std::filesystem::path(out) / "gpu_w3lr_fused.json");
        f << doc.dump(1) << '\n';
    }
    for (auto &c : cp)
        cudaFree(c.w), cudaFree(c.s), cudaFree(c.z), cudaFree(c.bf);
    return ok ? 0 : 1;
}
