// SPDX-License-Identifier: MIT
#pragma once
/// \file tensortreemodel.h
/// A checkpoint's tensors as a tree by name path: `model › layers › 1 › mlp › experts › 3` holds
/// `down_proj.weight`. Groups show their tensor count and total size; leaves their dtype, shape,
/// size and quantized format.
#include "tensor/tensor.h"

#include <QAbstractItemModel>
#include <QHash>
#include <QList>
#include <QString>
#include <memory>
#include <vector>

namespace quantscope {

/// One tensor as a checkpoint's header describes it. Filled off the UI thread by the job that
/// opens the checkpoint; the model only displays it.
struct TensorListEntry {
    QString name;
    QString dtype; ///< safetensors dtype string ("BF16", "F8_E4M3", …)
    Shape shape;
    quint64 nbytes = 0;
    /// Quantized format and scheme in words ("compressed-tensors pack-quantized: INT4 sym,
    /// group 32"), or what the dtype alone says ("not quantized"). Filled by the loader.
    QString format;
};

class TensorTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, DTypeColumn, ShapeColumn, SizeColumn, FormatColumn, ColumnCount };
    enum Role {
        /// Natural sort key (numbers compare as numbers).
        SortRole = Qt::UserRole + 1,
        /// Full tensor name on leaves, empty on groups.
        TensorNameRole,
        /// Full dotted path of the node ("model.layers.1").
        PathRole,
        /// True on leaves.
        IsTensorRole,
    };

    explicit TensorTreeModel(QObject *parent = nullptr);
    ~TensorTreeModel() override;

    /// Replaces everything (a model reset).
    void setEntries(QList<TensorListEntry> entries);
    void clear();
    const QList<TensorListEntry> &entries() const noexcept { return m_entries; }
    /// The loader's format words ("not quantized") in the current UI language.
    void retranslateFormats();
    int tensorCount() const noexcept { return static_cast<int>(m_entries.size()); }

    /// "4096 × 1024", "scalar" for rank 0.
    static QString shapeText(const Shape &shape);

    /// Marks the tensor paired as activation (drawn differently); "" clears.
    void setActivation(const QString &tensorName);
    QString activation() const { return m_activation; }

    /// The leaf of a tensor, or an invalid index.
    QModelIndex indexOfTensor(const QString &name, int column = 0) const;
    /// Every tensor name under `index` (itself when a leaf), in model order.
    QStringList tensorsUnder(const QModelIndex &index) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Node;
    Node *nodeOf(const QModelIndex &index) const;
    QModelIndex indexOfNode(const Node *node, int column) const;
    void collect(const Node *node, QStringList &out) const;

    QList<TensorListEntry> m_entries;
    std::unique_ptr<Node> m_root;
    std::vector<const Node *> m_leafOfEntry;
    QHash<QString, int> m_entryByName;
    QString m_activation;
};

} // namespace quantscope
