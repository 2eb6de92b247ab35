// SPDX-License-Identifier: MIT
#pragma once
/// \file jobtracker.h
/// hotspot's job tracker on a QThreadPool: every job gets an id and a CancelToken; starting a
/// new one or cancelling makes the current one stale at once (its result is dropped whenever it
/// arrives), and a finished job delivers on the context's thread through a queued call. No
/// exception crosses the job boundary: Cancelled is silent, anything else becomes an error text.
/// Every job started under a title is listed on the JobBoard (the Jobs dock) until it ends.
#include "jobboard.h"
#include "util/cancel.h"
#include "coremessages.h"

#include <QMetaObject>
#include <QObject>
#include <QPointer>
#include <QRunnable>
#include <QString>
#include <QThreadPool>
#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <utility>

namespace quantscope {

class JobTracker {
public:
    JobTracker(QObject *context, QThreadPool *pool) : m_context(context), m_pool(pool) {}
    JobTracker(const JobTracker &) = delete;
    JobTracker &operator=(const JobTracker &) = delete;
    ~JobTracker()
    {
        m_token.cancel();
        m_current->fetch_add(1); // nothing is delivered to a tracker that is gone
        if (auto *board = JobBoard::existing(); board && m_boardId)
            board->end(m_boardId, JobBoard::State::Cancelled);
    }

    /// The title the Jobs dock lists the following jobs under ("": not listed).
    void setTitle(const QString &title) { m_title = title; }
    /// What the Jobs dock's Cancel does (default: cancel()): the owner's own cancel, which
    /// also resets what it shows.
    void setCancelHandler(std::function<void()> handler) { m_cancelHandler = std::move(handler); }
    /// The current job's measured progress in [0, 1], for the Jobs dock.
    void setProgress(double fraction)
    {
        if (auto *board = JobBoard::existing(); board && m_boardId)
            board->setProgress(m_boardId, fraction);
    }

    /// start() under `title` (setTitle()).
    template <typename Job, typename OnResult, typename OnError>
    quint64 start(const QString &title, Job job, OnResult onResult, OnError onError)
    {
        m_title = title;
        return start(std::move(job), std::move(onResult), std::move(onError));
    }

    /// True between start() and the delivery (or cancel()) of the current job.
    bool isRunning() const noexcept { return m_running; }

    /// Runs `job(const CancelToken &)` → Result on the pool. `onResult(Result &&)` or
    /// `onError(const QString &)` is called on the context's thread, only if no newer job was
    /// started and cancel() was not called in between. Cancels the job this one replaces.
    template <typename Job, typename OnResult, typename OnError>
    quint64 start(Job job, OnResult onResult, OnError onError)
    {
        using Result = std::invoke_result_t<Job &, const CancelToken &>;
        m_token.cancel(); // the older job stops at its next checkpoint
        m_token = CancelToken();
        const quint64 id = m_current->fetch_add(1) + 1;
        m_running = true;
        auto *board = JobBoard::instance();
        if (m_boardId)
            board->end(m_boardId, JobBoard::State::Replaced);
        m_boardId = m_title.isEmpty() ? 0 : board->begin(m_title, [this] {
            if (m_cancelHandler)
                m_cancelHandler();
            else
                cancel();
        });
        auto *runnable =
            QRunnable::create([context = m_context, current = m_current, token = m_token, id, boardId = m_boardId,
                               board = QPointer<JobBoard>(board), job = std::move(job), onResult = std::move(onResult),
                               onError = std::move(onError), this]() mutable {
                std::optional<Result> result;
                QString error;
                try {
                    result.emplace(job(token));
                } catch (const Cancelled &) {
                    if (board && boardId)
                        QMetaObject::invokeMethod(
                            board.data(), [board, boardId] { board->end(boardId, JobBoard::State::Cancelled); },
                            Qt::QueuedConnection);
                    return;
                } catch (const std::bad_alloc &) {
                    error = QStringLiteral("out of memory");
                } catch (const std::exception &e) {
                    error = coremessages::translated(std::string(e.what()));
                } catch (...) {
                    error = QStringLiteral("unknown error");
                }
                if (current->load() != id || !context) // stale: a newer start(), cancel() or gone
                    return;
                QMetaObject::invokeMethod(
                    context.data(),
                    [current, id, boardId, result = std::move(result), error = std::move(error),
                     onResult = std::move(onResult), onError = std::move(onError), this]() mutable {
                        // Checked again on the receiving thread: cancel() or a newer start()
                        // may have happened while this call was queued.
                        if (current->load() != id)
                            return;
                        m_running = false;
                        if (boardId) {
                            if (auto *b = JobBoard::existing())
                                b->end(boardId, result ? JobBoard::State::Finished : JobBoard::State::Failed, error);
                            if (m_boardId == boardId)
                                m_boardId = 0;
                        }
                        if (result)
                            onResult(std::move(*result));
                        else
                            onError(error);
                    },
                    Qt::QueuedConnection);
            });
        m_pool->start(runnable);
        return id;
    }

    /// Asks the current job to stop at its next check without making it stale: whatever it
    /// returns (or throws, Cancelled included) is still delivered — for a job whose caller must
    /// know how it ended, such as a checkpoint writer that removes its partial output first.
    void stop() { m_token.cancel(); }

    /// Makes the current job stale and asks it to stop; returns at once.
    void cancel()
    {
        m_token.cancel();
        m_current->fetch_add(1);
        m_running = false;
        if (auto *board = JobBoard::existing(); board && m_boardId)
            board->end(m_boardId, JobBoard::State::Cancelled);
        m_boardId = 0;
    }

private:
    QPointer<QObject> m_context;
    QThreadPool *m_pool;
    std::shared_ptr<std::atomic<quint64>> m_current = std::make_shared<std::atomic<quint64>>(0);
    CancelToken m_token;
    bool m_running = false;
    QString m_title;
    std::function<void()> m_cancelHandler;
    quint64 m_boardId = 0;
};

} // namespace quantscope
