// SPDX-License-Identifier: MIT
#include "jobboard.h"

#include <QCoreApplication>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <chrono>

namespace quantscope {

namespace {

qint64 steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

constexpr std::size_t kKept = 200;
constexpr int kProgressColumn = 1;
constexpr int kCancelColumn = 3;

} // namespace

namespace {
QPointer<JobBoard> g_board;
}

JobBoard *JobBoard::instance()
{
    if (!g_board)
        g_board = new JobBoard(QCoreApplication::instance());
    return g_board;
}

JobBoard *JobBoard::existing()
{
    return g_board;
}

JobBoard::Entry *JobBoard::find(quint64 id)
{
    for (auto &e : m_entries)
        if (e.id == id)
            return &e;
    return nullptr;
}

const JobBoard::Entry *JobBoard::entry(quint64 id) const
{
    return const_cast<JobBoard *>(this)->find(id);
}

int JobBoard::runningCount() const
{
    return static_cast<int>(
        std::count_if(m_entries.begin(), m_entries.end(), [](const Entry &e) { return e.state == State::Running; }));
}

quint64 JobBoard::begin(const QString &title, std::function<void()> cancel)
{
    Entry e;
    e.id = ++m_next;
    e.title = title;
    e.startedMs = steadyMs();
    e.cancel = std::move(cancel);
    m_entries.push_back(std::move(e));
    // The oldest ended jobs go first; running ones stay.
    while (m_entries.size() > kKept) {
        const auto old =
            std::find_if(m_entries.begin(), m_entries.end(), [](const Entry &x) { return x.state != State::Running; });
        if (old == m_entries.end())
            break;
        m_entries.erase(old);
    }
    emit changed(m_next);
    return m_next;
}

void JobBoard::setProgress(quint64 id, double fraction)
{
    auto *e = find(id);
    if (!e || e->state != State::Running)
        return;
    // Never back (a newer step of the same job may report less of a sub-task).
    const double f = std::clamp(fraction, 0.0, 1.0);
    if (f <= e->fraction)
        return;
    e->fraction = f;
    emit changed(id);
}

void JobBoard::end(quint64 id, State state, const QString &detail)
{
    auto *e = find(id);
    if (!e || e->state != State::Running || state == State::Running)
        return;
    e->state = state;
    e->detail = detail;
    e->seconds10 = (steadyMs() - e->startedMs + 50) / 100;
    e->cancel = nullptr;
    if (state == State::Finished)
        e->fraction = 1;
    const Entry copy = *e;
    emit changed(id);
    emit ended(id, endText(copy), state == State::Failed);
}

void JobBoard::cancel(quint64 id)
{
    auto *e = find(id);
    if (!e || e->state != State::Running)
        return;
    // The owner's cancel ends the entry (JobTracker::cancel); whatever it does, it is cancelled.
    if (auto cancel = e->cancel)
        cancel();
    end(id, State::Cancelled); // when the owner's cancel did not end it
}

QString JobBoard::stateText(State state)
{
    switch (state) {
    case State::Running:
        return tr("running");
    case State::Finished:
        return tr("finished");
    case State::Failed:
        return tr("failed");
    case State::Cancelled:
        return tr("cancelled");
    case State::Replaced:
        return tr("replaced by a newer run");
    }
    return {};
}

QString JobBoard::endText(const Entry &e)
{
    const QString seconds = QLocale().toString(static_cast<double>(e.seconds10) / 10.0, 'f', 1);
    switch (e.state) {
    case State::Finished:
        return tr("%1: finished in %2 s").arg(e.title, seconds);
    case State::Failed:
        return tr("%1: failed after %2 s: %3").arg(e.title, seconds, e.detail);
    case State::Cancelled:
        return tr("%1: cancelled after %2 s").arg(e.title, seconds);
    case State::Replaced:
        return tr("%1: replaced by a newer run after %2 s").arg(e.title, seconds);
    case State::Running:
        break;
    }
    return e.title;
}

QString JobBoard::outcomeText(const Entry &e)
{
    const QString seconds = QLocale().toString(static_cast<double>(e.seconds10) / 10.0, 'f', 1);
    switch (e.state) {
    case State::Finished:
        return tr("finished in %1 s").arg(seconds);
    case State::Failed:
        return tr("failed after %1 s").arg(seconds);
    case State::Cancelled:
        return tr("cancelled after %1 s").arg(seconds);
    case State::Replaced:
        return tr("replaced by a newer run after %1 s").arg(seconds);
    case State::Running:
        break;
    }
    return stateText(e.state);
}

JobsView::JobsView(QWidget *parent) : QWidget(parent)
{
    m_list = new QTreeWidget(this);
    m_list->setObjectName(QStringLiteral("jobsList"));
    m_list->setRootIsDecorated(false);
    m_list->setColumnCount(4);
    m_list->setHeaderLabels({tr("Job"), tr("Progress"), tr("State"), QString()});
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_list->header()->setSectionResizeMode(kProgressColumn, QHeaderView::Fixed);
    m_list->header()->resizeSection(kProgressColumn, 110);
    m_list->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_list->header()->setSectionResizeMode(kCancelColumn, QHeaderView::ResizeToContents);
    // What an empty list is for (every empty view says what to do next).
    m_empty = new QLabel(tr("No background job has run yet. Quantizing, scanning, sweeping, exporting, "
                            "comparing, timing, capturing and evaluating are listed here while they run, "
                            "each with Cancel, and stay listed with how they ended."),
                         this);
    m_empty->setWordWrap(true);
    m_empty->setObjectName(QStringLiteral("jobsEmptyHint"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_empty);
    layout->addWidget(m_list, 1);
    auto *board = JobBoard::instance();
    for (const auto &e : board->entries())
        update(e.id);
    connect(board, &JobBoard::changed, this, &JobsView::update);
}

QTreeWidgetItem *JobsView::row(quint64 id) const
{
    for (int i = 0; i < m_list->topLevelItemCount(); ++i)
        if (m_list->topLevelItem(i)->data(0, Qt::UserRole).toULongLong() == id)
            return m_list->topLevelItem(i);
    return nullptr;
}

void JobsView::update(quint64 id)
{
    const auto *e = JobBoard::instance()->entry(id);
    auto *item = row(id);
    if (!e) {
        delete item;
        return;
    }
    if (!item) {
        item = new QTreeWidgetItem;
        item->setData(0, Qt::UserRole, id);
        m_list->insertTopLevelItem(0, item);
        auto *bar = new QProgressBar;
        bar->setTextVisible(true);
        m_list->setItemWidget(item, kProgressColumn, bar);
        auto *cancel = new QPushButton(tr("Cancel"));
        cancel->setObjectName(QStringLiteral("jobCancel"));
        connect(cancel, &QPushButton::clicked, this, [id] { JobBoard::instance()->cancel(id); });
        m_list->setItemWidget(item, kCancelColumn, cancel);
        // The oldest rows beyond what the board keeps go.
        while (m_list->topLevelItemCount() > static_cast<int>(kKept))
            delete m_list->takeTopLevelItem(m_list->topLevelItemCount() - 1);
    }
    item->setText(0, e->title);
    item->setToolTip(0, e->detail.isEmpty() ? e->title : e->title + QLatin1Char('\n') + e->detail);
    const bool running = e->state == JobBoard::State::Running;
    item->setText(2, JobBoard::outcomeText(*e));
    item->setToolTip(2, e->detail);
    if (auto *bar = qobject_cast<QProgressBar *>(m_list->itemWidget(item, kProgressColumn))) {
        if (running && e->fraction < 0) {
            bar->setRange(0, 0); // measured by nobody: busy
        } else {
            bar->setRange(0, 1000);
            bar->setValue(static_cast<int>(std::lround(std::max(e->fraction, 0.0) * 1000)));
        }
    }
    if (auto *cancel = m_list->itemWidget(item, kCancelColumn))
        cancel->setVisible(running);
    m_empty->setVisible(m_list->topLevelItemCount() == 0);
}

} // namespace quantscope
