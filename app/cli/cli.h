// SPDX-License-Identifier: MIT
#pragma once
/// \file cli.h
/// quantscope-cli: the command tree (CLI11), the options every command shares, the quantizer
/// options generated from the spec schema, and the commands. Each command file adds its
/// subcommand with `addXxxCommand(Commands &)`: its options, help, example and the function that
/// runs it. Exit codes: 0 success, 1 refused input or failed work (message on stderr), 2 usage.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/job.h"
#include "quant/spec_flags.h"

namespace CLI {
class App;
} // namespace CLI

namespace quantscope {
// Forward declarations keep this header light (each command includes what it uses).
class Checkpoint;
class Tensor;
class WeightReader;
struct QuantizedTensor;
struct ReadOptions;
} // namespace quantscope

namespace quantscope::cli {

/// A usage error found after parsing (a combination of options the command refuses): exit 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The options several commands share, declared once (addCommonOptions).
struct CommonOptions {
    bool json = false;           ///< --json: the result as JSON on stdout
    bool quiet = false;          ///< --quiet: no progress line on stderr
    std::string device = "auto"; ///< --device auto|cpu|gpu
    int threads = 0;             ///< --threads N: CPU threads (0: every core)
    bool lenient = false;        ///< --lenient: read checkpoints without strict header checks
    /// --device as the engine's choice; throws UsageError for a value outside auto|cpu|gpu.
    DeviceChoice deviceChoice() const;
};

/// Which common options a command takes.
enum CommonOption : unsigned {
    kJson = 1u << 0,
    kQuiet = 1u << 1,
    kDevice = 1u << 2,
    kThreads = 1u << 3,
    kLenient = 1u << 4,
};

/// The command tree: every command registers here with the function that runs it.
class Commands {
public:
    Commands();
    ~Commands();
    Commands(const Commands &) = delete;
    Commands &operator=(const Commands &) = delete;

    /// A new subcommand of `parent` (the root when null) run by `run` once parsed.
    CLI::App *add(const std::string &name, const std::string &description, std::function<int()> run,
                  CLI::App *parent = nullptr);
    /// Adds the chosen common options to `cmd`; their values land in common().
    void addCommon(CLI::App *cmd, unsigned which);
    CommonOptions &common() { return m_common; }
    CLI::App &root() { return *m_root; }

    /// Parses argv. Returns the exit code when parsing ends the run (--help: 0 with the help on
    /// stdout; a usage error: 2 with the message on stderr), nullopt when a command should run.
    std::optional<int> parse(const std::vector<std::string> &args);
    /// Runs the command parse() selected; errors become messages and exit codes 1 / 2.
    int run();
    /// The name of the command parse() selected ("recipe check" for nested ones).
    std::string selectedName() const;
    /// The root and the commands selected below it, outermost first.
    std::vector<const CLI::App *> selectedPath() const;
    /// A bash completion script for every command, option and enum value of the tree.
    std::string bashCompletion() const;
    /// The command `--version` runs (the `version` command's).
    void setVersionCommand(const CLI::App *cmd) { m_version = cmd; }

private:
    std::unique_ptr<CLI::App> m_root;
    CommonOptions m_common;
    std::map<const CLI::App *, std::function<int()>> m_runs;
    const CLI::App *m_selected = nullptr;
    const CLI::App *m_version = nullptr;
    bool m_versionFlag = false;
};

/// Every command of quantscope-cli, added to `c` (main.cpp; tests build the same tree).
void addAllCommands(Commands &c);

/// --method, --spec and every option of the spec schema (specFlags()): the quantizer of
/// quantize and spectrum.
struct QuantizerOptions {
    std::optional<std::string> method;
    std::optional<std::string> specFile;
    std::vector<GivenSpecFlag> given;
    /// `--imatrix FILE`: llama.cpp's importance matrix for the gguf method (quantize reads it).
    std::optional<std::string> imatrixFile;
    /// True when --method, --spec or any schema option was given.
    bool any() const { return method || specFile || !given.empty(); }
    /// The spec before the options: the --spec file (or an empty object) with --method set;
    /// throws UsageError when neither names a method.
    nlohmann::json baseSpec() const;
    /// `base` with the options on top, parsed and validated once, here where it enters.
    QuantSpec build(nlohmann::json base) const;
    /// build(baseSpec()).
    QuantSpec build() const { return build(baseSpec()); }
};
/// Declares QuantizerOptions' options on `cmd` (in the help group "Quantizer").
void addQuantizerOptions(CLI::App *cmd, QuantizerOptions &o);

/// Values of one method's schema fields given as options (key → typed JSON value).
using SchemaValues = std::map<std::string, nlohmann::json>;
/// Declares the options of `method`'s fields named in `keys` (spelling, value name and help
/// from the schema); each value given is typed by its field into `out`.
void addSchemaOptions(CLI::App *cmd, const std::string &method, const std::vector<std::string> &keys,
                      SchemaValues &out);

/// Opens PATH for a command that takes `tensor` as weights (io/weight_reader.h): a packed or
/// quantized part is refused here, before any work (exit 1, naming the tensor, the scheme and
/// the fix); a quantized module's name is decoded to FP32 and a note says so on stderr.
WeightReader openWeights(const std::string &path, const ReadOptions &rd, const std::string &tensor);
/// Runs the engine's job for one tensor read through `weights` with the request's
/// configurations, showing the progress line on stderr unless `quiet`; returns the one outcome
/// (or the tensor profile's spectrum when there is no configuration). A failed step is thrown
/// as the error it recorded.
QuantizeJobResult runCliJob(const WeightReader &weights, const std::string &tensor, QuantizeJobRequest request,
                            bool quiet);
/// --capture CAP of quantize and scan: opens the capture and pairs it with the checkpoint's 2-D
/// weights (logical shapes). Throws when it pairs with none of them (another model's capture);
/// prints "capture: N of M modules paired" and each mismatch on stderr unless `quiet`.
std::shared_ptr<const Capture> openPairedCapture(const std::string &path, const Checkpoint &ck, bool quiet);
/// Parses an integer option value (the whole string); throws UsageError naming the option.
std::int64_t toInt(const std::string &opt, const std::string &v);
/// Parses a real option value (the whole string); throws UsageError naming the option.
double toReal(const std::string &opt, const std::string &v);

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
/// The "gemm" object of quantize's JSON.
nlohmann::ordered_json runGemm(const GemmRequest &req, const std::filesystem::path &checkpointPath,
                               const ReadOptions &readOptions, const Tensor &w, const QuantizedTensor &q);

// The commands (one file each).
void addInfoCommand(Commands &c);
void addQuantizeCommand(Commands &c);
void addSpectrumCommand(Commands &c);
void addSweepCCommand(Commands &c);
void addKvCommand(Commands &c);
void addSweepCommand(Commands &c);
void addDecodeCommand(Commands &c);
void addGemmBenchCommand(Commands &c);
void addScanCommand(Commands &c);
void addBudgetCommand(Commands &c);
void addRecipeCommand(Commands &c);
void addExportCommand(Commands &c);
void addDoctorCommand(Commands &c);
void addCompareCommand(Commands &c);
void addDemoCommand(Commands &c);
/// capture, eval and bridge check (model_cmd.cpp).
void addModelCommands(Commands &c);

} // namespace quantscope::cli
