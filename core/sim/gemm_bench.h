// SPDX-License-Identifier: MIT
#pragma once
/// \file gemm_bench.h
/// The GEMM timing lab (issue 21): what a Y[M,N] = X[M,K]·W[N,K]ᵀ GEMM of one weight's shape costs
/// per format and batch size M. Value structs shared by the CLI (`gemm-bench`), the window's GEMM
/// timing view and the benchmark; the CPU stand-in (Eigen FP32 GEMMs) lives here, the GPU
/// timings behind Backend::timeGemms (gpu/kernels/engine_gemmlab.cpp, cuBLASLt). The formats and
/// what each point holds: docs/numerics.md "GEMM timing lab".
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/cancel.h"

namespace quantscope {

/// The timed GEMM formats (GPU): BF16×BF16→BF16; FP8 E4M3×E4M3→BF16 with tensor-wise scales or
/// with per-token × per-channel (row-wise) scales; INT8×INT8→INT32 scaled per token × channel.
enum class GemmFormat : std::uint8_t { Bf16, Fp8, Fp8Rowwise, Int8 };

/// "bf16", "fp8", "fp8-rowwise", "int8".
std::string toString(GemmFormat f);
/// The inverse of toString; UnsupportedError naming the accepted names otherwise.
GemmFormat parseGemmFormat(const std::string &name);
/// A comma-separated list of format names (no duplicates); UnsupportedError on a bad one.
std::vector<GemmFormat> parseGemmFormats(const std::string &csv);
std::vector<GemmFormat> allGemmFormats();

/// 1, 2, 4, …, 8192.
std::vector<std::int64_t> defaultMSweep();
/// A comma-separated list of positive M values; UnsupportedError otherwise.
std::vector<std::int64_t> parseMSweep(const std::string &csv);

/// The format label of the CPU's points: the CPU has no BF16/FP8/INT8 GEMM here, so every
/// requested format is timed as the FP32 Eigen GEMM of the same shape, once per M.
inline constexpr const char *kCpuGemmFormat = "fp32 (cpu)";

struct GemmBenchRequest {
    std::vector<GemmFormat> formats = allGemmFormats();
    std::vector<std::int64_t> m = defaultMSweep();
    std::int64_t n = 0; ///< output features (the weight's rows)
    std::int64_t k = 0; ///< input features (the weight's columns)
    int repeats = 20;   ///< timed runs per point (≥ 20); the median is reported
    int warmup = 5;     ///< untimed runs after the cold call
    double cpuPointCapSeconds = 10; ///< the CPU's time per point (fewer repeats when slower)
    /// UnsupportedError naming what is wrong (empty lists, N or K < 1, repeats < 20, …).
    void validate() const;
};

/// One timed GEMM.
struct GemmPoint {
    std::string format;   ///< toString(GemmFormat) on a GPU; kCpuGemmFormat on the CPU
    std::int64_t m = 0, n = 0, k = 0;
    double timeUs = 0;    ///< median of the timed runs (device events on a GPU)
    double coldUs = 0;    ///< the first call of a new plan (kernel loading, caches cold)
    double epilogueUs = 0; ///< median share of timeUs spent in a separate post-scale kernel (0: none)
    double tflops = 0;    ///< 2·M·N·K / time
    double gbps = 0;      ///< bytes of X, W and Y, each once, / time
    bool padded = false;  ///< the library refused this M: ran (and timed) at paddedM
    std::int64_t paddedM = 0;
    int repeats = 0;      ///< timed runs behind the median
    std::string device;   ///< "cpu", "cuda:0"
    std::string note;     ///< how it ran (scaling path, epilogue, output check)
};

struct GemmBenchResult {
    std::string device;     ///< where the points were timed
    std::string deviceNote; ///< why not where asked ("" when as asked)
    std::vector<GemmPoint> points;
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
/// Bytes of X [M,K], W [N,K] and Y [M,N] once in `format` (the CPU: FP32 each).
double gemmBytes(const std::string &format, std::int64_t m, std::int64_t n, std::int64_t k);

/// The CPU's table: one FP32 Eigen GEMM per M (format kCpuGemmFormat), inputs seeded and
/// never zero, the first run timed as cold, then repeats until `repeats` or the per-point cap.
/// Progress through cancel->stepProgress (fraction of the FLOPs); throws Cancelled.
std::vector<GemmPoint> timeGemmsCpu(const GemmBenchRequest &request, const CancelToken *cancel = nullptr);

/// The CLI's JSON (docs/cli.md, gemm-bench): {"device", "device_note"?, "points": […]}.
nlohmann::ordered_json toJson(const GemmBenchResult &r);
/// The inverse (the view's tests and saved results); FormatError on a malformed document.
GemmBenchResult gemmBenchFromJson(const nlohmann::json &j);

} // namespace quantscope
