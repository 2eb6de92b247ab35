// SPDX-License-Identifier: MIT
#include "sim/gemm_roofline.h"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include <unistd.h>

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
    if (!p.levels.empty()) {
        auto lv = nlohmann::ordered_json::array();
        for (const auto &l : p.levels)
            lv.push_back(nlohmann::ordered_json{{"name", l.name}, {"bytes", l.bytes}, {"gbps", l.gbps}});
        j["levels"] = std::move(lv);
    }
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
        if (j.contains("levels"))
            for (const auto &l : j.at("levels")) {
                GemmMemoryLevel lv{l.at("name").get<std::string>(), l.at("bytes").get<std::int64_t>(),
                                   l.at("gbps").get<double>()};
                if (!(lv.gbps > 0) || lv.bytes < 0)
                    throw FormatError("GEMM peaks: memory level " + lv.name + " needs a positive GB/s");
                p.levels.push_back(std::move(lv));
            }
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

double rooflineCeilingTflops(const GemmPeaks &peaks, const std::string &dtype, double intensity, double gbps)
{
    const auto it = peaks.tflops.find(dtype);
    const double bw = gbps > 0 ? gbps : peaks.copyGbps;
    if (it == peaks.tflops.end() || !(bw > 0))
        return 0;
    return std::min(bw * 1e9 * intensity / 1e12, it->second);
}

const GemmMemoryLevel *memoryLevelFor(const GemmPeaks &peaks, double bytes)
{
    for (const auto &l : peaks.levels)
        if (l.bytes == 0 || bytes <= static_cast<double>(l.bytes))
            return &l;
    return peaks.levels.empty() ? nullptr : &peaks.levels.back();
}

void placeOnRoofline(GemmPoint &p, const GemmPeaks &peaks)
{
    const std::string dtype = gemmPeakDtype(p.format);
    const auto it = peaks.tflops.find(dtype);
    if (it == peaks.tflops.end() || !(p.bytes > 0) || !(peaks.copyGbps > 0))
        return;
    // The working set (X, W and Y once each: the point's bytes) picks the memory level.
    double bw = peaks.copyGbps;
    p.cacheLevel.clear();
    if (const GemmMemoryLevel *level = memoryLevelFor(peaks, p.bytes); level && level->gbps > 0) {
        bw = level->gbps;
        p.cacheLevel = level->name;
    }
    p.intensity = p.flops / p.bytes;
    const double memory = bw * 1e9 * p.intensity / 1e12;
    p.bound = memory < it->second ? "memory" : "compute";
    p.fractionOfCeiling = p.tflops / std::min(memory, it->second);
    // The weights' bytes: the point's bytes less its activations' and outputs' (which do not
    // depend on the group size), at the copy's GB/s, over the time.
    const double e = std::max(p.experts, 1);
    const double weights = p.bytes - e * (gemmBytes(p.format, p.m, p.n, p.k) - gemmBytes(p.format, 0, p.n, p.k));
    if (weights > 0 && p.timeUs > 0)
        p.weightRooflineFraction = weights / (bw * 1e9) / (p.timeUs * 1e-6);
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
        if (!p.cacheLevel.empty() && p.cacheLevel != "DRAM" && p.note.find("cache-resident") == std::string::npos) {
            const GemmMemoryLevel *level = memoryLevelFor(*r.peaks, p.bytes);
            char buf[160];
            std::snprintf(buf, sizeof buf,
                          "cache-resident (%s): X, W and Y (%.0f KiB) fit in %s; its ceiling %.0f GB/s",
                          p.cacheLevel.c_str(), p.bytes / 1024.0, p.cacheLevel.c_str(), level ? level->gbps : 0.0);
            p.note += (p.note.empty() ? "" : "; ") + std::string(buf);
        }
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
        } else if (const GemmMemoryLevel *level = memoryLevelFor(peaks, p.bytes); level && level->bytes > 0) {
            // A cache level's ceiling (the CPU): raise that level's, not DRAM's.
            auto &lv = peaks.levels[static_cast<std::size_t>(level - peaks.levels.data())];
            lv.gbps = std::max(lv.gbps, p.tflops * 1e12 / p.intensity / 1e9);
            raised.push_back(lv.name + " GB/s to " + p.series() + " M=" + std::to_string(p.m));
        } else {
            peaks.copyGbps = std::max(peaks.copyGbps, p.tflops * 1e12 / p.intensity / 1e9);
            if (!peaks.levels.empty())
                peaks.levels.back().gbps = std::max(peaks.levels.back().gbps, peaks.copyGbps);
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
        v.points.push_back({p.series(), p.bound, p.m, p.intensity, p.tflops, p.fractionOfCeiling,
                            p.cacheLevel == "DRAM" ? std::string() : p.cacheLevel});
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
        // The cache levels' memory slopes (the CPU), up to where they meet the peak.
        for (const auto &l : r.peaks->levels) {
            if (l.bytes == 0 || !(l.gbps > 0))
                continue;
            const double lbw = l.gbps / 1e3, lridge = peak / lbw;
            RooflineView::Ceiling lc{dtype + " " + l.name, {lo}, {std::min(lbw * lo, peak)}};
            if (lridge > lo) {
                lc.intensity.push_back(std::min(lridge, hi));
                lc.tflops.push_back(std::min(lbw * std::min(lridge, hi), peak));
                v.ceilings.push_back(std::move(lc));
            }
        }
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

std::int64_t parseCacheSize(const std::string &text)
{
    std::size_t used = 0;
    long long v = 0;
    try {
        v = std::stoll(text, &used);
    } catch (const std::exception &) {
        return 0;
    }
    if (v <= 0)
        return 0;
    std::string unit = text.substr(used);
    while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back())))
        unit.pop_back();
    if (unit.empty())
        return v;
    if (unit.size() > 1 && (unit[1] != 'i' && unit[1] != 'B'))
        return 0;
    switch (std::toupper(static_cast<unsigned char>(unit[0]))) {
    case 'K':
        return v << 10;
    case 'M':
        return v << 20;
    case 'G':
        return v << 30;
    default:
        return 0;
    }
}

std::vector<GemmMemoryLevel> cacheLevelsFromSysfs(const std::string &dir)
{
    namespace fs = std::filesystem;
    std::map<int, std::int64_t> bySize; // level → the data or unified cache's bytes
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return {};
    const auto read = [](const fs::path &f) {
        std::ifstream in(f);
        std::string s;
        std::getline(in, s);
        return s;
    };
    for (const auto &e : fs::directory_iterator(dir, ec)) {
        if (e.path().filename().string().rfind("index", 0) != 0)
            continue;
        const std::string type = read(e.path() / "type");
        if (type == "Instruction")
            continue;
        int level = 0;
        try {
            level = std::stoi(read(e.path() / "level"));
        } catch (const std::exception &) {
            continue;
        }
        const std::int64_t bytes = parseCacheSize(read(e.path() / "size"));
        if (level > 0 && bytes > 0)
            bySize[level] = std::max(bySize[level], bytes);
    }
    std::vector<GemmMemoryLevel> out;
    for (const auto &[level, bytes] : bySize)
        out.push_back({"L" + std::to_string(level), bytes, 0});
    return out;
}

std::vector<GemmMemoryLevel> cpuMemoryLevels()
{
    std::vector<GemmMemoryLevel> levels = cacheLevelsFromSysfs("/sys/devices/system/cpu/cpu0/cache");
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
    if (levels.empty()) {
        const int names[3] = {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE};
        for (int i = 0; i < 3; ++i)
            if (const long b = sysconf(names[i]); b > 0)
                levels.push_back({"L" + std::to_string(i + 1), static_cast<std::int64_t>(b), 0});
    }
#endif
    levels.push_back({"DRAM", 0, 0});
    return levels;
}

std::string cpuDeviceKey()
{
    std::string key = "cpu: " + std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " threads, Eigen " +
                      std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION);
    // The caches in the key: a cached entry measured without per-level ceilings is not reused.
    std::string caches;
    for (const auto &l : cpuMemoryLevels())
        if (l.bytes > 0)
            caches += " " + l.name + " " + std::to_string(l.bytes >> 10) + "K";
    return key + ", caches" + (caches.empty() ? std::string(" unknown") : caches);
}

namespace {

/// Tells the optimiser that memory at `p` may have been read or changed here: a repeated memcpy
/// or a re-read of an unchanged buffer must not be merged into one pass.
inline void clobber(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
    asm volatile("" : : "r"(p) : "memory");
#else
    static const void *volatile sinkPtr;
    sinkPtr = p;
#endif
}

/// GB/s of the better of a memcpy (read + write bytes) and a read (a sum of 64-bit words, four
/// chains) over a working set of `bytes`, each trial moving ≥ 64 MiB, best of `trials`.
double levelGbps(std::size_t bytes, int trials, const CancelToken *cancel)
{
    using Clock = std::chrono::steady_clock;
    bytes = std::max<std::size_t>(bytes & ~std::size_t(63), 256);
    const std::size_t half = bytes / 2, words = bytes / 8;
    std::vector<std::uint64_t> buf(words, 1);
    char *a = reinterpret_cast<char *>(buf.data()), *b = a + half;
    const std::size_t passes = std::max<std::size_t>(1, (std::size_t(64) << 20) / bytes);
    double bestCopy = 1e300, bestRead = 1e300;
    std::uint64_t sink = 0;
    for (int trial = 0; trial < trials; ++trial) {
        if (cancel)
            cancel->check();
        a[trial] = static_cast<char>(trial);
        auto t0 = Clock::now();
        for (std::size_t i = 0; i < passes; ++i) {
            std::memcpy(b, a, half);
            clobber(b);
        }
        bestCopy = std::min(bestCopy, std::chrono::duration<double>(Clock::now() - t0).count());
        sink += static_cast<unsigned char>(b[trial]);
        t0 = Clock::now();
        for (std::size_t i = 0; i < passes; ++i) {
            std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            const std::uint64_t *w = buf.data();
            for (std::size_t j = 0; j + 4 <= words; j += 4)
                s0 += w[j], s1 += w[j + 1], s2 += w[j + 2], s3 += w[j + 3];
            sink += s0 ^ s1 ^ s2 ^ s3;
            clobber(w);
        }
        bestRead = std::min(bestRead, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    if (sink == 0) // never: every word is ≥ 1; keeps the sums alive
        throw Error("CPU bandwidth check failed");
    const double copy = 2.0 * static_cast<double>(half) * passes / std::max(bestCopy, 1e-9) / 1e9;
    const double read = static_cast<double>(words * 8) * passes / std::max(bestRead, 1e-9) / 1e9;
    return std::max(copy, read);
}

} // namespace

GemmPeaks measureCpuPeaks(const CancelToken *cancel)
{
    using Clock = std::chrono::steady_clock;
    GemmPeaks p;
    p.deviceKey = cpuDeviceKey();
    p.source = "measured";
    p.levels = cpuMemoryLevels();
    // Each level at two working sets: twice the level below (just past it, where the level is at
    // its best) and half its capacity (well inside it); DRAM at twice the last cache and at
    // max(128 MiB, 4 × it). The better counts.
    std::string sizes;
    std::size_t below = 0;
    for (auto &l : p.levels) {
        std::vector<std::size_t> sets;
        if (l.bytes == 0) {
            if (below > 0)
                sets.push_back(2 * below);
            sets.push_back(std::max<std::size_t>(std::size_t(128) << 20, 4 * below));
        } else {
            if (below > 0 && 2 * below < static_cast<std::size_t>(l.bytes / 2))
                sets.push_back(2 * below);
            sets.push_back(static_cast<std::size_t>(l.bytes / 2));
            below = static_cast<std::size_t>(l.bytes);
        }
        for (const std::size_t ws : sets) {
            // DRAM is shared with the whole machine: 10 trials find a quiet moment more often.
            l.gbps = std::max(l.gbps, levelGbps(ws, l.bytes == 0 ? 10 : 5, cancel));
            char buf[80];
            std::snprintf(buf, sizeof buf, "%s%s %.0f KiB", sizes.empty() ? "" : ", ", l.name.c_str(), ws / 1024.0);
            sizes += buf;
        }
    }
    p.copyGbps = p.levels.back().gbps;
    using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    double peak = 0;
    // 256³ (best of 10) and 512³ (5): short enough to run between a busy machine's preemptions,
    // and the sizes a small GEMM from cache reaches; 1024³ (3), 2048³ (2).
    for (const Eigen::Index s : {Eigen::Index(256), Eigen::Index(512), Eigen::Index(1024), Eigen::Index(2048)}) {
        if (cancel)
            cancel->check();
        RowMat x = RowMat::Random(s, s), w = RowMat::Random(s, s), y(s, s);
        double t = 1e300;
        for (int i = 0; i < (s == 256 ? 10 : s == 512 ? 5 : s == 1024 ? 3 : 2); ++i) {
            const auto t0 = Clock::now();
            y.noalias() = x * w.transpose();
            t = std::min(t, std::chrono::duration<double>(Clock::now() - t0).count());
        }
        peak = std::max(peak, 2.0 * static_cast<double>(s) * s * s / std::max(t, 1e-9) / 1e12);
    }
    p.tflops["fp32"] = peak;
    p.note = "per memory level the better of a memcpy (read + write bytes) and a read at a working set of " + sizes +
             " (best of 5 trials, DRAM of 10; one thread); FP32 Eigen GEMM best of 256³, 512³, 1024³, 2048³";
    return p;
}

} // namespace quantscope
