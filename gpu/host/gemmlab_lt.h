// SPDX-License-Identifier: MIT
#pragma once
/// \file gemmlab_lt.h
/// Helpers of the GEMM timing lab II (engine_gemmlab_moe_roofline.cpp, engine_gemmlab_quant.cpp; CUDA builds
/// only): one cuBLASLt GEMM D[N,M] = Wᵀ·X ("TN", optionally strided-batched), device-event timing
/// of a multi-stage step, the candidates' tuning and the output checks' sampling.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <cublasLt.h>
#include <cuda_runtime.h>

#include "engine.h"
#include "engine_impl.h"

namespace quantscope::gpu::lab2 {

inline constexpr std::size_t kWs = 32u << 20;

void checkLt(cublasStatus_t s, const char *what);

struct Lt {
    cublasLtHandle_t h = nullptr;
    void *ws = nullptr;
    std::mutex mutex;
};
Lt &lt();
/// Whether this build and the loaded cuBLASLt have the outer-vector (row-wise) FP8 scale mode.
bool haveOuterVec();

enum class Scale { None, Tensor, Outer };

/// One cuBLASLt GEMM D[N,M] = Wᵀ·X (batch > 1: strided-batched over E experts).
struct Gemm {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    std::vector<cublasLtMatmulAlgo_t> algos;
    cublasLtMatmulAlgo_t algo{};
    bool int32 = false;
    Gemm() = default;
    Gemm(const Gemm &) = delete;
    Gemm &operator=(const Gemm &) = delete;
    ~Gemm()
    {
        if (desc)
            cublasLtMatmulDescDestroy(desc);
        for (auto l : {a, b, d})
            if (l)
                cublasLtMatrixLayoutDestroy(l);
    }
    cublasStatus_t run(const void *A, const void *B, void *D, cudaStream_t s) const
    {
        const float oneF = 1.0f, zeroF = 0.0f;
        const std::int32_t oneI = 1, zeroI = 0;
        const void *alpha = int32 ? static_cast<const void *>(&oneI) : &oneF;
        const void *beta = int32 ? static_cast<const void *>(&zeroI) : &zeroF;
        return cublasLtMatmul(lt().h, desc, alpha, A, a, B, b, beta, D, d, D, d, &algo, lt().ws, kWs, s);
    }
};

/// nullptr with `why` when cuBLASLt has no algorithm (or refuses an attribute). `batch` > 1:
/// strided-batched, expert e's W, X and D right after expert e − 1's. The heuristic's first
/// `candidates` algorithms are kept (tune() picks the fastest). FP8 scale pointers must be
/// 16-byte aligned.
std::unique_ptr<Gemm> makeGemm(cudaDataType_t in, cudaDataType_t out, Scale scale, const float *aScale,
                               const float *bScale, std::int64_t m, std::int64_t n, std::int64_t k, int batch,
                               std::string &why, int candidates = 4);

struct Events {
    std::vector<cudaEvent_t> ev;
    explicit Events(std::size_t n) : ev(n)
    {
        for (auto &e : ev)
            QS_GPU_CHECK(cudaEventCreate(&e));
    }
    ~Events()
    {
        for (auto e : ev)
            cudaEventDestroy(e);
    }
    double us(std::size_t a, std::size_t b) const
    {
        float t = 0;
        QS_GPU_CHECK(cudaEventElapsedTime(&t, ev[a], ev[b]));
        return 1e3 * t;
    }
};

double median(std::vector<double> v);

/// A step queued on the stream: rep index in, marks (events) it records between its stages.
using Step = std::function<bool(int rep, const std::vector<cudaEvent_t> &marks)>;
/// Times `step` (cold call, warm-up, `repeats` runs): per stage the median µs, the last entry the
/// whole step; and the cold call's µs. nullopt when the step reports a refusal.
std::optional<std::pair<std::vector<double>, double>> timeStep(const Step &step, int stages, int warmup, int repeats,
                                                               cudaStream_t s);
/// The fastest of the heuristic's candidates for `run`.
void tune(Gemm &g, const std::function<cublasStatus_t()> &run, cudaStream_t s);
/// M, then ⌈M⌉₁₆ where that differs (cuBLASLt refuses some M for the 8-bit types).
std::vector<std::int64_t> mTries(std::int64_t m);
std::shared_ptr<void> upload(Engine::Impl &I, const void *host, std::size_t bytes, const std::string &what);
/// Token scales like part I's: 1.5e-2 · (1 + (m mod 5)/4).
std::vector<float> tokenScales(std::int64_t m);
std::vector<std::int64_t> sampleRows(std::int64_t m);
std::vector<std::int64_t> sampleCols(std::int64_t n);

/// The fused W4A16 point's format (sim/gemm_bench.h) and the M above which the lab routes the
/// fused series to dequantize + cuBLASLt (the point then carries the unfused time and says so).
inline constexpr const char *kFusedW4a16Format = kW4a16FusedFormat;
inline constexpr std::int64_t kFusedMaxM = 256;
/// The fused W4A16 kernel at M on the weight copies of the unfused path (engine_gemmlab_fused.cpp):
/// a point like `unfused` (format w4a16-fused), its output checked on the device against FP64
/// (appended to `checks`); nullopt with `why` when the kernel does not run this shape or data.
std::optional<GemmPoint> timeFusedW4a16(Engine::Impl &I, const GemmBenchRequest &request, const QuantizedTensor &q,
                                        const std::vector<std::shared_ptr<void>> &weights, const float *scales,
                                        const std::int8_t *zeros, const void *x, std::int64_t m, std::int64_t group,
                                        const GemmPoint &unfused, std::vector<Engine::GemmLabCheck> &checks,
                                        std::string &why);

/// The w3a16-milo points (engine_gemmlab_w3lr.cpp): the fused W3A16 + rank-request.w3Rank kernel at
/// each M ≤ 16 of the request on seeded weights, each output checked against FP64 (appended to `checks`).
std::vector<GemmPoint> timeW3a16Milo(Engine::Impl &I, const GemmBenchRequest &request,
                                     std::vector<Engine::GemmLabCheck> &checks);

} // namespace quantscope::gpu::lab2
