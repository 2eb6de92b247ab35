// SPDX-License-Identifier: MIT
// `quantscope-cli compare A B [--reference ORIG] [--json]` (docs/cli.md "`compare`"): two
// checkpoints, or two scan reports of one checkpoint, module by module (core/compare/compare.h).
#include <cmath>
#include <cstdio>
#include <iostream>

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

} // namespace

int runCompare(Args args)
{
    const bool json = args.flag("--json");
    const bool quiet = args.flag("--quiet");
    CompareOptions options;
    options.lenient = args.flag("--lenient");
    if (const auto ref = args.value("--reference"))
        options.reference = *ref;
    const auto pos = args.positionals();
    if (pos.size() != 2)
        throw UsageError("usage: quantscope-cli compare A B [--reference ORIG] [--lenient] [--json] [--quiet] "
                         "(A and B: two checkpoints, or two scan reports of one checkpoint)");
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

} // namespace quantscope::cli
