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

QString plain(const std::string &s)
{
    return fromStd(s).replace(QLatin1Char('_'), QLatin1Char(' '));
}

} // namespace

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
