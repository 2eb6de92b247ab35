// SPDX-License-Identifier: MIT
#pragma once
/// \file captureloader.h
/// Opening a calibration capture (io/capture.h) for the window, on a worker thread: the file is
/// validated and paired with the opened checkpoint's weights by module name, as the CLI's
/// `--capture` does; and the capture that lies beside a checkpoint, for the automatic pairing.
#include "io/capture.h"

#include <QString>
#include <memory>

namespace quantscope {

class Checkpoint;

struct CaptureLoad {
    QString path;
    /// Found beside the checkpoint rather than chosen by the user.
    bool automatic = false;
    std::shared_ptr<const Capture> capture; ///< null on failure (and when none was found)
    CapturePairing pairing;
    int weights = 0; ///< the checkpoint's 2-D weights it was paired against
    QString error;   ///< the core's message, untranslated ("" on success)
    bool ok() const noexcept { return error.isEmpty(); }
};

/// Opens `path` and pairs it with `checkpoint`. Never throws: a file that is not a capture, a
/// capture that pairs with none of the weights, or a read error comes back in `error`.
CaptureLoad loadCapture(const QString &path, const std::shared_ptr<const Checkpoint> &checkpoint) noexcept;

/// The capture beside a checkpoint (`checkpointPath` a file or a folder): a `*.capture.safetensors`
/// in its folder, else any `.safetensors` there whose metadata says it is a capture; "" when none.
/// Reads file headers: call it on a worker.
QString findCaptureBeside(const QString &checkpointPath);

} // namespace quantscope
