// SPDX-License-Identifier: MIT
#include "logview.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QStyle>
#include <QTime>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace quantscope {

LogView::LogView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_list = new QTreeWidget(this);
    m_list->setColumnCount(2);
    m_list->setHeaderLabels({tr("Time"), tr("Message")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setWordWrap(false);
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_list->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_list->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto *copy = new QAction(tr("&Copy"), m_list);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, [this] {
        QStringList lines;
        for (auto *item : m_list->selectedItems())
            lines << item->text(0) + QLatin1Char('\t') + item->text(1);
        QApplication::clipboard()->setText(lines.join(QLatin1Char('\n')));
    });
    auto *clearAction = new QAction(tr("C&lear"), m_list);
    connect(clearAction, &QAction::triggered, this, &LogView::clear);
    m_list->addAction(copy);
    m_list->addAction(clearAction);
    layout->addWidget(m_list);
}

void LogView::append(Severity severity, const QString &message)
{
    auto *item = new QTreeWidgetItem(m_list);
    item->setText(0, QTime::currentTime().toString(QStringLiteral("HH:mm:ss")));
    item->setText(1, message);
    item->setToolTip(1, message);
    item->setData(0, Qt::UserRole, static_cast<int>(severity));
    QStyle::StandardPixmap icon = QStyle::SP_MessageBoxInformation;
    if (severity == Severity::Warning)
        icon = QStyle::SP_MessageBoxWarning;
    else if (severity == Severity::Error)
        icon = QStyle::SP_MessageBoxCritical;
    item->setIcon(1, style()->standardIcon(icon));
    m_list->scrollToItem(item);
    if (severity != Severity::Info)
        emit problemLogged(static_cast<int>(severity));
}

int LogView::count() const
{
    return m_list->topLevelItemCount();
}

int LogView::count(Severity severity) const
{
    int n = 0;
    for (int i = 0; i < m_list->topLevelItemCount(); ++i)
        n += m_list->topLevelItem(i)->data(0, Qt::UserRole).toInt() == static_cast<int>(severity);
    return n;
}

QStringList LogView::messages() const
{
    QStringList out;
    for (int i = 0; i < m_list->topLevelItemCount(); ++i)
        out << m_list->topLevelItem(i)->text(1);
    return out;
}

void LogView::clear()
{
    m_list->clear();
}

} // namespace quantscope
