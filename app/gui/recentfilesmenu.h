// SPDX-License-Identifier: MIT
#pragma once
/// \file recentfilesmenu.h
/// File > Open Recent: the last checkpoints and sessions opened, newest first, kept in the
/// settings. A file that has gone stays listed, greyed: it may be on a drive not mounted.
#include <QMenu>
#include <QString>

namespace quantscope {

class RecentFilesMenu : public QMenu {
    Q_OBJECT
public:
    RecentFilesMenu(const QString &title, QWidget *parent);

    /// Puts `path` (made absolute) first in the list.
    void add(const QString &path);

signals:
    /// The user chose a file of the list.
    void openRequested(const QString &path);

private:
    void fill();
};

} // namespace quantscope
