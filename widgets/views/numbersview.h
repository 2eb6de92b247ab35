// SPDX-License-Identifier: MIT
#pragma once
/// \file numbersview.h
/// The Numbers tab: the NumbersModel in a table, Ctrl+C copies the selection at full
/// precision, and the whole table exports as CSV or JSON.
#include <QHash>
#include <QWidget>

class QLabel;
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
    /// The stored scheme in words of each tensor of a GGUF file (schemewords::storedSchemes):
    /// shown above the table for the current column's tensor (every tensor's when none is current).
    void setStoredSchemes(QHash<QString, QString> schemes);
    QLabel *storedLabel() const { return m_stored; }

private:
    void askAndExport(bool json);
    void updateStored();

    NumbersModel *m_model = nullptr;
    QTableView *m_table = nullptr;
    QLabel *m_stored = nullptr;
    QHash<QString, QString> m_schemes;
};

} // namespace quantscope
