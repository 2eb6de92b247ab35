// SPDX-License-Identifier: MIT
#include "recipeeditor.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSplitter>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QUndoStack>
#include <QVBoxLayout>

#include "elidedlabel.h"
#include "qtstring.h"
#include "quant/quant_spec.h"
#include "quant/quantizer.h"
#include "specform.h"
#include "coremessages.h"

namespace quantscope {

namespace {

/// One edit: the whole recipe before and after.
class RecipeCommand : public QUndoCommand {
public:
    RecipeCommand(RecipeEditor *editor, Recipe before, Recipe after, const QString &text)
        : QUndoCommand(text), m_editor(editor), m_before(std::move(before)), m_after(std::move(after))
    {
    }
    void undo() override { m_editor->applyRecipe(m_before); }
    void redo() override { m_editor->applyRecipe(m_after); }

private:
    RecipeEditor *m_editor;
    Recipe m_before, m_after;
};

const PatternDialect kDialects[] = {PatternDialect::Fnmatch, PatternDialect::Re, PatternDialect::Exact};

} // namespace

RecipeEditor::RecipeEditor(QWidget *parent) : QWidget(parent), m_recipe(Recipe::defaults())
{
    m_undo = new QUndoStack(this);
    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setHorizontalHeaderLabels(
        {tr("Name"), tr("Dialect"), tr("Patterns"), tr("Specs"), tr("Wins"), tr("Loses to earlier")});
    m_table->horizontalHeader()->setSectionResizeMode(Patterns, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(Specs, QHeaderView::Stretch);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);

    auto *add = new QPushButton(tr("Add rule"), this);
    auto *remove = new QPushButton(tr("Remove"), this);
    auto *up = new QPushButton(tr("Up"), this);
    auto *down = new QPushButton(tr("Down"), this);
    auto *undo = new QPushButton(tr("Undo"), this);
    auto *redo = new QPushButton(tr("Redo"), this);
    m_export = new QPushButton(tr("Export…"), this);
    auto *buttons = new QHBoxLayout;
    for (auto *b : {add, remove, up, down, undo, redo})
        buttons->addWidget(b);
    buttons->addStretch(1);
    buttons->addWidget(m_export);

    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);

    // The exclusions: a list, each entry picked from the checkpoint's modules (no typed JSON).
    m_excluded = new QListWidget(this);
    m_excluded->setObjectName(QStringLiteral("recipeExclusions"));
    m_excluded->setMaximumHeight(fontMetrics().height() * 6);
    m_excluded->setToolTip(tr("Modules no rule quantizes: an exclusion wins over every rule"));
    m_pick = new QPushButton(tr("Exclude modules…"), this);
    m_pick->setToolTip(tr("Pick modules of the opened checkpoint to leave unquantized"));
    auto *unexclude = new QPushButton(tr("Remove exclusion"), this);
    auto *exclusionButtons = new QVBoxLayout;
    exclusionButtons->addWidget(m_pick);
    exclusionButtons->addWidget(unexclude);
    exclusionButtons->addStretch(1);
    auto *exclusions = new QHBoxLayout;
    exclusions->addWidget(new QLabel(tr("Excluded:"), this), 0, Qt::AlignTop);
    exclusions->addWidget(m_excluded, 1);
    exclusions->addLayout(exclusionButtons);
    connect(m_pick, &QPushButton::clicked, this, [this] { pickExclusions(); });
    connect(unexclude, &QPushButton::clicked, this, [this] { removeExclusion(m_excluded->currentRow()); });

    // The selected rule's spec as a form (the Specs column is its read-only summary).
    // Elided: a long rule name must not widen the window (issue 42).
    m_specTitle = new ElidedLabel(this);
    m_specPick = new QComboBox(this);
    m_specPick->setObjectName(QStringLiteral("recipeSpecChoice"));
    auto *addSpec = new QPushButton(tr("Add spec"), this);
    addSpec->setToolTip(tr("Another spec for this rule: an exporter takes the first one its format can store"));
    auto *removeSpec = new QPushButton(tr("Remove spec"), this);
    auto *specRow = new QHBoxLayout;
    specRow->addWidget(m_specTitle, 1);
    specRow->addWidget(m_specPick);
    specRow->addWidget(addSpec);
    specRow->addWidget(removeSpec);
    m_specForm = new SpecForm(quantizerMethods(), true, this);
    m_specForm->setObjectName(QStringLiteral("recipeSpecForm"));
    connect(m_specForm, &SpecForm::specChanged, this, [this](const nlohmann::json &spec) {
        if (!m_rebuilding)
            setRuleSpec(m_specRule, m_specIndex, spec);
    });
    connect(m_specPick, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (!m_rebuilding && i >= 0)
            editSpec(m_specRule, i);
    });
    connect(addSpec, &QPushButton::clicked, this, [this] {
        if (addRuleSpec(m_specRule))
            editSpec(m_specRule,
                     static_cast<int>(m_recipe.rules[static_cast<std::size_t>(m_specRule)].specs.size()) - 1);
    });
    connect(removeSpec, &QPushButton::clicked, this, [this] { removeRuleSpec(m_specRule, m_specIndex); });
    connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row) {
        if (!m_rebuilding && row >= 0 && row != m_specRule)
            editSpec(row, 0);
    });

    // The rules above, the selected rule's spec below, split as the user drags; the form
    // scrolls so that neither squeezes the other out on a 800 px high screen.
    auto *specPane = new QWidget(this);
    auto *specLayout = new QVBoxLayout(specPane);
    specLayout->setContentsMargins(0, 0, 0, 0);
    specLayout->addLayout(specRow);
    auto *specScroll = new QScrollArea(specPane);
    specScroll->setWidgetResizable(true);
    specScroll->setFrameShape(QFrame::NoFrame);
    specScroll->setWidget(m_specForm);
    specLayout->addWidget(specScroll, 1);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(specPane);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);
    layout->addLayout(exclusions);
    layout->addWidget(m_summary);
    layout->addWidget(m_status);

    connect(add, &QPushButton::clicked, this, &RecipeEditor::addRule);
    connect(remove, &QPushButton::clicked, this, [this] { removeRule(m_table->currentRow()); });
    connect(up, &QPushButton::clicked, this, [this] {
        const int r = m_table->currentRow();
        if (moveRule(r, -1))
            m_table->selectRow(r - 1);
    });
    connect(down, &QPushButton::clicked, this, [this] {
        const int r = m_table->currentRow();
        if (moveRule(r, 1))
            m_table->selectRow(r + 1);
    });
    connect(undo, &QPushButton::clicked, m_undo, &QUndoStack::undo);
    connect(redo, &QPushButton::clicked, m_undo, &QUndoStack::redo);
    connect(m_undo, &QUndoStack::canUndoChanged, undo, &QPushButton::setEnabled);
    connect(m_undo, &QUndoStack::canRedoChanged, redo, &QPushButton::setEnabled);
    undo->setEnabled(false);
    redo->setEnabled(false);
    connect(m_export, &QPushButton::clicked, this,
            [this] { emit exportRequested(QString::fromStdString(m_recipe.text())); });
    // Queued: an edit rebuilds the table, not inside the model's own signal.
    connect(m_table, &QTableWidget::cellChanged, this, &RecipeEditor::cellEdited, Qt::QueuedConnection);
    if (!m_recipe.rules.empty())
        m_specRule = 0;
    rebuild();
}

void RecipeEditor::setModules(const std::vector<std::string> &modules)
{
    m_modules = modules;
    rebuild();
}

void RecipeEditor::setRecipe(const Recipe &recipe)
{
    commit(recipe, tr("Replace the recipe"));
}

void RecipeEditor::applyRecipe(const Recipe &recipe)
{
    m_recipe = recipe;
    // The form shows a rule's spec from the start: the first rule's, until another is chosen.
    if (m_specRule < 0 && !m_recipe.rules.empty())
        m_specRule = 0;
    rebuild();
}

bool RecipeEditor::commit(Recipe next, const QString &what)
{
    try {
        next = Recipe::fromJson(next.toJson()); // every check of a recipe file
    } catch (const std::exception &e) {
        m_status->setText(coremessages::translated(std::string(e.what())));
        m_status->setStyleSheet(QStringLiteral("color: #d62728;"));
        rebuild(); // the cell shows the rule as it still is
        return false;
    }
    m_status->clear();
    m_status->setStyleSheet(QString());
    if (next == m_recipe)
        return true;
    m_undo->push(new RecipeCommand(this, m_recipe, std::move(next), what));
    return true;
}

void RecipeEditor::addRule()
{
    Recipe next = m_recipe;
    RecipeRule r;
    r.name = "rule " + std::to_string(next.rules.size() + 1);
    r.patterns = {"*"};
    r.specs = {toJson(parseQuantSpec(nlohmann::json{{"method", "int"}}))};
    next.rules.push_back(std::move(r));
    commit(std::move(next), tr("Add a rule"));
}

bool RecipeEditor::removeRule(int rule)
{
    if (rule < 0 || rule >= static_cast<int>(m_recipe.rules.size()))
        return false;
    Recipe next = m_recipe;
    next.rules.erase(next.rules.begin() + rule);
    return commit(std::move(next), tr("Remove a rule"));
}

bool RecipeEditor::moveRule(int rule, int delta)
{
    const int to = rule + delta;
    if (rule < 0 || to < 0 || rule >= static_cast<int>(m_recipe.rules.size()) ||
        to >= static_cast<int>(m_recipe.rules.size()))
        return false;
    Recipe next = m_recipe;
    std::swap(next.rules[static_cast<std::size_t>(rule)], next.rules[static_cast<std::size_t>(to)]);
    return commit(std::move(next), tr("Move a rule"));
}

bool RecipeEditor::setRuleName(int rule, const QString &name)
{
    if (rule < 0 || rule >= static_cast<int>(m_recipe.rules.size()))
        return false;
    Recipe next = m_recipe;
    next.rules[static_cast<std::size_t>(rule)].name = name.toStdString();
    return commit(std::move(next), tr("Rename a rule"));
}

bool RecipeEditor::setRuleDialect(int rule, PatternDialect dialect)
{
    if (rule < 0 || rule >= static_cast<int>(m_recipe.rules.size()))
        return false;
    Recipe next = m_recipe;
    next.rules[static_cast<std::size_t>(rule)].dialect = dialect;
    return commit(std::move(next), tr("Change a dialect"));
}

bool RecipeEditor::setRulePatterns(int rule, const QString &patterns)
{
    if (rule < 0 || rule >= static_cast<int>(m_recipe.rules.size()))
        return false;
    Recipe next = m_recipe;
    auto &r = next.rules[static_cast<std::size_t>(rule)];
    r.patterns.clear();
    for (const QString &p : patterns.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts))
        r.patterns.push_back(p.toStdString());
    return commit(std::move(next), tr("Edit patterns"));
}

bool RecipeEditor::setRuleSpecs(int rule, const QString &json)
{
    if (rule < 0 || rule >= static_cast<int>(m_recipe.rules.size()))
        return false;
    Recipe next = m_recipe;
    auto &r = next.rules[static_cast<std::size_t>(rule)];
    try {
        nlohmann::json j = nlohmann::json::parse(json.toStdString());
        if (j.is_object())
            j = nlohmann::json::array({j});
        r.specs.clear();
        for (const auto &s : j)
            r.specs.push_back(s);
    } catch (const std::exception &e) {
        m_status->setText(coremessages::translated(std::string(e.what())));
        m_status->setStyleSheet(QStringLiteral("color: #d62728;"));
        rebuild();
        return false;
    }
    return commit(std::move(next), tr("Edit specs"));
}

bool RecipeEditor::setRuleSpec(int rule, int index, const nlohmann::json &spec)
{
    if (rule < 0 || rule >= static_cast<int>(m_recipe.rules.size()))
        return false;
    Recipe next = m_recipe;
    auto &specs = next.rules[static_cast<std::size_t>(rule)].specs;
    if (index < 0 || index >= static_cast<int>(specs.size()))
        return false;
    specs[static_cast<std::size_t>(index)] = spec;
    return commit(std::move(next), tr("Edit a spec"));
}

bool RecipeEditor::addRuleSpec(int rule)
{
    if (rule < 0 || rule >= static_cast<int>(m_recipe.rules.size()))
        return false;
    Recipe next = m_recipe;
    next.rules[static_cast<std::size_t>(rule)].specs.push_back(
        toJson(parseQuantSpec(nlohmann::json{{"method", "int"}})));
    return commit(std::move(next), tr("Add a spec"));
}

bool RecipeEditor::removeRuleSpec(int rule, int index)
{
    if (rule < 0 || rule >= static_cast<int>(m_recipe.rules.size()))
        return false;
    Recipe next = m_recipe;
    auto &specs = next.rules[static_cast<std::size_t>(rule)].specs;
    if (specs.size() <= 1 || index < 0 || index >= static_cast<int>(specs.size()))
        return false;
    specs.erase(specs.begin() + index);
    return commit(std::move(next), tr("Remove a spec"));
}

void RecipeEditor::editSpec(int rule, int index)
{
    m_specRule = rule;
    m_specIndex = index;
    syncSpecForm();
}

void RecipeEditor::syncSpecForm()
{
    const bool valid = m_specRule >= 0 && m_specRule < static_cast<int>(m_recipe.rules.size());
    m_specForm->setEnabled(valid);
    m_specPick->setEnabled(valid);
    if (!valid) {
        m_specTitle->setFullText(tr("Select a rule to edit its spec."));
        return;
    }
    const auto &r = m_recipe.rules[static_cast<std::size_t>(m_specRule)];
    m_specIndex = std::clamp(m_specIndex, 0, static_cast<int>(r.specs.size()) - 1);
    m_specTitle->setFullText(tr("Spec of rule “%1”:").arg(fromStd(r.name)));
    const bool was = m_rebuilding;
    m_rebuilding = true;
    m_specPick->clear();
    for (std::size_t i = 0; i < r.specs.size(); ++i)
        m_specPick->addItem(tr("Spec %1 of %2").arg(i + 1).arg(r.specs.size()));
    m_specPick->setCurrentIndex(m_specIndex);
    if (m_table->currentRow() != m_specRule)
        m_table->selectRow(m_specRule); // the rule the form edits is the one highlighted
    const auto &spec = r.specs[static_cast<std::size_t>(m_specIndex)];
    // Only when the recipe holds another spec than the form (undo, redo, another rule): an
    // edit in the form must keep its editor.
    if (m_specForm->spec() != spec)
        m_specForm->setSpec(spec);
    m_rebuilding = was;
}

bool RecipeEditor::addExclusions(const QStringList &patterns, PatternDialect dialect)
{
    Recipe next = m_recipe;
    for (const auto &p : patterns) {
        const RecipeExclude e{p.toStdString(), dialect};
        if (!p.isEmpty() && std::find(next.exclude.begin(), next.exclude.end(), e) == next.exclude.end())
            next.exclude.push_back(e);
    }
    return commit(std::move(next), tr("Exclude %n module(s)", nullptr, static_cast<int>(patterns.size())));
}

bool RecipeEditor::removeExclusion(int index)
{
    if (index < 0 || index >= static_cast<int>(m_recipe.exclude.size()))
        return false;
    Recipe next = m_recipe;
    next.exclude.erase(next.exclude.begin() + index);
    return commit(std::move(next), tr("Remove an exclusion"));
}

QDialog *RecipeEditor::pickExclusions()
{
    if (m_modules.empty())
        return nullptr;
    auto *dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("excludePicker"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Exclude Modules"));
    auto *filter = new QLineEdit(dialog);
    filter->setPlaceholderText(tr("Filter modules by name"));
    filter->setClearButtonEnabled(true);
    auto *list = new QListWidget(dialog);
    list->setObjectName(QStringLiteral("excludePickerList"));
    list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    for (const auto &m : m_modules)
        list->addItem(fromStd(m));
    connect(filter, &QLineEdit::textChanged, list, [list](const QString &text) {
        for (int i = 0; i < list->count(); ++i)
            list->item(i)->setHidden(!list->item(i)->text().contains(text, Qt::CaseInsensitive));
    });
    auto *box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, dialog);
    connect(box, &QDialogButtonBox::accepted, dialog, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    connect(dialog, &QDialog::accepted, this, [this, list] {
        QStringList picked;
        for (auto *item : list->selectedItems())
            picked << item->text();
        if (!picked.isEmpty())
            addExclusions(picked);
    });
    auto *layout = new QVBoxLayout(dialog);
    layout->addWidget(filter);
    layout->addWidget(list, 1);
    layout->addWidget(box);
    dialog->resize(520, 420);
    dialog->open(); // not modal for the event loop: the window keeps running
    return dialog;
}

int RecipeEditor::wins(int rule) const
{
    int n = 0;
    for (const auto &m : m_check.modules)
        n += m.match.matched() && m.match.rule == rule;
    return n;
}

int RecipeEditor::loses(int rule) const
{
    int n = 0;
    for (const auto &o : m_check.overlaps)
        for (int r : o.others)
            n += r == rule;
    return n;
}

QString RecipeEditor::patternsText(const RecipeRule &r) const
{
    QStringList out;
    for (const auto &p : r.patterns)
        out << fromStd(p);
    return out.join(QLatin1Char(' '));
}

QString RecipeEditor::specsText(const RecipeRule &r) const
{
    // The fields that differ from the method's defaults keep the cell short.
    nlohmann::json a = nlohmann::json::array();
    for (const auto &s : r.specs) {
        nlohmann::json shortSpec = {{"method", s.value("method", "")}};
        try {
            const nlohmann::json defaults = toJson(parseQuantSpec(shortSpec));
            for (const auto &[k, v] : s.items())
                if (!defaults.contains(k) || defaults[k] != v)
                    shortSpec[k] = v;
        } catch (const std::exception &) {
            shortSpec = s;
        }
        a.push_back(shortSpec);
    }
    return fromStd(a.dump());
}

void RecipeEditor::rebuild()
{
    m_rebuilding = true;
    const QSignalBlocker blockTable(m_table); // no cellChanged for what the table is given
    m_check = checkRecipe(m_recipe, m_modules);
    m_table->setRowCount(static_cast<int>(m_recipe.rules.size()));
    for (int i = 0; i < static_cast<int>(m_recipe.rules.size()); ++i) {
        const RecipeRule &r = m_recipe.rules[static_cast<std::size_t>(i)];
        auto set = [&](int col, const QString &text, bool editable) {
            auto *item = new QTableWidgetItem(text);
            if (!editable)
                item->setFlags(item->flags() & ~Qt::ItemIsEditable);
            m_table->setItem(i, col, item);
        };
        set(Name, fromStd(r.name), true);
        set(Dialect, QString(), false);
        set(Patterns, patternsText(r), true);
        set(Specs, specsText(r), false); // the spec form below edits it
        set(Wins, QString::number(wins(i)), false);
        set(Loses, QString::number(loses(i)), false);
        auto *box = qobject_cast<QComboBox *>(m_table->cellWidget(i, Dialect));
        if (!box) {
            box = new QComboBox(m_table);
            for (PatternDialect d : kDialects)
                box->addItem(fromStd(std::string(toString(d))));
            // Queued: the edit rebuilds the table, not inside the box's own signal.
            connect(
                box, &QComboBox::currentIndexChanged, this,
                [this, i](int index) {
                    if (!m_rebuilding)
                        setRuleDialect(i, kDialects[index]);
                },
                Qt::QueuedConnection);
            m_table->setCellWidget(i, Dialect, box);
        }
        const QSignalBlocker block(box);
        box->setCurrentIndex(static_cast<int>(r.dialect));
    }
    m_excluded->clear();
    for (const auto &e : m_recipe.exclude) {
        const QString dialect = fromStd(std::string(toString(e.dialect)));
        auto *item = new QListWidgetItem(
            e.dialect == PatternDialect::Exact ? fromStd(e.pattern) : tr("%1 (%2)").arg(fromStd(e.pattern), dialect));
        item->setToolTip(tr("Pattern %1, dialect %2").arg(fromStd(e.pattern), dialect));
        m_excluded->addItem(item);
    }
    m_pick->setEnabled(!m_modules.empty());
    QStringList lines;
    if (!m_modules.empty())
        lines << tr("%1 of %2 modules matched, %3 unmatched, %4 excluded, %5 overlaps")
                     .arg(static_cast<int>(m_modules.size() - m_check.unmatched.size() - m_check.excluded.size()))
                     .arg(static_cast<int>(m_modules.size()))
                     .arg(static_cast<int>(m_check.unmatched.size()))
                     .arg(static_cast<int>(m_check.excluded.size()))
                     .arg(static_cast<int>(m_check.overlaps.size()));
    for (const auto &f : m_check.fusion)
        lines << tr("Fusion group %1: %2").arg(fromStd(f.group), coremessages::translated(f.message));
    m_summary->setText(lines.join(QLatin1Char('\n')));
    m_rebuilding = false;
    // Queued: an edit in the form arrives here from the form's own editor's signal.
    QMetaObject::invokeMethod(this, &RecipeEditor::syncSpecForm, Qt::QueuedConnection);
}

void RecipeEditor::cellEdited(int row, int column)
{
    if (m_rebuilding)
        return;
    const QString text = m_table->item(row, column) ? m_table->item(row, column)->text() : QString();
    switch (column) {
    case Name:
        setRuleName(row, text);
        break;
    case Patterns:
        setRulePatterns(row, text);
        break;
    case Specs:
        setRuleSpecs(row, text);
        break;
    default:
        break;
    }
}

} // namespace quantscope
