// SPDX-License-Identifier: MIT
#include <chrono>
#include <cstdio>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "demo/demo.h"

namespace quantscope::cli {

namespace {

struct DemoOptions {
    std::string outDir;
    std::uint64_t seed = demo::kDefaultSeed;
};

int runDemo(const DemoOptions &o)
{
    const auto t0 = std::chrono::steady_clock::now();
    demo::writeDemoCheckpoint(o.outDir, o.seed);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "demo checkpoint written to %s in %.0f ms\n", o.outDir.c_str(), ms);
    return 0;
}

} // namespace

void addDemoCommand(Commands &c)
{
    auto o = std::make_shared<DemoOptions>();
    CLI::App *cmd = c.add("demo", "write the built-in demo checkpoint (2 shards, index, config, activations)",
                          [o] { return runDemo(*o); });
    cmd->add_option("OUT_DIR", o->outDir, "the folder to write")->required();
    cmd->add_option("--seed", o->seed, "the generator's seed")->capture_default_str();
    cmd->footer("Example:\n  quantscope-cli demo my-demo/ && quantscope-cli info my-demo/");
}

} // namespace quantscope::cli
