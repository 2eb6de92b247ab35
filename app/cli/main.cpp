// SPDX-License-Identifier: MIT
// quantscope-cli: everything but the plots, as JSON for scripts. Exit codes: 0 success,
// 1 refused input or failed work (message on stderr), 2 usage error.
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "register.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

/// A command runs once and exits, so memory it frees is better kept for its next allocation than
/// handed back to the system: glibc otherwise unmaps every freed block above its mmap threshold and
/// trims the heap's top, and the next buffer of that size comes back as fresh pages the kernel
/// faults in and clears one by one (a quarter of the `kv` lab's page faults). Blocks up to glibc's
/// largest threshold (32 MiB) now come from the heap and stay there; larger ones are mapped as before.
void keepFreedMemory()
{
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_TOP_PAD, 16 << 20);
#endif
}

} // namespace

int main(int argc, char **argv)
{
    keepFreedMemory();
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
