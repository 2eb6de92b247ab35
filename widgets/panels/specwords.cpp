// SPDX-License-Identifier: MIT
#include "specwords.h"

#include "results/config_label.h"
#include "qtstring.h"

#include <QCoreApplication>
#include <QMap>

namespace quantscope::specwords {

namespace {

QString translate(const char *text)
{
    return QCoreApplication::translate("quantscope::SpecWords", text);
}

/// Every method's description and every field's help line as core writes them (English, for
/// the CLI): the panel shows them translated. tst_language checks that none is missing here.
const char *const kCoreTexts[] = {
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "uniform integer INT2–8, per tensor / channel / group / block"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "code width in bits (2..8)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "one scale per tensor, channel (row), group of K elements or b×b block"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "group size along K (input dimension)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "block (tile) size for block granularity"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "channel axis: 0 = output rows, 1 = input columns"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "symmetric (zero point 0) or asymmetric (signed zero point)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "toolkit: amax/((qmax−qmin)/2) (INT4 /7.5); max: amax/qmax (INT4 /7)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "round half to even (torch) or half away from zero"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "divide: round(x/s) + z (compressed-tensors); reciprocal: round(x·(1/s) + z) (AMD Quark)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "dtype the scale is rounded to and stored in"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "E8M0 scales: ceil keeps |x|/s within range; round may clip"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "fp32: compute in FP32; source: in the tensor's own dtype (toolkit parity on BF16)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "refuse K not divisible by the group size instead of a ragged last group"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "scale of a zero group: toolkit = finfo(scale dtype).eps, plain = FLT_MIN"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "FP8 E4M3 / E5M2, per tensor / channel / 128×128 block"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "E4M3 (e4m3fn, max 448) or E5M2 (max 57344)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "one scale per tensor, per output row, or per b×b block (DeepSeek weight_scale_inv)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "fp32: compute in FP32; source: in the tensor's own dtype"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "scale of a zero tensor/row/block: toolkit = FP32 eps, plain = FLT_MIN"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "HQQ half-quadratic INT2–8 (presets hqq-lib, milo-code), iterative zero-point fit"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "hqq-lib: mobiusml/hqq's hqq_base_quant_config; milo-code: MiLo's released quantizer"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "code width in bits (2..8; unsigned codes 0..2^b−1)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "group size (hqq-lib: a multiple of 8); numel must be divisible by it"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "HQQ grouping: 1 = g consecutive elements, 0 = g elements spaced numel/g apart"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "fp32 (the library on CPU) or fp16 (every op rounded to FP16, the library on CUDA)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "round z at initialisation: as the preset (hqq-lib 4-bit only), always, never"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "maximum optimiser iterations (the library: 20)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "MiLo: HQQ + low-rank compensator U·V fit by alternating passes"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "code: 11 passes, no early stop (the released loop); paper: ≤ 20 "
                                               "passes, early stop; both return the best pass"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "number of passes (0: the preset's)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "compensator rank r (clamped to min(N, K); 0 = plain HQQ)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "U, V stored as FP16, INT8 (symmetric, per group), INT3 (paper eq. 15) or milo-code-int3"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "group size of the integer compensators (flattened factor)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "Philox seed of the randomized SVD"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "power iterations of the randomized SVD (torch default 2)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "inner HQQ preset (default milo-code: 3-bit, g 64, axis 0)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "inner HQQ code width"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "inner HQQ group size"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "inner HQQ grouping axis"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "inner HQQ arithmetic: fp32 or fp16 (per-op FP16 as on CUDA)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "inner HQQ zero rounding: preset, always, never"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "inner HQQ maximum optimiser iterations"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "MXFP4: FP4 E2M1, E8M0 scale per 32 (even / floor / ceil)"),
    QT_TRANSLATE_NOOP(
        "quantscope::SpecWords",
        "shared exponent: even (Quark/compressed-tensors, amax mantissa rounded first), floor (OCP), ceil"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "elements per E8M0 scale along K (32 in the MX spec)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "NVFP4: FP4 E2M1, E4M3 scale per 16, FP32 global"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "elements per E4M3 block scale along K (16 in NVFP4)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "two stages (Quark ProgressiveSpec): FP8 per tensor → INT4 per channel"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "first stage, applied to W (default FP8 E4M3 per tensor: weight_scale)"),
    QT_TRANSLATE_NOOP(
        "quantscope::SpecWords",
        "second stage, applied to the stage-1 domain values (default INT4 symmetric per channel: weight_scale_2)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "FP4 constOpt: s = c·max per group, optional Hadamard rotation"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "scale constant: s = c·max|x| per group (paper deploys 0.156)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "elements per scale along K"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "pow2: s = 2^round(log2(c·m)) stored as UE8M0; unrounded: s = c·m in FP32"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "Walsh–Hadamard block size d along K (a power of two dividing K); 0 = none"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "GPTQ (llm-compressor): INT codes chosen against the captured inputs' Hessian; needs a capture"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "GPTQ: columns per lazy-batch block (llm-compressor 128)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "GPTQ: fraction of mean diag(H) added to diag(H)"),
    QT_TRANSLATE_NOOP(
        "quantscope::SpecWords",
        "GPTQ: column order: none, or by diag(H) descending (static = weight: each column keeps its group's scale)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "GPTQ: the codes' format: int (the INT options above), fp8 (E4M3, per tensor or channel), "
                      "nvfp4 (E2M1, E4M3 scales of 16 and an FP32 global scale), mxfp4 (E2M1, E8M0 scales of 32)"),
    QT_TRANSLATE_NOOP(
        "quantscope::SpecWords",
        "AWQ (llm-compressor): per-input-channel scales searched on the captured sample, then INT; needs a capture"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords", "AWQ: grid points of the scale search (llm-compressor 20)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "AWQ: scales from activations and weights (on), activations only (off), or half the grid each"),
    QT_TRANSLATE_NOOP(
        "quantscope::SpecWords",
        "llama.cpp's block types Q4_0…Q8_0, the K-quants Q2_K…Q6_K and the i-quants IQ1_S…IQ4_XS (ggml's quantizers)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "llama.cpp's block type: q4_0 q4_1 q5_0 q5_1 q8_0 iq4_nl mxfp4 (blocks of 32), q2_k … q6_k, "
                      "tq1_0 tq2_0 and the i-quants iq1_s … iq4_xs (super-blocks of 256)"),
    QT_TRANSLATE_NOOP("quantscope::SpecWords",
                      "K-quants and i-quants: importance weights from the paired capture (per input channel mean x², "
                      "llama.cpp's imatrix); iq1_s iq1_m iq2_xxs iq2_xs iq2_s iq3_xxs require it"),
};

QString plain(const std::string &s)
{
    return fromStd(s).replace(QLatin1Char('_'), QLatin1Char(' '));
}

} // namespace

QString coreText(const std::string &english)
{
    // The table only makes lupdate see the texts; the lookup is by the text itself.
    static_cast<void>(kCoreTexts);
    return english.empty() ? QString() : QCoreApplication::translate("quantscope::SpecWords", english.c_str());
}

QString fieldLabel(const std::string &key)
{
    static const QMap<QString, const char *> labels = {
        {QStringLiteral("bits"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Bits")},
        {QStringLiteral("granularity"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Granularity")},
        {QStringLiteral("group"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Group size")},
        {QStringLiteral("block"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Block size")},
        {QStringLiteral("axis"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Channel axis")},
        {QStringLiteral("symmetric"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Symmetric")},
        {QStringLiteral("scale_rule"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Scale rule")},
        {QStringLiteral("rounding"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Rounding")},
        {QStringLiteral("scale_apply"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Scale applied by")},
        {QStringLiteral("scale_dtype"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Scale type")},
        {QStringLiteral("e8m0_mode"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "E8M0 rounding")},
        {QStringLiteral("arith"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Arithmetic")},
        {QStringLiteral("strict"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Refuse ragged groups")},
        {QStringLiteral("eps"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Scale of a zero group")},
        {QStringLiteral("format"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Format")},
        {QStringLiteral("rank"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Rank")},
        {QStringLiteral("passes"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Passes")},
        {QStringLiteral("iters"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Iterations")},
        {QStringLiteral("power_iters"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Power iterations")},
        {QStringLiteral("c"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Scale constant c")},
        {QStringLiteral("seed"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Random seed")},
        {QStringLiteral("preset"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Preset")},
        {QStringLiteral("compute"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Compute precision")},
        {QStringLiteral("zero_rounding"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Zero-point rounding")},
        {QStringLiteral("encoder"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Encoder")},
        {QStringLiteral("mode"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Mode")},
        {QStringLiteral("compensator"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Compensator")},
        {QStringLiteral("compensator_group"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Compensator group size")},
        {QStringLiteral("hqq_preset"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "HQQ preset")},
        {QStringLiteral("rotate"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Hadamard rotation block")},
        {QStringLiteral("stage1"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "First stage")},
        {QStringLiteral("stage2"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "Second stage")},
    };
    const auto it = labels.constFind(fromStd(key));
    return it == labels.constEnd() ? plain(key) : translate(*it);
}

QString choiceLabel(const std::string &key, const std::string &choice)
{
    static const QMap<QString, const char *> words = {
        {QStringLiteral("granularity=tensor"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "per tensor")},
        {QStringLiteral("granularity=channel"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "per channel")},
        {QStringLiteral("granularity=group"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "per group")},
        {QStringLiteral("granularity=block"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "per block")},
        {QStringLiteral("scale_rule=toolkit"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "toolkit (amax/7.5)")},
        {QStringLiteral("scale_rule=max"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "maximum (amax/7)")},
        {QStringLiteral("rounding=half_even"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "half to even")},
        {QStringLiteral("rounding=half_away"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "half away from zero")},
        {QStringLiteral("scale_apply=divide"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "dividing by s")},
        {QStringLiteral("scale_apply=reciprocal"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "multiplying by 1/s")},
        {QStringLiteral("scale_dtype=e8m0"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "E8M0 (power of two)")},
        {QStringLiteral("e8m0_mode=ceil"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "round up")},
        {QStringLiteral("e8m0_mode=round"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "round to nearest")},
        {QStringLiteral("arith=fp32"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "in FP32")},
        {QStringLiteral("arith=source"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "in the tensor's own type")},
        {QStringLiteral("eps=toolkit"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "toolkit (eps of the scale type)")},
        {QStringLiteral("eps=plain"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "smallest normal float")},
        {QStringLiteral("format=e4m3"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "E4M3 (max 448)")},
        {QStringLiteral("format=e5m2"), QT_TRANSLATE_NOOP("quantscope::SpecWords", "E5M2 (max 57344)")},
    };
    const auto it = words.constFind(fromStd(key) + QLatin1Char('=') + fromStd(choice));
    if (it != words.constEnd())
        return translate(*it);
    // Type names (fp32, bf16, fp16) read best in capitals.
    if (key == "scale_dtype" || key == "compute")
        return fromStd(choice).toUpper();
    return plain(choice);
}

QString onlyWith(const std::string &key)
{
    const auto on = specFieldSwitch(key);
    if (on.empty())
        return {};
    const std::string value = key == "e8m0_mode" ? "e8m0"
                              : key == "block"   ? "block"
                              : key == "axis"    ? "channel"
                                                 : "group";
    return QCoreApplication::translate("quantscope::SpecWords", "Only with %1 “%2”")
        .arg(fieldLabel(on), choiceLabel(on, value));
}

} // namespace quantscope::specwords
