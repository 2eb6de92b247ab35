// SPDX-License-Identifier: MIT
// AWQ's scale search on the device (docs/numerics.md "AWQ on the GPU"; issue 46: 20 grid points
// on a 14336×4096 layer in ≤ 20 ms of device time): W a BF16 Student-t tensor (bench::studentTBf16,
// seed 42), X the sample rows (normal, every 97th channel ×20, seed 46: the CPU benchmark's
// activations), INT4 g128 symmetric, duo scaling on. Per row count: Engine::awq with W resident,
// timed as device time (x̄/w̄ + the grid + the stored result, events on the engine's stream) and as
// the whole call on the host (the sample's upload, the host's s of every point, the downloads of
// codes and scales). --cpu also runs AwqQuantizer on the CPU once per row count and records the largest
// relative loss difference and whether the best point, codes, scales, zero points and s* agree.
// Each row count also runs the grid with the one-block-per-row kernel (AwqDeviceOptions::genericRows)
// for the comparison with the team kernel the layout takes (the same bits: checked and recorded).
// --tensor-out DIR writes w_bf16.bin and x_f32.bin (the largest row count; a smaller one is its
// first rows) for bench/awq_torch.py.
// Usage: qs_bench_gpu_awq [--out DIR] [--repeats N] [--n N] [--k K] [--rows R[,R…]] [--grid G]
//        [--group G] [--tensor-out DIR] [--cpu]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "host/engine.h"
#include "quant/data_aware.h"
#include "register.h"

using namespace quantscope;

namespace {

std::vector<std::int64_t> parseList(const std::string &s)
{
    std::vector<std::int64_t> v;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');)
        if (!item.empty())
            v.push_back(std::stoll(item));
    return v;
}

std::vector<float> sampleRows(std::int64_t rows, std::int64_t k)
{
    std::mt19937_64 rng(46);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> x(static_cast<std::size_t>(rows * k));
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t j = 0; j < k; ++j)
            x[static_cast<std::size_t>(r * k + j)] = nd(rng) * (j % 97 == 0 ? 20.0f : 1.0f);
    return x;
}

template <typename T> void writeRaw(const std::filesystem::path &p, const T *d, std::size_t n)
{
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char *>(d), static_cast<std::streamsize>(n * sizeof(T)));
}

} // namespace

int main(int argc, char **argv)
{
    registerGpuBackends();
    std::string out = ".", tensorOut;
    int repeats = 10, grid = 20;
    std::int64_t N = 14336, K = 4096, group = 128;
    std::vector<std::int64_t> rowCounts{64, 256, 512};
    bool cpu = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : std::string(); };
        if (a == "--out")
            out = next();
        else if (a == "--repeats")
            repeats = std::max(1, std::stoi(next()));
        else if (a == "--n")
            N = std::stoll(next());
        else if (a == "--k")
            K = std::stoll(next());
        else if (a == "--rows")
            rowCounts = parseList(next());
        else if (a == "--grid")
            grid = std::stoi(next());
        else if (a == "--group")
            group = std::stoll(next());
        else if (a == "--tensor-out")
            tensorOut = next();
        else if (a == "--cpu")
            cpu = true;
        else {
            std::fprintf(stderr, "unknown option %s\n", a.c_str());
            return 2;
        }
    }
    if (rowCounts.empty()) {
        std::fprintf(stderr, "--rows needs at least one count\n");
        return 2;
    }
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    if (!engine) {
        std::fprintf(stderr, "no GPU: %s\n", reason.c_str());
        return 2;
    }
    const std::int64_t maxRows = *std::max_element(rowCounts.begin(), rowCounts.end());
    const Tensor w = Tensor::fromBytes(DType::BF16, {N, K}, bench::studentTBf16(N * K, 42));
    const std::vector<float> xAll = sampleRows(maxRows, K);
    if (!tensorOut.empty()) {
        std::filesystem::create_directories(tensorOut);
        writeRaw(std::filesystem::path(tensorOut) / "w_bf16.bin", w.data(), static_cast<std::size_t>(w.numel() * 2));
        writeRaw(std::filesystem::path(tensorOut) / "x_f32.bin", xAll.data(), xAll.size());
    }
    AwqSpec spec;
    spec.quant.granularity = Granularity::Group;
    spec.quant.group = group;
    spec.grid = grid;
    spec.validate();
    auto dw = engine->upload(w, "w");
    gpu::AwqDeviceOptions ao;
    ao.wantCodes = true;
    std::printf("W %lld x %lld BF16 on the device, INT4 g%lld, %d grid points, duo scaling on\n",
                static_cast<long long>(N), static_cast<long long>(K), static_cast<long long>(group), grid);

    nlohmann::json results = nlohmann::json::array();
    for (const std::int64_t R : rowCounts) {
        Calibration cal;
        cal.module = "bench";
        cal.source = "bench";
        cal.k = K;
        cal.sampleRows = R;
        cal.sample.assign(xAll.begin(), xAll.begin() + R * K);
        std::vector<double> device, means, gridMs, finalMs, wall;
        gpu::AwqDeviceResult last;
        for (int rep = 0; rep < repeats + 1; ++rep) { // the first run warms the pool and cuBLAS
            const auto t0 = std::chrono::steady_clock::now();
            gpu::AwqDeviceResult r = engine->awq(*dw, spec, cal, ao);
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (rep > 0) {
                device.push_back(r.meansMs + r.gridMs + r.finalMs);
                means.push_back(r.meansMs);
                gridMs.push_back(r.gridMs);
                finalMs.push_back(r.finalMs);
                wall.push_back(ms);
            }
            last = std::move(r);
        }
        const bench::Summary sd = bench::summarize(device), sw = bench::summarize(wall);
        const int best = last.quantized.report.at("best").get<int>();
        std::printf("R = %4lld: device %8.3f ms (x̄/w̄ %.3f, grid %.3f, stored %.3f), whole call %8.3f ms, best "
                    "point %d\n",
                    static_cast<long long>(R), sd.median, bench::summarize(means).median,
                    bench::summarize(gridMs).median, bench::summarize(finalMs).median, sw.median, best);
        // The same search with every rows pass by the generic kernel.
        gpu::AwqDeviceOptions go = ao;
        go.genericRows = true;
        std::vector<double> genericDevice, genericGrid, genericFinal;
        gpu::AwqDeviceResult generic;
        for (int rep = 0; rep < repeats + 1; ++rep) {
            gpu::AwqDeviceResult r = engine->awq(*dw, spec, cal, go);
            if (rep > 0) {
                genericDevice.push_back(r.meansMs + r.gridMs + r.finalMs);
                genericGrid.push_back(r.gridMs);
                genericFinal.push_back(r.finalMs);
            }
            generic = std::move(r);
        }
        const bool genericSame = generic.quantized.report.at("grid") == last.quantized.report.at("grid") &&
                                 generic.quantized.codes == last.quantized.codes &&
                                 generic.quantized.scales == last.quantized.scales &&
                                 generic.quantized.outerScales == last.quantized.outerScales;
        std::printf("    generic rows kernel: device %8.3f ms (grid %.3f, stored %.3f); losses, codes, scales and "
                    "s* %s\n",
                    bench::summarize(genericDevice).median, bench::summarize(genericGrid).median,
                    bench::summarize(genericFinal).median, genericSame ? "the same bits" : "DIFFERENT");
        const double flops = 2.0 * static_cast<double>(R) * static_cast<double>(N) * static_cast<double>(K) *
                             static_cast<double>(last.quantized.report.at("grid").size());
        nlohmann::json entry{{"rows", R},
                             {"device_median_ms", sd.median},
                             {"device_min_ms", sd.min},
                             {"device_p90_ms", sd.p90},
                             {"means_median_ms", bench::summarize(means).median},
                             {"grid_median_ms", bench::summarize(gridMs).median},
                             {"stored_median_ms", bench::summarize(finalMs).median},
                             {"wall_median_ms", sw.median},
                             {"wall_min_ms", sw.min},
                             {"dgemm_fp64_flop", flops},
                             {"best", best},
                             {"grid", last.quantized.report.at("grid")},
                             {"generic_rows",
                              {{"device_median_ms", bench::summarize(genericDevice).median},
                               {"grid_median_ms", bench::summarize(genericGrid).median},
                               {"stored_median_ms", bench::summarize(genericFinal).median},
                               {"same_bits", genericSame}}}};
        if (cpu) {
            QuantizeOptions qo;
            qo.tensorName = "w";
            qo.wantDequantized = false;
            qo.calibration = std::make_shared<const Calibration>(cal);
            const auto c0 = std::chrono::steady_clock::now();
            const QuantizedTensor c = AwqQuantizer(spec).quantize(w, qo);
            const double cms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0).count();
            double worst = 0;
            const auto &cg = c.report.at("grid"), &gg = last.quantized.report.at("grid");
            for (std::size_t i = 0; i < cg.size(); ++i) {
                const double lc = cg[i].at("loss").get<double>(), lg = gg[i].at("loss").get<double>();
                worst = std::max(worst, std::fabs(lg - lc) / lc);
            }
            const bool sameBest = c.report.at("best") == last.quantized.report.at("best");
            const bool sameCodes = c.codes == last.quantized.codes, sameScales = c.scales == last.quantized.scales,
                       sameZeros = c.zeros == last.quantized.zeros, sameS = c.outerScales == last.quantized.outerScales;
            std::printf("    CPU %.0f ms: worst loss difference %.3g relative; best %s, codes %s, scales %s, s* %s\n",
                        cms, worst, sameBest ? "equal" : "DIFFERENT", sameCodes ? "equal" : "DIFFERENT",
                        sameScales ? "equal" : "DIFFERENT", sameS ? "equal" : "DIFFERENT");
            entry["cpu"] = {{"ms", cms},
                            {"worst_loss_rel_diff", worst},
                            {"best_equal", sameBest},
                            {"codes_equal", sameCodes},
                            {"scales_equal", sameScales},
                            {"zeros_equal", sameZeros},
                            {"s_star_equal", sameS}};
        }
        results.push_back(entry);
    }
    const gpu::EngineInfo info = engine->info();
    const nlohmann::json doc{{"benchmark", "gpu_awq"},
                             {"date", bench::utcNow()},
                             {"device", info.name},
                             {"n", N},
                             {"k", K},
                             {"group", group},
                             {"bits", 4},
                             {"n_grid", grid},
                             {"duo_scaling", "on"},
                             {"w", "studentTBf16 seed 42, BF16, resident on the device"},
                             {"x", "normal seed 46, every 97th channel x20, FP32 (the first R rows)"},
                             {"loss", "FP64: X·Dᵀ by cuBLAS DGEMM, D = W − Ŵ(s), fixed-order sum of squares"},
                             {"device_ms", "x̄/w̄ + grid (from the upload of every point's s) + stored result "
                                           "(events); the host's s, computed between x̄/w̄ and the grid, is in wall_ms"},
                             {"repeats", repeats},
                             {"results", results}};
    std::filesystem::create_directories(out);
    std::ofstream(std::filesystem::path(out) / "gpu_awq.json") << doc.dump(1) << '\n';
    return 0;
}
