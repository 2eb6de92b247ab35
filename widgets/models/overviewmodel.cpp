// SPDX-License-Identifier: MIT
#include "overviewmodel.h"

#include "numbersmodel.h"
#include "qtstring.h"
#include "coremessages.h"

#include <QColor>
#include <QLocale>
#include <cmath>
#include <limits>

namespace quantscope {

namespace {

QVariant number(const std::optional<double> &v)
{
    return v ? QVariant(*v) : QVariant();
}

QString text(const std::optional<double> &v, int digits)
{
    if (!v)
        return QStringLiteral("—");
    if (std::isinf(*v))
        return *v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
    return QLocale().toString(*v, 'g', digits);
}

/// Green (best) to red (worst), translucent so that it reads on light and dark palettes.
QColor tint(double rank)
{
    QColor c = QColor::fromHsvF(static_cast<float>((1.0 - rank) / 3.0), 0.75f, 0.85f);
    c.setAlphaF(0.35f);
    return c;
}

} // namespace

OverviewModel::OverviewModel(QObject *parent) : QAbstractTableModel(parent)
{
}

void OverviewModel::setResults(const std::shared_ptr<const QuantizeJobResult> &results)
{
    beginResetModel();
    m_data = results ? prepareOverview(*results) : OverviewData{};
    endResetModel();
}

void OverviewModel::setStaleConfigs(const QSet<QString> &configs)
{
    if (configs == m_stale)
        return;
    m_stale = configs;
    if (rowCount() > 0)
        emit dataChanged(index(0, Config), index(rowCount() - 1, Config));
}

int OverviewModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_data.rows.size());
}

int OverviewModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OverviewModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto &r = m_data.rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case TensorRole:
        return fromStd(r.tensor);
    case ConfigRole:
        return fromStd(r.config);
    case ValueRole:
        switch (index.column()) {
        case Tensor:
            return fromStd(r.tensor);
        case Config:
            return fromStd(r.configLabel);
        case RelError:
            // Failed runs sort after every number, ascending.
            return r.relError ? *r.relError : std::numeric_limits<double>::infinity();
        case OutputError:
            return number(r.outputError);
        case OutputErrorRel:
            return number(r.outputErrorRel);
        case Sqnr:
            return r.sqnrDb ? *r.sqnrDb : -std::numeric_limits<double>::infinity();
        case Kurtosis:
            return number(r.kurtosis);
        case Bits:
            return number(r.bitsPerElement);
        case Time:
            return r.timeMs;
        case Device:
            return fromStd(r.device);
        }
        return {};
    case Qt::DisplayRole:
        switch (index.column()) {
        case Tensor:
            return fromStd(r.tensor);
        case Config: {
            const QString label =
                r.note.empty() ? fromStd(r.configLabel) : QStringLiteral("⚠ ") + fromStd(r.configLabel);
            return m_stale.contains(fromStd(r.config)) ? tr("%1 (stale)").arg(label) : label;
        }
        case RelError:
            return r.error.empty() ? text(r.relError, 4) : tr("failed");
        case OutputError:
            return text(r.outputError, 4);
        case OutputErrorRel:
            return text(r.outputErrorRel, 4);
        case Sqnr:
            return text(r.sqnrDb, 4);
        case Kurtosis:
            return text(r.kurtosis, 4);
        case Bits:
            return text(r.bitsPerElement, 4);
        case Time:
            return QLocale().toString(r.timeMs, 'f', 1);
        case Device:
            return fromStd(r.device);
        }
        return {};
    case Qt::BackgroundRole:
        // A run on a tensor too small for its group is not a winner: no tint.
        if ((index.column() == RelError || index.column() == Sqnr) && r.relError && r.note.empty())
            if (const auto rank = overviewErrorRank(m_data, *r.relError))
                return tint(*rank);
        return {};
    case Qt::ToolTipRole:
        if (!r.error.empty())
            return tr("This run failed: %1").arg(coremessages::translated(r.error));
        if (!r.note.empty())
            return coremessages::translated(r.note);
        if (index.column() == Config && m_stale.contains(fromStd(r.config)))
            return tr("Stale: the configuration was edited after this run; run again to update.");
        if (index.column() == Tensor || index.column() == Config)
            return tr("%1 on %2").arg(fromStd(r.configLabel), fromStd(r.tensor));
        if ((index.column() == OutputError || index.column() == OutputErrorRel) && r.outputError)
            return tr("E‖(W − Ŵ)x‖² on the paired capture's inputs (%n tokens)", nullptr,
                      static_cast<int>(r.outputTokens));
        return headerData(index.column(), Qt::Horizontal, Qt::ToolTipRole);
    case Qt::TextAlignmentRole:
        if (index.column() == Tensor || index.column() == Config || index.column() == Device)
            return static_cast<int>(Qt::AlignLeft | Qt::AlignVCenter);
        return static_cast<int>(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant OverviewModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return QAbstractTableModel::headerData(section, orientation, role);
    // The metric columns share the Numbers table's names and meanings (one translation).
    const auto metric = [role](const char *key) {
        const auto k = QString::fromLatin1(key);
        return role == Qt::DisplayRole ? NumbersModel::metricLabel(k) : NumbersModel::metricHelp(k);
    };
    switch (section) {
    case Tensor:
        return role == Qt::DisplayRole ? tr("Tensor") : QVariant();
    case Config:
        return role == Qt::DisplayRole ? tr("Configuration") : QVariant();
    case RelError:
        return metric("metrics.rel_frobenius");
    case OutputError:
        return metric("metrics.output_error.error");
    case OutputErrorRel:
        return metric("metrics.output_error.relative");
    case Sqnr:
        return metric("metrics.sqnr_db");
    case Kurtosis:
        return metric("stats_in.excess_kurtosis");
    case Bits:
        return metric("metrics.bits_per_element");
    case Time:
        return metric("time_ms");
    case Device:
        return metric("device");
    }
    return {};
}

} // namespace quantscope
