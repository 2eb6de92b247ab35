// SPDX-License-Identifier: MIT
#pragma once
/// \file jobboard.h
/// Every background job of the window in one place (issue 42): JobTracker registers each job it
/// starts under a title (scan, sweep, export, compare, GEMM timing, capture, eval, …), controllers
/// that measure progress report it, and the job ends finished, failed, cancelled or replaced by a
/// newer one. JobsView, the Jobs dock, lists them with a progress bar and Cancel; `ended` is the
/// log line the window writes. GUI thread only.
#include <QDateTime>
#include <QObject>
#include <QString>
#include <QWidget>
#include <functional>
#include <vector>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace quantscope {

class JobBoard : public QObject {
    Q_OBJECT
public:
    enum class State { Running, Finished, Failed, Cancelled, Replaced };
    struct Entry {
        quint64 id = 0;
        QString title;
        State state = State::Running;
        double fraction = -1; ///< < 0: not measured (a busy bar)
        QString detail;       ///< the error of a failed job
        qint64 startedMs = 0; ///< steady milliseconds
        qint64 seconds10 = 0; ///< run time in tenths of a second once ended
        std::function<void()> cancel;
    };

    /// The application's board (created on first use, parented to the application).
    static JobBoard *instance();
    /// The board if it exists (nullptr once the application has gone).
    static JobBoard *existing();

    /// A job started; `cancel` is what the Jobs dock's Cancel does.
    quint64 begin(const QString &title, std::function<void()> cancel);
    void setProgress(quint64 id, double fraction);
    /// Ends a running job (no effect on one that has ended already).
    void end(quint64 id, State state, const QString &detail = {});
    /// Asks job `id` to stop (the dock's Cancel).
    void cancel(quint64 id);

    /// Newest last; the 200 most recent.
    const std::vector<Entry> &entries() const noexcept { return m_entries; }
    const Entry *entry(quint64 id) const;
    int runningCount() const;
    /// "Scan: finished in 1.2 s", in the UI language.
    static QString endText(const Entry &e);
    static QString stateText(State state);
    /// "finished in 1.2 s", "running".
    static QString outcomeText(const Entry &e);

signals:
    void changed(quint64 id);
    /// A job ended: the log line and whether it is a problem (failed).
    void ended(quint64 id, const QString &line, bool problem);

private:
    using QObject::QObject;
    Entry *find(quint64 id);
    std::vector<Entry> m_entries;
    quint64 m_next = 0;
};

/// The Jobs dock: one row per job of the board, newest first — title, progress, state (or how
/// it ended, with its time) and Cancel while it runs.
class JobsView : public QWidget {
    Q_OBJECT
public:
    explicit JobsView(QWidget *parent = nullptr);
    QTreeWidget *list() const { return m_list; }
    /// The row of job `id` (nullptr when not listed).
    QTreeWidgetItem *row(quint64 id) const;

private:
    void update(quint64 id);
    QTreeWidget *m_list = nullptr;
    QLabel *m_empty = nullptr;
};

} // namespace quantscope
