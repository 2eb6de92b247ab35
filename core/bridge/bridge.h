// SPDX-License-Identifier: MIT
#pragma once
/// \file bridge.h
/// The Python bridge (docs/bridge.md): the user's own PyTorch + transformers run the model in a
/// child process (`python -m quantscope_bridge COMMAND ...`), which speaks JSON lines on stdout:
/// start, progress, exactly one result or one error, or cancelled. The C++ side never links Python.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/cancel.h"
#include "util/error.h"

namespace quantscope {

/// Where the bridge runs.
struct BridgeConfig {
    std::string python;    ///< the interpreter: QUANTSCOPE_PYTHON, a setting, or "python3"
    std::string bridgeDir; ///< the folder holding the quantscope_bridge package
};

/// The interpreter (`pythonOverride`, else $QUANTSCOPE_PYTHON, else "python3") and the package
/// folder ($QUANTSCOPE_BRIDGE_DIR, else the source tree's python/ when it exists, else
/// <prefix>/share/quantscope/python beside the executable).
BridgeConfig bridgeConfig(const std::string &pythonOverride = {});

/// An error event of the bridge, or a bridge that ended without a result.
class BridgeError : public Error {
public:
    BridgeError(std::string kind, std::string message) : Error(std::move(message)), m_kind(std::move(kind)) {}
    /// missing-package, load, tokenizer, input, shape, io, internal, or "bridge" (the process
    /// itself failed: no interpreter, a crash, no result).
    const std::string &kind() const noexcept { return m_kind; }

private:
    std::string m_kind;
};

/// progress(done, total, what) from the bridge's progress events.
using BridgeProgress = std::function<void(double done, double total, const std::string &what)>;

/// Runs one bridge command and returns its result event. Throws BridgeError (an error event, or
/// the interpreter missing or dying: the message names the interpreter and ends with the last
/// lines it wrote on stderr), Cancelled when `cancel` fired (the child is stopped; it removes its
/// staged files). `stderrLine`, when set, sees every stderr line as it comes.
nlohmann::json runBridge(const BridgeConfig &config, const std::vector<std::string> &args, const CancelToken *cancel,
                         const BridgeProgress &progress = {},
                         const std::function<void(const std::string &)> &stderrLine = {});

/// `check`: versions of python, torch, transformers, safetensors, numpy, gguf and whether CUDA is
/// there. Throws BridgeError kind missing-package naming what lacks and the install command.
nlohmann::json checkBridge(const BridgeConfig &config, const std::vector<std::string> &need);

} // namespace quantscope
