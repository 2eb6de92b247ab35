// SPDX-License-Identifier: MIT
#pragma once
/// \file tensorlistmodel.h
/// The table of a checkpoint's tensors (name, dtype, shape, size) as the header describes them.
#include "tensor/tensor.h"

#include <QAbstractTableModel>
#include <QList>
#include <QString>

namespace quantscope {

/// One row of the tensor list: what a checkpoint's header says about one tensor. Filled off
/// the UI thread by the job that opens the checkpoint; the model only displays it.
struct TensorListEntry {
    QString name;
    QString dtype; ///< safetensors dtype string ("BF16", "F8_E4M3", …)
    Shape shape;
    quint64 nbytes = 0;
    /// Quantized format and scheme in words ("compressed-tensors pack-quantized: INT4 sym,
    /// group 32"), or what the dtype alone says ("not quantized"). Filled by the loader.
    QString format;
};

/// Flat table model over TensorListEntry rows. Sort through a proxy with sortRole() = SortRole.
class TensorListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, DTypeColumn, ShapeColumn, SizeColumn, ColumnCount };
    enum Role {
        /// Natural sort key: the name, dtype string, element count, byte count.
        SortRole = Qt::UserRole + 1,
        /// The tensor's full name, in every column (selection → tensor).
        TensorNameRole,
    };

    explicit TensorListModel(QObject *parent = nullptr);

    /// Replaces all rows (a model reset).
    void setEntries(QList<TensorListEntry> entries);
    void clear();
    const QList<TensorListEntry> &entries() const noexcept { return m_entries; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    /// "4096 × 1024", "scalar" for rank 0.
    static QString shapeText(const Shape &shape);

private:
    QList<TensorListEntry> m_entries;
};

} // namespace quantscope
