// SPDX-License-Identifier: MIT
// MiLo on the device (issue 20): the code preset's loop with 20 passes (inner HQQ milo-code:
// 3-bit, g64, axis 0, FP16 compute; FP16 compensator), ranks 32 and 512, on a 4096×14336 BF16
// Student-t tensor (bench::studentTBf16, seed 42; its 3-bit HQQ residual is what each pass's
// sketch sees) and on real all-MiniLM-L6-v2 matrices (QUANTSCOPE_MINILM, the subset
// scripts/vendor-deps.sh writes). Device
// time from the first pass to Ŵ (events; median of --repeats after a warm-up), the wall time of
// Engine::milo, ε of every pass, the device memory the run asked for against the bound
// (6 × the tensor's FP32 bytes), and a profiled run's stage times summed over the passes.
// bench/milo_torch.py runs the PyTorch loop on the same tensors.
// Usage: qs_bench_gpu_milo [--out DIR] [--repeats N] [--tensor-out FILE] [--ranks 32,512]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "io/checkpoint.h"
#include "host/engine.h"
#include "quant/milo.h"
#include "register.h"

using namespace quantscope;

int main(int argc, char **argv)
{
    registerGpuBackends();
    bench::CommonOptions opt;
    opt.rows = 4096;
    opt.cols = 14336;
    opt.repeats = 3;
    std::string tensorOut;
    std::vector<int> ranks{32, 512};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (opt.take(argc, argv, i))
            continue;
        if (a == "--tensor-out" && i + 1 < argc) {
            tensorOut = argv[++i];
        } else if (a == "--ranks" && i + 1 < argc) { // e.g. 32 for the Nsight run (QS_NCU_MILO)
            ranks.clear();
            const std::string list = argv[++i];
            for (std::size_t p = 0; p < list.size();) {
                const std::size_t e = std::min(list.find(',', p), list.size());
                const int r = std::atoi(list.substr(p, e - p).c_str());
                if (r <= 0) {
                    std::fprintf(stderr, "--ranks: '%s' is not a list of positive ranks\n", list.c_str());
                    return 2;
                }
                ranks.push_back(r);
                p = e + 1;
            }
        }
    }
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    if (!engine) {
        std::fprintf(stderr, "no GPU: %s\n", reason.c_str());
        return 2;
    }
    struct Input {
        std::string name;
        Tensor w;
    };
    std::vector<Input> inputs;
    {
        auto bytes = bench::studentTBf16(opt.rows * opt.cols, 42);
        if (!tensorOut.empty())
            std::ofstream(tensorOut, std::ios::binary)
                .write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        inputs.push_back(
            {"student_t_4096x14336_bf16", Tensor::fromBytes(DType::BF16, {opt.rows, opt.cols}, std::move(bytes))});
    }
    if (const char *m = std::getenv("QUANTSCOPE_MINILM"); m && *m && std::filesystem::exists(m)) {
        const Checkpoint ck = Checkpoint::open(m);
        for (const char *name : {"encoder.layer.0.intermediate.dense.weight", "embeddings.word_embeddings.weight.bf16"})
            if (ck.find(name))
                inputs.push_back({std::string("minilm:") + name, ck.tensor(name)});
    } else {
        std::printf("QUANTSCOPE_MINILM unset or absent: the MiniLM cases are skipped\n");
    }
    nlohmann::json results = nlohmann::json::array();
    for (const Input &in : inputs) {
        auto d = engine->upload(in.w, in.name);
        const auto [N, K] = matrixView(in.w.shape());
        for (const int rank : ranks) {
            {
                MiloSpec spec;
                spec.preset = MiloPreset::Code;
                spec.passes = 20;
                spec.rank = rank;
                // FP16 compute, as the label, the PyTorch loop (bench/milo_torch.py) and MiLo on
                // CUDA (FP16 tensors) run it; MiloSpec's default inner HQQ computes in FP32.
                spec.hqq.compute = HqqCompute::Fp16;
                gpu::MiloDeviceOptions o;
                std::vector<double> dev, wall;
                gpu::MiloDeviceResult last;
                for (int rep = 0; rep < opt.repeats + 1; ++rep) {
                    // The previous repeat's result is freed before the clock starts (assigned over, its
                    // ≈ 70 MB of host vectors were unmapped inside the timed span).
                    last = gpu::MiloDeviceResult{};
                    const auto t0 = std::chrono::steady_clock::now();
                    last = engine->milo(*d, spec, o);
                    const double ms =
                        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                    if (rep > 0) { // the first: warm-up (library handles, workspaces, pool)
                        dev.push_back(last.deviceMs);
                        wall.push_back(ms);
                    }
                }
                const bench::Summary sd = bench::summarize(dev), sw = bench::summarize(wall);
                std::vector<double> eps;
                for (const auto &h : last.quantized.history)
                    eps.push_back(h.eps);
                const double bound = 6.0 * static_cast<double>(N * K) * 4.0;
                const std::string name = in.name + "_r" + std::to_string(rank);
                // One more run with stage marks: where a pass's device time goes (summed over passes).
                engine->profileStages(true);
                engine->recordStart();
                (void)engine->milo(*d, spec, o);
                const auto stages = engine->stageTimes();
                engine->profileStages(false);
                nlohmann::json prof = nlohmann::json::object();
                for (const auto &[stage, ms] : stages)
                    prof[stage] = prof.value(stage, 0.0) + ms;
                std::string profLine;
                for (const auto &[stage, ms] : prof.items())
                    profLine += "  " + stage + " " + std::to_string(ms.get<double>()).substr(0, 7) + " ms";
                std::printf(
                    "%-64s device %8.2f ms  wall %8.2f ms  final eps %.6g  (pass 1 %.6g)  mem %.0f MB = %.2f x FP32  "
                    "householder passes %d  sketch reruns %d  host: setup %.2f ms, after the device's last queued work "
                    "%.2f ms (last pass's codes %s)\n",
                    name.c_str(), sd.median, sw.median, eps.back(), eps.front(), last.deviceBytes / 1e6,
                    last.deviceBytes / (bound / 6.0), last.householderPasses, last.sketchReruns, last.hostSetupMs,
                    last.hostDownloadMs, last.earlyDownload ? "downloaded during its sketch" : "not returned");
                std::printf("    stages:%s\n", profLine.c_str());
                results.push_back({{"case", name},
                                   {"tensor", in.name},
                                   {"rows", N},
                                   {"cols", K},
                                   {"rank", last.quantized.rank},
                                   {"passes", 20},
                                   {"stage_ms_sum_over_passes", prof},
                                   {"device_median_ms", sd.median},
                                   {"wall_median_ms", sw.median},
                                   {"repeats", opt.repeats},
                                   {"eps", eps},
                                   {"final_eps", eps.back()},
                                   {"device_bytes", last.deviceBytes},
                                   {"device_bytes_over_fp32_bytes", last.deviceBytes / (bound / 6.0)},
                                   {"householder_passes", last.householderPasses},
                                   {"sketch_reruns", last.sketchReruns},
                                   {"host_setup_ms_last", last.hostSetupMs},
                                   {"host_after_queue_ms_last", last.hostDownloadMs},
                                   {"early_download", last.earlyDownload}});
            }
        }
    }
    const gpu::EngineInfo info = engine->info();
    const nlohmann::json doc{
        {"benchmark", "gpu_milo"},
        {"device", info.name},
        {"spec", "milo code preset, 20 passes, hqq milo-code 3-bit g64 axis 0 fp16, fp16 compensator"},
        // The fused HQQ iterations' measurement switch (gpu/host/hqq_device.h), as set for this run.
        {"qs_hqq_chunk", std::getenv("QS_HQQ_CHUNK") ? std::getenv("QS_HQQ_CHUNK") : "unset (default)"},
        {"results", results}};
    const std::string out = opt.out.empty() ? "." : opt.out;
    std::filesystem::create_directories(out);
    std::ofstream(std::filesystem::path(out) / "gpu_milo.json") << doc.dump(1) << '\n';
    return 0;
}
