// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "rules/DeliveryOutcome.h"

#include <QColor>
#include <QPalette>
#include <QString>

#include <optional>

namespace EventDesk::Ui {

// Light or dark: the app follows the system's colour scheme unless told otherwise
// (eventdesk --color-scheme). The views draw their hand-picked colours (charts, badges, the
// probation timeline) from the palette, so they follow too.
enum class ColorScheme { System, Light, Dark };

// "system", "light" or "dark"; nullopt for anything else.
std::optional<ColorScheme> parseColorScheme(const QString &name);
// What the system asks for: the style hints' colour scheme where Qt has it (6.5 and later),
// otherwise the lightness of the platform's window colour.
ColorScheme systemColorScheme();
// Dark when the window colour is: what the views ask before they pick colours.
bool isDark(const QPalette &palette);
// A dark palette for the Fusion style, used when the system asks for dark but its platform
// theme gives Qt a light palette, and for --color-scheme dark.
QPalette darkPalette();
// Applies the scheme to the application (style and palette). System keeps the platform's
// palette when it already matches the system's scheme.
void applyColorScheme(ColorScheme scheme);

// An outcome's colour (outcomeColor()) adjusted to stay readable on the palette's base colour:
// lighter on dark palettes.
QColor outcomeColor(DeliveryOutcome outcome, const QPalette &palette);
// WCAG contrast ratio of two colours (1 to 21).
double contrastRatio(const QColor &first, const QColor &second);

} // namespace EventDesk::Ui
