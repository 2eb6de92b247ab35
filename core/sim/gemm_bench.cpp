// SPDX-License-Identifier: MIT
#include "sim/gemm_bench.h"
#include "sim/gemm_roofline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <set>

#include <Eigen/Dense>

#include "util/error.h"

namespace quantscope {

namespace {

const std::vector<std::pair<GemmFormat, const char *>> kNames = {{GemmFormat::Bf16, "bf16"},
                                                                 {GemmFormat::Fp8, "fp8"},
                                                                 {GemmFormat::Fp8Rowwise, "fp8-rowwise"},
                                                                 {GemmFormat::Int8, "int8"},
                                                                 {GemmFormat::W4a16, "w4a16"},
                                                                 {GemmFormat::W4a8Int8, "w4a8-int8"},
                                                                 {GemmFormat::W4a8Fp8, "w4a8-fp8"},
                                                                 {GemmFormat::W8a8Fp8, "w8a8-fp8"},
                                                                 {GemmFormat::Mxfp4, "mxfp4"},
                                                                 {GemmFormat::Nvfp4, "nvfp4"},
                                                                 {GemmFormat::W3a16Milo, "w3a16-milo"}};

std::vector<std::string> splitCsv(const std::string &csv)
{
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at <= csv.size()) {
        const auto comma = csv.find(',', at);
        const auto end = comma == std::string::npos ? csv.size() : comma;
        out.push_back(csv.substr(at, end - at));
        if (comma == std::string::npos)
            break;
        at = comma + 1;
    }
    return out;
}

/// "mxfp4-unfused" → "mxfp4" (the same weights, bytes and ceiling); other names unchanged.
std::string fp4Base(const std::string &format)
{
    const std::string suffix = kFp4UnfusedSuffix;
    if (format.size() > suffix.size() && format.compare(format.size() - suffix.size(), suffix.size(), suffix) == 0)
        return format.substr(0, format.size() - suffix.size());
    return format;
}

} // namespace

std::string toString(GemmFormat f)
{
    for (const auto &[v, name] : kNames)
        if (v == f)
            return name;
    return "?";
}

GemmFormat parseGemmFormat(const std::string &name)
{
    for (const auto &[v, n] : kNames)
        if (name == n)
            return v;
    throw UnsupportedError(
        "unknown GEMM format '" + name +
        "' (bf16, fp8, fp8-rowwise, int8, w4a16, w4a8-int8, w4a8-fp8, w8a8-fp8, mxfp4, nvfp4 or w3a16-milo)");
}

std::vector<GemmFormat> parseGemmFormats(const std::string &csv)
{
    std::vector<GemmFormat> out;
    for (const auto &s : splitCsv(csv)) {
        const GemmFormat f = parseGemmFormat(s);
        if (std::find(out.begin(), out.end(), f) != out.end())
            throw UnsupportedError("GEMM format '" + s + "' given twice");
        out.push_back(f);
    }
    return out;
}

std::vector<GemmFormat> allGemmFormats()
{
    std::vector<GemmFormat> out;
    for (const auto &[v, name] : kNames)
        out.push_back(v);
    return out;
}

std::vector<GemmFormat> plainGemmFormats()
{
    return {GemmFormat::Bf16, GemmFormat::Fp8, GemmFormat::Fp8Rowwise, GemmFormat::Int8};
}

bool isQuantizedWeightFormat(GemmFormat f)
{
    return f == GemmFormat::W4a16 || f == GemmFormat::W4a8Int8 || f == GemmFormat::W4a8Fp8 ||
           f == GemmFormat::W8a8Fp8 || f == GemmFormat::Mxfp4 || f == GemmFormat::Nvfp4 || f == GemmFormat::W3a16Milo;
}

std::string gemmPeakDtype(const std::string &name)
{
    const std::string format = fp4Base(name);
    if (format == "bf16" || format == "w4a16" || format == kW4a16FusedFormat || format == "mxfp4" ||
        format == "nvfp4" || format == "w3a16-milo")
        return "bf16";
    if (format == "fp8" || format == "fp8-rowwise" || format == "w4a8-fp8" || format == "w8a8-fp8" ||
        format == kW4a8Fp8FusedFormat)
        return "fp8";
    if (format == "int8" || format == "w4a8-int8" || format == kW4a8Int8FusedFormat)
        return "int8";
    return "fp32";
}

std::string GemmPoint::series() const
{
    if (experts <= 1)
        return format;
    return format + (launches > 1 ? " loop" : " batched");
}

std::vector<std::int64_t> defaultMSweep()
{
    std::vector<std::int64_t> m;
    for (std::int64_t v = 1; v <= 8192; v *= 2)
        m.push_back(v);
    return m;
}

std::vector<std::int64_t> parseMSweep(const std::string &csv)
{
    std::vector<std::int64_t> out;
    for (const auto &s : splitCsv(csv)) {
        std::int64_t v = 0;
        std::size_t used = 0;
        try {
            v = std::stoll(s, &used);
        } catch (const std::exception &) {
            used = 0;
        }
        if (s.empty() || used != s.size() || v < 1 || v > (1 << 20))
            throw UnsupportedError("M sweep: '" + s + "' is not an integer in [1, 1048576]");
        out.push_back(v);
    }
    return out;
}

namespace {

/// validate()'s checks of the request as a whole (not of one of its formats).
void validateRequestWide(const GemmBenchRequest &r)
{
    const auto &formats = r.formats;
    const auto &m = r.m;
    const std::int64_t n = r.n, k = r.k;
    const int repeats = r.repeats, warmup = r.warmup, experts = r.experts;
    const std::int64_t w4Group = r.w4Group;
    if (formats.empty())
        throw UnsupportedError("GEMM bench: no format");
    if (m.empty())
        throw UnsupportedError("GEMM bench: empty M sweep");
    for (auto v : m)
        if (v < 1)
            throw UnsupportedError("GEMM bench: M must be ≥ 1, got " + std::to_string(v));
    if (n < 1 || k < 1 || n > (1 << 20) || k > (1 << 20))
        throw UnsupportedError("GEMM bench: N and K must be in [1, 1048576], got " + std::to_string(n) + "×" +
                               std::to_string(k));
    if (repeats < 20)
        throw UnsupportedError("GEMM bench: at least 20 repeats, got " + std::to_string(repeats));
    if (warmup < 0)
        throw UnsupportedError("GEMM bench: warm-up must be ≥ 0");
    if (experts < 1 || experts > 1024)
        throw UnsupportedError("GEMM bench: experts must be in [1, 1024], got " + std::to_string(experts));
    if (w4Group < 0)
        throw UnsupportedError("GEMM bench: the W4 group size must be even and divide K = " + std::to_string(k) +
                               " (0: per channel), got " + std::to_string(w4Group));
}

} // namespace

void GemmBenchRequest::validate() const
{
    validateRequestWide(*this);
    for (auto f : formats) {
        const std::string why = gemmFormatRefusal(*this, f);
        if (!why.empty())
            throw UnsupportedError(why);
    }
}

std::string gemmFormatRefusal(const GemmBenchRequest &r, GemmFormat f)
{
    const std::int64_t k = r.k;
    if (r.experts > 1 && f != GemmFormat::Bf16 && f != GemmFormat::Fp8)
        return "GEMM bench: MoE mode (experts > 1) times bf16 and fp8 only, not " + toString(f);
    if (f == GemmFormat::W4a16 && r.w4Group > 0 && (r.w4Group % 2 != 0 || k % r.w4Group != 0))
        return "GEMM bench: the W4 group size must be even and divide K = " + std::to_string(k) +
               " (0: per channel), got " + std::to_string(r.w4Group);
    if ((f == GemmFormat::Mxfp4 && k % 32 != 0) || (f == GemmFormat::Nvfp4 && k % 16 != 0))
        return "GEMM bench: " + toString(f) + " needs K a multiple of its block (" +
               (f == GemmFormat::Mxfp4 ? "32" : "16") + "), K = " + std::to_string(k);
    if (f == GemmFormat::W3a16Milo && (k % 256 != 0 || r.w3Rank < 0 || r.w3Rank > 256))
        return "GEMM bench: w3a16-milo needs K a multiple of 256 and a rank in [0, 256], got K = " + std::to_string(k) +
               ", rank " + std::to_string(r.w3Rank);
    if (isQuantizedWeightFormat(f) && k % 2 != 0)
        return "GEMM bench: the INT4 paths need an even K (two codes a byte), K = " + std::to_string(k);
    return {};
}

std::string gpuGemmFormatRefusal(const GemmBenchRequest &r, GemmFormat f)
{
    if (f != GemmFormat::Bf16 && r.k % 16 != 0)
        return "GEMM bench on the GPU: " + toString(f) + " needs K a multiple of 16, K = " + std::to_string(r.k);
    return {};
}

GemmBenchRequest runnableGemmRequest(const GemmBenchRequest &request, std::vector<GemmSkippedFormat> &skipped)
{
    validateRequestWide(request);
    skipped.clear();
    GemmBenchRequest out = request;
    out.formats.clear();
    for (auto f : request.formats) {
        std::string why = gemmFormatRefusal(request, f);
        if (why.empty())
            out.formats.push_back(f);
        else
            skipped.push_back({toString(f), std::move(why)});
    }
    if (out.formats.empty() && !skipped.empty()) {
        // None runs: refused as a whole, every format's reason (a one-format request: its own).
        std::string all;
        for (const auto &s : skipped)
            all += (all.empty() ? "" : "; ") + s.reason;
        throw UnsupportedError(all);
    }
    return out;
}

double gemmFlops(std::int64_t m, std::int64_t n, std::int64_t k)
{
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

double gemmBytes(const std::string &name, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t w4Group)
{
    const std::string format = fp4Base(name);
    const double M = static_cast<double>(m), N = static_cast<double>(n), K = static_cast<double>(k);
    if (format == "w4a16" || format == kW4a16FusedFormat) {
        const double groups = N * (w4Group > 0 ? K / static_cast<double>(w4Group) : 1.0);
        return N * K / 2 + 5 * groups + 2 * M * K + 2 * M * N;
    }
    if (format == "mxfp4" || format == "nvfp4")
        return N * K / 2 + N * K / (format == "mxfp4" ? 32 : 16) + (format == "nvfp4" ? 4 : 0) + 2 * M * K + 2 * M * N;
    if (format == "w3a16-milo") // 3-bit codes + FP32 scale and zero point per 64 (the factors: the engine adds them)
        return N * K * 3 / 8 + 8 * N * K / 64 + 2 * M * K + 2 * M * N;
    if (format == "w4a8-int8" || format == "w4a8-fp8" || format == kW4a8Int8FusedFormat ||
        format == kW4a8Fp8FusedFormat)
        return N * K / 2 + 5 * N + M * K + 4 * M + 2 * M * N;
    if (format == "w8a8-fp8")
        return N * K + 4 * N + M * K + 4 * M + 2 * M * N;
    // Element sizes of X and W, and of Y (BF16 out on the GPU; INT8's INT32 is scaled to BF16).
    double in = 4, out = 4;
    if (format == "bf16")
        in = 2, out = 2;
    else if (format == "fp8" || format == "fp8-rowwise" || format == "int8")
        in = 1, out = 2;
    return in * (M * K + N * K) + out * M * N;
}

void setGemmRates(GemmPoint &p, std::int64_t w4Group)
{
    const double e = std::max(p.experts, 1);
    p.flops = e * gemmFlops(p.m, p.n, p.k);
    p.bytes = e * gemmBytes(p.format, p.m, p.n, p.k, w4Group);
    p.tflops = p.flops / (p.timeUs * 1e-6) / 1e12;
    p.gbps = p.bytes / (p.timeUs * 1e-6) / 1e9;
    p.bytesPerToken = p.bytes / (e * static_cast<double>(std::max<std::int64_t>(p.m, 1)));
}

double gemmWeightBytes(const std::string &format, std::int64_t n, std::int64_t k, std::int64_t w4Group)
{
    return gemmBytes(format, 0, n, k, w4Group);
}

void setSpeedupsVsBf16(GemmBenchResult &r)
{
    for (auto &p : r.points) {
        if (p.format == "bf16")
            continue;
        if (p.bf16PairedUs > 0 && p.timeUs > 0) { // the same runs' BF16 time (same clock state)
            p.speedupVsBf16 = p.bf16PairedUs / p.timeUs;
            continue;
        }
        for (const auto &b : r.points)
            if (b.format == "bf16" && b.m == p.m && b.n == p.n && b.k == p.k && b.experts == p.experts &&
                b.launches == p.launches && b.timeUs > 0 && p.timeUs > 0)
                p.speedupVsBf16 = b.timeUs / p.timeUs;
    }
}

std::vector<GemmCurve> gemmCurves(const GemmBenchResult &r)
{
    std::vector<GemmCurve> curves;
    for (const auto &p : r.points) {
        const std::string series = p.series();
        auto it = std::find_if(curves.begin(), curves.end(), [&](const GemmCurve &c) { return c.format == series; });
        if (it == curves.end()) {
            curves.push_back({series, {}, {}, {}, {}});
            it = curves.end() - 1;
        }
        it->m.push_back(static_cast<double>(p.m));
        it->timeUs.push_back(p.timeUs);
        it->tflops.push_back(p.tflops);
        it->paddedM.push_back(p.padded ? p.paddedM : p.m);
    }
    for (auto &c : curves) {
        std::vector<std::size_t> order(c.m.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return c.m[a] < c.m[b]; });
        GemmCurve s{c.format, {}, {}, {}, {}};
        for (auto i : order) {
            s.m.push_back(c.m[i]);
            s.timeUs.push_back(c.timeUs[i]);
            s.tflops.push_back(c.tflops[i]);
            s.paddedM.push_back(c.paddedM[i]);
        }
        c = std::move(s);
    }
    return curves;
}

std::vector<GemmPoint> timeGemmsCpu(const GemmBenchRequest &request, const CancelToken *cancel)
{
    request.validate();
    using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Clock = std::chrono::steady_clock;
    const std::int64_t n = request.n, k = request.k;
    // Real-looking, never-zero inputs: seeded normal values, |x| ≥ 1e-3.
    std::mt19937_64 rng(0x5157u);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto fill = [&](RowMat &a, float scale) {
        for (Eigen::Index i = 0; i < a.size(); ++i) {
            float v = normal(rng) * scale;
            if (std::fabs(v) < 1e-3f)
                v = v < 0 ? -1e-3f : 1e-3f;
            a.data()[i] = v;
        }
    };
    const int experts = request.experts;
    const double wBytes = 4.0 * static_cast<double>(experts) * static_cast<double>(n) * static_cast<double>(k);
    if (wBytes > 2.0 * (1u << 30))
        throw UnsupportedError("GEMM bench on the CPU: " + std::to_string(experts) + " experts of " +
                               std::to_string(n) + "×" + std::to_string(k) + " need more than 2 GiB of FP32 weights");
    std::vector<RowMat> w(static_cast<std::size_t>(experts), RowMat(n, k));
    for (auto &we : w)
        fill(we, 0.02f);
    double totalFlops = 0, doneFlops = 0;
    for (auto m : request.m)
        totalFlops += experts * gemmFlops(m, n, k);
    std::vector<GemmPoint> out;
    for (const auto m : request.m) {
        if (cancel)
            cancel->stepProgress(doneFlops / totalFlops);
        std::vector<RowMat> x(w.size(), RowMat(m, k)), y(w.size(), RowMat(m, n));
        for (auto &xe : x)
            fill(xe, 1.0f);
        // MoE: one GEMM per expert in a loop (the CPU has no batched launch to compare).
        auto once = [&] {
            const auto t0 = Clock::now();
            for (std::size_t e = 0; e < w.size(); ++e)
                y[e].noalias() = x[e] * w[e].transpose();
            return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
        };
        GemmPoint p;
        p.format = kCpuGemmFormat;
        p.m = m, p.n = n, p.k = k;
        p.device = "cpu";
        p.experts = experts;
        p.launches = experts;
        p.coldUs = once();
        const double capUs = request.cpuPointCapSeconds * 1e6;
        double spent = p.coldUs;
        std::vector<double> times;
        // Warm-up only while it fits the cap; then the timed runs, at least one.
        for (int i = 0; i < request.warmup && spent + p.coldUs < capUs / 4; ++i)
            spent += once();
        while (static_cast<int>(times.size()) < request.repeats) {
            if (cancel)
                cancel->check();
            const double last = times.empty() ? p.coldUs : times.back();
            if (!times.empty() && spent + last > capUs)
                break;
            times.push_back(once());
            spent += times.back();
        }
        // At least 1 ns: a clock tick below the resolution must not make the rates infinite.
        for (auto &t : times)
            t = std::max(t, 1e-3);
        setTimeSpread(p, times);
        setGemmRates(p, request.w4Group);
        p.note = "Eigen FP32 GEMM standing in for the requested formats";
        std::string gpuOnly;
        for (auto f : request.formats)
            if (isQuantizedWeightFormat(f))
                gpuOnly += (gpuOnly.empty() ? "" : ", ") + toString(f);
        if (!gpuOnly.empty())
            p.note += "; " + gpuOnly + ": GPU only";
        if (experts > 1)
            p.note += "; MoE: " + std::to_string(experts) + " experts, one GEMM each (no batched launch on the CPU)";
        if (p.repeats < request.repeats)
            p.note += "; " + std::to_string(p.repeats) + " repeats (capped at " +
                      std::to_string(static_cast<int>(request.cpuPointCapSeconds)) + " s)";
        // Keep the product alive (the optimiser must not drop it) and check it is finite.
        if (!std::isfinite(y.back()(m - 1, n - 1)))
            throw Error("CPU GEMM produced a non-finite value");
        out.push_back(std::move(p));
        doneFlops += experts * gemmFlops(m, n, k);
    }
    if (cancel)
        cancel->stepProgress(1.0);
    return out;
}

void setTimeSpread(GemmPoint &p, std::vector<double> t)
{
    if (t.empty())
        return;
    std::sort(t.begin(), t.end());
    const auto at = [&](double q) {
        const double x = q * static_cast<double>(t.size() - 1);
        const auto lo = static_cast<std::size_t>(std::floor(x)), hi = static_cast<std::size_t>(std::ceil(x));
        return t[lo] + (x - static_cast<double>(lo)) * (t[hi] - t[lo]);
    };
    p.timeUs = at(0.5); // the median (the mean of the middle two for an even count)
    p.timeMinUs = t.front();
    p.timeP10Us = at(0.1);
    p.timeP90Us = at(0.9);
    p.timeMaxUs = t.back();
    p.repeats = static_cast<int>(t.size());
}

nlohmann::ordered_json toJson(const GemmBenchResult &r)
{
    nlohmann::ordered_json j;
    j["device"] = r.device;
    if (!r.deviceNote.empty())
        j["device_note"] = r.deviceNote;
    if (r.peaks)
        j["peaks"] = toJson(*r.peaks);
    if (!r.skipped.empty()) {
        auto skipped = nlohmann::ordered_json::array();
        for (const auto &s : r.skipped)
            skipped.push_back({{"format", s.format}, {"reason", s.reason}});
        j["skipped"] = std::move(skipped);
    }
    auto pts = nlohmann::ordered_json::array();
    for (const auto &p : r.points) {
        nlohmann::ordered_json q;
        q["format"] = p.format;
        q["m"] = p.m;
        q["n"] = p.n;
        q["k"] = p.k;
        q["time_us"] = p.timeUs;
        q["cold_us"] = p.coldUs;
        if (p.epilogueUs > 0)
            q["epilogue_us"] = p.epilogueUs;
        q["tflops"] = p.tflops;
        q["gbps"] = p.gbps;
        q["padded"] = p.padded;
        if (p.padded)
            q["padded_m"] = p.paddedM;
        q["repeats"] = p.repeats;
        if (p.timeMinUs > 0 && p.timeMaxUs > 0) {
            q["time_min_us"] = p.timeMinUs;
            if (p.timeP10Us > 0 && p.timeP90Us > 0) {
                q["time_p10_us"] = p.timeP10Us;
                q["time_p90_us"] = p.timeP90Us;
            }
            q["time_max_us"] = p.timeMaxUs;
        }
        if (p.algosTried > 0) {
            q["algo_index"] = p.algoIndex;
            q["algos_tried"] = p.algosTried;
        }
        q["experts"] = p.experts;
        q["launches"] = p.launches;
        q["flops"] = p.flops;
        q["bytes"] = p.bytes;
        q["intensity"] = p.intensity;
        if (p.bytesPerToken > 0)
            q["bytes_per_token"] = p.bytesPerToken;
        if (p.weightRooflineFraction > 0)
            q["weight_roofline_fraction"] = p.weightRooflineFraction;
        if (p.speedupVsBf16 > 0)
            q["speedup_vs_bf16"] = p.speedupVsBf16;
        if (p.bf16PairedUs > 0)
            q["bf16_paired_us"] = p.bf16PairedUs;
        if (!p.bound.empty()) {
            q["bound"] = p.bound;
            q["fraction_of_ceiling"] = p.fractionOfCeiling;
        }
        if (!p.cacheLevel.empty())
            q["cache_level"] = p.cacheLevel;
        if (!p.note.empty())
            q["note"] = p.note;
        pts.push_back(std::move(q));
    }
    j["points"] = std::move(pts);
    return j;
}

GemmBenchResult gemmBenchFromJson(const nlohmann::json &j)
{
    try {
        GemmBenchResult r;
        r.device = j.at("device").get<std::string>();
        r.deviceNote = j.value("device_note", std::string());
        if (j.contains("peaks"))
            r.peaks = gemmPeaksFromJson(j.at("peaks"));
        if (j.contains("skipped"))
            for (const auto &s : j.at("skipped"))
                r.skipped.push_back({s.at("format").get<std::string>(), s.at("reason").get<std::string>()});
        for (const auto &q : j.at("points")) {
            GemmPoint p;
            p.format = q.at("format").get<std::string>();
            p.m = q.at("m").get<std::int64_t>();
            p.n = q.at("n").get<std::int64_t>();
            p.k = q.at("k").get<std::int64_t>();
            p.timeUs = q.at("time_us").get<double>();
            p.coldUs = q.at("cold_us").get<double>();
            p.epilogueUs = q.value("epilogue_us", 0.0);
            p.tflops = q.at("tflops").get<double>();
            p.gbps = q.at("gbps").get<double>();
            p.padded = q.at("padded").get<bool>();
            p.paddedM = q.value("padded_m", p.m);
            p.repeats = q.value("repeats", 0);
            p.timeMinUs = q.value("time_min_us", 0.0);
            p.timeMaxUs = q.value("time_max_us", 0.0);
            p.timeP10Us = q.value("time_p10_us", 0.0);
            p.timeP90Us = q.value("time_p90_us", 0.0);
            p.algoIndex = q.value("algo_index", -1);
            p.algosTried = q.value("algos_tried", 0);
            p.cacheLevel = q.value("cache_level", std::string());
            p.note = q.value("note", std::string());
            p.experts = q.value("experts", 1);
            p.launches = q.value("launches", 1);
            p.flops = q.value("flops", 0.0);
            p.bytes = q.value("bytes", 0.0);
            p.intensity = q.value("intensity", 0.0);
            p.bytesPerToken = q.value("bytes_per_token", 0.0);
            p.weightRooflineFraction = q.value("weight_roofline_fraction", 0.0);
            p.speedupVsBf16 = q.value("speedup_vs_bf16", 0.0);
            p.bf16PairedUs = q.value("bf16_paired_us", 0.0);
            if (!(p.bf16PairedUs >= 0))
                throw FormatError("GEMM bench result: bf16_paired_us is negative");
            p.bound = q.value("bound", std::string());
            p.fractionOfCeiling = q.value("fraction_of_ceiling", 0.0);
            if (!p.bound.empty() && p.bound != "memory" && p.bound != "compute")
                throw FormatError("GEMM bench result: bound '" + p.bound + "' is neither memory nor compute");
            p.device = r.device;
            r.points.push_back(std::move(p));
        }
        return r;
    } catch (const nlohmann::json::exception &e) {
        throw FormatError(std::string("GEMM bench result: ") + e.what());
    }
}

} // namespace quantscope
