// SPDX-License-Identifier: MIT
#include "compareview.h"

#include "jobprogresswidget.h"
#include "layerheatmap.h"
#include "qtstring.h"
#include "coremessages.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QFileDialog>
#include <QLineEdit>
#include <QToolButton>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace quantscope {

namespace {

enum Column { kModule, kCodes, kDifference, kErrorA, kErrorB, kDelta, kScheme, kColumns };

/// A number cell: shown compactly, sorted by its value (missing values last).
class NumberItem : public QTableWidgetItem {
public:
    explicit NumberItem(double v)
        : QTableWidgetItem(std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("–")), m_value(v)
    {
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem &other) const override
    {
        const auto *o = dynamic_cast<const NumberItem *>(&other);
        if (!o)
            return QTableWidgetItem::operator<(other);
        if (!std::isfinite(m_value))
            return false;
        return !std::isfinite(o->m_value) || m_value < o->m_value;
    }

private:
    double m_value;
};

} // namespace

CompareView::CompareView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    auto *paths = new QHBoxLayout;
    m_a = new QLineEdit(this);
    m_b = new QLineEdit(this);
    m_reference = new QLineEdit(this);
    for (QLineEdit *e : {m_a, m_b})
        e->setPlaceholderText(tr("Checkpoint or scan report"));
    m_reference->setPlaceholderText(tr("Reference checkpoint (optional)"));
    m_compare = new QPushButton(tr("Compare"), this);
    m_compare->setToolTip(tr("Compare A and B module by module in the background"));
    // Each path with a file picker beside it (a folder can be typed); two rows, so that three
    // long paths do not widen the window.
    auto browse = [this](QLineEdit *edit, const QString &name) {
        auto *b = new QToolButton(this);
        b->setText(QStringLiteral("…"));
        b->setObjectName(name);
        b->setToolTip(tr("Choose a checkpoint file or a scan report (a checkpoint folder can be typed)"));
        connect(b, &QToolButton::clicked, this, [this, edit] {
            auto *dialog = new QFileDialog(this, tr("Choose a Checkpoint or Scan Report"), edit->text(),
                                           tr("Checkpoints and scan reports (*.safetensors *.json *.jsonl *.npz);;"
                                              "All files (*)"));
            dialog->setObjectName(QStringLiteral("compareFileDialog"));
            dialog->setFileMode(QFileDialog::ExistingFile);
            dialog->setAttribute(Qt::WA_DeleteOnClose);
            connect(dialog, &QFileDialog::fileSelected, edit, [edit](const QString &file) { edit->setText(file); });
            dialog->open();
        });
        return b;
    };
    paths->addWidget(new QLabel(QStringLiteral("A"), this));
    paths->addWidget(m_a, 1);
    paths->addWidget(browse(m_a, QStringLiteral("browseA")));
    paths->addWidget(new QLabel(QStringLiteral("B"), this));
    paths->addWidget(m_b, 1);
    paths->addWidget(browse(m_b, QStringLiteral("browseB")));
    layout->addLayout(paths);
    auto *second = new QHBoxLayout;
    second->addWidget(m_reference, 1);
    second->addWidget(browse(m_reference, QStringLiteral("browseReference")));
    second->addWidget(m_compare);
    layout->addLayout(second);

    auto *bar = new QHBoxLayout;
    m_metric = new QComboBox(this);
    m_metric->addItem(tr("Difference"), static_cast<int>(CompareMetric::Difference));
    m_metric->addItem(tr("Δ error (A − B)"), static_cast<int>(CompareMetric::Delta));
    m_metric->addItem(tr("Error A"), static_cast<int>(CompareMetric::ErrorA));
    m_metric->addItem(tr("Error B"), static_cast<int>(CompareMetric::ErrorB));
    m_metric->addItem(tr("Codes differing"), static_cast<int>(CompareMetric::CodeDiff));
    m_metric->setToolTip(tr("The number the cells are coloured by"));
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    bar->addWidget(m_metric);
    bar->addWidget(m_summary, 1);
    layout->addLayout(bar);

    auto *split = new QSplitter(Qt::Vertical, this);
    m_map = new LayerHeatMap(split);
    m_table = new QTableWidget(0, kColumns, split);
    m_table->setHorizontalHeaderLabels({tr("Module"), m_metric->itemText(4), m_metric->itemText(0),
                                        m_metric->itemText(2), m_metric->itemText(3), m_metric->itemText(1),
                                        tr("Scheme difference")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->setVisible(false);
    m_table->setWordWrap(false);
    split->addWidget(m_map);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    m_progress = new JobProgressWidget(this);
    layout->addWidget(m_progress);

    connect(m_metric, &QComboBox::currentIndexChanged, this, &CompareView::redraw);
    connect(m_compare, &QPushButton::clicked, this, &CompareView::compareRequested);
    connect(m_progress, &JobProgressWidget::cancelRequested, this, &CompareView::cancelRequested);
    connect(m_map, &LayerHeatMap::tensorClicked, this, &CompareView::moduleClicked);
    connect(m_table, &QTableWidget::cellClicked, this, [this](int row, int) {
        if (const QTableWidgetItem *it = m_table->item(row, kModule))
            emit moduleClicked(it->data(Qt::UserRole).toString());
    });
    redraw();
}

void CompareView::setReport(std::shared_ptr<const CompareReport> report)
{
    m_report = std::move(report);
    fillTable();
    redraw();
}

void CompareView::setMetric(CompareMetric metric)
{
    m_metric->setCurrentIndex(m_metric->findData(static_cast<int>(metric)));
}

CompareMetric CompareView::metric() const
{
    return static_cast<CompareMetric>(m_metric->currentData().toInt());
}

void CompareView::setPaths(const QString &a, const QString &b, const QString &reference)
{
    m_a->setText(a);
    m_b->setText(b);
    m_reference->setText(reference);
}

QString CompareView::pathA() const
{
    return m_a->text().trimmed();
}
QString CompareView::pathB() const
{
    return m_b->text().trimmed();
}
QString CompareView::reference() const
{
    return m_reference->text().trimmed();
}

void CompareView::jobStarted(const QString &title)
{
    m_compare->setEnabled(false);
    m_progress->start(title);
}

void CompareView::setProgress(double fraction, const QString &step, double secondsLeft)
{
    m_progress->setProgress(fraction, step, secondsLeft);
}

void CompareView::jobFinished(const QString &message, bool completed)
{
    m_compare->setEnabled(true);
    m_progress->finish(message, completed);
}

void CompareView::fillTable()
{
    m_table->setSortingEnabled(false);
    m_table->setRowCount(m_report ? static_cast<int>(m_report->modules.size()) : 0);
    if (m_report) {
        int row = 0;
        for (const ModuleComparison &c : m_report->modules) {
            auto *name = new QTableWidgetItem(fromStd(c.module));
            name->setData(Qt::UserRole, fromStd(c.tensor));
            name->setToolTip(fromStd(c.schemeA + "\n" + c.schemeB));
            m_table->setItem(row, kModule, name);
            m_table->setItem(row, kCodes, new NumberItem(compareValue(c, CompareMetric::CodeDiff)));
            m_table->setItem(row, kDifference, new NumberItem(compareValue(c, CompareMetric::Difference)));
            m_table->setItem(row, kErrorA, new NumberItem(compareValue(c, CompareMetric::ErrorA)));
            m_table->setItem(row, kErrorB, new NumberItem(compareValue(c, CompareMetric::ErrorB)));
            m_table->setItem(row, kDelta, new NumberItem(compareValue(c, CompareMetric::Delta)));
            auto *scheme =
                new QTableWidgetItem(c.error.empty() ? fromStd(c.schemeDiff) : coremessages::translated(c.error));
            scheme->setToolTip(scheme->text());
            m_table->setItem(row, kScheme, scheme);
            ++row;
        }
    }
    m_table->setSortingEnabled(true);
    m_table->sortItems(kDifference, Qt::DescendingOrder);
    m_table->resizeColumnsToContents();
}

void CompareView::redraw()
{
    if (!m_report) {
        m_summary->setText(tr("No comparison yet: give two checkpoints or two scan reports and press Compare."));
        m_map->setGrid(nullptr);
        return;
    }
    const nlohmann::ordered_json s = m_report->toJson()["summary"];
    QString text = tr("%n module(s) compared", nullptr, static_cast<int>(m_report->modules.size())) +
                   QStringLiteral(" · ") +
                   tr("%1 differ, %2 on one side only")
                       .arg(s["differing"].get<long long>())
                       .arg(static_cast<long long>(m_report->onlyA.size() + m_report->onlyB.size()));
    if (m_report->spearman)
        text += QStringLiteral(" · ") + tr("Spearman %1").arg(*m_report->spearman, 0, 'f', 3);
    m_summary->setText(text);
    m_map->setGrid(std::make_shared<LayerGrid>(prepareCompareGrid(*m_report, metric())), m_metric->currentText());
}

} // namespace quantscope
