// SPDX-License-Identifier: MIT
// `quantscope-cli kv`: the KV-cache lab (core/kv/kv_lab.h) on a capture's or a file's K/V caches:
// every KV scheme's error per layer and head, attention errors with the captured queries, the c
// sweep on rotated keys, the codebooks, the distortion curves and the storage per token.
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "engine/kv_device.h"
#include "kv/kv_lab.h"
#include "progress.h"
#include "util/error.h"

namespace quantscope::cli {

namespace {

struct KvArgs {
    std::string path;
    std::string kScheme = "constopt", vScheme = "fp8";
    std::optional<std::string> schemes, grid;
    int boundary = 2;
    double memoryGiB = 80;
    std::int64_t scoreQueries = 128, segment = 0, maxTokens = 0, vectors = 4096;
    std::uint64_t seed = 0;
    bool noDistortion = false;
};

std::vector<KvScheme> parseList(const std::string &text)
{
    std::vector<KvScheme> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        // constOpt options use ',' too: a new scheme starts at an item that is not a constOpt option.
        const auto semi = text.find(';', pos);
        const std::string item = text.substr(pos, semi == std::string::npos ? std::string::npos : semi - pos);
        if (!item.empty())
            out.push_back(KvScheme::parse(item));
        if (semi == std::string::npos)
            break;
        pos = semi + 1;
    }
    if (out.empty())
        throw UsageError("--schemes lists no scheme");
    return out;
}

std::string fmtG(double v)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.4g", v);
    return b;
}

int runKv(const KvArgs &a, const CommonOptions &common)
{
    KvLoadOptions lo;
    lo.segment = a.segment;
    lo.maxTokens = a.maxTokens;
    const KvData data = loadKv(a.path, lo);
    KvLabOptions o;
    if (a.schemes)
        o.schemes = parseList(*a.schemes);
    o.kPlan = KvScheme::parse(a.kScheme);
    o.vPlan = KvScheme::parse(a.vScheme);
    if (a.boundary < 0)
        throw UsageError("--boundary must be ≥ 0");
    o.boundary = a.boundary;
    if (!(a.memoryGiB > 0))
        throw UsageError("--memory-gib must be positive");
    o.memoryGiB = a.memoryGiB;
    o.scoreQueries = a.scoreQueries;
    o.distortion = !a.noDistortion;
    o.distortionVectors = a.vectors;
    o.seed = a.seed;
    o.device = kvLabDevice(common.deviceChoice());
    if (const auto &grid = a.grid) {
        const auto p = grid->find(':'), q = grid->find(':', p == std::string::npos ? p : p + 1);
        if (p == std::string::npos || q == std::string::npos)
            throw UsageError("--grid is LO:HI:STEP, got '" + *grid + "'");
        o.cLo = toReal("--grid", grid->substr(0, p));
        o.cHi = toReal("--grid", grid->substr(p + 1, q - p - 1));
        o.cStep = toReal("--grid", grid->substr(q + 1));
        if (!(o.cLo > 0) || !(o.cHi > o.cLo) || !(o.cStep > 0) || (o.cHi - o.cLo) / o.cStep > 1e6)
            throw UsageError("--grid needs 0 < LO < HI and a step giving at most 10^6 points");
    }
    ProgressLine line(common.quiet);
    const CancelToken cancel;
    std::function<void(double)> progress;
    if (const StepCallback step = line.callback())
        progress = [step](double f) { step(f, 1.0, 1.0, "KV lab"); };
    const KvLabReport r = runKvLab(data, o, &cancel, progress);
    line.finish();
    for (const auto &n : r.notes)
        std::fprintf(stderr, "note: %s\n", n.c_str());
    if (!r.deviceNote.empty())
        std::fprintf(stderr, "note: %s\n", r.deviceNote.c_str());
    if (common.json) {
        std::cout << r.toJson().dump(1) << '\n';
        return 0;
    }
    std::printf("%s (%s): %lld layers × %lld KV heads × %lld tokens × d %lld; %lld query heads × %lld queries  "
                "(%.0f ms on %s)\n",
                r.source.c_str(), r.kind.c_str(), static_cast<long long>(r.layers), static_cast<long long>(r.kvHeads),
                static_cast<long long>(r.tokens), static_cast<long long>(r.headDim), static_cast<long long>(r.heads),
                static_cast<long long>(r.queries), r.timeMs, r.device.c_str());
    std::printf("%-18s %10s %10s %10s %10s %10s %9s %12s\n", "scheme", "K rel MSE", "V rel MSE", "KL", "max |ΔP|",
                "out rel", "B/token", "ctx tokens");
    auto row = [](const KvSchemeSummary &s) {
        std::printf("%-18s %10s %10s %10s %10s %10s %9.0f %12lld\n", s.name.c_str(), fmtG(s.kRel).c_str(),
                    fmtG(s.vRel).c_str(), s.attention ? fmtG(s.attention->kl).c_str() : "—",
                    s.attention ? fmtG(s.attention->scoreMaxErr).c_str() : "—",
                    s.attention ? fmtG(s.attention->outRel).c_str() : "—", s.bytesPerToken,
                    static_cast<long long>(s.contextTokens));
    };
    for (const auto &s : r.schemes)
        row(s);
    std::printf("plan: ");
    row(r.plan);
    std::printf("(storage and context: the first and last %d layers in BF16, %g GiB of KV memory)\n", o.boundary,
                o.memoryGiB);
    std::printf("c sweep on rotated keys (%zu values over [%g, %g]): c* = %.4f (flat for c in [%.4f, %.4f]); MSE at "
                "0.156 %.4g, at 0.195 %.4g, at c* %.4g\n",
                r.sweep.c.size(), o.cLo, o.cHi, r.sweep.cStar, r.sweep.intervalLo, r.sweep.intervalHi,
                r.sweep.mseAt0156, r.sweep.mseAt0195, r.sweep.cStarMse);
    std::printf("codebook at d = %lld: largest level %.6f (exact law; the Gaussian limit 2.7326/√d = %.6f); refit on "
                "keys lowers K MSE by %.1f %%; un-rotated / rotated K MSE %.2f×\n",
                static_cast<long long>(r.headDim), r.theory.levels.back(), r.gaussianLargest, 100 * r.calibratedGain,
                r.unrotatedOverRotated);
    double kb = 0, ka = 0;
    for (std::size_t i = 0; i < r.kurtosisBefore.size(); ++i) {
        kb = std::max(kb, r.kurtosisBefore[i]);
        ka = std::max(ka, r.kurtosisAfter[i]);
    }
    std::printf("K excess kurtosis, largest over layers: %.3g before the rotation, %.3g after\n", kb, ka);
    if (!r.distortion.empty()) {
        std::printf("%-7s %5s %11s %11s %11s %11s %7s %11s\n", "source", "d", "FP4 /6", "c 0.156", "c 0.195", "c*",
                    "c*", "Lloyd–Max");
        for (const auto &x : r.distortion)
            std::printf("%-7s %5lld %11.4g %11.4g %11.4g %11.4g %7.4f %11.4g\n", x.source.c_str(),
                        static_cast<long long>(x.d), x.fp4Plain, x.constOpt0156, x.constOpt0195, x.constOptStar,
                        x.cStar, x.lloydMax);
    }
    return 0;
}

} // namespace

void addKvCommand(Commands &c)
{
    auto o = std::make_shared<KvArgs>();
    CLI::App *cmd = c.add("kv",
                          "the KV-cache lab: every KV scheme (FP8, TurboQuant codebooks, constOpt FP4, MXFP4, NVFP4, "
                          "INT4 KIVI) on each layer and head, attention errors, the c sweep, codebooks, storage",
                          [o, &c] { return runKv(*o, c.common()); });
    cmd->add_option("FILE", o->path,
                    "a capture (quantscope-cli capture), or .npz/.safetensors with k, v[, q] [layers, heads, tokens, "
                    "head_dim], or .npy [2, layers, heads, tokens, head_dim]")
        ->required();
    cmd->add_option("--schemes", o->schemes,
                    "the schemes studied, ';'-separated (default: bf16;fp8;fp8-head;fp8-vllm;codebook;codebook-layer;"
                    "codebook-shared;codebook-norot;constopt;constopt:c=0.195;constopt:c=fit;mxfp4;nvfp4;int4)")
        ->type_name("LIST");
    cmd->add_option("--k-scheme", o->kScheme, "the plan's scheme for K (default constopt)")->type_name("S");
    cmd->add_option("--v-scheme", o->vScheme, "the plan's scheme for V (default fp8)")->type_name("S");
    cmd->add_option("--boundary", o->boundary, "first and last N layers kept in BF16 (default 2)")->type_name("N");
    cmd->add_option("--memory-gib", o->memoryGiB, "KV memory for the context-length figure (default 80)")
        ->type_name("G");
    cmd->add_option("--score-queries", o->scoreQueries,
                    "queries per head for the attention errors, evenly spaced (default 128; 0 = all)")
        ->type_name("N");
    cmd->add_option("--seq", o->segment, "tokens per causal sequence (default: the capture's seq, else the whole file)")
        ->type_name("L");
    cmd->add_option("--max-tokens", o->maxTokens, "use the first T tokens of K/V (default all)")->type_name("T");
    cmd->add_option("--grid", o->grid, "the c sweep's grid (default 0.05:0.40:0.0005, 701 values)")
        ->type_name("LO:HI:STEP");
    cmd->add_option("--vectors", o->vectors, "unit vectors per d for the theoretical distortion (default 4096)")
        ->type_name("N");
    cmd->add_option("--seed", o->seed, "their seed (default 0)")->type_name("S");
    cmd->add_flag("--no-distortion", o->noDistortion, "skip the distortion curves");
    c.addCommon(cmd, kJson | kQuiet | kDevice);
    cmd->footer("Schemes: bf16, fp8 (amax/448), fp8-head, fp8-vllm (amax/200 K, /100 V), fp8-unit, codebook, "
                "codebook-layer, codebook-shared, codebook-norot, constopt[:c=C|c=fit][,unrounded], mxfp4, nvfp4, "
                "int4.\n\nExample:\n  quantscope-cli kv examples/stories260K-kv.safetensors --json");
}

} // namespace quantscope::cli
