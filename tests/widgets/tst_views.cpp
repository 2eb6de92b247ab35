// SPDX-License-Identifier: MIT
// The views draw exactly what the job computed: graph and point counts equal the result's bins,
// the channel strip has one point per channel, exports write files, and the Numbers table
// equals `quantscope-cli quantize --json` for the same tensor and spec.
#include "results/config_label.h"
#include "channelplot.h"
#include "demo/demo.h"
#include "distributionview.h"
#include "errorhistogramplot.h"
#include "histogramplot.h"
#include "io/checkpoint.h"
#include "results/metric_rows.h"
#include "numbersmodel.h"
#include "numbersview.h"
#include "results/weight_preview.h"
#include "schemewords.h"
#include <QLabel>
#include "engine/job.h"
#include "theme.h"

#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QProcess>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <thread>

using namespace quantscope;

namespace {

const char *const kTensor = "model.layers.0.self_attn.q_proj.weight";

nlohmann::json spec(std::initializer_list<std::pair<const char *, nlohmann::json>> kv)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto &[k, v] : kv)
        j[k] = v;
    return j;
}

/// The value of a '.'-separated key in the CLI's JSON.
const nlohmann::json *at(const nlohmann::json &j, const std::string &key)
{
    const nlohmann::json *cur = &j;
    std::size_t start = 0;
    while (true) {
        const auto dot = key.find('.', start);
        const auto part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!cur->is_object() || !cur->contains(part))
            return nullptr;
        cur = &(*cur)[part];
        if (dot == std::string::npos)
            return cur;
        start = dot + 1;
    }
}

MetricValue fromCliJson(const nlohmann::json &v)
{
    if (v.is_null())
        return MetricValue::null();
    if (v.is_boolean())
        return MetricValue::ofFlag(v.get<bool>());
    if (v.is_number_integer())
        return MetricValue::ofInt(v.get<std::int64_t>());
    if (v.is_number())
        return MetricValue::of(v.get<double>());
    const auto s = v.get<std::string>();
    if (s == "inf")
        return MetricValue::of(INFINITY);
    if (s == "-inf")
        return MetricValue::of(-INFINITY);
    return MetricValue::ofText(s);
}

} // namespace

class TestViews : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::shared_ptr<const Checkpoint> m_checkpoint;
    std::shared_ptr<const QuantizeJobResult> m_result;
    std::vector<JobConfig> m_configs;

    QuantizeJobResult run(const std::vector<std::string> &tensors, int bins, bool symlog, int threads,
                          const std::string &activation = {})
    {
        QuantizeJobRequest request;
        request.tensors = tensors;
        request.configs = m_configs;
        request.device = DeviceChoice::Cpu;
        request.bins = bins;
        request.symlog = symlog;
        request.threads = threads;
        request.activation = activation;
        TensorSource source;
        auto ck = m_checkpoint;
        source.weight = [ck](const std::string &n) { return ck->tensor(n); };
        source.activation = source.weight;
        return runQuantizeJob(request, source, CancelToken());
    }

private slots:
    void initTestCase()
    {
        QLocale::setDefault(QLocale::c());
        QVERIFY(m_dir.isValid());
        demo::writeDemoCheckpoint(m_dir.filePath(QStringLiteral("demo")).toStdString());
        m_checkpoint =
            std::make_shared<const Checkpoint>(Checkpoint::open(m_dir.filePath(QStringLiteral("demo")).toStdString()));
        m_configs = {
            {"A", spec({{"method", "int"}, {"bits", 4}, {"granularity", "group"}, {"group", 128}})},
            {"B", spec({{"method", "int"}, {"bits", 8}, {"granularity", "channel"}, {"symmetric", false}})},
            {"C", spec({{"method", "fp8"}, {"format", "e4m3"}, {"granularity", "block"}, {"block", 128}})},
        };
        m_result = std::make_shared<const QuantizeJobResult>(run({kTensor}, 200, false, 1));
        QCOMPARE(m_result->outcomes.size(), std::size_t{3});
        for (const auto &o : m_result->outcomes)
            QVERIFY2(o.ok(), o.error.c_str());
    }

    void ggufTensorShowsItsSchemeInWords()
    {
        // A GGUF file written by the gguf package (tests/data/gguf/Q4_K.gguf): its Q4_K tensor's
        // stored scheme in words under its name, by its GGUF and its HF name.
        const auto ck = std::make_shared<const Checkpoint>(
            Checkpoint::open(std::string(QUANTSCOPE_SOURCE_DIR) + "/tests/data/gguf/Q4_K.gguf"));
        const auto schemes = schemewords::storedSchemes(ck);
        const QString words = QStringLiteral("Q4_K: super-blocks of 256, 8 sub-blocks of 32, 6-bit scales and mins");
        QVERIFY(schemes.value(QStringLiteral("blk.0.attn_q.weight")).contains(words));
        QVERIFY(schemes.value(QStringLiteral("model.layers.0.self_attn.q_proj.weight")).contains(words));
        QVERIFY(schemes.value(QStringLiteral("output_norm.weight")).contains(QStringLiteral("F32: dense floats")));
        QVERIFY(schemewords::storedSchemes(m_checkpoint).isEmpty()); // not a GGUF file

        DistributionView dist;
        dist.setStoredSchemes(schemes);
        const std::string name = "model.layers.0.self_attn.q_proj.weight";
        dist.setPreview(std::make_shared<const WeightPreview>(previewWeight(name, ck->tensor(name), 64)));
        QVERIFY2(dist.summaryText().contains(words), qPrintable(dist.summaryText()));

        NumbersView numbers;
        numbers.setStoredSchemes(schemes);
        QuantizeJobRequest request;
        request.tensors = {name};
        request.specs = {JobSpec::parse("A", spec({{"method", "int"}, {"bits", 4}}))};
        TensorSource source;
        source.weight = [ck](const std::string &n) { return ck->tensor(n); };
        const auto result = std::make_shared<const QuantizeJobResult>(runQuantizeJob(request, source, CancelToken()));
        QVERIFY(result->outcomes.front().ok());
        numbers.model()->setResults(result);
        QVERIFY2(numbers.storedLabel()->text().contains(words), qPrintable(numbers.storedLabel()->text()));
        dist.setResults(result);
        QVERIFY2(dist.summaryText().contains(words), qPrintable(dist.summaryText()));
        numbers.setStoredSchemes({});
        QVERIFY(numbers.storedLabel()->text().isEmpty());

        // Every ggml type's words are in the window's table (so translated), and a type with
        // words comes out as "NAME: words".
        for (const ggml::TypeInfo &t : ggml::allTypes()) {
            QVERIFY2(schemewords::translated(t.type), std::string(t.name).c_str());
            QVERIFY(schemewords::schemeText(t.type).startsWith(QString::fromUtf8(t.name.data(), t.name.size()) +
                                                               QStringLiteral(": ")));
        }
    }

    void distributionGraphsMatchBins()
    {
        DistributionView view;
        view.resize(900, 700);
        view.setResults(m_result);
        QCOMPARE(view.currentTensor(), QString::fromUtf8(kTensor));
        const auto &first = m_result->outcomes.front();
        const auto bins = static_cast<int>(first.metrics.w.counts.size());
        QCOMPARE(bins, 200);

        auto *h = view.histogramPlot();
        QVERIFY(h->weightGraph());
        QCOMPARE(h->weightGraph()->dataCount(), bins);
        QCOMPARE(h->quantizedGraphs().size(), 3);
        for (int i = 0; i < 3; ++i) {
            const auto &o = m_result->outcomes[static_cast<std::size_t>(i)];
            QCOMPARE(h->quantizedGraphs()[i]->dataCount(), static_cast<int>(o.metrics.wHat.counts.size()));
            // The drawn values are the job's counts (log axis: zero counts are gaps).
            for (int b = 0; b < bins; ++b) {
                const double drawn = h->quantizedGraphs()[i]->data()->at(b)->value;
                const auto count = static_cast<double>(o.metrics.wHat.counts[static_cast<std::size_t>(b)]);
                QVERIFY(count == 0 ? std::isnan(drawn) : drawn == count);
            }
        }
        QVERIFY(h->overlapGraph());
        QCOMPARE(h->overlapGraph()->dataCount(), bins);
        QCOMPARE(h->graphCount(), 1 + 1 + 3);
        // The bin centres: lo + (i + ½)·(hi − lo)/B.
        const auto &w = first.metrics.w;
        QCOMPARE(h->weightGraph()->data()->at(0)->key, w.lo + 0.5 * (w.hi - w.lo) / bins);

        auto *e = view.errorPlot();
        QCOMPARE(e->errorGraphs().size(), 3);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(e->errorGraphs()[i]->dataCount(),
                     static_cast<int>(m_result->outcomes[static_cast<std::size_t>(i)].metrics.err.counts.size()));

        // Linear counts: every bin drawn, zeros included.
        view.setLogY(false);
        QCOMPARE(h->weightGraph()->dataCount(), bins);
        QCOMPARE(h->quantizedGraphs()[0]->data()->at(0)->value,
                 static_cast<double>(m_result->outcomes[0].metrics.wHat.counts[0]));

        // Shading follows the chosen configuration.
        // (A long legend entry is elided on screen, its whole name kept as "fullName".)
        view.setOverlapConfig(QStringLiteral("C"));
        const QString fullName = h->overlapGraph()->property("fullName").toString();
        QVERIFY((fullName.isEmpty() ? h->overlapGraph()->name() : fullName).contains(QLatin1Char('C')));
        // An exported file is titled with the tensor shown (issue 42).
        QTemporaryDir exportDir;
        const QString svg = exportDir.filePath(QStringLiteral("distribution.svg"));
        QVERIFY(h->exportTo(svg, PlotWidget::Format::Svg));
        QFile exported(svg);
        QVERIFY(exported.open(QIODevice::ReadOnly));
        QVERIFY(QString::fromUtf8(exported.readAll()).contains(view.currentTensor()));
    }

    void channelStripMatchesProfile()
    {
        DistributionView view;
        view.setResults(m_result);
        const auto *profile = m_result->profile(kTensor);
        QVERIFY(profile);
        auto *c = view.channelPlot();
        QCOMPARE(c->channelGraph()->dataCount(), static_cast<int>(profile->channels.columns.absmax.size()));
        QCOMPARE(c->channelGraph()->dataCount(), 1024);
        QCOMPARE(c->outlierGraph()->dataCount(), 8);
        QCOMPARE(view.outlierTable()->rowCount(), 8);
        // The demo's q_proj has four outlier input channels: they lead the list.
        const auto planted = demo::demoQkOutlierChannels();
        QStringList listed;
        for (int r = 0; r < 4; ++r)
            listed << view.outlierTable()->item(r, 0)->text();
        for (const int ch : planted)
            QVERIFY2(listed.contains(QString::number(ch)), qPrintable(listed.join(QLatin1Char(','))));
        view.setChannelAxis(0);
        QCOMPARE(c->channelGraph()->dataCount(), 1024); // 1024 output rows
        QVERIFY(c->xAxis->label().contains(QStringLiteral("output")));
    }

    void pairedActivationDrawn()
    {
        // Any tensor with K = 1024 columns pairs with q_proj; a mismatch is explained instead.
        auto result = std::make_shared<const QuantizeJobResult>(run(
            {kTensor, "model.layers.0.mlp.down_proj.weight"}, 64, false, 1, "model.layers.0.self_attn.k_proj.weight"));
        DistributionView view;
        view.setResults(result);
        view.setCurrentTensor(QString::fromUtf8(kTensor));
        QVERIFY(view.channelPlot()->activationGraph());
        QCOMPARE(view.channelPlot()->activationGraph()->dataCount(), 1024);
        QVERIFY(!view.outlierTable()->isColumnHidden(3));
        const auto *down = result->profile("model.layers.0.mlp.down_proj.weight");
        QVERIFY(down && !down->activationColumns && !down->activationNote.empty());
        view.setCurrentTensor(QStringLiteral("model.layers.0.mlp.down_proj.weight"));
        QVERIFY(!view.channelPlot()->activationGraph());
    }

    void symlogBins()
    {
        auto result = std::make_shared<const QuantizeJobResult>(run({kTensor}, 128, true, 1));
        DistributionView view;
        view.setResults(result);
        QVERIFY(result->outcomes.front().plot.symlog);
        QCOMPARE(view.histogramPlot()->weightGraph()->dataCount(), 128);
        QVERIFY(view.histogramPlot()->xAxis->label().contains(QStringLiteral("symlog")));
    }

    void exportsAndTooltips()
    {
        DistributionView view;
        view.resize(900, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setResults(m_result);
        view.histogramPlot()->replot();
        const int bins = 200;
        for (PlotWidget *plot :
             std::initializer_list<PlotWidget *>{view.histogramPlot(), view.errorPlot(), view.channelPlot()}) {
            for (const char *suffix : {"png", "svg", "pdf", "csv"}) {
                const auto file = m_dir.filePath(plot->exportName() + QLatin1Char('.') + QLatin1String(suffix));
                QString error;
                QVERIFY2(plot->exportTo(file, PlotWidget::formatForFile(file), &error), qPrintable(error));
                QVERIFY2(QFileInfo(file).size() > 100, qPrintable(file));
            }
            // A tooltip with values in the middle of the plot area.
            const auto centre = plot->axisRect()->rect().center();
            QVERIFY2(!plot->toolTipAt(centre).isEmpty(), qPrintable(plot->exportName()));
            QVERIFY(plot->toolTipAt(QPoint(-5, -5)).isEmpty());
        }
        // CSV: a header and one line per bin / channel.
        QCOMPARE(view.histogramPlot()->csv().count(QLatin1Char('\n')), bins + 1);
        {
            // Columns named by what each configuration is ("w_hat_A · INT4 g128 sym").
            QString header = QStringLiteral("value,w");
            for (const auto &c : m_configs)
                header += QStringLiteral(",w_hat_") + QString::fromStdString(configLabel(c.name, c.spec));
            header +=
                QStringLiteral(",overlap_") + QString::fromStdString(configLabel(m_configs[0].name, m_configs[0].spec));
            const QString csv = view.histogramPlot()->csv();
            QVERIFY2(csv.startsWith(header + QLatin1Char('\n')), qPrintable(csv.left(200)));
        }
        QCOMPARE(view.channelPlot()->csv().count(QLatin1Char('\n')), 1024 + 1);
        QFile svg(m_dir.filePath(QStringLiteral("distribution.svg")));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        QVERIFY(svg.readAll().contains("<svg"));
        QVERIFY(view.histogramPlot()
                    ->toolTipAt(view.histogramPlot()->axisRect()->rect().center())
                    .contains(QStringLiteral("Ŵ B")));
    }

    void paletteRecolours()
    {
        DistributionView view;
        view.setResults(m_result);
        auto *w = view.histogramPlot()->weightGraph();
        QPalette light = view.palette();
        light.setColor(QPalette::Window, Qt::white);
        light.setColor(QPalette::Base, Qt::white);
        view.setPalette(light);
        QCoreApplication::sendPostedEvents();
        const QColor onLight = view.histogramPlot()->weightGraph()->pen().color();
        QPalette dark = light;
        dark.setColor(QPalette::Window, QColor(30, 30, 30));
        dark.setColor(QPalette::Base, QColor(20, 20, 20));
        view.setPalette(dark);
        QCoreApplication::sendPostedEvents();
        QVERIFY(w == view.histogramPlot()->weightGraph());
        QVERIFY(view.histogramPlot()->weightGraph()->pen().color() != onLight);
        QCOMPARE(view.histogramPlot()->xAxis->tickLabelColor(), dark.color(QPalette::WindowText));
        QCOMPARE(view.histogramPlot()->weightGraph()->pen().color(), theme::weightColor(dark));
    }

    void numbersEqualCliJson_data()
    {
        QTest::addColumn<int>("config");
        QTest::newRow("int4 group 128") << 0;
        QTest::newRow("int8 channel asym") << 1;
        QTest::newRow("fp8 block 128") << 2;
    }

    void numbersEqualCliJson()
    {
        QFETCH(int, config);
        // The CLI computes its sums with one partial per hardware thread (util/parallel.h); the
        // job does the same with the same count, so the FP64 sums agree to the last bit.
        static std::shared_ptr<const QuantizeJobResult> same;
        if (!same)
            same = std::make_shared<const QuantizeJobResult>(
                run({kTensor}, 256, false, static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))));
        NumbersModel model;
        model.setResults(same);
        QCOMPARE(model.columnCount(), 3);
        QCOMPARE(model.rowCount(), static_cast<int>(metricRows().size()));

        const auto &jc = m_configs[static_cast<std::size_t>(config)];
        QTemporaryDir tmp;
        const auto specFile = tmp.filePath(QStringLiteral("spec.json"));
        QFile f(specFile);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(jc.spec.dump()));
        f.close();
        QProcess cli;
        cli.start(QStringLiteral(QUANTSCOPE_CLI),
                  {QStringLiteral("quantize"), m_dir.filePath(QStringLiteral("demo")), QStringLiteral("--tensor"),
                   QString::fromUtf8(kTensor), QStringLiteral("--spec"), specFile, QStringLiteral("--device"),
                   QStringLiteral("cpu"), QStringLiteral("--json")});
        QVERIFY(cli.waitForFinished(120000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        const auto json = nlohmann::json::parse(cli.readAllStandardOutput().toStdString());

        const auto *o = model.outcomeAt(config);
        QVERIFY(o && o->ok());
        QVERIFY(o->spec == json["spec"]);
        QVERIFY(model.headerData(config, Qt::Horizontal).toString().startsWith(QString::fromStdString(jc.name)));
        // Named by what it is ("A · INT4 g128 sym · q_proj"), never a bare letter.
        QVERIFY(model.headerData(config, Qt::Horizontal)
                    .toString()
                    .startsWith(QString::fromStdString(configLabel(jc.name, jc.spec))));
        int compared = 0;
        for (int r = 0; r < model.rowCount(); ++r) {
            const auto key = model.index(r, config).data(NumbersModel::KeyRole).toString().toStdString();
            if (key == "time_ms")
                continue; // wall clock
            const auto *cliValue = at(json, key);
            QVERIFY2(cliValue, key.c_str());
            const auto expected = fromCliJson(*cliValue);
            const auto cell = model.index(r, config);
            // What is shown equals the CLI's number shown the same way, and the exact value
            // behind it equals the CLI's to the last bit.
            QCOMPARE(cell.data(Qt::DisplayRole).toString(), NumbersModel::displayText(expected));
            QCOMPARE(cell.data(NumbersModel::ExactTextRole).toString(), NumbersModel::exactText(expected));
            QCOMPARE(nlohmann::json(toCliJson(metricValue(*o, key))).dump(), cliValue->dump());
            QVERIFY2(!NumbersModel::metricHelp(QString::fromStdString(key)).isEmpty(), key.c_str());
            QVERIFY(!model.headerData(r, Qt::Vertical, Qt::ToolTipRole).toString().isEmpty());
            ++compared;
        }
        QCOMPARE(compared, model.rowCount() - 1);

        // The JSON export carries the same numbers under the same keys.
        const auto exported = nlohmann::json::parse(model.toJson().toStdString());
        QCOMPARE(exported.size(), std::size_t{3});
        for (const char *key : {"metrics", "stats_in", "stats_out"})
            for (auto it = exported[static_cast<std::size_t>(config)][key].begin();
                 it != exported[static_cast<std::size_t>(config)][key].end(); ++it)
                QCOMPARE(it.value().dump(), json[key][it.key()].dump());
        QCOMPARE(exported[static_cast<std::size_t>(config)]["histogram"]["overlap"].dump(),
                 json["histogram"]["overlap"].dump());
    }

    void numbersCopyAndExport()
    {
        NumbersView view;
        view.model()->setResults(m_result);
        view.copySelection();
        const auto text = QApplication::clipboard()->text();
        QCOMPARE(text.count(QLatin1Char('\n')), static_cast<int>(metricRows().size()) + 1);
        QVERIFY(text.contains(QStringLiteral("SQNR (dB)")));
        const auto csv = m_dir.filePath(QStringLiteral("numbers.csv"));
        const auto json = m_dir.filePath(QStringLiteral("numbers.json"));
        QVERIFY(view.exportCsv(csv));
        QVERIFY(view.exportJson(json));
        QFile c(csv);
        QVERIFY(c.open(QIODevice::ReadOnly));
        const auto lines = QString::fromUtf8(c.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), static_cast<int>(metricRows().size()) + 1);
        QVERIFY(lines.at(1).startsWith(QStringLiteral("metrics.rel_frobenius,")));
        QString error;
        QVERIFY(!view.exportCsv(m_dir.filePath(QStringLiteral("no/such/dir/x.csv")), &error));
        QVERIFY(!error.isEmpty());
    }
};

QTEST_MAIN(TestViews)
#include "tst_views.moc"
