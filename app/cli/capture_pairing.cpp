// SPDX-License-Identifier: MIT
// --capture of quantize and scan: the capture opened and paired with the checkpoint's weights.
#include <cstdio>

#include "cli.h"
#include "io/capture.h"
#include "io/checkpoint.h"
#include "io/gguf.h"
#include "scan/scan.h"
#include "util/error.h"

namespace quantscope::cli {

std::shared_ptr<const Capture> openPairedCapture(const std::string &path, const Checkpoint &ck, bool quiet)
{
    auto capture = std::make_shared<const Capture>(Capture::open(path));
    std::vector<std::pair<std::string, Shape>> weights;
    for (const ScanModule &m : listScanModules(ck)) {
        std::string name = m.tensor; // a GGUF tensor pairs by its Hugging Face name
        if (const GgufFile *g = ck.gguf())
            if (std::string hf = g->hfName(m.tensor); !hf.empty())
                name = std::move(hf);
        weights.emplace_back(std::move(name), m.shape);
    }
    const CapturePairing p = pairCapture(weights, *capture);
    if (p.matched.empty())
        throw FormatError("the capture pairs with none of the checkpoint's " + std::to_string(weights.size()) +
                              " weights (" + std::to_string(p.mismatched.size()) +
                              " names match with other shapes): was it captured from another model?",
                          Location{path, {}, {}});
    if (!quiet) {
        std::fprintf(stderr, "capture: %zu of %zu modules paired (%lld tokens)\n", p.matched.size(), weights.size(),
                     static_cast<long long>(capture->tokens()));
        for (const auto &m : p.mismatched)
            std::fprintf(stderr, "capture: shape mismatch %s\n", m.c_str());
    }
    return capture;
}

} // namespace quantscope::cli
