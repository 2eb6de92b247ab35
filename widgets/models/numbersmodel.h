// SPDX-License-Identifier: MIT
#pragma once
/// \file numbersmodel.h
/// The Numbers table: one row per metric (results/metric_rows.h: the CLI's JSON keys; the
/// output-aware error only when a capture was paired), one column
/// per tensor × configuration. Cells show rounded numbers; ValueRole holds the exact value and
/// the exports and the clipboard carry full precision.
#include "results/metric_rows.h"

#include <QAbstractTableModel>
#include <QSet>
#include <memory>

namespace quantscope {

class NumbersModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role {
        /// The exact value: double (±inf allowed), qint64, QString or bool; invalid when undefined.
        ValueRole = Qt::UserRole + 1,
        /// The row's key ("metrics.mse"), on every cell and on the vertical header.
        KeyRole,
        /// Full-precision text (what copy and CSV write).
        ExactTextRole,
    };

    explicit NumbersModel(QObject *parent = nullptr);

    void setResults(std::shared_ptr<const QuantizeJobResult> results);
    /// Configurations edited since they ran: their columns say "(stale)" until run again.
    void setStaleConfigs(const QSet<QString> &configs);
    const QuantizeOutcome *outcomeAt(int column) const;
    /// Row of a key, −1 when unknown.
    int rowOfKey(const QString &key) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// "Relative Frobenius error", and its one-line meaning for the tooltip.
    static QString metricLabel(const QString &key);
    static QString metricHelp(const QString &key);
    /// Cell text at display precision / at full precision.
    static QString displayText(const MetricValue &v);
    static QString exactText(const MetricValue &v);

    /// Every row and column as CSV (full precision).
    QString toCsv() const;
    /// Every column as CLI-shaped JSON objects in an array.
    QByteArray toJson() const;
    /// The given cells as tab-separated text with row and column headers (for the clipboard).
    QString toTsv(const QModelIndexList &cells) const;

private:
    MetricValue valueAt(const QModelIndex &index) const;

    std::shared_ptr<const QuantizeJobResult> m_results;
    QSet<QString> m_stale;
    std::vector<MetricRow> m_rows; ///< metricRowsFor(results): the output-aware error only when a run has it
};

} // namespace quantscope
