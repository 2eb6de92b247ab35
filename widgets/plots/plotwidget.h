// SPDX-License-Identifier: MIT
#pragma once
/// \file plotwidget.h
/// What every plot shares: export as PNG / SVG / PDF and CSV of its data (context menu or
/// exportTo()), tooltips with the values under the mouse, and recolouring on palette changes.
/// A subclass is one plot type: it turns prepared series into graphs and nothing more.
#include "results/plot_data.h"

#include <QString>
#include <qcustomplot.h>

namespace quantscope {

/// One prepared series with the name and colour index it is drawn with.
struct NamedSeries {
    QString name;
    int colorIndex = 0;
    Series series;
    /// Its configuration was edited after the run: drawn dashed and hatched, "stale" in the
    /// legend, until it runs again (issue 42).
    bool stale = false;
};

/// QCustomPlot takes QList<double>.
QList<double> toQList(const std::vector<double> &v);
/// For a logarithmic axis: zero counts become gaps (NaN) instead of -inf.
QList<double> toQListForLog(const std::vector<double> &v);

class PlotWidget : public QCustomPlot {
    Q_OBJECT
public:
    enum class Format { Png, Svg, Pdf, Csv };

    explicit PlotWidget(QWidget *parent = nullptr);

    /// Writes the plot (or its data for Csv). Returns false with a reason in `error`.
    bool exportTo(const QString &file, Format format, QString *error = nullptr);
    /// Format from a file suffix (png, svg, pdf, csv); Png when unknown.
    static Format formatForFile(const QString &file);
    /// The plotted data as CSV (header line first, '.' decimal point, full precision).
    virtual QString csv() const = 0;
    /// The values under a widget position ("" when nothing is there).
    virtual QString toolTipAt(const QPoint &pos) const = 0;
    /// Base name for exported files ("distribution").
    virtual QString exportName() const = 0;
    /// Whether the legend shows while there is data (a view hides it where another plot
    /// already names the colours). With no data it never shows.
    void setLegendWanted(bool on);
    /// True when some plottable holds data.
    bool hasData() const;
    /// A log axis ticker whose labels read the same in every locale ("10⁻³", base 2: "64"). With
    /// `axis`, labels that would overlap along its length are thinned (the ticks stay).
    static QSharedPointer<QCPAxisTicker> logTicker(double base = 10, QCPAxis *axis = nullptr);
    /// The label logTicker() gives a tick.
    static QString logTickLabel(double tick, double base);
    /// True when tick = base^n for an integer n.
    static bool isPowerOf(double tick, double base);
    /// A stale series' legend name: "A · INT4 g128 sym (stale)".
    static QString staleName(const QString &name);
    /// A series' pen and brush: solid, or for a stale one dashed with a hatched fill below.
    static void styleSeries(QCPGraph *graph, const QColor &color, double width, bool stale);

protected:
    bool event(QEvent *event) override;
    void changeEvent(QEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    /// The texts it draws (axes, series, text items) in the current language; a subclass
    /// with texts of its own extends it.
    virtual void retranslate();
    /// Sets series pens and brushes from the current palette.
    virtual void recolor() = 0;
    /// Axis, grid, legend and background colours from the palette; then recolor().
    void applyPalette();
    void applyAxesPalette();
    /// Moves the legend out of the plot area into a row above it, entries side by side, so
    /// that it never covers data.
    void placeLegendAbove();
    /// Ends every rebuild: with no data the legend hides and the axes return to their
    /// defaults (no stale ranges); with data the legend shows unless unwanted.
    void finishData();
    /// Places `labels` (QCPItemText anchored at their points) in `order`, the most important
    /// first, each at the first of six places around its point (right, left, above or below on
    /// either side) where it overlaps no placed label and no other label's point and stays in
    /// `area`; a label with no such place is hidden (its point's tooltip names it). Returns the
    /// drawn labels' boxes in widget pixels. Call once the layout is done (afterLayout).
    static QList<QRectF> placeLabels(const QList<QCPItemText *> &labels, const std::vector<int> &order,
                                     const QRectF &area);
    /// "12345" / "1.234e-05": compact numbers for tooltips.
    static QString number(double v);
    /// Full precision for CSV ("shortest text that reads back to the same double").
    static QString exact(double v);

private:
    void askAndExport(Format format);
    bool m_legendWanted = true;
};

} // namespace quantscope
