// SPDX-License-Identifier: MIT
#pragma once
/// \file compareview.h
/// The Compare tab: two checkpoints (or two scan reports) module by module (core/compare). The
/// comparison runs in the background (app/'s CompareController); the view shows it as the Layers
/// view's layer × projection heat map coloured by a chosen number (difference, Δ error, either
/// side's error, codes differing) and as a sortable table of every module, largest difference
/// first. A click on a cell or a row asks for that module's two reconstructions overlaid in the
/// Distribution view.
#include <QWidget>
#include <memory>

#include "compare/compare_view.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace quantscope {

class JobProgressWidget;
class LayerHeatMap;

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(QWidget *parent = nullptr);

    /// Shows a comparison (null clears); redraws.
    void setReport(std::shared_ptr<const CompareReport> report);
    std::shared_ptr<const CompareReport> report() const { return m_report; }
    void setMetric(CompareMetric metric);
    CompareMetric metric() const;
    /// The paths typed or set: A, B and the optional reference.
    void setPaths(const QString &a, const QString &b, const QString &reference = {});
    QString pathA() const;
    QString pathB() const;
    QString reference() const;

    void jobStarted(const QString &title);
    void setProgress(double fraction, const QString &step, double secondsLeft);
    /// `completed`: the bar shows 100 %.
    void jobFinished(const QString &message, bool completed = false);

    LayerHeatMap *heatMap() const { return m_map; }
    QTableWidget *table() const { return m_table; }
    QLabel *summary() const { return m_summary; }
    QPushButton *compareButton() const { return m_compare; }
    JobProgressWidget *progress() const { return m_progress; }

signals:
    void compareRequested();
    void cancelRequested();
    /// A module's logical weight ("….weight") was clicked.
    void moduleClicked(const QString &tensor);

private:
    void redraw();
    void fillTable();

    std::shared_ptr<const CompareReport> m_report;
    QLineEdit *m_a = nullptr, *m_b = nullptr, *m_reference = nullptr;
    QPushButton *m_compare = nullptr;
    QComboBox *m_metric = nullptr;
    QLabel *m_summary = nullptr;
    LayerHeatMap *m_map = nullptr;
    QTableWidget *m_table = nullptr;
    JobProgressWidget *m_progress = nullptr;
};

} // namespace quantscope
