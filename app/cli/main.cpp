// SPDX-License-Identifier: MIT
// quantscope-cli: everything but the plots, as JSON for scripts. Exit codes: 0 success,
// 1 refused input or failed work (message on stderr), 2 usage error.
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "register.h"

int main(int argc, char **argv)
{
    quantscope::registerGpuBackends();
    quantscope::cli::Commands commands;
    quantscope::cli::addAllCommands(commands);
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::fputs(commands.root().help().c_str(), stderr);
        return 2;
    }
    if (const auto done = commands.parse(args))
        return *done;
    return commands.run();
}
