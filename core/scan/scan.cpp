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
#include <cstdlib>
#include <future>
#include <sys/mman.h>
#include <unistd.h>

#include "engine/registry.h"
#include "io/quantized.h"
#include "io/weight_reader.h"
#include "results/channel_profile.h"
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

/// Host buffers for the reads, recycled: a fresh multi-MB allocation per module is a fresh
/// mapping whose pages fault in (and are zeroed) on the first touch, which cost the GPU scan
/// three quarters of its read rate (measured on the H100 host: 1.6 against 6.3 GB/s). A buffer
/// returns here when the last view of its tensor goes; at most two are kept.
class ReadBuffers : public std::enable_shared_from_this<ReadBuffers> {
public:
    ReadBuffers() = default;
    ReadBuffers(const ReadBuffers &) = delete;
    ReadBuffers &operator=(const ReadBuffers &) = delete;
    ~ReadBuffers()
    {
        for (auto &[p, cap] : m_free)
            std::free(p);
    }
    static std::shared_ptr<ReadBuffers> instance()
    {
        static const std::shared_ptr<ReadBuffers> pool = std::make_shared<ReadBuffers>();
        return pool;
    }
    /// A buffer of at least `bytes`, owned by the returned pointer (which gives it back).
    std::shared_ptr<std::byte> take(std::size_t bytes)
    {
        std::byte *p = nullptr;
        std::size_t cap = 0;
        {
            const std::lock_guard lock(m_mutex);
            const auto it =
                std::find_if(m_free.begin(), m_free.end(), [&](const auto &f) { return f.second >= bytes; });
            if (it != m_free.end()) {
                p = it->first, cap = it->second;
                m_free.erase(it);
            } else if (!m_free.empty()) { // none large enough: drop the smallest kept one
                const auto small = std::min_element(m_free.begin(), m_free.end(),
                                                    [](const auto &a, const auto &b) { return a.second < b.second; });
                std::free(small->first);
                m_free.erase(small);
            }
        }
        if (!p) {
            constexpr std::size_t kHuge = std::size_t(2) << 20;
            cap = std::max<std::size_t>((bytes + kHuge - 1) / kHuge * kHuge, kHuge);
            p = static_cast<std::byte *>(std::aligned_alloc(kHuge, cap));
            if (!p)
                throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
            ::madvise(p, cap, MADV_HUGEPAGE); // fewer faults on the first touch; advisory
#endif
        }
        auto self = shared_from_this();
        return std::shared_ptr<std::byte>(p, [self, cap](std::byte *q) { self->give(q, cap); });
    }

private:
    void give(std::byte *p, std::size_t cap)
    {
        const std::lock_guard lock(m_mutex);
        m_free.emplace_back(p, cap);
        while (m_free.size() > 2) {
            std::free(m_free.front().first);
            m_free.erase(m_free.begin());
        }
    }
    std::mutex m_mutex;
    std::vector<std::pair<std::byte *, std::size_t>> m_free;
};

/// Reads a dense tensor's bytes with pread into a recycled buffer: the mapping's pages are never
/// touched, so they do not stay resident after the module is done. A large tensor is read as up
/// to four slices on their own threads: one thread's copy out of the page cache ran at 6.4 GB/s
/// on the H100 host, under the rate of pinned upload, and the GPU scan waited on it.
Tensor readDense(const TensorEntry &e)
{
    const int fd = ::open(e.file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw IoError(std::string("cannot open: ") + std::strerror(errno), Location{e.file.string(), e.name, {}});
    const std::uint64_t size = e.nbytes();
    std::shared_ptr<std::byte> buf;
    try {
        buf = ReadBuffers::instance()->take(static_cast<std::size_t>(std::max<std::uint64_t>(size, 1)));
    } catch (...) {
        ::close(fd);
        throw;
    }
    constexpr std::uint64_t kSlice = 16ull << 20;
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const auto parts =
        static_cast<unsigned>(std::clamp<std::uint64_t>(size / kSlice, 1, std::min(4u, std::max(1u, hw / 2))));
    std::vector<std::string> errors(parts);
    std::vector<std::uint64_t> failedAt(parts, 0);
    auto readPart = [&](unsigned p) {
        const std::uint64_t b = size * p / parts, end = size * (p + 1) / parts;
        std::uint64_t done = b;
        while (done < end) {
            const ssize_t n = ::pread(fd, buf.get() + done, end - done, static_cast<off_t>(e.fileOffset + done));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                errors[p] = n == 0 ? std::string("file ends inside the tensor") : std::string(std::strerror(errno));
                failedAt[p] = e.fileOffset + done;
                return;
            }
            done += static_cast<std::uint64_t>(n);
        }
    };
    std::vector<std::thread> helpers;
    for (unsigned p = 1; p < parts; ++p)
        helpers.emplace_back(readPart, p);
    readPart(0);
    for (auto &t : helpers)
        t.join();
    ::close(fd);
    for (unsigned p = 0; p < parts; ++p)
        if (!errors[p].empty())
            throw IoError(errors[p], Location{e.file.string(), e.name, failedAt[p]});
    const std::byte *data = buf.get();
    return Tensor::borrow(e.dtype, e.shape, data, std::shared_ptr<const void>(std::move(buf)));
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

/// computeChannelKurtosis (results/channel_profile.h) over row slices on `threads` threads: each row's
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
        // Branch-free (a non-finite value adds 0 and counts 0: the same sums, bit for bit, as
        // skipping it) so that the column updates vectorize.
        double cnt = 0, sum = 0;
        double *cc = pc[static_cast<std::size_t>(part)].data();
        double *cs = ps[static_cast<std::size_t>(part)].data();
        for (std::size_t c = 0; c < C; ++c) {
            const bool f = finite(row[c]);
            const double one = f ? 1.0 : 0.0, v = f ? static_cast<double>(row[c]) : 0.0;
            cnt += one;
            sum += v;
            cc[c] += one;
            cs[c] += v;
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
        double *c2 = pc[static_cast<std::size_t>(part)].data();
        double *c4 = ps[static_cast<std::size_t>(part)].data();
        const double *cm = cMean.data();
        for (std::size_t c = 0; c < C; ++c) {
            const bool f = finite(row[c]);
            const double v = row[c];
            const double d = f ? v - mu : 0.0, d2 = d * d;
            s2 += d2;
            s4 += d2 * d2;
            const double e = f ? v - cm[c] : 0.0, e2 = e * e;
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

/// One reader thread; the queue holds at most `budget` bytes (always at least one item). Each
/// read's CPU pass (`finish`: the per-channel kurtosis) runs on a second thread while the next
/// module is read, so reading and that pass overlap; items stay in order.
class Prefetcher {
public:
    Prefetcher(std::function<Loaded(std::size_t)> read, std::function<void(Loaded &)> finish,
               std::vector<std::size_t> order, std::uint64_t budget, std::function<std::uint64_t(std::size_t)> sizeOf)
        : m_read(std::move(read)), m_finish(std::move(finish)), m_order(std::move(order)), m_budget(budget),
          m_sizeOf(std::move(sizeOf))
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
    /// The next item in order (blocks until it is read and finished).
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
    void push(Loaded l)
    {
        {
            const std::lock_guard lock(m_mutex);
            m_readSeconds += l.readMs / 1000.0;
            m_queued += l.bytes;
            m_queue.push_back(std::move(l));
        }
        m_cv.notify_all();
    }
    void run()
    {
        // The item read last is finished (and then queued) on its own task while the next read
        // runs; its task ends before the next one starts, so items reach the queue in order.
        std::future<void> finishing;
        for (const std::size_t i : m_order) {
            const std::uint64_t need = m_sizeOf(i);
            {
                std::unique_lock lock(m_mutex);
                m_cv.wait(lock, [&] { return m_stop || m_queue.empty() || m_queued + need <= m_budget; });
                if (m_stop)
                    break;
            }
            auto l = std::make_shared<Loaded>(m_read(i));
            l->bytes = need;
            if (finishing.valid())
                finishing.get();
            finishing = std::async(std::launch::async, [this, l] {
                m_finish(*l);
                push(std::move(*l));
            });
        }
        if (finishing.valid())
            finishing.get();
    }

    std::function<Loaded(std::size_t)> m_read;
    std::function<void(Loaded &)> m_finish;
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
        if (holdsCodes(e.dtype)) { // packed words of an undetected scheme are not weights
            if (warnings)
                warnings->push_back("tensor '" + e.name + "' is stored as " + std::string(nameOf(e.dtype)) +
                                    ": integer codes, not weights; not scanned");
            continue;
        }
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

Loaded readScanModule(const ScanContext &ctx, std::size_t i)
{
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
    } catch (const std::exception &e) {
        l.error = e.what();
    }
    l.bytes = ctx.modules[i].readBytes;
    return l;
}

/// Whether the per-channel kurtosis is left to the device that runs the module's specs (the
/// engine job's deviceChannelKurtosis; the CPU computes it after the job where the device could
/// not): a GPU scan's reader then only reads.
bool kurtosisOnDevice(const ScanOptions &o)
{
    return o.channelKurtosis && o.device != DeviceChoice::Cpu && BackendRegistry::instance().gpu() != nullptr;
}

void addChannelKurtosis(const ScanContext &ctx, Loaded &l, const CancelToken &cancel)
{
    if (!ctx.options.channelKurtosis || !l.error.empty() || kurtosisOnDevice(ctx.options))
        return;
    try {
        const auto tk = Clock::now();
        l.kurtosis = channelKurtosisParallel(l.tensor, ctx.options.threads, &cancel);
        l.kurtosisMs = msSince(tk);
    } catch (const std::exception &e) { // Cancelled too: the computing thread's next check throws
        l.error = e.what();
    }
}

Loaded loadScanModule(const ScanContext &ctx, std::size_t i, const CancelToken &cancel)
{
    Loaded l = readScanModule(ctx, i);
    addChannelKurtosis(ctx, l, cancel);
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
            req.deviceChannelKurtosis = options.channelKurtosis && !l->kurtosis;
            req.threads = options.threads;
            req.capture = options.capture;
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
                rj["metrics"] =
                    metricsJson(o.metrics, MetricsDetail::Report, StoredSize{o.bitsPerElement, o.storedBytes});
                if (o.outputError)
                    rj["metrics"]["output_error"] = outputErrorJson(*o.outputError);
                if (o.spectrum)
                    rj["spectrum"] = spectrumJson(*o.spectrum, options.spectra == SpectraMode::TopK);
                rj["time_ms"] = o.timeMs;
                out.runsMs += o.timeMs;
                runs.push_back(rj);
            }
            if (options.channelKurtosis && !l->kurtosis) {
                // Left to the device: its sums, or the CPU's pass where it had none.
                if (!r.tensors.empty() && r.tensors.front().channelKurtosis) {
                    l->kurtosis = r.tensors.front().channelKurtosis;
                } else {
                    const auto tk = Clock::now();
                    l->kurtosis = channelKurtosisParallel(w, options.threads, &cancel);
                    l->kurtosisMs += msSince(tk);
                }
            }
            if (!r.tensors.empty() && !r.tensors.front().captureNote.empty())
                line["capture_note"] = r.tensors.front().captureNote;
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
        return i < modules.size() && line.value("module", "") == modules[i].module && line.contains("key") &&
               line["key"] == resumeKey(modules[i], recipeHash);
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
            result.largestFp32Bytes = std::max<std::uint64_t>(
                result.largestFp32Bytes, 4 * static_cast<std::uint64_t>(numelOf(modules[i].shape)));
        }
    }
    // The queue's bound: at most the largest module's stored bytes ahead unless told otherwise.
    std::uint64_t budget = options.prefetchBytes;
    if (budget == 0)
        for (const auto i : toRead)
            budget = std::max<std::uint64_t>(budget, modules[i].readBytes);

    const ScanContext ctx{ck, options, det, modules, recipeHash};
    auto read = [&](std::size_t i) { return readScanModule(ctx, i); };
    auto finish = [&](Loaded &l) { addChannelKurtosis(ctx, l, cancel); };
    std::optional<Prefetcher> prefetch;
    if (!toRead.empty())
        prefetch.emplace(read, finish, toRead, std::max<std::uint64_t>(budget, 1),
                         [&](std::size_t i) { return modules[i].readBytes; });

    int written = 0;
    for (std::size_t i = result.lines.size(); i < modules.size(); ++i) {
        cancel.check();
        const ScanModule &m = modules[i];
        const double n = static_cast<double>(numelOf(m.shape));
        const auto tm = Clock::now();
        std::optional<Loaded> l;
        if (matches[i].matched()) {
            const auto tw = Clock::now();
            l = prefetch->next();
            result.waitSeconds += msSince(tw) / 1000.0;
            result.kurtosisSeconds += l->kurtosisMs / 1000.0;
            result.bytesRead += l->bytes;
        }
        const double base = doneElements;
        ModuleWork w = scanModuleLine(ctx, i, matches[i], l ? &*l : nullptr, cancel,
                                      [&](double b, double, double, const std::string &what) {
                                          if (progress)
                                              progress(base + b * n, base + n, totalElements, what);
                                      });
        result.jobSeconds += w.jobMs / 1000.0;
        result.runsSeconds += w.runsMs / 1000.0;
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

namespace {
std::uint64_t statusKb(const char *field)
{
    std::ifstream in("/proc/self/status");
    std::string key;
    while (in >> key) {
        if (key == field) {
            std::uint64_t kb = 0;
            in >> kb;
            return kb * 1024;
        }
        std::string rest;
        std::getline(in, rest);
    }
    return 0;
}
} // namespace

std::uint64_t peakRssBytes()
{
    return statusKb("VmHWM:");
}
std::uint64_t currentRssBytes()
{
    return statusKb("VmRSS:");
}

} // namespace quantscope
