// SPDX-License-Identifier: MIT
#include "healthview.h"
#include "coremessages.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace quantscope {

namespace {

enum Column { kSeverity, kCheck, kWhat, kWhere, kMessage, kColumns };

QColor severityColor(Severity s)
{
    switch (s) {
    case Severity::Error:
        return QColor(0xd6, 0x27, 0x28);
    case Severity::Warning:
        return QColor(0xe6, 0x9f, 0x00);
    default:
        return QColor(0x56, 0x8e, 0xc7);
    }
}

/// Sorts by severity (errors first in ascending order), not by the translated word.
class SeverityItem : public QTableWidgetItem {
public:
    using QTableWidgetItem::QTableWidgetItem;
    bool operator<(const QTableWidgetItem &other) const override
    {
        return data(Qt::UserRole).toInt() > other.data(Qt::UserRole).toInt();
    }
};

} // namespace

HealthView::HealthView(QWidget *parent) : QWidget(parent)
{
    auto *top = new QHBoxLayout;
    m_check = new QPushButton(tr("Check checkpoint"), this);
    m_check->setToolTip(tr("Run the doctor: completeness, quantized modules, scale health, dtype traps, KV scales, "
                           "duplicates"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setEnabled(false);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    top->addWidget(m_check);
    top->addWidget(m_cancel);
    top->addWidget(m_summary, 1);
    setCheckpointName(QString());
    m_table = new QTableWidget(0, kColumns, this);
    m_table->setHorizontalHeaderLabels(
        {tr("Severity"), tr("Check"), tr("Module / tensor"), tr("File @ byte"), tr("Explanation")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->setVisible(false);
    m_table->setSortingEnabled(true);
    m_table->setWordWrap(false);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_table, 1);
    connect(m_check, &QPushButton::clicked, this, &HealthView::checkRequested);
    connect(m_cancel, &QPushButton::clicked, this, &HealthView::cancelRequested);
    connect(m_table, &QTableWidget::cellClicked, this, [this](int row, int) {
        const QTableWidgetItem *it = m_table->item(row, kWhat);
        const QString tensor = it ? it->data(Qt::UserRole).toString() : QString();
        if (!tensor.isEmpty())
            emit tensorClicked(tensor);
    });
}

void HealthView::setCheckpointName(const QString &name)
{
    if (m_checked)
        return;
    m_summary->setText(
        name.isEmpty()
            ? tr("No checkpoint open: open one (File ▸ Open…), then press Check checkpoint.")
            : tr("%1 is not checked yet: press Check checkpoint for every problem of its files in one report.")
                  .arg(name));
}

void HealthView::setReport(const DoctorReport &report)
{
    m_checked = true;
    m_report = report;
    m_table->setSortingEnabled(false);
    m_table->setRowCount(static_cast<int>(report.findings.size()));
    const QString sev[] = {tr("info"), tr("warning"), tr("error")};
    for (int row = 0; row < static_cast<int>(report.findings.size()); ++row) {
        const Finding &f = report.findings[static_cast<std::size_t>(row)];
        auto *s = new SeverityItem(sev[static_cast<int>(f.severity)]);
        s->setData(Qt::UserRole, static_cast<int>(f.severity));
        s->setForeground(severityColor(f.severity));
        QFont bold = s->font();
        bold.setBold(f.severity != Severity::Info);
        s->setFont(bold);
        m_table->setItem(row, kSeverity, s);
        m_table->setItem(row, kCheck, new QTableWidgetItem(QString::fromStdString(f.check)));
        auto *what = new QTableWidgetItem(QString::fromStdString(f.tensor.empty() ? f.module : f.tensor));
        what->setData(Qt::UserRole, QString::fromStdString(f.tensor));
        m_table->setItem(row, kWhat, what);
        QString where = QString::fromStdString(f.file);
        if (f.offset)
            where += QStringLiteral(" @ %1").arg(static_cast<qulonglong>(*f.offset));
        auto *w = new QTableWidgetItem(where);
        w->setToolTip(where);
        m_table->setItem(row, kWhere, w);
        auto *m = new QTableWidgetItem(coremessages::translated(f.message));
        m->setToolTip(coremessages::translated(f.message));
        m_table->setItem(row, kMessage, m);
    }
    m_table->setSortingEnabled(true);
    m_table->sortItems(kSeverity, Qt::AscendingOrder); // errors first
    m_table->resizeColumnsToContents();
    m_summary->setText(
        report.findings.empty()
            ? tr("Healthy: %1 files, %2 tensors, nothing to report").arg(report.files).arg(report.tensors)
            : tr("%1 files, %2 tensors: %3 errors, %4 warnings, %5 notes")
                  .arg(report.files)
                  .arg(report.tensors)
                  .arg(report.count(Severity::Error))
                  .arg(report.count(Severity::Warning))
                  .arg(report.count(Severity::Info)));
}

void HealthView::jobStarted()
{
    m_check->setEnabled(false);
    m_cancel->setEnabled(true);
    m_summary->setText(tr("Checking…"));
}

void HealthView::jobFinished(const QString &message)
{
    m_check->setEnabled(true);
    m_cancel->setEnabled(false);
    if (!message.isEmpty())
        m_summary->setText(message);
}

} // namespace quantscope
