// SPDX-License-Identifier: MIT
#pragma once
/// \file recipeeditor.h
/// The Recipe tab: the rules of a recipe as a table (name, dialect, patterns, specs) with undo and
/// redo of every change (QUndoStack; each step keeps the whole recipe before and after, so undo
/// restores the rules exactly), and live columns against the opened checkpoint's modules: the
/// modules each rule wins (the first matching rule wins; an exclude entry wins over every rule)
/// and those it matches but loses to an earlier rule, the modules no rule matches, and the
/// fusion groups whose members resolve to different specs (core/recipe/recipe_check.h). The
/// exclusions are a list below the rules: **Exclude modules…** picks them from the opened
/// checkpoint's modules (filtered by name), each an exact-name entry. Export hands the recipe's
/// JSON to the Export tab.
#include <QWidget>

#include "recipe/recipe.h"
#include "recipe/recipe_check.h"

class QComboBox;
class QDialog;
class QLabel;
class QListWidget;
class QPushButton;
class QTableWidget;
class QUndoStack;

namespace quantscope {

class ElidedLabel;
class SpecForm;

class RecipeEditor : public QWidget {
    Q_OBJECT
public:
    enum Column { Name, Dialect, Patterns, Specs, Wins, Loses, ColumnCount };
    explicit RecipeEditor(QWidget *parent = nullptr);

    /// The modules the live columns count against (module names, checkpoint order).
    void setModules(const std::vector<std::string> &modules);
    /// Replaces the recipe as one undoable step.
    void setRecipe(const Recipe &recipe);
    const Recipe &recipe() const { return m_recipe; }

    // Edits, each one undoable step; false (and the reason in the status line) when the result
    // is not a valid recipe, which leaves the recipe as it was.
    void addRule();
    bool removeRule(int rule);
    bool moveRule(int rule, int delta);
    bool setRuleName(int rule, const QString &name);
    bool setRuleDialect(int rule, PatternDialect dialect);
    /// Patterns separated by whitespace.
    bool setRulePatterns(int rule, const QString &patterns);
    /// A JSON array of spec objects (or one object).
    bool setRuleSpecs(int rule, const QString &json);
    /// Spec `index` of `rule` (what the spec form below the table edits).
    bool setRuleSpec(int rule, int index, const nlohmann::json &spec);
    /// Adds the default INT spec to `rule` / removes its spec `index` (a rule keeps one at least).
    bool addRuleSpec(int rule);
    bool removeRuleSpec(int rule, int index);
    /// Excludes `patterns` (module names, or patterns of `dialect`) in one undoable step; those
    /// already excluded are skipped.
    bool addExclusions(const QStringList &patterns, PatternDialect dialect = PatternDialect::Exact);
    bool removeExclusion(int index);
    /// The picker of the opened checkpoint's modules (a non-modal dialog; OK excludes the
    /// selected ones). Returns the dialog (for tests), nullptr without modules.
    QDialog *pickExclusions();

    /// Modules rule `r` wins / matches but loses to an earlier rule (last check).
    int wins(int rule) const;
    int loses(int rule) const;
    const RecipeCheck &check() const { return m_check; }

    QUndoStack *undoStack() const { return m_undo; }
    QTableWidget *table() const { return m_table; }
    QListWidget *exclusionList() const { return m_excluded; }
    /// The form of the selected rule's spec (the table's Specs column is its read-only summary).
    SpecForm *specForm() const { return m_specForm; }
    /// Which of the selected rule's specs the form shows.
    QComboBox *specChoice() const { return m_specPick; }
    /// Shows spec `index` of `rule` in the form.
    void editSpec(int rule, int index = 0);
    QLabel *status() const { return m_status; }
    QPushButton *exportButton() const { return m_export; }

    /// Sets the recipe without an undo step (the undo commands).
    void applyRecipe(const Recipe &recipe);

signals:
    /// Export: the recipe's canonical JSON.
    void exportRequested(const QString &json);

private:
    bool commit(Recipe next, const QString &what);
    void rebuild();
    void cellEdited(int row, int column);
    QString patternsText(const RecipeRule &r) const;
    QString specsText(const RecipeRule &r) const;
    /// The form and its choice follow the recipe (after an edit, undo or redo).
    void syncSpecForm();

    Recipe m_recipe;
    std::vector<std::string> m_modules;
    RecipeCheck m_check;
    QTableWidget *m_table = nullptr;
    QListWidget *m_excluded = nullptr;
    SpecForm *m_specForm = nullptr;
    QComboBox *m_specPick = nullptr;
    ElidedLabel *m_specTitle = nullptr;
    int m_specRule = -1, m_specIndex = 0;
    QPushButton *m_pick = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_status = nullptr;
    QPushButton *m_export = nullptr;
    QUndoStack *m_undo = nullptr;
    bool m_rebuilding = false;
};

} // namespace quantscope
