// SPDX-License-Identifier: MIT
#pragma once
/// \file healthcontroller.h
/// The job behind the Health tab: the checkpoint doctor (core/doctor) of the opened checkpoint's
/// path on a pool thread, with Cancel; a clicked finding selects its tensor in the browser.
#include <QObject>
#include <QThreadPool>

#include "jobtracker.h"

class QTabWidget;

namespace quantscope {

class HealthView;
class LoadController;
class TensorBrowser;

class HealthController : public QObject {
    Q_OBJECT
public:
    /// Creates the Health view and adds it as a tab of `tabs`.
    HealthController(QObject *parent, const LoadController *loads, TensorBrowser *browser, QTabWidget *tabs);
    ~HealthController() override;

    HealthView *view() const { return m_view; }
    bool isRunning() const { return m_job.isRunning(); }
    void shutdown();
    /// Runs the doctor on the opened checkpoint's path.
    void check();

signals:
    void jobEnded();

private:
    const LoadController *m_loads;
    TensorBrowser *m_browser;
    QTabWidget *m_tabs;
    HealthView *m_view = nullptr;
    QThreadPool m_pool;
    JobTracker m_job{this, &m_pool};
};

} // namespace quantscope
