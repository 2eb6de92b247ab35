// SPDX-License-Identifier: MIT
#pragma once
/// \file coremessages.h
/// What core writes for people (a refusal, a warning, a device note, a job step, a note on a
/// result) in the UI language. Core stays Qt-free and speaks English (the CLI's language); the
/// window passes every core-originated text through translated() before it shows it. A table of
/// core's message patterns (fixed text with %1… where core puts a value) maps each message to a
/// tr() string of the context "quantscope::CoreMessages"; the values are kept as core wrote them
/// (names, numbers), or translated themselves when they are a core message (a reason in a note).
/// A message made of parts ("tensor 'x': <reason>", "<note>; <note>", a scheme's "INT4 sym, per
/// channel, BF16 scales") is translated part by part.
/// A message the table does not know is shown in English (docs/architecture.md "Core messages in
/// the window"); tst_coremessages requires every message core/ can send to the window to be known.
#include <QString>
#include <QStringList>
#include <string>

namespace quantscope::coremessages {

/// `english` (a message of core's) in the UI language; itself when the table does not know it.
QString translated(const QString &english);
QString translated(const std::string &english);
/// Whether the table covers the whole of `english` (every part of it).
bool known(const QString &english);
/// The table's patterns, English with %1… (for the tests).
QStringList patterns();

} // namespace quantscope::coremessages
