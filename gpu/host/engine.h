// SPDX-License-Identifier: MIT
#pragma once
/// \file engine.h
/// The GPU engine behind the CUDA (and HIP) backend: one device, one stream, a caching pool of
/// plain device allocations, pinned staging for uploads, and the quantize + fused-metrics
/// pipeline. CUDA/HIP-free header: the backend, the tests and the benchmark include it.
///
/// Pipeline of one run (all on the engine's stream, no host synchronisation inside):
///   [range]   per-group min/max where groups are not row-local (tensor, channel, block) or, for
///             per-tensor scales, the W statistics pass — skipped when the caller gives W's stats
///   pass 1    codes (+ Ŵ on request), scales and zero points (row-local groups reduce in
///             registers), and the sums: W/Ŵ extremes, counts and sums, Σe², Σx², Σx̂², Σxx̂,
///             error extremes
///   finalize  reduce pass 1 in a fixed order; find the histogram thresholds (exact FP64 rule)
///   pass 2    the W, Ŵ, error and 4096-bin |error| histograms, central moments of W and Ŵ
///             (blocks walk the tensor backwards, so the tail pass 1 left in L2 is read first)
///   finalize  reduce pass 2's moments (the host evaluates the percentiles from the |error| bins)
/// Value-table paths (fp8_quant.cu, int_quant.cu) replace this for 16-bit inputs in the headline
/// cases — FP8 per tensor, and INT with row-local groups ≤ 128, ≤ 16 levels, FP32 arithmetic and
/// scales: values are counted once and every per-value quantity (codes, bins, sums) is evaluated
/// once per distinct value; Ŵ of INT groups comes from per-group code counts. If W holds NaN/Inf
/// they set a flag and collect() reruns the generic pipeline, which reports them like the CPU.
/// collect() downloads codes, scales, zero points (and Ŵ when asked) and the metrics.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/backend.h"
#include "engine/gpu_status.h"
#include "metrics/error_metrics.h"
#include "metrics/output_error.h"
#include "metrics/spectrum.h"
#include "numeric/moments.h"
#include "quant/activation.h"
#include "quant/constopt_sweep.h"
#include "sim/gemm_sim.h"
#include "quant/quantizer.h"
#include "tensor/tensor.h"

namespace quantscope {
struct HqqSpec;
struct MiloSpec;
struct GptqSpec;
struct AwqSpec;
struct GgufQuantSpec;
struct KvData;
class KvLabAccelerator;
} // namespace quantscope

namespace quantscope::gpu {

struct EngineInfo {
    std::string api; ///< "CUDA" or "HIP"
    std::string name;
    std::uint64_t totalMemory = 0, freeMemory = 0;
    int multiProcessors = 0;
    int ccMajor = 0, ccMinor = 0;
    std::uint64_t l2Bytes = 0;
};

/// A tensor resident on the device: row-major, stored as F32, BF16 or F16 (other dtypes are
/// decoded to F32 on upload); `dtype()` is the source dtype (it selects `arith source`).
class GpuTensor final : public DeviceTensor {
public:
    GpuTensor(Shape shape, DType source, DType storage, void *ptr, std::string name, std::shared_ptr<void> holder)
        : m_shape(std::move(shape)), m_source(source), m_storage(storage), m_numel(numelOf(m_shape)), m_ptr(ptr),
          m_name(std::move(name)), m_holder(std::move(holder))
    {
    }
    const Shape &shape() const override { return m_shape; }
    DType dtype() const override { return m_source; }
    DType storage() const { return m_storage; }
    std::int64_t numel() const { return m_numel; }
    const void *data() const { return m_ptr; }
    const std::string &name() const { return m_name; }

private:
    Shape m_shape;
    DType m_source, m_storage;
    std::int64_t m_numel;
    void *m_ptr;
    std::string m_name;
    std::shared_ptr<void> m_holder; ///< returns the memory to the pool
};

struct PipelineOptions {
    bool metrics = true;
    bool wantDequantized = false; ///< download Ŵ (FP32)
    bool downloadCodes = true;
    ErrorMetricsOptions metricsOptions;
    /// W's statistics as computed when the tensor was opened (computeStats with the same
    /// miloStd): the range pass is skipped, the histogram range and W's moments come from here.
    std::optional<TensorStats> inputStats;
    /// With wantDequantized: Ŵ stays on the device for dequantizedOnDevice() (not downloaded).
    bool keepDequantizedOnDevice = false;
    /// NVFP4: the |max| the global scale is computed from (QuantizeOptions::tensorAmax).
    std::optional<float> tensorAmax;
    /// Benchmark ablations of pass 2 (launch::kPass2* bits; results are then incomplete). 0.
    int debugFlags = 0;
};

/// How all singular values are computed (Engine::singularValues with options.top = 0): the FP64
/// Gram matrix + DSYEVD (the product's choice: every σ within 1e-4·σ₁ of LAPACK), cuSOLVER's
/// DGESVD, or the FP32 Gram matrix + SSYEVD (PyTorch's fast way, for measurement).
enum class SvdMethod { GramF64, Gesvd, GramF32 };

/// How the top k are computed (Engine::singularValues with 0 < options.top < min(rows, cols)). Both
/// run the CPU's subspace iteration (numeric/svd.h: the same Philox Ω, the same subspaces, so the
/// same σ up to rounding) through the range sketch (linalg_sketch.h):
/// - Direct: every product by E in FP32 (no TF32), both bases normalised (FP64 CholeskyQR on the
///   thin side): 2p + 2 products by E for p power iterations (the first version, kept to measure);
/// - Gram: E in FP64, the Gram matrix of its smaller side formed once (DSYRK; E·Eᵀ when rows ≤
///   cols, else Eᵀ·E), each pair of products by E (Eᵀ·Q, then E·Z) replaced by one product by it
///   (DGEMM), one normalisation per iteration, on that side only; FP64 throughout.
/// - GramGemm: the Gram route with G formed by a full DGEMM (twice DSYRK's flops, no
///   symmetrisation; for measurement: cuBLAS's SYRK may run below the GEMM rate).
/// Auto: the route estimateTopK says is faster (Direct or Gram); Direct when the device lacks room
/// for the Gram route's buffers (E in FP64, two s × s matrices, the FP64 sketch).
enum class TopKRoute { Auto, Direct, Gram, GramGemm };

/// The products' estimated device time of each top-k route (ms) for l = k + oversampling sketch
/// columns and p power iterations: their flops at the rates measured on the H100 (SGEMM without
/// TF32 ≈ 42.7 TFLOP/s — the direct route's products, 2026-11-25; DGEMM ≈ 63 TFLOP/s, and the
/// Gram's DSYRK taken at the same rate). The normalisations are left out: the Gram route never
/// runs more of them (p + 2 Cholesky passes against 2p + 2), so the estimate can only understate
/// its lead.
struct TopKEstimate {
    double directMs = 0, gramMs = 0;
    double directGflop = 0, gramGflop = 0;
};
inline TopKEstimate estimateTopK(std::int64_t rows, std::int64_t cols, int l, int powerIters)
{
    const double m = static_cast<double>(rows), n = static_cast<double>(cols), L = l, p = powerIters;
    const double s = m <= n ? m : n, big = m <= n ? n : m;
    const double byE = 2 * m * n * L, byGram = 2 * s * s * L, gram = s * s * big;
    TopKEstimate e;
    e.directGflop = (2 * p + 2) * byE * 1e-9;
    if (m <= n) // Y = E·Ω, p products by the Gram, the Ritz matrix Qᵀ·(G·Q)
        e.gramGflop = (gram + byE + (p + 1) * byGram + 2 * s * L * L) * 1e-9;
    else // Z = G·Ω and p − 1 more by the Gram, then Y = E·Z and Bᵀ = Eᵀ·Q (p = 0: E·Ω, Eᵀ·Q)
        e.gramGflop = ((powerIters > 0 ? gram + p * byGram : 0) + 2 * byE) * 1e-9;
    e.directMs = e.directGflop / 42.7e3 * 1e3;
    e.gramMs = e.gramGflop / 63e3 * 1e3;
    return e;
}
/// Auto's choice (never Auto).
inline TopKRoute chooseTopKRoute(std::int64_t rows, std::int64_t cols, int l, int powerIters)
{
    const TopKEstimate e = estimateTopK(rows, cols, l, powerIters);
    return e.gramMs < e.directMs ? TopKRoute::Gram : TopKRoute::Direct;
}

/// A module's Gram on the device (Engine::uploadGram): the full one as its symmetric part
/// (G + Gᵀ)/2 in FP32, K×K; or diag(G) in FP64.
struct GramOnDevice {
    std::int64_t k = 0;
    bool diagonal = false;
    std::shared_ptr<void> values;
    std::uint64_t bytes = 0;
};

/// How Engine::gramEnergy forms DᵀD (docs/numerics.md "Output-aware error"): BF16 hi + lo with
/// FP32 accumulation (the product's choice), or for measurement BF16 alone, TF32, FP32 (SIMT).
enum class GramPrecision { Bf16Split, Bf16, Tf32, Fp32 };

struct GramEnergyOptions {
    GramPrecision precision = GramPrecision::Bf16Split;
    /// DᵀD's lower block triangle in block rows of this many columns (0: the engine's default;
    /// ≥ K: the full product).
    std::int64_t block = 0;
    /// hiᵀhi accumulated over chains of this many rows, added in FP32 with round to nearest
    /// (0: the engine's default; ≥ rows: one chain).
    std::int64_t chunkRows = 0;
};

struct MiloDeviceOptions {
    bool wantDequantized = false; ///< download Ŵ
    bool wantCodes = true;        ///< download the HQQ codes
    bool metrics = false;         ///< the fused metrics of Ŵ against W
    ErrorMetricsOptions metricsOptions;
    std::optional<TensorStats> inputStats;
};

struct MiloDeviceResult {
    QuantizedTensor quantized;     ///< as MiloQuantizer::quantize fills it (history ms: host time per pass)
    ErrorMetrics metrics;          ///< with options.metrics
    float deviceMs = 0;            ///< from the first pass to Ŵ (events on the engine's stream)
    std::uint64_t deviceBytes = 0; ///< device memory the run asked of the pool (without the metrics pass)
    int householderPasses = 0;     ///< passes whose sketch needed Householder QR
    int sketchReruns = 0;      ///< passes whose sketch without intermediate QRs was rerun with a QR after every product
    double hostSetupMs = 0;    ///< host time from the call to the first pass's queueing (buffers, handles)
    double hostDownloadMs = 0; ///< host time from Ŵ's queueing to the result's vectors filled (waits, downloads)
    bool earlyDownload = false; ///< the returned pass was the last one, whose codes, scales and zero points
                                ///< went down during its sketch (not downloaded again after Ŵ)
};

/// How GPTQ's device factor inverts L' (measurement; both give L'⁻¹ up to FP64 rounding).
enum class GptqInverse { Trsm, Trtri };

struct GptqDeviceOptions {
    bool wantDequantized = false; ///< download Ŵ
    bool wantCodes = true;
    bool metrics = false; ///< the fused metrics of Ŵ against W
    ErrorMetricsOptions metricsOptions;
    std::optional<TensorStats> inputStats;
    bool wantFactor = false;                 ///< download U (tests: the CPU's columns on the device's U)
    GptqInverse inverse = GptqInverse::Trsm; ///< cuBLAS's trsm on I (default) or cuSOLVER's trtri
};

struct GptqDeviceResult {
    QuantizedTensor quantized; ///< as GptqQuantizer::quantize fills it
    ErrorMetrics metrics;      ///< with options.metrics
    float deviceMs = 0;        ///< from the permuted H to the codes and Ŵ (events; H and W on the device)
    float factorMs = 0;        ///< of which U (the reversed H, potrf, trtri, the cast)
    std::vector<float> u;      ///< with options.wantFactor: U, K×K row-major
};

struct AwqDeviceOptions {
    bool wantDequantized = false;         ///< download Ŵ = inner / s*
    bool wantCodes = true;                ///< download the codes
    bool metrics = false;                 ///< the fused metrics of Ŵ against W
    bool keepDequantizedOnDevice = false; ///< Ŵ stays on the device (AwqDeviceResult::wHat)
    /// Every rows pass by the one-block-per-row kernel (kRows), not the team kernel its layout may
    /// take: the same bits; for the benchmark's comparison (bench/gpu_awq.cpp) and the GPU tests.
    bool genericRows = false;
    ErrorMetricsOptions metricsOptions;
    std::optional<TensorStats> inputStats;
};

struct AwqDeviceResult {
    QuantizedTensor quantized;       ///< as AwqQuantizer::quantize fills it
    ErrorMetrics metrics;            ///< with options.metrics
    std::shared_ptr<GpuTensor> wHat; ///< Ŵ (FP32) with keepDequantizedOnDevice
    float meansMs = 0;               ///< device time of x̄ and w̄
    float gridMs = 0;                ///< device time of the grid: every point's s upload, W·s, codes, D, X·Dᵀ, loss
    float finalMs = 0;               ///< device time of the stored codes, scales and Ŵ of s*
};

struct GgufDeviceOptions {
    bool wantDequantized = false;         ///< download Ŵ (the blocks decoded)
    bool keepDequantizedOnDevice = false; ///< Ŵ stays on the device (GgufDeviceResult::wHat)
    bool wantBlocks = false;              ///< download the ggml blocks (GgufDeviceResult::blocks)
    bool metrics = false;                 ///< the fused metrics of Ŵ against W
    ErrorMetricsOptions metricsOptions;
    std::optional<TensorStats> inputStats;
};

struct GgufDeviceResult {
    QuantizedTensor quantized;       ///< as GgufQuantizer::quantize fills it (Ŵ with wantDequantized)
    ErrorMetrics metrics;            ///< with options.metrics
    std::shared_ptr<GpuTensor> wHat; ///< Ŵ (FP32) with keepDequantizedOnDevice
    std::vector<std::byte> blocks;   ///< with wantBlocks: the blocks, row after row, as ggml stores them
    float deviceMs = 0;              ///< device time of the importance upload and the quantize + decode kernel
};

/// Device milliseconds of Engine::simulateGemmPlanned's stages (benchmarks).
struct GemmSimTimes {
    float activationsMs = 0; ///< rotation, activation quantizer, its error sums
    float operandsMs = 0;    ///< the uploads of codes and run tables, decode of X, W, Ŵ and the Ŷ operands
    float productsMs = 0;    ///< the products kernel and the per-token reduction
};

/// What one enqueued run leaves on the device; collect() waits for it and downloads.
class PipelineRun {
public:
    virtual ~PipelineRun() = default;
};

class Engine {
public:
    /// Starts device `device`; nullptr with `reason` (and `cause` when given) set when it
    /// cannot. The reason follows the actual cause (engine/gpu_status.h).
    static std::unique_ptr<Engine> create(int device, std::string &reason, GpuCause *cause = nullptr);
    ~Engine();
    Engine(const Engine &) = delete;
    Engine &operator=(const Engine &) = delete;

    EngineInfo info() const;
    /// Copies a host tensor to the device through pinned staging. GpuError naming the tensor and
    /// the free memory when it does not fit.
    std::shared_ptr<GpuTensor> upload(const Tensor &t, const std::string &name);
    /// Quantizes `w` with `spec` (methods "int" and "fp8") and, with options.metrics, measures it;
    /// `wHat` instead of a spec (spec null): only the metrics of that Ŵ.
    std::unique_ptr<PipelineRun> enqueue(const GpuTensor &w, const QuantSpec *spec, const PipelineOptions &options,
                                         const GpuTensor *wHat = nullptr);
    /// Waits for the run and fills what was asked (either pointer may be null).
    void collect(PipelineRun &run, QuantizedTensor *q, ErrorMetrics *m);
    /// The fused metrics of a device Ŵ against W (the "given Ŵ" run of enqueue, then collect): what
    /// the methods with their own kernels (HQQ's caller, MiLo, GPTQ, AWQ) report as their metrics.
    ErrorMetrics metricsOf(const GpuTensor &w, const GpuTensor &wHat, const ErrorMetricsOptions &options,
                           const std::optional<TensorStats> &inputStats);
    /// Ŵ of a run enqueued with wantDequantized, as an FP32 device tensor of W's shape (stream-
    /// ordered after the run; the tensor keeps the memory).
    std::shared_ptr<GpuTensor> dequantizedOnDevice(PipelineRun &run);
    /// The codes of a quantizing run on the device (one byte per element; valid while the run lives
    /// and, for runs whose collect() reran the generic path on NaN/Inf, those of the first run).
    const void *codesOnDevice(PipelineRun &run);
    void synchronize();

    // ---- HQQ (engine_hqq.cpp): the whole optimisation on the device, bit-identical to the CPU ----
    /// Queues HQQ of `w` (codes, stored scales and zero points, the iteration history, Ŵ) and,
    /// with options.metrics, the fused metrics of that Ŵ (the "given Ŵ" run of enqueue). Throws
    /// UnsupportedError as the CPU does (numel % group ≠ 0, a bad spec).
    std::unique_ptr<PipelineRun> enqueueHqq(const GpuTensor &w, const HqqSpec &spec, const PipelineOptions &options);
    /// Waits for an enqueueHqq run; fills q as HqqQuantizer::quantize does (Ŵ when
    /// options.wantDequantized) and m with the metrics (either may be null).
    void collectHqq(PipelineRun &run, QuantizedTensor *q, ErrorMetrics *m);

    // ---- AWQ (engine_awq.cpp; CUDA builds: cuBLAS) ----
    /// AwqQuantizer's search and result on the device (docs/numerics.md "AWQ on the GPU"):
    /// codes, scales, zero points and s* bit for bit the CPU's, each grid point's loss FP64 (X·Dᵀ by
    /// DGEMM) within 1e-10 relative of the CPU's. `cal` must hold the row sample (awqCalibration).
    /// Throws UnsupportedError as the CPU does (NaN/Inf in W, a strict ragged group), GpuError,
    /// Cancelled (between grid points).
    AwqDeviceResult awq(const GpuTensor &w, const AwqSpec &spec, const Calibration &cal,
                        const AwqDeviceOptions &options, const CancelToken *cancel = nullptr);

    // ---- llama.cpp's block quantizers (engine_ggml.cpp; CUDA builds) ----
    /// GgufQuantizer on the device (docs/numerics.md "GGUF block types on the GPU"): every block of
    /// `spec.type` by ggml's own per-block code compiled for the device (ggml/ggml_kquant_blocks.h),
    /// one thread per block, so the blocks, their scales and Ŵ are the CPU's bit for bit.
    /// `importance`: the K-quants' weights per column (ggufImportance: empty, or K of them).
    /// Throws UnsupportedError as the CPU does (K not whole blocks), GpuError.
    GgufDeviceResult gguf(const GpuTensor &w, const GgufQuantSpec &spec, std::span<const float> importance,
                          const GgufDeviceOptions &options, const std::string &tensorName = {});

    // ---- benchmark helpers (device time on the engine's stream) ----
    /// The engine's stream as the runtime's handle (cudaStream_t or hipStream_t), for benchmark
    /// hooks that queue their own kernels between runs (bench/bench_gpu_hooks.h).
    void *stream() const;
    void recordStart();
    void recordStop();
    /// Milliseconds between the last recordStart and recordStop (waits for the stop).
    float elapsedMs();
    /// Bytes currently held by the caching pool (in use + cached).
    std::uint64_t poolBytes() const;
    /// Device-to-device copy on the engine's stream (the benchmark's copy floor).
    void copyDevice(void *dst, const void *src, std::size_t bytes);
    /// Benchmarks: record an event after each stage of the next enqueued runs (off: false).
    void profileStages(bool on);
    /// Stage name and milliseconds since the previous mark (or recordStart) of the last run.
    std::vector<std::pair<std::string, float>> stageTimes();
    /// Test hook: the device's FP8 quantization cast of the FP32 bit patterns first..first+count−1.
    std::vector<std::uint8_t> encodeFp8(bool e4m3, std::uint32_t first, std::size_t count);

    // ---- the Hadamard rotation and the constOpt c sweep (engine_sweep.cpp) ----
    /// An FP32 copy of `w` ([rows, K] as matrixView) with its rows rotated in blocks of d, bit for
    /// bit core/numeric/hadamard.h's hadamardRows; d = 0 or 1: decoded only. GpuError when d is not a
    /// power of two ≤ 4096 dividing K (larger rotations run on the CPU).
    std::shared_ptr<GpuTensor> hadamardRows(const GpuTensor &w, std::int64_t d);
    /// A device tensor's values decoded to FP32, on the host.
    std::vector<float> downloadFloats(const GpuTensor &t);
    /// Per-channel moment sums of the matrix view of `w` (results/channel_profile.h), FP64, in a
    /// fixed reduction order (the same bits on every run of a device).
    ChannelMomentSums channelMoments(const GpuTensor &w);
    /// The c sweep's MSE grid evaluator (quant/constopt_sweep.h) on an FP32 device matrix x (already
    /// rotated), groups of `group` along K, encoder pow2 or unrounded: the CPU evaluator's bits. The
    /// engine must outlive it.
    std::unique_ptr<CSweepGridEvaluator> sweepEvaluator(std::shared_ptr<const GpuTensor> x, std::int64_t group,
                                                        bool pow2);

    // ---- the KV-cache lab (engine_kv.cpp) ----
    /// The lab's device part (kv/kv_lab.h) over `data`, its K, V and queries uploaded once and the
    /// reference attention at the query rows `rows` computed. GpuError when head_dim exceeds the
    /// kernels' 256 or on OOM. The engine must outlive it.
    std::unique_ptr<KvLabAccelerator> kvLab(const KvData &data, const std::vector<std::int64_t> &rows);

    // ---- activation quantizers and the paired GEMM simulation (engine_gemm.cpp) ----
    /// quant/activation.h's quantizer on the device: the dynamic ones through the pipeline (INT8
    /// per token, FP8 per token / per tensor), the static one by its own kernel; the CPU's bits.
    QuantizedActivations quantizeActivations(const GpuTensor &x, const ActQuantSpec &spec);
    /// The paired GEMM simulation's loops (sim/gemm_sim.h) on the device: Ŷ bit for bit the CPU's,
    /// the per-token FP64 sums in a fixed order.
    void simulateGemm(const GemmOperands &ops, bool keepOutput, GemmSums &out);
    /// The whole paired simulation on the device (Backend::simulateGemmPlanned): X and W as they
    /// are stored here, Ŵ from `wHat` (FP32) or the codes (plan.intDequant) or else the host's Ŵ
    /// uploaded; the activation quantizer (the pipeline, or the static kernel), the Hadamard
    /// rotation, the operands' decode, the products and the reductions on the engine's stream; the
    /// dynamic activation quantizer's collect and the final download are the only synchronisations.
    /// False with `whyNot` when it declines (NaN/Inf in the activations: the host path reports them
    /// as the CPU does). `times` (optional): device milliseconds of the stages (adds event syncs).
    /// `deviceCodes` (optional): W's codes already on this device, one byte an element as qw.codes
    /// holds them (codesOnDevice() of the run that quantized W), read in place of uploading qw.codes.
    bool simulateGemmPlanned(const GpuTensor &x, const GpuTensor &w, const GpuTensor *wHat, const QuantizedTensor &qw,
                             const GemmPlan &plan, const GemmSimOptions &options, GemmDeviceRun &out,
                             std::string &whyNot, GemmSimTimes *times = nullptr, const void *deviceCodes = nullptr);

    // ---- singular values (engine_linalg.cpp; CUDA builds: cuBLAS and cuSOLVER) ----
    /// Singular values of the row-major FP32 matrix e [rows, cols], descending, in FP64 on the
    /// device: all of them (options.top = 0) as `method` says; the top k by the CPU's randomized
    /// subspace iteration (the same Philox sketch Ω) along `route` (TopKRoute: by E in FP32, or
    /// through the FP64 Gram matrix of the smaller side), every QR in FP64, the small B's values
    /// from its FP64 Gram matrix B·Bᵀ. `algorithm` names what ran; `deviceMs` (optional) gets the
    /// device time after the upload.
    std::vector<double> singularValues(std::span<const float> e, std::int64_t rows, std::int64_t cols,
                                       const SpectrumOptions &options, SvdMethod method, std::string &algorithm,
                                       float *deviceMs = nullptr, TopKRoute route = TopKRoute::Auto);

    // ---- the output-aware error (engine_outerr.cpp; CUDA builds: cuBLAS) ----
    /// G on the device, once per module: the full Gram rounded to FP32 (exact for a capture's FP32
    /// Gram) and symmetrized on the device, or the diagonal in FP64. GpuError on OOM.
    std::shared_ptr<const GramOnDevice> uploadGram(const GramMatrix &g);
    /// Σ_r v_r G v_rᵀ, v = W − Ŵ (Ŵ FP32 of W's matrix shape, or null: v = W) as
    /// tr(H · DᵀD): D split into BF16 hi + lo, DᵀD ≈ hiᵀhi (lower block triangle) + hiᵀlo + loᵀhi
    /// by cuBLAS with FP32 accumulation, the trace in FP64 in a fixed order; the diagonal Gram:
    /// Σ (v_rj)² g_j in FP64. `deviceMs` (optional): device time of the whole call.
    double gramEnergy(const GpuTensor &w, const GpuTensor *wHat, const GramOnDevice &g,
                      const GramEnergyOptions &options = {}, float *deviceMs = nullptr);

    // ---- MiLo (engine_milo.cpp; CUDA builds: cuBLAS and cuSOLVER) ----
    /// quant/milo.h's loop on the device: the device HQQ per pass, the range sketch of the residual
    /// (the CPU's Philox Ω), the stop rule on the device (one small status copy per pass), the
    /// returned pass's factors, sign rule and compensators on the device. Throws UnsupportedError as
    /// the CPU does (non-finite W, numel % group ≠ 0), GpuError.
    MiloDeviceResult milo(const GpuTensor &w, const MiloSpec &spec, const MiloDeviceOptions &options,
                          const CancelToken *cancel = nullptr);

    // ---- GPTQ (engine_gptq.cpp; CUDA builds: cuSOLVER) ----
    /// quant/data_aware.h's GPTQ on the device: the observer's scales by the pipeline, H from the
    /// calibration (gptqHessian) uploaded once, U by cuSOLVER (potrf + trtri of the reversed H: the
    /// CPU's U up to FP64 rounding), then the CPU's column loop and lazy-batch FMA chains (codes and
    /// Ŵ bit for bit the CPU's given the same U). Throws UnsupportedError as the CPU does (no
    /// capture, K mismatch, NaN/Inf), and for block_size > launch::kGptqMaxBlock.
    GptqDeviceResult gptq(const GpuTensor &w, const GptqSpec &spec, const Calibration &calibration,
                          const GptqDeviceOptions &options, const CancelToken *cancel = nullptr);

    // ---- the GEMM timing lab (engine_gemmlab.cpp; CUDA builds only: cuBLASLt) ----
    /// Times the request's formats × M (sim/gemm_bench.h) for Y[M,N] = X[M,K]·W[N,K]ᵀ in the TN
    /// layout, each with the fastest of the heuristic's algorithms (all it returns, up to 16,
    /// timed), device events, warm-up, median and spread of the repeats, rotating buffers while the
    /// working set fits in L2; each plan's output checked once on every element against FP64 on
    /// the device (gemmLabChecks). Progress through cancel's step progress.
    std::vector<GemmPoint> timeGemms(const GemmBenchRequest &request, const CancelToken *cancel);
    /// The output check of each point of the last timeGemms: `samples` = the outputs checked
    /// (every element) and the worst |y − ref| / bound (≤ 1 passes; > 1 when any output failed;
    /// docs/numerics.md "GEMM timing lab").
    struct GemmLabCheck {
        std::string format;
        std::int64_t m = 0;
        int samples = 0;
        double worst = 0;
    };
    std::vector<GemmLabCheck> gemmLabChecks() const;
    /// How often the lab has run cuBLASLt's heuristic in this process (once per new plan).
    static std::uint64_t gemmLabHeuristicCalls();
    // Part II (issue 22; timeGemms dispatches to these): engine_gemmlab_quant.cpp,
    // engine_gemmlab_moe_roofline.cpp. Each appends its output checks to `checks`.
    /// The quantized-weight paths (w4a16, w4a8-int8, w4a8-fp8, w8a8-fp8) on the request's
    /// quantized weights, each end to end (conversion kernel + GEMM + epilogue).
    std::vector<GemmPoint> timeQuantizedGemms(const GemmBenchRequest &request, const CancelToken *cancel,
                                              std::vector<GemmLabCheck> &checks);
    /// MoE (request.experts > 1): per format (bf16, fp8) one launch per expert vs one
    /// strided-batched launch; the batched output compared with the loop's.
    std::vector<GemmPoint> timeMoeGemms(const GemmBenchRequest &request, const CancelToken *cancel,
                                        std::vector<GemmLabCheck> &checks);
    /// The roofline's ceilings: a large device copy and per dtype the best of a fixed set of large GEMMs.
    GemmPeaks measureGemmPeaks(const CancelToken *cancel);
    /// The GPU's name + driver, CUDA runtime and cuBLASLt versions (the roofline cache's key).
    std::string gemmDeviceKey();

    struct Impl;

private:
    explicit Engine(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

/// The GPU backend's Backend::sweepGrid: uploads w, decodes and (options.rotate) rotates it on the
/// device, and returns the evaluator; null with `whyNot` for a rotation larger than 4096.
std::unique_ptr<CSweepGridEvaluator> sweepGrid(Engine &engine, const Tensor &w, const CSweepOptions &options,
                                               std::string &whyNot);

/// True when the engine's pipeline runs this spec on the device itself: int, fp8, mxfp4, nvfp4,
/// constopt without a rotation, progressive with stage 1 FP8 per tensor and stage 2 INT (the
/// backend adds constopt's rotation around it).
bool engineSupports(const QuantSpec &spec);

} // namespace quantscope::gpu
