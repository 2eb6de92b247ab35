// SPDX-License-Identifier: MIT
#pragma once
/// \file cli.h
/// quantscope-cli subcommands and the small argument parser they share.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/job.h"

namespace quantscope {
// Forward declarations keep this header light (each command includes what it uses).
class Checkpoint;
class Tensor;
struct QuantizedTensor;
struct ReadOptions;
} // namespace quantscope

namespace quantscope::cli {

/// Arguments after the subcommand name. Flags are `--name` or `--name value`; anything not
/// starting with `--` is positional.
class Args {
public:
    Args(std::vector<std::string> args) : m_args(std::move(args)) {}
    /// True and consumed when `--name` is present.
    bool flag(const std::string &name);
    /// The value of `--name VALUE` (last one wins); throws UsageError when the value is missing.
    std::optional<std::string> value(const std::string &name);
    /// True when `--name` (or `--name=…`) is present; consumes nothing.
    bool has(const std::string &name) const;
    /// All values of a repeatable `--name VALUE`.
    std::vector<std::string> values(const std::string &name);
    /// Remaining positionals; throws UsageError when an unknown `--flag` remains.
    std::vector<std::string> positionals();

private:
    std::vector<std::string> m_args;
};

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

int runInfo(Args args);
int runDemo(Args args);
int runQuantize(Args args);
int runDecode(Args args);
int runSpectrum(Args args);
int runDoctor(Args args);
/// `compare` (compare_cmd.cpp).
int runCompare(Args args);
/// `export` (export_cmd.cpp).
int runExport(Args args);
/// `scan` and `recipe check` (scan_cmd.cpp).
int runScanCommand(Args args);
int runRecipeCommand(Args args);

/// The quantizer spec of `quantize`'s options (--spec FILE, --method and the method's flags),
/// parsed and validated once, here where it enters; consumes the options it reads.
QuantSpec buildQuantizeSpec(Args &args);
/// --device auto|cpu|gpu (every command that computes); Auto when absent. Throws UsageError.
DeviceChoice takeDeviceOption(Args &args);
/// Runs the engine's job for one tensor of `ck` with the request's configurations, showing the
/// progress line on stderr unless `quiet`; returns the one outcome (or the tensor profile's
/// spectrum when there is no configuration). A failed step is thrown as the error it recorded.
QuantizeJobResult runCliJob(const Checkpoint &ck, const std::string &tensor, QuantizeJobRequest request,
                            bool quiet);
/// Parses an integer option value (the whole string); throws UsageError naming the option.
std::int64_t toInt(const std::string &opt, const std::string &v);
/// Parses a real option value (the whole string); throws UsageError naming the option.
double toReal(const std::string &opt, const std::string &v);
int runSweepC(Args args);
int runGemmBench(Args args);

/// quantize: the flags of the methods mxfp4, nvfp4, progressive and constopt into `spec`
/// (quant_methods.cpp); false for other methods.
bool applyMethodFlags(Args &args, nlohmann::json &spec, const std::string &method);

/// `--per-channel` (info --stats, quantize): "input_channels" / "output_channels", each with
/// count, absmax, excess_kurtosis (null where undefined), absmax_median and the top 8 outliers;
/// with `wHat` (Ŵ of w, row-major) also output_channels.rel_error (‖w_r − ŵ_r‖ / ‖w_r‖).
nlohmann::ordered_json perChannelJson(const Tensor &w, const std::vector<float> *wHat = nullptr);

/// quantize --activation [FILE:]NAME [--act-quant KIND]: the paired GEMM simulation.
struct GemmRequest {
    std::string activation;
    std::optional<std::string> actQuant;
    DeviceChoice device = DeviceChoice::Auto; ///< quantize's --device
};
std::optional<GemmRequest> takeGemmFlags(Args &args);
/// The "gemm" object of quantize's JSON.
nlohmann::ordered_json runGemm(const GemmRequest &req, const std::filesystem::path &checkpointPath,
                               const ReadOptions &readOptions, const Tensor &w, const QuantizedTensor &q);

} // namespace quantscope::cli
