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
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "weight_packed U8 (FP4 pairs) without weight_scale: the scales are missing"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_packed U8 holds FP4 pairs, but %1 says %2 %3 bits"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_packed is %1; FP4 pairs are [N, K/2]"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_scale has dtype %1; NVFP4 uses F8_E4M3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "NVFP4 weight without weight_global_scale: the global scale is missing"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_scale has dtype %1; MXFP4 uses U8 (E8M0 exponents)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_global_scale is %1; one float is expected"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "NVFP4 (group 16)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "MXFP4 (group 32)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "quantized %1 weight (%2) without weight_scale: the scales are missing"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight is %1, but %2 says type %3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the weight is stored unpacked (%1), but %2 says format '%3': read "
                                                  "as stored (compressed-tensors decides per module)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight is %1; [N, K] or [E, N, K] expected"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_scale has dtype %1; a float dtype is expected"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_scale %1 does not start with the experts of the weight"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "asymmetric quantization (%1) but weight_zero_point is missing"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_zero_point %1 does not match the scale grid %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "weight_zero_point present although the config says symmetric; ignored"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1 has shape %2, but per-tensor quantization (%3) needs one scale; broadcasting it would have "
                      "applied %4 different scales to one tensor"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1 has shape %2, but per-channel quantization (%3) of N = %4 rows needs [%5, 1]; broadcasting "
                      "it would not give one scale per output row"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "group quantization in %1 without a positive group_size"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 has shape %2, but group %3 along K = %4 (%5) needs [%6, %7]"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1; broadcasting it would have applied each scale to %2 columns instead of %3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "block quantization in %1 without a block_structure"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1 has shape %2, but blocks %3x%4 of a [%5, %6] weight (%7) need %8"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "strategy '%1' in %2 is not supported for weights"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1 has shape %2: K = %3 is not a multiple of %4 groups, so the group size cannot be inferred; "
                      "config.json's quantization_config is needed"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 has shape %2, which is not [N, groups] for N = %3; a block grid "
                                                  "needs its block size from config.json (never derived from shapes)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1 has shape %2, which fits no per-tensor, per-channel or group layout of a [%3, %4] weight"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_shape is %1 %2; an integer vector [rank] is expected"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_shape %1 has a negative entry"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: %2 INT%3 codes in %4 words fit both the dense layout and the older 32/b-per-word layout, "
                      "which differ here; the layout is ambiguous and refused"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_packed is %1; [N, words] or [E, N, words] expected"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_packed without weight_scale: the scales are missing"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "weight_packed without weight_shape: K cannot be known exactly from the word count"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_packed I32 holds INT codes, but %1 says type float"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the tensors are pack-quantized, but %1 says format '%2': read as "
                                                  "pack-quantized (compressed-tensors decides per module)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_shape %1 has rank %2, weight_packed %3 rank %4"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "weight_shape %1 lies: K = %2 codes cannot fit in the %3 I32 words of each row of weight_packed %4"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_shape %1 lies: weight_packed holds %2 experts"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_shape %1 lies: weight_packed %2 holds %3 rows"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 says num_bits %2; pack-quantized holds 1..8"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_shape %1 and %2 words per row fit no bit width 1..8; "
                                                  "config.json's quantization_config is needed to know num_bits"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_shape %1 and %2 words per row fit bit widths {%3}; "
                                                  "config.json's quantization_config is needed to know num_bits"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "weight_shape %1 lies or the pack layout is unknown: K = %2 INT%3 codes need %4 words (dense) or "
                      "%5 (32/b per word), weight_packed has %6"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "weight_scale %1 does not start with the %2 experts of weight_packed"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "weight_zero_point present although %1 says symmetric; it is ignored (as compressed-tensors does)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_zero_point has dtype %1; integer zero points are expected"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_zero_point %1 does not start with the experts"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "weight_zero_point %1 does not match the scale grid [%2, %3] packed along dim 0"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "weight_zero_point %1: %2 packed INT%3 zero points need %4 I32 rows in the weight's layout (or %5 raw ones)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_g_idx is %1; I32 [K = %2] expected"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_g_idx given for a %1 scheme; activation order needs groups"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight_g_idx[%1] = %2 is outside the %3 groups"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "K = %1 (config.json '%2') is padded to %3 in the packed words "
                                                  "(Quark pads to a multiple of 8); the padding is dropped"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "the packed rows hold %1 codes and config.json names no dimension between %2 and %3: read as K = "
                      "%4; any padding Quark added is included"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "the packed rows hold %1 codes and config.json names several dimensions between %2 and %3: read "
                      "as K = %4; any padding Quark added is included"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "two-stage Quark weight without weight_scale (the stage-1 FP8 scale s1)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "packed INT4 weight without %1: the scales are missing"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "weight_scale (stage-1 s1) is %1; the FP8 per-tensor stage has one scale ([1] or a scalar)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "stage 1 qscheme '%1' in %2 is not supported (per_tensor FP8 is read)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight I32 is %1; packed INT4 [rows, words] expected"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "weight I32 with Quark dtype '%1' (%2); int4 and uint4 packed in int32 are read"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "unknown pack layout: export.pack_method '%1' (Quark writes 'reorder' or 'order')"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 has dtype %2; a float dtype is expected"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 %2: a Quark per-group scale is stored transposed, [groups, N]"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "weight %1 holds %2 outputs per row after the per-group transpose, %3 %4 has %5"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "N = %1 is padded to %2 in the packed words (Quark pads to a multiple of 8); the padding is dropped"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1 %2: K = %3 is not a multiple of the groups; the group size needs the config"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 %2, but group %3 along K = %4 (%5) needs [%6, %7] (transposed)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1 has shape %2, but per-channel quantization of a weight with N = %3 rows needs [%4]; "
                      "broadcasting it would not give one scale per row"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 has shape %2, but per-tensor quantization needs one scale"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "Quark qscheme '%1' is not supported for packed INT4 weights"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 has dtype %2; integer zero points are expected"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1 %2 fits neither the packed zero points (%3 words) nor one per scale (%4)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "asymmetric quantization (%1) but the zero point is missing"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 sym"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 asym"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "per tensor"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "per channel"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "group %1 along K"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "block %1x%2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "c-t packing"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "c-t legacy packing (32/b per word)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "Quark reorder packing"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "Quark order packing"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "FP4 pairs low nibble first"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "nibble pairs low first"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 (assumed: no pack_method in config)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "transposed [K, N/8]"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "act-order g_idx"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 scales"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 inverse scales"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 scales / F32 global scale"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 inverse scales / F32 global scale"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "two-stage s1·(s2·(q−z2)) with FP8 per-tensor s1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "weight_packed has dtype %1; I32 (packed INT) or U8 (FP4 pairs) expected"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "the config excludes/ignores this module, but its tensors are quantized; read as stored"),
};

} // namespace

std::span<const char *const> quantized()
{
    return kPatterns;
}

} // namespace quantscope::coremessages::tables
