// SPDX-License-Identifier: MIT
#pragma once
/// \file overviewmodel.h
/// The Overview table: one row per tensor × configuration (core's OverviewData), the columns
/// a user compares across many tensors. ValueRole holds the number (the sort role: sorting is
/// numeric, failed runs sort last); the relative error and SQNR cells are tinted from best
/// (green) to worst (red) of the table on a log scale.
#include "results/overview.h"

#include <QAbstractTableModel>
#include <QSet>
#include <memory>

namespace quantscope {

class OverviewModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Tensor,
        Config,
        RelError,
        OutputError,
        OutputErrorRel,
        Sqnr,
        Kurtosis,
        Bits,
        Time,
        Device,
        ColumnCount
    };
    enum Role {
        /// The number (double; ±inf allowed) or the text; for sorting.
        ValueRole = Qt::UserRole + 1,
        /// The full tensor name of the row.
        TensorRole,
        /// The configuration's name of the row ("A").
        ConfigRole,
    };

    explicit OverviewModel(QObject *parent = nullptr);

    void setResults(const std::shared_ptr<const QuantizeJobResult> &results);
    const OverviewData &overview() const { return m_data; }
    /// Configurations edited since they ran: their rows say "(stale)" until run again.
    void setStaleConfigs(const QSet<QString> &configs);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    OverviewData m_data;
    QSet<QString> m_stale;
};

} // namespace quantscope
