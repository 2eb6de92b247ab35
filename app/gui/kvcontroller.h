// SPDX-License-Identifier: MIT
#pragma once
/// \file kvcontroller.h
/// The job behind the KV tab (kvview.h): the KV-cache lab (core/kv/kv_lab.h) on the K/V caches of
/// the capture paired with the checkpoint (LoadController) or of a file opened with File ▸ Open KV
/// Cache… (.safetensors, .npz, .npy), whichever came last. Loading and the lab run on a pool
/// thread through a JobTracker; progress is polled; Cancel makes the run stale at once (the last
/// report stays shown). The UI thread never waits on the file or the lab.
#include "jobtracker.h"

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <memory>

class QAction;
class QTabWidget;
class QTimer;

namespace quantscope {

class KvView;
class LoadController;
struct KvJobProgress;

class KvController : public QObject {
    Q_OBJECT
public:
    /// Creates the KV tab in `tabs`; the paired capture comes from `loads`.
    KvController(QObject *parent, LoadController *loads, QTabWidget *tabs);
    ~KvController() override;

    KvView *view() const { return m_view; }
    /// File ▸ Open KV Cache… (a non-blocking file dialog).
    QAction *openAction() const { return m_openAction; }
    bool isRunning() const { return m_job.isRunning(); }
    void shutdown();

    /// Uses a K/V file (a capture, .safetensors, .npz, .npy) until a capture is paired again.
    void openKvFile(const QString &path);
    void run();
    void cancel();

signals:
    void jobEnded();

private:
    void openDialog();
    void captureChanged();
    void updateSource();
    void poll();
    void finished(const QString &message);

    LoadController *m_loads;
    QTabWidget *m_tabs;
    KvView *m_view = nullptr;
    QAction *m_openAction = nullptr;
    QTimer *m_timer = nullptr;
    QString m_file;    ///< opened with Open KV Cache… ("" none)
    QString m_capture; ///< the paired capture ("" none)
    bool m_useFile = false;
    std::shared_ptr<KvJobProgress> m_progress;
    QThreadPool m_pool;
    JobTracker m_job{this, &m_pool};
};

} // namespace quantscope
