// SPDX-License-Identifier: MIT
#include "quantizerpanel.h"
#include "elidedlabel.h"
#include "specwords.h"
#include "results/config_label.h"
#include "tensor/tensor.h"

#include "qtstring.h"
#include "theme.h"
#include "coremessages.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QThreadPool>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <exception>

namespace quantscope {

namespace {

/// "scale_dtype" → "Scale type": the words of specwords.h (the key in the tooltip).
QString labelOf(const std::string &key)
{
    return specwords::fieldLabel(key);
}

/// A small square in the configuration's colour: its chip on the card.
QPixmap swatch(const QColor &c, int size)
{
    QPixmap p(size, size);
    p.fill(c);
    return p;
}

/// The reference weight bits per weight are measured on: 256 × 1024, deterministic, roughly
/// Gaussian (a sum of uniforms), so a scale's or a compensator's share is that of a real layer.
const Tensor &referenceWeight()
{
    static const Tensor w = [] {
        constexpr std::int64_t rows = 256, cols = 1024;
        std::vector<float> v(static_cast<std::size_t>(rows * cols));
        std::uint32_t state = 12345;
        for (auto &x : v) {
            float sum = 0;
            for (int i = 0; i < 4; ++i) {
                state = state * 1664525u + 1013904223u;
                sum += static_cast<float>(state >> 8) / static_cast<float>(1u << 24) - 0.5f;
            }
            x = 0.02f * sum;
        }
        return Tensor::fromFloats({rows, cols}, v);
    }();
    return w;
}

QThreadPool &bitsPool()
{
    static QThreadPool pool;
    pool.setMaxThreadCount(1);
    return pool;
}

} // namespace

std::vector<QuantizerPanel::Preset> QuantizerPanel::presets()
{
    return {
        // Quark's W4A8 is its ProgressiveSpec: FP8 per tensor, then INT4 per channel.
        {QStringLiteral("Quark W4A8"), {{"method", "progressive"}}},
        {QStringLiteral("llm-compressor W4A16 g128"),
         {{"method", "int"}, {"bits", 4}, {"granularity", "group"}, {"group", 128}, {"symmetric", true}}},
        {QStringLiteral("NVFP4"), {{"method", "nvfp4"}}},
        {QStringLiteral("MXFP4"), {{"method", "mxfp4"}}},
        {QStringLiteral("FP8 block"),
         {{"method", "fp8"}, {"format", "e4m3"}, {"granularity", "block"}, {"block", 128}}},
        {QStringLiteral("HQQ 4-bit g64"), {{"method", "hqq"}, {"bits", 4}, {"group", 64}}},
        {QStringLiteral("MiLo 3-bit r32"), {{"method", "milo"}, {"bits", 3}, {"rank", 32}}},
        {QStringLiteral("UltraQuant constOpt c 0.156"), {{"method", "constopt"}, {"c", 0.156}}},
    };
}

QuantizerPanel::QuantizerPanel(std::vector<MethodInfo> methods, QWidget *parent)
    : QWidget(parent), m_methods(std::move(methods))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    auto *options = new QFormLayout;
    options->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    options->setRowWrapPolicy(QFormLayout::WrapLongRows);
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

    // The configurations as cards, then "+ Add" and the presets.
    m_cardsBox = new QWidget(this);
    m_cardsLayout = new QVBoxLayout(m_cardsBox);
    m_cardsLayout->setContentsMargins(0, 0, 0, 0);
    m_cardsLayout->setSpacing(2);
    layout->addWidget(m_cardsBox);

    auto *adding = new QHBoxLayout;
    m_add = new QToolButton(this);
    m_add->setText(tr("+ Add"));
    m_add->setToolTip(
        tr("Compare another configuration (up to %1): a copy of the one being edited").arg(kMaxConfigurations));
    connect(m_add, &QToolButton::clicked, this, [this] {
        QMetaObject::invokeMethod(
            this, [this] { addConfiguration(); }, Qt::QueuedConnection);
    });
    m_presets = new QComboBox(this);
    m_presets->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_presets->setMinimumContentsLength(10);
    m_presets->addItem(tr("Add a preset…"));
    for (const auto &p : presets()) {
        m_presets->addItem(p.name, p.name);
        m_presets->setItemData(m_presets->count() - 1, fromStd(p.spec.dump()), Qt::ToolTipRole);
    }
    m_presets->setToolTip(tr("Add a configuration as a toolkit quantizes (its spec in each item's tooltip)"));
    connect(m_presets, &QComboBox::activated, this, [this](int i) {
        const QString name = m_presets->itemData(i).toString();
        m_presets->setCurrentIndex(0);
        if (!name.isEmpty())
            QMetaObject::invokeMethod(
                this, [this, name] { addPreset(name); }, Qt::QueuedConnection);
    });
    adding->addWidget(m_add);
    adding->addWidget(m_presets, 1);
    layout->addLayout(adding);

    // The form of the configuration being edited: vertical scrolling only.
    m_scroll = new QScrollArea(this);
    m_scroll->setObjectName(QStringLiteral("configurationForm"));
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::StyledPanel);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
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
        addConfiguration(fromStd(m_methods.front().method));
    else {
        rebuildCards();
        rebuildForm();
    }
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
    m_current = std::clamp(m_current, 0, std::max(0, configurationCount() - 1));
    for (int i = 0; i < configurationCount(); ++i)
        measureBits(i);
    rebuildCards();
    rebuildForm();
    emit configurationsChanged();
    return problems;
}

bool QuantizerPanel::addConfiguration(const QString &method)
{
    if (static_cast<int>(m_configs.size()) >= kMaxConfigurations || m_methods.empty())
        return false;
    const int mi = method.isEmpty() ? 0 : methodIndex(method.toStdString());
    if (mi < 0)
        return false;
    Config c;
    c.name = nextName();
    // A new configuration starts as a copy of the one being edited: comparing usually changes
    // one field.
    if (method.isEmpty() && !m_configs.empty()) {
        const auto &from = m_configs[static_cast<std::size_t>(m_current)];
        c.method = from.method;
        c.spec = from.spec;
    } else {
        c.method = mi;
        c.spec = m_methods[static_cast<std::size_t>(mi)].defaults;
    }
    validate(c);
    m_configs.push_back(std::move(c));
    m_current = configurationCount() - 1;
    measureBits(m_current);
    rebuildCards();
    rebuildForm();
    emit configurationsChanged();
    return true;
}

bool QuantizerPanel::addPreset(const QString &name)
{
    if (configurationCount() >= kMaxConfigurations)
        return false;
    for (const auto &p : presets()) {
        if (p.name != name)
            continue;
        const int mi = methodIndex(p.spec.value("method", std::string()));
        if (mi < 0)
            return false;
        Config c;
        c.name = name;
        c.method = mi;
        c.spec = m_methods[static_cast<std::size_t>(mi)].defaults;
        for (const auto &[k, v] : p.spec.items())
            c.spec[k] = v;
        validate(c);
        m_configs.push_back(std::move(c));
        m_current = configurationCount() - 1;
        measureBits(m_current);
        rebuildCards();
        rebuildForm();
        emit configurationsChanged();
        return true;
    }
    return false;
}

bool QuantizerPanel::duplicateConfiguration(int index)
{
    if (index < 0 || index >= configurationCount() || configurationCount() >= kMaxConfigurations)
        return false;
    Config c = m_configs[static_cast<std::size_t>(index)];
    c.name = nextName();
    c.bitsGeneration = 0;
    m_configs.push_back(std::move(c));
    m_current = configurationCount() - 1;
    measureBits(m_current);
    rebuildCards();
    rebuildForm();
    emit configurationsChanged();
    return true;
}

bool QuantizerPanel::moveConfiguration(int from, int to)
{
    const int n = configurationCount();
    if (from < 0 || from >= n || to < 0 || to >= n || from == to)
        return false;
    const bool editingIt = m_current == from;
    Config c = std::move(m_configs[static_cast<std::size_t>(from)]);
    m_configs.erase(m_configs.begin() + from);
    m_configs.insert(m_configs.begin() + to, std::move(c));
    if (editingIt)
        m_current = to;
    else if (from < m_current && to >= m_current)
        --m_current;
    else if (from > m_current && to <= m_current)
        ++m_current;
    rebuildCards();
    rebuildForm();
    emit configurationsChanged();
    return true;
}

void QuantizerPanel::removeConfiguration(int index)
{
    if (index < 0 || index >= static_cast<int>(m_configs.size()) || m_configs.size() <= 1)
        return;
    m_configs.erase(m_configs.begin() + index);
    if (m_current > index || m_current >= configurationCount())
        m_current = std::max(0, m_current - 1);
    rebuildCards();
    rebuildForm();
    emit configurationsChanged();
}

void QuantizerPanel::setCurrentIndex(int index)
{
    if (index < 0 || index >= configurationCount() || index == m_current)
        return;
    m_current = index;
    m_scroll->verticalScrollBar()->setValue(0); // another configuration's form: from its top
    for (int i = 0; i < configurationCount(); ++i)
        updateCard(i);
    rebuildForm();
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
    measureBits(index);
    updateCard(index);
    if (index == m_current)
        rebuildForm();
    emit configurationsChanged();
    return true;
}

QString QuantizerPanel::validationError(int index) const
{
    if (index < 0 || index >= static_cast<int>(m_configs.size()))
        return {};
    return m_configs[static_cast<std::size_t>(index)].error;
}

QWidget *QuantizerPanel::editor(int index, const QString &key)
{
    if (index < 0 || index >= configurationCount())
        return nullptr;
    setCurrentIndex(index);
    for (const auto &[k, w] : m_editors)
        if (fromStd(k) == key)
            return w;
    return nullptr;
}

QFrame *QuantizerPanel::card(int index) const
{
    return index >= 0 && index < static_cast<int>(m_cards.size()) ? m_cards[static_cast<std::size_t>(index)] : nullptr;
}

QString QuantizerPanel::cardBits(int index) const
{
    return index >= 0 && index < configurationCount() ? m_configs[static_cast<std::size_t>(index)].bits : QString();
}

void QuantizerPanel::validate(Config &config)
{
    try {
        (void)makeQuantizer(config.spec);
        config.error.clear();
    } catch (const std::exception &e) {
        config.error = coremessages::translated(std::string(e.what()));
    }
}

void QuantizerPanel::changed(int index, bool measure)
{
    auto &c = m_configs[static_cast<std::size_t>(index)];
    validate(c);
    if (index == m_current && m_error) {
        m_error->setText(c.error.isEmpty() ? QString() : tr("⚠ %1").arg(c.error));
        m_error->setToolTip(c.error);
    }
    if (measure)
        measureBits(index);
    updateCard(index);
    emit configurationsChanged();
}

void QuantizerPanel::measureBits(int index)
{
    // Bits per weight on the reference weight, in the background (a MiLo fit takes a moment):
    // the card shows "…" until it is there; a newer edit's measurement replaces an older one.
    auto &c = m_configs[static_cast<std::size_t>(index)];
    const int generation = ++c.bitsGeneration;
    c.bits.clear();
    if (!c.error.isEmpty())
        return;
    const nlohmann::json spec = c.spec;
    const QPointer<QuantizerPanel> self(this);
    const QString name = c.name;
    bitsPool().start([self, spec, name, generation] {
        double bits = -1;
        try {
            QuantizeOptions o;
            o.threads = 1;
            o.wantDequantized = false;
            bits = makeQuantizer(spec)->quantize(referenceWeight(), o).bitsPerElement();
        } catch (const std::exception &) {
        }
        QMetaObject::invokeMethod(qApp, [self, name, generation, bits] {
            if (!self)
                return;
            for (int i = 0; i < self->configurationCount(); ++i) {
                auto &config = self->m_configs[static_cast<std::size_t>(i)];
                if (config.name != name || config.bitsGeneration != generation)
                    continue;
                config.bits = bits < 0 ? QStringLiteral("?") : tr("%1 bits/weight").arg(bits, 0, 'f', 2);
                self->updateCard(i);
            }
        });
    });
}

void QuantizerPanel::rebuildCards()
{
    for (auto *card : m_cards)
        card->deleteLater();
    m_cards.clear();
    const int n = configurationCount();
    const int iconSize = fontMetrics().height() - 4;
    for (int i = 0; i < n; ++i) {
        auto *card = new QFrame(m_cardsBox);
        card->setObjectName(QStringLiteral("card%1").arg(i));
        card->setFrameShape(QFrame::StyledPanel);
        card->setCursor(Qt::PointingHandCursor);
        card->installEventFilter(this);
        auto *hl = new QHBoxLayout(card);
        hl->setContentsMargins(4, 2, 2, 2);
        hl->setSpacing(4);
        auto *chip = new QLabel(card);
        chip->setObjectName(QStringLiteral("chip"));
        chip->setPixmap(swatch(theme::configColor(i, palette()), iconSize));
        chip->setToolTip(tr("Its colour in every plot"));
        auto *name = new ElidedLabel(card);
        name->setObjectName(QStringLiteral("name"));
        auto *bits = new QLabel(card);
        bits->setObjectName(QStringLiteral("bits"));
        bits->setToolTip(tr("Bits per weight on a 256 × 1024 reference weight (codes, scales, zero points and "
                            "compensators)"));
        hl->addWidget(chip);
        hl->addWidget(name, 1);
        hl->addWidget(bits);
        auto button = [card, hl](const QString &text, const QString &tip, const QString &objectName) {
            auto *b = new QToolButton(card);
            b->setText(text);
            b->setToolTip(tip);
            b->setAutoRaise(true);
            b->setObjectName(objectName);
            hl->addWidget(b);
            return b;
        };
        auto *up = button(QStringLiteral("↑"), tr("Move up (its colour follows the position)"), QStringLiteral("up"));
        up->setEnabled(i > 0);
        connect(up, &QToolButton::clicked, this, [this, i] {
            QMetaObject::invokeMethod(
                this, [this, i] { moveConfiguration(i, i - 1); }, Qt::QueuedConnection);
        });
        auto *down =
            button(QStringLiteral("↓"), tr("Move down (its colour follows the position)"), QStringLiteral("down"));
        down->setEnabled(i + 1 < n);
        connect(down, &QToolButton::clicked, this, [this, i] {
            QMetaObject::invokeMethod(
                this, [this, i] { moveConfiguration(i, i + 1); }, Qt::QueuedConnection);
        });
        auto *dup = button(QStringLiteral("⊕"), tr("Duplicate"), QStringLiteral("duplicate"));
        dup->setEnabled(n < kMaxConfigurations);
        connect(dup, &QToolButton::clicked, this, [this, i] {
            QMetaObject::invokeMethod(
                this, [this, i] { duplicateConfiguration(i); }, Qt::QueuedConnection);
        });
        auto *remove = button(QStringLiteral("×"), tr("Remove"), QStringLiteral("remove"));
        remove->setEnabled(n > 1);
        connect(remove, &QToolButton::clicked, this, [this, i] {
            // Deleting the card from inside its own button's signal: defer.
            QMetaObject::invokeMethod(
                this, [this, i] { removeConfiguration(i); }, Qt::QueuedConnection);
        });
        m_cardsLayout->addWidget(card);
        m_cards.push_back(card);
        updateCard(i);
    }
    m_add->setEnabled(n < kMaxConfigurations && !m_methods.empty());
    m_presets->setEnabled(n < kMaxConfigurations);
}

void QuantizerPanel::updateCard(int index)
{
    auto *card = this->card(index);
    if (!card)
        return;
    const auto &c = m_configs[static_cast<std::size_t>(index)];
    const bool current = index == m_current;
    card->setFrameShape(current ? QFrame::Box : QFrame::StyledPanel);
    card->setLineWidth(current ? 2 : 1);
    auto *name = card->findChild<ElidedLabel *>(QStringLiteral("name"));
    QFont f = name->font();
    f.setBold(current);
    name->setFont(f);
    const QString method = fromStd(m_methods[static_cast<std::size_t>(c.method)].method);
    name->setFullText(c.error.isEmpty() ? c.name : QStringLiteral("⚠ ") + c.name);
    name->setExtraToolTip(tr("%1 (%2): click to edit").arg(c.name, method) +
                          (c.error.isEmpty() ? QString() : QLatin1Char('\n') + c.error));
    auto *bits = card->findChild<QLabel *>(QStringLiteral("bits"));
    bits->setText(c.error.isEmpty() ? (c.bits.isEmpty() ? QStringLiteral("…") : c.bits) : QStringLiteral("—"));
}

bool QuantizerPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::MouseButtonRelease)
        for (int i = 0; i < static_cast<int>(m_cards.size()); ++i)
            if (watched == m_cards[static_cast<std::size_t>(i)]) {
                setCurrentIndex(i);
                return true;
            }
    return QWidget::eventFilter(watched, event);
}

void QuantizerPanel::rebuildForm()
{
    // The form of one configuration: its label, its method and only the fields its method has
    // (and that apply: a group size only with group granularity). Rebuilding keeps the scroll
    // position (a granularity change must not scroll the form back) and the focused field.
    const int scrolled = m_scroll->verticalScrollBar()->value();
    std::string focusedKey;
    for (const auto &[k, w] : m_editors)
        if (w->hasFocus())
            focusedKey = k;
    m_editors.clear();
    m_error = nullptr;

    auto *form = new QWidget;
    auto *fl = new QFormLayout(form);
    fl->setContentsMargins(4, 4, 4, 4);
    fl->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    // Long (translated) labels go above their field rather than widen the panel.
    fl->setRowWrapPolicy(QFormLayout::WrapLongRows);
    if (m_configs.empty()) {
        m_form = form;
        m_scroll->setWidget(form);
        return;
    }
    const int index = m_current;
    auto &c = m_configs[static_cast<std::size_t>(index)];

    auto *label = new QLineEdit(c.name, form);
    label->setObjectName(QStringLiteral("label"));
    label->setToolTip(tr("The configuration's label in the plots, tables and the report"));
    connect(label, &QLineEdit::editingFinished, this, [this, index, label] {
        const QString text = label->text().trimmed();
        if (index >= configurationCount() || text.isEmpty() || text == m_configs[static_cast<std::size_t>(index)].name)
            return;
        m_configs[static_cast<std::size_t>(index)].name = text;
        changed(index, false);
    });
    fl->addRow(tr("&Label:"), label);

    auto *method = new QComboBox(form);
    method->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    method->setMinimumContentsLength(8);
    for (const auto &m : m_methods)
        method->addItem(fromStd(m.method), fromStd(m.method));
    for (int i = 0; i < method->count(); ++i)
        method->setItemData(i, specwords::coreText(m_methods[static_cast<std::size_t>(i)].description),
                            Qt::ToolTipRole);
    method->setCurrentIndex(c.method);
    method->setToolTip(specwords::coreText(m_methods[static_cast<std::size_t>(c.method)].description));
    method->setObjectName(QStringLiteral("config%1.method").arg(index));
    connect(method, &QComboBox::currentIndexChanged, this, [this, index](int mi) {
        auto &config = m_configs[static_cast<std::size_t>(index)];
        if (mi < 0 || mi == config.method)
            return;
        config.method = mi;
        config.spec = m_methods[static_cast<std::size_t>(mi)].defaults;
        changed(index);
        QMetaObject::invokeMethod(this, &QuantizerPanel::rebuildForm, Qt::QueuedConnection);
    });
    fl->addRow(tr("&Method:"), method);

    for (const auto &f : m_methods[static_cast<std::size_t>(c.method)].fields) {
        if (!specFieldApplies(c.spec, f.key))
            continue;
        QWidget *w = makeEditor(index, f, form);
        m_editors.emplace_back(f.key, w);
        auto *rowLabel = new QLabel(labelOf(f.key), form);
        rowLabel->setToolTip(specwords::coreText(f.help) + QStringLiteral("\n(") + fromStd(f.key) + QLatin1Char(')'));
        rowLabel->setBuddy(w);
        fl->addRow(rowLabel, w);
        if (f.key == focusedKey)
            w->setFocus();
    }
    m_error = new QLabel(c.error.isEmpty() ? QString() : tr("⚠ %1").arg(c.error), form);
    m_error->setObjectName(QStringLiteral("error"));
    m_error->setWordWrap(true);
    m_error->setToolTip(c.error);
    QPalette p = m_error->palette();
    p.setColor(QPalette::WindowText, theme::accentColor(palette()));
    m_error->setPalette(p);
    fl->addRow(m_error);

    m_form = form;
    m_scroll->setWidget(form); // deletes the previous form
    form->adjustSize();
    m_scroll->widget()->layout()->activate();
    m_scroll->verticalScrollBar()->setValue(scrolled);
    // The scroll range settles once the new form is laid out: restore again then.
    QMetaObject::invokeMethod(
        m_scroll,
        [bar = QPointer<QScrollBar>(m_scroll->verticalScrollBar()), scrolled] {
            if (bar)
                bar->setValue(scrolled);
        },
        Qt::QueuedConnection);
}

void QuantizerPanel::changeEvent(QEvent *event)
{
    // The configuration chips and warnings take their colours from the palette: a theme
    // switch redraws them.
    if (event->type() == QEvent::PaletteChange)
        QMetaObject::invokeMethod(
            this,
            [this] {
                rebuildCards();
                rebuildForm();
            },
            Qt::QueuedConnection);
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
