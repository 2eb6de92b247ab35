// SPDX-License-Identifier: MIT
#include "captureloader.h"

#include "checkpointloader.h"
#include "io/checkpoint.h"
#include "scan/scan.h"
#include "coremessages.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <new>
#include <vector>

namespace quantscope {

namespace fs = std::filesystem;

CaptureLoad loadCapture(const QString &path, const std::shared_ptr<const Checkpoint> &checkpoint) noexcept
{
    CaptureLoad r;
    r.path = path;
    try {
        auto capture = std::make_shared<const Capture>(Capture::open(qstringToPath(path)));
        if (checkpoint) {
            // Quantized modules pair by their logical shape, as the scan lists them.
            std::vector<std::pair<std::string, Shape>> weights;
            for (const ScanModule &m : listScanModules(*checkpoint))
                weights.emplace_back(m.tensor, m.shape);
            r.weights = static_cast<int>(weights.size());
            r.pairing = pairCapture(weights, *capture);
            if (r.pairing.matched.empty()) {
                r.error = QString::fromStdString(
                    "the capture pairs with none of the checkpoint's " + std::to_string(weights.size()) + " weights (" +
                    std::to_string(r.pairing.mismatched.size()) +
                    " names match with other shapes): was it captured from another model?");
                return r;
            }
        }
        r.capture = std::move(capture);
    } catch (const std::bad_alloc &) {
        r.error = QStringLiteral("out of memory");
    } catch (const std::exception &e) {
        r.error = coremessages::translated(std::string(e.what()));
    }
    return r;
}

QString findCaptureBeside(const QString &checkpointPath)
{
    std::error_code ec;
    fs::path dir = qstringToPath(checkpointPath);
    if (!fs::is_directory(dir, ec))
        dir = dir.parent_path();
    std::vector<fs::path> named, others;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path &p = it->path();
        if (p.extension() != ".safetensors" || !it->is_regular_file(ec))
            continue;
        (p.filename().string().ends_with(".capture.safetensors") ? named : others).push_back(p);
    }
    std::sort(named.begin(), named.end());
    std::sort(others.begin(), others.end());
    for (const auto *list : {&named, &others})
        for (const fs::path &p : *list)
            if (isCaptureFile(p))
                return pathToQString(p);
    return {};
}

} // namespace quantscope
