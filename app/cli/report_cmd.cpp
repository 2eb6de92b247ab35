// SPDX-License-Identifier: MIT
// `quantscope-cli report`: a session (.qscope) as one self-contained HTML file (no script, no
// external URL, plots as inline SVG), the window's File ▸ Export Report without a window.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "demo/demo.h"
#include "io/mapped_file.h"
#include "results/report_html.h"
#include "results/session.h"
#include "util/error.h"

namespace quantscope::cli {

namespace {

struct ReportOptions {
    std::string session;
    std::string out;
    std::optional<std::string> recipe;
    std::optional<std::string> title;
};

std::string utcNow()
{
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
    return buf;
}

int runReport(const ReportOptions &o, const CommonOptions &common)
{
    const Session s = loadSessionFile(o.session);
    ReportInfo info;
    if (o.title)
        info.title = *o.title;
    info.generated = utcNow();
    info.version = QUANTSCOPE_VERSION;
    std::filesystem::path checkpoint;
    if (s.checkpoint && s.checkpoint->demo) {
        info.checkpointName = "demo";
        checkpoint = demo::ensureDemoCheckpoint();
    } else if (s.checkpoint) {
        checkpoint = s.checkpoint->path;
        // A relative path is relative to the session's folder, as the window opens it.
        if (checkpoint.is_relative() && !std::filesystem::exists(checkpoint))
            checkpoint = std::filesystem::path(o.session).parent_path() / checkpoint;
        info.checkpointName = std::filesystem::path(s.checkpoint->path).filename().string();
        if (info.checkpointName.empty())
            info.checkpointName = s.checkpoint->path;
    }
    if (!checkpoint.empty()) {
        try {
            info.checkpointHash = checkpointContentHash(checkpoint);
        } catch (const Error &e) {
            std::fprintf(stderr, "quantscope-cli report: no content hash: %s\n", e.what());
        }
    }
    if (o.recipe) {
        std::ifstream in(*o.recipe);
        if (!in)
            throw IoError("cannot read the recipe", Location{*o.recipe, {}, {}});
        try {
            info.recipe = nlohmann::json::parse(in);
        } catch (const nlohmann::json::exception &e) {
            throw FormatError(std::string("the recipe is not JSON: ") + e.what(), Location{*o.recipe, {}, {}});
        }
    }
    const std::string html = sessionReportHtml(s, info);
    AtomicFile out(o.out); // the old report or the whole new one, never a part
    out.write(html.data(), html.size());
    out.commit();
    if (common.json)
        std::cout << nlohmann::ordered_json{{"out", o.out},
                                            {"bytes", html.size()},
                                            {"checkpoint", info.checkpointName},
                                            {"checkpoint_hash", info.checkpointHash},
                                            {"configurations", s.configs.size()},
                                            {"results", s.results.outcomes.size()}}
                         .dump(1)
                  << '\n';
    else
        std::printf("%s: %zu configurations, %zu results, %s %s\n", o.out.c_str(), s.configs.size(),
                    s.results.outcomes.size(), info.checkpointName.c_str(), info.checkpointHash.c_str());
    return 0;
}

} // namespace

void addReportCommand(Commands &c)
{
    auto o = std::make_shared<ReportOptions>();
    CLI::App *cmd = c.add("report", "write a session as one self-contained HTML report (plots, tables, configurations)",
                          [o, &c] { return runReport(*o, c.common()); });
    cmd->add_option("SESSION", o->session, "the session (.qscope) the window saved")->required();
    cmd->add_option("--out", o->out, "where to write the report")->type_name("OUT.html")->required();
    cmd->add_option("--recipe", o->recipe, "a recipe to include in the report")->type_name("R.json");
    cmd->add_option("--title", o->title, "the report's title")->type_name("TEXT");
    c.addCommon(cmd, kJson);
    cmd->footer("Example:\n"
                "  quantscope-cli report examples/demo.qscope --recipe examples/recipe.json --out report.html");
}

} // namespace quantscope::cli
