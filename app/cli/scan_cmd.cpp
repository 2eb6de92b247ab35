// SPDX-License-Identifier: MIT
// `quantscope-cli scan` (every module of a checkpoint through a recipe, JSON lines, resumable)
// and `quantscope-cli recipe check` (the recipe's queries against a checkpoint's modules).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "progress.h"
#include "scan_mpi.h"
#include "io/checkpoint.h"
#include "engine/registry.h"
#include "recipe/recipe_check.h"
#include "scan/scan.h"
#include "util/error.h"

namespace quantscope::cli {

namespace {

/// One --specs item: a spec JSON file, or METHOD[:key=value]… (a value that reads as JSON is
/// taken as such, otherwise as a string).
QuantSpec specItem(const std::string &item)
{
    if (item.empty())
        throw UsageError("--specs has an empty item");
    if (item.size() > 5 && item.ends_with(".json")) {
        std::ifstream in(item);
        if (!in)
            throw IoError("cannot open the spec file", Location{item, {}, {}});
        try {
            return parseQuantSpec(nlohmann::json::parse(in));
        } catch (const nlohmann::json::exception &e) {
            throw FormatError(std::string("spec is not valid JSON: ") + e.what(), Location{item, {}, {}});
        }
    }
    nlohmann::json spec;
    try {
        spec = compactSpecJson(item); // METHOD[:key=value]…, values typed by the method's fields
    } catch (const SpecFlagError &e) {
        if (e.usage)
            throw UsageError("--specs " + std::string(e.what()));
        throw UnsupportedError("--specs " + std::string(e.what()));
    }
    return parseQuantSpec(spec);
}

std::vector<QuantSpec> parseSpecsOption(const std::string &text)
{
    std::vector<QuantSpec> out;
    std::size_t at = 0;
    while (true) {
        const std::size_t comma = text.find(',', at);
        out.push_back(specItem(text.substr(at, comma == std::string::npos ? std::string::npos : comma - at)));
        if (comma == std::string::npos)
            break;
        at = comma + 1;
    }
    return out;
}

/// The --json summary's per-rank timeline (null for a single-process scan).
nlohmann::ordered_json ojsonTimeline(const std::vector<RankTimeline> *timeline)
{
    if (!timeline)
        return nullptr;
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto &t : *timeline)
        a.push_back(t.toJson());
    return a;
}

struct ScanArgs {
    std::string path;
    std::optional<std::string> recipePath, specs, out, spectra, top, tau, prefetchMb, capture;
    bool noChannelKurtosis = false;
};

int runScanCommand(const ScanArgs &a, const CommonOptions &common)
{
    // Under mpirun: one GPU per rank, chosen before any backend is created.
    const bool mpi = launchedByMpirun();
    if (mpi)
        pinRankDevice();
    const bool json = common.json;
    const bool quiet = common.quiet;
    ScanOptions options;
    options.device = common.deviceChoice();
    const auto &recipePath = a.recipePath;
    const auto &specs = a.specs;
    const auto &out = a.out;
    if (auto s = a.spectra) {
        try {
            options.spectra = parseSpectraMode(*s);
        } catch (const Error &) {
            throw UsageError("--spectra must be off, counts or top-k");
        }
    }
    if (auto t = a.top)
        options.spectrumTop = static_cast<int>(toInt("--top", *t));
    if (auto t = a.tau)
        options.tau = toReal("--tau", *t);
    options.channelKurtosis = !a.noChannelKurtosis;
    if (auto p = a.prefetchMb)
        options.prefetchBytes = static_cast<std::uint64_t>(toInt("--prefetch-mb", *p)) << 20;
    ReadOptions rd;
    rd.lenient = common.lenient;
    const std::vector<std::string> pos{a.path};
    if (options.spectrumTop < 1)
        throw UsageError("--top must be at least 1");
    options.recipe = recipePath ? Recipe::load(*recipePath) : Recipe::defaults();
    if (specs)
        options.recipe = options.recipe.withSpecs(parseSpecsOption(*specs));
    options.reportPath = out.value_or("");

    const Checkpoint ck = Checkpoint::open(pos[0], rd);
    if (a.capture)
        options.capture = openPairedCapture(*a.capture, ck, quiet);
    ProgressLine line(quiet);
    const StepCallback cb = line.callback();
    const CancelToken cancel;
    const ScanProgress progress = [&](double b, double e, double total, const std::string &what) {
        if (cb && total > 0)
            cb(b / total, e / total, total, what);
    };
    // The memory bound counts from here: the libraries and, on a GPU, the runtime's host memory
    // (started now, as the scan would) are the process's, not the scan's.
    if (options.device != DeviceChoice::Cpu)
        if (const Backend *gpu = BackendRegistry::instance().gpu())
            (void)gpu->info();
    const std::uint64_t baseline = currentRssBytes();
    std::optional<DistributedScan> dist;
    if (mpi) {
        dist = runMpiScan(ck, options, progress);
        if (!dist->writer)
            return 0; // rank 0 reports
    }
    const ScanResult r = dist ? dist->result : runScan(ck, options, cancel, progress);
    line.finish();
    for (const auto &w : r.warnings)
        std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!out) {
        std::cout << r.header.dump() << '\n';
        for (const auto &l : r.lines)
            std::cout << l.dump() << '\n';
    }
    const double mb = static_cast<double>(r.bytesRead) / 1e6;
    const std::uint64_t bound =
        baseline + (options.spectra == SpectraMode::Off ? 2 : 4) * r.largestFp32Bytes + (256ull << 20);
    nlohmann::ordered_json s;
    s["report"] = out ? nlohmann::ordered_json(*out) : nlohmann::ordered_json(nullptr);
    s["modules"] = r.modules;
    s["scanned"] = r.scanned;
    s["resumed"] = r.resumed;
    s["skipped"] = r.skipped;
    s["errors"] = r.errors;
    s["seconds"] = r.seconds;
    s["read_seconds"] = r.readSeconds;
    s["bytes_read"] = r.bytesRead;
    s["scan_mb_per_s"] = r.seconds > 0 ? mb / r.seconds : 0.0;
    s["read_mb_per_s"] = r.readSeconds > 0 ? mb / r.readSeconds : 0.0;
    s["largest_fp32_bytes"] = r.largestFp32Bytes;
    s["peak_rss_bytes"] = peakRssBytes();
    s["memory_bound_bytes"] = bound;
    s["baseline_rss_bytes"] = baseline;
    s["ranks"] = dist ? dist->ranks : 1;
    s["reassigned"] = dist ? dist->reassigned : 0;
    s["timeline"] = ojsonTimeline(dist ? &dist->timeline : nullptr);
    if (out && json) {
        std::cout << s.dump(1) << '\n';
    } else if (!quiet || out) {
        std::FILE *to = out ? stdout : stderr;
        std::fprintf(
            to, "%d modules: %d scanned, %d resumed, %d not quantized, %d errors in %.1f s (%.1f MB read, %.1f MB/s)\n",
            r.modules, r.scanned, r.resumed, r.skipped, r.errors, r.seconds, mb, r.seconds > 0 ? mb / r.seconds : 0.0);
        std::fprintf(to, "peak memory %.0f MB (bound %.0f MB)\n", static_cast<double>(peakRssBytes()) / 1e6,
                     static_cast<double>(bound) / 1e6);
    }
    return r.errors > 0 ? 1 : 0;
}

struct RecipeCheckArgs {
    std::string recipe;
    std::optional<std::string> checkpoint;
};

int runRecipeCheck(const RecipeCheckArgs &a, const CommonOptions &common)
{
    const bool json = common.json;
    const auto &checkpoint = a.checkpoint;
    ReadOptions rd;
    rd.lenient = common.lenient;
    const std::vector<std::string> pos{"check", a.recipe};
    const Recipe recipe = Recipe::load(pos[1]);
    std::vector<std::string> modules;
    if (checkpoint) {
        const Checkpoint ck = Checkpoint::open(*checkpoint, rd);
        for (const auto &m : listScanModules(ck))
            modules.push_back(m.module);
    }
    const RecipeCheck c = checkRecipe(recipe, modules);
    if (json) {
        nlohmann::ordered_json j;
        j["recipe"] = pos[1];
        j["recipe_hash"] = recipe.hash();
        j["checkpoint"] = checkpoint ? nlohmann::ordered_json(*checkpoint) : nlohmann::ordered_json(nullptr);
        const nlohmann::ordered_json queries = c.toJson(recipe);
        for (const auto &[k, v] : queries.items())
            j[k] = v;
        std::cout << j.dump(1) << '\n';
        return 0;
    }
    std::printf("recipe %s (hash %s): %zu rules, %zu exclude patterns\n", pos[1].c_str(), recipe.hash().c_str(),
                recipe.rules.size(), recipe.exclude.size());
    if (checkpoint) {
        std::printf("%zu modules: %zu matched, %zu excluded, %zu unmatched\n", c.modules.size(),
                    c.modules.size() - c.excluded.size() - c.unmatched.size(), c.excluded.size(), c.unmatched.size());
        for (const auto &m : c.modules)
            std::printf("  %-56s %s\n", m.module.c_str(), m.match.why.c_str());
        for (const auto &u : c.unusedRules)
            std::printf("unused rule %d%s: wins no module (matches %d)\n", u.rule,
                        recipe.rules[static_cast<std::size_t>(u.rule)].name.empty()
                            ? ""
                            : (" '" + recipe.rules[static_cast<std::size_t>(u.rule)].name + "'").c_str(),
                        u.matches);
        for (const auto e : c.unusedExcludes)
            std::printf("unused exclude[%d] '%s': matches no module\n", e,
                        recipe.exclude[static_cast<std::size_t>(e)].pattern.c_str());
        for (const auto &o : c.overlaps) {
            std::string others;
            for (const auto r : o.others)
                others += (others.empty() ? "" : ", ") + std::to_string(r);
            std::printf("overlap %s: rule %d wins over %s\n", o.module.c_str(), o.winner, others.c_str());
        }
        for (const auto &f : c.fusion)
            std::printf("fusion warning %s: %s\n", f.group.c_str(), f.message.c_str());
    }
    for (const auto &r : c.regex)
        std::printf("regex warning %s '%s': %s\n", r.where.c_str(), r.pattern.c_str(), r.message.c_str());
    return 0;
}

} // namespace

void addScanCommand(Commands &c)
{
    auto o = std::make_shared<ScanArgs>();
    CLI::App *cmd = c.add("scan",
                          "every 2-D weight of a checkpoint through a recipe's specs (or --specs): JSON lines, "
                          "resumable; over MPI ranks under mpirun",
                          [o, &c] { return runScanCommand(*o, c.common()); });
    cmd->add_option("PATH", o->path, "the checkpoint")->required();
    cmd->add_option("--recipe", o->recipePath, "the recipe whose specs each module runs")->type_name("R.json");
    cmd->add_option("--specs", o->specs,
                    "specs for every module, comma-separated: METHOD[:key=value]… (keys and values of the spec "
                    "schema, as quantize --help lists them) or a spec .json")
        ->type_name("A,B,…");
    cmd->add_option("--out", o->out, "the report (JSON lines; resumed when it exists)")->type_name("REPORT.jsonl");
    cmd->add_option("--capture", o->capture,
                    "a calibration capture of the model (quantscope-cli capture): each run gets its output-aware "
                    "error, which budget then minimises by default")
        ->type_name("CAP.safetensors");
    cmd->add_option("--spectra", o->spectra, "residual spectra per run")->type_name("off|counts|top-k");
    cmd->add_option("--top", o->top, "singular values kept with --spectra top-k")->type_name("K");
    cmd->add_option("--tau", o->tau, "count σ ≥ τ·σ1")->type_name("T");
    cmd->add_flag("--no-channel-kurtosis", o->noChannelKurtosis, "skip the per-channel kurtosis pass");
    cmd->add_option("--prefetch-mb", o->prefetchMb, "the read-ahead queue's bound in MiB")->type_name("MB");
    c.addCommon(cmd, kJson | kQuiet | kDevice | kThreads | kLenient);
    cmd->footer("Examples:\n  quantscope-cli scan demo/ --recipe examples/recipe.json --out report.jsonl\n"
                "  quantscope-cli scan demo/ --specs 'int:bits=3:group=64,int:bits=4:group=128,fp8' --out cands.jsonl\n"
                "  mpirun -np 2 quantscope-cli scan demo/ --recipe examples/recipe.json --out report-mpi.jsonl");
}

void addRecipeCommand(Commands &c)
{
    CLI::App *recipe = c.add("recipe", "recipe queries", nullptr);
    recipe->require_subcommand(1);
    auto o = std::make_shared<RecipeCheckArgs>();
    CLI::App *check = c.add(
        "check",
        "how a recipe resolves each module of a checkpoint; unmatched modules, unused rules, "
        "overlaps, fusion and regex warnings",
        [o, &c] { return runRecipeCheck(*o, c.common()); }, recipe);
    check->add_option("RECIPE", o->recipe, "the recipe")->type_name("R.json")->required();
    check->add_option("--checkpoint", o->checkpoint, "resolve against this checkpoint's modules")->type_name("PATH");
    c.addCommon(check, kJson | kLenient);
    check->footer("Example:\n  quantscope-cli recipe check examples/w4a8.json --checkpoint demo/ --json");
}

} // namespace quantscope::cli
