// SPDX-License-Identifier: MIT
// `quantscope-cli sweep-c`: constOpt's MSE as a function of c on one tensor, with c*, the flat
// interval around it and the Lloyd–Max / INT4 / MXFP4 references (core/quant/constopt_sweep.h).
#include <chrono>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "engine/sweep_device.h"
#include "io/checkpoint.h"
#include "io/weight_reader.h"
#include "json/report_json.h"
#include "progress.h"
#include "quant/constopt_sweep.h"
#include "util/error.h"

namespace quantscope::cli {

namespace {

struct SweepCArgs {
    std::string path;
    std::optional<std::string> tensorName, grid;
    SchemaValues constopt; ///< constOpt's own fields: --group, --rotate, --encoder, --c
};

int runSweepC(const SweepCArgs &a, const CommonOptions &common)
{
    const bool json = common.json;
    const bool quiet = common.quiet;
    ReadOptions rd;
    rd.lenient = common.lenient;
    const auto &tensorName = a.tensorName;
    CSweepOptions o;
    o.device = sweepDevice(common.deviceChoice());
    if (a.constopt.count("group"))
        o.group = a.constopt.at("group").get<std::int64_t>();
    if (a.constopt.count("rotate"))
        o.rotate = a.constopt.at("rotate").get<std::int64_t>();
    if (a.constopt.count("encoder"))
        o.encoder = parseConstOptEncoder(a.constopt.at("encoder").get<std::string>());
    if (a.constopt.count("c"))
        o.defaultC = a.constopt.at("c").get<double>();
    if (const auto &grid = a.grid) {
        const auto a = grid->find(':'), b = grid->find(':', a == std::string::npos ? a : a + 1);
        if (a == std::string::npos || b == std::string::npos)
            throw UsageError("--grid is LO:HI:STEP, got '" + *grid + "'");
        o.lo = toReal("--grid", grid->substr(0, a));
        o.hi = toReal("--grid", grid->substr(a + 1, b - a - 1));
        o.step = toReal("--grid", grid->substr(b + 1));
    }
    const std::vector<std::string> pos{a.path};
    const WeightReader weights = openWeights(pos[0], rd, *tensorName);
    const Tensor w = weights.read(*tensorName);
    o.tensorName = *tensorName;
    const auto t0 = std::chrono::steady_clock::now();
    // One step of the job's progress; the sweep's points move it forward.
    ProgressLine line(quiet);
    const CancelToken cancel;
    if (const StepCallback step = line.callback()) {
        const std::string what = "sweeping c over " + *tensorName;
        step(0.0, 1.0, 1.0, what);
        cancel.setStepProgress([step, what](double f) { step(f, 1.0, 1.0, what); });
    }
    const CSweepResult r = sweepC(w, o, &cancel);
    line.finish();
    if (!r.deviceNote.empty())
        std::fprintf(stderr, "note: %s\n", r.deviceNote.c_str());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

    nlohmann::ordered_json out;
    out["tensor"] = *tensorName;
    out["group"] = o.group;
    out["encoder"] = toString(o.encoder);
    out["rotate"] = o.rotate;
    out["grid"] = {o.lo, o.hi, o.step};
    out["c"] = r.c;
    out["mse"] = r.mse;
    out["c_star"] = r.cStar;
    out["c_star_mse"] = r.cStarMse;
    out["c_star_interval"] = {r.intervalLo, r.intervalHi};
    out["grid_argmin"] = r.gridArgmin;
    out["default_c"] = o.defaultC;
    out["mse_at_default"] = r.mseAtDefault;
    out["lloyd_max_mse"] = r.lloydMax.mse;
    out["lloyd_max_levels"] = r.lloydMax.levels;
    out["lloyd_max_iterations"] = r.lloydMax.iterations;
    out["int4_mse"] = r.int4Mse;
    out["mxfp4_mse"] = r.mxfp4Mse;
    if (r.rotatedKurtosis)
        out["rotated_excess_kurtosis"] = *r.rotatedKurtosis;
    out["numel"] = r.numel;
    out["groups"] = r.groups;
    out["nonfinite_groups"] = r.nonFiniteGroups;
    out["device"] = r.device;
    if (!r.deviceNote.empty())
        out["device_note"] = r.deviceNote;
    out["time_ms"] = ms;
    if (json) {
        std::cout << out.dump(1) << '\n';
        return 0;
    }
    std::printf("%s  constOpt %s, group %lld%s: %zu values of c over [%g, %g]  (%.1f ms, %s)\n", tensorName->c_str(),
                toString(o.encoder).c_str(), static_cast<long long>(o.group),
                o.rotate ? (", Hadamard " + std::to_string(o.rotate)).c_str() : "", r.c.size(), o.lo, o.hi, ms,
                r.device.c_str());
    std::printf("  c* = %.5f (MSE %.6g), within 0.1%% of the minimum for c in [%.4f, %.4f]\n", r.cStar, r.cStarMse,
                r.intervalLo, r.intervalHi);
    std::printf("  MSE at c = %g: %.6g   Lloyd–Max %.6g   INT4 %.6g   MXFP4 %.6g\n", o.defaultC, r.mseAtDefault,
                r.lloydMax.mse, r.int4Mse, r.mxfp4Mse);
    if (r.rotatedKurtosis)
        std::printf("  rotated excess kurtosis %.4f\n", *r.rotatedKurtosis);
    return 0;
}

} // namespace

void addSweepCCommand(Commands &c)
{
    auto o = std::make_shared<SweepCArgs>();
    CLI::App *cmd = c.add("sweep-c",
                          "FP4 constOpt: MSE(c) over a grid of c, c*, the flat interval, Lloyd–Max / INT4 / MXFP4 "
                          "references",
                          [o, &c] { return runSweepC(*o, c.common()); });
    cmd->add_option("PATH", o->path, "the checkpoint")->required();
    cmd->add_option("--tensor", o->tensorName, "the weight")->type_name("NAME")->required();
    cmd->add_option("--grid", o->grid, "the values of c swept")->type_name("LO:HI:STEP");
    addSchemaOptions(cmd, "constopt", {"group", "rotate", "encoder", "c"}, o->constopt);
    c.addCommon(cmd, kJson | kQuiet | kDevice | kLenient);
    cmd->footer(
        "Example:\n  quantscope-cli sweep-c demo/ --tensor model.layers.0.mlp.down_proj.weight --rotate 64 --json");
}

} // namespace quantscope::cli
