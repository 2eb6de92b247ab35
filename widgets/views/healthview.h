// SPDX-License-Identifier: MIT
#pragma once
/// \file healthview.h
/// The Health tab: the checkpoint doctor's report (core/doctor/doctor.h) of the opened checkpoint
/// as a table — one row per finding: severity (coloured), check, module or tensor, file and byte
/// offset, the one-line explanation — sortable, with a summary line. The doctor runs in the
/// background (app/'s HealthController); a click on a row naming a tensor opens it.
#include <QWidget>

#include "doctor/doctor.h"

class QLabel;
class QPushButton;
class QTableWidget;

namespace quantscope {

class HealthView : public QWidget {
    Q_OBJECT
public:
    explicit HealthView(QWidget *parent = nullptr);

    /// Shows a report (replaces the previous one).
    void setReport(const DoctorReport &report);
    const DoctorReport &report() const { return m_report; }
    void jobStarted();
    void jobFinished(const QString &message);
    /// The opened checkpoint's name ("" none): before a check, the summary says what to do next.
    void setCheckpointName(const QString &name);

    QTableWidget *table() const { return m_table; }
    QLabel *summary() const { return m_summary; }
    QPushButton *checkButton() const { return m_check; }

signals:
    void checkRequested();
    void cancelRequested();
    /// A row naming a tensor was activated.
    void tensorClicked(const QString &tensor);

private:
    DoctorReport m_report;
    bool m_checked = false;
    QTableWidget *m_table = nullptr;
    QLabel *m_summary = nullptr;
    QPushButton *m_check = nullptr, *m_cancel = nullptr;
};

} // namespace quantscope
