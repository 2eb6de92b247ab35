// SPDX-License-Identifier: MIT
#include "kurtosisview.h"

#include "jobprogresswidget.h"
#include "kurtosischannelplot.h"
#include "kurtosisscatterplot.h"
#include "qtstring.h"
#include "coremessages.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>

namespace quantscope {

KurtosisView::KurtosisView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    auto *bar = new QHBoxLayout;
    m_tensor = new QComboBox(this);
    m_tensor->setMinimumContentsLength(24);
    m_tensor->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_tensor->setToolTip(tr("The tensor whose channels are drawn"));
    m_axis = new QComboBox(this);
    m_axis->addItem(tr("Input channels"), 1);
    m_axis->addItem(tr("Output channels"), 0);
    m_rotate = new QCheckBox(tr("Hadamard rotation, block"), this);
    m_rotate->setToolTip(tr("Show the kurtosis after rotating W along K (both are computed)"));
    m_block = new QSpinBox(this);
    m_block->setRange(2, 4096);
    m_block->setValue(64);
    m_compute = new QPushButton(tr("Compute"), this);
    m_compute->setToolTip(tr("Per-channel kurtosis of the selected tensors"));
    bar->addWidget(m_tensor, 1);
    bar->addWidget(m_axis);
    bar->addWidget(m_rotate);
    bar->addWidget(m_block);
    bar->addWidget(m_compute);
    layout->addLayout(bar);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    auto *split = new QSplitter(Qt::Vertical, this);
    m_channels = new KurtosisChannelPlot(split);
    m_scatter = new KurtosisScatterPlot(split);
    split->addWidget(m_channels);
    split->addWidget(m_scatter);
    layout->addWidget(split, 1);
    m_progress = new JobProgressWidget(this);
    layout->addWidget(m_progress);

    connect(m_compute, &QPushButton::clicked, this, &KurtosisView::requestProfile);
    connect(m_tensor, &QComboBox::currentIndexChanged, this, &KurtosisView::redraw);
    connect(m_axis, &QComboBox::currentIndexChanged, this, &KurtosisView::redraw);
    connect(m_rotate, &QCheckBox::toggled, this, &KurtosisView::redraw);
    connect(m_block, &QSpinBox::editingFinished, this, [this] {
        if (m_data && m_data->rotate != m_block->value())
            requestProfile();
    });
    connect(m_progress, &JobProgressWidget::cancelRequested, this, &KurtosisView::cancelRequested);
    redraw();
}

void KurtosisView::setTensors(const QStringList &tensors)
{
    const bool changed = tensors != m_tensors;
    m_tensors = tensors;
    // A new selection while the tab is shown: profile it now.
    if (changed && isVisible() && !tensors.isEmpty())
        requestProfile();
}

QString KurtosisView::currentTensor() const
{
    return m_tensor->currentText();
}

void KurtosisView::setCurrentTensor(const QString &tensor)
{
    m_tensor->setCurrentText(tensor);
}

void KurtosisView::setChannelAxis(int axis)
{
    m_axis->setCurrentIndex(m_axis->findData(axis));
}

int KurtosisView::channelAxis() const
{
    return m_axis->currentData().toInt();
}

bool KurtosisView::rotation() const
{
    return m_rotate->isChecked();
}

void KurtosisView::setRotation(bool on)
{
    m_rotate->setChecked(on);
}

int KurtosisView::rotateBlock() const
{
    return m_block->value();
}

void KurtosisView::requestProfile()
{
    if (m_tensors.isEmpty()) {
        m_summary->setText(tr("Select one or more tensors in the Tensors dock."));
        return;
    }
    emit profileRequested(m_tensors, m_block->value());
}

void KurtosisView::jobStarted()
{
    m_progress->start(tr("Kurtosis of %n tensor(s)", nullptr, static_cast<int>(m_tensors.size())));
}

void KurtosisView::setProgress(double fraction)
{
    m_progress->setProgress(fraction, QString(), -1);
}

void KurtosisView::setData(std::shared_ptr<const KurtosisData> data)
{
    m_data = std::move(data);
    m_progress->finish(QString(), m_data != nullptr);
    const QString current = m_tensor->currentText();
    {
        const QSignalBlocker block(m_tensor);
        m_tensor->clear();
        if (m_data)
            for (const auto &t : m_data->tensors)
                m_tensor->addItem(fromStd(t.tensor));
        const int keep = m_tensor->findText(current);
        m_tensor->setCurrentIndex(keep >= 0 ? keep : 0);
    }
    redraw();
}

void KurtosisView::setError(const QString &error)
{
    m_progress->finish(error);
    m_summary->setText(error);
}

void KurtosisView::redraw()
{
    const KurtosisTensor *t = nullptr;
    if (m_data)
        for (const auto &k : m_data->tensors)
            if (fromStd(k.tensor) == m_tensor->currentText())
                t = &k;
    const bool rotated = m_rotate->isChecked();
    m_scatter->setData(m_data ? m_data->points : std::vector<KurtosisPoint>{}, rotated);
    if (!t) {
        m_channels->clearData();
        m_summary->setText(tr("Select tensors and press Compute: the excess kurtosis of every "
                              "channel, and each configuration's error against it."));
        return;
    }
    if (!t->error.empty()) {
        m_channels->clearData();
        m_summary->setText(coremessages::translated(t->error));
        return;
    }
    const int axis = channelAxis();
    const KurtosisChannels &k = rotated && t->rotated ? *t->rotated : t->plain;
    m_channels->setData(axis == 1 ? k.channels.columns : k.channels.rows, axis == 1 ? k.topColumns : k.topRows, axis,
                        rotated && t->rotated);
    QString text = tr("%1: excess kurtosis of W %2").arg(fromStd(t->tensor)).arg(t->plain.kurtosis, 0, 'g', 5);
    if (t->rotated)
        text += tr(", rotated (block %1) %2").arg(m_data->rotate).arg(t->rotated->kurtosis, 0, 'g', 5);
    else if (rotated)
        text += QLatin1Char('\n') + tr("No rotation: %1").arg(fromStd(t->rotatedError));
    m_summary->setText(text);
}

void KurtosisView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (!m_data && !m_tensors.isEmpty() && !m_progress->isRunning())
        requestProfile();
}

} // namespace quantscope
