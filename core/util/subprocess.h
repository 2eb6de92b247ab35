// SPDX-License-Identifier: MIT
#pragma once
/// \file subprocess.h
/// A child process with its stdout and stderr read line by line (POSIX: posix_spawnp + pipes +
/// poll). Cancel sends SIGTERM, then SIGKILL after a grace period. No shell is involved: the
/// arguments are passed as they are.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "util/cancel.h"

namespace quantscope {

struct SubprocessResult {
    int exitCode = -1;      ///< the child's exit status (128 + signal when it was killed)
    bool cancelled = false; ///< the token was cancelled and the child was stopped
};

struct SubprocessOptions {
    /// Extra environment (added to, or replacing, the parent's).
    std::map<std::string, std::string> env;
    /// Seconds between SIGTERM and SIGKILL after a cancel.
    double killGraceSeconds = 5.0;
};

/// Runs argv[0] (found on PATH) with `argv`; calls `onStdout` / `onStderr` with each line
/// (without its newline) on the calling thread. Throws IoError naming the program when it cannot
/// be started.
SubprocessResult runSubprocess(const std::vector<std::string> &argv, const SubprocessOptions &options,
                               const std::function<void(const std::string &line)> &onStdout,
                               const std::function<void(const std::string &line)> &onStderr,
                               const CancelToken *cancel = nullptr);

} // namespace quantscope
