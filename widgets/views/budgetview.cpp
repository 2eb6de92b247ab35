// SPDX-License-Identifier: MIT
#include "budgetview.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSplitter>
#include <QVBoxLayout>

#include "budgetbarsplot.h"
#include "paretoplot.h"
#include "qtstring.h"
#include "recipe/recipe.h"
#include "coremessages.h"

namespace quantscope {

BudgetView::BudgetView(QWidget *parent) : QWidget(parent)
{
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setEnabled(false);
    m_summary = new QLabel(tr("Scan with several configurations to choose one per module under a size budget."), this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_export = new QPushButton(tr("Export…"), this);
    m_export->setEnabled(false);
    m_target = new QComboBox(this);
    m_target->addItem(tr("Any"), QString());
    m_target->addItem(tr("Quark"), QStringLiteral("quark"));
    m_target->addItem(tr("compressed-tensors"), QStringLiteral("compressed-tensors"));
    m_target->addItem(tr("FP8 block"), QStringLiteral("fp8-block"));
    m_target->addItem(tr("Quantscope native"), QStringLiteral("quantscope"));
    m_target->setToolTip(tr("Price only the configurations this checkpoint format can store; Any prices every "
                            "configuration and says which formats can export the choice"));
    m_objective = new QComboBox(this);
    m_objective->addItem(tr("Auto"), QStringLiteral("auto"));
    m_objective->addItem(tr("Weight error"), QStringLiteral("weight"));
    m_objective->addItem(tr("Output-aware error"), QStringLiteral("output"));
    m_objective->setToolTip(tr("What the budget minimises: the squared weight error ‖W − Ŵ‖², or the output-aware "
                               "error E‖(W − Ŵ)x‖² on the capture the scan was paired with. Auto takes the "
                               "output-aware error when every priced run has one"));
    m_objectiveNote = new QLabel(this);
    m_objectiveNote->setWordWrap(true);
    m_objectiveNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Target:"), this));
    top->addWidget(m_target);
    top->addWidget(new QLabel(tr("Minimise:"), this));
    top->addWidget(m_objective);
    top->addWidget(new QLabel(tr("Budget:"), this));
    top->addWidget(m_slider, 1);
    top->addWidget(m_export);

    m_budgetPlot = new ParetoPlot(ParetoPlot::Kind::Budget, this);
    m_bars = new BudgetBarsPlot(this);
    m_sweep = new QPushButton(tr("Sweep the selected tensor"), this);
    m_sweepStatus = new QLabel(this);
    m_sweepStatus->setWordWrap(true);
    m_sweepPlot = new ParetoPlot(ParetoPlot::Kind::Sweep, this);
    auto *sweepBar = new QHBoxLayout;
    sweepBar->addWidget(m_sweep);
    sweepBar->addWidget(m_sweepStatus, 1);
    auto *sweepBox = new QWidget(this);
    auto *sweepLayout = new QVBoxLayout(sweepBox);
    sweepLayout->setContentsMargins(0, 0, 0, 0);
    sweepLayout->addLayout(sweepBar);
    sweepLayout->addWidget(m_sweepPlot, 1);

    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_budgetPlot);
    split->addWidget(m_bars);
    split->addWidget(sweepBox);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 1);
    split->setStretchFactor(2, 2);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_objectiveNote);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);

    connect(m_slider, &QSlider::valueChanged, this, &BudgetView::showStep);
    connect(m_target, &QComboBox::currentIndexChanged, this, &BudgetView::targetChanged);
    connect(m_objective, &QComboBox::currentIndexChanged, this, &BudgetView::objectiveChanged);
    connect(m_export, &QPushButton::clicked, this, [this] {
        const QString json = recipeJson();
        if (!json.isEmpty())
            emit exportRequested(json);
    });
    connect(m_sweep, &QPushButton::clicked, this, &BudgetView::sweepRequested);
}

void BudgetView::setData(std::shared_ptr<const BudgetViewData> data)
{
    m_data = std::move(data);
    const bool any = m_data && !m_data->steps.empty();
    m_slider->setEnabled(any);
    m_export->setEnabled(any);
    {
        const QSignalBlocker block(m_slider);
        m_slider->setRange(0, any ? static_cast<int>(m_data->steps.size()) - 1 : 0);
        m_slider->setValue(any ? static_cast<int>(m_data->steps.size()) / 2 : 0);
    }
    m_objectiveNote->setText(
        m_data ? tr("Minimising %1: %2")
                     .arg(m_data->problem.objective == "output" ? tr("the output-aware error") : tr("the weight error"),
                          coremessages::translated(m_data->problem.objectiveNote))
               : QString());
    if (!any) {
        m_budgetPlot->clearData();
        m_bars->clearData();
        m_summary->setText(tr("No scan yet: add two or more configurations in the Quantizer dock and press Scan "
                              "checkpoint in the Layers tab; then choose one per module under a size budget here."));
        return;
    }
    ParetoCurve optimum = m_data->curve;
    optimum.name = tr("optimum").toStdString(); // core names the curve; the legend speaks the UI language
    m_budgetPlot->setCurves({optimum});
    showStep();
}

void BudgetView::setSweep(const FormatSweep &sweep, const ParetoMark &mark)
{
    m_sweepPlot->setCurves(sweepCurves(sweep));
    m_sweepPlot->setMark(mark);
    m_sweepStatus->setText(tr("%1: excess kurtosis %2, after the Hadamard rotation %3")
                               .arg(fromStd(sweep.tensor))
                               .arg(sweep.kurtosis, 0, 'g', 4)
                               .arg(sweep.kurtosisRotated, 0, 'g', 4));
}

void BudgetView::setSweepStatus(const QString &text)
{
    m_sweepStatus->setText(text);
}

QString BudgetView::target() const
{
    return m_target->currentData().toString();
}

QString BudgetView::objective() const
{
    return m_objective->currentData().toString();
}

void BudgetView::setStep(int step)
{
    m_slider->setValue(step);
}

int BudgetView::step() const
{
    return m_slider->value();
}

const BudgetSolution *BudgetView::currentSolution() const
{
    if (!m_data || m_data->steps.empty())
        return nullptr;
    return &m_data->steps[static_cast<std::size_t>(std::clamp(step(), 0, static_cast<int>(m_data->steps.size()) - 1))];
}

QString BudgetView::recipeJson() const
{
    const BudgetSolution *s = currentSolution();
    if (!s)
        return {};
    return fromStd(Recipe::fromJson(budgetRecipeJson(m_data->problem, *s)).text());
}

void BudgetView::showStep()
{
    const BudgetSolution *s = currentSolution();
    if (!s)
        return;
    const auto &p = m_data->problem;
    const double numel = static_cast<double>(p.totalNumel());
    m_budgetPlot->setMark({static_cast<double>(s->budgetBytes) / 1e6, s->error, {}});
    std::vector<std::string> modules, labels;
    for (std::size_t i = 0; i < p.modules.size(); ++i) {
        modules.push_back(p.modules[i].module);
        labels.push_back(p.modules[i].candidates[static_cast<std::size_t>(s->choice[i])].label);
    }
    m_bars->setChoices(modules, labels, choiceBitsPerWeight(p, *s));
    m_summary->setText(
        tr("Budget %1 MB: chosen %2 MB, %3 bits per weight, total %4 %5 (exact, %6 modules)")
            .arg(static_cast<double>(s->budgetBytes) / 1e6, 0, 'f', 3)
            .arg(static_cast<double>(s->bytes) / 1e6, 0, 'f', 3)
            .arg(8.0 * static_cast<double>(s->bytes) / numel, 0, 'f', 3)
            .arg(p.objective == "output" ? tr("output-aware error E‖(W − Ŵ)x‖²") : tr("squared weight error ‖W − Ŵ‖²"))
            .arg(s->error, 0, 'g', 5)
            .arg(static_cast<int>(p.modules.size())));
    int dense = 0;
    for (const auto &m : p.modules)
        dense += m.denseReason.empty() ? 0 : 1;
    const auto at = static_cast<std::size_t>(std::clamp(step(), 0, static_cast<int>(m_data->steps.size()) - 1));
    if (at < m_data->targets.size()) {
        QStringList ok;
        for (const auto &t : m_data->targets[at])
            if (t.ok)
                ok << fromStd(t.target);
        m_summary->setText(m_summary->text() + QLatin1Char('\n') +
                           tr("Kept dense: %1 modules. Exports to: %2.")
                               .arg(dense)
                               .arg(ok.isEmpty() ? tr("no format") : ok.join(QStringLiteral(", "))));
    }
}

} // namespace quantscope
