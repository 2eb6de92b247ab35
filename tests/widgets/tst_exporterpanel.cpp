// SPDX-License-Identifier: MIT
// The Export tab (issue 26): the preview is the exact text Save writes, for every format and
// activation scheme; it follows edits of the recipe and the format live; a recipe the target
// cannot express shows the reason, disables Save and writes nothing.
#include "exporterpanel.h"

#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include "demo/demo.h"
#include "io/checkpoint.h"
#include "io/quantized.h"

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

    // "Export checkpoint": a background job; Cancel leaves no output folder, a finished export
    // re-reads through our readers as Quark modules.
    void checkpointExportCancelsCleanlyAndCompletesToAReadableCheckpoint()
    {
        QTemporaryDir dir;
        const QString in = dir.filePath(QStringLiteral("demo"));
        demo::writeDemoCheckpoint(in.toStdString());
        ExporterPanel panel;
        panel.formatBox()->setCurrentText(QStringLiteral("quark"));
        panel.activationsBox()->setCurrentText(QStringLiteral("fp8-dynamic"));
        panel.setRecipeText(QString::fromUtf8(R"({"quantscope_recipe": 1,
          "rules": [{"patterns": ["*"], "specs": [{"method": "progressive"}]}],
          "exclude": [{"pattern": "*self_attn*"}, {"pattern": "*mlp.gate"}, {"pattern": "*lm_head"},
                      {"pattern": "*mlp.gate_proj"}, {"pattern": "*mlp.up_proj"}, {"pattern": "*mlp.down_proj"},
                      {"pattern": "*shared_experts*"}, {"pattern": "*embed_tokens"}]})"));
        panel.checkpointEdit()->setText(in);
        QVERIFY2(panel.exportButton()->isEnabled(), qPrintable(panel.status()->text()));
        QVERIFY(!panel.cancelButton()->isEnabled());

        QSignalSpy done(&panel, &ExporterPanel::checkpointExportFinished);
        const QString cancelled = dir.filePath(QStringLiteral("cancelled"));
        QVERIFY(panel.exportCheckpoint(in, cancelled));
        QVERIFY(panel.exporting());
        QVERIFY(panel.cancelButton()->isEnabled());
        QVERIFY(!panel.exportButton()->isEnabled());
        QVERIFY(!panel.exportCheckpoint(in, cancelled)); // one job at a time
        panel.cancelButton()->click();
        QVERIFY(done.wait(120000));
        QCOMPARE(done.takeFirst().at(0).toBool(), false);
        QVERIFY(!panel.exporting());
        QVERIFY(!QFileInfo::exists(cancelled));
        QVERIFY(!QFileInfo::exists(cancelled + QStringLiteral(".partial")));

        const QString out = dir.filePath(QStringLiteral("w4a8"));
        QVERIFY(panel.exportCheckpoint(in, out));
        QVERIFY(done.wait(120000));
        const QList<QVariant> args = done.takeFirst();
        QVERIFY2(args.at(0).toBool(), qPrintable(args.at(1).toString()));
        QCOMPARE(panel.progressBar()->value(), 1000);
        const Checkpoint back = Checkpoint::open(out.toStdString());
        const Detection det = detectQuantized(back);
        QCOMPARE(det.modules.size(), std::size_t(24)); // the routed experts, as Quark modules
        for (const QuantizedModule &m : det.modules)
            QVERIFY(m.format == QuantFormat::QuarkRealQuantized);
    }
};

QTEST_MAIN(TestExporterPanel)
#include "tst_exporterpanel.moc"
