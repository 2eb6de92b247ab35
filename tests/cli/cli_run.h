// SPDX-License-Identifier: MIT
#pragma once
/// \file cli_run.h
/// Running quantscope-cli from the CLI tests as a user would: the command line quoted for the
/// shell, stdout captured, stderr kept in a file per process, and one demo checkpoint per test
/// process (ctest runs tests as parallel processes).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace cli_test {

namespace fs = std::filesystem;

struct Result {
    int rc = -1;
    std::string out, err;
};

inline std::string slurp(const fs::path &p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline std::string quote(const std::string &s)
{
    std::string q = "'";
    for (char c : s)
        q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

/// Runs `prefix` (a shell-quoted launcher, may be empty) + quantscope-cli + `args`; stdout, stderr
/// and the exit code.
inline Result runWith(const std::string &prefix, const std::vector<std::string> &args)
{
    const fs::path errFile = fs::path(::testing::TempDir()) / ("qs_cli_stderr_" + std::to_string(getpid()) + ".txt");
    std::string cmd = prefix + (prefix.empty() ? "" : " ") + quote(QUANTSCOPE_CLI);
    for (const auto &a : args)
        cmd += " " + quote(a);
    cmd += " 2>" + quote(errFile.string());
    Result r;
    FILE *p = popen(cmd.c_str(), "r");
    if (!p)
        return r;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        r.out.append(buf, n);
    const int status = pclose(p);
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = slurp(errFile);
    return r;
}

inline Result run(const std::vector<std::string> &args)
{
    return runWith({}, args);
}

inline fs::path stories()
{
    return fs::path(QUANTSCOPE_SHARED_DATA) / "stories260K";
}

/// A demo checkpoint private to this process (ctest runs tests as parallel processes), removed
/// when the process exits.
inline fs::path demoDir()
{
    struct Owned {
        fs::path dir;
        ~Owned()
        {
            std::error_code ec;
            fs::remove_all(dir, ec);
        }
    };
    static const Owned owned = [] {
        const fs::path d = fs::path(::testing::TempDir()) / ("qs_cli_demo_" + std::to_string(getpid()));
        fs::remove_all(d);
        const Result r = run({"demo", d.string()});
        EXPECT_EQ(r.rc, 0) << r.err;
        return Owned{d};
    }();
    return owned.dir;
}

} // namespace cli_test
