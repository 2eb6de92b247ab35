// SPDX-License-Identifier: MIT
#include "sim/gemm_roofline.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

#include <Eigen/Dense>

#include "sim/gemm_bench.h"
#include "util/error.h"

namespace quantscope {

nlohmann::ordered_json toJson(const GemmPeaks &p)
{
    nlohmann::ordered_json j;
    j["device_key"] = p.deviceKey;
    j["copy_gbps"] = p.copyGbps;
    nlohmann::ordered_json t = nlohmann::ordered_json::object();
    for (const auto &[dtype, v] : p.tflops)
        t[dtype] = v;
    j["tflops"] = std::move(t);
    j["source"] = p.source;
    if (!p.note.empty())
        j["note"] = p.note;
    return j;
}

GemmPeaks gemmPeaksFromJson(const nlohmann::json &j)
{
    try {
        GemmPeaks p;
        p.deviceKey = j.at("device_key").get<std::string>();
        p.copyGbps = j.at("copy_gbps").get<double>();
        for (const auto &[dtype, v] : j.at("tflops").items())
            p.tflops[dtype] = v.get<double>();
        p.source = j.value("source", std::string());
        p.note = j.value("note", std::string());
        if (!(p.copyGbps > 0))
            throw FormatError("GEMM peaks: copy_gbps must be positive");
        for (const auto &[dtype, v] : p.tflops)
            if (!(v > 0))
                throw FormatError("GEMM peaks: the " + dtype + " peak must be positive");
        return p;
    } catch (const nlohmann::json::exception &e) {
        throw FormatError(std::string("GEMM peaks: ") + e.what());
    }
}

double rooflineCeilingTflops(const GemmPeaks &peaks, const std::string &dtype, double intensity)
{
    const auto it = peaks.tflops.find(dtype);
    if (it == peaks.tflops.end() || !(peaks.copyGbps > 0))
        return 0;
    return std::min(peaks.copyGbps * 1e9 * intensity / 1e12, it->second);
}

void placeOnRoofline(GemmPoint &p, const GemmPeaks &peaks)
{
    const std::string dtype = gemmPeakDtype(p.format);
    const auto it = peaks.tflops.find(dtype);
    if (it == peaks.tflops.end() || !(p.bytes > 0) || !(peaks.copyGbps > 0))
        return;
    p.intensity = p.flops / p.bytes;
    const double memory = peaks.copyGbps * 1e9 * p.intensity / 1e12;
    p.bound = memory < it->second ? "memory" : "compute";
    p.fractionOfCeiling = p.tflops / std::min(memory, it->second);
    // The weights' bytes: the point's bytes less its activations' and outputs' (which do not
    // depend on the group size), at the copy's GB/s, over the time.
    const double e = std::max(p.experts, 1);
    const double weights = p.bytes - e * (gemmBytes(p.format, p.m, p.n, p.k) - gemmBytes(p.format, 0, p.n, p.k));
    if (weights > 0 && p.timeUs > 0)
        p.weightRooflineFraction = weights / (peaks.copyGbps * 1e9) / (p.timeUs * 1e-6);
}

void placeOnRoofline(GemmBenchResult &r)
{
    if (!r.peaks)
        return;
    for (auto &p : r.points) {
        // Points timed without their traffic (part I's plain GEMMs): bytes and FLOPs from the shape.
        if (!(p.bytes > 0) && p.timeUs > 0)
            setGemmRates(p);
        placeOnRoofline(p, *r.peaks);
    }
    // A ceiling is what the device can do, so no point may be above it. Where one is (a GEMM
    // whose operands stay in cache beats the large copy; a small GEMM tiles better than the
    // peak shapes), the ceiling it beat is raised to it and both say so (issue 42).
    GemmPeaks &peaks = *r.peaks;
    std::vector<std::string> raised;
    for (const auto &p : r.points) {
        if (p.bound.empty() || !(p.fractionOfCeiling > 1))
            continue;
        const std::string dtype = gemmPeakDtype(p.format);
        if (p.bound == "compute") {
            peaks.tflops[dtype] = std::max(peaks.tflops[dtype], p.tflops);
            raised.push_back(dtype + " peak to " + p.series() + " M=" + std::to_string(p.m));
        } else {
            peaks.copyGbps = std::max(peaks.copyGbps, p.tflops * 1e12 / p.intensity / 1e9);
            raised.push_back("copy GB/s to " + p.series() + " M=" + std::to_string(p.m));
        }
    }
    if (raised.empty())
        return;
    std::string list;
    for (const auto &x : raised)
        list += (list.empty() ? "" : ", ") + x;
    peaks.note += (peaks.note.empty() ? "" : "; ") +
                  std::string("raised to the points that beat the measured ceiling (") + list +
                  "): their operands stay in cache, which the large copy and the peak GEMMs do not";
    for (auto &p : r.points) {
        const double before = p.fractionOfCeiling;
        placeOnRoofline(p, peaks);
        if (before > 1)
            p.note += (p.note.empty() ? "" : "; ") +
                      std::string("above the measured ceiling (operands in cache): the ceiling was raised to it");
    }
}

RooflineView rooflineView(const GemmBenchResult &r)
{
    RooflineView v;
    double lo = 1e300, hi = 0;
    for (const auto &p : r.points) {
        if (p.bound.empty() || !(p.intensity > 0) || !(p.tflops > 0))
            continue;
        v.points.push_back({p.series(), p.bound, p.m, p.intensity, p.tflops, p.fractionOfCeiling});
        if (p.timeMinUs > 0 && p.timeMaxUs >= p.timeMinUs && p.timeUs > 0) {
            v.points.back().tflopsLow = p.tflops * p.timeUs / p.timeMaxUs;
            v.points.back().tflopsHigh = p.tflops * p.timeUs / p.timeMinUs;
        }
        lo = std::min(lo, p.intensity);
        hi = std::max(hi, p.intensity);
    }
    if (!r.peaks || v.points.empty())
        return v;
    lo /= 4, hi *= 4;
    const double bw = r.peaks->copyGbps / 1e3; // TFLOP/s per FLOP/B
    for (const auto &[dtype, peak] : r.peaks->tflops) {
        RooflineView::Ceiling c{dtype, {}, {}};
        const double ridge = peak / bw;
        c.intensity.push_back(lo);
        c.tflops.push_back(std::min(bw * lo, peak));
        if (ridge > lo && ridge < hi) {
            c.intensity.push_back(ridge);
            c.tflops.push_back(peak);
        }
        c.intensity.push_back(hi);
        c.tflops.push_back(std::min(bw * hi, peak));
        v.ceilings.push_back(std::move(c));
    }
    return v;
}

MoeBars moeBars(const GemmBenchResult &r)
{
    MoeBars b;
    for (const auto &p : r.points) {
        if (p.experts <= 1)
            continue;
        const std::string g = p.format + " M=" + std::to_string(p.m);
        auto it = std::find(b.groups.begin(), b.groups.end(), g);
        std::size_t i = static_cast<std::size_t>(it - b.groups.begin());
        if (it == b.groups.end()) {
            b.groups.push_back(g);
            b.loopUs.push_back(0);
            b.batchedUs.push_back(0);
            b.experts.push_back(p.experts);
        }
        (p.launches > 1 ? b.loopUs : b.batchedUs)[i] = p.timeUs;
    }
    return b;
}

std::string defaultPeaksCachePath()
{
    namespace fs = std::filesystem;
    if (const char *x = std::getenv("XDG_CONFIG_HOME"); x && *x)
        return (fs::path(x) / "quantscope" / "gemm_peaks.json").string();
    if (const char *h = std::getenv("HOME"); h && *h)
        return (fs::path(h) / ".config" / "quantscope" / "gemm_peaks.json").string();
    return {};
}

namespace {

nlohmann::json readCache(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        return nlohmann::json::object();
    try {
        nlohmann::json j = nlohmann::json::parse(in);
        if (j.is_object() && j.contains("devices") && j["devices"].is_object())
            return j;
    } catch (const nlohmann::json::exception &) {
    }
    return nlohmann::json::object();
}

} // namespace

std::optional<GemmPeaks> loadCachedPeaks(const std::string &path, const std::string &deviceKey)
{
    if (path.empty() || deviceKey.empty())
        return std::nullopt;
    const nlohmann::json j = readCache(path);
    if (!j.contains("devices") || !j["devices"].contains(deviceKey))
        return std::nullopt;
    try {
        GemmPeaks p = gemmPeaksFromJson(j["devices"][deviceKey]);
        if (p.deviceKey != deviceKey)
            return std::nullopt;
        p.source = "cached (" + path + ")";
        return p;
    } catch (const FormatError &) {
        return std::nullopt;
    }
}

void storePeaks(const std::string &path, const GemmPeaks &p)
{
    namespace fs = std::filesystem;
    if (path.empty())
        throw IoError("GEMM peaks cache: no path (neither XDG_CONFIG_HOME nor HOME is set)");
    nlohmann::json j = readCache(path);
    j["version"] = 1;
    GemmPeaks stored = p;
    stored.source = "measured";
    j["devices"][p.deviceKey] = nlohmann::json::parse(toJson(stored).dump());
    const fs::path target(path);
    std::error_code ec;
    if (target.has_parent_path())
        fs::create_directories(target.parent_path(), ec);
    const fs::path temp = target.parent_path() / ("." + target.filename().string() + ".tmp");
    {
        std::ofstream out(temp, std::ios::trunc);
        out << j.dump(1) << '\n';
        if (!out.flush())
            throw IoError("GEMM peaks cache: cannot write " + temp.string());
    }
    fs::rename(temp, target, ec);
    if (ec) {
        fs::remove(temp, ec);
        throw IoError("GEMM peaks cache: cannot rename to " + path);
    }
}

std::string cpuDeviceKey()
{
    return "cpu: " + std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " threads, Eigen " +
           std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION);
}

GemmPeaks measureCpuPeaks(const CancelToken *cancel)
{
    using Clock = std::chrono::steady_clock;
    GemmPeaks p;
    p.deviceKey = cpuDeviceKey();
    p.source = "measured";
    const std::size_t bytes = 64u << 20;
    std::vector<char> a(bytes, 1), b(bytes, 0);
    double best = 1e300;
    for (int i = 0; i < 5; ++i) {
        if (cancel)
            cancel->check();
        a[static_cast<std::size_t>(i) * 4096] = static_cast<char>(i);
        const auto t0 = Clock::now();
        std::memcpy(b.data(), a.data(), bytes);
        best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    if (b[4096 * 4] != 4)
        throw Error("CPU copy check failed");
    p.copyGbps = 2.0 * static_cast<double>(bytes) / std::max(best, 1e-9) / 1e9;
    using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    double peak = 0;
    for (const Eigen::Index s : {Eigen::Index(1024), Eigen::Index(2048)}) {
        if (cancel)
            cancel->check();
        RowMat x = RowMat::Random(s, s), w = RowMat::Random(s, s), y(s, s);
        double t = 1e300;
        for (int i = 0; i < 2; ++i) {
            const auto t0 = Clock::now();
            y.noalias() = x * w.transpose();
            t = std::min(t, std::chrono::duration<double>(Clock::now() - t0).count());
        }
        peak = std::max(peak, 2.0 * static_cast<double>(s) * s * s / std::max(t, 1e-9) / 1e12);
    }
    p.tflops["fp32"] = peak;
    p.note = "memcpy of 64 MiB (best of 5; read + write bytes); FP32 Eigen GEMM best of 1024³, 2048³";
    return p;
}

} // namespace quantscope
