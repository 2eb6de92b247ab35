// SPDX-License-Identifier: MIT
// `quantscope-cli doctor PATH [--json]` (docs/cli.md "`doctor`"): every problem of a checkpoint in one report
// (core/doctor/doctor.h). Exit codes: 0 healthy (info only), 3 warnings, 4 errors; 1 the doctor
// could not run (no such path), 2 usage.
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "doctor/doctor.h"

namespace quantscope::cli {

namespace {

int runDoctor(const std::string &path, bool json)
{
    const DoctorReport r = quantscope::runDoctor(path);
    if (json) {
        // toJson makes every string valid UTF-8; `replace` is the second guard, so that a finding
        // added later without it still prints instead of throwing.
        std::cout << r.toJson().dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return r.exitCode();
    }
    std::printf("%s: %d files, %d tensors — %zu errors, %zu warnings, %zu info\n", r.path.c_str(), r.files, r.tensors,
                r.count(Severity::Error), r.count(Severity::Warning), r.count(Severity::Info));
    for (const Finding &f : r.findings) {
        std::printf("%-7s %-12s %s", toString(f.severity).c_str(), f.check.c_str(),
                    f.tensor.empty() ? (f.module.empty() ? "-" : f.module.c_str()) : f.tensor.c_str());
        if (!f.file.empty())
            std::printf("  [%s%s]", f.file.c_str(), f.offset ? (" @" + std::to_string(*f.offset)).c_str() : "");
        std::printf("\n        %s\n", f.message.c_str());
    }
    if (r.findings.empty())
        std::printf("healthy: nothing to report\n");
    return r.exitCode();
}

} // namespace

void addDoctorCommand(Commands &c)
{
    auto path = std::make_shared<std::string>();
    CLI::App *cmd = c.add("doctor",
                          "every problem of a checkpoint in one report: completeness, quantized modules, scale health, "
                          "dtype traps, KV and static scales, the config against the tensors, fused groups, loader "
                          "rules, duplicates (exit 0 healthy, 3 warnings, 4 errors)",
                          [path, &c] { return runDoctor(*path, c.common().json); });
    cmd->add_option("PATH", *path, "a .safetensors file, a sharded folder or its index")->required();
    c.addCommon(cmd, kJson);
    cmd->footer("Example:\n  quantscope-cli doctor demo/ --json");
}

} // namespace quantscope::cli
