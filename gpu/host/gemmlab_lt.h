// SPDX-License-Identifier: MIT
#pragma once
/// \file gemmlab_lt.h
/// Helpers of the GEMM timing lab II (engine_gemmlab_moe_roofline.cpp, engine_gemmlab_quant.cpp; CUDA builds
/// only): one cuBLASLt GEMM D[N,M] = Wᵀ·X ("TN", optionally strided-batched), device-event timing
/// of a multi-stage step, the candidates' tuning and the output checks' sampling.
#include <cstdint>
#include <functional>
#include <map>
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

/// cuBLASLt's workspace: 32 MiB, as PyTorch gives cuBLAS(Lt) on sm_90 (engine_gemmlab.cpp).
inline constexpr std::size_t kWs = 32u << 20;
/// Candidates asked of the heuristic per GEMM; tune() times every one it returns.
inline constexpr int kCandidates = 16;

void checkLt(cublasStatus_t s, const char *what);

struct Lt {
    cublasLtHandle_t h = nullptr;
    void *ws = nullptr;
    std::mutex mutex;
    /// tune()'s choices for the process: Gemm::key → (index in the heuristic's list, timed).
    std::map<std::string, std::pair<int, int>> chosen;
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
    std::string key;    ///< types, scale mode, shape and batch: tune()'s cache key
    int algoIndex = 0;  ///< the chosen algorithm's index in `algos` (0: the heuristic's first)
    int algosTried = 0; ///< candidates timed to choose it (0: not tuned)
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
                               std::string &why, int candidates = kCandidates);

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
/// whole step; and the cold call's µs. nullopt when the step reports a refusal. `wholeUs`: the
/// whole step's µs of every timed run (for setTimeSpread).
std::optional<std::pair<std::vector<double>, double>> timeStep(const Step &step, int stages, int warmup, int repeats,
                                                               cudaStream_t s, std::vector<double> *wholeUs = nullptr);
/// `ours` and `peer` (one-stage steps) timed alternately: a cold call of ours, `warmup` of each,
/// then `repeats` pairs, ours first in even pairs and the peer first in odd ones, so that both see
/// the same clock and power state (a compute-bound GEMM at the power cap runs 10–15 % slower than
/// from an idle device). Every timed run's µs of each in oursUs / peerUs; ours's cold call's µs
/// returned; nullopt when either step reports a refusal.
std::optional<double> timePaired(const Step &ours, const Step &peer, int warmup, int repeats, cudaStream_t s,
                                 std::vector<double> &oursUs, std::vector<double> &peerUs);
/// The fastest of `count` candidates: kFastestRounds interleaved rounds, each timing
/// kFastestRuns launches of every candidate in turn after one untimed (so that a drift of the
/// clocks falls on all alike); the lowest median wins. Candidates whose first-round median is over
/// kFastestDropAbove × the best are not run again; between rounds, and before the caller's timed
/// repeats, the host waits for the GPU's clock to recover from the tuning (engine_gemmlab_moe_roofline.cpp). `launch(c, i)` queues candidate c once (i
/// counts the launches, e.g. for rotating weight copies) and returns false when it refuses, which
/// drops the candidate. index −1 when every candidate refused.
inline constexpr int kFastestRounds = 3, kFastestRuns = 3;
inline constexpr double kFastestDropAbove = 1.25;
struct Fastest {
    int index = -1, tried = 0;
    std::vector<double> medianUs; ///< per candidate (0 where it refused)
};
Fastest fastestOf(std::size_t count, const std::function<bool(std::size_t c, int i)> &launch, cudaStream_t s);
/// A point note's "; chosen by timing N candidates (median µs: name µs; …)" for fastestOf's
/// result f over candidates named `names`.
std::string candidatesNote(const Fastest &f, const std::vector<std::string> &names);
/// The fastest of the tilings `cands` by fastestOf, where launch(t, i) queues tiling t on rotating
/// copy i (the fused points' kernel variants); `note` becomes candidatesNote under name(t). The
/// first candidate where none ran.
template <class T, class Launch, class Name>
T fastestCandidate(const std::vector<T> &cands, Launch launch, Name name, cudaStream_t s, std::string &note)
{
    const Fastest f = fastestOf(
        cands.size(),
        [&](std::size_t c, int i) {
            launch(cands[c], i);
            return true;
        },
        s);
    std::vector<std::string> names;
    for (const T &t : cands)
        names.push_back(name(t));
    note = candidatesNote(f, names);
    return cands[static_cast<std::size_t>(f.index > 0 ? f.index : 0)];
}
/// One copy derived from each rotating weight copy (the fused points' repacks at load: `bytes`
/// each, from the pool), `derive(src, dst)` queuing the derivation on the engine stream; the first
/// one is timed there and its µs written to *firstUs (for the note; not in the point's time).
std::vector<std::shared_ptr<void>> derivedCopies(Engine::Impl &I, const std::vector<std::shared_ptr<void>> &weights,
                                                 std::size_t bytes,
                                                 const std::function<void(const void *src, void *dst)> &derive,
                                                 double *firstUs, const std::string &what);
/// The fastest of the heuristic's candidates for `run` (fastestOf): every candidate timed in 3 interleaved
/// rounds of 3 launches (after one untimed), the lowest median kept; the choice is cached for the
/// process under g.key (a later identical GEMM takes it without timing). Sets algo, algoIndex and
/// algosTried; the caller's lt().mutex must be held.
void tune(Gemm &g, const std::function<cublasStatus_t()> &run, cudaStream_t s);
/// The index of g.algo in g.algos (−1: not there).
int algoIndexOf(const Gemm &g);
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
/// Above kFusedMaxM (compute-bound) with `bf16` (a one-stage step running the BF16 cuBLASLt GEMM of
/// the same shape), the kernel's repeats alternate with that GEMM's (timePaired) and the point
/// carries its median as bf16PairedUs.
std::optional<GemmPoint> timeFusedW4a16(Engine::Impl &I, const GemmBenchRequest &request, const QuantizedTensor &q,
                                        const std::vector<std::shared_ptr<void>> &weights, const float *scales,
                                        const std::int8_t *zeros, const void *x, std::int64_t m, std::int64_t group,
                                        const GemmPoint &unfused, const Step *bf16,
                                        std::vector<Engine::GemmLabCheck> &checks, std::string &why);
/// The fused W4A8 point (engine_gemmlab_w4a8.cpp; format w4a8-int8-fused / w4a8-fp8-fused) beside the
/// unfused w4a8-int8 / w4a8-fp8 point at M, on the same weight copies, scales, zero points and X's
/// codes / token scales: the fused kernel for M ≤ 16, its every output checked on the device against FP64; above 16
/// the time of `routed` (the folded INT8 route's point, format w4a8-int8-fused and already checked,
/// or the unfused point), labelled. nullopt with `why` when the kernel does not run this shape or data.
std::optional<GemmPoint> timeFusedW4a8(Engine::Impl &I, const GemmBenchRequest &request, const QuantizedTensor &q,
                                       bool fp8, const std::vector<std::shared_ptr<void>> &weights, const float *scales,
                                       const std::int8_t *zeros, const void *xCodes, const float *tokenScales,
                                       std::int64_t m, std::int64_t group, const GemmPoint &routed,
                                       std::vector<Engine::GemmLabCheck> &checks, std::string &why);

/// The W4A8-INT8 large-M route's CUTLASS candidate (engine_gemmlab_w4a8_cutlass.cpp): per stage
/// (Σx̂ per token, the GEMM with its fused epilogue) the median µs, the last entry the whole step;
/// the cold call; every timed run's µs; the tile (kernels_w4a8_cutlass.h) and fastestCandidate's
/// note; the one-time reorder of a weight copy (µs, not in the time).
struct W4a8CutlassTimed {
    std::vector<double> stageUs, runs;
    double coldUs = 0, reorderUs = -1;
    int tile = 0;
    std::string tuned;
};
/// The CUTLASS candidate at M on the fold route's weight copies, scales, zero points, X̂ and token
/// scales; the output of copy 0 left in `y` (BF16 [M, N]) for the caller's check. nullopt with
/// `why` where the route is not built or refuses the shape.
std::optional<W4a8CutlassTimed> timeW4a8Cutlass(Engine::Impl &I, const GemmBenchRequest &request,
                                                const std::vector<std::shared_ptr<void>> &weights, const float *scales,
                                                const std::int8_t *zeros, const std::int8_t *x,
                                                const float *tokenScales, std::int64_t m, void *y, std::string &why);

/// The mxfp4 / nvfp4 formats (engine_gemmlab_fp4.cpp): per M the fused kernel's point (M ≤ 16)
/// with the unfused route's beside it ("<format>-unfused"), or above M = 16 the unfused route as
/// the format's point; every output of the checked rows compared with FP64 (appended to `checks`).
std::vector<GemmPoint> timeFp4Gemms(Engine::Impl &I, const GemmBenchRequest &request, GemmFormat f,
                                    const CancelToken *cancel, std::vector<Engine::GemmLabCheck> &checks);

/// The w3a16-milo points (engine_gemmlab_w3lr.cpp): the fused W3A16 + rank-request.w3Rank kernel at
/// each M ≤ 16 of the request on seeded weights, each output checked against FP64 (appended to `checks`).
std::vector<GemmPoint> timeW3a16Milo(Engine::Impl &I, const GemmBenchRequest &request,
                                     std::vector<Engine::GemmLabCheck> &checks);

} // namespace quantscope::gpu::lab2
