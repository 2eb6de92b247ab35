// SPDX-License-Identifier: MIT
// `quantscope-cli capture` and `eval`: the model itself, run by the user's PyTorch + transformers
// through the Python bridge (docs/bridge.md); `bridge check` says whether that interpreter can.
#include <csignal>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include "bridge/model_jobs.h"
#include "cli.h"
#include "progress.h"
#include "export/config_export.h"
#include "util/error.h"

namespace quantscope::cli {

namespace {

/// Ctrl-C cancels the job (the bridge removes its staged files, eval its temporary folder).
const CancelToken *g_interrupt = nullptr;
extern "C" void onInterrupt(int)
{
    if (g_interrupt)
        g_interrupt->cancel();
}
struct InterruptScope {
    explicit InterruptScope(const CancelToken &t)
    {
        g_interrupt = &t;
        std::signal(SIGINT, onInterrupt);
        std::signal(SIGTERM, onInterrupt);
    }
    ~InterruptScope()
    {
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
        g_interrupt = nullptr;
    }
};

struct ModelArgs {
    ModelInput input;
    std::string python;
};

void addModelInput(CLI::App *cmd, ModelArgs &o)
{
    cmd->add_option("MODEL", o.input.model,
                    "the model: a Hugging Face folder (safetensors, sharded or not, or one .gguf) or a .gguf file")
        ->required();
    cmd->add_option("--gguf-file", o.input.ggufFile, "the .gguf inside MODEL when it holds several")->type_name("NAME");
    auto *text =
        cmd->add_option("--text", o.input.text, "UTF-8 text, tokenized by the model's tokenizer")->type_name("FILE");
    auto *tokens =
        cmd->add_option("--tokens", o.input.tokens, "token ids: [samples, seq] or 1-D int .npy")->type_name("FILE.npy");
    text->excludes(tokens);
    cmd->add_option("--samples", o.input.samples, "sequences (default 64)")->type_name("N");
    cmd->add_option("--seq", o.input.seq, "tokens per sequence (default 512)")->type_name("L");
    cmd->add_option("--dtype", o.input.dtype,
                    "the model's dtype: auto (bfloat16 on CUDA, else float32), float32, "
                    "bfloat16")
        ->type_name("T");
    cmd->add_option("--python", o.python,
                    "the interpreter with torch + transformers (default $QUANTSCOPE_PYTHON, "
                    "else python3)")
        ->type_name("PY");
}

void checkInput(const ModelInput &in)
{
    if (in.text.empty() && in.tokens.empty())
        throw UsageError("give the calibration data: --text FILE or --tokens FILE.npy");
    if (in.samples < 1 || in.seq < 2)
        throw UsageError("--samples must be at least 1 and --seq at least 2");
}

ModelProgress progressOf(ProgressLine &line)
{
    StepCallback cb = line.callback();
    if (!cb)
        return {};
    return [cb](double f, const std::string &what) { cb(f, f, 1.0, what); };
}

struct CaptureArgs : ModelArgs {
    CaptureRequest request;
};

int runCaptureCommand(CaptureArgs &o, const CommonOptions &common)
{
    checkInput(o.input);
    o.request.input = o.input;
    o.request.input.device = common.deviceChoice();
    const CancelToken cancel;
    InterruptScope interrupt(cancel);
    ProgressLine line(common.quiet);
    const nlohmann::json r = runCapture(bridgeConfig(o.python), o.request, &cancel, progressOf(line));
    line.finish();
    if (common.json) {
        std::cout << r.dump(1) << '\n';
        return 0;
    }
    std::printf("captured %s: %d linear modules, %d attention blocks, %lld tokens in %.1f s (forward %.1f s); "
                "statistics %.1f MB\n",
                o.request.out.c_str(), r.value("modules", 0), r.value("attention", 0),
                static_cast<long long>(r.value("tokens", 0LL)), r.value("seconds", 0.0),
                r.value("forward_seconds", 0.0), r.value("bytes_stats", 0.0) / 1e6);
    return 0;
}

struct EvalArgs : ModelArgs {
    EvalRequest request;
    std::optional<std::string> out;
};

std::string num(const nlohmann::ordered_json &j, const char *fmt)
{
    if (!j.is_number())
        return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, j.get<double>());
    return buf;
}

int runEvalCommand(EvalArgs &o, const CommonOptions &common)
{
    checkInput(o.input);
    if (o.request.recipe.empty() == o.request.checkpoint.empty())
        throw UsageError("eval needs --recipe R.json or --checkpoint EXPORTED (one of them)");
    o.request.input = o.input;
    o.request.input.device = common.deviceChoice();
    o.request.quantizeDevice = common.deviceChoice();
    o.request.threads = common.threads;
    const CancelToken cancel;
    InterruptScope interrupt(cancel);
    ProgressLine line(common.quiet);
    const nlohmann::ordered_json r = runEval(bridgeConfig(o.python), o.request, &cancel, progressOf(line));
    line.finish();
    if (o.out)
        writeTextAtomically(*o.out, r.dump(1) + "\n");
    if (common.json) {
        std::cout << r.dump(1) << '\n';
        return 0;
    }
    const auto &kl = r["kl"], &top1 = r["top1"];
    std::printf("%s on %zu modules: KL %s nats/token (95%% CI %s..%s), top-1 agreement %s, perplexity %s -> %s "
                "(%d x %d tokens, %s)\n",
                o.request.recipe.empty() ? o.request.checkpoint.c_str() : o.request.recipe.c_str(), r["modules"].size(),
                num(kl["mean"], "%.5g").c_str(), num(kl["ci95"][0], "%.5g").c_str(), num(kl["ci95"][1], "%.5g").c_str(),
                num(top1["mean"], "%.4f").c_str(), num(r["reference"]["ppl"], "%.4f").c_str(),
                num(r["quantized"]["ppl"], "%.4f").c_str(), r.value("samples", 0), r.value("seq", 0),
                r.value("device", std::string()).c_str());
    for (const auto &n : r["notes"])
        std::printf("  note: %s\n", n.get<std::string>().c_str());
    if (o.request.perLayer) {
        std::printf("  %-48s %-28s %12s %12s %10s\n", "module", "scheme", "output err", "KL alone", "top-1");
        for (const auto &m : r["modules"])
            std::printf("  %-48s %-28s %12s %12s %10s\n", m["module"].get<std::string>().c_str(),
                        m["scheme"].get<std::string>().substr(0, 28).c_str(), num(m["output_error"], "%.4g").c_str(),
                        num(m["kl"], "%.4g").c_str(), num(m["top1"], "%.4f").c_str());
    }
    if (o.out)
        std::printf("report: %s\n", o.out->c_str());
    return 0;
}

struct BridgeCheckArgs {
    std::string python;
    bool gguf = false;
};

int runBridgeCheck(const BridgeCheckArgs &o, bool json)
{
    std::vector<std::string> need{"torch", "transformers", "safetensors", "numpy"};
    if (o.gguf)
        need.push_back("gguf");
    const BridgeConfig cfg = bridgeConfig(o.python);
    const nlohmann::json r = checkBridge(cfg, need);
    if (json) {
        std::cout << r.dump(1) << '\n';
        return 0;
    }
    std::printf("python %s (%s), bridge %s\n", r.value("python", std::string("?")).c_str(), cfg.python.c_str(),
                cfg.bridgeDir.c_str());
    for (const char *k : {"torch", "transformers", "safetensors", "numpy", "gguf"})
        std::printf("  %-13s %s\n", k,
                    r.contains(k) && r[k].is_string() ? r[k].get<std::string>().c_str() : "not installed");
    std::printf("  cuda          %s\n",
                r.value("cuda", false) ? r.value("cuda_device", std::string("yes")).c_str() : "no");
    return 0;
}

} // namespace

void addModelCommands(Commands &c)
{
    {
        auto o = std::make_shared<CaptureArgs>();
        CLI::App *cmd = c.add("capture",
                              "run the model on calibration data (your PyTorch + transformers) and keep, per linear "
                              "layer, its inputs' Gram, ranges and sampled rows, and per attention block its K/V "
                              "cache and queries",
                              [o, &c] { return runCaptureCommand(*o, c.common()); });
        addModelInput(cmd, *o);
        cmd->add_option("--out", o->request.out, "the capture (safetensors; written atomically)")
            ->type_name("CAP.safetensors")
            ->required();
        cmd->add_option("--gram-max", o->request.gramMax,
                        "keep the full K x K Gram up to this K; above it only its diagonal (default 8192)")
            ->type_name("K");
        cmd->add_option("--rows", o->request.rows, "input rows sampled per layer (default 256)")->type_name("R");
        cmd->add_option("--kv-tokens", o->request.kvTokens,
                        "tokens of K/V cache kept per attention block (default "
                        "2048)")
            ->type_name("T");
        cmd->add_option("--q-rows", o->request.qRows, "queries kept per attention block (default 512)")->type_name("Q");
        cmd->add_option("--seed", o->request.seed, "the row sample's seed (default 0)")->type_name("S");
        c.addCommon(cmd, kJson | kQuiet | kDevice);
        cmd->footer("Example:\n  quantscope-cli capture ../shared/data/stories260K --tokens "
                    "tests/data/model/stories260K-tokens.npy --out cap.safetensors  # needs torch");
    }
    {
        auto o = std::make_shared<EvalArgs>();
        CLI::App *cmd = c.add("eval",
                              "measure what a recipe (or an exported checkpoint) does to the model: KL divergence "
                              "of the next-token distributions, top-1 agreement and perplexity against the original",
                              [o, &c] { return runEvalCommand(*o, c.common()); });
        addModelInput(cmd, *o);
        auto *recipe = cmd->add_option("--recipe", o->request.recipe, "quantize the model's weights with this recipe")
                           ->type_name("R.json");
        auto *ckpt = cmd->add_option("--checkpoint", o->request.checkpoint,
                                     "or measure this exported checkpoint (compressed-tensors, Quark, FP8 block, "
                                     "native): the file that will be served")
                         ->type_name("DIR");
        recipe->excludes(ckpt);
        cmd->add_flag("--per-layer", o->request.perLayer, "also each module's own KL (that module alone quantized)");
        cmd->add_option("--per-layer-samples", o->request.perLayerSamples,
                        "samples of the per-layer pass (default all)")
            ->type_name("M");
        cmd->add_option("--capture", o->request.capture,
                        "each module's output-aware error on this capture beside "
                        "its KL")
            ->type_name("CAP.safetensors");
        cmd->add_option("--out", o->out, "write the report (JSON, atomically)")->type_name("REPORT.json");
        c.addCommon(cmd, kJson | kQuiet | kDevice | kThreads);
        cmd->footer("Example:\n  quantscope-cli eval ../shared/data/stories260K --recipe examples/int4-g128.json "
                    "--tokens tests/data/model/stories260K-tokens.npy --per-layer  # needs torch");
    }
    {
        CLI::App *bridge = c.add("bridge", "the Python bridge that runs models", nullptr);
        bridge->require_subcommand(1);
        bridge->footer("Example:\n  quantscope-cli bridge check  # needs torch");
        auto o = std::make_shared<BridgeCheckArgs>();
        CLI::App *check = c.add(
            "check", "whether the interpreter has what capture and eval need (torch, transformers, ...)",
            [o, &c] { return runBridgeCheck(*o, c.common().json); }, bridge);
        check->add_option("--python", o->python, "the interpreter (default $QUANTSCOPE_PYTHON, else python3)")
            ->type_name("PY");
        check->add_flag("--gguf", o->gguf, "also the gguf package (GGUF models)");
        c.addCommon(check, kJson);
        check->footer("Example:\n  quantscope-cli bridge check --json  # needs torch");
    }
}

} // namespace quantscope::cli
