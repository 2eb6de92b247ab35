// SPDX-License-Identifier: MIT
#pragma once
/// \file languageswitch.h
/// The UI language, switched while the window is open (issue 42). One recording translator is
/// installed in the application: it answers from the chosen language's .qm and remembers which
/// source (context, text, plural count) every answer came from. On a switch, a text a widget
/// shows is looked up there (exactly, or as a "%1 of %2" template with its arguments) and
/// translated again, so labels, buttons, menus, tabs, tooltips, item texts, plot axes and log
/// lines change at once without each widget rebuilding itself. Widgets holding text of their
/// own (ElidedLabel's full text, a plot's axes) pass it through retranslated() on
/// QEvent::LanguageChange.
#include <QString>

class QObject;
class QWidget;

namespace quantscope::language {

/// Installs the translators for `code` ("" = the system's language, "en", "de", "zh_CN"),
/// replacing the ones installed before, and sets the default QLocale to it. Qt then sends
/// QEvent::LanguageChange to every window. Returns false when `code` has no translation (then
/// English is used).
bool apply(const QString &code);
/// The language apply() was last given ("" = the system's).
QString current();
/// The languages the Language menu offers: code and own name ("Deutsch", "中文").
struct Choice {
    QString code;
    QString name;
};
QList<Choice> choices();

/// `shown` (a text the translator produced in an earlier language, possibly with arguments
/// filled in) in the current language; `shown` itself when it is not a translated text.
/// `owner` picks among sources with the same text: the one whose context is owner's class or
/// an ancestor's.
QString retranslated(const QString &shown, const QObject *owner = nullptr);
/// Re-sets every translated text of `root` and its children (window titles, labels, buttons,
/// group boxes, placeholders, tooltips, combo items, tabs, menus, actions, item widgets,
/// standard item models, the status bar's message) and repaints item views, whose models
/// translate in data().
void retranslateTree(QWidget *root);

} // namespace quantscope::language
