// SPDX-License-Identifier: MIT
// `quantscope-cli sweep PATH --tensor NAME`: formats × group sizes × axes (× Hadamard on/off) of
// one tensor through the engine → error against bits per weight, kurtosis before and after the
// rotation, the Pareto front (core/budget/format_sweep.h).
#include <cmath>
#include <cstdio>
#include <iostream>

#include "budget/format_sweep.h"
#include <CLI/CLI.hpp>

#include "cli.h"
#include "export/gguf_export.h"
#include "io/checkpoint.h"
#include "io/weight_reader.h"
#include "progress.h"
#include "util/error.h"

namespace quantscope::cli {

namespace {

std::vector<std::string> splitList(const std::string &opt, const std::string &text)
{
    std::vector<std::string> out;
    std::size_t at = 0;
    while (true) {
        const auto comma = text.find(',', at);
        out.push_back(text.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
        if (out.back().empty())
            throw UsageError(opt + " has an empty item");
        if (comma == std::string::npos)
            return out;
        at = comma + 1;
    }
}

struct SweepArgs {
    std::string path;
    std::optional<std::string> tensorName, formats, groups, axes, hadamard, imatrix;
    bool noHadamard = false;
};

int runSweep(const SweepArgs &a, const CommonOptions &common)
{
    const bool json = common.json;
    const bool quiet = common.quiet;
    ReadOptions rd;
    rd.lenient = common.lenient;
    FormatSweepOptions o;
    o.device = common.deviceChoice();
    const auto &tensorName = a.tensorName;
    if (auto f = a.formats)
        o.formats = splitList("--formats", *f);
    if (auto g = a.groups) {
        o.groups.clear();
        for (const auto &x : splitList("--groups", *g))
            o.groups.push_back(toInt("--groups", x));
    }
    if (auto ax = a.axes) {
        o.axes.clear();
        for (const auto &x : splitList("--axes", *ax)) {
            const auto v = toInt("--axes", x);
            if (v != 0 && v != 1)
                throw UsageError("--axes items are 0 or 1");
            o.axes.push_back(static_cast<int>(v));
        }
    }
    if (a.noHadamard)
        o.hadamard = false;
    if (auto d = a.hadamard)
        o.hadamardBlock = toInt("--hadamard", *d);
    if (a.noHadamard && a.hadamard)
        throw UsageError("--hadamard D and --no-hadamard exclude each other");
    const std::vector<std::string> pos{a.path};
    formatSweepGrid(o); // refuses unknown formats before reading anything
    const WeightReader weights = openWeights(pos[0], rd, *tensorName);
    const Tensor w = weights.read(*tensorName);
    std::shared_ptr<const Imatrix> im;
    if (a.imatrix) {
        // llama.cpp's importance matrix for the K-quant points: the tensor's entry checked here.
        im = std::make_shared<const Imatrix>(loadImatrix(*a.imatrix));
        (void)importanceOf(*im, weights.checkpoint(), *tensorName, matrixView(w.shape()).second);
        o.importance = [&im, &weights](const std::string &t, std::int64_t k) {
            return importanceOf(*im, weights.checkpoint(), t, k);
        };
    }
    ProgressLine line(quiet);
    const CancelToken cancel;
    const FormatSweep s = runFormatSweep(w, *tensorName, o, cancel, line.callback());
    line.finish();
    if (json) {
        std::cout << s.toJson().dump(1) << "\n";
        return 0;
    }
    std::printf("%s  excess kurtosis %.4g, after the Hadamard rotation (d = %lld) %.4g\n", tensorName->c_str(),
                s.kurtosis, static_cast<long long>(s.hadamardBlock), s.kurtosisRotated);
    for (const auto &n : s.notes)
        std::printf("note: %s\n", n.c_str());
    std::printf("  %-18s %6s %4s %8s %12s %10s %s\n", "family", "group", "axis", "bits/w", "mse", "SQNR dB", "");
    for (const auto &p : s.points) {
        const std::string group = p.group > 0 ? std::to_string(p.group) : "-";
        const std::string axis = p.axis >= 0 ? std::to_string(p.axis) : "-";
        if (!p.error.empty()) {
            std::printf("  %-18s %6s %4s  error: %s\n", p.family.c_str(), group.c_str(), axis.c_str(), p.error.c_str());
            continue;
        }
        std::printf("  %-18s %6s %4s %8.4f %12.5g %10.3f %s\n", p.family.c_str(), group.c_str(), axis.c_str(),
                    p.bitsPerWeight, p.mse, p.sqnrDb, p.pareto ? "pareto" : "");
    }
    return 0;
}

} // namespace

void addSweepCommand(Commands &c)
{
    auto o = std::make_shared<SweepArgs>();
    CLI::App *cmd = c.add("sweep",
                          "formats × group sizes × axes (× Hadamard) of one tensor: error against bits per weight, "
                          "kurtosis before/after rotation, the Pareto front",
                          [o, &c] { return runSweep(*o, c.common()); });
    cmd->add_option("PATH", o->path, "the checkpoint")->required();
    cmd->add_option("--tensor", o->tensorName, "the weight")->type_name("NAME")->required();
    cmd->add_option("--formats", o->formats, "the formats (default: all the sweep knows)")->type_name("LIST");
    cmd->add_option("--groups", o->groups, "group sizes")->type_name("LIST");
    cmd->add_option("--axes", o->axes, "grouping axes, 0 and/or 1")->type_name("LIST");
    cmd->add_option("--hadamard", o->hadamard, "the Walsh–Hadamard block of the rotated variants")->type_name("D");
    cmd->add_flag("--no-hadamard", o->noHadamard, "no rotated variants");
    cmd->add_option("--imatrix", o->imatrix,
                    "llama.cpp's importance matrix (imatrix.dat or imatrix GGUF) for the K-quant formats")
        ->type_name("FILE");
    c.addCommon(cmd, kJson | kQuiet | kDevice | kLenient);
    cmd->footer("Example:\n  quantscope-cli sweep demo/ --tensor model.layers.0.mlp.down_proj.weight --formats "
                "int4,fp8,nvfp4 --json");
}

} // namespace quantscope::cli
