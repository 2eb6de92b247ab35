// SPDX-License-Identifier: MIT
// The Model tab's view fed prepared data (issue 40): a synthetic eval report with per-layer KL
// gives one scatter point per module with both numbers positive and the Spearman ρ of either
// proxy against KL, computed here independently; budget points fill the table, one row each.
#include "bridge/model_view.h"
#include "budgetpointsplot.h"
#include "modelview.h"
#include "proxyscatterplot.h"

#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

using namespace quantscope;

namespace {

/// Average ranks (ties share their mean rank), 1-based.
std::vector<double> ranks(const std::vector<double> &v)
{
    std::vector<std::size_t> order(v.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
    std::vector<double> r(v.size());
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]])
            ++j;
        for (std::size_t k = i; k <= j; ++k)
            r[order[k]] = (static_cast<double>(i + j) / 2.0) + 1.0;
        i = j + 1;
    }
    return r;
}

double spearman(const std::vector<double> &x, const std::vector<double> &y)
{
    const auto rx = ranks(x), ry = ranks(y);
    const double n = static_cast<double>(x.size());
    const double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / n;
    const double my = std::accumulate(ry.begin(), ry.end(), 0.0) / n;
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < rx.size(); ++i) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    return sxy / std::sqrt(sxx * syy);
}

} // namespace

class TestModelView : public QObject {
    Q_OBJECT

private slots:
    void layerScatterAndSpearman()
    {
        // Seven modules: one without an output-aware error (no capture for it), one whose KL is
        // 0 (not on a log axis, still ranked): five points.
        const std::vector<double> output = {1e-3, 4e-3, 2e-3, 9e-3, 5e-4, NAN, 3e-3};
        const std::vector<double> weight = {0.05, 0.02, 0.04, 0.08, 0.03, 0.06, 0.01};
        const std::vector<double> kl = {2e-4, 9e-4, 3e-4, 2e-3, 1e-4, 5e-4, 0.0};
        nlohmann::ordered_json report;
        report["kl"] = {{"mean", 0.01}, {"ci95", {0.008, 0.012}}};
        report["modules"] = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < kl.size(); ++i) {
            nlohmann::ordered_json m;
            m["module"] = "model.layers." + std::to_string(i) + ".mlp.down_proj";
            m["scheme"] = "INT4 g128";
            m["rel_frobenius"] = weight[i];
            m["mse"] = weight[i] * weight[i];
            m["bytes"] = 1000;
            m["output_error"] =
                std::isnan(output[i]) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(output[i]);
            m["output_error_rel"] =
                std::isnan(output[i]) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(output[i] * 10);
            m["kl"] = kl[i];
            m["top1"] = 0.99;
            report["modules"].push_back(m);
        }
        ModelView view;
        const LayerMeasures measures = prepareLayerMeasures(report);
        view.setLayerMeasures(measures);
        QCOMPARE(view.layerPlot()->pointCount(), 5);

        std::vector<double> ox, oy;
        for (std::size_t i = 0; i < kl.size(); ++i)
            if (!std::isnan(output[i])) {
                ox.push_back(output[i]);
                oy.push_back(kl[i]);
            }
        const double rhoOutput = spearman(ox, oy);
        const double rhoWeight = spearman(weight, kl);
        QCOMPARE(measures.output.count, 6);
        QCOMPARE(measures.weight.count, 7);
        const QString text = view.layerSummary()->text();
        QVERIFY2(text.contains(QStringLiteral("output-aware error %1").arg(QString::number(rhoOutput, 'f', 3))),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("‖W − Ŵ‖/‖W‖ %1").arg(QString::number(rhoWeight, 'f', 3))),
                 qPrintable(text));
        // The tooltip names the module under the mouse.
        view.resize(1200, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        auto *plot = view.layerPlot();
        plot->replot();
        const QPoint at(static_cast<int>(plot->xAxis->coordToPixel(output[3])),
                        static_cast<int>(plot->yAxis->coordToPixel(kl[3])));
        QVERIFY(plot->toolTipAt(at).startsWith(QStringLiteral("model.layers.3.mlp.down_proj")));

        view.setLayerMeasures({});
        QCOMPARE(view.layerPlot()->pointCount(), 0);
    }

    void budgetPointsTable()
    {
        std::vector<BudgetPoint> points(3);
        for (std::size_t i = 0; i < points.size(); ++i) {
            points[i].bytes = 1000000 * (i + 1);
            points[i].budgetBytes = points[i].bytes;
            points[i].predicted = 10.0 / static_cast<double>(i + 1);
            points[i].weightError = points[i].predicted;
            points[i].outputError = points[i].predicted / 2;
        }
        nlohmann::ordered_json report;
        report["kl"] = {{"mean", 0.02}, {"ci95", {0.015, 0.025}}};
        report["top1"] = {{"mean", 0.97}, {"ci95", {0.96, 0.98}}};
        report["reference"] = {{"ppl", 10.0}};
        report["quantized"] = {{"ppl", 10.5}};
        measureBudgetPoint(points[0], report);
        report["kl"]["mean"] = 0.01;
        report["kl"]["ci95"] = {0.008, 0.012};
        measureBudgetPoint(points[1], report);

        ModelView view;
        view.setBudgetPoints(points, QStringLiteral("weight"));
        QTableWidget *t = view.pointsTable();
        QCOMPARE(t->rowCount(), 3);
        QCOMPARE(t->item(0, 0)->text(), QStringLiteral("1.000"));
        QCOMPARE(t->item(0, 2)->text(), QStringLiteral("0.02 (0.015 … 0.025)"));
        QCOMPARE(t->item(0, 3)->text(), QStringLiteral("0.97"));
        QCOMPARE(t->item(0, 4)->text(), QStringLiteral("10.5"));
        QCOMPARE(t->item(2, 2)->text(), QStringLiteral("not measured"));
        QCOMPARE(view.pointsPlot()->predictedCount(), 3);
        QCOMPARE(view.pointsPlot()->measuredCount(), 2);
        // Two measured points, both proxies falling as KL falls: both rank them alike.
        QVERIFY2(view.pointsSummary()->text().contains(QStringLiteral("Both rank the points alike")),
                 qPrintable(view.pointsSummary()->text()));
    }

    void bridgeErrorsAreShown()
    {
        ModelView view;
        view.showError(QStringLiteral("missing-package"), QStringLiteral("torch is not installed: pip install torch"));
        QVERIFY(!view.errorLabel()->isHidden());
        QCOMPARE(view.errorLabel()->text(),
                 QStringLiteral("missing-package: torch is not installed: pip install torch"));
        view.setRunning(true, QStringLiteral("working"));
        QVERIFY(view.errorLabel()->isHidden());
        QVERIFY(view.cancelButton()->isEnabled());
        QVERIFY(!view.measureLayersButton()->isEnabled());
    }
};

QTEST_MAIN(TestModelView)
#include "tst_modelview.moc"
