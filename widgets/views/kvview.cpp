// SPDX-License-Identifier: MIT
#include "kvview.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "kvplot.h"
#include "coremessages.h"
#include "qtstring.h"

namespace quantscope {

namespace {

QString numberText(double v)
{
    return std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("—");
}

QTableWidgetItem *numberItem(double v, const QString &text = QString())
{
    auto *item = new QTableWidgetItem(text.isEmpty() ? numberText(v) : text);
    item->setData(KvView::ValueRole, v);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QTableWidgetItem *missingItem(const QString &why)
{
    auto *item = new QTableWidgetItem(QStringLiteral("—"));
    item->setTextAlignment(Qt::AlignCenter);
    item->setToolTip(why);
    return item;
}

QLabel *wrapped(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

/// A heat colour for t in [0, 1] (pale yellow → red), readable under black text.
QColor heat(double t)
{
    t = std::clamp(t, 0.0, 1.0);
    return QColor::fromHsvF(static_cast<float>(0.16 * (1 - t)), static_cast<float>(0.15 + 0.55 * t), 1.0f);
}

} // namespace

KvView::KvView(QWidget *parent) : QWidget(parent)
{
    m_source = wrapped(this);
    m_open = new QPushButton(tr("Open KV Cache…"), this);
    m_open->setToolTip(tr("A capture, or K/V (and Q) arrays in .safetensors, .npz or .npy"));
    auto *sourceRow = new QHBoxLayout;
    sourceRow->addWidget(m_source, 1);
    sourceRow->addWidget(m_open);

    m_k = new QComboBox(this);
    m_v = new QComboBox(this);
    for (const auto &s : defaultKvSchemes()) {
        m_k->addItem(fromStd(s.name()));
        m_v->addItem(fromStd(s.name()));
    }
    m_k->setToolTip(tr("The plan's scheme for the keys"));
    m_v->setToolTip(tr("The plan's scheme for the values"));
    auto cSpin = [this] {
        auto *spin = new QDoubleSpinBox(this);
        spin->setRange(0.01, 1.0);
        spin->setDecimals(4);
        spin->setSingleStep(0.001);
        spin->setValue(0.156);
        spin->setToolTip(tr("constOpt's scale constant: s = c·max|x| per group of 32"));
        return spin;
    };
    m_kC = cSpin();
    m_vC = cSpin();
    m_boundary = new QSpinBox(this);
    m_boundary->setRange(0, 1000);
    m_boundary->setValue(2);
    m_boundary->setToolTip(tr("The first and last n layers stay in BF16 (the plan and the storage)"));
    m_memory = new QDoubleSpinBox(this);
    m_memory->setRange(0.01, 1e6);
    m_memory->setDecimals(2);
    m_memory->setValue(80);
    m_memory->setSuffix(tr(" GiB"));
    m_memory->setToolTip(tr("GPU memory for the KV cache: how many tokens of context fit"));
    auto *controls = new QGridLayout;
    controls->addWidget(new QLabel(tr("K scheme:"), this), 0, 0);
    controls->addWidget(m_k, 0, 1);
    controls->addWidget(new QLabel(tr("c:"), this), 0, 2);
    controls->addWidget(m_kC, 0, 3);
    controls->addWidget(new QLabel(tr("Boundary layers:"), this), 0, 4);
    controls->addWidget(m_boundary, 0, 5);
    controls->addWidget(new QLabel(tr("V scheme:"), this), 1, 0);
    controls->addWidget(m_v, 1, 1);
    controls->addWidget(new QLabel(tr("c:"), this), 1, 2);
    controls->addWidget(m_vC, 1, 3);
    controls->addWidget(new QLabel(tr("KV memory:"), this), 1, 4);
    controls->addWidget(m_memory, 1, 5);
    controls->setColumnStretch(6, 1);

    m_run = new QPushButton(tr("Run"), this);
    m_run->setToolTip(tr("Every KV scheme on every layer and head, the plan, the c sweep, the codebooks and the "
                         "distortion curves, in the background"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setEnabled(false);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->hide();
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_progress, 1);
    m_status = wrapped(this);
    m_error = wrapped(this);
    m_error->setObjectName(QStringLiteral("kvError"));
    m_error->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_error->hide();
    m_notes = wrapped(this);

    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setHorizontalHeaderLabels({tr("Scheme"), tr("K rel MSE"), tr("V rel MSE"), tr("KL"), tr("max |ΔP|"),
                                        tr("Output rel error"), tr("Bytes/token"), tr("Context tokens")});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);

    m_layerScheme = new QComboBox(this);
    m_layerScheme->setToolTip(tr("The scheme whose K and V MSE per layer and head the table shows"));
    m_layers = new QTableWidget(0, 0, this);
    m_layers->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_layers->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto *layerBox = new QWidget(this);
    auto *layerLayout = new QVBoxLayout(layerBox);
    layerLayout->setContentsMargins(0, 0, 0, 0);
    auto *layerRow = new QHBoxLayout;
    layerRow->addWidget(new QLabel(tr("MSE per layer and head:"), layerBox));
    layerRow->addWidget(m_layerScheme, 1);
    layerLayout->addLayout(layerRow);
    layerLayout->addWidget(m_layers, 1);

    auto *tables = new QSplitter(Qt::Horizontal, this);
    tables->addWidget(m_table);
    tables->addWidget(layerBox);
    tables->setStretchFactor(0, 3);
    tables->setStretchFactor(1, 2);

    m_sweep = new KvPlot(KvPlot::Kind::Sweep, this);
    m_distortion = new KvPlot(KvPlot::Kind::Distortion, this);
    m_kurtosis = new KvPlot(KvPlot::Kind::Kurtosis, this);
    m_codebook = new KvPlot(KvPlot::Kind::Codebook, this);
    auto *plots = new QWidget(this);
    auto *grid = new QGridLayout(plots);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_sweep, 0, 0);
    grid->addWidget(m_distortion, 0, 1);
    grid->addWidget(m_kurtosis, 1, 0);
    grid->addWidget(m_codebook, 1, 1);

    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(tables);
    split->addWidget(plots);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    m_table->setMinimumHeight(160);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(sourceRow);
    layout->addLayout(controls);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    layout->addWidget(m_error);
    layout->addWidget(m_notes);
    layout->addWidget(split, 1);

    connect(m_open, &QPushButton::clicked, this, &KvView::openRequested);
    connect(m_run, &QPushButton::clicked, this, &KvView::runRequested);
    connect(m_cancel, &QPushButton::clicked, this, &KvView::cancelRequested);
    connect(m_k, &QComboBox::currentIndexChanged, this, [this] { updateCSpin(m_k, m_kC, true); });
    connect(m_v, &QComboBox::currentIndexChanged, this, [this] { updateCSpin(m_v, m_vC, true); });
    connect(m_layerScheme, &QComboBox::currentIndexChanged, this, &KvView::fillLayerTable);
    const KvLabOptions defaults;
    setKScheme(fromStd(defaults.kPlan.name()));
    setVScheme(fromStd(defaults.vPlan.name()));
    updateCSpin(m_k, m_kC, true);
    updateCSpin(m_v, m_vC, true);
    m_boundary->setValue(defaults.boundary);
    m_memory->setValue(defaults.memoryGiB);
    setSource(QString(), QString());
}

void KvView::updateCSpin(QComboBox *combo, QDoubleSpinBox *spin, bool value)
{
    const KvScheme s = KvScheme::parse(combo->currentText().toStdString());
    const bool given = s.method == KvMethod::ConstOpt && !s.cFit;
    spin->setEnabled(given && !m_running);
    if (given && value)
        spin->setValue(s.c);
}

KvScheme KvView::schemeOf(const QComboBox *combo, const QDoubleSpinBox *spin) const
{
    KvScheme s = KvScheme::parse(combo->currentText().toStdString());
    if (s.method == KvMethod::ConstOpt && !s.cFit)
        s.c = spin->value();
    return s;
}

KvScheme KvView::kScheme() const
{
    return schemeOf(m_k, m_kC);
}

KvScheme KvView::vScheme() const
{
    return schemeOf(m_v, m_vC);
}

bool KvView::setKScheme(const QString &name)
{
    const int i = m_k->findText(name);
    if (i >= 0)
        m_k->setCurrentIndex(i);
    return i >= 0;
}

bool KvView::setVScheme(const QString &name)
{
    const int i = m_v->findText(name);
    if (i >= 0)
        m_v->setCurrentIndex(i);
    return i >= 0;
}

int KvView::boundary() const
{
    return m_boundary->value();
}

double KvView::memoryGiB() const
{
    return m_memory->value();
}

KvLabOptions KvView::options() const
{
    KvLabOptions o;
    o.kPlan = kScheme();
    o.vPlan = vScheme();
    o.boundary = boundary();
    o.memoryGiB = memoryGiB();
    return o;
}

void KvView::setSource(const QString &path, const QString &origin)
{
    m_sourcePath = path;
    if (path.isEmpty())
        m_source->setText(tr("No K/V cache yet: open a checkpoint with its capture beside it, pair a capture (File ▸ "
                             "Open Capture…) or open K/V arrays (File ▸ Open KV Cache…)."));
    else
        m_source->setText(origin.isEmpty() ? path : tr("%1 (%2)").arg(path, origin));
    m_run->setEnabled(!m_running && !path.isEmpty());
    updateEmptyStates();
}

void KvView::setRunning(bool running, const QString &what)
{
    m_running = running;
    m_run->setEnabled(!running && !m_sourcePath.isEmpty());
    m_cancel->setEnabled(running);
    m_progress->setVisible(running);
    m_progress->setValue(0);
    for (QWidget *w : std::initializer_list<QWidget *>{m_k, m_v, m_boundary, m_memory, m_open})
        w->setEnabled(!running);
    // The c spin boxes keep the user's c: only their enabled state follows.
    updateCSpin(m_k, m_kC, false);
    updateCSpin(m_v, m_vC, false);
    if (running) {
        showError(QString());
        m_status->setText(what);
    }
    updateEmptyStates();
}

void KvView::setProgress(double fraction)
{
    m_progress->setValue(static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * 1000)));
}

void KvView::setStatus(const QString &text)
{
    m_status->setText(text);
}

void KvView::showError(const QString &message)
{
    m_error->setVisible(!message.isEmpty());
    m_error->setText(message);
}

void KvView::setReport(std::shared_ptr<const KvLabReport> report)
{
    m_report = std::move(report);
    {
        const QSignalBlocker block(m_layerScheme);
        const QString current = m_layerScheme->currentText();
        m_layerScheme->clear();
        if (m_report) {
            for (const auto &s : m_report->schemes)
                m_layerScheme->addItem(fromStd(s.name));
            m_layerScheme->addItem(fromStd(m_report->plan.name));
            const int i = m_layerScheme->findText(current);
            m_layerScheme->setCurrentIndex(i >= 0 ? i : m_layerScheme->count() - 1);
        }
    }
    fillSchemeTable();
    fillLayerTable();
    for (auto *plot : {m_sweep, m_distortion, m_kurtosis, m_codebook})
        plot->setReport(m_report);
    updateEmptyStates();
}

int KvView::planRow() const
{
    return m_report ? static_cast<int>(m_report->schemes.size()) : -1;
}

void KvView::fillSchemeTable()
{
    m_table->setRowCount(0);
    if (!m_report)
        return;
    const auto &r = *m_report;
    const QString needQueries =
        tr("Attention errors need queries: capture them (Capture Activations in the Model tab) or add q to the file.");
    m_table->setRowCount(static_cast<int>(r.schemes.size()) + 1);
    auto fill = [&](int row, const KvSchemeSummary &s, bool plan) {
        auto *name = new QTableWidgetItem(fromStd(s.name));
        m_table->setItem(row, Scheme, name);
        m_table->setItem(row, KRel, numberItem(s.kRel));
        m_table->setItem(row, VRel, numberItem(s.vRel));
        if (s.attention) {
            m_table->setItem(row, Kl, numberItem(s.attention->kl));
            m_table->setItem(row, MaxDp, numberItem(s.attention->scoreMaxErr));
            m_table->setItem(row, OutRel, numberItem(s.attention->outRel));
        } else {
            for (int c : {Kl, MaxDp, OutRel})
                m_table->setItem(row, c, missingItem(needQueries));
        }
        m_table->setItem(row, BytesPerToken, numberItem(s.bytesPerToken, QString::number(s.bytesPerToken, 'f', 1)));
        m_table->setItem(row, ContextTokens,
                         numberItem(static_cast<double>(s.contextTokens), QLocale().toString(s.contextTokens)));
        if (plan) {
            QFont bold = m_table->font();
            bold.setBold(true);
            QColor back = palette().color(QPalette::Highlight);
            back.setAlpha(60);
            for (int c = 0; c < ColumnCount; ++c) {
                m_table->item(row, c)->setFont(bold);
                m_table->item(row, c)->setBackground(back);
            }
            name->setToolTip(
                tr("The plan: K and V schemes as chosen, the first and last %n layer(s) in BF16", nullptr, boundary()));
        }
    };
    for (int i = 0; i < static_cast<int>(r.schemes.size()); ++i)
        fill(i, r.schemes[static_cast<std::size_t>(i)], false);
    fill(planRow(), r.plan, true);
}

void KvView::fillLayerTable()
{
    m_layers->clear();
    m_layers->setRowCount(0);
    m_layers->setColumnCount(0);
    if (!m_report)
        return;
    const auto &r = *m_report;
    const int index = m_layerScheme->currentIndex();
    const KvSchemeSummary *s = index < 0 ? nullptr
                               : index < static_cast<int>(r.schemes.size())
                                   ? &r.schemes[static_cast<std::size_t>(index)]
                                   : &r.plan;
    if (!s)
        return;
    const int heads = static_cast<int>(r.kvHeads);
    QStringList header;
    for (int h = 0; h < heads; ++h)
        header << tr("K h%1").arg(h);
    for (int h = 0; h < heads; ++h)
        header << tr("V h%1").arg(h);
    m_layers->setColumnCount(2 * heads);
    m_layers->setHorizontalHeaderLabels(header);
    m_layers->setRowCount(static_cast<int>(s->layers.size()));
    QStringList rows;
    // One colour scale for the whole table: log10 of the MSE between its smallest and largest.
    double lo = HUGE_VAL, hi = 0;
    for (const auto &l : s->layers)
        for (const auto *v : {&l.kMse, &l.vMse})
            for (double x : *v)
                if (x > 0) {
                    lo = std::min(lo, x);
                    hi = std::max(hi, x);
                }
    const double span = hi > lo ? std::log10(hi) - std::log10(lo) : 1.0;
    for (int i = 0; i < static_cast<int>(s->layers.size()); ++i) {
        const auto &l = s->layers[static_cast<std::size_t>(i)];
        rows << (static_cast<std::size_t>(i) < r.layerIndex.size()
                     ? tr("layer %1").arg(r.layerIndex[static_cast<std::size_t>(i)])
                     : QString::number(i));
        for (int role = 0; role < 2; ++role) {
            const auto &v = role == 0 ? l.kMse : l.vMse;
            for (int h = 0; h < heads && h < static_cast<int>(v.size()); ++h) {
                const double x = v[static_cast<std::size_t>(h)];
                auto *item = numberItem(x);
                if (x > 0)
                    item->setBackground(heat((std::log10(x) - std::log10(lo)) / span));
                item->setForeground(QColor(Qt::black));
                if (static_cast<std::size_t>(i) < r.layerNames.size())
                    item->setToolTip((role == 0 ? tr("%1, K head %2: MSE %3") : tr("%1, V head %2: MSE %3"))
                                         .arg(fromStd(r.layerNames[static_cast<std::size_t>(i)]))
                                         .arg(h)
                                         .arg(numberText(x)));
                m_layers->setItem(i, role * heads + h, item);
            }
        }
    }
    m_layers->setVerticalHeaderLabels(rows);
}

void KvView::updateEmptyStates()
{
    QString empty, plotEmpty; // the plots' text is short: it sits in the middle of a small plot
    if (m_sourcePath.isEmpty()) {
        empty = tr("Open a K/V cache (File ▸ Open KV Cache…) or pair a capture, then press Run.");
        plotEmpty = tr("Open a K/V cache,\nthen press Run.");
    } else if (m_running) {
        empty = plotEmpty = tr("The lab is running…");
    } else {
        empty = tr("Press Run to study %1.").arg(QFileInfo(m_sourcePath).fileName());
        plotEmpty = tr("Press Run to draw this.");
    }
    for (auto *plot : {m_sweep, m_distortion, m_kurtosis, m_codebook})
        plot->setEmptyText(m_report ? tr("Nothing to draw in this report.") : plotEmpty);
    if (!m_report) {
        m_notes->setText(empty);
        return;
    }
    const auto &r = *m_report;
    QStringList lines;
    lines << tr("%1 (%2): %3 layer(s) × %4 KV head(s) × %5 tokens × d %6; %7 query head(s) × %8 queries; %9 ms.")
                 .arg(QFileInfo(fromStd(r.source)).fileName(), fromStd(r.kind))
                 .arg(r.layers)
                 .arg(r.kvHeads)
                 .arg(r.tokens)
                 .arg(r.headDim)
                 .arg(r.heads)
                 .arg(r.queries)
                 .arg(r.timeMs, 0, 'f', 0);
    lines << tr("c sweep on the rotated keys: c* = %1 (flat for c in [%2, %3]); MSE at 0.156 %4, at 0.195 %5.")
                 .arg(r.sweep.cStar, 0, 'f', 4)
                 .arg(r.sweep.intervalLo, 0, 'f', 4)
                 .arg(r.sweep.intervalHi, 0, 'f', 4)
                 .arg(numberText(r.sweep.mseAt0156), numberText(r.sweep.mseAt0195));
    if (r.queries == 0)
        lines << tr("No queries: attention errors (KL, max |ΔP|, output error) need queries. Capture them (Capture "
                    "Activations in the Model tab) or add q to the file, then run again.");
    for (const auto &n : r.notes)
        lines << tr("Note: %1").arg(coremessages::translated(n));
    m_notes->setText(lines.join(QLatin1Char('\n')));
}

} // namespace quantscope
