// SPDX-License-Identifier: MIT
// Core's message patterns of core/ggml: llama.cpp's types, quantizers and the GGUF type mix
// (coremessages.h; tst_coremessages checks the sources against them).
#include "coremessages_tables.h"

#include <QCoreApplication>

namespace quantscope::coremessages::tables {

namespace {

const char *const kPatterns[] = {
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "gguf: imatrix applies to the K-quants (q2_k … q6_k) and i-quants; %1 has no importance-weighted search"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "gguf: the type %1 is not quantized here (one of q4_0 q4_1 q5_0 q5_1 q8_0 q2_k … q6_k iq1_s "
                      "iq1_m iq2_xxs iq2_xs iq2_s iq3_xxs iq3_s iq4_nl iq4_xs tq1_0 tq2_0 mxfp4)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "gguf: %1 needs an importance matrix, as llama.cpp's llama-quantize does (\"this quantization "
                      "requires an imatrix\"): set imatrix (--imatrix) and pair a capture (--capture)"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "sweep format '%1' needs an importance matrix (llama.cpp refuses it without one) and the sweep has no capture; "
        "try iq3_s, iq4_nl, iq4_xs, or quantize --method gguf --type %2 --imatrix --capture CAP.safetensors"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "unknown sweep format '%1' (int2…int8, hqq2…hqq8, fp8, mxfp4, nvfp4, constopt, q4_0 q4_1 q5_0 "
                      "q5_1 q8_0 q2_k…q6_k tq1_0 tq2_0 iq3_s iq4_nl iq4_xs; mxfp4 is the OCP one)"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "importance weights (imatrix) for the unrotated K-quant points only: they weight the original input channels"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "quantizing to the ggml type %1 is not implemented"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "quantizing to the ggml type %1 is not implemented (q4_0, q4_1, q5_0, q5_1, q8_0, q2_k … q6_k, "
                      "iq1_s, iq1_m, iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq4_nl, iq4_xs, tq1_0, tq2_0, mxfp4 are)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "rows of %1 values are not a whole number of %2 blocks of %3 (ggml "
                                                  "quantizes along rows; pick a type with smaller blocks)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "importance weights are used by the K-quants (q2_k … q6_k) and i-quants only, not by %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1 needs an importance matrix: llama.cpp's llama-quantize refuses it without one (\"this "
                      "quantization requires an imatrix\"); give importance weights (an imatrix)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the ggml type %1 does not decode to FP32"),
};

} // namespace

std::span<const char *const> ggml()
{
    return kPatterns;
}

} // namespace quantscope::coremessages::tables
