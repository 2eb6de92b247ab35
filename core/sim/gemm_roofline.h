// SPDX-License-Identifier: MIT
#pragma once
/// \file gemm_roofline.h
/// The GEMM timing lab's roofline (issue 22): ceilings measured once per device — a large
/// device copy (GB/s) and per dtype the best of a fixed set of large GEMMs (TFLOP/s) — cached per
/// device key in a small JSON file in the user's settings, and each point placed on them:
/// intensity = FLOPs / bytes, ceiling(I) = min(copy GB/s · I, peak TFLOP/s), bound = the lower
/// of the two, fraction = achieved FLOP/s / ceiling(I). Qt-free (the app passes its own path).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/gemm_bench.h"

namespace quantscope {

nlohmann::ordered_json toJson(const GemmPeaks &p);
/// FormatError on a malformed document.
GemmPeaks gemmPeaksFromJson(const nlohmann::json &j);

/// TFLOP/s the roofline allows at `intensity` (FLOP/byte) for `dtype`: min(copy · I, peak);
/// 0 when the peaks lack the dtype. `gbps` > 0 replaces the copy's GB/s (a cache level's).
double rooflineCeilingTflops(const GemmPeaks &peaks, const std::string &dtype, double intensity, double gbps = 0);
/// The memory level a working set of `bytes` runs from: the first of peaks.levels whose capacity
/// holds it (a level of capacity 0, DRAM, holds any); nullptr when the peaks have no levels.
const GemmMemoryLevel *memoryLevelFor(const GemmPeaks &peaks, double bytes);
/// Sets intensity, bound and fractionOfCeiling of every point whose dtype (gemmPeakDtype) has a
/// ceiling; points without one keep bound "". With per-level ceilings (peaks.levels) a point's
/// memory ceiling is the bandwidth of the level its bytes (X + W + Y) fit in (cacheLevel), and
/// the result's points below DRAM say "cache-resident (L2)" in their note.
void placeOnRoofline(GemmBenchResult &r);
void placeOnRoofline(GemmPoint &p, const GemmPeaks &peaks);

/// What the GEMM timing view's roofline draws (prepared here; the plot computes nothing): per
/// dtype with a ceiling its polyline (log-log: the memory slope up to the ridge, then flat) over
/// the points' intensity range widened 4× each way, and each placed point with its bound.
struct RooflineView {
    struct Ceiling {
        std::string dtype; ///< "bf16", …; a cache level's memory slope: "fp32 L2" (the CPU)
        std::vector<double> intensity, tflops;
    };
    struct Point {
        std::string series, bound;
        std::int64_t m = 0;
        double intensity = 0, tflops = 0, fraction = 0;
        std::string level; ///< the point's memory level below DRAM ("L1", "L2", "L3"; "": DRAM / one level)
        /// TFLOP/s of the slowest and the fastest timed run (0: no spread measured).
        double tflopsLow = 0, tflopsHigh = 0;
    };
    std::vector<Ceiling> ceilings;
    std::vector<Point> points; ///< only the points with a bound
};
RooflineView rooflineView(const GemmBenchResult &r);

/// The MoE comparison as grouped bars: one group per (format, M) in MoE mode, the loop's and the
/// strided-batched call's time per step (0 where a mode did not run).
struct MoeBars {
    std::vector<std::string> groups; ///< "bf16 M=16"
    std::vector<double> loopUs, batchedUs;
    std::vector<int> experts;
};
MoeBars moeBars(const GemmBenchResult &r);

/// $XDG_CONFIG_HOME/quantscope/gemm_peaks.json, else ~/.config/quantscope/gemm_peaks.json ("" when
/// neither variable is set).
std::string defaultPeaksCachePath();
/// The cached peaks of `deviceKey` from the file (source "cached (PATH)"); nullopt when the file
/// or the entry is absent or unreadable (a damaged cache is remeasured, never fatal).
std::optional<GemmPeaks> loadCachedPeaks(const std::string &path, const std::string &deviceKey);
/// Adds or replaces p.deviceKey's entry, keeping the others; written to a temporary file and
/// renamed. IoError naming the path when it cannot be written.
void storePeaks(const std::string &path, const GemmPeaks &p);

/// "48K" → 49152, "2048K", "32M", "1G", "65536"; 0 when it is not a size.
std::int64_t parseCacheSize(const std::string &text);
/// The data (or unified) caches a sysfs cache directory lists (/sys/devices/system/cpu/cpu0/cache:
/// index*/level, type, size), one per level, smallest level first, named "L1", "L2", …, gbps 0;
/// empty when the directory is absent or lists none.
std::vector<GemmMemoryLevel> cacheLevelsFromSysfs(const std::string &dir);
/// This CPU's cache levels (sysfs, else sysconf's _SC_LEVEL{1_D,2,3}_CACHE_SIZE) then "DRAM"
/// (bytes 0); gbps 0. Only "DRAM" when neither reports a cache.
std::vector<GemmMemoryLevel> cpuMemoryLevels();

/// The CPU's cache key: "cpu: T threads, Eigen X.Y, L1 48K L2 2048K …".
std::string cpuDeviceKey();
/// The CPU's ceilings: per memory level (cpuMemoryLevels) the better of a memcpy and a read at a
/// working set of half its capacity and at twice the level below's (where that is smaller), the
/// best of those (DRAM: twice the last cache and max(128 MiB, 4 × it), best of 10 trials), best of 5 trials each;
/// copyGbps = DRAM's; and the FP32 Eigen GEMM's best of 256³, 512³, 1024³ and 2048³ (dtype "fp32").
/// Single-threaded, as the CPU's GEMMs are (Eigen without OpenMP). Throws Cancelled.
GemmPeaks measureCpuPeaks(const CancelToken *cancel = nullptr);

} // namespace quantscope
