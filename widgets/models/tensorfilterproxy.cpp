// SPDX-License-Identifier: MIT
#include "tensorfilterproxy.h"

#include "tensortreemodel.h"

#include <QRegularExpression>

namespace quantscope {

TensorFilterProxy::TensorFilterProxy(QObject *parent) : QSortFilterProxyModel(parent)
{
    setRecursiveFilteringEnabled(true);
    setSortRole(TensorTreeModel::SortRole);
    setFilterRole(TensorTreeModel::TensorNameRole);
    setFilterKeyColumn(TensorTreeModel::NameColumn);
}

bool TensorFilterProxy::setFilter(const QString &pattern, Syntax syntax)
{
    m_error.clear();
    QRegularExpression re;
    if (!pattern.isEmpty()) {
        re = syntax == Syntax::Wildcard ? QRegularExpression(QRegularExpression::wildcardToRegularExpression(
                                              pattern, QRegularExpression::UnanchoredWildcardConversion))
                                        : QRegularExpression(pattern);
        re.setPatternOptions(re.patternOptions() | QRegularExpression::CaseInsensitiveOption);
        if (!re.isValid()) {
            m_error = re.errorString();
            re = QRegularExpression();
        }
    }
    m_active = !re.pattern().isEmpty();
    setFilterRegularExpression(re);
    return m_error.isEmpty();
}

bool TensorFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (!m_active)
        return true;
    const auto index = sourceModel()->index(sourceRow, filterKeyColumn(), sourceParent);
    // A group is never accepted for its own sake: recursive filtering keeps it when a tensor
    // below it matches, so "experts" shows the expert tensors rather than a whole subtree.
    if (!index.data(TensorTreeModel::IsTensorRole).toBool())
        return false;
    return index.data(TensorTreeModel::TensorNameRole).toString().contains(filterRegularExpression());
}

bool TensorFilterProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const auto l = left.data(sortRole()), r = right.data(sortRole());
    const bool ln = l.typeId() == QMetaType::LongLong, rn = r.typeId() == QMetaType::LongLong;
    if (ln && rn)
        return l.toLongLong() < r.toLongLong();
    if (ln != rn)
        return ln; // numbered groups (layers, experts) before named ones
    if (l.typeId() == QMetaType::QString)
        return QString::localeAwareCompare(l.toString(), r.toString()) < 0;
    return QSortFilterProxyModel::lessThan(left, right);
}

} // namespace quantscope
