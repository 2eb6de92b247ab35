// SPDX-License-Identifier: MIT
// The quantizer panel's field editors, generated from a method's SpecField (quantizerpanel.h):
// int → spin box, enum → combo box (values in words), bool → check box, number → double spin
// box, spec → a nested spec's JSON; an edit stores, validates and reports without a rebuild.
#include "quantizerpanel.h"
#include "specwords.h"

#include "qtstring.h"
#include "theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <cmath>

namespace quantscope {

QWidget *QuantizerPanel::makeEditor(int configIndex, const SpecField &field, QWidget *parent)
{
    auto &spec = m_configs[static_cast<std::size_t>(configIndex)].spec;
    const auto key = field.key;
    const auto help = specwords::coreText(field.help);
    // After an edit: store, validate, show the verdict (no rebuild: focus stays in the editor).
    auto changed = [this, configIndex] { this->changed(configIndex); };
    QWidget *w = nullptr;
    if (field.kind == "int") {
        auto *spin = new QSpinBox(parent);
        spin->setRange(field.minValue, field.maxValue);
        spin->setValue(spec.contains(key) && spec[key].is_number_integer() ? spec[key].get<int>() : field.minValue);
        spin->setAccelerated(true);
        connect(spin, &QSpinBox::valueChanged, this, [this, configIndex, key, changed](int v) {
            m_configs[static_cast<std::size_t>(configIndex)].spec[key] = v;
            changed();
        });
        w = spin;
    } else if (field.kind == "enum") {
        auto *combo = new QComboBox(parent);
        // As narrow as a few characters: a long choice must not widen the dock.
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(8);
        // Values in words; the internal name (spec JSON, CLI) in each item's tooltip.
        for (const auto &choice : field.choices) {
            combo->addItem(specwords::choiceLabel(key, choice), fromStd(choice));
            combo->setItemData(combo->count() - 1, fromStd(choice), Qt::ToolTipRole);
        }
        if (spec.contains(key) && spec[key].is_string())
            combo->setCurrentIndex(combo->findData(fromStd(spec[key].get<std::string>())));
        connect(combo, &QComboBox::currentIndexChanged, this, [this, configIndex, key, combo, changed] {
            m_configs[static_cast<std::size_t>(configIndex)].spec[key] = combo->currentData().toString().toStdString();
            changed();
            // Another field may now apply or stop applying (group size, E8M0 rounding):
            // show only the fields that apply.
            if (key == "granularity" || key == "scale_dtype")
                QMetaObject::invokeMethod(this, &QuantizerPanel::rebuildForm, Qt::QueuedConnection);
        });
        w = combo;
    } else if (field.kind == "bool") {
        auto *check = new QCheckBox(parent);
        check->setChecked(spec.contains(key) && spec[key].is_boolean() && spec[key].get<bool>());
        connect(check, &QCheckBox::toggled, this, [this, configIndex, key, changed](bool on) {
            m_configs[static_cast<std::size_t>(configIndex)].spec[key] = on;
            changed();
        });
        w = check;
    } else if (field.kind == "number") {
        auto *spin = new QDoubleSpinBox(parent);
        // An unset range (min = max) means any finite value.
        const bool ranged = field.minReal < field.maxReal;
        spin->setRange(ranged ? field.minReal : -1e12, ranged ? field.maxReal : 1e12);
        spin->setDecimals(6);
        const double value = spec.contains(key) && spec[key].is_number() ? spec[key].get<double>() : 0.0;
        spin->setSingleStep(std::fabs(value) < 1 ? 0.001 : 0.1);
        spin->setValue(value);
        spin->setAccelerated(true);
        connect(spin, &QDoubleSpinBox::valueChanged, this, [this, configIndex, key, changed](double v) {
            m_configs[static_cast<std::size_t>(configIndex)].spec[key] = v;
            changed();
        });
        w = spin;
    } else if (field.kind == "spec") {
        // A nested spec (a stage of a two-stage method): its JSON, edited in place and checked
        // by the engine like the whole spec; text that is not a JSON object is refused.
        auto *edit = new QLineEdit(parent);
        edit->setText(spec.contains(key) ? fromStd(spec[key].dump()) : QStringLiteral("{}"));
        edit->setCursorPosition(0);
        edit->setMinimumWidth(fontMetrics().averageCharWidth() * 10);
        connect(edit, &QLineEdit::textEdited, this, [this, configIndex, key, edit, changed](const QString &text) {
            nlohmann::json value;
            try {
                value = nlohmann::json::parse(text.toStdString());
            } catch (const nlohmann::json::exception &) {
                value = nullptr;
            }
            // A colour of its own only while the text is wrong: otherwise the box
            // follows the theme.
            QPalette p;
            if (!value.is_object())
                p.setColor(QPalette::Text, theme::accentColor(palette()));
            edit->setPalette(p);
            if (!value.is_object())
                return;
            m_configs[static_cast<std::size_t>(configIndex)].spec[key] = value;
            changed();
        });
        w = edit;
    } else {
        // A kind this GUI does not know yet: show the JSON value read-only rather than hide it.
        auto *label = new QLabel(spec.contains(key) ? fromStd(spec[key].dump()) : QString(), parent);
        label->setEnabled(false);
        w = label;
    }
    QStringList allowed;
    if (field.kind == "spec")
        for (const auto &m : field.choices)
            allowed << fromStd(m);
    w->setToolTip(
        allowed.isEmpty() ? help : tr("%1\nA JSON spec of one of: %2").arg(help, allowed.join(QStringLiteral(", "))));
    w->setObjectName(QStringLiteral("config%1.%2").arg(configIndex).arg(fromStd(key)));
    return w;
}

} // namespace quantscope
