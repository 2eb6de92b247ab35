// SPDX-License-Identifier: MIT
#pragma once
/// \file checkpointloader.h
/// The background job that opens a checkpoint (or generates and opens the demo) and prepares
/// everything the window shows, so that the UI thread only swaps in finished value structs.
#include "tensortreemodel.h"

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace quantscope {

class Checkpoint;
struct Detection;

struct OpenRequest {
    /// File or folder to open; ignored for the demo.
    QString path;
    /// Open the built-in demo (generated into the XDG cache on first use).
    bool demo = false;
    /// Accept gaps and trailing bytes in safetensors files (docs/formats.md "--lenient").
    bool lenient = false;
};

struct OpenResult {
    OpenRequest request;
    /// What was opened: the path as given, or the demo folder.
    QString path;
    /// Short name for the title bar: the file or folder name.
    QString documentName;
    /// Empty on success; otherwise the core's message (file, tensor, offset), untranslated.
    QString error;
    /// Strict reading refused the file, and lenient reading (docs/formats.md) would open it.
    bool lenientWouldOpen = false;
    QStringList warnings;
    QList<TensorListEntry> entries;
    int fileCount = 0;
    quint64 totalBytes = 0;
    bool sharded = false;
    /// Keeps the mappings open for later reads; null on failure.
    std::shared_ptr<const Checkpoint> checkpoint;
    /// The quantized modules found in it (io/quantized.h).
    std::shared_ptr<const Detection> quantized;
    /// The demo only: its activation file (activations.npy), opened with it so that the
    /// pairing is there before anything runs. Null when absent or unreadable (then a warning).
    std::shared_ptr<const Checkpoint> activationCheckpoint;
    QString activationPath;
    QString activationTensor;
    /// The file is a calibration capture (io/capture.h), not a checkpoint: nothing was opened,
    /// the window pairs it with the opened checkpoint instead.
    bool capture = false;

    bool ok() const noexcept { return error.isEmpty(); }
};

/// Runs on a worker thread: never throws, never touches a widget.
OpenResult loadCheckpoint(const OpenRequest &request) noexcept;

/// Reads a tensor of an opened checkpoint by the name the browser shows: a stored tensor as it
/// is, a quantized module's logical weight dequantized to FP32; a packed or quantized part (or
/// an integer tensor) is refused with the reason (io/weight_reader.h). Callable from any thread.
std::function<Tensor(const std::string &)> tensorReader(std::shared_ptr<const Checkpoint> checkpoint,
                                                        std::shared_ptr<const Detection> quantized);

/// std::filesystem::path <-> QString in the file system's encoding.
QString pathToQString(const std::filesystem::path &path);
std::filesystem::path qstringToPath(const QString &path);

} // namespace quantscope
