// SPDX-License-Identifier: MIT
#pragma once
/// \file jobprogresswidget.h
/// The job area: what runs, a progress bar, the time left and Cancel; the last outcome when idle.
#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace quantscope {

class JobProgressWidget : public QWidget {
    Q_OBJECT
public:
    explicit JobProgressWidget(QWidget *parent = nullptr);

    /// A job started.
    void start(const QString &title);
    /// `fraction` in [0, 1]; `secondsLeft` < 0 while unknown.
    void setProgress(double fraction, const QString &step, double secondsLeft);
    /// No job runs; `message` says how the last one ended (`completed`: the bar shows 100 %).
    void finish(const QString &message, bool completed = false);
    bool isRunning() const noexcept { return m_running; }

    QProgressBar *progressBar() const { return m_bar; }
    QString statusText() const;
    /// "about 12 s left", "estimating…", or "" when idle.
    QString timeLeft() const;

    /// "about 12 s left", "about 3 min left".
    static QString timeLeftText(double seconds);

signals:
    void cancelRequested();

private:
    QLabel *m_title = nullptr;
    QLabel *m_step = nullptr;
    QLabel *m_timeLeft = nullptr;
    QProgressBar *m_bar = nullptr;
    QPushButton *m_cancel = nullptr;
    bool m_running = false;
};

} // namespace quantscope
