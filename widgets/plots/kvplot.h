// SPDX-License-Identifier: MIT
#pragma once
/// \file kvplot.h
/// The KV tab's plots (docs/user-guide.md "The KV tab"), each drawn from a prepared KvLabReport
/// (core/kv/kv_lab.h) and computing nothing:
///  * Sweep: constOpt's MSE(c) on the rotated keys (pow2 and unrounded, log y), vertical lines at
///    c*, 0.156 and 0.195, the flat interval shaded;
///  * Distortion: constOpt pow2 MSE(c) of unit-vector coordinates for d 64/128/256 on the
///    theoretical law and on the user's keys, with each one's plain FP4 (scale max/6) and
///    Lloyd–Max floor as horizontal lines;
///  * Kurtosis: K's excess kurtosis per layer before and after the rotation;
///  * Codebook: the 16 levels, theoretical at d against those refit on K (and V), shared.
/// Without a report each says what to do next in the middle of the plot.
#include "kv/kv_lab.h"
#include "plotwidget.h"

#include <memory>

namespace quantscope {

class KvPlot : public PlotWidget {
    Q_OBJECT
public:
    enum class Kind { Sweep, Distortion, Kurtosis, Codebook };

    explicit KvPlot(Kind kind, QWidget *parent = nullptr);

    Kind kind() const { return m_kind; }
    /// Draws the report (null clears); `emptyText` is what the plot says without data.
    void setReport(std::shared_ptr<const KvLabReport> report);
    void setEmptyText(const QString &text);
    QString emptyText() const { return m_emptyText; }

    /// The x of every vertical marker drawn (Sweep: c*, 0.156, 0.195), for tests.
    QList<double> markers() const;
    /// The shaded interval (NaN, NaN when none).
    std::pair<double, double> shadedInterval() const;
    /// The graph named `name` (null when none), for tests.
    QCPGraph *graphNamed(const QString &name) const;

    QString csv() const override;
    QString toolTipAt(const QPoint &pos) const override;
    QString exportName() const override;

protected:
    void recolor() override;

private:
    QCPGraph *addSeries(const QString &name, const std::vector<double> &x, const std::vector<double> &y, int color,
                        Qt::PenStyle style = Qt::SolidLine, bool markers = false);
    QCPGraph *addHLine(const QString &name, double lo, double hi, double y, int color, Qt::PenStyle style);
    void addMarker(double x, const QString &label, int color, double textY);
    void drawSweep(const KvLabReport &r);
    void drawDistortion(const KvLabReport &r);
    void drawKurtosis(const KvLabReport &r);
    void drawCodebook(const KvLabReport &r);

    struct Style {
        int color = 0;
        Qt::PenStyle pen = Qt::SolidLine;
        bool markers = false;
    };

    Kind m_kind;
    std::shared_ptr<const KvLabReport> m_report;
    QString m_emptyText;
    QList<QCPGraph *> m_graphs;
    QList<Style> m_styles;
    QList<QCPItemStraightLine *> m_markers;
    QList<int> m_markerColors;
    QCPItemRect *m_interval = nullptr;
    QCPItemText *m_empty = nullptr;
};

} // namespace quantscope
