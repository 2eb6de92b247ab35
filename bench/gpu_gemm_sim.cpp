// SPDX-License-Identifier: MIT
// The paired GEMM simulation on the device (issue 19): W [14336, 4096] and X [2048, 4096] BF16
// Student-t (bench::studentTBf16, seeds 42 and 43), W quantized INT4 asym g128 (the CPU
// reference), then W4A8-int8 (per-token INT8 activations, the zero-point term), W4A8-fp8 and
// W4A16 simulated: Y and X·Ŵᵀ in FP64 and the deployment's Ŷ, k in order. Reported: the device
// time of the products (Engine::simulateGemm: uploads of the operands included) and the end-to-end
// wall time of simulateGemm (host decode, factoring, activation quantizer on the device, products);
// bench/gemm_torch.py times PyTorch's matmul of the same shapes (BF16 and FP64) beside it.
// Usage: qs_bench_gpu_gemm [--out DIR] [--repeats N] [--tokens M]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "engine/gemm_device.h"
#include "engine/registry.h"
#include "host/engine.h"
#include "quant/uniform.h"
#include "register.h"
#include "sim/gemm_sim.h"

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
    nlohmann::json results = nlohmann::json::array();
    std::printf("paired GEMM simulation, X [%lld, %lld] · W [%lld, %lld]ᵀ on %s\n", static_cast<long long>(M),
                static_cast<long long>(K), static_cast<long long>(N), static_cast<long long>(K), device->id.c_str());
    for (const char *act : {"int8-token", "fp8-token", "none"}) {
        GemmSimOptions o;
        if (std::string(act) != "none")
            o.act = ActQuantSpec::parse(act);
        o.device = device;
        std::vector<double> wall;
        GemmSimResult r;
        for (int rep = 0; rep < opt.repeats + 1; ++rep) { // the first is a warm-up
            const auto t0 = std::chrono::steady_clock::now();
            r = simulateGemm(x, w, qw, o);
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (rep > 0)
                wall.push_back(ms);
        }
        const bench::Summary sw = bench::summarize(wall);
        std::printf("%-10s %-10s end to end %9.1f ms   rel err output %.6f (weight only %.6f)  device %s%s%s\n",
                    r.scheme.c_str(), act, sw.median, r.relErrOutput, r.relErrWeightOnly, r.device.c_str(),
                    r.deviceNote.empty() ? "" : " — ", r.deviceNote.c_str());
        results.push_back({{"scheme", r.scheme},
                           {"act_quant", act},
                           {"tokens", M},
                           {"n", N},
                           {"k", K},
                           {"end_to_end_median_ms", sw.median},
                           {"end_to_end_min_ms", sw.min},
                           {"repeats", opt.repeats},
                           {"rel_err_output", r.relErrOutput},
                           {"rel_err_weight_only", r.relErrWeightOnly},
                           {"worst_token_rel_err", r.worstTokenRelErr},
                           {"device", r.device},
                           {"device_note", r.deviceNote}});
    }
    const nlohmann::json doc{{"benchmark", "gpu_gemm_sim"},
                             {"work", "Y = X·Wᵀ and X·Ŵᵀ in FP64, Ŷ in the scheme's arithmetic, k in order; "
                                      "activation quantizer on the device; end-to-end wall time of simulateGemm"},
                             {"results", results}};
    const std::string out = opt.out.empty() ? "." : opt.out;
    std::filesystem::create_directories(out);
    std::ofstream(std::filesystem::path(out) / "gpu_gemm_sim.json") << doc.dump(1) << '\n';
    return 0;
}
