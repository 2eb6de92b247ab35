// SPDX-License-Identifier: MIT
// `quantscope-cli export --recipe R.json --format F [--activations A] [--pack-method M] [OUT]`
// `quantscope-cli export … --checkpoint PATH --out-dir DIR [--quiet] [--device D]` (quark |
// compressed-tensors | fp8-block | quantscope: core/export/checkpoint_writer.h)
// (docs/cli.md "`export`"): the recipe as a toolkit's config (core/export/config_export.h), to
// OUT (written atomically) or to stdout. What the target cannot express is refused, exit 1.
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "export/config_export.h"
#include "export/checkpoint_writer.h"
#include "io/checkpoint.h"
#include "progress.h"
#include "recipe/recipe.h"

namespace quantscope::cli {

namespace {

struct ExportArgs {
    std::optional<std::string> recipePath, formatName, act, pack, ctFormat, checkpoint, outDir, out, capture;
    bool noDefaultExcludes = false;
};

int runExport(const ExportArgs &o, const CommonOptions &common)
{
    const auto &recipePath = o.recipePath;
    const auto &formatName = o.formatName;
    const auto &act = o.act;
    const auto &pack = o.pack;
    const auto &checkpoint = o.checkpoint;
    const auto &outDir = o.outDir;
    std::vector<std::string> pos;
    if (o.out)
        pos.push_back(*o.out);
    if (!recipePath)
        throw UsageError("export needs --recipe R.json");
    std::string formats;
    for (ExportFormat f : allExportFormats())
        formats += (formats.empty() ? "" : "|") + std::string(toString(f));
    if (!formatName)
        throw UsageError("export needs --format " + formats);
    const auto format = parseExportFormat(*formatName);
    if (!format)
        throw UsageError("--format is '" + *formatName + "', expected " + formats);
    ExportOptions options;
    if (act) {
        const auto a = parseActivationScheme(*act);
        if (!a)
            throw UsageError("--activations is '" + *act + "', expected none|fp8-dynamic|fp8-static");
        options.activations = *a;
    }
    if (pack)
        options.packMethod = *pack;
    if (o.ctFormat) {
        if (*o.ctFormat != "pack-quantized" && *o.ctFormat != "int-quantized")
            throw UsageError("--ct-format is '" + *o.ctFormat + "', expected pack-quantized|int-quantized");
        options.ctIntFormat = *o.ctFormat;
    }
    if (o.noDefaultExcludes)
        options.defaultExcludes = false;
    const Recipe recipe = Recipe::load(*recipePath);
    if (o.capture && !outDir)
        throw UsageError("--capture gives a checkpoint export its static input scales: it needs --out-dir");
    if (outDir) {
        if (!checkpoint || !pos.empty())
            throw UsageError("a checkpoint export takes --checkpoint PATH and --out-dir DIR (and no OUT)");
        if (!writesCheckpoints(*format))
            throw UsageError("checkpoints are written as Quark real_quantized (--format quark), compressed-tensors "
                             "(--format compressed-tensors), FP8 block (--format fp8-block) or Quantscope's native "
                             "layout (--format quantscope)");
        // Progress on stderr (a terminal only, as every long command shows it).
        ProgressLine line(common.quiet);
        const StepCallback step = line.callback();
        CheckpointExportControl control;
        control.device = common.deviceChoice();
        control.threads = common.threads;
        if (o.capture)
            control.capture = openPairedCapture(*o.capture, Checkpoint::open(*checkpoint), common.quiet);
        control.progress = [&](double f, const std::string &what) {
            if (step)
                step(f, f, 1.0, what);
        };
        const CheckpointExportResult r = exportCheckpoint(*checkpoint, recipe, *format, *outDir, options, control);
        line.finish();
        std::cout << "wrote " << *outDir << " (" << r.file << (r.file.ends_with("model.safetensors") ? "" : ", …")
                  << "): " << r.quantized.size() << " modules quantized on " << r.device << ", " << r.copied
                  << " tensors copied; every module resolves in " << toString(*format)
                  << " as in the recipe, and re-reads to the quantizer's values\n";
        for (const auto &n : r.notes)
            std::cout << "  " << n << "\n";
        return 0;
    }
    // A config. With --checkpoint it is written for that checkpoint's modules (exact default
    // exclusions, and the modules no rule quantizes named when the target needs it).
    std::vector<std::pair<std::string, Shape>> modules;
    if (checkpoint)
        modules = weightModules(Checkpoint::open(*checkpoint));
    const std::string text = exportRecipeText(recipe, *format, options, checkpoint ? &modules : nullptr);
    if (pos.empty())
        std::cout << text;
    else
        writeTextAtomically(pos[0], text);
    return 0;
}

} // namespace

void addExportCommand(Commands &c)
{
    auto o = std::make_shared<ExportArgs>();
    std::string formats;
    for (ExportFormat f : allExportFormats())
        formats += (formats.empty() ? "" : "|") + std::string(toString(f));
    CLI::App *cmd =
        c.add("export",
              "the recipe as a toolkit's config (stdout without OUT), or with --checkpoint a quantized "
              "checkpoint (Quark real_quantized, compressed-tensors, FP8 block, Quantscope native); refuses what the "
              "target cannot express",
              [o, &c] { return runExport(*o, c.common()); });
    cmd->add_option("OUT", o->out, "the config file to write (atomically); stdout without it");
    cmd->add_option("--recipe", o->recipePath, "the recipe")->type_name("R.json");
    cmd->add_option("--format", o->formatName, "the target")->type_name(formats);
    cmd->add_option("--activations", o->act, "the activation scheme of the config")
        ->type_name("none|fp8-dynamic|fp8-static");
    cmd->add_option("--capture", o->capture,
                    "a calibration capture of the checkpoint's model: with --activations fp8-static each module's "
                    "input_scale is max |x| of its captured inputs / 448 (min-max, per tensor); gptq rules read "
                    "their modules' inputs from it")
        ->type_name("CAP.safetensors");
    cmd->add_option("--pack-method", o->pack, "Quark's INT4 packing order")->type_name("reorder|order");
    cmd->add_option("--ct-format", o->ctFormat,
                    "compressed-tensors' format of INT weights: codes packed in I32 (default) or one I8 code per "
                    "element (the toolkit's W8A8 layout)")
        ->type_name("pack-quantized|int-quantized");
    cmd->add_option("--checkpoint", o->checkpoint,
                    "the checkpoint: with --out-dir it is quantized; without, the config is written for its modules")
        ->type_name("PATH");
    cmd->add_option("--out-dir", o->outDir, "the folder of the quantized checkpoint")->type_name("DIR");
    cmd->add_flag("--no-default-excludes", o->noDefaultExcludes,
                  "quantize embeddings, lm_head and MoE routers too when the recipe matches them (kept dense and "
                  "listed in ignore/exclude by default)");
    c.addCommon(cmd, kQuiet | kDevice | kThreads);
    cmd->footer(
        "Examples:\n  quantscope-cli export --recipe examples/recipe.json --format compressed-tensors config.json\n"
        "  quantscope-cli export --recipe examples/recipe.json --format compressed-tensors --checkpoint demo/ "
        "--out-dir demo-w4/");
}

} // namespace quantscope::cli
