// SPDX-License-Identifier: MIT
// `quantscope-cli export-gguf IN OUT.gguf --quant Q4_K_M`: a GGUF model requantized as llama.cpp's
// llama-quantize does it (core/export/gguf_export.h), with its options' names, or a Hugging Face
// llama checkpoint converted as convert_hf_to_gguf.py does it (core/export/hf_gguf.h) and then
// quantized.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "export/gguf_export.h"
#include "progress.h"
#include "recipe/recipe.h"
#include "util/error.h"

namespace quantscope::cli {

namespace {

struct GgufExportCliOptions {
    std::string in, out;
    std::string quant = "Q4_K_M";
    std::vector<std::string> tensorTypes;
    std::optional<std::string> tokenEmbeddingType, outputTensorType, imatrix, recipe;
    bool pure = false, allowRequantize = false, leaveOutput = false, dryRun = false;
};

ggml::Type parseType(const std::string &s, const std::string &option)
{
    const auto t = ggml::typeFromName(s);
    if (!t)
        throw UsageError(option + " '" + s + "' is not a ggml type (q4_0, q8_0, q4_k, q6_k, f16, …)");
    return *t;
}

int runGgufExport(const GgufExportCliOptions &o, const CommonOptions &common)
{
    if (!o.dryRun && o.out.empty())
        throw UsageError("export-gguf needs OUT.gguf (or --dry-run)");
    GgufExportOptions opt;
    std::string why;
    const auto ft = ggml::fileTypeFromName(o.quant, &why);
    if (!ft)
        throw UsageError("--quant: " + why);
    opt.mix.fileType = *ft;
    opt.mix.pure = o.pure;
    opt.mix.quantizeOutput = !o.leaveOutput;
    for (const std::string &tt : o.tensorTypes) {
        const auto eq = tt.rfind('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == tt.size())
            throw UsageError("--tensor-type '" + tt + "': expected REGEX=TYPE (e.g. 'attn_v=q8_0')");
        opt.mix.tensorTypes.emplace_back(tt.substr(0, eq), parseType(tt.substr(eq + 1), "--tensor-type"));
    }
    if (o.tokenEmbeddingType)
        opt.mix.tokenEmbeddingType = parseType(*o.tokenEmbeddingType, "--token-embedding-type");
    if (o.outputTensorType)
        opt.mix.outputTensorType = parseType(*o.outputTensorType, "--output-tensor-type");
    opt.allowRequantize = o.allowRequantize;
    if (o.imatrix)
        opt.imatrix = *o.imatrix;
    if (o.recipe)
        opt.recipe = std::make_shared<const Recipe>(Recipe::load(*o.recipe));
    opt.threads = common.threads;

    GgufExportResult r;
    if (o.dryRun) {
        r = planGgufExport(o.in, opt);
    } else {
        ProgressLine line(common.quiet);
        const StepCallback step = line.callback();
        opt.progress = [&](double f, const std::string &what) {
            if (step)
                step(f, f, 1.0, what);
        };
        r = exportGguf(o.in, o.out, opt);
        line.finish();
    }
    if (common.json) {
        std::cout << r.toJson().dump(1) << '\n';
        return 0;
    }
    std::printf("%s%s as %s: %.1f MiB of tensor data → %.1f MiB%s\n", o.dryRun ? "plan for " : "wrote ",
                o.dryRun ? o.in.c_str() : r.file.c_str(), r.fileType.c_str(),
                static_cast<double>(r.bytesIn) / 1048576.0, static_cast<double>(r.bytesOut) / 1048576.0,
                r.imatrix.empty() ? "" : (", importance matrix " + r.imatrix).c_str());
    std::printf("%-34s %-7s %-7s %12s  %s\n", "tensor", "from", "to", o.dryRun ? "" : "rel. error", "why");
    for (const GgufExportTensor &t : r.tensors) {
        char err[32] = "";
        if (t.quantized && !o.dryRun)
            std::snprintf(err, sizeof err, "%.3e", t.relErr);
        std::printf("%-34s %-7s %-7s %12s  %s%s\n", t.name.c_str(), t.from.c_str(), t.to.c_str(), err, t.why.c_str(),
                    t.imatrix ? " [imatrix]" : "");
    }
    for (const std::string &n : r.notes)
        std::printf("note: %s\n", n.c_str());
    return 0;
}

} // namespace

void addGgufExportCommand(Commands &c)
{
    auto o = std::make_shared<GgufExportCliOptions>();
    CLI::App *cmd =
        c.add("export-gguf",
              "write GGUF: a GGUF model requantized as llama-quantize does, or a Hugging Face llama checkpoint "
              "converted as convert_hf_to_gguf.py does (then quantized with llama-quantize's mix for --quant)",
              [o, &c] { return runGgufExport(*o, c.common()); });
    cmd->add_option("IN", o->in,
                    "the GGUF model to requantize, or a Hugging Face checkpoint to convert: its folder (config.json "
                    "+ safetensors), its model.safetensors or its model.safetensors.index.json")
        ->required()
        ->type_name("IN.gguf|HF");
    cmd->add_option("OUT", o->out, "the GGUF file to write (must not exist)")->type_name("OUT.gguf");
    cmd->add_option("--quant", o->quant,
                    "llama-quantize's file type: Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K Q2_K_S Q3_K_S Q3_K_M Q3_K_L Q4_K_S "
                    "Q4_K_M Q5_K_S Q5_K_M Q6_K F16 BF16 F32")
        ->type_name("TYPE")
        ->capture_default_str();
    cmd->add_option("--tensor-type", o->tensorTypes,
                    "REGEX=TYPE: the type of the tensors whose GGUF name matches (the last match wins), as "
                    "llama-quantize's --tensor-type")
        ->type_name("REGEX=TYPE");
    cmd->add_option("--token-embedding-type", o->tokenEmbeddingType, "the type of token_embd.weight")
        ->type_name("TYPE");
    cmd->add_option("--output-tensor-type", o->outputTensorType, "the type of output.weight")->type_name("TYPE");
    cmd->add_option("--imatrix", o->imatrix,
                    "importance weights for the K-quants: llama.cpp's imatrix.dat or imatrix GGUF, or a capture")
        ->type_name("FILE");
    cmd->add_option("--recipe", o->recipe,
                    "a recipe whose rules name ggml types ({\"method\": \"gguf\", \"type\": \"q6_k\"}): the modules it "
                    "matches get them after llama.cpp's choice; excluded modules stay as stored")
        ->type_name("R.json");
    cmd->add_flag("--pure", o->pure, "the file type's default type for every tensor (no per-tensor mix)");
    cmd->add_flag("--allow-requantize", o->allowRequantize, "requantize tensors already stored in block types");
    cmd->add_flag("--leave-output-tensor", o->leaveOutput, "leave output.weight as stored");
    cmd->add_flag("--dry-run", o->dryRun, "print the per-tensor plan and write nothing");
    c.addCommon(cmd, kJson | kQuiet | kThreads);
    cmd->footer("Examples:\n"
                "  quantscope-cli export-gguf examples/tiny-q4_k.gguf --quant Q8_0 --allow-requantize --dry-run\n"
                "  quantscope-cli export-gguf examples/tiny-llama tiny-llama-q8_0.gguf --quant Q8_0");
}

} // namespace quantscope::cli
