// SPDX-License-Identifier: MIT
#pragma once
/// \file logview.h
/// The log dock: the compute devices, warnings and errors, newest last, with their time.
#include <QWidget>

class QTreeWidget;

namespace quantscope {

class LogView : public QWidget {
    Q_OBJECT
public:
    enum class Severity { Info, Warning, Error };

    explicit LogView(QWidget *parent = nullptr);

    void append(Severity severity, const QString &message);
    int count() const;
    int count(Severity severity) const;
    /// The messages, oldest first.
    QStringList messages() const;
    void clear();

signals:
    /// A warning or an error was added (e.g. to raise the dock).
    void problemLogged(int severity);

private:
    QTreeWidget *m_list = nullptr;
};

} // namespace quantscope
