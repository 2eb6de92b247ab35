// SPDX-License-Identifier: MIT
#include "jobprogresswidget.h"

#include <QGridLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <cmath>

namespace quantscope {

JobProgressWidget::JobProgressWidget(QWidget *parent) : QWidget(parent)
{
    auto *g = new QGridLayout(this);
    g->setContentsMargins(6, 4, 6, 4);
    m_title = new QLabel(tr("No job running."), this);
    m_step = new QLabel(this);
    m_step->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Long tensor names in a narrow dock: wrap rather than cut off.
    m_title->setWordWrap(true);
    m_step->setWordWrap(true);
    m_timeLeft = new QLabel(this);
    m_bar = new QProgressBar(this);
    m_bar->setRange(0, 1000);
    m_bar->setTextVisible(true);
    m_bar->setFormat(QStringLiteral("%p%"));
    m_cancel = new QPushButton(QIcon::fromTheme(QStringLiteral("process-stop")), tr("Cancel"), this);
    m_cancel->setToolTip(tr("Stop the running job (Esc); the runs that finished stay shown"));
    m_cancel->setEnabled(false);
    g->addWidget(m_title, 0, 0, 1, 2);
    g->addWidget(m_bar, 1, 0);
    g->addWidget(m_cancel, 1, 1);
    g->addWidget(m_step, 2, 0);
    g->addWidget(m_timeLeft, 2, 1, Qt::AlignRight);
    g->setRowStretch(3, 1);
    g->setColumnStretch(0, 1);
    connect(m_cancel, &QPushButton::clicked, this, &JobProgressWidget::cancelRequested);
    m_bar->setValue(0);
}

void JobProgressWidget::start(const QString &title)
{
    m_running = true;
    m_title->setText(title);
    m_step->clear();
    m_timeLeft->setText(tr("estimating…"));
    m_bar->setValue(0);
    m_cancel->setEnabled(true);
}

void JobProgressWidget::setProgress(double fraction, const QString &step, double secondsLeft)
{
    if (!m_running)
        return;
    m_bar->setValue(static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * 1000)));
    m_step->setText(step);
    m_timeLeft->setText(secondsLeft < 0 ? tr("estimating…") : timeLeftText(secondsLeft));
}

void JobProgressWidget::finish(const QString &message, bool completed)
{
    m_running = false;
    m_title->setText(message);
    m_step->clear();
    m_timeLeft->clear();
    m_bar->setValue(completed ? m_bar->maximum() : 0);
    m_cancel->setEnabled(false);
}

QString JobProgressWidget::statusText() const
{
    return m_title->text();
}

QString JobProgressWidget::timeLeft() const
{
    return m_timeLeft->text();
}

QString JobProgressWidget::timeLeftText(double seconds)
{
    if (seconds < 1)
        return tr("less than a second left");
    if (seconds < 90)
        return tr("about %n s left", nullptr, static_cast<int>(std::lround(seconds)));
    return tr("about %n min left", nullptr, static_cast<int>(std::lround(seconds / 60)));
}

} // namespace quantscope
