// SPDX-License-Identifier: MIT
// The scan split over several workers (scan.h ScanSession): the same modules, matches, lines and
// report as runScan, with the lines computed anywhere and written in checkpoint order.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "scan/scan.h"
#include "scan/scan_report.h"
#include "util/error.h"

namespace quantscope {

namespace {

using ojson = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

} // namespace

ojson RankTimeline::toJson() const
{
    ojson j;
    j["rank"] = rank;
    j["modules"] = modules;
    j["bytes_read"] = bytesRead;
    j["read_s"] = readSeconds;
    j["upload_s"] = uploadSeconds;
    j["compute_s"] = computeSeconds;
    j["idle_s"] = idleSeconds;
    j["wall_s"] = wallSeconds;
    return j;
}

RankTimeline RankTimeline::fromJson(const nlohmann::json &j)
{
    RankTimeline t;
    t.rank = j.value("rank", 0);
    t.modules = j.value("modules", 0);
    t.bytesRead = j.value("bytes_read", std::uint64_t{0});
    t.readSeconds = j.value("read_s", 0.0);
    t.uploadSeconds = j.value("upload_s", 0.0);
    t.computeSeconds = j.value("compute_s", 0.0);
    t.idleSeconds = j.value("idle_s", 0.0);
    t.wallSeconds = j.value("wall_s", 0.0);
    return t;
}

struct ScanSession::Impl {
    const Checkpoint &ck;
    ScanOptions options;
    ScanProgress progress;
    Clock::time_point t0 = Clock::now();
    ScanResult result;
    std::vector<ScanModule> modules;
    Detection det;
    std::string recipeHash;
    std::vector<RecipeMatch> matches;
    std::optional<ReportWriter> writer;
    std::optional<ReportWriter> pending;  ///< REPORT.pending: the waiting lines, kept across a kill
    std::map<std::size_t, ojson> waiting; ///< lines that came before their turn
    std::set<std::size_t> resumedEarly;   ///< waiting lines from REPORT.pending (not counted)
    std::size_t next = 0;                 ///< the next module to write
    double totalElements = 0, doneElements = 0;

    Impl(const Checkpoint &c, ScanOptions o, ScanProgress p) : ck(c), options(std::move(o)), progress(std::move(p)) {}
    /// Writes every waiting line that is next in order; the pending file goes when all are.
    void flush()
    {
        while (!waiting.empty() && waiting.begin()->first == next) {
            auto node = waiting.extract(waiting.begin());
            write(next, std::move(node.mapped()));
            ++next;
        }
        if (next >= modules.size() && pending) {
            pending.reset();
            std::error_code ec;
            std::filesystem::remove(options.reportPath + ".pending", ec);
        }
    }
    ScanContext ctx() const { return ScanContext{ck, options, det, modules, recipeHash}; }

    void write(std::size_t i, ojson line)
    {
        if (resumedEarly.contains(i)) {
            writer->write(line);
            result.lines.push_back(std::move(line));
            doneElements += static_cast<double>(numelOf(modules[i].shape));
            return;
        }
        const std::string status = line.value("status", "");
        result.errors += status == "error" ? 1 : 0;
        result.skipped += status == "excluded" || status == "unmatched" ? 1 : 0;
        result.scanned += status == "scanned" ? 1 : 0;
        if (line.contains("runs"))
            for (const auto &r : line["runs"])
                result.errors += r.contains("error") ? 1 : 0;
        writer->write(line);
        result.lines.push_back(std::move(line));
        doneElements += static_cast<double>(numelOf(modules[i].shape));
        if (progress)
            progress(doneElements, doneElements, totalElements, modules[i].module);
    }
};

ScanSession::ScanSession(const Checkpoint &ck, ScanOptions options, ScanProgress progress)
    : d(std::make_unique<Impl>(ck, std::move(options), std::move(progress)))
{
    d->modules = listScanModules(ck, &d->result.warnings);
    DetectOptions detect;
    detect.strict = false;
    d->det = detectQuantized(ck, detect);
    d->recipeHash = d->options.recipe.hash();
    d->result.modules = static_cast<int>(d->modules.size());
    d->result.header = scanHeader(ck, d->options);
    d->matches.resize(d->modules.size());
    for (std::size_t i = 0; i < d->modules.size(); ++i) {
        d->totalElements += static_cast<double>(numelOf(d->modules[i].shape));
        try {
            d->matches[i] = matchModule(d->options.recipe, d->modules[i].module);
        } catch (const Error &e) {
            d->matches[i].why = e.message();
            d->matches[i].rule = -2; // an override that does not validate: reported as an error
        }
    }
}

ScanSession::~ScanSession() = default;

const std::vector<ScanModule> &ScanSession::modules() const
{
    return d->modules;
}

std::vector<std::size_t> ScanSession::open()
{
    d->writer.emplace(d->options.reportPath, d->result.header);
    const auto &modules = d->modules;
    std::vector<ojson> kept = d->writer->resume([&](std::size_t i, const ojson &line) {
        return i < modules.size() && line.value("module", "") == modules[i].module && line.contains("key") &&
               line["key"] == resumeKey(modules[i], d->recipeHash);
    });
    d->result.resumed = static_cast<int>(kept.size());
    d->result.lines = std::move(kept);
    d->next = d->result.lines.size();
    // Lines computed before their turn by a run that was stopped: they wait again (and are not
    // handed out) while their key still holds.
    std::map<std::string, std::size_t> index;
    for (std::size_t i = d->next; i < modules.size(); ++i)
        index.emplace(modules[i].module, i);
    std::vector<std::pair<std::size_t, ojson>> early;
    if (!d->options.reportPath.empty()) {
        const std::string path = d->options.reportPath + ".pending";
        auto keepEarly = [&](std::size_t, const ojson &line) {
            const auto it = index.find(line.value("module", ""));
            if (it != index.end() && line.contains("key") &&
                line["key"] == resumeKey(modules[it->second], d->recipeHash))
                early.emplace_back(it->second, line);
            return true;
        };
        d->pending.emplace(path, d->result.header);
        try {
            d->pending->resume(keepEarly);
        } catch (const FormatError &) { // another scan's: start it afresh
            early.clear();
            std::filesystem::remove(path);
            d->pending.emplace(path, d->result.header);
            d->pending->resume(keepEarly);
        }
    }
    std::set<std::size_t> done;
    for (auto &[i, line] : early) {
        if (!done.insert(i).second)
            continue; // there twice (two stopped runs)
        d->resumedEarly.insert(i);
        d->waiting.emplace(i, std::move(line));
        ++d->result.resumed;
    }
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < d->next; ++i)
        d->doneElements += static_cast<double>(numelOf(modules[i].shape));
    for (std::size_t i = d->next; i < modules.size(); ++i) {
        if (d->matches[i].matched() && !done.contains(i)) {
            todo.push_back(i);
            const auto fp32 = 4 * static_cast<std::uint64_t>(numelOf(modules[i].shape));
            d->result.largestFp32Bytes = std::max(d->result.largestFp32Bytes, fp32);
        }
    }
    std::stable_sort(todo.begin(), todo.end(), [&](std::size_t a, std::size_t b) {
        return numelOf(modules[a].shape) > numelOf(modules[b].shape);
    });
    // The lines that need no compute wait for their turn like the others.
    RankTimeline none;
    for (std::size_t i = d->next; i < modules.size(); ++i)
        if (!d->matches[i].matched() && !done.contains(i))
            commit(i, compute(i, CancelToken{}, none), 0);
    d->flush();
    return todo;
}

ojson ScanSession::compute(std::size_t i, const CancelToken &cancel, RankTimeline &t) const
{
    if (i >= d->modules.size())
        throw Error("scan: module index " + std::to_string(i) + " out of range");
    const ScanContext ctx = d->ctx();
    const auto tm = Clock::now();
    std::optional<Loaded> l;
    if (d->matches[i].matched()) {
        l = loadScanModule(ctx, i, cancel);
        t.bytesRead += l->bytes;
    }
    ModuleWork w = scanModuleLine(ctx, i, d->matches[i], l ? &*l : nullptr, cancel, {});
    const double wall = secondsSince(tm);
    if (l) {
        ++t.modules;
        // The reader's time includes the per-channel kurtosis pass (which runs after the read).
        const double job = w.jobMs / 1000.0, runs = w.runsMs / 1000.0;
        t.readSeconds += std::max(0.0, wall - job);
        t.uploadSeconds += std::max(0.0, job - runs);
        t.computeSeconds += runs;
    }
    ojson line = std::move(w.line);
    line["time_ms"] = wall * 1000.0;
    line["key"] = resumeKey(d->modules[i], d->recipeHash);
    return line;
}

std::shared_ptr<Loaded> ScanSession::read(std::size_t i, const CancelToken &cancel) const
{
    if (i >= d->modules.size())
        throw Error("scan: module index " + std::to_string(i) + " out of range");
    if (!d->matches[i].matched())
        return nullptr;
    return std::make_shared<Loaded>(loadScanModule(d->ctx(), i, cancel));
}

ojson ScanSession::computeRead(std::size_t i, std::shared_ptr<Loaded> l, const CancelToken &cancel,
                               RankTimeline &t) const
{
    if (i >= d->modules.size())
        throw Error("scan: module index " + std::to_string(i) + " out of range");
    const ScanContext ctx = d->ctx();
    const auto tm = Clock::now();
    ModuleWork w = scanModuleLine(ctx, i, d->matches[i], l.get(), cancel, {});
    const double wall = secondsSince(tm);
    if (l) {
        ++t.modules;
        t.bytesRead += l->bytes;
        const double job = w.jobMs / 1000.0, runs = w.runsMs / 1000.0;
        t.readSeconds += (l->readMs + l->kurtosisMs) / 1000.0;
        t.uploadSeconds += std::max(0.0, job - runs);
        t.computeSeconds += runs;
    }
    ojson line = std::move(w.line);
    line["time_ms"] = (wall + (l ? (l->readMs + l->kurtosisMs) / 1000.0 : 0.0)) * 1000.0;
    line["key"] = resumeKey(d->modules[i], d->recipeHash);
    return line;
}

ojson ScanSession::errorLine(std::size_t i, const std::string &why) const
{
    ojson line = moduleLineStart(d->modules[i], d->matches[i], d->options.recipe);
    line["status"] = "error";
    line["error"] = why;
    line["read_ms"] = 0.0;
    line["time_ms"] = 0.0;
    line["key"] = resumeKey(d->modules[i], d->recipeHash);
    return line;
}

void ScanSession::commit(std::size_t i, ojson line, int rank)
{
    if (!d->writer)
        throw Error("scan: commit before open");
    if (i < d->next || d->waiting.contains(i))
        return; // a line computed twice (a module handed out again): the first one stands
    line["rank"] = rank;
    if (i != d->next && d->pending)
        d->pending->write(line); // fsynced: a stopped run keeps it
    d->waiting.emplace(i, std::move(line));
    d->flush();
}

bool ScanSession::complete() const
{
    return d->next >= d->modules.size();
}

ScanResult ScanSession::finish()
{
    d->result.seconds = secondsSince(d->t0);
    return d->result;
}

} // namespace quantscope
