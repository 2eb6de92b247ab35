// SPDX-License-Identifier: MIT
#include "tensortreemodel.h"

#include "languageswitch.h"

#include <QFont>
#include <QHash>
#include <QLocale>
#include <QStringList>
#include <algorithm>
#include <utility>

namespace quantscope {

struct TensorTreeModel::Node {
    QString label;
    QString path;
    int entry = -1; ///< index into m_entries for leaves
    Node *parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<Node>> children;
    QHash<QString, Node *> groupByLabel;
    int tensors = 0;
    quint64 bytes = 0;
};

namespace {
/// A leaf keeps the last two name components ("down_proj.weight"): the module and its tensor
/// belong together, and a module's scale and zero point then sit next to its weight.
constexpr int kLeafComponents = 2;

double elementCount(const Shape &shape)
{
    double n = 1.0;
    for (const auto d : shape)
        n *= static_cast<double>(d);
    return n;
}
} // namespace

TensorTreeModel::TensorTreeModel(QObject *parent) : QAbstractItemModel(parent), m_root(std::make_unique<Node>())
{
}

TensorTreeModel::~TensorTreeModel() = default;

void TensorTreeModel::setEntries(QList<TensorListEntry> entries)
{
    beginResetModel();
    m_entries = std::move(entries);
    m_root = std::make_unique<Node>();
    m_leafOfEntry.assign(static_cast<std::size_t>(m_entries.size()), nullptr);
    m_entryByName.clear();
    for (int i = 0; i < m_entries.size(); ++i) {
        const auto &e = m_entries.at(i);
        m_entryByName.insert(e.name, i);
        const auto parts = e.name.split(QLatin1Char('.'));
        const int groups = std::max(0, static_cast<int>(parts.size()) - kLeafComponents);
        Node *node = m_root.get();
        for (int g = 0; g < groups; ++g) {
            node->tensors += 1;
            node->bytes += e.nbytes;
            auto *&child = node->groupByLabel[parts.at(g)];
            if (!child) {
                auto owned = std::make_unique<Node>();
                owned->label = parts.at(g);
                owned->path = node->path.isEmpty() ? parts.at(g) : node->path + QLatin1Char('.') + parts.at(g);
                owned->parent = node;
                owned->row = static_cast<int>(node->children.size());
                child = owned.get();
                node->children.push_back(std::move(owned));
            }
            node = child;
        }
        node->tensors += 1;
        node->bytes += e.nbytes;
        auto leaf = std::make_unique<Node>();
        leaf->label = parts.mid(groups).join(QLatin1Char('.'));
        leaf->path = e.name;
        leaf->entry = i;
        leaf->parent = node;
        leaf->row = static_cast<int>(node->children.size());
        leaf->tensors = 1;
        leaf->bytes = e.nbytes;
        m_leafOfEntry[static_cast<std::size_t>(i)] = leaf.get();
        node->children.push_back(std::move(leaf));
    }
    endResetModel();
}

void TensorTreeModel::clear()
{
    setEntries({});
}

void TensorTreeModel::setActivation(const QString &tensorName)
{
    if (tensorName == m_activation)
        return;
    const auto old = indexOfTensor(m_activation);
    m_activation = tensorName;
    for (const auto &idx : {old, indexOfTensor(m_activation)})
        if (idx.isValid())
            emit dataChanged(idx, idx.siblingAtColumn(ColumnCount - 1));
}

TensorTreeModel::Node *TensorTreeModel::nodeOf(const QModelIndex &index) const
{
    return index.isValid() ? static_cast<Node *>(index.internalPointer()) : m_root.get();
}

QModelIndex TensorTreeModel::indexOfNode(const Node *node, int column) const
{
    if (!node || node == m_root.get())
        return {};
    return createIndex(node->row, column, const_cast<Node *>(node));
}

QModelIndex TensorTreeModel::indexOfTensor(const QString &name, int column) const
{
    if (name.isEmpty())
        return {};
    const auto it = m_entryByName.constFind(name);
    if (it == m_entryByName.constEnd())
        return {};
    return indexOfNode(m_leafOfEntry[static_cast<std::size_t>(*it)], column);
}

void TensorTreeModel::collect(const Node *node, QStringList &out) const
{
    if (node->entry >= 0)
        out.append(m_entries.at(node->entry).name);
    for (const auto &c : node->children)
        collect(c.get(), out);
}

QStringList TensorTreeModel::tensorsUnder(const QModelIndex &index) const
{
    QStringList out;
    collect(nodeOf(index), out);
    return out;
}

QModelIndex TensorTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    const Node *p = nodeOf(parent);
    return createIndex(row, column, p->children[static_cast<std::size_t>(row)].get());
}

QModelIndex TensorTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    return indexOfNode(nodeOf(child)->parent, 0);
}

int TensorTreeModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return static_cast<int>(nodeOf(parent)->children.size());
}

int TensorTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant TensorTreeModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Node *n = nodeOf(index);
    const TensorListEntry *e = n->entry >= 0 ? &m_entries.at(n->entry) : nullptr;
    const int column = index.column();

    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            return n->label;
        case DTypeColumn:
            return e ? e->dtype : QString();
        case ShapeColumn:
            return e ? shapeText(e->shape) : tr("%n tensor(s)", nullptr, n->tensors);
        case SizeColumn:
            return QLocale().formattedDataSize(static_cast<qint64>(n->bytes));
        case FormatColumn:
            if (!e)
                return QString();
            return e->name == m_activation ? tr("%1 · paired activation").arg(e->format) : e->format;
        }
        break;
    case SortRole:
        switch (column) {
        case NameColumn: {
            bool isNumber = false;
            const auto v = n->label.toLongLong(&isNumber);
            return isNumber ? QVariant(v) : QVariant(n->label);
        }
        case DTypeColumn:
            return e ? e->dtype : QString();
        case ShapeColumn:
            return e ? elementCount(e->shape) : static_cast<double>(n->tensors);
        case SizeColumn:
            return QVariant::fromValue(n->bytes);
        case FormatColumn:
            return e ? e->format : QString();
        }
        break;
    case TensorNameRole:
        return e ? e->name : QString();
    case PathRole:
        return n->path;
    case IsTensorRole:
        return e != nullptr;
    case Qt::ToolTipRole:
        switch (column) {
        case NameColumn:
            return e && e->name == m_activation
                       ? tr("%1\nPaired as the activation of the weights you quantize").arg(e->name)
                       : n->path;
        case ShapeColumn:
            return e ? tr("%1 elements").arg(QLocale().toString(elementCount(e->shape), 'f', 0)) : QVariant();
        case SizeColumn:
            return tr("%1 bytes").arg(QLocale().toString(n->bytes));
        case FormatColumn:
            return e ? QVariant(e->format) : QVariant();
        }
        break;
    case Qt::FontRole:
        if (e && e->name == m_activation) {
            QFont f;
            f.setItalic(true);
            return f;
        }
        break;
    case Qt::TextAlignmentRole:
        if (column == SizeColumn)
            return static_cast<int>(Qt::AlignRight | Qt::AlignVCenter);
        break;
    }
    return {};
}

QString TensorTreeModel::shapeText(const Shape &shape)
{
    if (shape.empty())
        return tr("scalar");
    QStringList dims;
    dims.reserve(static_cast<qsizetype>(shape.size()));
    for (const auto d : shape)
        dims.append(QString::number(d));
    return dims.join(QStringLiteral(" × "));
}

QVariant TensorTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
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
        case FormatColumn:
            return tr("Format");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case NameColumn:
            return tr("Tensor name, grouped by its dotted path");
        case DTypeColumn:
            return tr("Element type as stored in the file");
        case ShapeColumn:
            return tr("Dimensions, outermost first");
        case SizeColumn:
            return tr("Bytes the tensor (or group) occupies in its file");
        case FormatColumn:
            return tr("Quantized format and scheme, as detected from the stored tensors");
        }
    }
    return {};
}

void TensorTreeModel::retranslateFormats()
{
    emit layoutAboutToBeChanged();
    for (auto &e : m_entries)
        e.format = language::retranslated(e.format, this);
    emit layoutChanged();
}

} // namespace quantscope
