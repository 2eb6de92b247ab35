// SPDX-License-Identifier: MIT
// GPTQ on the device (issue 46): a 14336 × 4096 BF16 weight (bench::studentTBf16, seed 42, the
// tensor the other GPU benchmarks use) with a 4096² Hessian H = 2·XᵀX/R from R = 512 seeded
// calibration rows (Student-t, ν = 4, outlier channels ×20: what a capture's Gram looks like),
// G rounded to FP32 as a capture stores it. Per configuration (4-bit g128 symmetric; asymmetric
// with act order static): Engine::gptq's device time from H on the device to the codes (events:
// U by cuSOLVER, the column blocks, the lazy-batch updates, the scatter), the factor's share, and
// the whole call's wall time (the observer, H's upload, the download of the codes), the median of
// --repeats after a warm-up. --tensor-out / --x-out write W (BF16) and X (FP32) for
// bench/gptq_torch.py, which times llm-compressor's own GPTQ on the same W and H.
// Usage: qs_bench_gpu_gptq [--out DIR] [--rows N] [--cols K] [--samples R] [--repeats N]
//            [--tensor-out FILE] [--x-out FILE]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "host/engine.h"
#include "kernels/kernels_gptq.h"
#include "quant/data_aware.h"
#include "register.h"

using namespace quantscope;

namespace {

/// G = XᵀX / R in FP64 (rows of G split over the host's threads), rounded to FP32.
std::vector<double> gramOf(const std::vector<float> &x, std::int64_t r, std::int64_t k)
{
    std::vector<double> xt(static_cast<std::size_t>(r * k));
    for (std::int64_t i = 0; i < r; ++i)
        for (std::int64_t j = 0; j < k; ++j)
            xt[j * r + i] = x[i * k + j];
    std::vector<double> g(static_cast<std::size_t>(k * k));
    const int nt = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (int t = 0; t < nt; ++t)
        pool.emplace_back([&, t] {
            for (std::int64_t i = t; i < k; i += nt)
                for (std::int64_t j = 0; j <= i; ++j) {
                    const double *a = &xt[i * r], *b = &xt[j * r];
                    double s = 0;
                    for (std::int64_t q = 0; q < r; ++q)
                        s += a[q] * b[q];
                    const auto v = static_cast<double>(static_cast<float>(s / static_cast<double>(r)));
                    g[i * k + j] = v;
                    g[j * k + i] = v;
                }
        });
    for (auto &th : pool)
        th.join();
    return g;
}

} // namespace

int main(int argc, char **argv)
{
    registerGpuBackends();
    bench::CommonOptions opt;
    opt.repeats = 5;
    std::int64_t samples = 512;
    std::string tensorOut, xOut;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (opt.take(argc, argv, i))
            continue;
        if (a == "--samples" && i + 1 < argc)
            samples = std::stoll(argv[++i]);
        else if (a == "--tensor-out" && i + 1 < argc)
            tensorOut = argv[++i];
        else if (a == "--x-out" && i + 1 < argc)
            xOut = argv[++i];
    }
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    if (!engine) {
        std::fprintf(stderr, "no GPU: %s\n", reason.c_str());
        return 2;
    }
    const std::int64_t N = opt.rows, K = opt.cols;
    auto bytes = bench::studentTBf16(N * K, 42);
    if (!tensorOut.empty())
        std::ofstream(tensorOut, std::ios::binary)
            .write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    const Tensor w = Tensor::fromBytes(DType::BF16, {N, K}, std::move(bytes));
    std::vector<float> x(static_cast<std::size_t>(samples * K));
    {
        std::mt19937_64 rng(7);
        std::student_t_distribution<float> t(4.0f);
        for (std::int64_t i = 0; i < samples; ++i)
            for (std::int64_t j = 0; j < K; ++j)
                x[i * K + j] = t(rng) * (j % 97 == 11 ? 20.0f : 1.0f);
    }
    if (!xOut.empty())
        std::ofstream(xOut, std::ios::binary)
            .write(reinterpret_cast<const char *>(x.data()), static_cast<std::streamsize>(x.size() * 4));
    Calibration cal;
    cal.module = "bench";
    cal.source = "synthetic";
    cal.k = K;
    cal.tokens = samples;
    const auto t0 = std::chrono::steady_clock::now();
    cal.gram = gramOf(x, samples, K);
    const double gramS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("GPTQ on %lldx%lld BF16, H from %lld rows (host Gram %.2f s)\n", static_cast<long long>(N),
                static_cast<long long>(K), static_cast<long long>(samples), gramS);
    auto d = engine->upload(w, "student_t_bf16");
    struct Case {
        std::string name;
        nlohmann::json spec;
    };
    const std::vector<Case> cases = {
        {"4-bit g128 sym", {{"method", "gptq"}, {"bits", 4}, {"granularity", "group"}, {"group", 128}}},
        {"4-bit g128 asym act order static",
         {{"method", "gptq"},
          {"bits", 4},
          {"granularity", "group"},
          {"group", 128},
          {"symmetric", false},
          {"actorder", "static"}}},
    };
    // The kernels' variants (kernels_gptq.h gptqSetVariant; the same bits): device time of each.
    nlohmann::json variants = nlohmann::json::array();
    {
        const GptqSpec spec = GptqSpec::fromJson(cases[0].spec);
        gpu::GptqDeviceOptions o;
        std::vector<std::uint8_t> ref;
        for (int b = 0; b < 3; ++b)
            for (int l = 0; l < 4; ++l) {
                if (b != 0 && l != 0)
                    continue;
                gpu::launch::gptqSetVariant(b, l);
                engine->gptq(*d, spec, cal, o);
                engine->profileStages(true);
                const gpu::GptqDeviceResult r = engine->gptq(*d, spec, cal, o);
                std::map<std::string, double> st;
                for (const auto &[name, ms] : engine->stageTimes())
                    st[name] += ms;
                engine->profileStages(false);
                const bool same = ref.empty() || r.quantized.codes == ref;
                if (ref.empty())
                    ref = r.quantized.codes;
                std::printf("variant block %d lazy %d: device %.2f ms (blocks %.2f, lazy %.2f)%s\n", b, l, r.deviceMs,
                            st["GPTQ column blocks"], st["GPTQ lazy-batch updates"], same ? "" : "  CODES DIFFER");
                variants.push_back(
                    {{"block", b}, {"lazy", l}, {"device_ms", r.deviceMs}, {"stages_ms", st}, {"same_codes", same}});
            }
        gpu::launch::gptqSetVariant(0, 0);
    }
    nlohmann::json results = nlohmann::json::array();
    for (const Case &c : cases) {
        const GptqSpec spec = GptqSpec::fromJson(c.spec);
        gpu::GptqDeviceOptions o;
        o.wantCodes = true;
        engine->gptq(*d, spec, cal, o); // warm-up (cuSOLVER's workspaces, the kernels' first launch)
        std::vector<double> wall, dev, factor;
        double loss = 0;
        for (int rep = 0; rep < opt.repeats; ++rep) {
            const auto a = std::chrono::steady_clock::now();
            const gpu::GptqDeviceResult r = engine->gptq(*d, spec, cal, o);
            wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
            dev.push_back(r.deviceMs);
            factor.push_back(r.factorMs);
            loss = r.quantized.report.value("loss", 0.0);
        }
        // One profiled run (events after each stage, summed by stage) and one with cuSOLVER's trtri.
        engine->profileStages(true);
        engine->gptq(*d, spec, cal, o);
        std::map<std::string, double> stages;
        for (const auto &[name, ms] : engine->stageTimes())
            stages[name] += ms;
        engine->profileStages(false);
        gpu::GptqDeviceOptions ot = o;
        ot.inverse = gpu::GptqInverse::Trtri;
        const gpu::GptqDeviceResult tr = engine->gptq(*d, spec, cal, ot);
        const auto sw = bench::summarize(wall), sd = bench::summarize(dev), sf = bench::summarize(factor);
        for (const auto &[name, ms] : stages)
            std::printf("    %-28s %8.3f ms\n", name.c_str(), ms);
        std::printf("    with cuSOLVER's trtri instead of trsm: device %.2f ms (U %.2f ms)\n", tr.deviceMs,
                    tr.factorMs);
        std::printf("%-36s device %8.2f ms (U %6.2f ms)  whole call %8.2f ms  loss %.6g\n", c.name.c_str(), sd.median,
                    sf.median, sw.median, loss);
        results.push_back({{"case", c.name},
                           {"spec", c.spec},
                           {"device_ms", sd.median},
                           {"device_ms_min", sd.min},
                           {"factor_ms", sf.median},
                           {"whole_call_ms", sw.median},
                           {"stages_ms", stages},
                           {"trtri_device_ms", tr.deviceMs},
                           {"trtri_factor_ms", tr.factorMs},
                           {"loss", loss}});
    }
    const auto info = engine->info();
    nlohmann::json out = {
        {"benchmark", "gpu_gptq"}, {"date", bench::utcNow()}, {"gpu", info.name},  {"rows", N}, {"cols", K},
        {"samples", samples},      {"repeats", opt.repeats},  {"results", results}};
    if (!opt.out.empty()) {
        std::filesystem::create_directories(opt.out);
        std::ofstream(std::filesystem::path(opt.out) / "gpu_gptq.json") << out.dump(1) << "\n";
    }
    return 0;
}
