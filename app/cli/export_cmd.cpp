// SPDX-License-Identifier: MIT
// `quantscope-cli export --recipe R.json --format F [--activations A] [--pack-method M] [OUT]`
// `quantscope-cli export … --checkpoint PATH --out-dir DIR [--quiet]` (quark | compressed-tensors)
// (docs/cli.md "`export`"): the recipe as a toolkit's config (core/export/config_export.h), to
// OUT (written atomically) or to stdout. What the target cannot express is refused, exit 1.
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "export/config_export.h"
#include "export/ct_writer.h"
#include "export/fp8block_writer.h"
#include "export/quark_writer.h"
#include "progress.h"
#include "recipe/recipe.h"

namespace quantscope::cli {

namespace {

struct ExportArgs {
    std::optional<std::string> recipePath, formatName, act, pack, checkpoint, outDir, out;
};

int runExport(const ExportArgs &o, bool quiet)
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
    const Recipe recipe = Recipe::load(*recipePath);
    if (checkpoint || outDir) {
        if (!checkpoint || !outDir || !pos.empty())
            throw UsageError("a checkpoint export takes --checkpoint PATH and --out-dir DIR (and no OUT)");
        const bool quark = *format == ExportFormat::Quark, fp8Block = *format == ExportFormat::Fp8Block;
        if (!quark && !fp8Block && *format != ExportFormat::CompressedTensors)
            throw UsageError("checkpoints are written as Quark real_quantized (--format quark), compressed-tensors "
                             "(--format compressed-tensors) or FP8 block (--format fp8-block)");
        // Progress on stderr (a terminal only, as every long command shows it).
        ProgressLine line(quiet);
        const StepCallback step = line.callback();
        const std::function<void(double)> progress = [&](double f) {
            if (step)
                step(f, f, 1.0, "writing " + *outDir);
        };
        const CheckpointExportResult r =
            quark      ? writeQuarkCheckpoint(*checkpoint, recipe, *outDir, options, nullptr, progress)
            : fp8Block ? writeFp8BlockCheckpoint(*checkpoint, recipe, *outDir, options, nullptr, progress)
                       : writeCompressedTensorsCheckpoint(*checkpoint, recipe, *outDir, nullptr, progress, options);
        line.finish();
        std::cout << "wrote " << *outDir << " (" << r.file << (r.file.ends_with("model.safetensors") ? "" : ", …")
                  << "): " << r.quantized.size() << " modules quantized, " << r.copied
                  << " tensors copied; re-read to the same codes\n";
        for (const auto &n : r.notes)
            std::cout << "  " << n << "\n";
        return 0;
    }
    const std::string text = exportRecipeText(recipe, *format, options);
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
    CLI::App *cmd = c.add("export",
                          "the recipe as a toolkit's config (stdout without OUT), or with --checkpoint a quantized "
                          "checkpoint (Quark real_quantized, compressed-tensors, FP8 block); refuses what the "
                          "target cannot express",
                          [o, &c] { return runExport(*o, c.common().quiet); });
    cmd->add_option("OUT", o->out, "the config file to write (atomically); stdout without it");
    cmd->add_option("--recipe", o->recipePath, "the recipe")->type_name("R.json");
    cmd->add_option("--format", o->formatName, "the target")->type_name(formats);
    cmd->add_option("--activations", o->act, "the activation scheme of the config")
        ->type_name("none|fp8-dynamic|fp8-static");
    cmd->add_option("--pack-method", o->pack, "Quark's INT4 packing order")->type_name("reorder|order");
    cmd->add_option("--checkpoint", o->checkpoint, "write a quantized checkpoint of this one (needs --out-dir)")
        ->type_name("PATH");
    cmd->add_option("--out-dir", o->outDir, "the folder of the quantized checkpoint")->type_name("DIR");
    c.addCommon(cmd, kQuiet);
    cmd->footer(
        "Examples:\n  quantscope-cli export --recipe examples/recipe.json --format compressed-tensors config.json\n"
        "  quantscope-cli export --recipe examples/recipe.json --format quark --checkpoint demo/ --out-dir demo-w4/");
}

} // namespace quantscope::cli
