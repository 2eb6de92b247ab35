// SPDX-License-Identifier: MIT
#include "tensorlistmodel.h"

#include <QLocale>
#include <QStringList>
#include <utility>

namespace quantscope {

namespace {
/// Element count for sorting only; a double so that no shape can overflow it.
double elementCount(const Shape &shape)
{
    double n = 1.0;
    for (const auto d : shape)
        n *= static_cast<double>(d);
    return n;
}
} // namespace

TensorListModel::TensorListModel(QObject *parent) : QAbstractTableModel(parent)
{
}

void TensorListModel::setEntries(QList<TensorListEntry> entries)
{
    beginResetModel();
    m_entries = std::move(entries);
    endResetModel();
}

void TensorListModel::clear()
{
    setEntries({});
}

int TensorListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

int TensorListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString TensorListModel::shapeText(const Shape &shape)
{
    if (shape.empty())
        return tr("scalar");
    QStringList dims;
    dims.reserve(static_cast<qsizetype>(shape.size()));
    for (const auto d : shape)
        dims.append(QString::number(d));
    return dims.join(QStringLiteral(" × "));
}

QVariant TensorListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto &e = m_entries.at(index.row());

    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return e.name;
        case DTypeColumn:
            return e.dtype;
        case ShapeColumn:
            return shapeText(e.shape);
        case SizeColumn:
            return QLocale().formattedDataSize(static_cast<qint64>(e.nbytes));
        }
        break;
    case SortRole:
        switch (index.column()) {
        case NameColumn:
            return e.name;
        case DTypeColumn:
            return e.dtype;
        case ShapeColumn:
            return elementCount(e.shape);
        case SizeColumn:
            return QVariant::fromValue(e.nbytes);
        }
        break;
    case TensorNameRole:
        return e.name;
    case Qt::ToolTipRole:
        switch (index.column()) {
        case NameColumn:
            return e.name; // names are long and often elided
        case ShapeColumn:
            return tr("%1 elements").arg(QLocale().toString(elementCount(e.shape), 'f', 0));
        case SizeColumn:
            return tr("%1 bytes").arg(QLocale().toString(e.nbytes));
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == SizeColumn)
            return static_cast<int>(Qt::AlignRight | Qt::AlignVCenter); // int: what 6.4 views read
        break;
    }
    return {};
}

QVariant TensorListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn:
            return tr("Name");
        case DTypeColumn:
            return tr("Type");
        case ShapeColumn:
            return tr("Shape");
        case SizeColumn:
            return tr("Size");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case NameColumn:
            return tr("Tensor name as stored in the checkpoint");
        case DTypeColumn:
            return tr("Element type as declared in the safetensors header");
        case ShapeColumn:
            return tr("Dimensions, outermost first");
        case SizeColumn:
            return tr("Bytes the tensor occupies in its file");
        }
    }
    return {};
}

} // namespace quantscope
