// SPDX-License-Identifier: MIT
#include <chrono>
#include <cstdio>

#include "cli.h"
#include "demo/demo.h"

namespace quantscope::cli {

int runDemo(Args args)
{
    const auto seed = args.value("--seed");
    const auto pos = args.positionals();
    if (pos.size() != 1)
        throw UsageError("usage: quantscope-cli demo OUT_DIR [--seed N]");
    const auto t0 = std::chrono::steady_clock::now();
    demo::writeDemoCheckpoint(pos[0], seed ? static_cast<std::uint64_t>(toInt("--seed", *seed)) : demo::kDefaultSeed);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "demo checkpoint written to %s in %.0f ms\n", pos[0].c_str(), ms);
    return 0;
}

} // namespace quantscope::cli
