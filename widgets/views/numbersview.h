// SPDX-License-Identifier: MIT
#pragma once
/// \file numbersview.h
/// The Numbers tab: the NumbersModel in a table, Ctrl+C copies the selection at full
/// precision, and the whole table exports as CSV or JSON.
#include <QWidget>

class QTableView;

namespace quantscope {

class NumbersModel;

class NumbersView : public QWidget {
    Q_OBJECT
public:
    explicit NumbersView(QWidget *parent = nullptr);

    NumbersModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }

    /// Copies the selected cells (all cells when none is selected).
    void copySelection();
    bool exportCsv(const QString &file, QString *error = nullptr);
    bool exportJson(const QString &file, QString *error = nullptr);

private:
    void askAndExport(bool json);

    NumbersModel *m_model = nullptr;
    QTableView *m_table = nullptr;
};

} // namespace quantscope
