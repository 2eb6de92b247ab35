// SPDX-License-Identifier: MIT
// The window's translation of core's messages (issue 42: no English left in German or Chinese in
// a log line, a status line or a dialog): every pattern of the table comes out translated in de
// and zh_CN with its values kept; composed messages (a location before a refusal, notes joined by
// "; ", a reason inside a device note) are translated part by part; an unknown message stays as
// core wrote it. And the table is complete: every message text in the core sources that can
// reach the window (their throw, note, warning and step statements) is one of its patterns (or a
// method/field text of specwords), so a message added to core without a pattern fails here.
#include "coremessages.h"
#include "languageswitch.h"
#include "schemewords.h"
#include "specwords.h"
#include "test_env.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

using namespace quantscope;

namespace {

/// The value put in placeholder n: a word no translation contains by itself.
QString token(int n)
{
    return QStringLiteral("Qv%1q").arg(n);
}

QString filled(const QString &pattern)
{
    QString s = pattern;
    s.replace(QRegularExpression(QStringLiteral("%(\\d)")), QStringLiteral("Qv\\1q"));
    return s;
}

/// The fixed runs of English between the placeholders (trimmed, phrases with a word in them; a
/// single identifier such as head_dim, or a command line's options, is kept as core wrote it).
QStringList fixedRuns(const QString &pattern)
{
    QStringList out;
    for (auto part : pattern.split(QRegularExpression(QStringLiteral("%\\d")))) {
        part = part.trimmed();
        // The tail of a command line ("--imatrix --capture CAP.safetensors") stays as written.
        if (part.startsWith(QLatin1String("--")))
            continue;
        if (part.contains(QRegularExpression(QStringLiteral("[A-Za-z]{4}"))) && part.size() >= 8 &&
            part.contains(QLatin1Char(' ')))
            out << part;
    }
    return out;
}

/// The sources whose messages reach the window: the quantize job's path (engine, quantizers,
/// metrics, the SVD and the Hadamard rotation, the Overview's note), formatLocation, the budget,
/// Compare, the KV lab and the GEMM simulation and timing, the readers and writers of the files
/// the window opens and writes, its checks (doctor, scan, recipes), the Python bridge, sessions.
/// The CLI's --spec flags (spec_flags.cpp) and --rank-policy (rank_policy.cpp) are not among
/// them, nor the CLI's export-gguf path (gguf_export.cpp, hf_gguf*.cpp, ggml_mix.cpp).
QStringList coreSources()
{
    const QDir root(QStringLiteral(QUANTSCOPE_SOURCE_DIR));
    QStringList out;
    for (const auto dir : {"core/quant", "core/engine", "core/metrics", "core/budget", "core/compare", "core/kv",
                           "core/sim", "core/io", "core/doctor", "core/scan", "core/recipe", "core/bridge"})
        for (const auto &f : QDir(root.filePath(QLatin1String(dir))).entryList({QStringLiteral("*.cpp")}))
            if (f != QLatin1String("spec_flags.cpp") && f != QLatin1String("rank_policy.cpp"))
                out << root.filePath(QLatin1String(dir) + QLatin1Char('/') + f);
    for (const auto f : {"core/numeric/hadamard.cpp",
                         "core/numeric/svd.cpp",
                         "core/results/overview.cpp",
                         "core/results/channel_profile.cpp",
                         "core/util/error.cpp",
                         "core/ggml/ggml_quantize.cpp",
                         "core/ggml/ggml_types.cpp",
                         "core/ggml/ggml_kquants.cpp",
                         "core/ggml/ggml_names.cpp",
                         "core/ggml/ggml_tq_mxfp4.cpp",
                         "core/export/checkpoint_writer.cpp",
                         "core/export/config_export.cpp",
                         "core/export/ct_writer.cpp",
                         "core/export/export_ct.cpp",
                         "core/export/export_quark.cpp",
                         "core/export/fp8block_writer.cpp",
                         "core/export/gguf_imatrix.cpp",
                         "core/export/quark_writer.cpp",
                         "core/export/staged_output.cpp",
                         "core/export/toolkit_rules.cpp",
                         "core/results/session.cpp",
                         "core/util/memory.cpp",
                         "core/util/bus_guard.cpp",
                         "core/util/subprocess.cpp",
                         "core/json/report_json.cpp",
                         "core/demo/demo.cpp"})
        out << root.filePath(QLatin1String(f));
    return out;
}

/// The string literals of a C++ source with a space and five letters or more (message texts and
/// pieces of them; keys and identifiers have none), adjacent literals joined.
QStringList messageLiterals(const QString &file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QString s = QString::fromUtf8(f.readAll());
    // The string literals, read as the compiler does: comments, character literals ('"', '\\'),
    // digit separators (1'000) and raw strings (R"(…)", regexes here) are no message; literals
    // separated by white space only are one.
    QStringList texts;
    bool join = false;
    for (qsizetype i = 0, n = s.size(); i < n;) {
        const QChar c = s[i];
        if (c == QLatin1Char('/') && i + 1 < n && s[i + 1] == QLatin1Char('/')) {
            i = s.indexOf(QLatin1Char('\n'), i);
            i = i < 0 ? n : i;
            join = false;
        } else if (c == QLatin1Char('/') && i + 1 < n && s[i + 1] == QLatin1Char('*')) {
            i = s.indexOf(QLatin1String("*/"), i + 2);
            i = i < 0 ? n : i + 2;
            join = false;
        } else if (c == QLatin1Char('R') && i + 1 < n && s[i + 1] == QLatin1Char('"') &&
                   (i == 0 || !(s[i - 1].isLetterOrNumber() || s[i - 1] == QLatin1Char('_')))) {
            const qsizetype open = s.indexOf(QLatin1Char('('), i);
            const QString close = QLatin1Char(')') + s.mid(i + 2, open - i - 2) + QLatin1Char('"');
            i = s.indexOf(close, open);
            i = i < 0 ? n : i + close.size();
            join = false;
        } else if (c == QLatin1Char('\'') && !(i > 0 && s[i - 1].isLetterOrNumber())) {
            for (++i; i < n && s[i] != QLatin1Char('\''); ++i)
                i += s[i] == QLatin1Char('\\') ? 1 : 0;
            ++i;
            join = false;
        } else if (c == QLatin1Char('"')) {
            QString text;
            for (++i; i < n && s[i] != QLatin1Char('"'); ++i) {
                if (s[i] == QLatin1Char('\\') && i + 1 < n) {
                    // \" and \\ as the message has them; other escapes as written.
                    const QChar e = s[++i];
                    if (e != QLatin1Char('"') && e != QLatin1Char('\\'))
                        text += QLatin1Char('\\');
                    text += e;
                } else {
                    text += s[i];
                }
            }
            ++i;
            if (join && !texts.isEmpty())
                texts.last() += text;
            else
                texts << text;
            join = true;
        } else {
            join = join && c.isSpace();
            ++i;
        }
    }
    QStringList out;
    for (QString text : texts) {
        // A piece appended to a message (", per tensor") as the table writes it, in a pattern.
        text = text.trimmed().remove(QRegularExpression(QStringLiteral("^[,;]\\s*")));
        // A printf format ("needs %llu bytes (%.6g MB)") as the table writes it: %1, %2, …
        static const QRegularExpression printfSpec(QStringLiteral("%[-+ #0-9.]*(?:ll|l|z)?[dusgfx]"));
        int k = 0;
        for (auto m = printfSpec.match(text); m.hasMatch(); m = printfSpec.match(text))
            text.replace(m.capturedStart(), m.capturedLength(), QStringLiteral("%") + QString::number(++k));
        if (text.contains(QLatin1Char(' ')) && text.count(QRegularExpression(QStringLiteral("[A-Za-z]"))) >= 5)
            out << text;
    }
    return out;
}

} // namespace

class TestCoreMessages : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        test::isolate(m_home, QStringLiteral("tst_coremessages"));
        qputenv("QUANTSCOPE_QM_DIR", QUANTSCOPE_QM_DIR);
    }

    void cleanupTestCase() { language::apply(QStringLiteral("en")); }

    void everyPatternIsTranslated_data()
    {
        QTest::addColumn<QString>("code");
        QTest::newRow("de") << QStringLiteral("de");
        QTest::newRow("zh_CN") << QStringLiteral("zh_CN");
    }

    void everyPatternIsTranslated()
    {
        QFETCH(QString, code);
        QVERIFY(language::apply(code));
        const auto patterns = coremessages::patterns();
        QVERIFY2(patterns.size() > 100, qPrintable(QString::number(patterns.size())));
        QStringList bad;
        for (const auto &p : patterns) {
            const QString english = filled(p);
            const QString shown = coremessages::translated(english);
            QStringList why;
            if (shown == english)
                why << QStringLiteral("untranslated");
            static const QRegularExpression slot(QStringLiteral("%(\\d)"));
            for (auto it = slot.globalMatch(p); it.hasNext();) {
                const int n = it.next().captured(1).toInt();
                if (!shown.contains(token(n)))
                    why << QStringLiteral("lost %%1").arg(n);
            }
            for (const auto &run : fixedRuns(p))
                if (shown.contains(run))
                    why << QStringLiteral("English left: ") + run;
            if (!why.isEmpty())
                bad << QStringLiteral("%1 -> %2 (%3)").arg(english, shown, why.join(QStringLiteral(", ")));
        }
        QVERIFY2(bad.isEmpty(), qPrintable(bad.join(QLatin1Char('\n'))));
    }

    void composedMessagesArePartByPart()
    {
        QVERIFY(language::apply(QStringLiteral("de")));
        // formatLocation's tensor, then a refusal whose value is a name.
        QCOMPARE(coremessages::translated(std::string("tensor 'model.w': group size must be ≥ 1")),
                 QStringLiteral("Tensor „model.w“: die Gruppengröße muss ≥ 1 sein"));
        // A reason inside a device note, two notes joined.
        QCOMPARE(coremessages::translated(
                     std::string("GPU requested but unavailable (built without a GPU backend): computed on the CPU; "
                                 "no device kernel")),
                 QStringLiteral("GPU angefordert, aber nicht verfügbar (ohne GPU-Backend gebaut): auf der CPU "
                                "berechnet; kein Geräte-Kernel"));
        // A configuration's name before the message stays as typed.
        QCOMPARE(coremessages::translated(std::string("A · INT4: cancelled")), QStringLiteral("A · INT4: abgebrochen"));
        // A quantized layout's scheme, listed with ", " (a bracket's comma is no separator; a
        // name such as FP8 E4M3 stays).
        QCOMPARE(coremessages::translated(std::string("int: INT4 sym, group 128 along K, c-t packing, BF16 scales")),
                 QStringLiteral("int: INT4 symmetrisch, Gruppe 128 entlang K, c-t-Packung, BF16-Skalen"));
        QCOMPARE(coremessages::translated(std::string("fp8: FP8 E4M3, per channel, transposed [K, N/8], F32 scales")),
                 QStringLiteral("fp8: FP8 E4M3, pro Kanal, transponiert [K, N/8], F32-Skalen"));
        QVERIFY(!coremessages::known(QStringLiteral("per channel, an unknown part")));
        // A reader's refusal of a foreign file after its path, what it looks like translated too.
        QCOMPARE(coremessages::translated(std::string(
                     "m.bin: not a safetensors / npy / npz file (this looks like a llama2.c checkpoint: dim 288, 6 "
                     "layers, 6 heads, vocabulary 32000): convert it to a Hugging Face safetensors checkpoint "
                     "(llama2.c's export.py --version -1 writes one)")),
                 QStringLiteral("m.bin: keine safetensors-, npy- oder npz-Datei (sie sieht aus wie ein "
                                "llama2.c-Checkpoint: dim 288, 6 Schichten, 6 Köpfe, Vokabular 32000): wandeln Sie "
                                "ihn in einen Hugging-Face-safetensors-Checkpoint um (export.py --version -1 von "
                                "llama2.c schreibt einen)"));
        // Unknown text stays as it is, and is not "known".
        const std::string unknown = "a message core never wrote";
        QCOMPARE(coremessages::translated(unknown), QString::fromStdString(unknown));
        QVERIFY(!coremessages::known(QString::fromStdString(unknown)));
        QVERIFY(coremessages::known(QStringLiteral("spectrum of x")));
        QVERIFY(language::apply(QStringLiteral("zh_CN")));
        QCOMPARE(coremessages::translated(std::string("spectrum of A: w")), QStringLiteral("A: w 的谱"));
        QCOMPARE(
            coremessages::translated(std::string("model.safetensors: tensor 'w': byte 8: the header length "
                                                 "field says 900 bytes, but only 12 bytes follow it in the file")),
            QStringLiteral("model.safetensors: 张量“w”: 字节 8: 头部长度字段为 900 字节，但文件中其后只有 12 字节"));
        // In English a message is core's own text.
        QVERIFY(language::apply(QStringLiteral("en")));
        QCOMPARE(coremessages::translated(std::string("tensor 'model.w': group size must be ≥ 1")),
                 QStringLiteral("tensor 'model.w': group size must be ≥ 1"));
    }

    void tableCoversEveryCoreMessage()
    {
        const auto patterns = coremessages::patterns();
        // Texts of the core sources that are no message to a person: the CPU model line's key in
        // /proc/cpuinfo, the device lines (DeviceQuery writes its own, translated), the method
        // list (names), a programming error (std::logic_error).
        const QSet<QString> notMessages = {
            QStringLiteral("model name"), QStringLiteral("GPU: %1 (%2, %3 GiB free of %4)"),
            QStringLiteral("CPU: %1 threads (%2)"),
            QStringLiteral("int, fp8, hqq, milo, mxfp4, nvfp4, progressive, constopt, gptq, awq, gguf"),
            QStringLiteral("no spec field '"),
            // What core looks for in a file or a process's output, and names (a config key, a
            // family's suffix).
            QStringLiteral("version https://git-lfs"), QStringLiteral("No module named quantscope_bridge"),
            QStringLiteral("quantization_config (fp8)"), QStringLiteral("+ imatrix"),
            // ggml's assertions in the vendored quantizers (std::logic_error).
            QStringLiteral("ggml quantizer: assertion failed:"), QStringLiteral("ggml quantizer:"),
            // The KV lab's fused passes' consistency checks (std::logic_error).
            QStringLiteral("kvQuantizeMse kept another number of rows"),
            QStringLiteral("kvQuantizeMseN kept another number of rows"),
            QStringLiteral("kvQuantizeMseN: the contexts' shapes differ"),
            // The .npy header a writer puts into the file, and the config keys a layout is read from.
            QStringLiteral("{'descr': '"), QStringLiteral("', 'fortran_order': False, 'shape':"),
            QStringLiteral("config.json quantization_config.config_groups."),
            QStringLiteral("config.json quantization_config (quark)"), QStringLiteral("config.json weight_block_size"),
            QStringLiteral("num_attention_heads × head_dim"),
            // The default recipe's rule name (recipe data, saved in the recipe file as it is).
            QStringLiteral("default: every 2-D weight, INT4 g128"),
            // The bus-error handler's line on stderr (the process ends).
            QStringLiteral("quantscope: error:")};
        // A ggml type's scheme in words (ggml::schemeText) is shown through schemewords, which
        // translates it whole: its texts count as known where schemewords' table holds the type.
        QStringList schemes;
        for (const auto &info : ggml::allTypes())
            if (schemewords::translated(info.type))
                schemes << QString::fromStdString(ggml::schemeText(info.type));
        // What an exporter writes into a file for a toolkit (a YAML recipe, a Python script: a
        // line with \n, a # comment, code with name=) is no message, and stays English.
        static const QRegularExpression writtenText(QStringLiteral("\\\\n|^#|[A-Za-z_]=(\"|False|True|$)|^[A-Z_]+ =$"));
        const auto sources = coreSources();
        QVERIFY2(sources.size() > 30, qPrintable(QString::number(sources.size())));
        int seen = 0;
        QStringList missing;
        QVERIFY(language::apply(QStringLiteral("de")));
        for (const auto &file : sources) {
            const auto literals = messageLiterals(file);
            QVERIFY2(QFile::exists(file), qPrintable(file));
            for (const auto &text : literals) {
                ++seen;
                if (notMessages.contains(text) || writtenText.match(text).hasMatch())
                    continue;
                const bool inTable = std::any_of(patterns.begin(), patterns.end(),
                                                 [&text](const QString &p) { return p.contains(text); });
                const bool specText = specwords::coreText(text.toStdString()) != text;
                const bool schemeText =
                    std::any_of(schemes.begin(), schemes.end(), [&text](const QString &w) { return w.contains(text); });
                if (!inTable && !specText && !schemeText)
                    missing << QStringLiteral("%1: %2").arg(
                        QDir(QStringLiteral(QUANTSCOPE_SOURCE_DIR)).relativeFilePath(file), text);
            }
        }
        QVERIFY2(seen > 200, qPrintable(QString::number(seen)));
        QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("core messages the window cannot translate "
                                                              "(add them to widgets/panels/coremessages.cpp):\n") +
                                               missing.join(QLatin1Char('\n'))));
    }

    void scannerFindsAMessage()
    {
        // The scan itself finds a refusal split over lines and over values (so a pass above
        // means something).
        QTemporaryDir dir;
        QFile f(dir.filePath(QStringLiteral("x.cpp")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("if (c == '\"') throw UnsupportedError(\"the widget \" + name +\n"
                "    \" has no \"\n    \"sprockets left\"); // \"a comment text\"\n"
                "auto n = 1'000; if (s.find('\\\\') == 0) fail(\"see https://example.org for the fix\");\n"
                "std::regex r(R\"(no message (here) at all)\"); /* \"a block comment text\" */\n"
                "fail(\"must start with '{', not \\\"x\\\"\");\n");
        f.close();
        QCOMPARE(messageLiterals(f.fileName()),
                 QStringList({QStringLiteral("the widget"), QStringLiteral("has no sprockets left"),
                              QStringLiteral("see https://example.org for the fix"),
                              QStringLiteral("must start with '{', not \"x\"")}));
    }
};

QTEST_MAIN(TestCoreMessages)
#include "tst_coremessages.moc"
