// SPDX-License-Identifier: MIT
#pragma once
/// \file devicequery.h
/// What the window's status bar, log and About box say about the compute devices. Detection
/// may start a GPU runtime, so it runs on a worker thread, never on the UI thread.
#include <QString>
#include <QStringList>

namespace quantscope {

struct DeviceQuery {
    QString description;
    QStringList devices; ///< one line per device: name and memory
    bool gpu = false;
    QString gpuReason;
    /// What the GPU runs itself, one line per method (the engine's capability query); empty
    /// without a GPU.
    QStringList gpuMethods;
    QString error; ///< detection failed ("" when it worked)
};

/// Runs on a worker thread: never throws, never touches a widget.
DeviceQuery queryDevice() noexcept;

} // namespace quantscope
