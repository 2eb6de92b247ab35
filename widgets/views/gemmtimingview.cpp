// SPDX-License-Identifier: MIT
#include "gemmtimingview.h"

#include "gemmtimingplot.h"
#include "jobprogresswidget.h"
#include "moebarsplot.h"
#include "qtstring.h"
#include "rooflineplot.h"
#include "coremessages.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace quantscope {

GemmTimingView::GemmTimingView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    auto *bar = new QHBoxLayout;
    m_tensor = new QComboBox(this);
    m_tensor->setMinimumContentsLength(24);
    m_tensor->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_tensor->setToolTip(tr("The weight whose N×K is timed (one of the selected tensors)"));
    m_maxM = new QComboBox(this);
    for (qint64 m = 1; m <= 8192; m *= 2)
        m_maxM->addItem(tr("M up to %1").arg(m), m);
    m_maxM->setCurrentIndex(m_maxM->count() - 1);
    m_mode = new QComboBox(this);
    m_mode->addItem(tr("Plain GEMMs"), static_cast<int>(Mode::Plain));
    m_mode->addItem(tr("Quantized-weight paths"), static_cast<int>(Mode::Quantized));
    m_mode->addItem(tr("MoE: %1 experts").arg(expertsFor(Mode::Moe)), static_cast<int>(Mode::Moe));
    m_w3Rank = new QSpinBox(this);
    m_w3Rank->setRange(0, 256); // the fused W3A16 kernel's compensator (gemmFormatRefusal)
    m_w3Rank->setValue(GemmBenchRequest{}.w3Rank);
    m_w3Rank->setPrefix(tr("W3 rank "));
    m_w3Rank->setToolTip(tr("Rank r of the MiLo compensator timed with the W3A16 GEMM (0: the W3 GEMM alone)"));
    m_w3Rank->setVisible(false);
    m_run = new QPushButton(tr("Time GEMMs"), this);
    bar->addWidget(m_tensor, 1);
    bar->addWidget(m_mode);
    bar->addWidget(m_w3Rank);
    bar->addWidget(m_maxM);
    bar->addWidget(m_run);
    layout->addLayout(bar);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    auto *plots = new QHBoxLayout;
    m_time = new GemmTimingPlot(GemmTimingPlot::Quantity::TimeUs, this);
    m_tflops = new GemmTimingPlot(GemmTimingPlot::Quantity::Tflops, this);
    plots->addWidget(m_time, 1);
    plots->addWidget(m_tflops, 1);
    layout->addLayout(plots, 1);
    auto *lower = new QHBoxLayout;
    m_roofline = new RooflinePlot(this);
    m_moe = new MoeBarsPlot(this);
    m_moe->setVisible(false);
    lower->addWidget(m_roofline, 1);
    lower->addWidget(m_moe, 1);
    layout->addLayout(lower, 1);
    m_progress = new JobProgressWidget(this);
    layout->addWidget(m_progress);
    connect(m_run, &QPushButton::clicked, this, &GemmTimingView::request);
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this] { m_w3Rank->setVisible(mode() == Mode::Quantized); });
    connect(m_progress, &JobProgressWidget::cancelRequested, this, &GemmTimingView::cancelRequested);
    m_summary->setText(tr("Select a tensor and press Time GEMMs."));
}

void GemmTimingView::setTensors(const QStringList &tensors)
{
    const QString current = m_tensor->currentText();
    const QSignalBlocker block(m_tensor);
    m_tensor->clear();
    m_tensor->addItems(tensors);
    if (tensors.contains(current))
        m_tensor->setCurrentText(current);
}

QString GemmTimingView::currentTensor() const
{
    return m_tensor->currentText();
}

qint64 GemmTimingView::maxM() const
{
    return m_maxM->currentData().toLongLong();
}

void GemmTimingView::setMaxM(qint64 m)
{
    const int i = m_maxM->findData(m);
    if (i >= 0)
        m_maxM->setCurrentIndex(i);
}

GemmTimingView::Mode GemmTimingView::mode() const
{
    return static_cast<Mode>(m_mode->currentData().toInt());
}

void GemmTimingView::setMode(Mode mode)
{
    m_mode->setCurrentIndex(m_mode->findData(static_cast<int>(mode)));
}

std::vector<GemmFormat> GemmTimingView::formatsFor(Mode mode)
{
    switch (mode) {
    case Mode::Quantized:
        return {GemmFormat::W4a16, GemmFormat::W4a8Int8, GemmFormat::W4a8Fp8,  GemmFormat::W8a8Fp8,
                GemmFormat::Mxfp4, GemmFormat::Nvfp4,    GemmFormat::W3a16Milo};
    case Mode::Moe:
        return {GemmFormat::Bf16, GemmFormat::Fp8};
    case Mode::Plain:
        break;
    }
    return plainGemmFormats();
}

int GemmTimingView::expertsFor(Mode mode)
{
    return mode == Mode::Moe ? 16 : 1;
}

int GemmTimingView::w3Rank() const
{
    return m_w3Rank->value();
}

void GemmTimingView::setW3Rank(int rank)
{
    m_w3Rank->setValue(rank);
}

GemmBenchRequest GemmTimingView::timingRequest(qint64 maxM) const
{
    GemmBenchRequest r;
    r.formats = formatsFor(mode());
    r.experts = expertsFor(mode());
    r.w3Rank = w3Rank();
    r.m.clear();
    for (qint64 m = 1; m <= maxM; m *= 2)
        r.m.push_back(m);
    return r;
}

void GemmTimingView::request()
{
    if (m_tensor->currentText().isEmpty()) {
        m_summary->setText(tr("Select a tensor in the Tensors dock."));
        return;
    }
    emit timingRequested(m_tensor->currentText(), maxM());
}

void GemmTimingView::jobStarted()
{
    m_progress->start(tr("Timing GEMMs of %1").arg(m_tensor->currentText()));
}

void GemmTimingView::setProgress(double fraction)
{
    m_progress->setProgress(fraction, QString(), -1);
}

void GemmTimingView::setResult(std::shared_ptr<const GemmBenchResult> result, const QString &tensor)
{
    m_result = std::move(result);
    m_progress->finish(QString(), m_result != nullptr);
    if (!m_result) {
        m_time->clearData();
        m_tflops->clearData();
        m_roofline->clearData();
        m_moe->clearData();
        m_moe->setVisible(false);
        return;
    }
    m_roofline->setView(rooflineView(*m_result));
    const MoeBars bars = moeBars(*m_result);
    m_moe->setBars(bars);
    m_moe->setVisible(!bars.groups.empty());
    const auto curves = gemmCurves(*m_result);
    m_time->setCurves(curves);
    m_tflops->setCurves(curves);
    const GemmPoint *first = m_result->points.empty() ? nullptr : &m_result->points.front();
    QString text = tr("%1: Y[M,N] = X[M,K]·W[N,K]ᵀ with N = %2, K = %3 on %4")
                       .arg(tensor.isEmpty() ? tr("shape") : tensor)
                       .arg(first ? first->n : 0)
                       .arg(first ? first->k : 0)
                       .arg(fromStd(m_result->device));
    if (m_result->device == "cpu") {
        text += QLatin1Char('\n') +
                tr("The CPU has no BF16, FP8 or INT8 GEMM here: it times FP32 GEMMs of the same shape.");
        if (first && first->note.find("GPU only") != std::string::npos)
            text += QLatin1Char(' ') + tr("The quantized-weight paths run on a GPU only.");
    }
    if (m_result->peaks) {
        QStringList peaks;
        for (const auto &[dtype, t] : m_result->peaks->tflops)
            peaks << QStringLiteral("%1 %2 TFLOP/s").arg(fromStd(dtype)).arg(t, 0, 'f', 1);
        text += QLatin1Char('\n') + tr("Roofline (%1): copy %2 GB/s, %3")
                                        .arg(coremessages::translated(m_result->peaks->source))
                                        .arg(m_result->peaks->copyGbps, 0, 'f', 1)
                                        .arg(peaks.join(QStringLiteral(", ")));
        // placeOnRoofline raised a ceiling some point beat (no point is drawn above its ceiling).
        if (m_result->peaks->note.find("raised to the points") != std::string::npos)
            text += QLatin1Char('\n') + tr("Some points were faster than the measured ceiling (their operands stay "
                                           "in cache): the ceiling was raised to them, so none is drawn above it.");
    }
    if (!m_result->deviceNote.empty())
        text += QLatin1Char('\n') + coremessages::translated(m_result->deviceNote);
    // Formats this shape cannot run (K not a multiple of the block, …): named with their reason
    // instead of an empty series.
    for (const auto &s : m_result->skipped)
        text += QLatin1Char('\n') + tr("%1 not timed: %2").arg(fromStd(s.format), coremessages::translated(s.reason));
    m_summary->setText(text);
}

void GemmTimingView::setError(const QString &error)
{
    m_progress->finish(error);
    m_summary->setText(error);
}

void GemmTimingView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (!m_result && !m_tensor->currentText().isEmpty() && !m_progress->isRunning())
        request();
}

} // namespace quantscope
