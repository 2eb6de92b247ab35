// SPDX-License-Identifier: MIT
// The whole-checkpoint scan (scan.h): candidate modules, the reader thread and its bounded
// prefetch queue, one engine job per module, the JSON line of each module.
#include "scan/scan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <unistd.h>

#include "io/quantized.h"
#include "jobs/channel_profile.h"
#include "json/report_json.h"
#include "numeric/moments.h"
#include "quant/quantizer.h"
#include "scan/scan_report.h"
#include "util/error.h"
#include "util/parallel.h"

namespace quantscope {

namespace {

using ojson = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

bool endsWith(const std::string &s, const std::string &t)
{
    return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

/// Reads a dense tensor's bytes with pread into an owned buffer: the mapping's pages are never
/// touched, so they do not stay resident after the module is done.
Tensor readDense(const TensorEntry &e)
{
    const int fd = ::open(e.file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw IoError(std::string("cannot open: ") + std::strerror(errno), Location{e.file.string(), e.name, {}});
    std::vector<std::byte> bytes(e.nbytes());
    std::uint64_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::pread(fd, bytes.data() + done, bytes.size() - done,
                                  static_cast<off_t>(e.fileOffset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            ::close(fd);
            throw IoError(n == 0 ? std::string("file ends inside the tensor") : std::strerror(errno),
                          Location{e.file.string(), e.name, e.fileOffset + done});
        }
        done += static_cast<std::uint64_t>(n);
    }
    ::close(fd);
    return Tensor::fromBytes(e.dtype, e.shape, std::move(bytes));
}

ojson summaryOf(const std::vector<double> &k)
{
    std::vector<double> finite;
    double mx = 0;
    std::int64_t arg = -1;
    for (std::size_t i = 0; i < k.size(); ++i) {
        if (!std::isfinite(k[i]))
            continue;
        finite.push_back(k[i]);
        if (arg < 0 || k[i] > mx) {
            mx = k[i];
            arg = static_cast<std::int64_t>(i);
        }
    }
    ojson j;
    j["count"] = k.size();
    if (finite.empty()) {
        j["median"] = nullptr;
        j["max"] = nullptr;
        j["argmax"] = nullptr;
        return j;
    }
    const std::size_t mid = finite.size() / 2;
    std::nth_element(finite.begin(), finite.begin() + static_cast<std::ptrdiff_t>(mid), finite.end());
    double median = finite[mid];
    if (finite.size() % 2 == 0) {
        const double lo = *std::max_element(finite.begin(), finite.begin() + static_cast<std::ptrdiff_t>(mid));
        median = 0.5 * (lo + median);
    }
    j["median"] = reportNumber(median);
    j["max"] = reportNumber(mx);
    j["argmax"] = arg;
    return j;
}

/// The "metrics" object, with the fields and renderings of `quantize --json`.
ojson metricsJson(const QuantizeOutcome &o)
{
    const ErrorMetrics &m = o.metrics;
    ojson mj;
    mj["mse"] = m.mse;
    mj["rmse"] = m.rmse;
    mj["sqnr_db"] = reportNumber(m.sqnrDb);
    mj["rel_frobenius"] = reportNumber(m.relFrobenius);
    mj["max_abs_err"] = m.maxAbsErr;
    mj["cosine"] = m.cosine ? ojson(*m.cosine) : ojson(nullptr);
    mj["err_p50"] = m.errP50;
    mj["err_p90"] = m.errP90;
    mj["err_p99"] = m.errP99;
    mj["err_p999"] = m.errP999;
    mj["bits_per_element"] = o.bitsPerElement;
    mj["bytes"] = o.storedBytes;
    return mj;
}

ojson spectrumJson(const Spectrum &s, bool withSigma)
{
    ojson j;
    j["tau"] = s.tau;
    j["n_sigma_ge_tau"] = s.nSigmaGeTau;
    j["n_sigma_ge_tau_exact"] = s.nSigmaGeTauExact;
    j["n_sigma_lt_tau"] = s.nSigmaLtTau;
    j["min_dim"] = s.minDim;
    j["fro_norm"] = s.froNorm;
    j["taken"] = s.sigma.size();
    j["energy_top"] = s.energyTop.empty() ? 0.0 : s.energyTop.back();
    if (withSigma)
        j["sigma"] = s.sigma;
    return j;
}

double kurtosisFromSums(double count, double s2, double s4)
{
    if (count < 1)
        return std::numeric_limits<double>::quiet_NaN();
    const double m2 = s2 / count, m4 = s4 / count;
    return m2 > 0 ? m4 / (m2 * m2) - 3.0 : std::numeric_limits<double>::quiet_NaN();
}

/// computeChannelKurtosis (jobs/channel_profile.h) over row slices on `threads` threads: each row's
/// value is computed exactly as there (the same loop over its elements); the columns' sums are
/// per-slice partials merged in slice order (reproducible, equal to the serial ones within
/// rounding). The scan's reader runs it after each read.
ChannelKurtosis channelKurtosisParallel(const Tensor &t, int threads, const CancelToken *cancel)
{
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const std::int64_t rows = matrixView(t.shape()).first, cols = matrixView(t.shape()).second;
    const auto R = static_cast<std::size_t>(std::max<std::int64_t>(rows, 0));
    const auto C = static_cast<std::size_t>(std::max<std::int64_t>(cols, 0));
    ChannelKurtosis k;
    k.rows.assign(R, std::numeric_limits<double>::quiet_NaN());
    k.columns.assign(C, std::numeric_limits<double>::quiet_NaN());
    if (R == 0 || C == 0)
        return k;
    const int parts = static_cast<int>(std::clamp<std::int64_t>(rows, 1, resolveThreads(threads)));
    const std::int64_t step = std::max<std::int64_t>(1, (1 << 20) / cols);
    auto finite = [](float v) { return std::fabs(v) <= std::numeric_limits<float>::max(); };
    auto slices = [&](auto &&perRow) {
        parallelSlices(rows, parts, cancel, [&](int part, std::int64_t b, std::int64_t e) {
            std::vector<float> buf(static_cast<std::size_t>(std::min(step, e - b) * cols));
            for (std::int64_t r0 = b; r0 < e; r0 += step) {
                if (cancel)
                    cancel->check();
                const std::int64_t n = std::min(step, e - r0);
                t.decodeRange(r0 * cols, std::span<float>(buf.data(), static_cast<std::size_t>(n * cols)));
                for (std::int64_t r = 0; r < n; ++r)
                    perRow(part, static_cast<std::size_t>(r0 + r), buf.data() + r * cols);
            }
        });
    };
    const auto P = static_cast<std::size_t>(parts);
    std::vector<double> rCount(R), rSum(R), r2(R), r4(R);
    std::vector<std::vector<double>> pc(P, std::vector<double>(C)), ps(P, std::vector<double>(C));
    slices([&](int part, std::size_t ri, const float *row) {
        double cnt = 0, sum = 0;
        auto &cc = pc[static_cast<std::size_t>(part)];
        auto &cs = ps[static_cast<std::size_t>(part)];
        for (std::size_t c = 0; c < C; ++c)
            if (finite(row[c])) {
                cnt += 1;
                sum += row[c];
                cc[c] += 1;
                cs[c] += row[c];
            }
        rCount[ri] = cnt;
        rSum[ri] = sum;
    });
    std::vector<double> cCount(C), cMean(C);
    for (std::size_t c = 0; c < C; ++c) {
        double n = 0, sum = 0;
        for (std::size_t p = 0; p < P; ++p) {
            n += pc[p][c];
            sum += ps[p][c];
        }
        cCount[c] = n;
        cMean[c] = n > 0 ? sum / n : 0.0;
    }
    for (std::size_t p = 0; p < P; ++p) { // reused for the central sums
        std::fill(pc[p].begin(), pc[p].end(), 0.0);
        std::fill(ps[p].begin(), ps[p].end(), 0.0);
    }
    slices([&](int part, std::size_t ri, const float *row) {
        const double mu = rCount[ri] > 0 ? rSum[ri] / rCount[ri] : 0.0;
        double s2 = 0, s4 = 0;
        auto &c2 = pc[static_cast<std::size_t>(part)];
        auto &c4 = ps[static_cast<std::size_t>(part)];
        for (std::size_t c = 0; c < C; ++c)
            if (finite(row[c])) {
                const double v = row[c];
                const double d = v - mu, d2 = d * d;
                s2 += d2;
                s4 += d2 * d2;
                const double e = v - cMean[c], e2 = e * e;
                c2[c] += e2;
                c4[c] += e2 * e2;
            }
        r2[ri] = s2;
        r4[ri] = s4;
    });
    for (std::size_t i = 0; i < R; ++i)
        k.rows[i] = kurtosisFromSums(rCount[i], r2[i], r4[i]);
    for (std::size_t c = 0; c < C; ++c) {
        double s2 = 0, s4 = 0;
        for (std::size_t p = 0; p < P; ++p) {
            s2 += pc[p][c];
            s4 += ps[p][c];
        }
        k.columns[c] = kurtosisFromSums(cCount[c], s2, s4);
    }
    return k;
}

/// One reader thread; the queue holds at most `budget` bytes (always at least one item).
class Prefetcher {
public:
    Prefetcher(std::function<Loaded(std::size_t)> load, std::vector<std::size_t> order, std::uint64_t budget,
               std::function<std::uint64_t(std::size_t)> sizeOf)
        : m_load(std::move(load)), m_order(std::move(order)), m_budget(budget), m_sizeOf(std::move(sizeOf))
    {
        m_thread = std::thread([this] { run(); });
    }
    ~Prefetcher()
    {
        {
            const std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_cv.notify_all();
        m_thread.join();
    }
    /// The next item in order (blocks until it is read).
    Loaded next()
    {
        std::unique_lock lock(m_mutex);
        m_cv.wait(lock, [&] { return !m_queue.empty(); });
        Loaded l = std::move(m_queue.front());
        m_queue.pop_front();
        m_queued -= l.bytes;
        lock.unlock();
        m_cv.notify_all();
        return l;
    }
    double readSeconds() const { return m_readSeconds; }

private:
    void run()
    {
        for (const std::size_t i : m_order) {
            const std::uint64_t need = m_sizeOf(i);
            {
                std::unique_lock lock(m_mutex);
                m_cv.wait(lock, [&] { return m_stop || m_queue.empty() || m_queued + need <= m_budget; });
                if (m_stop)
                    return;
            }
            Loaded l = m_load(i);
            l.bytes = need;
            {
                const std::lock_guard lock(m_mutex);
                m_readSeconds += l.readMs / 1000.0;
                m_queued += need;
                m_queue.push_back(std::move(l));
            }
            m_cv.notify_all();
        }
    }

    std::function<Loaded(std::size_t)> m_load;
    std::vector<std::size_t> m_order;
    std::uint64_t m_budget;
    std::function<std::uint64_t(std::size_t)> m_sizeOf;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<Loaded> m_queue;
    std::uint64_t m_queued = 0;
    double m_readSeconds = 0;
    bool m_stop = false;
    std::thread m_thread;
};

} // namespace

SpectraMode parseSpectraMode(const std::string &t)
{
    if (t == "off")
        return SpectraMode::Off;
    if (t == "counts")
        return SpectraMode::Counts;
    if (t == "top-k")
        return SpectraMode::TopK;
    throw UnsupportedError("spectra must be off, counts or top-k, got '" + t + "'");
}

std::string toString(SpectraMode m)
{
    return m == SpectraMode::Off ? "off" : m == SpectraMode::Counts ? "counts" : "top-k";
}

std::vector<ScanModule> listScanModules(const Checkpoint &ck, std::vector<std::string> *warnings)
{
    DetectOptions detect;
    detect.strict = false;
    const Detection det = detectQuantized(ck, detect);
    if (warnings)
        for (const auto &p : det.problems)
            warnings->push_back(p.message);
    std::vector<ScanModule> out;
    std::vector<bool> listed(det.modules.size(), false);
    for (const auto &e : ck.entries()) {
        if (det.isPart(e.name)) {
            const QuantizedModule *q = det.find(e.name);
            const auto qi = static_cast<std::size_t>(q - det.modules.data());
            if (listed[qi])
                continue;
            listed[qi] = true;
            if (q->shape.size() != 2)
                continue;
            ScanModule m;
            m.module = q->module;
            m.tensor = q->name;
            m.shape = q->shape;
            m.dtype = "F32";
            m.format = std::string(formatName(q->format));
            const std::string *codes = q->part("codes");
            const TensorEntry *ce = codes ? ck.find(*codes) : &e;
            m.file = (ce ? ce->file : e.file).string();
            m.quantized = static_cast<int>(qi);
            for (const auto &[role, part] : q->parts)
                if (const TensorEntry *pe = ck.find(part))
                    m.readBytes += pe->nbytes();
            out.push_back(std::move(m));
            continue;
        }
        if (e.shape.size() != 2 || !endsWith(e.name, ".weight"))
            continue;
        ScanModule m;
        m.module = moduleOf(e.name);
        m.tensor = e.name;
        m.shape = e.shape;
        m.dtype = std::string(nameOf(e.dtype));
        m.format = "dense";
        m.file = e.file.string();
        m.readBytes = e.nbytes();
        out.push_back(std::move(m));
    }
    return out;
}

Loaded loadScanModule(const ScanContext &ctx, std::size_t i, const CancelToken &cancel)
{
    // Reads (and, when asked, takes the per-channel kurtosis: a CPU pass that, on the reader
    // thread, overlaps the device's compute of the module before).
    Loaded l;
    l.index = i;
    try {
        const auto t0 = Clock::now();
        const ScanModule &m = ctx.modules[i];
        if (m.quantized >= 0)
            l.tensor = decodeQuantized(ctx.ck, ctx.det.modules[static_cast<std::size_t>(m.quantized)]);
        else if (ctx.ck.npy() || ctx.ck.npz())
            l.tensor = ctx.ck.tensor(m.tensor); // NumPy arrays (maybe deflated): the reader's own view
        else
            l.tensor = readDense(*ctx.ck.find(m.tensor));
        l.readMs = msSince(t0);
        if (ctx.options.channelKurtosis)
            l.kurtosis = channelKurtosisParallel(l.tensor, ctx.options.threads, &cancel);
    } catch (const std::exception &e) {
        l.error = e.what();
    }
    l.bytes = ctx.modules[i].readBytes;
    return l;
}

ModuleWork scanModuleLine(const ScanContext &ctx, std::size_t i, const RecipeMatch &match, Loaded *l,
                          const CancelToken &cancel, const ScanProgress &step)
{
    const ScanOptions &options = ctx.options;
    const ScanModule &m = ctx.modules[i];
    ModuleWork out;
    ojson line = moduleLineStart(m, match, options.recipe);
    double readMs = 0;
    if (match.rule == -2) {
        line["status"] = "error";
        line["error"] = match.why;
        ++out.errors;
    } else if (!match.matched()) {
        out.skipped = true;
    } else {
        readMs = l->readMs;
        if (!l->error.empty()) {
            line["status"] = "error";
            line["error"] = l->error;
            ++out.errors;
        } else {
            QuantizeJobRequest req;
            req.tensors = {m.tensor};
            for (std::size_t s = 0; s < match.specs.size(); ++s)
                req.specs.push_back(JobSpec::typed("spec" + std::to_string(s), match.specs[s]));
            req.device = options.device;
            req.profileChannels = false;
            req.threads = options.threads;
            if (options.spectra != SpectraMode::Off) {
                SpectrumOptions so;
                so.top = options.spectrumTop;
                so.tau = options.tau;
                req.spectrum = so;
            }
            TensorSource source;
            const Tensor &w = l->tensor;
            source.weight = [&w](const std::string &) { return w; };
            const auto tj = Clock::now();
            const QuantizeJobResult r = runQuantizeJob(req, source, cancel, step);
            out.jobMs = msSince(tj);
            ojson runs = ojson::array();
            const TensorStats *statsIn = nullptr;
            for (const auto &o : r.outcomes) {
                ojson rj;
                rj["spec"] = ojson::parse(o.spec.dump());
                rj["method"] = o.method;
                if (!o.ok()) {
                    rj["error"] = o.error;
                    ++out.errors;
                    runs.push_back(rj);
                    continue;
                }
                if (!statsIn)
                    statsIn = &o.metrics.statsIn;
                rj["device"] = o.device;
                if (!o.deviceNote.empty())
                    rj["device_note"] = o.deviceNote;
                rj["ragged"] = o.ragged;
                rj["nonfinite_groups"] = o.nonFiniteGroups;
                rj["metrics"] = metricsJson(o);
                if (o.spectrum)
                    rj["spectrum"] = spectrumJson(*o.spectrum, options.spectra == SpectraMode::TopK);
                rj["time_ms"] = o.timeMs;
                out.runsMs += o.timeMs;
                runs.push_back(rj);
            }
            const TensorStats stats = statsIn ? *statsIn : computeStats(w);
            ojson kurt;
            kurt["tensor"] = stats.excessKurtosis ? reportNumber(*stats.excessKurtosis) : ojson(nullptr);
            kurt["rows"] = l->kurtosis ? summaryOf(l->kurtosis->rows) : ojson(nullptr);
            kurt["columns"] = l->kurtosis ? summaryOf(l->kurtosis->columns) : ojson(nullptr);
            line["kurtosis"] = kurt;
            line["runs"] = runs;
            out.scanned = true;
        }
    }
    line["read_ms"] = readMs;
    out.readMs = readMs;
    out.line = std::move(line);
    return out;
}

ScanResult runScan(const Checkpoint &ck, const ScanOptions &options, const CancelToken &cancel,
                   const ScanProgress &progress)
{
    const auto t0 = Clock::now();
    ScanResult result;
    const std::vector<ScanModule> modules = listScanModules(ck, &result.warnings);
    DetectOptions detect;
    detect.strict = false;
    const Detection det = detectQuantized(ck, detect);
    result.modules = static_cast<int>(modules.size());
    result.header = scanHeader(ck, options);
    const std::string recipeHash = options.recipe.hash();

    ReportWriter writer(options.reportPath, result.header);
    // Resume: the lines already there that still hold (same module in order, same key).
    std::vector<ojson> kept = writer.resume([&](std::size_t i, const ojson &line) {
        return i < modules.size() && line.value("module", "") == modules[i].module &&
               line.contains("key") && line["key"] == resumeKey(modules[i], recipeHash);
    });
    result.resumed = static_cast<int>(kept.size());
    result.lines = std::move(kept);

    // What each remaining module needs; the read order is the report order.
    std::vector<RecipeMatch> matches(modules.size());
    std::vector<std::size_t> toRead;
    double totalElements = 0, doneElements = 0;
    for (std::size_t i = 0; i < modules.size(); ++i) {
        const double n = static_cast<double>(numelOf(modules[i].shape));
        totalElements += n;
        if (i < result.lines.size()) {
            doneElements += n;
            continue;
        }
        try {
            matches[i] = matchModule(options.recipe, modules[i].module);
        } catch (const Error &e) {
            matches[i].why = e.message();
            matches[i].rule = -2; // an override that does not validate: reported as an error
        }
        if (matches[i].matched()) {
            toRead.push_back(i);
            result.largestFp32Bytes =
                std::max<std::uint64_t>(result.largestFp32Bytes, 4 * static_cast<std::uint64_t>(numelOf(modules[i].shape)));
        }
    }
    // The queue's bound: at most the largest module's stored bytes ahead unless told otherwise.
    std::uint64_t budget = options.prefetchBytes;
    if (budget == 0)
        for (const auto i : toRead)
            budget = std::max<std::uint64_t>(budget, modules[i].readBytes);

    const ScanContext ctx{ck, options, det, modules, recipeHash};
    auto load = [&](std::size_t i) { return loadScanModule(ctx, i, cancel); };
    std::optional<Prefetcher> prefetch;
    if (!toRead.empty())
        prefetch.emplace(load, toRead, std::max<std::uint64_t>(budget, 1),
                         [&](std::size_t i) { return modules[i].readBytes; });

    int written = 0;
    for (std::size_t i = result.lines.size(); i < modules.size(); ++i) {
        cancel.check();
        const ScanModule &m = modules[i];
        const double n = static_cast<double>(numelOf(m.shape));
        const auto tm = Clock::now();
        std::optional<Loaded> l;
        if (matches[i].matched()) {
            l = prefetch->next();
            result.bytesRead += l->bytes;
        }
        const double base = doneElements;
        ModuleWork w = scanModuleLine(ctx, i, matches[i], l ? &*l : nullptr, cancel,
                                      [&](double b, double, double, const std::string &what) {
                                          if (progress)
                                              progress(base + b * n, base + n, totalElements, what);
                                      });
        result.errors += w.errors;
        result.skipped += w.skipped ? 1 : 0;
        result.scanned += w.scanned ? 1 : 0;
        ojson line = std::move(w.line);
        line["time_ms"] = msSince(tm);
        line["key"] = resumeKey(m, recipeHash);
        line["rank"] = 0;
        if (options.stopAfter >= 0 && written == options.stopAfter) {
            writer.writeTorn(line);
            result.stoppedEarly = true;
            break;
        }
        writer.write(line);
        result.lines.push_back(std::move(line));
        ++written;
        doneElements += n;
        if (progress)
            progress(doneElements, doneElements, totalElements, m.module);
    }
    if (!result.stoppedEarly && !options.reportPath.empty()) { // a stopped MPI scan's early lines: done now
        std::error_code ec;
        std::filesystem::remove(options.reportPath + ".pending", ec);
    }
    if (prefetch)
        result.readSeconds = prefetch->readSeconds();
    prefetch.reset();
    result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return result;
}

ojson withoutTiming(ojson line)
{
    if (line.is_object()) {
        for (const auto &f : kScanTimingFields)
            line.erase(f);
        for (auto &[k, v] : line.items())
            v = withoutTiming(v);
    } else if (line.is_array()) {
        for (auto &v : line)
            v = withoutTiming(v);
    }
    return line;
}

std::uint64_t peakRssBytes()
{
    std::ifstream in("/proc/self/status");
    std::string key;
    while (in >> key) {
        if (key == "VmHWM:") {
            std::uint64_t kb = 0;
            in >> kb;
            return kb * 1024;
        }
        std::string rest;
        std::getline(in, rest);
    }
    return 0;
}

} // namespace quantscope
