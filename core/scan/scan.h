// SPDX-License-Identifier: MIT
#pragma once
/// \file scan.h
/// The whole-checkpoint scan: every module of a checkpoint resolved through a recipe, each weight
/// read once and run through every spec its rule gives, through the engine's job (the numbers of
/// `quantize` for the same spec and device), with kurtosis, optional residual spectrum counts,
/// bytes and bits per weight. One reader thread fills a prefetch queue bounded in bytes while the
/// calling thread computes. The report is JSON lines, one per module, flushed and fsynced per
/// line, and a scan resumes from an existing report (docs/formats.md "Scan reports").
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/job.h"
#include "io/capture.h"
#include "io/checkpoint.h"
#include "recipe/recipe.h"
#include "util/cancel.h"

namespace quantscope {

struct Loaded;

/// One weight the scan considers: a 2-D `.weight` tensor, or a quantized module whose logical
/// weight is 2-D (decoded to FP32 first).
struct ScanModule {
    std::string module; ///< "model.layers.0.mlp.up_proj"
    std::string tensor; ///< "model.layers.0.mlp.up_proj.weight"
    Shape shape;
    std::string dtype;           ///< stored dtype ("BF16"; a quantized module: "F32" after decoding)
    std::string format;          ///< "dense" or the quantized format ("compressed-tensors/pack-quantized")
    std::string file;            ///< the file holding it (its codes, for a quantized module)
    int quantized = -1;          ///< index into the detection's modules, -1 for a dense tensor
    std::uint64_t readBytes = 0; ///< bytes read from disk for it
};

/// The candidate modules of a checkpoint, in checkpoint order (quantized ones where their codes
/// are listed). Detection is non-strict: an undecodable module is left out and named in `warnings`.
std::vector<ScanModule> listScanModules(const Checkpoint &ck, std::vector<std::string> *warnings = nullptr);

enum class SpectraMode : std::uint8_t { Off, Counts, TopK };
/// "off", "counts", "top-k"; throws UnsupportedError otherwise.
SpectraMode parseSpectraMode(const std::string &text);
std::string toString(SpectraMode m);

struct ScanOptions {
    Recipe recipe = Recipe::defaults();
    DeviceChoice device = DeviceChoice::Auto;
    SpectraMode spectra = SpectraMode::Off;
    int spectrumTop = 32; ///< singular values taken (top-k sketch)
    double tau = 0.5;     ///< threshold of the residual-rank count
    int threads = 0;      ///< engine threads (0: hardware concurrency)
    /// Per-channel excess kurtosis summaries (rows and columns): a CPU pass the reader thread
    /// makes after reading, overlapping the compute; off, `kurtosis.rows/columns` are null.
    bool channelKurtosis = true;
    /// Bytes the prefetch queue may hold ahead of the module being computed (0: the largest
    /// module's stored bytes, so at most one tensor ahead).
    std::uint64_t prefetchBytes = 0;
    std::string reportPath; ///< JSON lines; "" keeps the lines in memory only (ScanResult::lines)
    /// Test hook: after this many module lines are written, write half of the next line (a torn
    /// write) and stop as a killed process would (returns with `stoppedEarly`).
    int stopAfter = -1;
    /// Ranks (workers) of the scan, recorded in the report's header (1: runScan).
    int ranks = 1;
    /// A calibration capture: each run of a module it holds gets `metrics.output_error`; the
    /// header records the capture (a resumed report must have been scanned with the same one).
    std::shared_ptr<const Capture> capture;
};

struct ScanResult {
    nlohmann::ordered_json header;
    std::vector<nlohmann::ordered_json> lines; ///< every module line, resumed ones included
    int modules = 0, scanned = 0, resumed = 0, skipped = 0, errors = 0;
    double seconds = 0;     ///< wall time of this run
    double readSeconds = 0; ///< reader thread time spent reading
    /// Where runScan's time went: the reader's per-channel kurtosis pass, the computing thread
    /// waiting for the reader, the engine jobs (upload + runs + the job's own work) and their
    /// runs (quantize + metrics, as each run's time_ms).
    double kurtosisSeconds = 0, waitSeconds = 0, jobSeconds = 0, runsSeconds = 0;
    std::uint64_t bytesRead = 0;        ///< bytes read by this run
    std::uint64_t largestFp32Bytes = 0; ///< the largest scanned weight as FP32
    bool stoppedEarly = false;
    std::vector<std::string> warnings;
};

/// Progress: `done` of `total` elements, working on `what`.
using ScanProgress = std::function<void(double begin, double end, double total, const std::string &what)>;

/// Scans `ck` (its path as given is recorded in the header). With a report path that holds a
/// report of the same checkpoint, recipe and options, the modules it already holds are kept (up to
/// the first line that is torn or whose resume key no longer matches: the file is truncated there)
/// and the scan goes on after them. Throws IoError naming the report when it cannot be written,
/// FormatError when it is another scan's report. Cancelled propagates (the lines written stay).
ScanResult runScan(const Checkpoint &ck, const ScanOptions &options, const CancelToken &cancel,
                   const ScanProgress &progress = {});

/// One worker's times in a split scan (the --json summary's "timeline"): reading (and the
/// per-channel kurtosis pass), the engine job outside its runs (the weight's upload, statistics),
/// the runs (quantize + metrics + spectrum), and waiting for work.
struct RankTimeline {
    int rank = 0;
    int modules = 0;
    std::uint64_t bytesRead = 0;
    double readSeconds = 0, uploadSeconds = 0, computeSeconds = 0, idleSeconds = 0, wallSeconds = 0;
    nlohmann::ordered_json toJson() const;
    static RankTimeline fromJson(const nlohmann::json &j);
};

/// The scan split over several workers (app/cli/scan_mpi.cpp drives it over MPI ranks). Every
/// worker builds one on the same checkpoint and options; the writing one opens the report (with
/// runScan's resume), hands out open()'s modules, and commits each line as it comes back. Lines
/// are written in checkpoint order (a line that comes early waits for those before it), so the
/// report, and its resume by any number of workers, are those of runScan.
class ScanSession {
public:
    ScanSession(const Checkpoint &ck, ScanOptions options, ScanProgress progress = {});
    ~ScanSession();
    ScanSession(const ScanSession &) = delete;
    ScanSession &operator=(const ScanSession &) = delete;

    /// Writer: opens or resumes the report (runScan's errors) and returns the modules still to
    /// compute, largest first; the lines that need no compute (unmatched, excluded) are
    /// committed here.
    std::vector<std::size_t> open();
    /// Any worker: module `i`'s line (its read and engine job), times added to `t`.
    nlohmann::ordered_json compute(std::size_t i, const CancelToken &cancel, RankTimeline &t) const;
    /// Any worker, any thread: module `i` read ahead of its compute (nothing for a module that
    /// needs no read). The worker then computes it with computeRead, so that reading the next
    /// module overlaps computing this one.
    std::shared_ptr<Loaded> read(std::size_t i, const CancelToken &cancel) const;
    /// compute() with the read done already (`l` from read(i), may be null); its read time is
    /// added to `t` as read time although it ran beside other work.
    nlohmann::ordered_json computeRead(std::size_t i, std::shared_ptr<Loaded> l, const CancelToken &cancel,
                                       RankTimeline &t) const;
    /// Writer: module `i`'s line when no worker could compute it (status "error", `why`).
    nlohmann::ordered_json errorLine(std::size_t i, const std::string &why) const;
    /// Writer: module `i`'s line, computed by `rank`; writes every line now next in order.
    void commit(std::size_t i, nlohmann::ordered_json line, int rank);
    /// Writer: every module has its line.
    bool complete() const;
    const std::vector<ScanModule> &modules() const;
    /// Writer: the counts of the lines (the whole report's), timing of this run.
    ScanResult finish();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

/// The line fields that hold times (removed before comparing two reports).
inline const std::vector<std::string> kScanTimingFields = {"time_ms", "read_ms"};
/// A copy of a report line without its timing fields (at any depth).
nlohmann::ordered_json withoutTiming(nlohmann::ordered_json line);

/// Peak resident set of this process in bytes (VmHWM of /proc/self/status), 0 when unknown.
std::uint64_t peakRssBytes();
/// Resident set of this process now (VmRSS), 0 when unknown: the baseline the scan's memory
/// bound adds to (the libraries and a GPU runtime's host memory are not the scan's).
std::uint64_t currentRssBytes();

} // namespace quantscope
