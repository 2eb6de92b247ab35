// SPDX-License-Identifier: MIT
// The KV-cache lab on the device (issue 41's speed bars; docs/perf.md "KV-cache lab (issue 41): SmolLM2-135M's own keys and values"):
// a SmolLM2-135M-sized synthetic capture — 30 layers × 3 KV heads × 4096 tokens × head_dim 64,
// 9 query heads × 512 queries, causal segments of 512 (8 sequences) — K Student-t (ν = 3) with
// two outlier channels per 16 and a mean offset on channel 3, V and Q Student-t; seed 41. Cases
// (wall clock around calls that synchronise, median of --repeats after one warm-up):
//   upload        the accelerator's set-up: K, V, Q uploaded, per-head absmax, the reference
//                 attention (log P, P, o) of 128 queries per head
//   schemes       every default scheme + the plan (15 pairs) on all layers: quantize, per-head
//                 MSE, attention errors (KL, max |P − P̂|, out errors), results on the host; all
//                 pairs queued together (runSchemes, one wait); schemes_each: one wait per pair
//   sweep_701     the pow2 c sweep, 701 values, on the rotated keys of all layers (rotation cached)
//   sweep_layers  the per-layer c* of K (30 sweeps of 701 values, layerCurves: batched)
//   lab           runKvLab end to end with the device (its CPU parts included: the unit-vector
//                 histograms, codebook refits, the unrounded curve, the distortion curves)
// With --cpu the CPU's runKvLab is timed once too. With --tensor-out FILE the capture is written as
// safetensors (k, v [L, Hkv, T, d], q [L, H, Q, d]) for bench/kv_torch.py. JSON: --out DIR/gpu_kv.json.
// Usage: qs_bench_gpu_kv [--out DIR] [--tensor-out FILE] [--repeats N] [--cpu]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "host/engine.h"
#include "io/safetensors.h"
#include "kv/kv_data.h"
#include "kv/kv_lab.h"

using namespace quantscope;

namespace {

constexpr std::int64_t L = 30, Hkv = 3, T = 4096, d = 64, H = 9, Q = 512, kSegment = 512;

std::vector<float> studentT(std::int64_t heads, std::int64_t rows, bool outliers, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::student_t_distribution<float> t(3.0f);
    std::vector<float> p(static_cast<std::size_t>(L * heads * rows * d));
    for (std::size_t i = 0; i < p.size(); ++i) {
        const auto j = static_cast<std::int64_t>(i % static_cast<std::size_t>(d));
        const float big = outliers && (j % 16 == 3 || j % 16 == 4) ? 12.0f : 1.0f;
        p[i] = 0.5f * t(rng) * big + (outliers && j == 3 ? 4.0f : 0.0f);
    }
    return p;
}

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

nlohmann::json timeIt(int repeats, const std::function<void()> &f)
{
    f(); // warm-up
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        ms.push_back(msSince(t0));
    }
    const auto s = bench::summarize(ms);
    return {{"median_ms", s.median}, {"min_ms", s.min}, {"p10_ms", s.p10}, {"p90_ms", s.p90}, {"repeats", repeats}};
}

} // namespace

int main(int argc, char **argv)
{
    std::string out = ".", tensorOut;
    int repeats = 5;
    bool cpu = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--out" && i + 1 < argc)
            out = argv[++i];
        else if (a == "--tensor-out" && i + 1 < argc)
            tensorOut = argv[++i];
        else if (a == "--repeats" && i + 1 < argc)
            repeats = std::max(1, std::atoi(argv[++i]));
        else if (a == "--cpu")
            cpu = true;
    }
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    if (!engine) {
        std::fprintf(stderr, "no GPU: %s\n", reason.c_str());
        return 2;
    }
    const gpu::EngineInfo info = engine->info();
    std::printf("device: %s (%s, %d SMs)\n", info.name.c_str(), info.api.c_str(), info.multiProcessors);

    const Tensor k = Tensor::fromFloats({L, Hkv, T, d}, studentT(Hkv, T, true, 41));
    const Tensor v = Tensor::fromFloats({L, Hkv, T, d}, studentT(Hkv, T, false, 42));
    const Tensor q = Tensor::fromFloats({L, H, Q, d}, studentT(H, Q, true, 43));
    if (!tensorOut.empty())
        writeSafetensors(tensorOut, {{"k", k}, {"v", v}, {"q", q}}, {{"seq", std::to_string(kSegment)}});
    KvLoadOptions lo;
    lo.segment = kSegment;
    const KvData data = kvFromArrays("synthetic SmolLM2-135M-sized capture", k, v, q, lo);

    KvLabOptions opt; // the lab's defaults: 14 schemes + the plan, 128 queries per head, 701 values
    std::vector<std::int64_t> rows;
    for (std::int64_t i = 0; i < opt.scoreQueries; ++i)
        rows.push_back((i * (Q - 1)) / (opt.scoreQueries - 1));
    auto device = std::make_shared<KvLabDevice>();
    device->id = "cuda:0";
    device->make = [&](const KvData &dd, const std::vector<std::int64_t> &rr, std::string &) {
        return engine->kvLab(dd, rr);
    };
    opt.device = device;

    nlohmann::json cases = nlohmann::json::object();
    std::unique_ptr<KvLabAccelerator> acc;
    cases["upload"] = timeIt(repeats, [&] { acc = engine->kvLab(data, rows); });
    // The 15 scheme pairs as the lab hands them over (levels: the theoretical codebook at d; the
    // refits change the levels, not the work).
    // The process's first lab: the theoretical codebooks (lloydMaxSphere, once per process) are
    // computed in it; the repeats below reuse them.
    const auto tFirst = std::chrono::steady_clock::now();
    const KvLabReport ref = runKvLab(data, opt);
    cases["lab_first"] = {{"median_ms", msSince(tFirst)}, {"repeats", 1}};
    std::vector<std::vector<KvLayerJob>> pairs;
    const auto theory = lloydMaxSphere(d).levels;
    for (std::size_t s = 0; s <= opt.schemes.size(); ++s) {
        std::vector<KvLayerJob> jobs;
        for (std::int64_t li = 0; li < L; ++li) {
            const bool plan = s == opt.schemes.size();
            const bool bnd = li < opt.boundary || li >= L - opt.boundary;
            const KvScheme ks = plan ? (bnd ? KvScheme::parse("bf16") : opt.kPlan) : opt.schemes[s];
            const KvScheme vs = plan ? (bnd ? KvScheme::parse("bf16") : opt.vPlan) : opt.schemes[s];
            const double kc = ks.cFit ? ref.sweep.layerCStar[static_cast<std::size_t>(li)] : ks.c;
            jobs.push_back({ks, vs, KvLayerContext{Hkv, T, d, theory, kc}, KvLayerContext{Hkv, T, d, theory, vs.c}});
        }
        pairs.push_back(std::move(jobs));
    }
    cases["schemes"] = timeIt(repeats, [&] { acc->runSchemes(pairs); }); // queued together, one wait
    cases["schemes_each"] = timeIt(repeats, [&] {                        // one wait per pair
        for (const auto &jobs : pairs)
            acc->runScheme(jobs);
    });
    std::vector<double> cs;
    for (int i = 0; i <= 700; ++i)
        cs.push_back(0.05 + 0.0005 * i);
    std::vector<double> curve;
    cases["sweep_701"] = timeIt(repeats, [&] { curve = acc->rotatedCurve(KvRole::K, -1, cs); });
    cases["sweep_layers"] = timeIt(repeats, [&] { acc->layerCurves(KvRole::K, L, cs); });
    KvLabReport lab;
    cases["lab"] = timeIt(repeats, [&] { lab = runKvLab(data, opt); });
    nlohmann::json j;
    j["date"] = bench::utcNow();
    j["device"] = info.name;
    j["capture"] = {{"layers", L}, {"kv_heads", Hkv}, {"tokens", T},         {"head_dim", d},
                    {"heads", H},  {"queries", Q},    {"segment", kSegment}, {"score_queries", opt.scoreQueries}};
    j["cases"] = cases;
    j["lab_device"] = lab.device;
    j["lab_device_note"] = lab.deviceNote;
    nlohmann::json phases = nlohmann::json::object();
    for (const auto &[name, ms] : lab.phasesMs) {
        phases[name] = ms;
        std::printf("lab phase %-18s %9.3f ms (the last repeat)\n", name.c_str(), ms);
    }
    j["lab_phases_ms"] = phases;
    j["c_star"] = lab.sweep.cStar;
    j["sweep_701_first_last"] = {curve.front(), curve.back()};
    nlohmann::json schemes = nlohmann::json::array();
    for (const auto &s : lab.schemes)
        schemes.push_back({{"name", s.name},
                           {"k_rel", s.kRel},
                           {"v_rel", s.vRel},
                           {"kl", s.attention ? s.attention->kl : 0.0},
                           {"out_rel", s.attention ? s.attention->outRel : 0.0}});
    j["schemes"] = schemes;
    // The codebooks the lab used, for the PyTorch side (which does the same quantization with them).
    nlohmann::json kl = nlohmann::json::array(), vl = nlohmann::json::array();
    for (const auto &f : lab.kLayer)
        kl.push_back(f.levels);
    for (const auto &f : lab.vLayer)
        vl.push_back(f.levels);
    j["codebooks"] = {{"theory", lab.theory.levels},
                      {"k_shared", lab.kShared.levels},
                      {"v_shared", lab.vShared.levels},
                      {"k_layer", kl},
                      {"v_layer", vl}};
    j["layer_c_star"] = lab.sweep.layerCStar;
    if (cpu) {
        KvLabOptions c = opt;
        c.device = nullptr;
        const auto t0 = std::chrono::steady_clock::now();
        const KvLabReport r = runKvLab(data, c);
        j["cpu_lab_ms"] = msSince(t0);
        j["cpu_c_star"] = r.sweep.cStar;
    }
    for (const auto &[name, c] : cases.items())
        std::printf("%-13s %10.3f ms (median of %d)\n", name.c_str(), c["median_ms"].get<double>(), repeats);
    std::filesystem::create_directories(out);
    std::ofstream(std::filesystem::path(out) / "gpu_kv.json") << j.dump(1) << '\n';
    return 0;
}
