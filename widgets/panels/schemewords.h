// SPDX-License-Identifier: MIT
#pragma once
/// \file schemewords.h
/// A ggml block type's scheme in words, in the UI language: core's English
/// (ggml::schemeText after the name, "super-blocks of 256, 8 sub-blocks of 32, 6-bit scales and mins …")
/// translated, after the type's name ("Q4_K: …"). The Distribution and Numbers views show it for
/// a tensor of a GGUF file, the type it is stored in.
#include "ggml/ggml_types.h"

#include <QHash>
#include <QString>
#include <memory>

namespace quantscope {

class Checkpoint;

namespace schemewords {

/// "Q4_K: super-blocks of 256, …" in the UI language (the English when a text has no entry).
QString schemeText(ggml::Type t);
/// Whether the window's table holds core's words of `t` (so that they are translated).
bool translated(ggml::Type t);
/// Each block-typed tensor of a GGUF checkpoint, under its GGUF and its HF name → its stored
/// scheme in words ("Stored as Q4_K: …"); empty for another checkpoint (or none).
QHash<QString, QString> storedSchemes(const std::shared_ptr<const Checkpoint> &checkpoint);

} // namespace schemewords
} // namespace quantscope
