// SPDX-License-Identifier: MIT
// The Export tab (issue 26): the preview is the exact text Save writes, for every format and
// activation scheme; it follows edits of the recipe and the format live; a recipe the target
// cannot express shows the reason, disables Save and writes nothing.
#include "exporterpanel.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace quantscope;

namespace {

QByteArray readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

const char *kW4A8 = R"({"quantscope_recipe": 1,
  "rules": [{"patterns": ["*"], "specs": [{"method": "progressive"}]}],
  "exclude": [{"pattern": "*self_attn*"}, {"pattern": "*lm_head"}]})";

} // namespace

class TestExporterPanel : public QObject {
    Q_OBJECT

private slots:
    void previewEqualsTheSavedFileForEveryFormat()
    {
        QTemporaryDir dir;
        ExporterPanel panel;
        int saved = 0;
        for (int f = 0; f < panel.formatBox()->count(); ++f)
            for (int a = 0; a < panel.activationsBox()->count(); ++a) {
                panel.formatBox()->setCurrentIndex(f);
                panel.activationsBox()->setCurrentIndex(a);
                const QString shown = panel.preview()->toPlainText();
                QCOMPARE(shown, panel.previewText());
                const QString path = dir.filePath(QStringLiteral("out_%1_%2").arg(f).arg(a));
                if (panel.previewText().isEmpty()) { // refused (e.g. activations in a Quantscope recipe)
                    QVERIFY(!panel.saveButton()->isEnabled());
                    QVERIFY(!panel.saveTo(path));
                    QVERIFY(!QFile::exists(path));
                    continue;
                }
                QVERIFY(panel.saveButton()->isEnabled());
                QVERIFY(panel.saveTo(path));
                QCOMPARE(readAll(path), shown.toUtf8());
                ++saved;
            }
        QVERIFY(saved >= 5); // every format without activations at least
    }

    void previewFollowsTheRecipeAndTheFormat()
    {
        ExporterPanel panel;
        panel.formatBox()->setCurrentText(QStringLiteral("quark"));
        panel.activationsBox()->setCurrentText(QStringLiteral("fp8-dynamic"));
        panel.setRecipeText(QString::fromUtf8(kW4A8));
        const auto q = nlohmann::json::parse(panel.previewText().toStdString());
        QCOMPARE(q["global_quant_config"]["weight"].size(), std::size_t(2));
        QCOMPARE(q["global_quant_config"]["input_tensors"]["is_dynamic"].get<bool>(), true);
        QCOMPARE(q["exclude"][1].get<std::string>(), std::string("*lm_head"));

        // Typing into the recipe editor updates the preview (here: the exclude list).
        QString edited = QString::fromUtf8(kW4A8);
        edited.replace(QStringLiteral("*lm_head"), QStringLiteral("*vision_tower*"));
        panel.recipeEdit()->setPlainText(edited);
        QVERIFY(panel.previewText().contains(QStringLiteral("*vision_tower*")));
        QVERIFY(!panel.previewText().contains(QStringLiteral("*lm_head")));

        // compressed-tensors has no two-stage scheme: the reason shows, Save is off.
        panel.formatBox()->setCurrentText(QStringLiteral("compressed-tensors"));
        QVERIFY(panel.previewText().isEmpty());
        QVERIFY(panel.preview()->toPlainText().isEmpty());
        QVERIFY(!panel.saveButton()->isEnabled());
        QVERIFY(panel.status()->text().contains(QStringLiteral("two-stage")));

        // A recipe that does not parse names the problem and writes nothing.
        panel.formatBox()->setCurrentText(QStringLiteral("quantscope"));
        panel.recipeEdit()->setPlainText(QStringLiteral("{\"quantscope_recipe\": 2}"));
        QVERIFY(panel.previewText().isEmpty());
        QVERIFY(!panel.status()->text().isEmpty());
    }
};

QTEST_MAIN(TestExporterPanel)
#include "tst_exporterpanel.moc"
