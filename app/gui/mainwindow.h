// SPDX-License-Identifier: MIT
#pragma once
/// \file mainwindow.h
/// The main window: one opened checkpoint (the document), its tensor list, and the compute
/// device in the status bar. Opening runs on the thread pool; the window never blocks on I/O.
#include "checkpointloader.h"

#include <QMainWindow>
#include <memory>

class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QSortFilterProxyModel;
class QTableView;

namespace quantscope {

class Checkpoint;
class TensorListModel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Opens a file or folder in the background; replaces the document when it succeeds.
    void openPath(const QString &path);
    /// Opens the built-in demo (generating it on first use) in the background.
    void openDemo();

    /// True while a checkpoint is being opened or the compute device is being queried.
    bool isBusy() const noexcept { return m_loadsRunning > 0 || !m_deviceKnown; }
    /// Tensors in the opened checkpoint (0 when none is open).
    int tensorCount() const noexcept;

signals:
    /// A load finished (`ok` false: it failed and the error is being shown). Only the newest
    /// load reports; loads it replaced are dropped silently.
    void loadFinished(bool ok);
    /// All background work the window started has finished.
    void becameIdle();

private:
    void createActions();
    void createMenus();
    void createCentralWidget();
    void createStatusBar();
    void queryComputeDevice();

    void startLoad(const OpenRequest &request);
    void applyLoad(const OpenResult &result);
    void showLoadError(const OpenResult &result);
    void finishBackgroundTask();
    void updateTitle();
    void updateSummary(const OpenResult &result);

    void openFileDialog();
    void openFolderDialog();
    void showAbout();
    void fillRecentMenu();
    void addRecentPath(const QString &path);

    TensorListModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_view = nullptr;
    QLineEdit *m_filter = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_deviceLabel = nullptr;
    QProgressBar *m_busy = nullptr;
    QMenu *m_recentMenu = nullptr;

    QAction *m_openAction = nullptr;
    QAction *m_openFolderAction = nullptr;
    QAction *m_quitAction = nullptr;
    QAction *m_demoAction = nullptr;
    QAction *m_aboutAction = nullptr;
    QAction *m_filterAction = nullptr;
    QAction *m_statusBarAction = nullptr;

    /// The document: the opened checkpoint and what it was opened from.
    std::shared_ptr<const Checkpoint> m_checkpoint;
    QString m_documentName;
    QString m_documentPath;

    QString m_deviceDescription;
    bool m_deviceKnown = false;
    /// Id of the newest load; a finished load with another id is stale.
    quint64 m_currentLoad = 0;
    int m_loadsRunning = 0;
};

} // namespace quantscope
