// SPDX-License-Identifier: MIT
#pragma once
/// What the fused-GEMM benchmarks (gpu_w4a16_fused.cpp, gpu_w4a8_fused.cpp, gpu_fp4_fused.cpp,
/// gpu_w3lr_fused.cpp) share: their options and start (the GPU, the lab's request, its printed
/// run), the GEMM lab's point table, the check of its notes, a CUDA call check and the median of
/// a few timings.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "engine/gemm_bench_device.h"
#include "engine/registry.h"
#include "register.h"
#include "sim/gemm_bench.h"

/// A CUDA runtime call that must succeed (the benchmark ends with status 2 otherwise).
#define QS_BENCH_CK(call)                                                                                              \
    do {                                                                                                               \
        if (cudaError_t e_ = (call); e_ != cudaSuccess) {                                                              \
            std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                                           \
            std::exit(2);                                                                                              \
        }                                                                                                              \
    } while (0)

namespace quantscope::bench {

/// The GEMM lab's points as a table: series, M, time, TFLOP/s, bytes a token, weight roofline,
/// speed-up over BF16 and the note; `width` the series column's.
inline void printGemmPoints(const GemmBenchResult &r, int width = 14)
{
    std::printf("%-*s %6s %10s %9s %10s %8s %8s  %s\n", width, "format", "M", "time_us", "TFLOP/s", "B/token", "W roof",
                "vs bf16", "note");
    for (const auto &p : r.points)
        std::printf("%-*s %6lld %10.2f %9.2f %10.0f %7.0f%% %7.2fx  %s\n", width, p.series().c_str(),
                    static_cast<long long>(p.m), p.timeUs, p.tflops, p.bytesPerToken, 100 * p.weightRooflineFraction,
                    p.speedupVsBf16, p.note.c_str());
    std::fflush(stdout);
}

/// Whether no point's output check failed (the lab writes "FAILED" into the note).
inline bool gemmPointsChecked(const GemmBenchResult &r)
{
    return std::none_of(r.points.begin(), r.points.end(),
                        [](const GemmPoint &p) { return p.note.find("FAILED") != std::string::npos; });
}

/// The median of a few timings (the upper one of an even count; 0 for none).
inline double medianOf(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

/// The median µs of `repeats` calls of f, each between two CUDA events on the default stream,
/// after `warmup` untimed calls.
inline double medianEventUs(const std::function<void()> &f, int repeats, int warmup)
{
    for (int i = 0; i < warmup; ++i)
        f();
    std::vector<cudaEvent_t> ev(2 * static_cast<std::size_t>(repeats));
    for (auto &e : ev)
        QS_BENCH_CK(cudaEventCreate(&e));
    for (int r = 0; r < repeats; ++r) {
        QS_BENCH_CK(cudaEventRecord(ev[2 * r]));
        f();
        QS_BENCH_CK(cudaEventRecord(ev[2 * r + 1]));
    }
    QS_BENCH_CK(cudaDeviceSynchronize());
    std::vector<double> t;
    for (int r = 0; r < repeats; ++r) {
        float ms = 0;
        QS_BENCH_CK(cudaEventElapsedTime(&ms, ev[2 * r], ev[2 * r + 1]));
        t.push_back(1e3 * ms);
    }
    for (auto e : ev)
        cudaEventDestroy(e);
    return medianOf(t);
}

/// Where the GEMM lab caches the roofline's measured ceilings: `out`/gemm_peaks.json (`.` when
/// no output folder was given).
inline std::string peaksCachePath(const std::string &out)
{
    return (std::filesystem::path(out.empty() ? "." : out) / "gemm_peaks.json").string();
}

/// The fused-GEMM benchmarks' options: CommonOptions with N = 4096, K = 14336, 50 repeats and 10
/// warm-ups by default, `--m-sweep LIST` (default `ms`) and `--sweep`; `extra(flag, next)` takes a
/// benchmark's own flags (true when it took one; next() reads the flag's value).
struct FusedBenchArgs {
    CommonOptions opt;
    std::vector<std::int64_t> ms;
    bool sweep = false;
};
inline FusedBenchArgs
parseFusedBenchArgs(int argc, char **argv, std::vector<std::int64_t> ms,
                    const std::function<bool(const std::string &, const std::function<std::string()> &)> &extra = {})
{
    FusedBenchArgs a;
    a.opt.rows = 4096;
    a.opt.cols = 14336;
    a.opt.repeats = 50;
    a.opt.warmup = 10;
    a.ms = std::move(ms);
    for (int i = 1; i < argc; ++i) {
        const std::string f = argv[i];
        const std::function<std::string()> next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (a.opt.take(argc, argv, i))
            continue;
        if (f == "--m-sweep")
            a.ms = parseMSweep(next());
        else if (f == "--sweep")
            a.sweep = true;
        else if (extra)
            extra(f, next);
    }
    return a;
}

/// The GPU backend (its kernels registered), or null after saying why on stderr: no GPU, or the
/// fused kernel `what` not `built` (a HIP build).
inline const Backend *fusedBenchGpu(bool built, const char *what)
{
    registerGpuBackends();
    const Backend *gpu = BackendRegistry::instance().gpu();
    if (!gpu) {
        std::fprintf(stderr, "no GPU: %s\n", BackendRegistry::instance().gpuUnavailableReason().c_str());
        return nullptr;
    }
    if (!built) {
        std::fprintf(stderr, "%s: not built for HIP\n", what);
        return nullptr;
    }
    std::printf("device: %s\n", gpu->info().name.c_str());
    return gpu;
}

/// The lab's request of a fused-GEMM benchmark: N × K, its M, ≥ 20 repeats, the warm-up, the
/// roofline's cache beside the output.
inline GemmBenchRequest fusedLabRequest(const FusedBenchArgs &a, std::vector<GemmFormat> formats)
{
    GemmBenchRequest q;
    q.n = a.opt.rows, q.k = a.opt.cols, q.m = a.ms;
    q.repeats = std::max(20, a.opt.repeats);
    q.warmup = a.opt.warmup;
    q.formats = std::move(formats);
    q.peaksCache = peaksCachePath(a.opt.out);
    return q;
}

/// runGemmBench on the GPU, then its roofline, device note and point table (series column
/// `width`) printed.
inline GemmBenchResult runPrintedLab(const GemmBenchRequest &q, int width = 14)
{
    GemmBenchResult r = runGemmBench(q, DeviceChoice::Gpu);
    if (r.peaks)
        std::printf("roofline (%s): copy %.1f GB/s, bf16 %.1f TFLOP/s\n", r.peaks->source.c_str(), r.peaks->copyGbps,
                    r.peaks->tflops.count("bf16") ? r.peaks->tflops.at("bf16") : 0.0);
    if (!r.deviceNote.empty())
        std::printf("note: %s\n", r.deviceNote.c_str());
    printGemmPoints(r, width);
    return r;
}

/// A fused-GEMM benchmark's JSON beside `out` (nothing without an output folder): the keys they
/// share — benchmark, date, device, N, K, repeats, warm-up, how it timed, whether every output
/// passed its check — with `rest` (its own keys) merged in, written to `out`/`name`.json.
inline void writeFusedDoc(const std::string &out, const std::string &name, const Backend &gpu,
                          const GemmBenchRequest &q, const char *timing, bool ok, const nlohmann::json &rest)
{
    if (out.empty())
        return;
    nlohmann::json doc{{"benchmark", name},  {"date", utcNow()}, {"device", gpu.info().name},
                       {"n", q.n},           {"k", q.k},         {"repeats", q.repeats},
                       {"warmup", q.warmup}, {"timing", timing}, {"outputs_checked", ok}};
    doc.update(rest);
    std::filesystem::create_directories(out);
    std::ofstream(std::filesystem::path(out) / (name + ".json")) << doc.dump(1) << '\n';
}

} // namespace quantscope::bench
