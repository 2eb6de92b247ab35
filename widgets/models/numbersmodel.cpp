// SPDX-License-Identifier: MIT
#include "results/config_label.h"
#include "numbersmodel.h"

#include "qtstring.h"
#include "coremessages.h"

#include <QLocale>
#include <QMap>
#include <QSet>
#include <algorithm>
#include <cmath>

namespace quantscope {

namespace {

/// "model.layers.0.self_attn.q_proj.weight" → "self_attn.q_proj.weight": the tail says most.
QString shortTensorName(const QString &name)
{
    const auto parts = name.split(QLatin1Char('.'));
    return parts.size() <= 3 ? name : parts.mid(parts.size() - 3).join(QLatin1Char('.'));
}

QString csvField(QString s)
{
    if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) || s.contains(QLatin1Char('\n')))
        return QLatin1Char('"') + s.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
    return s;
}

} // namespace

NumbersModel::NumbersModel(QObject *parent) : QAbstractTableModel(parent), m_rows(metricRows())
{
}

void NumbersModel::setStaleConfigs(const QSet<QString> &configs)
{
    if (configs == m_stale)
        return;
    m_stale = configs;
    if (columnCount() > 0)
        emit headerDataChanged(Qt::Horizontal, 0, columnCount() - 1);
}

void NumbersModel::setResults(std::shared_ptr<const QuantizeJobResult> results)
{
    beginResetModel();
    m_results = std::move(results);
    m_rows = m_results ? metricRowsFor(*m_results) : metricRows();
    endResetModel();
}

const QuantizeOutcome *NumbersModel::outcomeAt(int column) const
{
    if (!m_results || column < 0 || column >= static_cast<int>(m_results->outcomes.size()))
        return nullptr;
    return &m_results->outcomes[static_cast<std::size_t>(column)];
}

int NumbersModel::rowOfKey(const QString &key) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (fromStd(m_rows[i].key) == key)
            return static_cast<int>(i);
    return -1;
}

int NumbersModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int NumbersModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_results ? 0 : static_cast<int>(m_results->outcomes.size());
}

MetricValue NumbersModel::valueAt(const QModelIndex &index) const
{
    const auto *o = outcomeAt(index.column());
    if (!o || index.row() < 0 || index.row() >= static_cast<int>(m_rows.size()))
        return MetricValue::null();
    return metricValue(*o, m_rows[static_cast<std::size_t>(index.row())].key);
}

QString NumbersModel::displayText(const MetricValue &v)
{
    switch (v.type) {
    case MetricValue::Type::Null:
        return QStringLiteral("—");
    case MetricValue::Type::Real:
        if (std::isinf(v.real))
            return v.real > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
        return QLocale().toString(v.real, 'g', 6);
    case MetricValue::Type::Integer:
        return QLocale().toString(static_cast<qlonglong>(v.integer));
    case MetricValue::Type::Text:
        return fromStd(v.text);
    case MetricValue::Type::Flag:
        return v.flag ? tr("yes") : tr("no");
    }
    return {};
}

QString NumbersModel::exactText(const MetricValue &v)
{
    switch (v.type) {
    case MetricValue::Type::Null:
        return QString();
    case MetricValue::Type::Real:
        if (std::isinf(v.real))
            return v.real > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
        return QString::number(v.real, 'g', QLocale::FloatingPointShortest);
    case MetricValue::Type::Integer:
        return QString::number(v.integer);
    case MetricValue::Type::Text:
        return fromStd(v.text);
    case MetricValue::Type::Flag:
        return v.flag ? QStringLiteral("true") : QStringLiteral("false");
    }
    return {};
}

QVariant NumbersModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto key = fromStd(m_rows[static_cast<std::size_t>(index.row())].key);
    switch (role) {
    case Qt::DisplayRole:
        return displayText(valueAt(index));
    case ExactTextRole:
        return exactText(valueAt(index));
    case ValueRole: {
        const auto v = valueAt(index);
        switch (v.type) {
        case MetricValue::Type::Null:
            return {};
        case MetricValue::Type::Real:
            return v.real;
        case MetricValue::Type::Integer:
            return static_cast<qint64>(v.integer);
        case MetricValue::Type::Text:
            return fromStd(v.text);
        case MetricValue::Type::Flag:
            return v.flag;
        }
        return {};
    }
    case KeyRole:
        return key;
    case Qt::ToolTipRole: {
        const auto *o = outcomeAt(index.column());
        if (o && !o->ok())
            return tr("This run failed: %1").arg(coremessages::translated(o->error));
        if (o && o->outputError && key.startsWith(QLatin1String("metrics.output_error.")))
            return tr("E‖(W − Ŵ)x‖² on the paired capture's inputs (%n tokens, %1 Gram)\n%2 = %3", nullptr,
                      static_cast<int>(o->outputError->tokens))
                .arg(o->outputError->diagonal ? tr("diagonal") : tr("full"), key, exactText(valueAt(index)));
        return tr("%1\n%2 = %3").arg(metricHelp(key), key, exactText(valueAt(index)));
    }
    case Qt::TextAlignmentRole:
        return static_cast<int>(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant NumbersModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Vertical) {
        if (section < 0 || section >= static_cast<int>(m_rows.size()))
            return {};
        const auto key = fromStd(m_rows[static_cast<std::size_t>(section)].key);
        if (role == Qt::DisplayRole)
            return metricLabel(key);
        if (role == Qt::ToolTipRole)
            return metricHelp(key);
        if (role == KeyRole)
            return key;
        return {};
    }
    const auto *o = outcomeAt(section);
    if (!o)
        return {};
    const bool stale = m_stale.contains(fromStd(o->config));
    if (role == Qt::DisplayRole) {
        const QString text =
            tr("%1 · %2").arg(fromStd(configLabel(o->config, o->spec)), shortTensorName(fromStd(o->tensor)));
        return stale ? tr("%1 (stale)").arg(text) : text;
    }
    if (role == Qt::ToolTipRole) {
        QString text = tr("Configuration %1 on %2\n%3")
                           .arg(fromStd(configLabel(o->config, o->spec)), fromStd(o->tensor), fromStd(o->spec.dump()));
        if (stale)
            text += QLatin1Char('\n') + tr("Stale: the configuration was edited after this run; run again to update.");
        if (!o->deviceNote.empty())
            text += QLatin1Char('\n') + coremessages::translated(o->deviceNote);
        if (!o->ok())
            text += QLatin1Char('\n') + tr("Failed: %1").arg(coremessages::translated(o->error));
        return text;
    }
    return {};
}

QString NumbersModel::metricLabel(const QString &key)
{
    static const QMap<QString, const char *> labels = {
        {QStringLiteral("metrics.rel_frobenius"), QT_TR_NOOP("Relative error ‖W−Ŵ‖/‖W‖")},
        {QStringLiteral("metrics.output_error.error"), QT_TR_NOOP("Output-aware error E‖(W−Ŵ)x‖²")},
        {QStringLiteral("metrics.output_error.relative"), QT_TR_NOOP("Relative output-aware error")},
        {QStringLiteral("metrics.sqnr_db"), QT_TR_NOOP("SQNR (dB)")},
        {QStringLiteral("metrics.mse"), QT_TR_NOOP("MSE")},
        {QStringLiteral("metrics.rmse"), QT_TR_NOOP("RMSE")},
        {QStringLiteral("metrics.max_abs_err"), QT_TR_NOOP("Max |error|")},
        {QStringLiteral("metrics.cosine"), QT_TR_NOOP("Cosine similarity")},
        {QStringLiteral("metrics.err_p50"), QT_TR_NOOP("|error| p50")},
        {QStringLiteral("metrics.err_p90"), QT_TR_NOOP("|error| p90")},
        {QStringLiteral("metrics.err_p99"), QT_TR_NOOP("|error| p99")},
        {QStringLiteral("metrics.err_p999"), QT_TR_NOOP("|error| p99.9")},
        {QStringLiteral("histogram.overlap"), QT_TR_NOOP("Histogram overlap")},
        {QStringLiteral("metrics.bits_per_element"), QT_TR_NOOP("Bits per element")},
        {QStringLiteral("metrics.bytes"), QT_TR_NOOP("Stored bytes")},
        {QStringLiteral("ragged"), QT_TR_NOOP("Ragged groups")},
        {QStringLiteral("nonfinite_groups"), QT_TR_NOOP("Non-finite groups")},
        {QStringLiteral("stats_in.min"), QT_TR_NOOP("W min")},
        {QStringLiteral("stats_in.max"), QT_TR_NOOP("W max")},
        {QStringLiteral("stats_in.mean"), QT_TR_NOOP("W mean")},
        {QStringLiteral("stats_in.std"), QT_TR_NOOP("W std")},
        {QStringLiteral("stats_in.skewness"), QT_TR_NOOP("W skewness")},
        {QStringLiteral("stats_in.excess_kurtosis"), QT_TR_NOOP("W excess kurtosis")},
        {QStringLiteral("stats_in.nan_count"), QT_TR_NOOP("W NaN count")},
        {QStringLiteral("stats_in.inf_count"), QT_TR_NOOP("W Inf count")},
        {QStringLiteral("stats_out.min"), QT_TR_NOOP("Ŵ min")},
        {QStringLiteral("stats_out.max"), QT_TR_NOOP("Ŵ max")},
        {QStringLiteral("stats_out.mean"), QT_TR_NOOP("Ŵ mean")},
        {QStringLiteral("stats_out.std"), QT_TR_NOOP("Ŵ std")},
        {QStringLiteral("stats_out.skewness"), QT_TR_NOOP("Ŵ skewness")},
        {QStringLiteral("stats_out.excess_kurtosis"), QT_TR_NOOP("Ŵ excess kurtosis")},
        {QStringLiteral("stats_out.nan_count"), QT_TR_NOOP("Ŵ NaN count")},
        {QStringLiteral("stats_out.inf_count"), QT_TR_NOOP("Ŵ Inf count")},
        {QStringLiteral("device"), QT_TR_NOOP("Device")},
        {QStringLiteral("time_ms"), QT_TR_NOOP("Time (ms)")},
    };
    const auto it = labels.constFind(key);
    return it == labels.constEnd() ? key : tr(*it);
}

QString NumbersModel::metricHelp(const QString &key)
{
    static const QMap<QString, const char *> help = {
        {QStringLiteral("metrics.rel_frobenius"),
         QT_TR_NOOP("Size of the whole error relative to the size of the tensor; 0.01 = 1 %")},
        {QStringLiteral("metrics.output_error.error"),
         QT_TR_NOOP("E‖(W − Ŵ)x‖² on the paired capture's inputs: what the error does to the layer's output, "
                    "summed over output channels")},
        {QStringLiteral("metrics.output_error.relative"),
         QT_TR_NOOP("E‖(W − Ŵ)x‖² / E‖Wx‖² on the paired capture's inputs; 0.01 = 1 % of the output's energy")},
        {QStringLiteral("metrics.sqnr_db"),
         QT_TR_NOOP("Signal-to-quantization-noise ratio, 10·log10(Σw²/Σ(w−ŵ)²); +6 dB ≈ one more bit")},
        {QStringLiteral("metrics.mse"), QT_TR_NOOP("Mean of the squared error (w−ŵ)²")},
        {QStringLiteral("metrics.rmse"), QT_TR_NOOP("Square root of the MSE, in the tensor's units")},
        {QStringLiteral("metrics.max_abs_err"),
         QT_TR_NOOP("Largest error of any single element (often an outlier or a clipped value)")},
        {QStringLiteral("metrics.cosine"),
         QT_TR_NOOP("Cosine of the angle between W and Ŵ as vectors; 1 = same direction")},
        {QStringLiteral("metrics.err_p50"), QT_TR_NOOP("Half of the elements have a smaller |error|")},
        {QStringLiteral("metrics.err_p90"), QT_TR_NOOP("90 % of the elements have a smaller |error|")},
        {QStringLiteral("metrics.err_p99"), QT_TR_NOOP("99 % of the elements have a smaller |error|")},
        {QStringLiteral("metrics.err_p999"), QT_TR_NOOP("99.9 % of the elements have a smaller |error|: the tail")},
        {QStringLiteral("histogram.overlap"),
         QT_TR_NOOP("Shared area of the W and Ŵ histograms; 1 = same distribution of values")},
        {QStringLiteral("metrics.bits_per_element"),
         QT_TR_NOOP("Stored bits per weight, codes plus scales and zero points")},
        {QStringLiteral("metrics.bytes"),
         QT_TR_NOOP("Bytes the quantized tensor takes: codes, scales and zero points")},
        {QStringLiteral("ragged"), QT_TR_NOOP("Whether the last group or block is shorter than the others")},
        {QStringLiteral("nonfinite_groups"), QT_TR_NOOP("Groups with a NaN or Inf input, coded as 0")},
        {QStringLiteral("stats_in.min"), QT_TR_NOOP("Smallest finite value of W")},
        {QStringLiteral("stats_in.max"), QT_TR_NOOP("Largest finite value of W")},
        {QStringLiteral("stats_in.mean"), QT_TR_NOOP("Mean of W")},
        {QStringLiteral("stats_in.std"), QT_TR_NOOP("Standard deviation of W (population)")},
        {QStringLiteral("stats_in.skewness"), QT_TR_NOOP("Asymmetry of W's distribution; 0 = symmetric")},
        {QStringLiteral("stats_in.excess_kurtosis"),
         QT_TR_NOOP("Heaviness of W's tails; 0 = Gaussian, large = outliers that stretch the scales")},
        {QStringLiteral("stats_in.nan_count"), QT_TR_NOOP("Elements of W that are NaN")},
        {QStringLiteral("stats_in.inf_count"), QT_TR_NOOP("Elements of W that are ±Inf")},
        {QStringLiteral("stats_out.min"), QT_TR_NOOP("Smallest value of Ŵ")},
        {QStringLiteral("stats_out.max"), QT_TR_NOOP("Largest value of Ŵ")},
        {QStringLiteral("stats_out.mean"), QT_TR_NOOP("Mean of Ŵ; a shift from W's mean is a bias")},
        {QStringLiteral("stats_out.std"), QT_TR_NOOP("Standard deviation of Ŵ")},
        {QStringLiteral("stats_out.skewness"), QT_TR_NOOP("Asymmetry of Ŵ's distribution")},
        {QStringLiteral("stats_out.excess_kurtosis"), QT_TR_NOOP("Heaviness of Ŵ's tails")},
        {QStringLiteral("stats_out.nan_count"), QT_TR_NOOP("Elements of Ŵ that are NaN")},
        {QStringLiteral("stats_out.inf_count"), QT_TR_NOOP("Elements of Ŵ that are ±Inf")},
        {QStringLiteral("device"), QT_TR_NOOP("The device that ran the quantizer and the metrics")},
        {QStringLiteral("time_ms"), QT_TR_NOOP("Wall-clock time of quantizing and measuring")},
    };
    const auto it = help.constFind(key);
    return it == help.constEnd() ? QString() : tr(*it);
}

QString NumbersModel::toCsv() const
{
    QStringList header{QStringLiteral("key"), QStringLiteral("metric")};
    for (int c = 0; c < columnCount(); ++c) {
        const auto *o = outcomeAt(c);
        header << csvField(fromStd(configLabel(o->config, o->spec)) + QLatin1Char(' ') + fromStd(o->tensor));
    }
    QString out = header.join(QLatin1Char(',')) + QLatin1Char('\n');
    for (int r = 0; r < rowCount(); ++r) {
        const auto key = fromStd(m_rows[static_cast<std::size_t>(r)].key);
        QStringList line{key, csvField(metricLabel(key))};
        for (int c = 0; c < columnCount(); ++c)
            line << csvField(index(r, c).data(ExactTextRole).toString());
        out += line.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
    return out;
}

QByteArray NumbersModel::toJson() const
{
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (int c = 0; c < columnCount(); ++c)
        out.push_back(outcomeSummaryJson(*outcomeAt(c)));
    return QByteArray::fromStdString(out.dump(1)) + '\n';
}

QString NumbersModel::toTsv(const QModelIndexList &cells) const
{
    QSet<int> rowSet, columnSet;
    for (const auto &i : cells) {
        rowSet.insert(i.row());
        columnSet.insert(i.column());
    }
    QList<int> rowList(rowSet.begin(), rowSet.end()), columnList(columnSet.begin(), columnSet.end());
    std::sort(rowList.begin(), rowList.end());
    std::sort(columnList.begin(), columnList.end());
    QStringList header{QString()};
    for (const int c : columnList)
        header << headerData(c, Qt::Horizontal).toString();
    QString out = header.join(QLatin1Char('\t')) + QLatin1Char('\n');
    for (const int r : rowList) {
        QStringList line{headerData(r, Qt::Vertical).toString()};
        for (const int c : columnList)
            line << (cells.contains(index(r, c)) ? index(r, c).data(ExactTextRole).toString() : QString());
        out += line.join(QLatin1Char('\t')) + QLatin1Char('\n');
    }
    return out;
}

} // namespace quantscope
