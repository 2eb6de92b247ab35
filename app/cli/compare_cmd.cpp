// SPDX-License-Identifier: MIT
// `quantscope-cli compare A B [--reference ORIG] [--json]` (docs/cli.md "`compare`"): two
// checkpoints, or two scan reports of one checkpoint, module by module (core/compare/compare.h).
#include <cmath>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "compare/compare.h"
#include "progress.h"

namespace quantscope::cli {

namespace {

std::string num(const std::optional<double> &v, const char *fmt = "%.4g")
{
    if (!v)
        return "-";
    char b[32];
    std::snprintf(b, sizeof b, fmt, *v);
    return b;
}

struct CompareArgs {
    std::string a, b;
    std::optional<std::string> reference;
};

int runCompare(const CompareArgs &o, const CommonOptions &common)
{
    const bool json = common.json;
    const bool quiet = common.quiet;
    CompareOptions options;
    options.lenient = common.lenient;
    if (o.reference)
        options.reference = *o.reference;
    const std::vector<std::string> pos{o.a, o.b};
    ProgressLine line(quiet);
    const StepCallback step = line.callback();
    CompareProgress progress;
    if (step)
        progress = [&](std::int64_t done, std::int64_t total, const std::string &what) {
            step(static_cast<double>(done), static_cast<double>(done + 1), static_cast<double>(total),
                 "compare: " + what);
        };
    const CompareReport r = quantscope::runCompare(pos[0], pos[1], options, nullptr, progress);
    line.finish();
    if (json) {
        std::cout << r.toJson().dump(1) << '\n';
        return 0;
    }
    std::printf("compare %s: %s vs %s%s%s\n", r.kind.c_str(), r.a.c_str(), r.b.c_str(),
                r.reference.empty() ? "" : ", reference ", r.reference.c_str());
    std::printf("%-44s %9s %9s %9s %9s %9s  %s\n", "module", "codes≠", "rel.diff", "err A", "err B", "Δ",
                "scheme difference");
    for (const ModuleComparison &m : r.modules) {
        const std::optional<double> delta =
            m.errorA && m.errorB ? std::optional<double>(*m.errorA - *m.errorB) : std::nullopt;
        std::printf("%-44s %9s %9s %9s %9s %9s  %s\n", m.module.c_str(), num(m.codeDiff, "%.3g").c_str(),
                    num(m.relDiff).c_str(), num(m.errorA).c_str(), num(m.errorB).c_str(), num(delta).c_str(),
                    m.error.empty() ? m.schemeDiff.c_str() : ("error: " + m.error).c_str());
    }
    for (const auto &m : r.onlyA)
        std::printf("only in A: %s\n", m.c_str());
    for (const auto &m : r.onlyB)
        std::printf("only in B: %s\n", m.c_str());
    if (r.spearman)
        std::printf("Spearman rank agreement of the error ordering: %.4f over %lld modules\n", *r.spearman,
                    static_cast<long long>(r.spearmanModules));
    for (const auto &n : r.notes)
        std::printf("note: %s\n", n.c_str());
    return 0;
}

} // namespace

void addCompareCommand(Commands &c)
{
    auto o = std::make_shared<CompareArgs>();
    CLI::App *cmd = c.add("compare",
                          "two checkpoints (or two scan reports) module by module: codes that differ, scale ratios, "
                          "scheme, Ŵ difference, error vs a reference",
                          [o, &c] { return runCompare(*o, c.common()); });
    cmd->add_option("A", o->a, "a checkpoint or a scan report")->required();
    cmd->add_option("B", o->b, "a checkpoint or a scan report (of the same kind as A)")->required();
    cmd->add_option("--reference", o->reference, "the original checkpoint: each side's error against it")
        ->type_name("ORIG");
    c.addCommon(cmd, kJson | kQuiet | kLenient);
    cmd->footer(
        "Example:\n"
        "  quantscope-cli export --recipe examples/recipe.json --format quark --checkpoint demo/ --out-dir quark-w4/\n"
        "  quantscope-cli export --recipe examples/recipe.json --format compressed-tensors --checkpoint demo/ "
        "--out-dir ct-w4/\n"
        "  quantscope-cli compare quark-w4/ ct-w4/ --reference demo/ --json");
}

} // namespace quantscope::cli
