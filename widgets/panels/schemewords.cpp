// SPDX-License-Identifier: MIT
#include "schemewords.h"

#include "io/checkpoint.h"
#include "io/gguf.h"
#include "qtstring.h"

#include <QCoreApplication>

namespace quantscope::schemewords {

namespace {

// Core's English (ggml::schemeText after the type's name) for lupdate; the lookup is by the text itself.
const char *const kWords[] = {
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme", "dense floats"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme", "dense integers"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme", "blocks of 32, F16 scale d, 4-bit codes, w = d·(q − 8)"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme", "blocks of 32, F16 scale d and min m, 4-bit codes, w = d·q + m"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme", "blocks of 32, F16 scale d, 5-bit codes, w = d·(q − 16)"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme", "blocks of 32, F16 scale d and min m, 5-bit codes, w = d·q + m"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme", "blocks of 32, F16 scale d, 8-bit signed codes, w = d·q"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme",
                      "blocks of 32, F32 scale and sum, 8-bit signed codes (activations only)"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme",
                      "super-blocks of 256, 16 sub-blocks of 16, 4-bit scales and mins (F16 d, dmin), 2-bit codes"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme",
                      "super-blocks of 256, 16 sub-blocks of 16, 6-bit signed scales (F16 d), 3-bit codes"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme",
                      "super-blocks of 256, 8 sub-blocks of 32, 6-bit scales and mins (F16 d, dmin), 4-bit codes"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme",
                      "super-blocks of 256, 8 sub-blocks of 32, 6-bit scales and mins (F16 d, dmin), 5-bit codes"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme",
                      "super-blocks of 256, 16 sub-blocks of 16, 8-bit signed scales (F16 d), 6-bit codes"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme",
                      "super-blocks of 256, F32 scale, 8-bit signed codes (activations only)"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme",
                      "super-blocks of 256, 8 sub-blocks of 32 with 4-bit scales, 8-value E8-lattice codes (256 "
                      "points) + 7-bit sign patterns; 2.06 bits per weight"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme", "super-blocks of 256, 16 sub-blocks of 16 with 4-bit scales, 9-bit "
                                                "E8-lattice codes (512 points) + 7-bit signs; 2.31 bits per weight"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme", "super-blocks of 256, 16 sub-blocks of 16 with 4-bit scales, 10-bit "
                                                "lattice codes (1024 points), explicit sign bits; 2.5 bits per weight"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme", "super-blocks of 256, 8 sub-blocks of 32 with 4-bit scales, 4-value "
                                                "lattice codes (256 points) + 7-bit signs; 3.06 bits per weight"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme",
                      "super-blocks of 256, 8 sub-blocks of 32 with 4-bit odd scales, 9-bit 4-value lattice codes (512 "
                      "points), explicit sign bits; 3.44 bits per weight"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme",
                      "super-blocks of 256, 8 sub-blocks of 32 with 3-bit odd scales and a ±1/8 shift, 11-bit "
                      "ternary-lattice codes (2048 points); 1.56 bits per weight"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme",
                      "super-blocks of 256, 16 sub-blocks of 16 with 3-bit odd scales (F16 d split over their high "
                      "bits), ±1/8 shift per 8, 11-bit ternary-lattice codes; 1.75 bits per weight"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme",
                      "blocks of 32, F16 scale d, 4-bit indexes into a 16-value non-linear table"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme", "super-blocks of 256, 8 sub-blocks of 32 with 6-bit signed scales, "
                                                "4-bit indexes into a 16-value non-linear table; 4.25 bits per weight"),
    QT_TRANSLATE_NOOP(
        "quantscope::GgmlScheme",
        "super-blocks of 256, F16 scale, ternary codes {−1, 0, 1} packed 5 per byte (base 3); 1.69 bits per weight"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme",
                      "super-blocks of 256, F16 scale, ternary codes {−1, 0, 1} in 2 bits; 2.06 bits per weight"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme", "blocks of 32, E8M0 scale, FP4 E2M1 codes (ggml: low nibbles elements "
                                                "0–15, high 16–31; OCP MX packs element pairs)"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme",
                      "blocks of 64 as 4 sub-blocks of 16, UE4M3 scale each, FP4 E2M1 codes (ggml: no per-tensor FP32 "
                      "scale; low nibbles elements 0–7, high 8–15 of each 16)"),
    QT_TRANSLATE_NOOP("quantscope::GgmlScheme", "blocks of 128, F16 scale, 1-bit codes"),
};

bool inTable(const std::string &english)
{
    for (const char *w : kWords)
        if (english == w)
            return true;
    return false;
}

/// ggml::schemeText without the "Q4_K: " in front: core's English words.
std::string wordsOf(ggml::Type t)
{
    const std::string text = ggml::schemeText(t), name(ggml::typeName(t));
    return text.size() > name.size() + 2 ? text.substr(name.size() + 2) : std::string();
}

} // namespace

QString schemeText(ggml::Type t)
{
    const std::string words = wordsOf(t);
    const QString name = fromStd(std::string(ggml::typeName(t)));
    if (words.empty())
        return name;
    return QStringLiteral("%1: %2").arg(name, QCoreApplication::translate("quantscope::GgmlScheme", words.c_str()));
}

bool translated(ggml::Type t)
{
    return inTable(wordsOf(t));
}

QHash<QString, QString> storedSchemes(const std::shared_ptr<const Checkpoint> &checkpoint)
{
    QHash<QString, QString> out;
    const GgufFile *g = checkpoint ? checkpoint->gguf() : nullptr;
    if (!g)
        return out;
    for (const GgufTensorInfo &t : g->tensors()) {
        const QString text =
            QCoreApplication::translate("quantscope::SchemeWords", "Stored as %1").arg(schemewords::schemeText(t.type));
        out.insert(fromStd(t.name), text);
        if (const std::string hf = g->hfName(t.name); !hf.empty())
            out.insert(fromStd(hf), text);
    }
    return out;
}

} // namespace quantscope::schemewords
