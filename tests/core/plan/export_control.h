// SPDX-License-Identifier: MIT
#pragma once
// The export driver's control for tests: an optional cancel token and a progress callback that
// takes the fraction only.
#include <functional>

#include "export/checkpoint_writer.h"

namespace quantscope::exporttest {

inline CheckpointExportControl exportControl(const CancelToken *cancel = nullptr,
                                             std::function<void(double)> progress = {})
{
    CheckpointExportControl c;
    c.cancel = cancel;
    if (progress)
        c.progress = [progress](double f, const std::string &) { progress(f); };
    return c;
}

} // namespace quantscope::exporttest
