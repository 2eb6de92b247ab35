// SPDX-License-Identifier: MIT
#include "specform.h"

#include "qtstring.h"
#include "results/config_label.h"
#include "specwords.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace quantscope {

SpecForm::SpecForm(std::vector<MethodInfo> methods, bool showJson, QWidget *parent)
    : QWidget(parent), m_methods(std::move(methods))
{
    m_method = new QComboBox(this);
    m_method->setObjectName(QStringLiteral("method"));
    m_method->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_method->setMinimumContentsLength(8);
    for (const auto &m : m_methods) {
        m_method->addItem(fromStd(m.method), fromStd(m.method));
        m_method->setItemData(m_method->count() - 1, specwords::coreText(m.description), Qt::ToolTipRole);
    }
    m_fields = new QWidget(this);
    m_form = new QFormLayout(m_fields);
    m_form->setContentsMargins(0, 0, 0, 0);
    m_form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *top = new QFormLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addRow(tr("Method:"), m_method);
    layout->addLayout(top);
    layout->addWidget(m_fields);
    if (showJson) {
        // The spec as the recipe file and `quantscope-cli --spec` spell it: to read, not to type.
        m_json = new QPlainTextEdit(this);
        m_json->setObjectName(QStringLiteral("specJson"));
        m_json->setReadOnly(true);
        m_json->setMaximumHeight(fontMetrics().height() * 5);
        m_json->setToolTip(tr("The spec's JSON (read-only): what the recipe file holds"));
        layout->addWidget(m_json);
    }
    connect(m_method, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i < 0 || i >= static_cast<int>(m_methods.size()))
            return;
        // Another method: its defaults (no field of the old one carries over).
        m_spec = m_methods[static_cast<std::size_t>(i)].defaults;
        QMetaObject::invokeMethod(this, &SpecForm::rebuild, Qt::QueuedConnection);
        edited();
    });
    rebuild();
}

const MethodInfo *SpecForm::method() const
{
    const std::string name = m_spec.is_object() ? m_spec.value("method", "") : "";
    for (const auto &m : m_methods)
        if (m.method == name)
            return &m;
    return m_methods.empty() ? nullptr : &m_methods.front();
}

void SpecForm::setSpec(const nlohmann::json &spec)
{
    m_spec = spec.is_object() ? spec : nlohmann::json::object();
    rebuild();
}

QWidget *SpecForm::editor(const QString &key) const
{
    for (const auto &[k, w] : m_editors)
        if (fromStd(k) == key)
            return w;
    return nullptr;
}

void SpecForm::edited()
{
    if (m_json)
        m_json->setPlainText(fromStd(m_spec.dump(2)));
    emit specChanged(m_spec);
}

void SpecForm::rebuild()
{
    while (m_form->rowCount() > 0)
        m_form->removeRow(0);
    m_editors.clear();
    const MethodInfo *m = method();
    {
        const QSignalBlocker block(m_method);
        m_method->setCurrentIndex(m ? m_method->findData(fromStd(m->method)) : -1);
    }
    if (m) {
        // Missing fields take the method's defaults, so every editor shows a real value.
        for (const auto &[k, v] : m->defaults.items())
            if (!m_spec.contains(k))
                m_spec[k] = v;
        for (const auto &f : m->fields) {
            if (f.key == "method" || !specFieldApplies(m_spec, f.key))
                continue;
            QWidget *w = makeEditor(f);
            m_editors.emplace_back(f.key, w);
            auto *label = new QLabel(specwords::fieldLabel(f.key), m_fields);
            label->setToolTip(specwords::coreText(f.help) + QStringLiteral("\n(") + fromStd(f.key) + QLatin1Char(')'));
            label->setBuddy(w);
            m_form->addRow(label, w);
        }
    }
    if (m_json)
        m_json->setPlainText(fromStd(m_spec.dump(2)));
}

QWidget *SpecForm::makeEditor(const SpecField &field)
{
    const auto key = field.key;
    const nlohmann::json value = m_spec.contains(key) ? m_spec[key] : nlohmann::json();
    QWidget *w = nullptr;
    if (field.kind == "int") {
        auto *spin = new QSpinBox(m_fields);
        spin->setRange(field.minValue, field.maxValue);
        spin->setValue(value.is_number_integer() ? value.get<int>() : field.minValue);
        connect(spin, &QSpinBox::valueChanged, this, [this, key](int v) {
            m_spec[key] = v;
            edited();
        });
        w = spin;
    } else if (field.kind == "enum") {
        auto *combo = new QComboBox(m_fields);
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(8);
        for (const auto &choice : field.choices) {
            combo->addItem(specwords::choiceLabel(key, choice), fromStd(choice));
            combo->setItemData(combo->count() - 1, fromStd(choice), Qt::ToolTipRole);
        }
        if (value.is_string())
            combo->setCurrentIndex(combo->findData(fromStd(value.get<std::string>())));
        connect(combo, &QComboBox::currentIndexChanged, this, [this, key, combo] {
            m_spec[key] = combo->currentData().toString().toStdString();
            edited();
            // Another field may now apply or stop applying (group size, E8M0 rounding).
            if (key == "granularity" || key == "scale_dtype")
                QMetaObject::invokeMethod(this, &SpecForm::rebuild, Qt::QueuedConnection);
        });
        w = combo;
    } else if (field.kind == "bool") {
        auto *check = new QCheckBox(m_fields);
        check->setChecked(value.is_boolean() && value.get<bool>());
        connect(check, &QCheckBox::toggled, this, [this, key](bool on) {
            m_spec[key] = on;
            edited();
        });
        w = check;
    } else if (field.kind == "number") {
        auto *spin = new QDoubleSpinBox(m_fields);
        const bool ranged = field.minReal < field.maxReal;
        spin->setRange(ranged ? field.minReal : -1e12, ranged ? field.maxReal : 1e12);
        spin->setDecimals(6);
        const double v = value.is_number() ? value.get<double>() : 0.0;
        spin->setSingleStep(std::fabs(v) < 1 ? 0.001 : 0.1);
        spin->setValue(v);
        connect(spin, &QDoubleSpinBox::valueChanged, this, [this, key](double x) {
            m_spec[key] = x;
            edited();
        });
        w = spin;
    } else if (field.kind == "spec") {
        // A stage: the same form, of the methods the field allows, without a JSON view of its
        // own (the whole spec's is below).
        std::vector<MethodInfo> allowed;
        for (const auto &mi : quantizerMethods())
            if (std::find(field.choices.begin(), field.choices.end(), mi.method) != field.choices.end())
                allowed.push_back(mi);
        auto *nested = new SpecForm(std::move(allowed), false, m_fields);
        nested->setSpec(value);
        connect(nested, &SpecForm::specChanged, this, [this, key](const nlohmann::json &stage) {
            m_spec[key] = stage;
            edited();
        });
        w = nested;
    } else {
        // A kind this GUI does not know yet: its JSON value, read-only, rather than hidden.
        auto *label = new QLabel(fromStd(value.dump()), m_fields);
        label->setEnabled(false);
        w = label;
    }
    w->setToolTip(specwords::coreText(field.help));
    w->setObjectName(fromStd(key));
    return w;
}

} // namespace quantscope
