// SPDX-License-Identifier: MIT
// `quantscope-cli scan` (every module of a checkpoint through a recipe, JSON lines, resumable)
// and `quantscope-cli recipe check` (the recipe's queries against a checkpoint's modules).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

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
    std::size_t at = item.find(':');
    spec["method"] = item.substr(0, at);
    while (at != std::string::npos) {
        const std::size_t next = item.find(':', at + 1);
        const std::string kv = item.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError("--specs item '" + item + "': '" + kv + "' is not key=value");
        const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
        try {
            spec[key] = nlohmann::json::parse(value);
        } catch (const nlohmann::json::exception &) {
            spec[key] = value;
        }
        at = next;
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

} // namespace

int runScanCommand(Args args)
{
    // Under mpirun: one GPU per rank, chosen before any backend is created.
    const bool mpi = launchedByMpirun();
    if (mpi)
        pinRankDevice();
    const bool json = args.flag("--json");
    const bool quiet = args.flag("--quiet");
    ScanOptions options;
    options.device = takeDeviceOption(args);
    const auto recipePath = args.value("--recipe");
    const auto specs = args.value("--specs");
    const auto out = args.value("--out");
    if (auto s = args.value("--spectra")) {
        try {
            options.spectra = parseSpectraMode(*s);
        } catch (const Error &) {
            throw UsageError("--spectra must be off, counts or top-k");
        }
    }
    if (auto t = args.value("--top"))
        options.spectrumTop = static_cast<int>(toInt("--top", *t));
    if (auto t = args.value("--tau"))
        options.tau = toReal("--tau", *t);
    options.channelKurtosis = !args.flag("--no-channel-kurtosis");
    if (auto p = args.value("--prefetch-mb"))
        options.prefetchBytes = static_cast<std::uint64_t>(toInt("--prefetch-mb", *p)) << 20;
    ReadOptions rd;
    rd.lenient = args.flag("--lenient");
    const auto pos = args.positionals();
    if (pos.size() != 1)
        throw UsageError("usage: quantscope-cli scan PATH [--recipe R.json] [--specs A,B,…] "
                         "[--spectra off|counts|top-k] [--out REPORT.jsonl] [--device auto|cpu|gpu] [--json]");
    if (options.spectrumTop < 1)
        throw UsageError("--top must be at least 1");
    options.recipe = recipePath ? Recipe::load(*recipePath) : Recipe::defaults();
    if (specs)
        options.recipe = options.recipe.withSpecs(parseSpecsOption(*specs));
    options.reportPath = out.value_or("");

    const Checkpoint ck = Checkpoint::open(pos[0], rd);
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
        std::fprintf(to, "%d modules: %d scanned, %d resumed, %d not quantized, %d errors in %.1f s (%.1f MB read, %.1f MB/s)\n",
                     r.modules, r.scanned, r.resumed, r.skipped, r.errors, r.seconds, mb,
                     r.seconds > 0 ? mb / r.seconds : 0.0);
        std::fprintf(to, "peak memory %.0f MB (bound %.0f MB)\n", static_cast<double>(peakRssBytes()) / 1e6,
                     static_cast<double>(bound) / 1e6);
    }
    return r.errors > 0 ? 1 : 0;
}

int runRecipeCommand(Args args)
{
    const bool json = args.flag("--json");
    const auto checkpoint = args.value("--checkpoint");
    ReadOptions rd;
    rd.lenient = args.flag("--lenient");
    const auto pos = args.positionals();
    if (pos.size() != 2 || pos[0] != "check")
        throw UsageError("usage: quantscope-cli recipe check R.json [--checkpoint PATH] [--json]");
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

} // namespace quantscope::cli
