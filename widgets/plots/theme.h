// SPDX-License-Identifier: MIT
#pragma once
/// \file theme.h
/// Light and dark palettes and the colours the plots use, chosen from the widget's palette so
/// that a palette change recolours everything.
#include <QColor>
#include <QPalette>
#include <QString>

namespace quantscope::theme {

enum class Mode { System, Light, Dark };

/// True when the palette's window colour is dark.
bool isDark(const QPalette &palette);
/// Applies a mode to the whole application (Fusion style for Light/Dark so the palette holds).
void apply(Mode mode);
Mode modeFromString(const QString &s);
QString toString(Mode mode);

/// The original tensor W.
QColor weightColor(const QPalette &palette);
/// Configuration `index` (A, B, C, D, …).
QColor configColor(int index, const QPalette &palette);
/// Highlighted outliers and warnings.
QColor accentColor(const QPalette &palette);
/// The paired activation.
QColor activationColor(const QPalette &palette);

} // namespace quantscope::theme
