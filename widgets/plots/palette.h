// SPDX-License-Identifier: MIT
#pragma once
/// \file palette.h
/// What theme.h's configuration colours come with (issue 42): how many there are, a marker of
/// its own for each, and the light palette exported plots are drawn in.
#include <QPalette>
#include <qcustomplot.h>

namespace quantscope::theme {

/// How many configuration colours (theme::configColor) and markers there are before they repeat.
inline constexpr int kConfigColors = 8;
/// Configuration or family `index`'s marker: a shape of its own for each of the eight, so that
/// colour is never the only cue.
QCPScatterStyle::ScatterShape configMarker(int index);
/// The light palette exported plots are drawn in, whatever the window's theme.
QPalette printPalette();

} // namespace quantscope::theme
