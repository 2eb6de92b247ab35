// SPDX-License-Identifier: MIT
// Core's message patterns of the quantized-checkpoint readers of core/io (compressed-tensors, Quark,
// FP8 block, native) and the weight reader (coremessages.h; tst_coremessages checks the sources
// against them).
#include "coremessages_tables.h"

#include <QCoreApplication>

namespace quantscope::coremessages::tables {

namespace {

const char *const kPatterns[] = {
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "run `quantscope-cli decode %1 --tensor %2 --out w.npy` first, or "
                                                  "pass the module name '%3' to quantize its decoded weights"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "is the %1 of the quantized module '%2' (%3, %4), not weights; %5"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "belongs to a quantized module that cannot be decoded (%1); its stored parts are not weights"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "is stored as %1: integer codes (a packed or quantized tensor, scheme not detected), not weights; %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "decoded %1 (%2, %3) to FP32 first"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the native layout stores codes and scales; %1 results are packed "
                                                  "ggml blocks and are not saved (decode or compare Ŵ instead)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "NumPy has no dtype for %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "weight_scale_inv beside a %1 weight; FP8 block checkpoints store F8_E4M3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight is %1; FP8 block weights are [N, K]"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "FP8 block scales (%1) but config.json gives no quantization_config.weight_block_size; the block "
                      "size is never derived from shapes"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_scale_inv has dtype %1; F32 expected"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "native module %1: %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the file has no quantscope-native metadata"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "layout version %1 (this build reads %2; quantize --save it again)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "not listed in the metadata"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "unknown granularity '%1'"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "no layout in the metadata"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 '%2' is not a dtype of the native layout"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the part %1 is missing"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 holds %2 elements, %3 expected"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "compensator format '%1' with group %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "float zero points (%1)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "rank-%1 compensator U·V (%2)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 %2x%3 (grid %4x%5) does not describe the tensor's %6 elements"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1: its groups do not fit its scale grid of %2x%3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the spec's method is not the module's method '%1'"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 without its outer scales (outer_layout)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the compensators are not U [%1, rank] and V [rank, %2] of rank %3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "source_dtype '%1'"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the layout %1x%2 does not cover the shape %3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "qs_codes is %1, the metadata says %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "bad metadata: %1"),
};

} // namespace

std::span<const char *const> quantized()
{
    return kPatterns;
}

} // namespace quantscope::coremessages::tables
