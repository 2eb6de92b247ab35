// SPDX-License-Identifier: MIT
#include "recentfilesmenu.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace quantscope {

namespace {

constexpr int kMaxRecentPaths = 10;

QString recentPathsKey()
{
    return QStringLiteral("recentCheckpoints");
}

/// Menu texts treat '&' as a mnemonic marker; file names may contain it.
QString escapeMnemonic(QString text)
{
    return text.replace(QLatin1Char('&'), QStringLiteral("&&"));
}

} // namespace

RecentFilesMenu::RecentFilesMenu(const QString &title, QWidget *parent) : QMenu(title, parent)
{
    fill();
}

void RecentFilesMenu::fill()
{
    clear();
    const auto paths = QSettings().value(recentPathsKey()).toStringList();
    for (const auto &path : paths) {
        auto *action = addAction(escapeMnemonic(QDir::toNativeSeparators(path)));
        // A file that has gone is shown greyed, not removed: it may be on a drive not mounted.
        if (!QFileInfo::exists(path)) {
            action->setEnabled(false);
            action->setToolTip(tr("Not found"));
            action->setText(tr("%1 (missing)").arg(action->text()));
        }
        connect(action, &QAction::triggered, this, [this, path] { emit openRequested(path); });
    }
    if (paths.isEmpty()) {
        addAction(tr("No Recent Files"))->setEnabled(false);
        return;
    }
    addSeparator();
    connect(addAction(tr("&Clear List")), &QAction::triggered, this, [this] {
        QSettings().remove(recentPathsKey());
        fill();
    });
}

void RecentFilesMenu::add(const QString &path)
{
    const auto absolute = QFileInfo(path).absoluteFilePath();
    QSettings settings;
    auto paths = settings.value(recentPathsKey()).toStringList();
    paths.removeAll(absolute);
    paths.prepend(absolute);
    while (paths.size() > kMaxRecentPaths)
        paths.removeLast();
    settings.setValue(recentPathsKey(), paths);
    fill();
}

} // namespace quantscope
