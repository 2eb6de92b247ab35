// SPDX-License-Identifier: MIT
#include "plancontroller.h"

#include <QLabel>
#include <QTabWidget>

#include "budget/budget_view.h"
#include "export/checkpoint_writer.h"
#include "budgetview.h"
#include "exporterpanel.h"
#include "loadcontroller.h"
#include "quantizerpanel.h"
#include "recipeeditor.h"
#include "scan/scan.h"
#include "tensorbrowser.h"

namespace quantscope {

namespace {
/// Stops of the budget slider (each an exact optimum).
constexpr int kBudgetSteps = 64;

/// The checkpoint targets the Budget tab offers (its combo box) and checks each stop against.
const std::vector<ExportFormat> kBudgetTargets = {ExportFormat::Quark, ExportFormat::CompressedTensors,
                                                  ExportFormat::Fp8Block, ExportFormat::Quantscope};

SpecPredicate writerPredicate(ExportFormat f)
{
    return [f](const QuantSpec &spec, std::string *why) { return targetCanWrite(f, spec, why); };
}
} // namespace

PlanController::PlanController(QObject *parent, const LoadController *loads, TensorBrowser *browser,
                               QuantizerPanel *panel, QTabWidget *tabs, ExporterPanel *exporter)
    : QObject(parent), m_loads(loads), m_browser(browser), m_panel(panel), m_tabs(tabs), m_exporter(exporter)
{
    m_pool.setMaxThreadCount(1);
    m_editor = new RecipeEditor(tabs);
    m_editor->setObjectName(QStringLiteral("recipeView")); // quantscope --view recipe
    tabs->setTabToolTip(tabs->addTab(m_editor, tr("&Recipe")),
                        tr("The recipe's rules with undo, checked live against the opened checkpoint"));
    m_budget = new BudgetView(tabs);
    m_budget->setObjectName(QStringLiteral("budgetView")); // quantscope --view budget
    tabs->setTabToolTip(tabs->addTab(m_budget, tr("&Budget")),
                        tr("One configuration per module under a size budget; the format sweep of a tensor"));
    connect(m_editor, &RecipeEditor::exportRequested, this, &PlanController::exportRecipe);
    connect(m_budget, &BudgetView::exportRequested, this, &PlanController::exportRecipe);
    connect(m_budget, &BudgetView::sweepRequested, this, &PlanController::sweep);
    connect(m_budget, &BudgetView::targetChanged, this, &PlanController::repriceBudget);
    connect(m_budget, &BudgetView::objectiveChanged, this, &PlanController::repriceBudget);
    connect(loads, &LoadController::documentOpened, this, &PlanController::documentOpened);
}

PlanController::~PlanController()
{
    shutdown();
}

void PlanController::shutdown()
{
    m_budgetJob.cancel();
    m_sweepJob.cancel();
    m_pool.waitForDone();
}

void PlanController::documentOpened()
{
    std::vector<std::string> modules;
    if (const auto ck = m_loads->checkpoint())
        for (const auto &m : listScanModules(*ck))
            modules.push_back(m.module);
    m_editor->setModules(modules);
    m_budget->setData(nullptr);
}

void PlanController::exportRecipe(const QString &json)
{
    m_exporter->setRecipeText(json);
    m_tabs->setCurrentWidget(m_exporter);
}

void PlanController::repriceBudget()
{
    if (m_scanLines)
        setScanLines(m_scanLines);
}

void PlanController::setScanLines(std::shared_ptr<const std::vector<nlohmann::ordered_json>> lines)
{
    m_scanLines = lines;
    if (!lines || lines->empty()) {
        const bool running = m_budgetJob.isRunning();
        m_budgetJob.cancel();
        m_budget->setData(nullptr);
        if (running)
            emit jobEnded();
        return;
    }
    const std::string target = m_budget->target().toStdString();
    const std::string objective = m_budget->objective().toStdString();
    const std::string capture = m_loads->capturePath().toStdString();
    m_budgetJob.start(
        // Target "" is "Any": the title names no empty target ("Budget for : finished").
        m_budget->target().isEmpty() ? tr("Budget for any target") : tr("Budget for %1").arg(m_budget->target()),
        [lines, target, objective, capture](const CancelToken &cancel) {
            std::vector<nlohmann::json> plain;
            bool outputError = false;
            for (const auto &l : *lines) {
                plain.push_back(nlohmann::json::parse(l.dump()));
                for (const auto &run : plain.back().value("runs", nlohmann::json::array()))
                    outputError = outputError || (run.contains("metrics") && run["metrics"].contains("output_error"));
            }
            // The same pricing as `budget --target --objective` (docs/cli.md "`budget`").
            BudgetProblemOptions options;
            options.objective = parseBudgetObjective(objective);
            if (const auto f = parseExportFormat(target)) {
                options.canWrite = writerPredicate(*f);
                options.target = target;
            }
            // The lines carry no header: a scan with a capture is one whose runs have the
            // output-aware error (the budget checks that every priced run has it).
            nlohmann::json header{{"quantscope_scan", 1}};
            if (outputError)
                header["capture"] = {{"path", capture.empty() ? std::string("of the window's scan") : capture}};
            BudgetProblem p = budgetProblemFromLines(header, plain, nullptr, "the window's scan", options);
            BudgetViewData d = prepareBudgetView(std::move(p), kBudgetSteps, cancel);
            std::vector<std::pair<std::string, SpecPredicate>> targets;
            for (const ExportFormat f : kBudgetTargets)
                targets.emplace_back(std::string(toString(f)), writerPredicate(f));
            cancel.check();
            d.targets = checkBudgetTargets(d.problem, d.steps, targets);
            return std::make_shared<const BudgetViewData>(std::move(d));
        },
        [this](std::shared_ptr<const BudgetViewData> data) {
            m_budget->setData(std::move(data));
            emit jobEnded();
        },
        [this](const QString &error) {
            m_budget->setData(nullptr);
            m_budget->summary()->setText(error);
            emit jobEnded();
        });
}

void PlanController::sweep()
{
    const auto ck = m_loads->checkpoint();
    if (!ck)
        return;
    // The selected tensor, else the checkpoint's first 2-D weight.
    const QStringList selected = m_browser->selectedTensors();
    std::string tensor;
    if (!selected.isEmpty()) {
        tensor = selected.front().toStdString();
    } else {
        const auto modules = listScanModules(*ck);
        if (modules.empty() || modules.front().quantized >= 0)
            return;
        tensor = modules.front().tensor;
    }
    nlohmann::json current;
    const auto configs = m_panel->configurations();
    if (!configs.empty())
        current = configs.front().spec;
    m_budget->setSweepStatus(tr("Sweeping %1…").arg(QString::fromStdString(tensor)));
    m_sweepJob.start(
        tr("Format sweep of %1").arg(QString::fromStdString(tensor)),
        [ck, tensor](const CancelToken &cancel) {
            FormatSweepOptions o;
            return std::make_shared<const FormatSweep>(runFormatSweep(ck->tensor(tensor), tensor, o, cancel));
        },
        [this, current](std::shared_ptr<const FormatSweep> s) {
            m_budget->setSweep(*s, sweepMark(*s, current));
            emit jobEnded();
        },
        [this](const QString &error) {
            m_budget->setSweepStatus(tr("The sweep failed: %1").arg(error));
            emit jobEnded();
        });
}

} // namespace quantscope
