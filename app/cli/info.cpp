// SPDX-License-Identifier: MIT
// `quantscope-cli info`: the tensors of a checkpoint, with statistics on request.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "json_out.h"
#include "io/checkpoint.h"
#include "metrics/moments.h"
#include "util/error.h"

namespace quantscope::cli {

namespace {

std::string shapeJsonless(const Shape &s) { return "[" + shapeToString(s) + "]"; }

} // namespace

int runInfo(Args args)
{
    const bool json = args.flag("--json");
    const bool stats = args.flag("--stats");
    ReadOptions opts;
    opts.lenient = args.flag("--lenient");
    if (auto limit = args.value("--max-header-bytes"))
        opts.maxHeaderBytes = std::stoull(*limit);
    const auto wanted = args.values("--tensor");
    const auto pos = args.positionals();
    if (pos.size() != 1)
        throw UsageError("usage: quantscope-cli info PATH [--tensor NAME]... [--stats] [--lenient] [--json]");

    const Checkpoint ck = Checkpoint::open(pos[0], opts);
    std::vector<const TensorEntry *> selected;
    if (wanted.empty()) {
        for (const auto &e : ck.entries())
            selected.push_back(&e);
    } else {
        for (const auto &name : wanted) {
            const TensorEntry *e = ck.find(name);
            if (!e)
                throw FormatError("no tensor of this name in the checkpoint",
                                  Location{pos[0], name, {}});
            selected.push_back(e);
        }
    }

    nlohmann::ordered_json out;
    out["path"] = pos[0];
    out["tensors"] = nlohmann::ordered_json::array();
    for (const TensorEntry *e : selected) {
        nlohmann::ordered_json t;
        t["name"] = e->name;
        t["dtype"] = std::string(nameOf(e->dtype));
        t["shape"] = e->shape;
        t["bytes"] = e->nbytes();
        t["file"] = e->file.string();
        t["offset"] = e->fileOffset;
        t["format"] = "dense";
        if (stats) {
            try {
                t["stats"] = statsJson(computeStats(ck.tensor(e->name)));
            } catch (const UnsupportedError &err) {
                t["stats"] = nullptr;
                t["stats_error"] = err.message();
            }
        }
        out["tensors"].push_back(std::move(t));
    }
    if (!ck.warnings().empty())
        out["warnings"] = ck.warnings();

    if (json) {
        std::cout << out.dump(1) << '\n';
        return 0;
    }
    std::printf("%s: %zu tensors%s\n", pos[0].c_str(), selected.size(),
                ck.sharded() ? " (sharded)" : "");
    for (const auto &w : ck.warnings())
        std::printf("warning: %s\n", w.c_str());
    for (const auto &t : out["tensors"]) {
        Shape shape = t["shape"].get<Shape>();
        std::printf("  %-60s %-8s %-14s %12llu B", t["name"].get<std::string>().c_str(),
                    t["dtype"].get<std::string>().c_str(), shapeJsonless(shape).c_str(),
                    static_cast<unsigned long long>(t["bytes"].get<std::uint64_t>()));
        if (t.contains("stats") && !t["stats"].is_null()) {
            const auto &s = t["stats"];
            auto num = [](const nlohmann::ordered_json &v) {
                return v.is_null() ? std::string("-") : std::to_string(v.get<double>());
            };
            std::printf("  mean %s std %s kurt %s min %s max %s nan %lld inf %lld",
                        num(s["mean"]).c_str(), num(s["std"]).c_str(),
                        num(s["excess_kurtosis"]).c_str(), num(s["min"]).c_str(),
                        num(s["max"]).c_str(), s["nan_count"].get<long long>(),
                        s["inf_count"].get<long long>());
        }
        std::printf("\n");
    }
    return 0;
}

} // namespace quantscope::cli
