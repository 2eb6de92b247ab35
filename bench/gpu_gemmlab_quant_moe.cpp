// SPDX-License-Identifier: MIT
// The GEMM timing lab II on the device (issue 22), exactly as `quantscope-cli gemm-bench` runs it
// (runGemmBench on the GPU backend):
//   1. the roofline's ceilings measured in this run (--remeasure: the cache is not used): the
//      device copy's GB/s and per dtype the best of the fixed large GEMMs;
//   2. the quantized-weight paths w4a16 (g128 and per channel), w4a8-int8, w4a8-fp8, w8a8-fp8 on
//      N = 4096, K = 14336 (--rows N --cols K) over the default M sweep, the weights quantized by
//      the engine from a seeded N(0, 0.02) tensor, each point on the roofline;
//   3. MoE: 16 experts × (M = 16, N = 2048, K = 7168) BF16 and FP8, a loop of per-expert launches
//      vs one strided-batched launch (the bar: strided-batched BF16 ≤ 0.20 ms per step).
// bench/gemm_lab_quant_moe_torch.py times PyTorch's ways beside it (bmm, the matmul loop, a device copy,
// W4A16 dequantize + matmul) and compares.
// Usage: qs_bench_gpu_gemmlab_quant_moe [--out DIR] [--rows N] [--cols K] [--repeats R] [--warmup W]
//                              [--m-sweep LIST] [--experts E] [--moe-m M] [--moe-shape N,K]
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "gemm_bench_common.h"
#include "sim/gemm_roofline.h"

using namespace quantscope;

namespace {

void print(const GemmBenchResult &r)
{
    std::printf("%-22s %6s %10s %9s %9s %8s %16s  %s\n", "format", "M", "time_us", "TFLOP/s", "GB/s", "FLOP/B", "bound",
                "note");
    for (const auto &p : r.points) {
        char bound[40] = "-";
        if (!p.bound.empty())
            std::snprintf(bound, sizeof bound, "%s %.0f%%", p.bound.c_str(), 100 * p.fractionOfCeiling);
        std::printf("%-22s %6lld %10.2f %9.1f %9.1f %8.1f %16s  %s\n", p.series().c_str(), static_cast<long long>(p.m),
                    p.timeUs, p.tflops, p.gbps, p.intensity, bound, p.note.c_str());
    }
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv)
{
    int experts = 16;
    std::int64_t moeM = 16, moeN = 2048, moeK = 7168;
    const bench::FusedBenchArgs args = bench::parseFusedBenchArgs(
        argc, argv, defaultMSweep(), [&](const std::string &a, const std::function<std::string()> &next) {
            if (a == "--experts") {
                experts = std::stoi(next());
            } else if (a == "--moe-m") {
                moeM = std::stoll(next());
            } else if (a == "--moe-shape") {
                const std::string s = next();
                moeN = std::stoll(s.substr(0, s.find(',')));
                moeK = std::stoll(s.substr(s.find(',') + 1));
            } else {
                return false;
            }
            return true;
        });
    const bench::CommonOptions &opt = args.opt;
    const Backend *gpu = bench::fusedBenchGpu(true, "the GEMM lab");
    if (!gpu)
        return 2;
    GemmBenchRequest q = bench::fusedLabRequest(
        args, {GemmFormat::W4a16, GemmFormat::W4a8Int8, GemmFormat::W4a8Fp8, GemmFormat::W8a8Fp8});
    q.remeasurePeaks = true; // the ceilings of this run, measured here
    const GemmBenchResult quant = runGemmBench(q, DeviceChoice::Gpu);
    if (quant.peaks) {
        std::printf("roofline (%s): copy %.1f GB/s", quant.peaks->source.c_str(), quant.peaks->copyGbps);
        for (const auto &[d, t] : quant.peaks->tflops)
            std::printf(", %s %.1f TFLOP/s", d.c_str(), t);
        std::printf("\n  %s\n", quant.peaks->note.c_str());
    }
    if (!quant.deviceNote.empty())
        std::printf("note: %s\n", quant.deviceNote.c_str());
    print(quant);
    // W4A16 with per-channel scales beside g128 (the cache now holds this run's ceilings).
    GemmBenchRequest qc = q;
    qc.formats = {GemmFormat::W4a16};
    qc.w4Group = 0;
    qc.remeasurePeaks = false;
    const GemmBenchResult perChannel = runGemmBench(qc, DeviceChoice::Gpu);
    print(perChannel);

    GemmBenchRequest moe;
    moe.n = moeN, moe.k = moeK, moe.m = {moeM};
    moe.experts = experts;
    moe.repeats = q.repeats;
    moe.warmup = q.warmup;
    moe.formats = {GemmFormat::Bf16, GemmFormat::Fp8};
    moe.peaksCache = q.peaksCache;
    const GemmBenchResult moeR = runGemmBench(moe, DeviceChoice::Gpu);
    print(moeR);
    double batchedUs = 0, loopUs = 0;
    for (const auto &p : moeR.points)
        if (p.format == "bf16")
            (p.launches == 1 ? batchedUs : loopUs) = p.timeUs;
    const bool moeBar = batchedUs > 0 && batchedUs <= 200.0;
    std::printf("MoE %d × (M=%lld, N=%lld, K=%lld) BF16: strided-batched %.1f µs/step, loop %.1f µs/step; bar "
                "(≤ 200 µs): %s\n",
                experts, static_cast<long long>(moeM), static_cast<long long>(moeN), static_cast<long long>(moeK),
                batchedUs, loopUs, moeBar ? "met" : "MISSED");
    const bool ok =
        bench::gemmPointsChecked(quant) && bench::gemmPointsChecked(perChannel) && bench::gemmPointsChecked(moeR);
    nlohmann::json doc{{"benchmark", "gpu_gemmlab_quant_moe"},
                       {"date", bench::utcNow()},
                       {"device", gpu->info().name},
                       {"n", q.n},
                       {"k", q.k},
                       {"repeats", q.repeats},
                       {"warmup", q.warmup},
                       {"timing", "CUDA events around each step (conversion kernel + GEMM + epilogue) on the engine "
                                  "stream; warm-up; median of the repeats; rotating weight copies under 2x L2"},
                       {"outputs_checked", ok},
                       {"quantized", toJson(quant)},
                       {"w4a16_per_channel", toJson(perChannel)},
                       {"moe", toJson(moeR)},
                       {"moe_bar", {{"batched_bf16_us", batchedUs}, {"loop_bf16_us", loopUs}, {"met", moeBar}}}};
    if (!opt.out.empty()) {
        std::filesystem::create_directories(opt.out);
        std::ofstream f(std::filesystem::path(opt.out) / "gpu_gemmlab_quant_moe.json");
        f << doc.dump(1) << '\n';
    }
    return ok ? 0 : 1;
}
