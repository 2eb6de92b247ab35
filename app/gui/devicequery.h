// SPDX-License-Identifier: MIT
#pragma once
/// \file devicequery.h
/// What the window's status bar, log and About box say about the compute devices. Detection
/// may start a GPU runtime, so it runs on a worker thread, never on the UI thread.
#include "engine/gpu_status.h"

#include <QString>
#include <QStringList>

namespace quantscope {

struct DeviceQuery {
    QString description;
    QStringList devices; ///< one line per device: name and memory
    bool gpu = false;
    QString gpuReason; ///< the engine's English sentence (logs)
    GpuCause gpuCause = GpuCause::Available;
    QString gpuVendor = QStringLiteral("NVIDIA");
    /// What the GPU runs itself, one line per method (the engine's capability query); empty
    /// without a GPU.
    QStringList gpuMethods;
    QString error; ///< detection failed ("" when it worked)
};

/// Runs on a worker thread: never throws, never touches a widget.
DeviceQuery queryDevice() noexcept;

/// The window's words for why there is no GPU (translated): "No NVIDIA GPU found" where there is
/// none; a driver mismatch only for a GPU that is present. `reason` (the engine's own
/// sentence) is added where it says more than the cause.
QString noGpuText(GpuCause cause, const QString &vendor, const QString &reason);

} // namespace quantscope
