// SPDX-License-Identifier: MIT
// `quantscope-cli export --recipe R.json --format F [--activations A] [--pack-method M] [OUT]`
// `quantscope-cli export … --checkpoint PATH --out-dir DIR [--quiet]` (quark | compressed-tensors)
// (docs/cli.md "`export`"): the recipe as a toolkit's config (core/export/config_export.h), to
// OUT (written atomically) or to stdout. What the target cannot express is refused, exit 1.
#include <iostream>

#include "cli.h"
#include "export/config_export.h"
#include "export/ct_writer.h"
#include "export/fp8block_writer.h"
#include "export/quark_writer.h"
#include "progress.h"
#include "recipe/recipe.h"

namespace quantscope::cli {

int runExport(Args args)
{
    const auto recipePath = args.value("--recipe");
    const auto formatName = args.value("--format");
    const auto act = args.value("--activations");
    const auto pack = args.value("--pack-method");
    const auto checkpoint = args.value("--checkpoint");
    const auto outDir = args.value("--out-dir");
    const bool quiet = args.flag("--quiet");
    const auto pos = args.positionals();
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
    if (pos.size() > 1)
        throw UsageError("export takes at most one OUT path");
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

} // namespace quantscope::cli
