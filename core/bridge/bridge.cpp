// SPDX-License-Identifier: MIT
#include "bridge/bridge.h"

#include <cstdlib>
#include <deque>
#include <filesystem>
#include <optional>

#include "util/subprocess.h"

namespace quantscope {

namespace fs = std::filesystem;

namespace {

std::string envOr(const char *name, const std::string &fallback)
{
    const char *v = std::getenv(name);
    return v && *v ? std::string(v) : fallback;
}

std::string installedBridgeDir()
{
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec)
        return {};
    const fs::path dir = exe.parent_path().parent_path() / "share" / "quantscope" / "python";
    return fs::exists(dir / "quantscope_bridge", ec) ? dir.string() : std::string();
}

} // namespace

BridgeConfig bridgeConfig(const std::string &pythonOverride)
{
    BridgeConfig c;
    c.python = !pythonOverride.empty() ? pythonOverride : envOr("QUANTSCOPE_PYTHON", "python3");
    c.bridgeDir = envOr("QUANTSCOPE_BRIDGE_DIR", "");
    std::error_code ec;
#ifdef QUANTSCOPE_SOURCE_PYTHON_DIR
    if (c.bridgeDir.empty() && fs::exists(fs::path(QUANTSCOPE_SOURCE_PYTHON_DIR) / "quantscope_bridge", ec))
        c.bridgeDir = QUANTSCOPE_SOURCE_PYTHON_DIR;
#endif
    if (c.bridgeDir.empty())
        c.bridgeDir = installedBridgeDir();
    return c;
}

nlohmann::json runBridge(const BridgeConfig &config, const std::vector<std::string> &args, const CancelToken *cancel,
                         const BridgeProgress &progress, const std::function<void(const std::string &)> &stderrLine)
{
    if (config.bridgeDir.empty())
        throw BridgeError("bridge", "the quantscope_bridge package was not found: set QUANTSCOPE_BRIDGE_DIR to the "
                                    "folder holding it (the source tree's python/)");
    std::vector<std::string> argv{config.python, "-m", "quantscope_bridge"};
    argv.insert(argv.end(), args.begin(), args.end());
    SubprocessOptions so;
    const std::string pp = envOr("PYTHONPATH", "");
    so.env["PYTHONPATH"] = pp.empty() ? config.bridgeDir : config.bridgeDir + ":" + pp;
    so.env["PYTHONUNBUFFERED"] = "1";

    std::optional<nlohmann::json> result, error;
    bool cancelledEvent = false;
    std::deque<std::string> tail; // the last stderr lines, for messages
    const auto onOut = [&](const std::string &line) {
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("event") || !j["event"].is_string()) {
            tail.push_back(line); // stray output (a library's print) is not the protocol
            if (tail.size() > 12)
                tail.pop_front();
            return;
        }
        const std::string ev = j["event"].get<std::string>();
        if (ev == "progress" && progress)
            progress(j.value("done", 0.0), j.value("total", 0.0), j.value("what", std::string()));
        else if (ev == "result")
            result = std::move(j);
        else if (ev == "error")
            error = std::move(j);
        else if (ev == "cancelled")
            cancelledEvent = true;
    };
    const auto onErr = [&](const std::string &line) {
        if (stderrLine)
            stderrLine(line);
        tail.push_back(line);
        if (tail.size() > 12)
            tail.pop_front();
    };
    SubprocessResult r;
    try {
        r = runSubprocess(argv, so, onOut, onErr, cancel);
    } catch (const IoError &e) {
        throw BridgeError("bridge", "cannot start the Python interpreter '" + config.python + "' (" + e.message() +
                                        "): install Python 3 or set QUANTSCOPE_PYTHON to one");
    }
    if (r.cancelled || cancelledEvent)
        throw Cancelled();
    if (error)
        throw BridgeError(error->value("kind", std::string("internal")), error->value("message", std::string()));
    if (result && r.exitCode == 0)
        return *result;
    std::string last;
    for (const auto &l : tail)
        last += "\n  " + l;
    if (r.exitCode == 1 && last.find("No module named quantscope_bridge") != std::string::npos)
        throw BridgeError("bridge", "the interpreter '" + config.python + "' cannot import quantscope_bridge from " +
                                        config.bridgeDir);
    throw BridgeError("bridge", "the bridge (" + config.python + ") exited with status " + std::to_string(r.exitCode) +
                                    " without a result" + (last.empty() ? std::string() : "; its last output:" + last));
}

nlohmann::json checkBridge(const BridgeConfig &config, const std::vector<std::string> &need)
{
    std::string list;
    for (const auto &n : need)
        list += (list.empty() ? "" : ",") + n;
    std::vector<std::string> args{"check"};
    if (!list.empty())
        args.insert(args.end(), {"--need", list});
    return runBridge(config, args, nullptr);
}

} // namespace quantscope
