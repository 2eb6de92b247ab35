// SPDX-License-Identifier: MIT
#include "languageswitch.h"

#include "elidedlabel.h"
#include "results/config_label.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAction>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QHash>
#include <QHeaderView>
#include <QLabel>
#include <QLibraryInfo>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QMenu>
#include <QMutex>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QRegularExpression>
#include <QSet>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTabBar>
#include <QTableWidget>
#include <QTextEdit>
#include <QTranslator>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>

#include <algorithm>

namespace quantscope::language {

namespace {

/// Where a translated text came from.
struct Source {
    QByteArray context;
    QByteArray text;
    QByteArray disambiguation;
    int n = -1;
    bool operator==(const Source &o) const = default;
};

/// A translated text with placeholders ("%1 of %2 tensors"), matched against shown texts.
struct Template {
    Source source;
    QString prefix; ///< the literal text before the first placeholder
    QString suffix; ///< and after the last
    QRegularExpression pattern;
    QList<QString> ids; ///< the placeholders in order: "1", "2", "n"
    qsizetype literal = 0;
};

const QRegularExpression &placeholder()
{
    static const QRegularExpression re(QStringLiteral("%L?(\\d{1,2}|n)"));
    return re;
}

/// What every answer of the translators came from; shared by all threads that call tr().
struct Record {
    QMutex mutex;
    QHash<QString, QList<Source>> exact;
    QList<Template> templates;
    QSet<QString> templateTexts;
    bool templatesSorted = true;

    void add(const Source &s, const QString &text)
    {
        if (text.isEmpty())
            return;
        QMutexLocker lock(&mutex);
        if (!text.contains(placeholder())) {
            auto &list = exact[text];
            if (!list.contains(s))
                list.append(s);
            return;
        }
        if (templateTexts.contains(text))
            return;
        templateTexts.insert(text);
        Template t;
        t.source = s;
        QString pattern = QStringLiteral("^");
        qsizetype at = 0;
        auto it = placeholder().globalMatch(text);
        while (it.hasNext()) {
            const auto m = it.next();
            const QString literal = text.mid(at, m.capturedStart() - at);
            if (t.ids.isEmpty())
                t.prefix = literal;
            t.literal += literal.size();
            // A plural count is a number (digits with the locale's group separators): "%n
            // configurations" must not swallow "Quantizing 1 tensor × 4 configurations".
            pattern += QRegularExpression::escape(literal) +
                       (m.captured(1) == QLatin1String("n") ? QStringLiteral("([+-]?\\d[\\d.,\\x{00a0}\\x{202f}' ]*)")
                                                            : QStringLiteral("(.*?)"));
            t.ids.append(m.captured(1));
            at = m.capturedEnd();
        }
        t.suffix = text.mid(at);
        t.literal += t.suffix.size();
        pattern += QRegularExpression::escape(t.suffix) + QStringLiteral("$");
        // A template of placeholders, punctuation and a short word ("%1 (%2)", "%1 from %2")
        // would match any text, core's English too: five letters at least, a Chinese character
        // counting as two ("%1：%2 秒内完成" is as specific as "%1: finished in %2 s").
        static const QRegularExpression letter(QStringLiteral("\\p{L}")), han(QStringLiteral("\\p{Han}"));
        const QString literal = QString(text).remove(placeholder());
        if (literal.count(letter) + literal.count(han) < 5)
            return;
        t.pattern = QRegularExpression(pattern, QRegularExpression::DotMatchesEverythingOption);
        templates.append(std::move(t));
        templatesSorted = false;
    }
};

Record &record()
{
    static Record r;
    return r;
}

/// The one translator the application has: it asks the language's translators and records.
class RecordingTranslator : public QTranslator {
public:
    using QTranslator::QTranslator;
    QList<QTranslator *> inner; ///< children of this one, asked in order

    QString translate(const char *context, const char *sourceText, const char *disambiguation, int n) const override
    {
        QString result;
        for (const auto *t : inner) {
            result = t->translate(context, sourceText, disambiguation, n);
            if (!result.isNull())
                break;
        }
        if (sourceText)
            record().add({QByteArray(context), QByteArray(sourceText), QByteArray(disambiguation), n},
                         result.isNull() ? QString::fromUtf8(sourceText) : result);
        return result;
    }
    bool isEmpty() const override { return false; }
};

QPointer<RecordingTranslator> g_installed;
QString g_code;

QString translated(const Source &s, int n)
{
    return QCoreApplication::translate(s.context.constData(), s.text.constData(),
                                       s.disambiguation.isEmpty() ? nullptr : s.disambiguation.constData(), n);
}

/// The class names of owner, its base classes and its ancestors: the contexts tr() used there.
QSet<QByteArray> contextsOf(const QObject *owner)
{
    QSet<QByteArray> out;
    for (const QObject *o = owner; o; o = o->parent())
        for (const QMetaObject *m = o->metaObject(); m; m = m->superClass())
            out.insert(QByteArray(m->className()));
    return out;
}

const Source &pick(const QList<Source> &sources, const QObject *owner)
{
    if (sources.size() > 1 && owner) {
        const auto contexts = contextsOf(owner);
        for (const auto &s : sources)
            if (contexts.contains(s.context))
                return s;
    }
    return sources.first();
}

QString retranslatedAt(const QString &shown, const QObject *owner, int depth);

/// A text joined from translated parts ("3 tensors · 1.2 GB · 1 file", a tooltip's lines, a
/// name before a message of core's: "q_proj.weight: activation not available").
QString joinedParts(const QString &shown, const QObject *owner, int depth)
{
    for (const QString &separator :
         {QStringLiteral("\n"), QStringLiteral(" · "), QStringLiteral("; "), QStringLiteral(": ")}) {
        if (!shown.contains(separator))
            continue;
        QStringList parts = shown.split(separator);
        for (auto &part : parts)
            part = retranslatedAt(part, owner, depth + 1);
        return parts.join(separator);
    }
    return shown;
}

QString retranslatedAt(const QString &shown, const QObject *owner, int depth)
{
    if (shown.isEmpty() || depth > 3)
        return shown;
    auto &r = record();
    Source source;
    QList<QString> ids;
    QList<QString> args;
    {
        QMutexLocker lock(&r.mutex);
        if (const auto it = r.exact.constFind(shown); it != r.exact.constEnd()) {
            source = pick(*it, owner);
        } else {
            if (!r.templatesSorted) {
                // The most literal text first: "%1 of %2 tensors" before "%1 of %2".
                std::stable_sort(r.templates.begin(), r.templates.end(),
                                 [](const Template &a, const Template &b) { return a.literal > b.literal; });
                r.templatesSorted = true;
            }
            const Template *found = nullptr;
            QRegularExpressionMatch match;
            for (const auto &t : r.templates) {
                if (!shown.startsWith(t.prefix) || !shown.endsWith(t.suffix))
                    continue;
                match = t.pattern.match(shown);
                if (match.hasMatch()) {
                    found = &t;
                    break;
                }
            }
            if (!found) {
                lock.unlock();
                return joinedParts(shown, owner, depth);
            }
            source = found->source;
            ids = found->ids;
            for (int i = 1; i <= match.lastCapturedIndex(); ++i)
                args.append(match.captured(i));
        }
    }
    if (ids.isEmpty())
        return translated(source, source.n);
    // The plural count back from the text; the other arguments translated in turn (a method
    // or unit word inside a sentence).
    int n = source.n;
    QHash<QString, QString> values;
    for (int i = 0; i < ids.size() && i < args.size(); ++i) {
        if (ids[i] == QLatin1String("n")) {
            bool ok = false;
            const QString count = args[i].trimmed();
            const int v = QLocale().toInt(count, &ok);
            n = ok ? v : count.toInt();
        } else {
            values.insert(ids[i], retranslatedAt(args[i], owner, depth + 1));
        }
    }
    const QString text = translated(source, n);
    QString out;
    qsizetype at = 0;
    auto it = placeholder().globalMatch(text);
    while (it.hasNext()) {
        const auto m = it.next();
        out += text.mid(at, m.capturedStart() - at);
        out += values.contains(m.captured(1)) ? values.value(m.captured(1)) : m.captured(0);
        at = m.capturedEnd();
    }
    out += text.mid(at);
    return out;
}

template <typename Get, typename Set> void fix(const QObject *owner, Get get, Set set)
{
    const QString now = get();
    if (now.isEmpty())
        return;
    const QString next = retranslatedAt(now, owner, 0);
    if (next != now)
        set(next);
}

void fixStandardItems(QStandardItemModel *model)
{
    for (int c = 0; c < model->columnCount(); ++c)
        if (auto *h = model->horizontalHeaderItem(c))
            fix(
                model, [h] { return h->text(); }, [h](const QString &s) { h->setText(s); });
    QList<QStandardItem *> stack{model->invisibleRootItem()};
    while (!stack.isEmpty()) {
        auto *item = stack.takeLast();
        for (int r = 0; r < item->rowCount(); ++r)
            for (int c = 0; c < item->columnCount(); ++c)
                if (auto *child = item->child(r, c)) {
                    fix(
                        model, [child] { return child->text(); }, [child](const QString &s) { child->setText(s); });
                    fix(
                        model, [child] { return child->toolTip(); },
                        [child](const QString &s) { child->setToolTip(s); });
                    stack.append(child);
                }
    }
}

void fixItemView(QAbstractItemView *view)
{
    if (auto *tree = qobject_cast<QTreeWidget *>(view)) {
        auto *h = tree->headerItem();
        for (int c = 0; h && c < h->columnCount(); ++c)
            fix(
                tree, [h, c] { return h->text(c); }, [h, c](const QString &s) { h->setText(c, s); });
        for (QTreeWidgetItemIterator it(tree); *it; ++it) {
            auto *item = *it;
            for (int c = 0; c < item->columnCount(); ++c) {
                fix(
                    tree, [item, c] { return item->text(c); }, [item, c](const QString &s) { item->setText(c, s); });
                fix(
                    tree, [item, c] { return item->toolTip(c); },
                    [item, c](const QString &s) { item->setToolTip(c, s); });
            }
        }
    } else if (auto *list = qobject_cast<QListWidget *>(view)) {
        for (int i = 0; i < list->count(); ++i) {
            auto *item = list->item(i);
            fix(
                list, [item] { return item->text(); }, [item](const QString &s) { item->setText(s); });
            fix(
                list, [item] { return item->toolTip(); }, [item](const QString &s) { item->setToolTip(s); });
        }
    } else if (auto *table = qobject_cast<QTableWidget *>(view)) {
        for (int c = 0; c < table->columnCount(); ++c)
            if (auto *h = table->horizontalHeaderItem(c))
                fix(
                    table, [h] { return h->text(); }, [h](const QString &s) { h->setText(s); });
        for (int r = 0; r < table->rowCount(); ++r)
            for (int c = 0; c < table->columnCount(); ++c)
                if (auto *item = table->item(r, c)) {
                    fix(
                        table, [item] { return item->text(); }, [item](const QString &s) { item->setText(s); });
                    fix(
                        table, [item] { return item->toolTip(); }, [item](const QString &s) { item->setToolTip(s); });
                }
    } else if (auto *standard = qobject_cast<QStandardItemModel *>(view->model())) {
        fixStandardItems(standard);
    } else if (auto *model = view->model()) {
        // Other models translate in data() and headerData(): ask the views to fetch again.
        if (model->columnCount() > 0)
            emit model->headerDataChanged(Qt::Horizontal, 0, model->columnCount() - 1);
        if (model->rowCount() > 0)
            emit model->headerDataChanged(Qt::Vertical, 0, model->rowCount() - 1);
    }
    view->viewport()->update();
}

void fixWidget(QWidget *w)
{
    fix(
        w, [w] { return w->windowTitle(); }, [w](const QString &s) { w->setWindowTitle(s); });
    fix(
        w, [w] { return w->statusTip(); }, [w](const QString &s) { w->setStatusTip(s); });
    fix(
        w, [w] { return w->whatsThis(); }, [w](const QString &s) { w->setWhatsThis(s); });
    // An ElidedLabel sets its text and tooltip from its full text (its own changeEvent).
    if (qobject_cast<ElidedLabel *>(w))
        return;
    fix(
        w, [w] { return w->toolTip(); }, [w](const QString &s) { w->setToolTip(s); });
    if (auto *l = qobject_cast<QLabel *>(w))
        fix(
            w, [l] { return l->text(); }, [l](const QString &s) { l->setText(s); });
    else if (auto *b = qobject_cast<QAbstractButton *>(w))
        fix(
            w, [b] { return b->text(); }, [b](const QString &s) { b->setText(s); });
    else if (auto *g = qobject_cast<QGroupBox *>(w))
        fix(
            w, [g] { return g->title(); }, [g](const QString &s) { g->setTitle(s); });
    else if (auto *e = qobject_cast<QLineEdit *>(w))
        fix(
            w, [e] { return e->placeholderText(); }, [e](const QString &s) { e->setPlaceholderText(s); });
    else if (auto *t = qobject_cast<QTextEdit *>(w))
        fix(
            w, [t] { return t->placeholderText(); }, [t](const QString &s) { t->setPlaceholderText(s); });
    else if (auto *p = qobject_cast<QPlainTextEdit *>(w))
        fix(
            w, [p] { return p->placeholderText(); }, [p](const QString &s) { p->setPlaceholderText(s); });
    else if (auto *c = qobject_cast<QComboBox *>(w)) {
        for (int i = 0; i < c->count(); ++i) {
            fix(
                w, [c, i] { return c->itemText(i); }, [c, i](const QString &s) { c->setItemText(i, s); });
            fix(
                w, [c, i] { return c->itemData(i, Qt::ToolTipRole).toString(); },
                [c, i](const QString &s) { c->setItemData(i, s, Qt::ToolTipRole); });
        }
    } else if (auto *tabs = qobject_cast<QTabBar *>(w)) {
        for (int i = 0; i < tabs->count(); ++i) {
            fix(
                w, [tabs, i] { return tabs->tabText(i); }, [tabs, i](const QString &s) { tabs->setTabText(i, s); });
            fix(
                w, [tabs, i] { return tabs->tabToolTip(i); },
                [tabs, i](const QString &s) { tabs->setTabToolTip(i, s); });
        }
    } else if (auto *spin = qobject_cast<QSpinBox *>(w)) {
        fix(
            w, [spin] { return spin->suffix(); }, [spin](const QString &s) { spin->setSuffix(s); });
        fix(
            w, [spin] { return spin->prefix(); }, [spin](const QString &s) { spin->setPrefix(s); });
        fix(
            w, [spin] { return spin->specialValueText(); }, [spin](const QString &s) { spin->setSpecialValueText(s); });
    } else if (auto *dspin = qobject_cast<QDoubleSpinBox *>(w)) {
        fix(
            w, [dspin] { return dspin->suffix(); }, [dspin](const QString &s) { dspin->setSuffix(s); });
        fix(
            w, [dspin] { return dspin->prefix(); }, [dspin](const QString &s) { dspin->setPrefix(s); });
        fix(
            w, [dspin] { return dspin->specialValueText(); },
            [dspin](const QString &s) { dspin->setSpecialValueText(s); });
    } else if (auto *m = qobject_cast<QMenu *>(w))
        fix(
            w, [m] { return m->title(); }, [m](const QString &s) { m->setTitle(s); });
    else if (auto *bar = qobject_cast<QProgressBar *>(w))
        fix(
            w, [bar] { return bar->format(); }, [bar](const QString &s) { bar->setFormat(s); });
    else if (auto *status = qobject_cast<QStatusBar *>(w))
        fix(
            w, [status] { return status->currentMessage(); },
            [status](const QString &s) { status->showMessage(s, 15000); });
    else if (auto *view = qobject_cast<QAbstractItemView *>(w); view && !qobject_cast<QHeaderView *>(w))
        fixItemView(view);
}

void fixAction(QAction *a)
{
    const QString before = a->text();
    // An unset tooltip follows the text; an explicit one is translated on its own.
    QString plain = before;
    plain.remove(QLatin1Char('&'));
    const bool ownTip = a->toolTip() != plain && a->toolTip() != plain.remove(QStringLiteral("…"));
    fix(
        a, [a] { return a->text(); }, [a](const QString &s) { a->setText(s); });
    if (ownTip)
        fix(
            a, [a] { return a->toolTip(); }, [a](const QString &s) { a->setToolTip(s); });
    fix(
        a, [a] { return a->statusTip(); }, [a](const QString &s) { a->setStatusTip(s); });
    fix(
        a, [a] { return a->whatsThis(); }, [a](const QString &s) { a->setWhatsThis(s); });
}

bool loadOwn(QTranslator *t, const QLocale &ui, const QString &dir)
{
    return t->load(ui, QStringLiteral("quantscope"), QStringLiteral("_"), dir);
}

} // namespace

bool apply(const QString &code)
{
    auto *app = QCoreApplication::instance();
    auto *next = new RecordingTranslator(app);
    const QLocale ui = code.isEmpty() ? QLocale::system() : QLocale(code);
    auto *qt = new QTranslator(next);
    if (qt->load(ui, QStringLiteral("qtbase"), QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        next->inner.append(qt);
    // The app embeds its .qm under :/i18n; the tests name the build's folder.
    const QString dirs[] = {QStringLiteral(":/i18n"), qEnvironmentVariable("QUANTSCOPE_QM_DIR")};
    auto *own = new QTranslator(next);
    bool found = false;
    for (const auto &dir : dirs)
        if (!found && !dir.isEmpty() && loadOwn(own, ui, dir))
            found = true;
    // Without a translation for the UI language, English: its .qm holds the plural forms.
    for (const auto &dir : dirs)
        if (!found && !dir.isEmpty() && own->load(QStringLiteral("quantscope_en"), dir))
            break;
    if (!own->isEmpty())
        next->inner.prepend(own);
    if (!code.isEmpty())
        QLocale::setDefault(QLocale(code));
    g_code = code;
    // The new one answers first from here on; the old one goes (each change sends
    // QEvent::LanguageChange, which Qt compresses into one per window).
    QCoreApplication::installTranslator(next);
    if (g_installed) {
        QCoreApplication::removeTranslator(g_installed);
        g_installed->deleteLater();
    }
    g_installed = next;
    // Configuration labels ("A · INT8 per channel sym") in the same language.
    auto word = [](const char *text) {
        return QCoreApplication::translate("quantscope::language", text).toStdString();
    };
    LabelWords words;
    words.perTensor = word(QT_TRANSLATE_NOOP("quantscope::language", "per tensor"));
    words.perChannel = word(QT_TRANSLATE_NOOP("quantscope::language", "per channel"));
    words.perColumn = word(QT_TRANSLATE_NOOP("quantscope::language", "per column"));
    words.block = word(QT_TRANSLATE_NOOP("quantscope::language", "block"));
    words.sym = word(QT_TRANSLATE_NOOP("quantscope::language", "sym"));
    words.asym = word(QT_TRANSLATE_NOOP("quantscope::language", "asym"));
    words.bit = word(QT_TRANSLATE_NOOP("quantscope::language", "-bit"));
    setLabelWords(words);
    return found || code.isEmpty() || code == QLatin1String("en");
}

QString current()
{
    return g_code;
}

QList<Choice> choices()
{
    // Each by its own name (a user who cannot read the current language finds theirs).
    return {{QString(), QCoreApplication::translate("quantscope::language", "System language")},
            {QStringLiteral("en"), QStringLiteral("English")},
            {QStringLiteral("de"), QStringLiteral("Deutsch")},
            {QStringLiteral("zh_CN"), QStringLiteral("中文")}};
}

QString retranslated(const QString &shown, const QObject *owner)
{
    return retranslatedAt(shown, owner, 0);
}

void retranslateTree(QWidget *root)
{
    QList<QWidget *> widgets = root->findChildren<QWidget *>();
    widgets.prepend(root);
    for (auto *w : widgets)
        fixWidget(w);
    QList<QAction *> actions = root->findChildren<QAction *>();
    for (auto *w : widgets)
        for (auto *a : w->actions())
            if (!actions.contains(a))
                actions.append(a);
    for (auto *a : actions)
        fixAction(a);
}

} // namespace quantscope::language
