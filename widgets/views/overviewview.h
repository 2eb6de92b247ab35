// SPDX-License-Identifier: MIT
#pragma once
/// \file overviewview.h
/// The Overview tab: OverviewModel sorted by any column (numerically), a line that says how
/// many tensors and configurations ran (and whether the batch was cancelled part way), and a
/// CSV export. Clicking a row asks the window to show that tensor in the other views.
#include <QWidget>
#include <memory>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace quantscope {

class OverviewModel;
struct QuantizeJobResult;

class OverviewView : public QWidget {
    Q_OBJECT
public:
    explicit OverviewView(QWidget *parent = nullptr);

    void setResults(const std::shared_ptr<const QuantizeJobResult> &results);

    OverviewModel *model() const { return m_model; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    QTableView *table() const { return m_table; }
    QLabel *summary() const { return m_summary; }

    /// Writes the table as CSV atomically; false with a reason in `error`.
    bool exportCsv(const QString &file, QString *error = nullptr);

signals:
    /// A row was clicked: show this tensor (full name) and configuration elsewhere.
    void tensorActivated(const QString &tensor, const QString &config);

private:
    void askAndExport();

    OverviewModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_table = nullptr;
    QLabel *m_summary = nullptr;
};

} // namespace quantscope
