// SPDX-License-Identifier: MIT
#pragma once
/// \file gemm_bench.h
/// The GEMM timing lab (issue 21): what a Y[M,N] = X[M,K]·W[N,K]ᵀ GEMM of one weight's shape costs
/// per format and batch size M. Value structs shared by the CLI (`gemm-bench`), the window's GEMM
/// timing view and the benchmark; the CPU stand-in (Eigen FP32 GEMMs) lives here, the GPU
/// timings behind Backend::timeGemms (gpu/host/engine_gemmlab.cpp, cuBLASLt). The formats and
/// what each point holds: docs/numerics.md "GEMM timing lab".
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "quant/quantizer.h"
#include "tensor/tensor.h"
#include "util/cancel.h"

namespace quantscope {

/// The timed GEMM formats (GPU): BF16×BF16→BF16; FP8 E4M3×E4M3→BF16 with tensor-wise scales or
/// with per-token × per-channel (row-wise) scales; INT8×INT8→INT32 scaled per token × channel.
/// Part II's quantized-weight paths, each timed end to end (weight conversion kernel + GEMM +
/// epilogue) on the engine quantizer's codes:
///   W4a16     INT4 (g128 or per channel, asymmetric) → BF16 dequantize kernel + BF16 GEMM
///   W4a8Int8  INT4 (per channel, asymmetric) → INT8 unpack + INT8 GEMM + epilogue that applies
///             s_tok·s_ch and the zero-point term −z·Σ_k x_k
///   W4a8Fp8   INT4 (per channel) → E4M3 (q − z, exact) + FP8 GEMM with row-wise scales
///   W8a8Fp8   FP8 E4M3 per-channel weights × FP8 per-token activations, row-wise scales
///   Mxfp4 / Nvfp4  MXFP4 (g32, UE8M0) / NVFP4 (g16, E4M3 × FP32 global) weights × BF16
///             activations: the fused kernel for M ≤ 16 (gemm/kernels_fp4gemm.h), above it
///             dequantize to BF16 + cuBLASLt BF16 GEMM (engine_gemmlab_fp4.cpp; the note says which)
///   W3a16Milo MiLo's 3-bit HQQ (g64) + rank-r compensator, the fused W3A16 kernel (issue 43;
///             M ≤ 16, CUDA): w3Rank (0 = the W3 GEMM alone)
enum class GemmFormat : std::uint8_t {
    Bf16,
    Fp8,
    Fp8Rowwise,
    Int8,
    W4a16,
    W4a8Int8,
    W4a8Fp8,
    W8a8Fp8,
    Mxfp4,
    Nvfp4,
    W3a16Milo
};

/// The format of the points of the fused W4A16 kernel (issue 43), timed beside the unfused w4a16
/// path whenever W4a16 is requested on a GPU that builds it (not a format of its own to request).
inline constexpr const char *kW4a16FusedFormat = "w4a16-fused";
/// The formats of the fused W4A8 points (issue 43; gpu/kernels/gemm/kernels_w4a8.h), timed beside
/// the unfused w4a8-int8 / w4a8-fp8 paths on a GPU that builds them: the fused kernel for M ≤ 16,
/// above it the unfused route's time, the point's note saying which ran. Roofline and bytes as
/// their unfused formats.
inline constexpr const char *kW4a8Int8FusedFormat = "w4a8-int8-fused";
inline constexpr const char *kW4a8Fp8FusedFormat = "w4a8-fp8-fused";
/// The suffix of the FP4 formats' unfused points ("mxfp4-unfused", "nvfp4-unfused": dequantize to
/// BF16 + BF16 GEMM), timed at M ≤ 16 beside the fused kernel's point (the format's own).
inline constexpr const char *kFp4UnfusedSuffix = "-unfused";

/// "bf16", "fp8", "fp8-rowwise", "int8", "w4a16", "w4a8-int8", "w4a8-fp8", "w8a8-fp8", "mxfp4",
/// "nvfp4", "w3a16-milo".
std::string toString(GemmFormat f);
/// The inverse of toString; UnsupportedError naming the accepted names otherwise.
GemmFormat parseGemmFormat(const std::string &name);
/// A comma-separated list of format names (no duplicates); UnsupportedError on a bad one.
std::vector<GemmFormat> parseGemmFormats(const std::string &csv);
std::vector<GemmFormat> allGemmFormats();
/// Part I's plain formats (bf16, fp8, fp8-rowwise, int8): the request's default.
std::vector<GemmFormat> plainGemmFormats();
/// Whether the format is one of the quantized-weight paths (w4a16, …, w8a8-fp8).
bool isQuantizedWeightFormat(GemmFormat f);
/// The ceiling a format's GEMM runs against on the roofline: "bf16", "fp8", "int8" (the CPU's
/// "fp32"); w4a16, mxfp4, nvfp4 → bf16, w4a8-int8 → int8, w4a8-fp8 / w8a8-fp8 → fp8.
std::string gemmPeakDtype(const std::string &format);

/// 1, 2, 4, …, 8192.
std::vector<std::int64_t> defaultMSweep();
/// A comma-separated list of positive M values; UnsupportedError otherwise.
std::vector<std::int64_t> parseMSweep(const std::string &csv);

/// The format label of the CPU's points: the CPU has no BF16/FP8/INT8 GEMM here, so every
/// requested format is timed as the FP32 Eigen GEMM of the same shape, once per M.
inline constexpr const char *kCpuGemmFormat = "fp32 (cpu)";

struct GemmBenchRequest {
    std::vector<GemmFormat> formats = plainGemmFormats();
    std::vector<std::int64_t> m = defaultMSweep();
    std::int64_t n = 0;             ///< output features (the weight's rows)
    std::int64_t k = 0;             ///< input features (the weight's columns)
    int repeats = 20;               ///< timed runs per point (≥ 20); the median is reported
    int warmup = 5;                 ///< untimed runs after the cold call
    double cpuPointCapSeconds = 10; ///< the CPU's time per point (fewer repeats when slower)
    /// MoE mode: E experts of N×K, M tokens each; > 1 times each format (bf16, fp8) as one
    /// launch per expert and as one strided-batched launch.
    int experts = 1;
    /// W4A16's weight scales: group size along K (128) or 0 for per channel.
    std::int64_t w4Group = 128;
    /// The fused W4A16 kernel's tiling (0: its own choice): K slices and rows of W per warp (8,
    /// 16, 32). For tuning from the benchmark (docs/perf.md "Fused W4A16 GEMM (issue 43)").
    int w4a16SplitK = 0;
    int w4a16RowsPerWarp = 0;
    /// Which fused kernel (0: the lab's choice — for M ≤ 16 the fastest of the streaming kernel with
    /// 1 or 2 chunks a step and the swapped kernel, timed (the swapped one alone for groups under
    /// 128), above it the fastest of the CUTLASS route's tiles and the tiled kernel, timed; 1:
    /// tokens as the mma's M; 2: swapped, rows of W as the mma's M, M ≤ 16; 3: swapped and
    /// pipelined, W through a cp.async ring in shared memory, M ≤ 16; 4: the same with 8 warps; 5:
    /// the tiled kernel; 6: the CUTLASS route, w4a16RowsPerWarp its tile 1…8, 0 by M; 7: the
    /// streaming kernel on a tile-ordered copy of W, M ≤ 16, groups a multiple of 128) and chunks of
    /// W a warp loads ahead (kernel 2: 1, 2, 4, 0: 2; kernel 3: its ring, 4 or 8, 0: 4; kernel 7:
    /// chunks a step, 1 or 2, 0: 2).
    int w4a16Kernel = 0;
    int w4a16ChunksAhead = 0;
    /// w3a16-milo: the compensator's rank r (0 … 256; 0 = the W3 GEMM alone).
    int w3Rank = 32;
    /// The quantized paths' weights (filled by runGemmBench from `weight` through the engine's
    /// quantizer; a backend uses them as given): INT4 asymmetric (w4Group), INT4 asymmetric per
    /// channel, FP8 E4M3 per channel. Null where no requested format needs it.
    std::shared_ptr<const QuantizedTensor> w4, w4Channel, w8Fp8;
    /// MXFP4 (OCP, g32, even) and NVFP4 (g16) codes and scales for the mxfp4 / nvfp4 formats.
    std::shared_ptr<const QuantizedTensor> mxfp4, nvfp4;
    /// The tensor those come from ([N, K] FP32-decodable); null: a seeded N(0, 0.02) tensor.
    std::shared_ptr<const Tensor> weight;
    /// The roofline: measure (or take from the cache) the device's ceilings and place each point.
    bool roofline = true;
    std::string peaksCache;      ///< the cache file; "" = defaultPeaksCachePath() (gemm_roofline.h)
    bool remeasurePeaks = false; ///< ignore a cached entry (and replace it)
    /// UnsupportedError naming what is wrong (empty lists, N or K < 1, repeats < 20, …, or a
    /// format it cannot time: gemmFormatRefusal). What a backend is handed always passes.
    void validate() const;
};

/// A requested format the request could not time, and why (runGemmBench skips it and times the rest).
struct GemmSkippedFormat {
    std::string format; ///< toString(GemmFormat)
    std::string reason; ///< the refusal, as gemmFormatRefusal gives it
};

/// Why `request` cannot time format `f` ("" when it can): MoE mode (experts > 1) for anything but
/// bf16 and fp8; W4A16's group not even or not dividing K; K not a multiple of the block (mxfp4
/// 32, nvfp4 16, w3a16-milo 256); w3a16-milo's rank outside [0, 256]; an odd K for the quantized
/// paths. The message names the format (or its path) and K.
std::string gemmFormatRefusal(const GemmBenchRequest &request, GemmFormat f);
/// runGemmBench's first step: the request with only the formats it can time (in their order);
/// each other goes to `skipped` with its reason. Throws UnsupportedError when the request is wrong
/// as a whole (validate's other checks) or when none of its formats can be timed — then the
/// message is every format's reason joined by "; ", so a one-format request (the CLI's
/// `--formats mxfp4`) fails with its own reason as before.
GemmBenchRequest runnableGemmRequest(const GemmBenchRequest &request, std::vector<GemmSkippedFormat> &skipped);
/// The GPU lab's own limit beyond gemmFormatRefusal ("" when `f` runs there): cuBLASLt's FP8 and
/// INT8 GEMMs, and the GPU's quantized-weight and MoE paths built on them, need K a multiple of 16
/// (every format but bf16). The CPU stand-in has no such limit: runGemmBench skips these formats
/// on the GPU only, and only while another format runs there.
std::string gpuGemmFormatRefusal(const GemmBenchRequest &request, GemmFormat f);

/// One timed GEMM.
struct GemmPoint {
    std::string format; ///< toString(GemmFormat) on a GPU; kCpuGemmFormat on the CPU
    std::int64_t m = 0, n = 0, k = 0;
    double timeUs = 0;     ///< median of the timed runs (device events on a GPU)
    double coldUs = 0;     ///< the first call of a new plan (kernel loading, caches cold)
    double epilogueUs = 0; ///< median share of timeUs spent in a separate post-scale kernel (0: none)
    double tflops = 0;     ///< 2·M·N·K / time
    double gbps = 0;       ///< bytes of X, W and Y, each once, / time
    bool padded = false;   ///< the library refused this M: ran (and timed) at paddedM
    std::int64_t paddedM = 0;
    int repeats = 0;          ///< timed runs behind the median
    std::string device;       ///< "cpu", "cuda:0"
    std::string note;         ///< how it ran (scaling path, epilogue, output check)
    int experts = 1;          ///< MoE: experts per step (time, FLOPs and bytes are per step)
    int launches = 1;         ///< GEMM launches per step (experts for the loop, 1 strided-batched)
    double flops = 0;         ///< 2·E·M·N·K
    double bytes = 0;         ///< bytes moved (gemmBytes: weights as stored + X + Y (+ scales))
    double bytesPerToken = 0; ///< bytes / (experts·M): what one token's row costs in traffic
    /// The weight-read roofline (the weights as stored, scales included, at the roofline's copy
    /// GB/s) ÷ the time: 1 = the time it takes to read the weights once (0 until placed).
    double weightRooflineFraction = 0;
    /// The BF16 point's time at the same M (and experts, launches) ÷ this time (0: no BF16
    /// point in the result); runGemmBench fills it. Where the point has bf16PairedUs, that ÷ this
    /// time instead (with or without a BF16 point).
    double speedupVsBf16 = 0;
    /// The BF16 GEMM of the same shape (cuBLASLt, the lab's tuned algorithm) timed in this point's
    /// own repeats, alternating with it launch by launch, so that both see the same clock and power
    /// state: its median µs (0: not paired). The GPU lab pairs the compute-bound fused W4A16 points.
    double bf16PairedUs = 0;
    // The roofline (gemm_roofline.h placeOnRoofline; 0 / "" until placed).
    double intensity = 0;         ///< flops / bytes
    std::string bound;            ///< "memory" or "compute"
    double fractionOfCeiling = 0; ///< achieved FLOP/s ÷ the lower ceiling at `intensity`
    /// Run-to-run spread of the timed runs behind the median timeUs: the fastest, the 10th and
    /// the 90th percentile (linear between order statistics) and the slowest (0: not measured).
    double timeMinUs = 0, timeMaxUs = 0;
    double timeP10Us = 0, timeP90Us = 0;
    /// The library algorithm the point ran (GPU, cuBLASLt): its index in the heuristic's list
    /// (0 = the heuristic's first choice) and how many candidates were timed to pick it
    /// (-1 / 0: no choice made, e.g. the CPU or a kernel of our own).
    int algoIndex = -1, algosTried = 0;
    /// The memory level the point's working set (its bytes: X, W and Y once each) fits in, when
    /// the peaks have per-level ceilings (the CPU: "L1", "L2", "L3", "DRAM"); its memory
    /// ceiling is that level's bandwidth. "" where the peaks have one (DRAM) ceiling.
    std::string cacheLevel;
    /// The series the point belongs to: format, plus " loop" / " batched" in MoE mode.
    std::string series() const;
};

/// Roofline ceilings of one device (gemm_roofline.h): the device copy's GB/s and, per
/// gemmPeakDtype, the best TFLOP/s of a fixed set of large GEMMs.
/// One level of the memory hierarchy on the roofline (the CPU's caches and DRAM).
struct GemmMemoryLevel {
    std::string name;       ///< "L1", "L2", "L3", "DRAM"
    std::int64_t bytes = 0; ///< capacity (per core for L1/L2 as the OS reports it); 0: DRAM
    double gbps = 0;        ///< the better of a copy (read + write bytes) and a read at ½ capacity
};

struct GemmPeaks {
    std::string deviceKey;                ///< the GPU's name + driver/CUDA versions, or "cpu: …"
    double copyGbps = 0;                  ///< (read + write bytes) / time of a large device copy
    std::map<std::string, double> tflops; ///< dtype → best TFLOP/s
    std::string source;                   ///< "measured" or "cached (PATH)"
    std::string note;                     ///< the shapes and sizes behind the numbers
    /// Per-level memory ceilings, smallest level first and DRAM last (the CPU, whose small GEMMs
    /// run from cache); empty: copyGbps is every point's memory ceiling (the GPU, whose lab
    /// rotates operand copies past L2). Last, so that {key, copy, tflops, source, note} still
    /// initialises the others.
    std::vector<GemmMemoryLevel> levels;
};

struct GemmBenchResult {
    std::string device;     ///< where the points were timed
    std::string deviceNote; ///< why not where asked ("" when as asked)
    std::vector<GemmPoint> points;
    std::optional<GemmPeaks> peaks; ///< the roofline the points were placed on (absent: none)
    /// Requested formats the shape (or rank, group, MoE mode) cannot run: not timed, no points.
    std::vector<GemmSkippedFormat> skipped;
};

/// One format's points as the GEMM timing view draws them: sorted by M.
struct GemmCurve {
    std::string format;
    std::vector<double> m, timeUs, tflops;
    std::vector<std::int64_t> paddedM; ///< = m where not padded
};
/// One curve per format, in the order the formats first appear in the result.
std::vector<GemmCurve> gemmCurves(const GemmBenchResult &r);

/// 2·M·N·K.
double gemmFlops(std::int64_t m, std::int64_t n, std::int64_t k);
/// Bytes moved by one GEMM: W [N,K] as stored + X [M,K] + Y [M,N] (BF16 out), each once, plus
/// the scales and zero points. The plain formats as in part I (the CPU: FP32 each); w4a16:
/// N·K/2 + 4·N·K/g scales + N·K/g zero points (g = `w4Group`, 0: K), X BF16; w4a8-int8 /
/// w4a8-fp8: N·K/2 + 5·N (scale + zero per channel), X one byte + 4·M token scales; w8a8-fp8:
/// N·K + 4·N, X one byte + 4·M; mxfp4 / nvfp4: N·K/2 + N·K/32 (/16) scale bytes (+ 4 for NVFP4's
/// global scale), X BF16. The weight-conversion kernel's own traffic is not counted: the
/// roofline asks what the stored weights demand, so unfused paths show below their ceiling.
double gemmBytes(const std::string &format, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t w4Group = 128);
/// Fills flops, bytes, tflops, gbps and bytesPerToken of a timed point (timeUs, m, n, k, experts set).
void setGemmRates(GemmPoint &p, std::int64_t w4Group = 128);
/// The weights' share of gemmBytes (M = 0: the weights as stored with their scales and zeros).
double gemmWeightBytes(const std::string &format, std::int64_t n, std::int64_t k, std::int64_t w4Group = 128);
/// Sets timeUs (the median), timeMinUs, timeP10Us, timeP90Us, timeMaxUs and repeats from the
/// timed runs' µs (nothing when empty). The percentiles interpolate linearly between the sorted
/// runs: p(q) = t[⌊q·(R − 1)⌋] + frac·(t[⌈q·(R − 1)⌉] − t[⌊q·(R − 1)⌋]).
void setTimeSpread(GemmPoint &p, std::vector<double> timesUs);
/// speedupVsBf16 of every non-BF16 point that has a BF16 point of the same shape, M, experts and
/// launches in `r`.
void setSpeedupsVsBf16(GemmBenchResult &r);

/// The CPU's table: one FP32 Eigen GEMM per M (format kCpuGemmFormat), inputs seeded and
/// never zero, the first run timed as cold, then repeats until `repeats` or the per-point cap.
/// Progress through cancel->stepProgress (fraction of the FLOPs); throws Cancelled.
std::vector<GemmPoint> timeGemmsCpu(const GemmBenchRequest &request, const CancelToken *cancel = nullptr);

/// The CLI's JSON (docs/cli.md, gemm-bench): {"device", "device_note"?, "peaks"?, "skipped"?:
/// [{"format", "reason"}], "points": […]}.
nlohmann::ordered_json toJson(const GemmBenchResult &r);
/// The inverse (the view's tests and saved results); FormatError on a malformed document.
GemmBenchResult gemmBenchFromJson(const nlohmann::json &j);

} // namespace quantscope
