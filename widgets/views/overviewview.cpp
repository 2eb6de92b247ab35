// SPDX-License-Identifier: MIT
#include "overviewview.h"

#include "overviewmodel.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

namespace quantscope {

OverviewView::OverviewView(QWidget *parent) : QWidget(parent)
{
    m_model = new OverviewModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(OverviewModel::ValueRole);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *bar = new QHBoxLayout;
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    auto *csv = new QPushButton(tr("Export C&SV…"), this);
    bar->addWidget(m_summary, 1);
    bar->addWidget(csv);
    layout->addLayout(bar);

    m_table = new QTableView(this);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // the job's order until a header is clicked
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    layout->addWidget(m_table, 1);

    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex &index) {
        emit tensorActivated(index.data(OverviewModel::TensorRole).toString(),
                             index.data(OverviewModel::ConfigRole).toString());
    });
    connect(csv, &QPushButton::clicked, this, &OverviewView::askAndExport);
    setResults(nullptr);
}

void OverviewView::setResults(const std::shared_ptr<const QuantizeJobResult> &results)
{
    m_model->setResults(results);
    const auto &d = m_model->overview();
    // The output-aware error only where a capture was paired.
    for (const int c : {OverviewModel::OutputError, OverviewModel::OutputErrorRel})
        m_table->setColumnHidden(c, !d.outputError);
    if (d.rows.empty()) {
        m_summary->setText(tr("No results yet: select tensors in the Tensors dock and press Run (Ctrl+R) to compare "
                              "every tensor and configuration here."));
        return;
    }
    QString text = tr("%n tensor(s)", nullptr, d.tensorCount) + tr(" × %n configuration(s)", nullptr, d.configCount);
    if (d.partial)
        text += QStringLiteral(" — ") + tr("partial batch: cancelled, the finished runs are shown");
    const auto noted =
        std::count_if(d.rows.begin(), d.rows.end(), [](const OverviewRow &r) { return !r.note.empty(); });
    if (noted > 0)
        text += QStringLiteral(" — ⚠ ") + tr("%n run(s) on tensors too small for their group or block: not comparable, "
                                             "not tinted (see the tooltip)",
                                             nullptr, static_cast<int>(noted));
    m_summary->setText(text);
}

bool OverviewView::exportCsv(const QString &file, QString *error)
{
    const auto bytes = QByteArray::fromStdString(overviewCsv(m_model->overview()));
    QSaveFile out(file);
    const bool ok = out.open(QIODevice::WriteOnly) && out.write(bytes) == bytes.size() && out.commit();
    if (!ok && error)
        *error = tr("Could not write “%1”: %2").arg(QDir::toNativeSeparators(file), out.errorString());
    return ok;
}

void OverviewView::askAndExport()
{
    QSettings settings;
    auto *dialog =
        new QFileDialog(this, tr("Export Overview as CSV"), settings.value(QStringLiteral("lastExportDir")).toString(),
                        tr("CSV tables (*.csv)"));
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setDefaultSuffix(QStringLiteral("csv"));
    dialog->selectFile(QStringLiteral("overview.csv"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &file) {
        QSettings().setValue(QStringLiteral("lastExportDir"), QFileInfo(file).absolutePath());
        QString error;
        if (!exportCsv(file, &error)) {
            auto *box = new QMessageBox(QMessageBox::Warning, tr("Export Failed"), error, QMessageBox::Close, this);
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->open();
        }
    });
    dialog->open();
}

} // namespace quantscope
