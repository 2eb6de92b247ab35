// SPDX-License-Identifier: MIT
#include "results/config_label.h"
#include "distributionview.h"

#include "channelplot.h"
#include "errorhistogramplot.h"
#include "histogramplot.h"
#include "qtstring.h"
#include "tensortreemodel.h"
#include "coremessages.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace quantscope {

namespace {
QString num(double v)
{
    return QLocale().toString(v, 'g', 4);
}
} // namespace

DistributionView::DistributionView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *bar = new QHBoxLayout;
    m_tensor = new QComboBox(this);
    m_tensor->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_tensor->setToolTip(tr("The tensor shown (every tensor of the last run)"));
    m_overlapOf = new QComboBox(this);
    m_overlapOf->setToolTip(tr("The configuration whose overlap with W is shaded"));
    m_axis = new QComboBox(this);
    m_axis->addItem(tr("Input channels"), 1);
    m_axis->addItem(tr("Output channels"), 0);
    m_axis->setToolTip(tr("Channel maxima per column (input channel, what activation outliers "
                          "hit) or per row (output channel, what per-channel scales see)"));
    m_logY = new QCheckBox(tr("&Log counts"), this);
    m_logY->setChecked(true);
    m_logY->setToolTip(tr("Logarithmic count axis: the tails, where the error lives, stay visible"));
    bar->addWidget(new QLabel(tr("Tensor:"), this));
    bar->addWidget(m_tensor, 1);
    bar->addWidget(new QLabel(tr("Shade:"), this));
    bar->addWidget(m_overlapOf);
    bar->addWidget(m_axis);
    bar->addWidget(m_logY);
    layout->addLayout(bar);

    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);

    auto *split = new QSplitter(Qt::Vertical, this);
    m_histogram = new HistogramPlot(split);
    m_error = new ErrorHistogramPlot(split);
    auto *bottom = new QSplitter(Qt::Horizontal, split);
    m_channels = new ChannelPlot(bottom);
    m_outliers = new QTableWidget(bottom);
    m_outliers->setColumnCount(4);
    m_outliers->setHorizontalHeaderLabels({tr("Ch."), tr("max |w|"), tr("× med."), tr("act. |x|")});
    m_outliers->horizontalHeaderItem(0)->setToolTip(tr("Channel index"));
    m_outliers->horizontalHeaderItem(2)->setToolTip(tr("How many times larger than the median channel's maximum"));
    m_outliers->horizontalHeaderItem(3)->setToolTip(tr("The paired activation's maximum in the same input channel"));
    m_outliers->verticalHeader()->hide();
    m_outliers->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_outliers->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_outliers->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_outliers->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_outliers->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_outliers->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Expanding);
    m_outliers->setToolTip(tr("The channels with the largest maxima: they set the scale of "
                              "every group they are in"));
    bottom->addWidget(m_channels);
    bottom->addWidget(m_outliers);
    bottom->setStretchFactor(0, 4);
    bottom->setStretchFactor(1, 1);
    bottom->setCollapsible(0, false);
    split->addWidget(m_histogram);
    split->addWidget(m_error);
    split->addWidget(bottom);
    split->setStretchFactor(0, 5);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 3);
    split->setSizes({450, 280, 330});
    layout->addWidget(split, 1);

    auto changed = [this] {
        if (m_updating)
            return;
        refresh();
        emit stateChanged();
    };
    connect(m_tensor, &QComboBox::currentIndexChanged, this, changed);
    connect(m_overlapOf, &QComboBox::currentIndexChanged, this, changed);
    connect(m_axis, &QComboBox::currentIndexChanged, this, changed);
    connect(m_logY, &QCheckBox::toggled, this, [this](bool on) {
        m_histogram->setLogY(on);
        m_error->setLogY(on);
        if (!m_updating)
            emit stateChanged();
    });
    refresh();
}

int DistributionView::colorIndexOf(const QString &config)
{
    if (config.size() == 1 && config.at(0) >= QLatin1Char('A') && config.at(0) <= QLatin1Char('Z'))
        return config.at(0).unicode() - 'A';
    return static_cast<int>(qHash(config) % 4);
}

void DistributionView::setResults(std::shared_ptr<const QuantizeJobResult> results)
{
    const auto keepTensor = currentTensor();
    const auto keepOverlap = overlapConfig();
    m_results = std::move(results);
    m_updating = true;
    m_tensor->clear();
    m_overlapOf->clear();
    if (m_results) {
        for (const auto &p : m_results->tensors)
            m_tensor->addItem(fromStd(p.tensor), fromStd(p.tensor));
        QStringList configs;
        for (const auto &o : m_results->outcomes)
            if (!configs.contains(fromStd(o.config))) {
                configs << fromStd(o.config);
                m_overlapOf->addItem(fromStd(configLabel(o.config, o.spec)), fromStd(o.config));
            }
    }
    const int t = m_tensor->findData(keepTensor);
    m_tensor->setCurrentIndex(t >= 0 ? t : 0);
    const int o = m_overlapOf->findData(keepOverlap);
    m_overlapOf->setCurrentIndex(o >= 0 ? o : 0);
    m_updating = false;
    refresh();
}

void DistributionView::setStaleConfigs(const QSet<QString> &configs)
{
    if (configs == m_stale)
        return;
    m_stale = configs;
    refresh();
}

void DistributionView::setCurrentTensor(const QString &tensor)
{
    const int i = m_tensor->findData(tensor);
    if (i >= 0)
        m_tensor->setCurrentIndex(i);
}

QString DistributionView::currentTensor() const
{
    return m_tensor->currentData().toString();
}

void DistributionView::setLogY(bool on)
{
    m_logY->setChecked(on);
}

bool DistributionView::logY() const
{
    return m_logY->isChecked();
}

void DistributionView::setChannelAxis(int axis)
{
    const int i = m_axis->findData(axis);
    if (i >= 0)
        m_axis->setCurrentIndex(i);
}

int DistributionView::channelAxis() const
{
    return m_axis->currentData().toInt();
}

void DistributionView::setOverlapConfig(const QString &config)
{
    const int i = m_overlapOf->findData(config);
    if (i >= 0)
        m_overlapOf->setCurrentIndex(i);
}

QString DistributionView::overlapConfig() const
{
    return m_overlapOf->currentData().toString();
}

void DistributionView::refresh()
{
    const auto tensor = currentTensor().toStdString();
    const TensorProfile *profile = m_results ? m_results->profile(tensor) : nullptr;
    if (!profile) {
        m_histogram->clearData();
        m_error->clearData();
        m_channels->clearData();
        m_outliers->setRowCount(0);
        if (m_preview && (!m_results || m_results->outcomes.empty())) {
            showPreview(*m_preview);
            return;
        }
        m_summary->setText(m_results ? tr("No tensor in the results.")
                                     : tr("Select tensors in the browser and press Run to see "
                                          "how each configuration changes their values."));
        return;
    }

    // The W series is the same for every configuration of a tensor (same bins over W's
    // range); take it from the first that succeeded.
    const QuantizeOutcome *first = nullptr;
    std::vector<NamedSeries> quantized, errors;
    QStringList notes;
    int overlapOf = -1;
    const Series *overlap = nullptr;
    for (const auto &o : m_results->outcomes) {
        if (o.tensor != tensor)
            continue;
        const auto config = fromStd(o.config);
        const auto name = fromStd(configLabel(o.config, o.spec)); // "A · INT4 g128 sym"
        if (!o.ok()) {
            notes << tr("%1 failed: %2").arg(name, coremessages::translated(o.error));
            continue;
        }
        if (!first)
            first = &o;
        if (config == overlapConfig() || (overlapOf < 0 && overlapConfig().isEmpty())) {
            overlapOf = static_cast<int>(quantized.size());
            overlap = &o.plot.overlap;
        }
        const bool stale = m_stale.contains(config);
        quantized.push_back({name, colorIndexOf(config), o.plot.wHat, stale});
        errors.push_back({name, colorIndexOf(config), o.plot.err, stale});
        QString note = tr("%1: overlap %2, rel. error %3, %4 bits/element")
                           .arg(name, num(o.plot.overlapFraction), num(o.metrics.relFrobenius), num(o.bitsPerElement));
        if (stale)
            note = tr("%1 — stale: its configuration was edited after the run; run again to update").arg(note);
        if (o.plot.wHatBelow + o.plot.wHatAbove > 0)
            note += tr(" (%n value(s) of Ŵ outside W's range)", nullptr,
                       static_cast<int>(o.plot.wHatBelow + o.plot.wHatAbove));
        notes << note;
    }
    // An exported plot's title names the tensor (then its series and the date, PlotWidget).
    for (QWidget *plot :
         {static_cast<QWidget *>(m_histogram), static_cast<QWidget *>(m_error), static_cast<QWidget *>(m_channels)})
        plot->setProperty("exportTitle", fromStd(tensor));
    if (first)
        m_histogram->setData(first->plot.w, quantized, overlap ? *overlap : Series{}, overlapOf, first->plot.symlog,
                             first->plot.t);
    else
        m_histogram->clearData();
    m_error->setData(errors);

    const ChannelProfile &cp = channelAxis() == 1 ? profile->channels.columns : profile->channels.rows;
    std::optional<Series> activation;
    if (channelAxis() == 1 && profile->activationColumns)
        activation = channelSeries(*profile->activationColumns);
    m_channels->setData(channelSeries(cp), outlierSeries(cp), cp.median, channelAxis(), activation,
                        fromStd(profile->activation));
    fillOutliers(profile);

    QString head =
        tr("%1 · %2 · %3")
            .arg(fromStd(profile->tensor), fromStd(profile->dtype), TensorTreeModel::shapeText(profile->shape));
    if (const auto it = m_schemes.constFind(fromStd(profile->tensor)); it != m_schemes.constEnd())
        head += QLatin1Char('\n') + *it;
    if (!profile->error.empty())
        head += QLatin1Char('\n') + tr("Could not read this tensor: %1").arg(coremessages::translated(profile->error));
    if (!profile->activationNote.empty())
        head += QLatin1Char('\n') + coremessages::translated(profile->activationNote);
    m_summary->setText(head + QLatin1Char('\n') + notes.join(QStringLiteral(" · ")));
}

void DistributionView::setPreview(std::shared_ptr<const WeightPreview> preview)
{
    m_preview = std::move(preview);
    if (!m_results || m_results->outcomes.empty())
        refresh();
}

void DistributionView::setStoredSchemes(QHash<QString, QString> schemes)
{
    m_schemes = std::move(schemes);
    refresh();
}

QString DistributionView::summaryText() const
{
    return m_summary->text();
}

void DistributionView::showPreview(const WeightPreview &p)
{
    m_histogram->setProperty("exportTitle", fromStd(p.tensor));
    m_histogram->setData(p.histogram, {}, {}, -1, p.symlog, p.t);
    const auto &s = p.stats;
    const QString kurtosis = s.excessKurtosis ? num(*s.excessKurtosis) : QStringLiteral("—");
    QString text = tr("%1 · %2 · %3").arg(fromStd(p.tensor), fromStd(p.dtype), TensorTreeModel::shapeText(p.shape));
    if (const auto it = m_schemes.constFind(fromStd(p.tensor)); it != m_schemes.constEnd())
        text += QLatin1Char('\n') + *it;
    text += QLatin1Char('\n') + tr("W before any run: mean %1, std %2, min %3, max %4, |max| %5, excess kurtosis %6")
                                    .arg(num(s.mean), num(s.std), num(s.min), num(s.max), num(s.absmax), kurtosis);
    if (s.nanCount + s.infCount > 0)
        text += QLatin1Char('\n') + tr("%1 NaN and %2 infinite values").arg(s.nanCount).arg(s.infCount);
    text += QLatin1Char('\n') + tr("Press Run to see how each configuration changes these values.");
    m_summary->setText(text);
}

void DistributionView::fillOutliers(const TensorProfile *profile)
{
    const ChannelProfile &cp = channelAxis() == 1 ? profile->channels.columns : profile->channels.rows;
    const bool paired = channelAxis() == 1 && profile->activationColumns.has_value();
    m_outliers->setColumnHidden(3, !paired);
    m_outliers->setRowCount(static_cast<int>(cp.top.size()));
    for (int r = 0; r < static_cast<int>(cp.top.size()); ++r) {
        const auto &o = cp.top[static_cast<std::size_t>(r)];
        auto set = [&](int c, const QString &text, double sortValue) {
            auto *item = new QTableWidgetItem(text);
            item->setData(Qt::UserRole, sortValue);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_outliers->setItem(r, c, item);
        };
        set(0, QString::number(o.index), static_cast<double>(o.index));
        set(1, num(o.absmax), o.absmax);
        set(2, o.ratio > 0 ? tr("%1×").arg(num(o.ratio)) : QStringLiteral("—"), o.ratio);
        if (paired) {
            const auto &a = profile->activationColumns->absmax;
            const auto i = static_cast<std::size_t>(o.index);
            set(3, i < a.size() ? num(a[i]) : QStringLiteral("—"), i < a.size() ? a[i] : 0.0);
        }
    }
}

} // namespace quantscope
