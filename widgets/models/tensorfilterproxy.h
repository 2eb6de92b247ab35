// SPDX-License-Identifier: MIT
#pragma once
/// \file tensorfilterproxy.h
/// Filters a TensorTreeModel by full tensor name (wildcard or regular expression, case-
/// insensitive, matching anywhere in the name); groups stay while a tensor below them matches.
/// Sorts names naturally ("2" before "10").
#include <QSortFilterProxyModel>

namespace quantscope {

class TensorFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    enum class Syntax { Wildcard, RegularExpression };

    explicit TensorFilterProxy(QObject *parent = nullptr);

    /// Sets the filter. Returns false (and keeps showing everything) when a regular expression
    /// does not compile; errorString() then says why.
    bool setFilter(const QString &pattern, Syntax syntax);
    QString errorString() const { return m_error; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    QString m_error;
    bool m_active = false;
};

} // namespace quantscope
