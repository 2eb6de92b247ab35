// SPDX-License-Identifier: MIT
// Core's message patterns of the quantized-checkpoint readers of core/io (compressed-tensors, Quark,
// FP8 block, native) and the weight reader (coremessages.h; tst_coremessages checks the sources
// against them).
#include "coremessages_tables.h"

#include <QCoreApplication>

namespace quantscope::coremessages::tables {

namespace {

const char *const kPatterns[] = {
    nullptr,
};

} // namespace

std::span<const char *const> quantized()
{
    return {};
}

} // namespace quantscope::coremessages::tables
