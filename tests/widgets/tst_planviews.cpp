// SPDX-License-Identifier: MIT
// The Recipe and Budget tabs (issue 27): undo/redo restores the rules exactly after every kind
// of edit (and a refused edit changes nothing); overlapping patterns resolve as the precedence
// rules say (the first matching rule wins, an exclude entry wins over every rule) in every
// dialect, in the live Wins / Loses columns; the budget slider's stops stay within their budget
// and hand a recipe that resolves each module to its choice; the sweep's curves are one per family.
#include "budgetbarsplot.h"
#include "budgetview.h"
#include "paretoplot.h"
#include "recipeeditor.h"
#include "specform.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTableWidget>
#include <QTest>
#include <QUndoStack>

#include "quant/quant_spec.h"

using namespace quantscope;

namespace {

const std::vector<std::string> kModules = {"model.layers.0.mlp.up_proj", "model.layers.0.mlp.down_proj",
                                           "model.layers.1.mlp.up_proj", "model.layers.1.self_attn.q_proj", "lm_head"};

nlohmann::json intSpec(int bits)
{
    return toJson(parseQuantSpec({{"method", "int"}, {"bits", bits}}));
}

Recipe twoRules(PatternDialect d, std::vector<std::string> first, std::vector<std::string> second)
{
    Recipe r;
    r.rules.push_back({"first", std::move(first), d, {intSpec(4)}, {}});
    r.rules.push_back({"second", std::move(second), d, {intSpec(8)}, {}});
    return r;
}

QStringList tableTexts(const RecipeEditor &e)
{
    QStringList out;
    for (int r = 0; r < e.table()->rowCount(); ++r)
        for (int c : {RecipeEditor::Name, RecipeEditor::Patterns, RecipeEditor::Specs, RecipeEditor::Wins})
            out << e.table()->item(r, c)->text();
    return out;
}

} // namespace

class TestPlanViews : public QObject {
    Q_OBJECT

private slots:
    void undoRedoRestoresTheRulesExactly()
    {
        RecipeEditor e;
        e.setModules(kModules);
        std::vector<Recipe> states = {e.recipe()};
        std::vector<QStringList> tables = {tableTexts(e)};
        auto step = [&](bool ok) {
            QVERIFY(ok);
            QVERIFY(!(e.recipe() == states.back()));
            states.push_back(e.recipe());
            tables.push_back(tableTexts(e));
        };
        e.addRule();
        step(true);
        step(e.setRulePatterns(1, QStringLiteral("model.layers.*.mlp.*  lm_head")));
        step(e.setRuleSpecs(1, QStringLiteral("[{\"method\": \"int\", \"bits\": 8}, {\"method\": \"fp8\"}]")));
        step(e.setRuleDialect(1, PatternDialect::Re));
        step(e.moveRule(1, -1));
        step(e.setRuleName(0, QStringLiteral("mlp and head")));
        // A refused edit (a regex that does not compile) changes nothing and adds no step.
        const int before = e.undoStack()->count();
        QVERIFY(!e.setRulePatterns(0, QStringLiteral("((")));
        QVERIFY(!e.status()->text().isEmpty());
        QVERIFY(e.recipe() == states.back());
        QCOMPARE(e.undoStack()->count(), before);
        // An edit typed into a cell.
        e.table()->item(1, RecipeEditor::Patterns)->setText(QStringLiteral("model.layers.1.*"));
        QTRY_VERIFY(!(e.recipe() == states.back()));
        states.push_back(e.recipe());
        tables.push_back(tableTexts(e));
        step(e.removeRule(0));
        Recipe replaced = Recipe::defaults();
        replaced.exclude.push_back({"lm_head", PatternDialect::Exact});
        e.setRecipe(replaced);
        states.push_back(e.recipe());
        tables.push_back(tableTexts(e));
        QCOMPARE(e.undoStack()->count(), static_cast<int>(states.size()) - 1);

        for (std::size_t k = states.size() - 1; k-- > 0;) {
            e.undoStack()->undo();
            QVERIFY2(e.recipe() == states[k], qPrintable(QString::fromStdString(e.recipe().text())));
            QCOMPARE(tableTexts(e), tables[k]);
        }
        for (std::size_t k = 1; k < states.size(); ++k) {
            e.undoStack()->redo();
            QVERIFY(e.recipe() == states[k]);
            QCOMPARE(tableTexts(e), tables[k]);
        }
    }

    void ruleSpecsAreEditedWithTheSchemaFormNotTypedJson()
    {
        RecipeEditor e;
        e.setModules(kModules);
        QCoreApplication::processEvents();
        // The Specs column is a read-only summary; the form below edits the selected rule's spec.
        QVERIFY(!(e.table()->item(0, RecipeEditor::Specs)->flags() & Qt::ItemIsEditable));
        e.editSpec(0);
        auto *form = e.specForm();
        QCOMPARE(form->spec(), e.recipe().rules[0].specs[0]);
        QVERIFY(form->jsonView() && form->jsonView()->isReadOnly());
        auto *bits = qobject_cast<QSpinBox *>(form->editor(QStringLiteral("bits")));
        QVERIFY(bits);
        const int was = bits->value();
        bits->setValue(was == 4 ? 3 : 4);
        QCOMPARE(e.recipe().rules[0].specs[0]["bits"], bits->value());
        QVERIFY(form->jsonView()->toPlainText().contains(QStringLiteral("\"bits\": %1").arg(bits->value())));
        // Undo: the recipe and then the form go back.
        e.undoStack()->undo();
        QCOMPARE(e.recipe().rules[0].specs[0]["bits"], was);
        QTRY_COMPARE(form->spec()["bits"], was);
        // A ProgressiveSpec's stages are forms too: no JSON to type anywhere.
        form->methodBox()->setCurrentIndex(form->methodBox()->findData(QStringLiteral("progressive")));
        QTRY_COMPARE(e.recipe().rules[0].specs[0]["method"], "progressive");
        QTRY_VERIFY(form->editor(QStringLiteral("stage2")) != nullptr);
        auto *stage2 = qobject_cast<SpecForm *>(form->editor(QStringLiteral("stage2")));
        QVERIFY(stage2);
        // No text box to type JSON in (a spin box's own line edit aside).
        for (auto *edit : form->findChildren<QLineEdit *>())
            QVERIFY(qobject_cast<QAbstractSpinBox *>(edit->parentWidget()));
        auto *stageBits = qobject_cast<QSpinBox *>(stage2->editor(QStringLiteral("bits")));
        QVERIFY(stageBits);
        stageBits->setValue(stageBits->value() == 4 ? 3 : 4);
        QCOMPARE(e.recipe().rules[0].specs[0]["stage2"]["bits"], stageBits->value());
        // A second spec for the rule, chosen in the box, and removed again.
        QVERIFY(e.addRuleSpec(0));
        QCOMPARE(e.recipe().rules[0].specs.size(), std::size_t{2});
        e.editSpec(0, 1);
        QCOMPARE(e.specChoice()->count(), 2);
        QCOMPARE(form->spec()["method"], "int");
        QVERIFY(e.removeRuleSpec(0, 1));
        QVERIFY(!e.removeRuleSpec(0, 0)); // a rule keeps one spec
    }

    void exclusionsArePickedFromTheModulesAsAList()
    {
        RecipeEditor e;
        QVERIFY(!e.pickExclusions()); // no checkpoint: nothing to pick from
        e.setModules(kModules);
        // The recipe's own (default) exclusions are listed too.
        const int n0 = e.exclusionList()->count();
        QCOMPARE(n0, static_cast<int>(e.recipe().exclude.size()));
        const auto excludedBefore = e.check().excluded.size();
        // The picker lists every module; a filter narrows it, OK excludes the selection.
        auto *dialog = e.pickExclusions();
        QVERIFY(dialog);
        auto *list = dialog->findChild<QListWidget *>(QStringLiteral("excludePickerList"));
        QVERIFY(list);
        QCOMPARE(list->count(), static_cast<int>(kModules.size()));
        dialog->findChild<QLineEdit *>()->setText(QStringLiteral("down_proj"));
        int shown = 0;
        for (int i = 0; i < list->count(); ++i)
            if (!list->item(i)->isHidden()) {
                ++shown;
                list->item(i)->setSelected(true);
            }
        QVERIFY(shown >= 1 && shown < list->count());
        dialog->accept();
        QCOMPARE(e.exclusionList()->count(), n0 + shown);
        const auto &added = e.recipe().exclude.back();
        QVERIFY(added.dialect == PatternDialect::Exact);
        QVERIFY(QString::fromStdString(added.pattern).contains(QStringLiteral("down_proj")));
        QVERIFY(e.exclusionList()->item(n0 + shown - 1)->text().contains(QStringLiteral("down_proj")));
        QCOMPARE(e.check().excluded.size(), excludedBefore + static_cast<std::size_t>(shown));
        // One undo step; the same module twice is excluded once.
        const int steps = e.undoStack()->count();
        QVERIFY(e.addExclusions({QString::fromStdString(added.pattern)}));
        QCOMPARE(e.undoStack()->count(), steps);
        QVERIFY(e.removeExclusion(n0));
        QCOMPARE(e.exclusionList()->count(), n0 + shown - 1);
        e.undoStack()->undo();
        QCOMPARE(e.exclusionList()->count(), n0 + shown);
        e.undoStack()->undo();
        QCOMPARE(e.exclusionList()->count(), n0);
        QVERIFY(!e.removeExclusion(n0));
    }

    void overlapsResolveByPrecedenceInEveryDialect()
    {
        // first: the two layer-0 MLP modules; second: every MLP module (three).
        const std::vector<std::pair<PatternDialect, std::pair<std::vector<std::string>, std::vector<std::string>>>>
            cases = {
                {PatternDialect::Fnmatch, {{"model.layers.0.*"}, {"*.mlp.*"}}},
                {PatternDialect::Re, {{"model\\.layers\\.0\\..*"}, {".*\\.mlp\\..*"}}},
                {PatternDialect::Exact,
                 {{"model.layers.0.mlp.up_proj", "model.layers.0.mlp.down_proj"},
                  {"model.layers.0.mlp.up_proj", "model.layers.0.mlp.down_proj", "model.layers.1.mlp.up_proj"}}},
            };
        for (const auto &[dialect, patterns] : cases) {
            const QString d = QString::fromUtf8(toString(dialect).data());
            RecipeEditor e;
            e.setModules(kModules);
            e.setRecipe(twoRules(dialect, patterns.first, patterns.second));
            // The first rule wins both layer-0 modules; the second wins the one left, loses two.
            QCOMPARE(e.wins(0), 2);
            QCOMPARE(e.wins(1), 1);
            QCOMPARE(e.loses(0), 0);
            QCOMPARE(e.loses(1), 2);
            QCOMPARE(e.table()->item(0, RecipeEditor::Wins)->text(), QStringLiteral("2"));
            QCOMPARE(e.table()->item(1, RecipeEditor::Loses)->text(), QStringLiteral("2"));
            QCOMPARE(static_cast<int>(e.check().unmatched.size()), 2); // q_proj and lm_head
            // Swapped: the broad rule comes first and wins all three; the narrow one wins none.
            QVERIFY(e.moveRule(1, -1));
            QCOMPARE(e.wins(0), 3);
            QCOMPARE(e.wins(1), 0);
            QCOMPARE(e.loses(1), 2);
            // An exclude entry wins over every rule.
            Recipe x = e.recipe();
            x.exclude.push_back({"model.layers.0.mlp.up_proj", PatternDialect::Exact});
            e.setRecipe(x);
            QCOMPARE(e.wins(0), 2);
            QCOMPARE(static_cast<int>(e.check().excluded.size()), 1);
            // Each module's spec is the winning rule's (the first, INT8 after the swap).
            for (const auto &m : e.check().modules)
                if (m.match.matched())
                    QVERIFY2(toJson(m.match.specs.front()) == intSpec(8), qPrintable(d));
        }
    }

    void budgetStopsStayWithinBudgetAndExportTheirRecipe()
    {
        BudgetProblem p;
        for (int m = 0; m < 6; ++m) {
            BudgetModule mod;
            mod.module = "model.layers." + std::to_string(m) + ".mlp.up_proj";
            mod.numel = 4096;
            for (int bits : {2, 4, 8})
                mod.candidates.push_back({intSpec(bits), "INT" + std::to_string(bits),
                                          (m + 1) * std::ldexp(1.0, -2 * bits) * 4096, 4096ull * bits / 8 + 64,
                                          (m + 1) * std::ldexp(1.0, -2 * bits), -1});
            p.modules.push_back(mod);
        }
        auto data = std::make_shared<const BudgetViewData>(prepareBudgetView(p, 9));
        BudgetView v;
        v.setData(data);
        QVERIFY(v.slider()->isEnabled());
        QCOMPARE(v.slider()->maximum(), 8);
        QCOMPARE(v.budgetPlot()->curves().size(), 1u);
        QSignalSpy spy(&v, &BudgetView::exportRequested);
        double last = INFINITY;
        for (int s = 0; s <= 8; ++s) {
            v.setStep(s);
            const BudgetSolution *sol = v.currentSolution();
            QVERIFY(sol);
            QVERIFY(sol->bytes <= sol->budgetBytes);
            QVERIFY(sol->error <= last);
            last = sol->error;
            QCOMPARE(v.budgetPlot()->mark().y, sol->error);
            QCOMPARE(v.barsPlot()->bars()->data()->size(), 6);
            // The exported recipe resolves every module to the chosen spec.
            v.exportButton()->click();
            QCOMPARE(spy.count(), s + 1);
            const Recipe r = Recipe::fromJson(nlohmann::ordered_json::parse(spy.last().at(0).toString().toStdString()));
            for (std::size_t i = 0; i < p.modules.size(); ++i)
                QVERIFY(toJson(matchModule(r, p.modules[i].module).specs.front()) ==
                        p.modules[i].candidates[static_cast<std::size_t>(sol->choice[i])].spec);
        }
        v.setData(nullptr);
        QVERIFY(!v.slider()->isEnabled());
        QVERIFY(v.recipeJson().isEmpty());
    }

    void budgetTargetChoiceAsksForRepricing()
    {
        BudgetView v;
        QCOMPARE(v.targetBox()->count(), 5);
        QVERIFY(v.target().isEmpty()); // Any
        QSignalSpy spy(&v, &BudgetView::targetChanged);
        v.targetBox()->setCurrentIndex(v.targetBox()->findData(QStringLiteral("compressed-tensors")));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(v.target(), QStringLiteral("compressed-tensors"));
    }

    void sweepCurvesOnePerFamilyWithTheCurrentConfigurationMarked()
    {
        FormatSweep s;
        s.tensor = "w";
        for (int g : {32, 64, 128})
            for (int bits : {3, 4}) {
                FormatSweepPoint p;
                p.family = "INT" + std::to_string(bits);
                p.spec = toJson(parseQuantSpec({{"method", "int"}, {"bits", bits}, {"group", g}}));
                p.group = g;
                p.bitsPerWeight = bits + 32.0 / g;
                p.mse = std::ldexp(1.0, -bits) * g;
                s.points.push_back(p);
            }
        BudgetView v;
        v.setSweep(s, sweepMark(s, {{"method", "int"}, {"bits", 4}, {"group", 64}}));
        QCOMPARE(v.sweepPlot()->curves().size(), 2u);
        QVERIFY(v.sweepPlot()->mark().valid());
        QCOMPARE(v.sweepPlot()->mark().x, 4.5);
        QCOMPARE(v.sweepPlot()->markGraph()->data()->size(), 1);
        // Sorted by bits per weight within a family.
        const auto &c = v.sweepPlot()->curves().front();
        QVERIFY(std::is_sorted(c.x.begin(), c.x.end()));
        QVERIFY(!v.sweepPlot()->csv().isEmpty());
    }
};

QTEST_MAIN(TestPlanViews)
#include "tst_planviews.moc"
