// SPDX-License-Identifier: MIT
// The GEMM timing lab on the device (CUDA builds only: cuBLASLt; Debian's ROCm has no hipBLASLt,
// so HIP builds leave the lab to the CPU and say so). Y[M,N] = X[M,K]·W[N,K]ᵀ is run as the
// column-major D[N,M] = op(A)·B with A = W (transposed: "TN", what FP8 on Hopper requires) and
// B = X, so the per-channel scales are cuBLASLt's A vector and the per-token ones its B vector.
// Formats (docs/numerics.md "GEMM timing lab"):
//   bf16         BF16×BF16 → BF16, FP32 compute
//   fp8          E4M3×E4M3 → BF16, FP32 compute, tensor-wise scales (A/B scale pointers)
//   fp8-rowwise  E4M3×E4M3 → BF16 with per-token × per-channel scales: cuBLASLt's outer-vector
//                scale mode where the library has it (cuBLAS ≥ 12.9), else FP32 out and the fused
//                post-scale kernel (gemmlab.cu); each point's note says which
//   int8         INT8×INT8 → INT32 (CUBLAS_COMPUTE_32I), then the post-scale kernel to BF16
#include "engine.h"
#include "engine_impl.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>

#include <cublas_v2.h>
#include <cublasLt.h>
#include <cuda_runtime.h>

#include "device_pool.h"
#include "gemmlab_lt.h"
#include "gemm/kernels_gemmlab.h"
#include "gemm/kernels_gemmlab_check.h"
#include "linalg_common.h"
#include "tensor/convert.h"
#include "util/error.h"

namespace quantscope::gpu {

namespace {

using lab2::Events;
using lab2::median;

/// cuBLASLt's workspace: 32 MiB, what cuBLAS recommends for Hopper and what PyTorch gives cuBLAS and
/// cuBLASLt on sm_90 (its default workspace size), so that the same algorithms are eligible.
constexpr std::size_t kWorkspaceBytes = 32u << 20;
constexpr int kHeuristicCandidates = 16; ///< algorithms asked of the heuristic; every one returned is timed
/// Large problems (M·N·K ≥ 2^36) also time configurations the heuristic does not return
/// (enumerateCandidates), at most this many more.
constexpr double kEnumerateFrom = 68719476736.0;
constexpr std::size_t kEnumeratedCandidates = 48;
std::atomic<std::uint64_t> g_heuristicCalls{0};

void checkLt(cublasStatus_t s, const char *what)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        throw GpuError(std::string("cuBLASLt ") + what + " failed (status " + std::to_string(static_cast<int>(s)) +
                       ")");
}

/// Whether this build and the loaded cuBLASLt have the outer-vector (row-wise) FP8 scale mode.
bool haveOuterVec()
{
#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 120900
    return cublasLtGetVersion() >= 120900;
#else
    return false;
#endif
}

/// One cached plan: descriptors, the heuristic's algorithm, and its scale buffers.
struct Plan {
    GemmFormat format{};
    std::int64_t m = 0, n = 0, k = 0;
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    cublasLtMatmulAlgo_t algo{};
    std::vector<cublasLtMatmulAlgo_t> candidates; ///< the heuristic's, best first, then the enumerated ones
    std::size_t heuristicCount = 0;               ///< how many of `candidates` the heuristic returned
    /// BF16: the index in `candidates` of one more candidate that is not a cuBLASLt algorithm but
    /// cuBLAS's own cublasGemmEx on the same operands (what torch.matmul calls); -1 where none.
    int gemmExSlot = -1;
    bool viaGemmEx = false; ///< the launch goes through cublasGemmEx (the slot is the current candidate)
    int algoIndex = 0;      ///< the chosen candidate's index in `candidates` (0: the heuristic's first)
    int algosTried = 0;     ///< candidates that ran and were timed
    double tunedUs = 0;     ///< the chosen candidate's median in the tuning (GEMM + post-scale)
    bool outerVec = false, postScale = false;
    float *sCh = nullptr, *sTok = nullptr; ///< device: per channel [N] / per token [M] (or 1 each)
    std::vector<float> hostCh, hostTok;
    double coldUs = -1;
    bool checked = false;
    launch::LabCheckResult check; ///< every output against FP64 (labCheckFp64), once per plan
    ~Plan()
    {
        if (desc)
            cublasLtMatmulDescDestroy(desc);
        for (auto l : {a, b, d})
            if (l)
                cublasLtMatrixLayoutDestroy(l);
        if (sCh)
            cudaFree(sCh);
        if (sTok)
            cudaFree(sTok);
    }
};

using PlanKey = std::tuple<int, std::int64_t, std::int64_t, std::int64_t, int /*layout: 0 = TN*/>;

/// Process-wide lab state (device 0, the engine's device): the handle, the 32 MiB workspace,
/// the plans, and which M each requested M ran at.
struct Lab {
    std::mutex mutex;
    cublasLtHandle_t lt = nullptr;
    cublasHandle_t blas = nullptr; ///< cuBLAS for the cublasGemmEx candidate, on the same workspace
    void *workspace = nullptr;
    std::map<PlanKey, std::unique_ptr<Plan>> plans;
    std::map<PlanKey, std::int64_t> runsAt; ///< requested M → the M that works (padded)
    std::vector<Engine::GemmLabCheck> lastChecks;
};
Lab &lab()
{
    static Lab l;
    static std::once_flag once;
    std::call_once(once, [] {
        checkLt(cublasLtCreate(&l.lt), "create");
        QS_GPU_CHECK(cudaMalloc(&l.workspace, kWorkspaceBytes));
        // cuBLAS as PyTorch configures it for BF16 (its default math mode, reduced-precision
        // reduction allowed, the same 32 MiB workspace on sm_90).
        // A handle of its own (not linalgHandles'): the lab's workspace and math mode stay its own.
        checkBlas(cublasCreate(&l.blas), "create");
        checkBlas(cublasSetWorkspace(l.blas, l.workspace, kWorkspaceBytes), "set workspace");
        checkBlas(cublasSetMathMode(l.blas, CUBLAS_DEFAULT_MATH), "set math mode");
    });
    return l;
}

bool isFp8(GemmFormat f)
{
    return f == GemmFormat::Fp8 || f == GemmFormat::Fp8Rowwise;
}
int inBytes(GemmFormat f)
{
    return f == GemmFormat::Bf16 ? 2 : 1;
}
/// Bytes of the GEMM's own output element (before any post-scale).
int rawOutBytes(const Plan &p)
{
    return p.format == GemmFormat::Bf16 || (isFp8(p.format) && !p.postScale) ? 2 : 4;
}

float *uploadFloats(const std::vector<float> &v)
{
    float *d = nullptr;
    QS_GPU_CHECK(cudaMalloc(&d, v.size() * sizeof(float)));
    QS_GPU_CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

/// Adds configurations the heuristic did not return, each accepted by cublasLtMatmulAlgoCheck within
/// the workspace and not already a candidate: every heuristic candidate with another thread-block
/// cluster shape, then each of their algorithm ids afresh with every large tile it offers (the
/// library's default stages and cluster). The heuristic ranks by a model; at the largest sizes its
/// 8–16 choices left PyTorch's kernel out (docs/perf.md, GEMM lab rounds), so these are timed too.
void enumerateCandidates(Plan &p, cublasComputeType_t compute, cudaDataType_t scaleType, cudaDataType_t in,
                         cudaDataType_t out)
{
    const auto known = [&p](const cublasLtMatmulAlgo_t &a) {
        return std::any_of(p.candidates.begin(), p.candidates.end(),
                           [&a](const cublasLtMatmulAlgo_t &c) { return std::memcmp(&a, &c, sizeof a) == 0; });
    };
    const std::size_t cap = p.candidates.size() + kEnumeratedCandidates;
    const auto tryAdd = [&](const cublasLtMatmulAlgo_t &a) {
        if (p.candidates.size() >= cap || known(a))
            return;
        cublasLtMatmulHeuristicResult_t r{};
        if (cublasLtMatmulAlgoCheck(lab().lt, p.desc, p.a, p.b, p.d, p.d, &a, &r) == CUBLAS_STATUS_SUCCESS &&
            r.state == CUBLAS_STATUS_SUCCESS && r.workspaceSize <= kWorkspaceBytes)
            p.candidates.push_back(r.algo);
    };
    const std::vector<cublasLtMatmulAlgo_t> seeds(p.candidates.begin(), p.candidates.end());
    const std::uint16_t clusters[] = {CUBLASLT_CLUSTER_SHAPE_AUTO,  CUBLASLT_CLUSTER_SHAPE_1x1x1,
                                      CUBLASLT_CLUSTER_SHAPE_2x1x1, CUBLASLT_CLUSTER_SHAPE_1x2x1,
                                      CUBLASLT_CLUSTER_SHAPE_2x2x1, CUBLASLT_CLUSTER_SHAPE_4x1x1};
    for (const cublasLtMatmulAlgo_t &seed : seeds)
        for (const std::uint16_t c : clusters) {
            cublasLtMatmulAlgo_t a = seed;
            if (cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &c, sizeof c) ==
                CUBLAS_STATUS_SUCCESS)
                tryAdd(a);
        }
    // The ids the seeds use, each with the large tiles it offers.
    std::vector<int> ids;
    for (const cublasLtMatmulAlgo_t &seed : seeds) {
        int id = -1;
        std::size_t written = 0;
        if (cublasLtMatmulAlgoConfigGetAttribute(&seed, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &written) ==
                CUBLAS_STATUS_SUCCESS &&
            std::find(ids.begin(), ids.end(), id) == ids.end())
            ids.push_back(id);
    }
    const std::uint32_t bigTiles[] = {
        CUBLASLT_MATMUL_TILE_128x128, CUBLASLT_MATMUL_TILE_128x256, CUBLASLT_MATMUL_TILE_256x128,
        CUBLASLT_MATMUL_TILE_128x192, CUBLASLT_MATMUL_TILE_192x128, CUBLASLT_MATMUL_TILE_64x256,
        CUBLASLT_MATMUL_TILE_256x64,  CUBLASLT_MATMUL_TILE_128x64,  CUBLASLT_MATMUL_TILE_64x128};
    for (const int id : ids) {
        cublasLtMatmulAlgo_t base{};
        if (cublasLtMatmulAlgoInit(lab().lt, compute, scaleType, in, in, out, out, id, &base) != CUBLAS_STATUS_SUCCESS)
            continue;
        std::uint32_t tiles[CUBLASLT_MATMUL_TILE_END] = {};
        std::size_t written = 0;
        if (cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_TILE_IDS, tiles, sizeof tiles, &written) !=
            CUBLAS_STATUS_SUCCESS)
            continue;
        const std::uint32_t *end =
            tiles + std::min<std::size_t>(written / sizeof(std::uint32_t), CUBLASLT_MATMUL_TILE_END);
        for (const std::uint32_t t : bigTiles) {
            if (std::find(static_cast<const std::uint32_t *>(tiles), end, t) == end)
                continue;
            cublasLtMatmulAlgo_t a = base;
            if (cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_TILE_ID, &t, sizeof t) ==
                CUBLAS_STATUS_SUCCESS)
                tryAdd(a);
        }
    }
}

/// The algorithm's configuration as cuBLASLt reports it (id, tile and stages ids, split-K, swizzle,
/// cluster shape id), so that a run's JSON says which kernel each point ran.
std::string algoText(const cublasLtMatmulAlgo_t &a)
{
    const auto get = [&a](cublasLtMatmulAlgoConfigAttributes_t attr) -> long long {
        // 32 bits wide, or 16 (the cluster shape id): cuBLASLt wants the attribute's own size.
        std::uint32_t v = 0;
        std::uint16_t h = 0;
        std::size_t written = 0;
        if (cublasLtMatmulAlgoConfigGetAttribute(&a, attr, &v, sizeof v, &written) == CUBLAS_STATUS_SUCCESS)
            return static_cast<long long>(v);
        if (cublasLtMatmulAlgoConfigGetAttribute(&a, attr, &h, sizeof h, &written) == CUBLAS_STATUS_SUCCESS)
            return static_cast<long long>(h);
        return -1;
    };
    char buf[160];
    std::snprintf(buf, sizeof buf, "id %lld, tile %lld, stages %lld, split-K %lld, swizzle %lld, cluster %lld",
                  get(CUBLASLT_ALGO_CONFIG_ID), get(CUBLASLT_ALGO_CONFIG_TILE_ID), get(CUBLASLT_ALGO_CONFIG_STAGES_ID),
                  get(CUBLASLT_ALGO_CONFIG_SPLITK_NUM), get(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING),
                  get(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID));
    return buf;
}

/// Builds the plan; nullptr when cuBLASLt has no algorithm for it (or refuses an attribute).
std::unique_ptr<Plan> makePlan(GemmFormat f, std::int64_t m, std::int64_t n, std::int64_t k, bool outerVec)
{
    auto p = std::make_unique<Plan>();
    p->format = f, p->m = m, p->n = n, p->k = k;
    const bool rowwise = f == GemmFormat::Fp8Rowwise || f == GemmFormat::Int8;
    p->outerVec = f == GemmFormat::Fp8Rowwise && outerVec;
    p->postScale = f == GemmFormat::Int8 || (f == GemmFormat::Fp8Rowwise && !outerVec);
    const cudaDataType_t in = f == GemmFormat::Bf16 ? CUDA_R_16BF : isFp8(f) ? CUDA_R_8F_E4M3 : CUDA_R_8I;
    const cudaDataType_t out = f == GemmFormat::Int8 ? CUDA_R_32I : p->postScale ? CUDA_R_32F : CUDA_R_16BF;
    const cublasComputeType_t compute = f == GemmFormat::Int8 ? CUBLAS_COMPUTE_32I : CUBLAS_COMPUTE_32F;
    const cudaDataType_t scaleType = f == GemmFormat::Int8 ? CUDA_R_32I : CUDA_R_32F;
    if (cublasLtMatmulDescCreate(&p->desc, compute, scaleType) != CUBLAS_STATUS_SUCCESS)
        return nullptr;
    const cublasOperation_t tA = CUBLAS_OP_T, tB = CUBLAS_OP_N;
    checkLt(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &tA, sizeof tA), "set transa");
    checkLt(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tB, sizeof tB), "set transb");
    // Scales: per channel (N) × per token (M) where row-wise, else one each (FP8 tensor-wise).
    // Values like a real checkpoint's: absmax / 448 (FP8) or / 127 (INT8) of the operands.
    if (rowwise) {
        p->hostCh.resize(static_cast<std::size_t>(n));
        p->hostTok.resize(static_cast<std::size_t>(m));
        for (std::int64_t i = 0; i < n; ++i)
            p->hostCh[i] = 2.5e-4f * (1.0f + 0.125f * static_cast<float>(i % 9));
        for (std::int64_t i = 0; i < m; ++i)
            p->hostTok[i] = 1.5e-2f * (1.0f + 0.25f * static_cast<float>(i % 5));
    } else if (f == GemmFormat::Fp8) {
        p->hostCh = {2.5e-4f};
        p->hostTok = {1.5e-2f};
    }
    if (!p->hostCh.empty()) {
        p->sCh = uploadFloats(p->hostCh);
        p->sTok = uploadFloats(p->hostTok);
    }
    if (f == GemmFormat::Fp8 || p->outerVec) {
#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 120900
        if (p->outerVec) {
            const std::int32_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
            if (cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof mode) !=
                    CUBLAS_STATUS_SUCCESS ||
                cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof mode) !=
                    CUBLAS_STATUS_SUCCESS)
                return nullptr;
        }
#endif
        checkLt(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &p->sCh, sizeof p->sCh),
                "set A scale");
        checkLt(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &p->sTok, sizeof p->sTok),
                "set B scale");
    }
    checkLt(cublasLtMatrixLayoutCreate(&p->a, in, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(n), k),
            "layout A");
    checkLt(cublasLtMatrixLayoutCreate(&p->b, in, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(m), k),
            "layout B");
    checkLt(cublasLtMatrixLayoutCreate(&p->d, out, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(m), n),
            "layout D");
    cublasLtMatmulPreference_t pref = nullptr;
    checkLt(cublasLtMatmulPreferenceCreate(&pref), "preference");
    const std::uint64_t ws = kWorkspaceBytes;
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    cublasLtMatmulHeuristicResult_t results[kHeuristicCandidates] = {};
    int found = 0;
    ++g_heuristicCalls;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lab().lt, p->desc, p->a, p->b, p->d, p->d, pref,
                                                             kHeuristicCandidates, results, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS || found < 1)
        return nullptr;
    for (int i = 0; i < found; ++i)
        if (results[i].state == CUBLAS_STATUS_SUCCESS)
            p->candidates.push_back(results[i].algo);
    if (p->candidates.empty())
        return nullptr;
    p->heuristicCount = p->candidates.size();
    if (static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >= kEnumerateFrom)
        enumerateCandidates(*p, compute, scaleType, in, out);
    if (f == GemmFormat::Bf16) { // cuBLAS's own kernel choice is not always among cuBLASLt's
        p->gemmExSlot = static_cast<int>(p->candidates.size());
        p->candidates.push_back(cublasLtMatmulAlgo_t{});
    }
    p->algo = p->candidates.front();
    return p;
}

/// Queues one GEMM (and its post-scale) of the plan on operands A (W), B (X), raw output D and,
/// with a post-scale, the BF16 output `out`. Returns cuBLASLt's status.
cublasStatus_t launchGemm(const Plan &p, const void *A, const void *B, void *D, void *out, cudaStream_t s,
                          cudaEvent_t between = nullptr)
{
    const float oneF = 1.0f, zeroF = 0.0f;
    const std::int32_t oneI = 1, zeroI = 0;
    const bool i32 = p.format == GemmFormat::Int8;
    const void *alpha = i32 ? static_cast<const void *>(&oneI) : &oneF;
    const void *beta = i32 ? static_cast<const void *>(&zeroI) : &zeroF;
    if (p.viaGemmEx) { // BF16 only: D[N,M] = Wᵀ·X through cuBLAS, as torch.matmul(x, w.t()) runs it
        cublasSetStream(lab().blas, s);
        const cublasStatus_t st = cublasGemmEx(
            lab().blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(p.n), static_cast<int>(p.m), static_cast<int>(p.k),
            &oneF, A, CUDA_R_16BF, static_cast<int>(p.k), B, CUDA_R_16BF, static_cast<int>(p.k), &zeroF, D, CUDA_R_16BF,
            static_cast<int>(p.n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
        if (between)
            QS_GPU_CHECK(cudaEventRecord(between, s));
        return st;
    }
    const cublasStatus_t st = cublasLtMatmul(lab().lt, p.desc, alpha, A, p.a, B, p.b, beta, D, p.d, D, p.d, &p.algo,
                                             lab().workspace, kWorkspaceBytes, s);
    if (between)
        QS_GPU_CHECK(cudaEventRecord(between, s));
    if (st == CUBLAS_STATUS_SUCCESS && p.postScale)
        launch::labPostScale(D, i32, p.sTok, p.sCh, p.m, p.n, out, s);
    return st;
}

/// Picks the plan's algorithm by measuring every candidate the heuristic returned (lab II's
/// fastestOf: interleaved rounds, so that a clock or thermal drift falls on all of them alike; the
/// lowest median wins). `op(i)` launches the plan on rotating copy i. Sets algo, algoIndex,
/// algosTried and tunedUs.
void tunePlan(Plan &p, const std::function<cublasStatus_t(int)> &op, cudaStream_t s)
{
    const lab2::Fastest f = lab2::fastestOf(
        p.candidates.size(),
        [&](std::size_t c, int i) {
            p.algo = p.candidates[c];
            p.viaGemmEx = static_cast<int>(c) == p.gemmExSlot;
            return op(i) == CUBLAS_STATUS_SUCCESS;
        },
        s);
    p.algoIndex = std::max(f.index, 0);
    p.algosTried = f.tried;
    p.algo = p.candidates[static_cast<std::size_t>(p.algoIndex)];
    p.viaGemmEx = p.algoIndex == p.gemmExSlot;
    p.tunedUs = f.index >= 0 ? f.medianUs[static_cast<std::size_t>(f.index)] : 0;
}

} // namespace

std::uint64_t Engine::gemmLabHeuristicCalls()
{
    return g_heuristicCalls.load();
}

std::vector<Engine::GemmLabCheck> Engine::gemmLabChecks() const
{
    std::lock_guard lock(lab().mutex);
    return lab().lastChecks;
}

std::vector<GemmPoint> Engine::timeGemms(const GemmBenchRequest &request, const CancelToken *cancel)
{
    request.validate();
    // Part II: MoE mode and the quantized-weight paths (engine_gemmlab_moe_roofline.cpp, _quant.cpp).
    const bool anyQuantized = std::any_of(request.formats.begin(), request.formats.end(), isQuantizedWeightFormat);
    if (request.experts > 1 || anyQuantized) {
        std::vector<GemmLabCheck> checks;
        std::vector<GemmPoint> pts;
        if (request.experts > 1) {
            pts = timeMoeGemms(request, cancel, checks);
        } else {
            GemmBenchRequest plain = request;
            plain.formats.clear();
            for (auto f : request.formats)
                if (!isQuantizedWeightFormat(f))
                    plain.formats.push_back(f);
            if (!plain.formats.empty()) {
                pts = timeGemms(plain, cancel);
                checks = gemmLabChecks();
            }
            auto q = timeQuantizedGemms(request, cancel, checks);
            pts.insert(pts.end(), q.begin(), q.end());
        }
        std::lock_guard labLock(lab().mutex);
        lab().lastChecks = checks;
        return pts;
    }
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    QS_GPU_CHECK(cudaSetDevice(I.device));
    Lab &L = lab();
    std::lock_guard labLock(L.mutex);
    L.lastChecks.clear();
    const auto s = static_cast<cudaStream_t>(I.stream);
    const std::int64_t n = request.n, k = request.k;
    const std::string id = "cuda:" + std::to_string(I.device);
    const double l2 = static_cast<double>(std::max<std::size_t>(I.props.l2CacheSize, 1u << 20));
    const std::int64_t maxM = *std::max_element(request.m.begin(), request.m.end());
    const std::int64_t maxMp = (maxM + 15) / 16 * 16;
    double total = 0, done = 0;
    for (auto m : request.m)
        total += request.formats.size() * (gemmFlops(m, n, k) + 1e9);
    const bool outerVec = haveOuterVec();
    std::vector<GemmPoint> points;
    int formatIndex = 0;
    for (const GemmFormat f : request.formats)
        if (f != GemmFormat::Bf16 && k % 16 != 0)
            throw GpuError("cuBLASLt's " + toString(f) + " GEMM needs K a multiple of 16 (K = " + std::to_string(k) +
                           ")");
    for (const GemmFormat f : request.formats) {
        ++formatIndex;
        const std::string what = "the GEMM lab's " + toString(f) + " operands";
        const std::size_t eIn = inBytes(f);
        // Rotating copies: enough that the copies' working set is ≥ 2× L2 at the smallest M.
        const std::int64_t minM = *std::min_element(request.m.begin(), request.m.end());
        const double wsMin = static_cast<double>(eIn) * static_cast<double>((n + minM) * k) + 4.0 * minM * n;
        int copies = static_cast<int>(std::clamp(std::ceil(2.0 * l2 / wsMin), 1.0, 16.0));
        const std::size_t wBytes = eIn * static_cast<std::size_t>(n * k),
                          xBytes = eIn * static_cast<std::size_t>(maxMp * k),
                          dBytes = 4u * static_cast<std::size_t>(maxMp * n),
                          oBytes = 2u * static_cast<std::size_t>(maxMp * n);
        std::size_t freeB = 0, totalB = 0;
        QS_GPU_CHECK(cudaMemGetInfo(&freeB, &totalB));
        while (copies > 1 && static_cast<double>(copies) * (wBytes + xBytes + dBytes) + oBytes > 0.5 * freeB)
            --copies;
        std::vector<std::shared_ptr<void>> W, X, D;
        for (int c = 0; c < copies; ++c) {
            W.push_back(poolGet(I.pool, wBytes, what));
            X.push_back(poolGet(I.pool, xBytes, what));
            D.push_back(poolGet(I.pool, dBytes, what));
            const int kind = f == GemmFormat::Bf16 ? launch::kLabBf16 : isFp8(f) ? launch::kLabE4m3 : launch::kLabInt8;
            // Weights ~N(0, 0.02) in BF16; FP8 and INT8 codes spread over their range.
            const float wScale = f == GemmFormat::Bf16 ? 0.02f : isFp8(f) ? 64.0f : 32.0f;
            const float xScale = f == GemmFormat::Bf16 ? 1.0f : isFp8(f) ? 64.0f : 32.0f;
            launch::labFill(kind, W.back().get(), n * k, 0x57ull * formatIndex + 2 * c, wScale, s);
            launch::labFill(kind, X.back().get(), maxMp * k, 0x57ull * formatIndex + 2 * c + 1, xScale, s);
        }
        auto outBuf = poolGet(I.pool, oBytes, what);

        for (const std::int64_t m : request.m) {
            if (cancel)
                cancel->stepProgress(done / total);
            // The plan: the cached one for (format, M, N, K, TN), else the first M of
            // M, ⌈M⌉₄, ⌈M⌉₈, ⌈M⌉₁₆ for which cuBLASLt has an algorithm and runs it.
            const PlanKey req{static_cast<int>(f), m, n, k, 0};
            Plan *plan = nullptr;
            if (auto it = L.runsAt.find(req); it != L.runsAt.end())
                plan = L.plans.at(PlanKey{static_cast<int>(f), it->second, n, k, 0}).get();
            std::vector<std::int64_t> tries{m};
            for (std::int64_t q : {4, 8, 16})
                if ((m + q - 1) / q * q != tries.back())
                    tries.push_back((m + q - 1) / q * q);
            std::string refusal;
            for (std::size_t t = 0; !plan && t < tries.size(); ++t) {
                const std::int64_t mp = tries[t];
                const PlanKey key{static_cast<int>(f), mp, n, k, 0};
                auto it = L.plans.find(key);
                if (it == L.plans.end()) {
                    // Row-wise FP8: the outer-vector scale mode and the post-scale path, each
                    // tuned; the faster is kept (the other formats have one way).
                    std::unique_ptr<Plan> p;
                    for (const bool vec : {true, false}) {
                        if (vec && !(f == GemmFormat::Fp8Rowwise && outerVec))
                            continue;
                        auto cand = makePlan(f, mp, n, k, vec);
                        if (!cand) {
                            refusal = "no cuBLASLt algorithm";
                            continue;
                        }
                        // The cold call: the plan's first launch, timed on its own.
                        Events ev(2);
                        QS_GPU_CHECK(cudaEventRecord(ev.ev[0], s));
                        const cublasStatus_t st =
                            launchGemm(*cand, W[0].get(), X[0].get(), D[0].get(), outBuf.get(), s);
                        QS_GPU_CHECK(cudaEventRecord(ev.ev[1], s));
                        QS_GPU_CHECK(cudaStreamSynchronize(s));
                        if (st != CUBLAS_STATUS_SUCCESS) {
                            refusal = "cuBLASLt refused M = " + std::to_string(mp) + " (status " +
                                      std::to_string(static_cast<int>(st)) + ")";
                            continue;
                        }
                        cand->coldUs = ev.us(0, 1);
                        // Every candidate of the heuristic timed on the rotating copies.
                        tunePlan(
                            *cand,
                            [&](int i) {
                                const int c = i % copies;
                                return launchGemm(*cand, W[c].get(), X[c].get(), D[c].get(), outBuf.get(), s);
                            },
                            s);
                        if (!p || (cand->tunedUs > 0 && cand->tunedUs < p->tunedUs))
                            p = std::move(cand);
                    }
                    if (!p)
                        continue;
                    it = L.plans.emplace(key, std::move(p)).first;
                }
                plan = it->second.get();
                L.runsAt[req] = mp;
            }
            if (!plan)
                throw GpuError("cuBLASLt runs no " + toString(f) + " GEMM of M = " + std::to_string(m) +
                               ", N = " + std::to_string(n) + ", K = " + std::to_string(k) + " (" + refusal + ")");
            // QS_GEMMLAB_TRACE prints when each point's timed phase starts (UTC ms), for
            // bench/probe/gemmlab_clocks.py (the tuning above ends with fastestOf's wait before timing).
            if (std::getenv("QS_GEMMLAB_TRACE"))
                std::fprintf(stderr, "trace %s M=%lld timed from %lld ms\n", toString(f).c_str(),
                             static_cast<long long>(m),
                             static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                        std::chrono::system_clock::now().time_since_epoch())
                                                        .count()));
            // Warm-up, then each repeat between its own events (a third event after the GEMM
            // measures the post-scale epilogue where there is one).
            for (int i = 0; i < request.warmup; ++i)
                checkLt(
                    launchGemm(*plan, W[i % copies].get(), X[i % copies].get(), D[i % copies].get(), outBuf.get(), s),
                    "matmul");
            const int R = request.repeats;
            Events ev(3 * static_cast<std::size_t>(R));
            for (int r = 0; r < R; ++r) {
                const int c = (r + request.warmup) % copies;
                QS_GPU_CHECK(cudaEventRecord(ev.ev[3 * r], s));
                checkLt(launchGemm(*plan, W[c].get(), X[c].get(), D[c].get(), outBuf.get(), s, ev.ev[3 * r + 1]),
                        "matmul");
                QS_GPU_CHECK(cudaEventRecord(ev.ev[3 * r + 2], s));
            }
            QS_GPU_CHECK(cudaStreamSynchronize(s));
            std::vector<double> tot(R), epi(R);
            for (int r = 0; r < R; ++r) {
                tot[r] = ev.us(3 * r, 3 * r + 2);
                epi[r] = ev.us(3 * r + 1, 3 * r + 2);
            }
            // The output check, once per plan: copy 0's operands, every output of the plan's
            // M rows against the FP64 product on the device (kernels_gemmlab_check.h).
            if (!plan->checked) {
                checkLt(launchGemm(*plan, W[0].get(), X[0].get(), D[0].get(), outBuf.get(), s), "matmul");
                const int kind = f == GemmFormat::Bf16 ? launch::kLabBf16
                                 : isFp8(f)            ? launch::kLabE4m3
                                                       : launch::kLabInt8;
                launch::LabCheckProblem cp;
                cp.x.data = X[0].get(), cp.x.kind = kind, cp.x.scale = plan->sTok;
                cp.x.perRow = plan->hostTok.size() > 1;
                cp.w.data = W[0].get(), cp.w.kind = kind, cp.w.scale = plan->sCh;
                cp.w.perRow = plan->hostCh.size() > 1;
                cp.y = plan->postScale ? outBuf.get() : D[0].get();
                cp.m = plan->m, cp.n = n, cp.k = k;
                // BF16 output rounding (2^-8 relative) plus the FP32 accumulation's share of
                // Σ|x·w| (2^-12); INT8 accumulates exactly (docs/numerics.md "GEMM timing lab").
                cp.relRef = std::ldexp(1.001, -8);
                cp.relMag = f == GemmFormat::Int8 ? 0.0 : std::ldexp(1.0, -12);
                auto scratch = poolGet(I.pool, 64, what);
                plan->check = launch::labCheckFp64(cp, scratch.get(), s);
                plan->checked = true;
            }
            GemmPoint p;
            p.format = toString(f);
            p.m = m, p.n = n, p.k = k;
            setTimeSpread(p, tot); // timeUs: the median; min, p10, p90, max beside it
            p.algoIndex = plan->algoIndex;
            p.algosTried = plan->algosTried;
            p.coldUs = plan->coldUs;
            p.tflops = gemmFlops(m, n, k) / (p.timeUs * 1e-6) / 1e12;
            p.gbps = gemmBytes(p.format, m, n, k) / (p.timeUs * 1e-6) / 1e9;
            p.padded = plan->m != m;
            p.paddedM = plan->m;
            p.repeats = R;
            p.device = id;
            char buf[256];
            if (f == GemmFormat::Fp8Rowwise)
                p.note = plan->outerVec ? "row-wise scales: cuBLASLt outer-vector scale mode"
                                        : "row-wise scales: FP32 out + post-scale kernel";
            else if (f == GemmFormat::Int8)
                p.note = "INT32 out + per-token×per-channel post-scale kernel";
            if (plan->postScale) {
                p.epilogueUs = median(epi);
                std::snprintf(buf, sizeof buf, " (%.1f µs of it)", p.epilogueUs);
                p.note += buf;
            }
            const launch::LabCheckResult &ck = plan->check;
            const bool passed = ck.checked > 0 && ck.failed == 0 && ck.worst <= 1.0;
            std::snprintf(buf, sizeof buf, "%soutput %s against FP64 on every element (%llu), worst %.3g of the bound",
                          p.note.empty() ? "" : "; ", passed ? "checked" : "CHECK FAILED", ck.checked, ck.worst);
            p.note += buf;
            if (ck.failed > 0) {
                std::snprintf(buf, sizeof buf, " (%llu above it)", ck.failed);
                p.note += buf;
            }
            const std::size_t ltCount = plan->candidates.size() - (plan->gemmExSlot >= 0 ? 1 : 0);
            if (plan->viaGemmEx && ltCount > plan->heuristicCount)
                std::snprintf(buf, sizeof buf,
                              "; cuBLAS cublasGemmEx (torch.matmul's call), the fastest of %d timed beside cuBLASLt's "
                              "%zu (the heuristic's %zu, then %zu enumerated)",
                              plan->algosTried, ltCount, plan->heuristicCount, ltCount - plan->heuristicCount);
            else if (plan->viaGemmEx)
                std::snprintf(buf, sizeof buf,
                              "; cuBLAS cublasGemmEx (torch.matmul's call), the fastest of %d timed beside the "
                              "cuBLASLt heuristic's %zu",
                              plan->algosTried, plan->heuristicCount);
            else if (ltCount > plan->heuristicCount)
                std::snprintf(buf, sizeof buf,
                              "; cuBLASLt algorithm %d of %zu (the heuristic's %zu, then %zu enumerated), the fastest "
                              "of %d timed",
                              plan->algoIndex, ltCount, plan->heuristicCount, ltCount - plan->heuristicCount,
                              plan->algosTried);
            else
                std::snprintf(buf, sizeof buf,
                              "; cuBLASLt algorithm %d of the heuristic's %zu, the fastest of %d timed",
                              plan->algoIndex, plan->heuristicCount, plan->algosTried);
            p.note += buf;
            if (!plan->viaGemmEx)
                p.note += " (" + algoText(plan->algo) + ")";
            if (plan->gemmExSlot >= 0 && !plan->viaGemmEx)
                p.note += "; cuBLAS cublasGemmEx timed beside it";
            if (copies > 1) {
                std::snprintf(buf, sizeof buf, "; %d rotating buffers", copies);
                p.note += buf;
            }
            L.lastChecks.push_back({p.format, m, static_cast<int>(std::min<unsigned long long>(ck.checked, 1u << 30)),
                                    ck.failed > 0 ? std::max(ck.worst, 1.0 + 1e-9) : ck.worst});
            points.push_back(std::move(p));
            done += gemmFlops(m, n, k) + 1e9;
        }
    }
    if (cancel)
        cancel->stepProgress(1.0);
    return points;
}

} // namespace quantscope::gpu
