// SPDX-License-Identifier: MIT
// The list of quantscope-cli's commands (addAllCommands) and the small ones that live nowhere
// else: version, completion, help.
#include <cstdio>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "engine/registry.h"
#include "io/safetensors.h"
#include "register.h"
#include "scan_mpi.h"

namespace quantscope::cli {

void addReportCommand(Commands &c);     // report_cmd.cpp
void addGgufExportCommand(Commands &c); // gguf_export_cmd.cpp

namespace {

int printVersion()
{
    std::printf("quantscope-cli %s\nGPU backends built: %s\nCompute device: %s\nMPI: %s\n", QUANTSCOPE_VERSION,
                builtGpuBackends().c_str(), describeComputeDevice().c_str(), mpiDescription().c_str());
    // What each device runs itself, per method (the engine's capability query).
    const auto &reg = BackendRegistry::instance();
    if (const Backend *gpu = reg.gpu()) {
        std::printf("On the GPU:\n");
        for (const auto &m : gpu->capabilities())
            std::printf("  %-12s %s\n", m.method.c_str(), m.options.c_str());
    }
    return 0;
}

} // namespace

void addAllCommands(Commands &c)
{
    addInfoCommand(c);
    addQuantizeCommand(c);
    addSpectrumCommand(c);
    addSweepCCommand(c);
    addKvCommand(c);
    addSweepCommand(c);
    addDecodeCommand(c);
    addGemmBenchCommand(c);
    addScanCommand(c);
    addBudgetCommand(c);
    addModelCommands(c);
    addRecipeCommand(c);
    addExportCommand(c);
    addGgufExportCommand(c);
    addDoctorCommand(c);
    addCompareCommand(c);
    addDemoCommand(c);
    addReportCommand(c);

    CLI::App *version =
        c.add("version", "print the version, the GPU backends built, the compute device and MPI", printVersion);
    version->footer("Example:\n  quantscope-cli version");
    c.setVersionCommand(version);
    auto shell = std::make_shared<std::string>();
    CLI::App *completion =
        c.add("completion", "print a shell completion script generated from the command tree", [shell, &c] {
            std::cout << c.bashCompletion();
            return 0;
        });
    completion->add_option("SHELL", *shell, "the shell")->required()->check(CLI::IsMember({"bash"}));
    completion->footer("Example:\n  mkdir -p ~/.local/share/bash-completion/completions\n"
                       "  quantscope-cli completion bash > ~/.local/share/bash-completion/completions/quantscope-cli");
    c.add("help", "list the commands (as --help does)", [&c] {
        std::cout << c.root().get_formatter()->make_help(&c.root(), "quantscope-cli", CLI::AppFormatMode::Normal);
        return 0;
    });
}

} // namespace quantscope::cli
