// SPDX-License-Identifier: MIT
#include "sim/gemm_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <set>

#include <Eigen/Dense>

#include "util/error.h"

namespace quantscope {

namespace {

const std::vector<std::pair<GemmFormat, const char *>> kNames = {
    {GemmFormat::Bf16, "bf16"}, {GemmFormat::Fp8, "fp8"}, {GemmFormat::Fp8Rowwise, "fp8-rowwise"},
    {GemmFormat::Int8, "int8"}};

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
    throw UnsupportedError("unknown GEMM format '" + name + "' (bf16, fp8, fp8-rowwise or int8)");
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
    return {GemmFormat::Bf16, GemmFormat::Fp8, GemmFormat::Fp8Rowwise, GemmFormat::Int8};
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

void GemmBenchRequest::validate() const
{
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
}

double gemmFlops(std::int64_t m, std::int64_t n, std::int64_t k)
{
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

double gemmBytes(const std::string &format, std::int64_t m, std::int64_t n, std::int64_t k)
{
    // Element sizes of X and W, and of Y (BF16 out on the GPU; INT8's INT32 is scaled to BF16).
    double in = 4, out = 4;
    if (format == "bf16")
        in = 2, out = 2;
    else if (format == "fp8" || format == "fp8-rowwise" || format == "int8")
        in = 1, out = 2;
    const double M = static_cast<double>(m), N = static_cast<double>(n), K = static_cast<double>(k);
    return in * (M * K + N * K) + out * M * N;
}

std::vector<GemmCurve> gemmCurves(const GemmBenchResult &r)
{
    std::vector<GemmCurve> curves;
    for (const auto &p : r.points) {
        auto it = std::find_if(curves.begin(), curves.end(), [&](const GemmCurve &c) { return c.format == p.format; });
        if (it == curves.end()) {
            curves.push_back({p.format, {}, {}, {}, {}});
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
    RowMat w(n, k);
    fill(w, 0.02f);
    double totalFlops = 0, doneFlops = 0;
    for (auto m : request.m)
        totalFlops += gemmFlops(m, n, k);
    std::vector<GemmPoint> out;
    for (const auto m : request.m) {
        if (cancel)
            cancel->stepProgress(doneFlops / totalFlops);
        RowMat x(m, k), y(m, n);
        fill(x, 1.0f);
        auto once = [&] {
            const auto t0 = Clock::now();
            y.noalias() = x * w.transpose();
            return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
        };
        GemmPoint p;
        p.format = kCpuGemmFormat;
        p.m = m, p.n = n, p.k = k;
        p.device = "cpu";
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
        std::sort(times.begin(), times.end());
        const std::size_t h = times.size() / 2;
        // At least 1 ns: a clock tick below the resolution must not make the rates infinite.
        p.timeUs = std::max(times.size() % 2 ? times[h] : 0.5 * (times[h - 1] + times[h]), 1e-3);
        p.repeats = static_cast<int>(times.size());
        p.tflops = gemmFlops(m, n, k) / (p.timeUs * 1e-6) / 1e12;
        p.gbps = gemmBytes(p.format, m, n, k) / (p.timeUs * 1e-6) / 1e9;
        p.note = "Eigen FP32 GEMM standing in for the requested formats";
        if (p.repeats < request.repeats)
            p.note += "; " + std::to_string(p.repeats) + " repeats (capped at " +
                      std::to_string(static_cast<int>(request.cpuPointCapSeconds)) + " s)";
        // Keep the product alive (the optimiser must not drop it) and check it is finite.
        if (!std::isfinite(y(m - 1, n - 1)))
            throw Error("CPU GEMM produced a non-finite value");
        out.push_back(std::move(p));
        doneFlops += gemmFlops(m, n, k);
    }
    if (cancel)
        cancel->stepProgress(1.0);
    return out;
}

nlohmann::ordered_json toJson(const GemmBenchResult &r)
{
    nlohmann::ordered_json j;
    j["device"] = r.device;
    if (!r.deviceNote.empty())
        j["device_note"] = r.deviceNote;
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
            p.note = q.value("note", std::string());
            p.device = r.device;
            r.points.push_back(std::move(p));
        }
        return r;
    } catch (const nlohmann::json::exception &e) {
        throw FormatError(std::string("GEMM bench result: ") + e.what());
    }
}

} // namespace quantscope
