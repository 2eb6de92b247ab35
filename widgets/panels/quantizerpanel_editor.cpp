// SPDX-License-Identifier: MIT
// The quantizer panel's field editors, generated from a method's SpecField (quantizerpanel.h):
// int → spin box, enum → combo box (values in words), bool → check box, number → double spin
// box, spec → a nested spec's JSON; an edit stores, validates and reports without a rebuild.
#include "quantizerpanel.h"
#include "specform.h"
#include "specwords.h"

#include "qtstring.h"
#include "theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <algorithm>
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
        // A nested spec (a stage of a two-stage method): the same form as a recipe rule's spec,
        // of the methods the field allows (no JSON to type), checked by the engine like the rest.
        std::vector<MethodInfo> allowed;
        for (const auto &m : m_methods)
            if (std::find(field.choices.begin(), field.choices.end(), m.method) != field.choices.end())
                allowed.push_back(m);
        auto *form = new SpecForm(std::move(allowed), false, parent);
        form->setSpec(spec.contains(key) ? spec[key] : nlohmann::json::object());
        connect(form, &SpecForm::specChanged, this, [this, configIndex, key, changed](const nlohmann::json &stage) {
            m_configs[static_cast<std::size_t>(configIndex)].spec[key] = stage;
            changed();
        });
        w = form;
    } else {
        // A kind this GUI does not know yet: show the JSON value read-only rather than hide it.
        auto *label = new QLabel(spec.contains(key) ? fromStd(spec[key].dump()) : QString(), parent);
        label->setEnabled(false);
        w = label;
    }
    w->setToolTip(help);
    w->setObjectName(QStringLiteral("config%1.%2").arg(configIndex).arg(fromStd(key)));
    return w;
}

} // namespace quantscope
