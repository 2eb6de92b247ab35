// SPDX-License-Identifier: MIT
#include "quantizerpanel.h"
#include "specwords.h"
#include "results/config_label.h"

#include "qtstring.h"
#include "theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <exception>

namespace quantscope {

namespace {

/// "scale_dtype" → "scale dtype": the engine's keys are the labels (they are also the CLI's
/// and the recipe's words, so a user meets the same name everywhere).
QString labelOf(const std::string &key)
{
    return specwords::fieldLabel(key);
}

/// A small square in the configuration's colour, used as its header icon.
QPixmap swatch(const QColor &c, int size)
{
    QPixmap p(size, size);
    p.fill(c);
    return p;
}

} // namespace

QuantizerPanel::QuantizerPanel(std::vector<MethodInfo> methods, QWidget *parent)
    : QWidget(parent), m_methods(std::move(methods))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    auto *options = new QFormLayout;
    options->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
    m_device = new QComboBox(this);
    m_device->addItem(tr("Auto"), QStringLiteral("auto"));
    m_device->addItem(tr("CPU"), QStringLiteral("cpu"));
    m_device->addItem(tr("GPU"), QStringLiteral("gpu"));
    m_device->setToolTip(tr("Auto uses the GPU when there is one and it has the method, else the "
                            "CPU. Both give the same codes."));
    options->addRow(tr("&Device:"), m_device);

    auto *histogram = new QHBoxLayout;
    m_bins = new QSpinBox(this);
    m_bins->setRange(16, 4096);
    m_bins->setValue(256);
    m_bins->setToolTip(tr("Histogram bins over W's range (the overlap depends on it)"));
    m_symlog = new QCheckBox(tr("s&ymlog x"), this);
    m_symlog->setToolTip(tr("Bin on sign(x)·log10(1 + |x|/t), t = 10⁻³·max|W|: shows the "
                            "tails and the values near zero at once"));
    histogram->addWidget(m_bins);
    histogram->addWidget(m_symlog);
    histogram->addStretch(1);
    auto *binsLabel = new QLabel(tr("&Bins:"), this);
    binsLabel->setBuddy(m_bins);
    options->addRow(binsLabel, histogram);

    auto *activation = new QHBoxLayout;
    m_activation = new QLabel(this);
    m_activation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_activation->setWordWrap(true);
    m_clearActivation = new QToolButton(this);
    m_clearActivation->setText(tr("Unpair"));
    m_clearActivation->setToolTip(tr("Stop pairing the activation with the weights"));
    connect(m_clearActivation, &QToolButton::clicked, this, &QuantizerPanel::activationClearRequested);
    activation->addWidget(m_activation, 1);
    activation->addWidget(m_clearActivation);
    options->addRow(tr("Activation:"), activation);
    layout->addLayout(options);

    m_scroll = new QScrollArea(this);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // the columns scroll inside
    layout->addWidget(m_scroll, 1);

    auto *buttons = new QHBoxLayout;
    m_run = new QPushButton(QIcon::fromTheme(QStringLiteral("media-playback-start")), tr("&Run"), this);
    m_run->setToolTip(tr("Quantize the selected tensors with every configuration (Ctrl+R)"));
    m_run->setDefault(true);
    m_cancel = new QPushButton(QIcon::fromTheme(QStringLiteral("process-stop")), tr("Cancel"), this);
    m_cancel->setEnabled(false);
    buttons->addStretch(1);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_run);
    layout->addLayout(buttons);
    connect(m_run, &QPushButton::clicked, this, &QuantizerPanel::runRequested);
    connect(m_cancel, &QPushButton::clicked, this, &QuantizerPanel::cancelRequested);

    setActivation(QString());
    if (!m_methods.empty())
        addConfiguration();
    else
        rebuild();
}

int QuantizerPanel::methodIndex(const std::string &method) const
{
    for (std::size_t i = 0; i < m_methods.size(); ++i)
        if (m_methods[i].method == method)
            return static_cast<int>(i);
    return -1;
}

const SpecField *QuantizerPanel::fieldOf(int method, const std::string &key) const
{
    if (method < 0 || method >= static_cast<int>(m_methods.size()))
        return nullptr;
    for (const auto &f : m_methods[static_cast<std::size_t>(method)].fields)
        if (f.key == key)
            return &f;
    return nullptr;
}

QString QuantizerPanel::nextName() const
{
    for (char c = 'A'; c < 'A' + kMaxConfigurations; ++c) {
        const QString name(QLatin1Char{c});
        bool used = false;
        for (const auto &config : m_configs)
            used = used || config.name == name;
        if (!used)
            return name;
    }
    return QStringLiteral("?");
}

std::vector<JobConfig> QuantizerPanel::configurations() const
{
    std::vector<JobConfig> out;
    for (const auto &c : m_configs)
        out.push_back({c.name.toStdString(), c.spec});
    return out;
}

QStringList QuantizerPanel::setConfigurations(const std::vector<JobConfig> &configs)
{
    QStringList problems;
    m_configs.clear();
    for (const auto &jc : configs) {
        if (static_cast<int>(m_configs.size()) >= kMaxConfigurations)
            break;
        const auto method = jc.spec.is_object() ? jc.spec.value("method", std::string()) : std::string();
        const int mi = methodIndex(method);
        if (mi < 0) {
            problems
                << tr("Configuration %1: this Quantscope has no method “%2”").arg(fromStd(jc.name), fromStd(method));
            continue;
        }
        Config c;
        c.name = fromStd(jc.name);
        c.method = mi;
        c.spec = m_methods[static_cast<std::size_t>(mi)].defaults;
        for (const auto &f : m_methods[static_cast<std::size_t>(mi)].fields)
            if (jc.spec.contains(f.key))
                c.spec[f.key] = jc.spec[f.key];
        validate(c);
        m_configs.push_back(std::move(c));
    }
    rebuild();
    emit configurationsChanged();
    return problems;
}

bool QuantizerPanel::addConfiguration(const QString &method)
{
    if (static_cast<int>(m_configs.size()) >= kMaxConfigurations || m_methods.empty())
        return false;
    int mi = method.isEmpty() ? 0 : methodIndex(method.toStdString());
    if (mi < 0)
        return false;
    Config c;
    c.name = nextName();
    // A new column starts as a copy of the last one: comparing usually changes one field.
    if (method.isEmpty() && !m_configs.empty()) {
        c.method = m_configs.back().method;
        c.spec = m_configs.back().spec;
    } else {
        c.method = mi;
        c.spec = m_methods[static_cast<std::size_t>(mi)].defaults;
    }
    validate(c);
    m_configs.push_back(std::move(c));
    rebuild();
    emit configurationsChanged();
    return true;
}

void QuantizerPanel::removeConfiguration(int index)
{
    if (index < 0 || index >= static_cast<int>(m_configs.size()) || m_configs.size() <= 1)
        return;
    m_configs.erase(m_configs.begin() + index);
    rebuild();
    emit configurationsChanged();
}

bool QuantizerPanel::setSpecValue(int index, const QString &key, const nlohmann::json &value)
{
    if (index < 0 || index >= static_cast<int>(m_configs.size()))
        return false;
    auto &c = m_configs[static_cast<std::size_t>(index)];
    if (!fieldOf(c.method, key.toStdString()))
        return false;
    c.spec[key.toStdString()] = value;
    validate(c);
    rebuild();
    emit configurationsChanged();
    return true;
}

QString QuantizerPanel::validationError(int index) const
{
    if (index < 0 || index >= static_cast<int>(m_configs.size()))
        return {};
    return m_configs[static_cast<std::size_t>(index)].error;
}

QWidget *QuantizerPanel::editor(int index, const QString &key) const
{
    if (index < 0 || index >= static_cast<int>(m_editors.size()))
        return nullptr;
    for (const auto &[k, w] : m_editors[static_cast<std::size_t>(index)])
        if (fromStd(k) == key)
            return w;
    return nullptr;
}

void QuantizerPanel::validate(Config &config)
{
    try {
        (void)makeQuantizer(config.spec);
        config.error.clear();
    } catch (const std::exception &e) {
        config.error = QString::fromUtf8(e.what());
    }
}

QWidget *QuantizerPanel::makeEditor(int configIndex, const SpecField &field, QWidget *parent)
{
    auto &spec = m_configs[static_cast<std::size_t>(configIndex)].spec;
    const auto key = field.key;
    const auto help = fromStd(field.help);
    // After an edit: store, validate, show the verdict (no rebuild: focus stays in the editor).
    auto changed = [this, configIndex] {
        auto &c = m_configs[static_cast<std::size_t>(configIndex)];
        validate(c);
        if (auto *label = m_grid->findChild<QLabel *>(QStringLiteral("error%1").arg(configIndex))) {
            label->setText(c.error.isEmpty() ? QString() : tr("⚠ %1").arg(c.error));
            label->setToolTip(c.error);
        }
        emit configurationsChanged();
    };
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
                QMetaObject::invokeMethod(
                    this, [this] { rebuild(); }, Qt::QueuedConnection);
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
        edit->setMinimumWidth(fontMetrics().averageCharWidth() * 14);
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
    w->setObjectName(QStringLiteral("%1.%2").arg(m_configs[static_cast<std::size_t>(configIndex)].name, fromStd(key)));
    return w;
}

void QuantizerPanel::rebuild()
{
    // The union of the methods' fields, in the order they first appear: one row per key.
    std::vector<std::string> keys;
    for (const auto &c : m_configs)
        for (const auto &f : m_methods[static_cast<std::size_t>(c.method)].fields)
            if (specFieldApplies(c.spec, f.key) && std::find(keys.begin(), keys.end(), f.key) == keys.end())
                keys.push_back(f.key);

    // The row labels (and "+ Add" above them) in a column of their own beside the
    // configurations' horizontal scroll area: they stay visible however far it scrolls. Both
    // grids get the same row heights (synced below) so that each label stays beside its row.
    auto *outer = new QWidget;
    auto *labels = new QWidget(outer);
    auto *lg = new QGridLayout(labels);
    auto *grid = new QWidget;
    auto *g = new QGridLayout(grid);
    for (auto *l : {lg, g}) {
        l->setContentsMargins(0, 0, 0, 0);
        l->setHorizontalSpacing(8);
        l->setVerticalSpacing(3);
    }
    m_editors.assign(m_configs.size(), {});
    const int iconSize = fontMetrics().height() - 4;

    lg->addWidget(new QLabel(tr("Method"), labels), 1, 0);
    for (std::size_t r = 0; r < keys.size(); ++r) {
        auto *label = new QLabel(labelOf(keys[r]), labels);
        for (const auto &c : m_configs)
            if (const auto *f = fieldOf(c.method, keys[r])) {
                label->setToolTip(fromStd(f->help) + QStringLiteral("\n(") + fromStd(keys[r]) + QLatin1Char(')'));
                break;
            }
        lg->addWidget(label, static_cast<int>(r) + 2, 0);
    }
    const int errorRow = static_cast<int>(keys.size()) + 2;

    for (std::size_t ci = 0; ci < m_configs.size(); ++ci) {
        const int col = static_cast<int>(ci);
        const int index = static_cast<int>(ci);
        auto &c = m_configs[ci];

        auto *head = new QWidget(grid);
        auto *hl = new QHBoxLayout(head);
        hl->setContentsMargins(0, 0, 0, 0);
        auto *colour = new QLabel(head);
        colour->setPixmap(swatch(theme::configColor(index, palette()), iconSize));
        auto *name = new QLabel(QStringLiteral("<b>%1</b>").arg(c.name.toHtmlEscaped()), head);
        name->setToolTip(tr("Configuration %1: its colour in every plot").arg(c.name));
        auto *remove = new QToolButton(head);
        remove->setText(QStringLiteral("×"));
        remove->setAutoRaise(true);
        remove->setToolTip(tr("Remove configuration %1").arg(c.name));
        remove->setEnabled(m_configs.size() > 1);
        connect(remove, &QToolButton::clicked, this, [this, index] {
            // Deleting the grid from inside its own button's signal: defer.
            QMetaObject::invokeMethod(
                this, [this, index] { removeConfiguration(index); }, Qt::QueuedConnection);
        });
        hl->addWidget(colour);
        hl->addWidget(name);
        hl->addStretch(1);
        hl->addWidget(remove);
        g->addWidget(head, 0, col);

        auto *method = new QComboBox(grid);
        for (const auto &m : m_methods)
            method->addItem(fromStd(m.method), fromStd(m.method));
        for (int i = 0; i < method->count(); ++i)
            method->setItemData(i, fromStd(m_methods[static_cast<std::size_t>(i)].description), Qt::ToolTipRole);
        method->setCurrentIndex(c.method);
        method->setToolTip(fromStd(m_methods[static_cast<std::size_t>(c.method)].description));
        method->setObjectName(QStringLiteral("%1.method").arg(c.name));
        connect(method, &QComboBox::currentIndexChanged, this, [this, index](int mi) {
            auto &config = m_configs[static_cast<std::size_t>(index)];
            if (mi < 0 || mi == config.method)
                return;
            config.method = mi;
            config.spec = m_methods[static_cast<std::size_t>(mi)].defaults;
            validate(config);
            QMetaObject::invokeMethod(this, &QuantizerPanel::rebuild, Qt::QueuedConnection);
            emit configurationsChanged();
        });
        g->addWidget(method, 1, col);

        for (std::size_t r = 0; r < keys.size(); ++r) {
            const auto *f = fieldOf(c.method, keys[r]);
            QWidget *w = nullptr;
            if (f && specFieldApplies(c.spec, keys[r])) {
                w = makeEditor(index, *f, grid);
                m_editors[ci].emplace_back(keys[r], w);
            } else if (f) {
                auto *unused = new QLabel(QStringLiteral("—"), grid);
                unused->setEnabled(false);
                unused->setToolTip(specwords::onlyWith(keys[r]));
                w = unused;
            } else {
                auto *none = new QLabel(QStringLiteral("—"), grid);
                none->setEnabled(false);
                none->setToolTip(
                    tr("Method %1 has no “%2”")
                        .arg(fromStd(m_methods[static_cast<std::size_t>(c.method)].method), labelOf(keys[r])));
                w = none;
            }
            g->addWidget(w, static_cast<int>(r) + 2, col);
        }
        auto *error = new QLabel(c.error.isEmpty() ? QString() : tr("⚠ %1").arg(c.error), grid);
        error->setObjectName(QStringLiteral("error%1").arg(index));
        error->setWordWrap(true);
        error->setToolTip(c.error);
        QPalette p = error->palette();
        p.setColor(QPalette::WindowText, theme::accentColor(palette()));
        error->setPalette(p);
        g->addWidget(error, errorRow, col);
        g->setColumnMinimumWidth(col, 120);
    }

    auto *add = new QToolButton(labels);
    add->setText(tr("+ Add"));
    add->setToolTip(tr("Compare another configuration (up to %1)").arg(kMaxConfigurations));
    add->setEnabled(static_cast<int>(m_configs.size()) < kMaxConfigurations && !m_methods.empty());
    connect(add, &QToolButton::clicked, this, [this] {
        QMetaObject::invokeMethod(
            this, [this] { addConfiguration(); }, Qt::QueuedConnection);
    });
    lg->addWidget(add, 0, 0, Qt::AlignLeft);
    g->setColumnStretch(static_cast<int>(m_configs.size()), 1);
    for (auto *l : {lg, g}) {
        l->setRowStretch(errorRow + 1, 1);
        l->activate();
    }
    for (int r = 0; r <= errorRow; ++r) {
        int h = 0;
        for (auto *l : {lg, g})
            for (int c = 0; c < l->columnCount(); ++c)
                if (auto *item = l->itemAtPosition(r, c))
                    h = std::max(h, item->sizeHint().height());
        lg->setRowMinimumHeight(r, h);
        g->setRowMinimumHeight(r, h);
    }

    m_columns = new QScrollArea(outer);
    m_columns->setWidgetResizable(true);
    m_columns->setFrameShape(QFrame::NoFrame);
    m_columns->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_columns->setWidget(grid);
    // As tall as the grid plus room for the scroll bar: the outer area scrolls vertically.
    m_columns->setFixedHeight(grid->sizeHint().height() + m_columns->horizontalScrollBar()->sizeHint().height() + 2);
    auto *hl = new QHBoxLayout(outer);
    hl->setContentsMargins(0, 0, 0, 0);
    hl->setSpacing(8);
    hl->addWidget(labels, 0, Qt::AlignTop);
    hl->addWidget(m_columns, 1, Qt::AlignTop);

    // At least one configuration column stays in view beside long (translated) labels: the
    // panel asks for that width rather than squeezing the columns to nothing.
    m_columns->setMinimumWidth(120);
    m_scroll->setMinimumWidth(outer->minimumSizeHint().width() + m_scroll->verticalScrollBar()->sizeHint().width() + 4);

    m_grid = grid;
    m_scroll->setWidget(outer); // deletes the previous grid and labels
}

void QuantizerPanel::changeEvent(QEvent *event)
{
    // The configuration swatches and warnings take their colours from the palette: a theme
    // switch redraws them.
    if (event->type() == QEvent::PaletteChange)
        QMetaObject::invokeMethod(this, &QuantizerPanel::rebuild, Qt::QueuedConnection);
    QWidget::changeEvent(event);
}

QString QuantizerPanel::device() const
{
    return m_device->currentData().toString();
}

void QuantizerPanel::setDevice(const QString &device)
{
    const int i = m_device->findData(device);
    m_device->setCurrentIndex(i >= 0 ? i : 0);
}

void QuantizerPanel::setGpuAvailable(bool available, const QString &reason)
{
    auto *model = qobject_cast<QStandardItemModel *>(m_device->model());
    if (!model)
        return;
    auto *gpu = model->item(2);
    gpu->setEnabled(available);
    gpu->setToolTip(reason);
    if (!available && m_device->currentIndex() == 2)
        m_device->setCurrentIndex(0);
}

int QuantizerPanel::bins() const
{
    return m_bins->value();
}

void QuantizerPanel::setBins(int bins)
{
    m_bins->setValue(bins);
}

bool QuantizerPanel::symlog() const
{
    return m_symlog->isChecked();
}

void QuantizerPanel::setSymlog(bool on)
{
    m_symlog->setChecked(on);
}

void QuantizerPanel::setActivation(const QString &tensorName, const QString &file)
{
    m_activation->setText(tensorName.isEmpty() ? tr("none (right-click a tensor to pair one)") : tensorName);
    m_activation->setToolTip(file.isEmpty() ? tensorName : tr("%1 from %2").arg(tensorName, file));
    m_clearActivation->setVisible(!tensorName.isEmpty());
}

void QuantizerPanel::setRunning(bool running)
{
    m_cancel->setEnabled(running);
}

} // namespace quantscope
