// SPDX-License-Identifier: MIT
#include "checkpointloader.h"

#include "demo/demo.h"
#include "io/checkpoint.h"
#include "util/error.h"

#include <QFile>
#include <exception>
#include <filesystem>
#include <new>

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

/// The File ▸ Open dialog offers index files; the core opens the folder that holds them.
fs::path resolveOpenPath(const fs::path &path)
{
    std::error_code ec;
    if (path.filename() == "model.safetensors.index.json" && fs::is_regular_file(path, ec))
        return path.parent_path().empty() ? fs::path(".") : path.parent_path();
    return path;
}

QString documentNameOf(const fs::path &path)
{
    auto p = path;
    if (!p.has_filename()) // "folder/" names its folder
        p = p.parent_path();
    const auto name = pathToQString(p.filename());
    return name.isEmpty() ? pathToQString(path) : name;
}

QString fromStd(const std::string &s)
{
    return QString::fromStdString(s);
}

QString errorText(const char *what)
{
    const auto text = QString::fromUtf8(what);
    return text.isEmpty() ? QStringLiteral("unknown error") : text;
}

} // namespace

OpenResult loadCheckpoint(const OpenRequest &request) noexcept
{
    OpenResult result;
    result.request = request;
    // Everything below may throw (bad input, bad_alloc, a bug): no exception crosses the job.
    try {
        result.path = request.path;
        fs::path path = request.demo ? demo::ensureDemoCheckpoint()
                                     : resolveOpenPath(qstringToPath(request.path));
        result.path = pathToQString(path);
        result.documentName = documentNameOf(path);

        ReadOptions options;
        options.lenient = request.lenient;
        auto checkpoint = std::make_shared<const Checkpoint>(Checkpoint::open(path, options));

        const auto &entries = checkpoint->entries();
        result.entries.reserve(static_cast<qsizetype>(entries.size()));
        for (const auto &e : entries) {
            const auto dtype = nameOf(e.dtype);
            result.entries.append(TensorListEntry{
                fromStd(e.name),
                QString::fromLatin1(dtype.data(), static_cast<qsizetype>(dtype.size())), e.shape,
                e.nbytes()});
            result.totalBytes += e.nbytes();
        }
        for (const auto &w : checkpoint->warnings())
            result.warnings.append(fromStd(w));
        result.fileCount = static_cast<int>(checkpoint->files().size());
        result.sharded = checkpoint->sharded();
        result.checkpoint = std::move(checkpoint);
    } catch (const FormatError &e) {
        result.error = errorText(e.what());
        result.formatError = true;
    } catch (const std::bad_alloc &) {
        result.error = QStringLiteral("out of memory");
    } catch (const std::exception &e) {
        result.error = errorText(e.what());
    } catch (...) {
        result.error = QStringLiteral("unknown error");
    }
    if (!result.ok()) {
        result.entries.clear();
        result.totalBytes = 0;
        result.checkpoint.reset();
    }
    return result;
}

} // namespace quantscope
