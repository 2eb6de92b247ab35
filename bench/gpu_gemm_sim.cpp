// SPDX-License-Identifier: MIT
// The paired GEMM simulation on the device (issues 19, 44): W [14336, 4096] and X [2048, 4096]
// BF16 Student-t (bench::studentTBf16, seeds 42 and 43), W quantized INT4 asym g128 (the CPU
// reference; the engine's own quantize for the resident runs), then W4A8-int8 (per-token INT8
// activations, the zero-point term), W4A8-fp8 and W4A16 simulated: Y and X·Ŵᵀ in FP64 and the
// deployment's Ŷ, k in order. Reported per scheme, end-to-end wall times (median of --repeats
// after one warm-up):
//   operands  — simulateGemm with a device that only runs the loops (issue 19's path: host decode
//               and factoring, FP32 host copies uploaded, the products);
//   planned   — simulateGemm with the GPU device (host X and W uploaded as stored, everything else
//               on the device: the path `quantize --activation` takes);
//   resident  — X, W and the quantize's Ŵ already on the device (planGemm + the engine's
//               simulateGemmPlanned + the result), Ŵ decoded from the codes or the device's Ŵ, and
//               with the quantize's codes read on the device too (no upload: everything resident);
// and the device times of the resident run's stages (activation quantizer, operand decode,
// products). bench/gemm_torch.py times PyTorch's matmul of the same shapes beside it.
// Usage: qs_bench_gpu_gemm [--out DIR] [--repeats N] [--tokens M]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "engine/gemm_device.h"
#include "engine/registry.h"
#include "host/engine.h"
#include "quant/quant_spec.h"
#include "quant/uniform.h"
#include "register.h"
#include "sim/gemm_sim.h"
#include "util/error.h"

using namespace quantscope;

int main(int argc, char **argv)
{
    registerGpuBackends();
    bench::CommonOptions opt;
    opt.rows = 14336;
    opt.cols = 4096;
    opt.repeats = 3;
    std::int64_t tokens = 2048;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (opt.take(argc, argv, i))
            continue;
        if (a == "--tokens" && i + 1 < argc)
            tokens = std::stoll(argv[++i]);
    }
    const auto device = gemmDevice(DeviceChoice::Gpu);
    if (!device || device->id == "cpu") {
        std::fprintf(stderr, "no GPU: %s\n", BackendRegistry::instance().gpuUnavailableReason().c_str());
        return 2;
    }
    const std::int64_t N = opt.rows, K = opt.cols, M = tokens;
    const Tensor w = Tensor::fromBytes(DType::BF16, {N, K}, bench::studentTBf16(N * K, 42));
    const Tensor x = Tensor::fromBytes(DType::BF16, {M, K}, bench::studentTBf16(M * K, 43));
    IntSpec s;
    s.bits = 4;
    s.group = 128;
    s.symmetric = false;
    QuantizeOptions qo;
    qo.wantDequantized = true;
    const QuantizedTensor qw = IntQuantizer(s).quantize(w, qo);
    // The resident inputs: X and W uploaded once, W quantized by the engine with Ŵ kept on the device.
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    if (!engine) {
        std::fprintf(stderr, "no GPU engine: %s\n", reason.c_str());
        return 2;
    }
    const auto dx = engine->upload(x, "x");
    const auto dw = engine->upload(w, "w");
    const QuantSpec qspec{s};
    gpu::PipelineOptions po;
    po.metrics = false;
    po.wantDequantized = true;
    po.keepDequantizedOnDevice = true;
    auto qrun = engine->enqueue(*dw, &qspec, po);
    QuantizedTensor qdev;
    engine->collect(*qrun, &qdev, nullptr);
    const auto wHatDev = engine->dequantizedOnDevice(*qrun);
    const void *codesDev = engine->codesOnDevice(*qrun); // the same bytes as qdev.codes (collect downloaded them)
    auto operandsOnly = std::make_shared<GemmSimDevice>(*device);
    operandsOnly->simulate = nullptr;

    nlohmann::json results = nlohmann::json::array();
    std::printf("paired GEMM simulation, X [%lld, %lld] · W [%lld, %lld]ᵀ on %s\n", static_cast<long long>(M),
                static_cast<long long>(K), static_cast<long long>(N), static_cast<long long>(K), device->id.c_str());
    auto timeIt = [&](const std::function<GemmSimResult()> &f, GemmSimResult &r) {
        std::vector<double> wall;
        for (int rep = 0; rep < opt.repeats + 1; ++rep) { // the first is a warm-up
            const auto t0 = std::chrono::steady_clock::now();
            r = f();
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (rep > 0)
                wall.push_back(ms);
        }
        return bench::summarize(wall);
    };
    for (const char *act : {"int8-token", "fp8-token", "none"}) {
        GemmSimOptions o;
        if (std::string(act) != "none")
            o.act = ActQuantSpec::parse(act);
        GemmSimResult rOld, rPlanned, rCodes, rHat, rDev;
        o.device = operandsOnly;
        const bench::Summary sOld = timeIt([&] { return simulateGemm(x, w, qw, o); }, rOld);
        o.device = device;
        const bench::Summary sPlanned = timeIt([&] { return simulateGemm(x, w, qw, o); }, rPlanned);
        auto resident = [&](const gpu::GpuTensor *wHat, gpu::GemmSimTimes *times, const void *codes = nullptr) {
            const GemmPlan plan = planGemm(dx->shape(), dw->shape(), qdev, o);
            GemmDeviceRun run;
            std::string why;
            if (!engine->simulateGemmPlanned(*dx, *dw, wHat, qdev, plan, o, run, why, times, codes))
                throw UnsupportedError("the resident simulation declined: " + why);
            return finishPlannedGemm(plan, std::move(run), false);
        };
        const bench::Summary sCodes = timeIt([&] { return resident(nullptr, nullptr); }, rCodes);
        const bench::Summary sHat = timeIt([&] { return resident(wHatDev.get(), nullptr); }, rHat);
        // Everything resident: the quantize's codes read where it left them (no upload).
        const bench::Summary sDev = timeIt([&] { return resident(nullptr, nullptr, codesDev); }, rDev);
        gpu::GemmSimTimes t, tDev;
        (void)resident(nullptr, &t);
        (void)resident(nullptr, &tDev, codesDev);
        const double products = 3.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
        std::printf("%-10s %-10s operands %8.1f ms  planned %8.1f ms  resident %7.1f ms (device Ŵ %7.1f ms, codes on "
                    "the device %7.1f ms: operands %.2f ms)  "
                    "device: act %.2f ms, operands %.2f ms, products %.2f ms (%.2f T steps/s)  rel err %.6f (weight "
                    "only %.6f)%s%s\n",
                    rOld.scheme.c_str(), act, sOld.median, sPlanned.median, sCodes.median, sHat.median, sDev.median,
                    static_cast<double>(tDev.operandsMs), static_cast<double>(t.activationsMs),
                    static_cast<double>(t.operandsMs), static_cast<double>(t.productsMs),
                    products / (static_cast<double>(t.productsMs) * 1e9), rCodes.relErrOutput, rCodes.relErrWeightOnly,
                    rPlanned.deviceNote.empty() ? "" : " — ", rPlanned.deviceNote.c_str());
        // The paths compute the same thing: the same scheme, errors equal to 1e-12.
        auto same = [](double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(std::abs(b), 1e-300); };
        const bool agree = rOld.scheme == rCodes.scheme && same(rPlanned.relErrOutput, rOld.relErrOutput) &&
                           same(rCodes.relErrOutput, rOld.relErrOutput) && same(rHat.relErrOutput, rOld.relErrOutput) &&
                           same(rDev.relErrOutput, rOld.relErrOutput) &&
                           same(rCodes.relErrWeightOnly, rOld.relErrWeightOnly);
        if (!agree)
            std::printf("  the paths disagree: %.17g %.17g %.17g %.17g\n", rOld.relErrOutput, rPlanned.relErrOutput,
                        rCodes.relErrOutput, rHat.relErrOutput);
        results.push_back({{"scheme", rOld.scheme},
                           {"act_quant", act},
                           {"tokens", M},
                           {"n", N},
                           {"k", K},
                           {"operands_end_to_end_median_ms", sOld.median},
                           {"operands_end_to_end_min_ms", sOld.min},
                           {"planned_end_to_end_median_ms", sPlanned.median},
                           {"planned_end_to_end_min_ms", sPlanned.min},
                           {"resident_end_to_end_median_ms", sCodes.median},
                           {"resident_end_to_end_min_ms", sCodes.min},
                           {"resident_device_what_median_ms", sHat.median},
                           {"resident_device_codes_median_ms", sDev.median},
                           {"resident_device_codes_min_ms", sDev.min},
                           {"device_codes_operands_ms", tDev.operandsMs},
                           {"device_activations_ms", t.activationsMs},
                           {"device_operands_ms", t.operandsMs},
                           {"device_products_ms", t.productsMs},
                           {"fp64_steps", 2.0 * products / 3.0},
                           {"repeats", opt.repeats},
                           {"paths_agree", agree},
                           {"rel_err_output", rCodes.relErrOutput},
                           {"rel_err_weight_only", rCodes.relErrWeightOnly},
                           {"worst_token_rel_err", rCodes.worstTokenRelErr},
                           {"device", rPlanned.device},
                           {"device_note", rPlanned.deviceNote}});
    }
    const nlohmann::json doc{{"benchmark", "gpu_gemm_sim"},
                             {"work", "Y = X·Wᵀ and X·Ŵᵀ in FP64, Ŷ in the scheme's arithmetic, k in order; "
                                      "end-to-end wall times of the operand path, the planned path from host "
                                      "tensors and the resident path, and the resident run's device stages"},
                             {"results", results}};
    const std::string out = opt.out.empty() ? "." : opt.out;
    std::filesystem::create_directories(out);
    std::ofstream(std::filesystem::path(out) / "gpu_gemm_sim.json") << doc.dump(1) << '\n';
    return 0;
}
