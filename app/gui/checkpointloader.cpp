// SPDX-License-Identifier: MIT
#include "checkpointloader.h"

#include "demo/demo.h"
#include "io/capture.h"
#include "io/checkpoint.h"
#include "io/quantized.h"
#include "io/weight_reader.h"
#include "qtstring.h"
#include "util/error.h"
#include "coremessages.h"

#include <QCoreApplication>
#include <QFile>
#include <exception>
#include <filesystem>
#include <new>
#include <set>
#include <string_view>

namespace quantscope {

namespace fs = std::filesystem;

QString pathToQString(const fs::path &path)
{
    return QFile::decodeName(QByteArray::fromStdString(path.native()));
}

fs::path qstringToPath(const QString &path)
{
    return fs::path(QFile::encodeName(path).toStdString());
}

namespace {

bool endsWith(const std::string &s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// The title bar names a checkpoint by its folder when it was opened as a folder or through its
/// index ("model.safetensors.index.json" says nothing), else by its file.
QString documentNameOf(const fs::path &path)
{
    std::error_code ec;
    auto p = fs::absolute(path, ec);
    if (ec)
        p = path;
    if (!p.has_filename()) // "folder/"
        p = p.parent_path();
    if (endsWith(p.filename().string(), ".index.json"))
        p = p.parent_path();
    const auto name = pathToQString(p.filename());
    return name.isEmpty() ? pathToQString(path) : name;
}

/// What the dtype alone says about a tensor's format; quantized modules detected from their
/// tensor sets replace it (once the readers can say so).
QString formatOfDtype(DType dtype)
{
    const auto name = QString::fromLatin1(nameOf(dtype).data(), static_cast<qsizetype>(nameOf(dtype).size()));
    if (isFloating(dtype) && bitsOf(dtype) >= 16)
        return QCoreApplication::translate("quantscope::CheckpointLoader", "not quantized");
    if (isFloating(dtype))
        return QCoreApplication::translate("quantscope::CheckpointLoader", "%1 elements, no scale found").arg(name);
    return QCoreApplication::translate("quantscope::CheckpointLoader", "%1 integers (codes, indices or packed words)")
        .arg(name);
}

QString errorText(const char *what)
{
    const auto text = QString::fromUtf8(what);
    return coremessages::translated(text.isEmpty() ? QStringLiteral("unknown error") : text);
}

/// Whether the strict refusal is one that lenient reading accepts (gaps, trailing bytes): only
/// then is retrying worth offering. Opening again only re-reads the headers.
bool opensLeniently(const OpenRequest &request) noexcept
{
    try {
        ReadOptions options;
        options.lenient = true;
        (void)Checkpoint::open(qstringToPath(request.path), options);
        return true;
    } catch (...) {
        return false;
    }
}

} // namespace

OpenResult loadCheckpoint(const OpenRequest &request) noexcept
{
    OpenResult result;
    result.request = request;
    // Everything below may throw (bad input, bad_alloc, a bug): no exception crosses the job.
    try {
        result.path = request.path;
        // Checkpoint::open takes files, folders and index files alike.
        const fs::path path = request.demo ? demo::ensureDemoCheckpoint() : qstringToPath(request.path);
        result.path = pathToQString(path);
        result.documentName = documentNameOf(path);

        // A capture is a safetensors file too: it is paired, not opened as the document.
        std::error_code ec;
        if (!request.demo && fs::is_regular_file(path, ec) && isCaptureFile(path)) {
            result.capture = true;
            return result;
        }

        ReadOptions options;
        options.lenient = request.lenient;
        auto checkpoint = std::make_shared<const Checkpoint>(Checkpoint::open(path, options));

        // Quantized modules are listed once, as their logical weight with the scheme in words
        // (as `quantscope-cli info` does); a module the detector refuses stays as plain
        // tensors and its reason becomes a warning.
        DetectOptions detectOptions;
        detectOptions.strict = false;
        auto detection = std::make_shared<const Detection>(detectQuantized(*checkpoint, detectOptions));
        const auto &entries = checkpoint->entries();
        result.entries.reserve(static_cast<qsizetype>(entries.size()));
        std::set<const QuantizedModule *> listed;
        for (const auto &e : entries) {
            result.totalBytes += e.nbytes();
            if (const QuantizedModule *m = detection->isPart(e.name) ? detection->find(e.name) : nullptr) {
                if (!listed.insert(m).second)
                    continue;
                quint64 bytes = 0;
                QStringList parts;
                for (const auto &[role, name] : m->parts) {
                    if (const auto *part = checkpoint->find(name))
                        bytes += part->nbytes();
                    parts << fromStd(name);
                }
                const auto format = formatName(m->format);
                result.entries.append(TensorListEntry{
                    fromStd(m->name), QCoreApplication::translate("quantscope::CheckpointLoader", "quantized"),
                    m->shape, bytes,
                    QStringLiteral("%1: %2").arg(
                        QString::fromLatin1(format.data(), static_cast<qsizetype>(format.size())),
                        fromStd(m->scheme.text()))});
                for (const auto &w : m->warnings)
                    result.warnings.append(fromStd(m->name + ": " + w));
                continue;
            }
            const auto dtype = nameOf(e.dtype);
            result.entries.append(TensorListEntry{
                fromStd(e.name), QString::fromLatin1(dtype.data(), static_cast<qsizetype>(dtype.size())), e.shape,
                e.nbytes(), formatOfDtype(e.dtype)});
        }
        for (const auto &w : checkpoint->warnings())
            result.warnings.append(coremessages::translated(w));
        for (const auto &p : detection->problems)
            result.warnings.append(coremessages::translated(p.message));
        result.quantized = std::move(detection);
        if (request.demo) {
            const auto npy = path / "activations.npy";
            try {
                auto activation = std::make_shared<const Checkpoint>(Checkpoint::open(npy));
                if (!activation->entries().empty()) {
                    result.activationTensor = fromStd(activation->entries().front().name);
                    result.activationPath = pathToQString(npy);
                    result.activationCheckpoint = std::move(activation);
                }
            } catch (const std::exception &e) {
                result.warnings.append(fromStd(std::string("demo activation: ") + e.what()));
            }
        }
        result.fileCount = static_cast<int>(checkpoint->files().size());
        result.sharded = checkpoint->sharded();
        result.checkpoint = std::move(checkpoint);
    } catch (const FormatError &e) {
        result.error = errorText(e.what());
        result.lenientWouldOpen = !request.demo && !request.lenient && opensLeniently(request);
    } catch (const std::bad_alloc &) {
        result.error = coremessages::translated(QStringLiteral("out of memory"));
    } catch (const std::exception &e) {
        result.error = errorText(e.what());
    } catch (...) {
        result.error = coremessages::translated(QStringLiteral("unknown error"));
    }
    if (!result.ok()) {
        result.entries.clear();
        result.totalBytes = 0;
        result.checkpoint.reset();
        result.quantized.reset();
        result.activationCheckpoint.reset();
    }
    return result;
}

std::function<Tensor(const std::string &)> tensorReader(std::shared_ptr<const Checkpoint> checkpoint,
                                                        std::shared_ptr<const Detection> quantized)
{
    // The CLI's loader (io/weight_reader.h): a quantized module's logical weight is its
    // dequantized FP32 values; its packed parts and integer tensors are refused as weights.
    auto reader = std::make_shared<const WeightReader>(std::move(checkpoint), std::move(quantized));
    return [reader = std::move(reader)](const std::string &name) { return reader->read(name); };
}

} // namespace quantscope
