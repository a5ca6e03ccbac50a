// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "Appearance.h"

#include "Format.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>
#include <QStyleHints>

#include <cmath>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

double relativeLuminance(const QColor &color)
{
    const auto channel = [](double value) {
        return value <= 0.03928 ? value / 12.92 : std::pow((value + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF())
        + 0.0722 * channel(color.blueF());
}

// The palette the platform gave the application before applyColorScheme() changed it.
QPalette &platformPalette()
{
    static QPalette palette = QApplication::palette();
    return palette;
}

} // namespace

std::optional<ColorScheme> parseColorScheme(const QString &name)
{
    if (name == u"system")
        return ColorScheme::System;
    if (name == u"light")
        return ColorScheme::Light;
    if (name == u"dark")
        return ColorScheme::Dark;
    return std::nullopt;
}

ColorScheme systemColorScheme()
{
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
    switch (QGuiApplication::styleHints()->colorScheme()) {
    case Qt::ColorScheme::Dark:
        return ColorScheme::Dark;
    case Qt::ColorScheme::Light:
        return ColorScheme::Light;
    case Qt::ColorScheme::Unknown:
        break;
    }
#endif
    // Qt 6.4 has no colour-scheme hint: a platform theme that is dark gives a dark palette.
    return isDark(platformPalette()) ? ColorScheme::Dark : ColorScheme::Light;
}

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightnessF() < 0.5;
}

QPalette darkPalette()
{
    const QColor window(0x2b, 0x2d, 0x30);
    const QColor base(0x1e, 0x1f, 0x22);
    const QColor alternateBase(0x26, 0x28, 0x2b);
    const QColor text(0xe6, 0xe6, 0xe6);
    const QColor disabledText(0x80, 0x82, 0x86);
    const QColor button(0x36, 0x38, 0x3c);
    const QColor highlight(0x2f, 0x6f, 0xc4); // white text on it: 5:1
    QPalette palette;
    palette.setColor(QPalette::Window, window);
    palette.setColor(QPalette::WindowText, text);
    palette.setColor(QPalette::Base, base);
    palette.setColor(QPalette::AlternateBase, alternateBase);
    palette.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3c, 0x40));
    palette.setColor(QPalette::ToolTipText, text);
    palette.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9c, 0xa0));
    palette.setColor(QPalette::Text, text);
    palette.setColor(QPalette::Button, button);
    palette.setColor(QPalette::ButtonText, text);
    palette.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    palette.setColor(QPalette::Light, QColor(0x4a, 0x4c, 0x50));
    palette.setColor(QPalette::Midlight, QColor(0x40, 0x42, 0x46));
    palette.setColor(QPalette::Mid, QColor(0x33, 0x35, 0x38));
    palette.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    palette.setColor(QPalette::Shadow, QColor(0x0c, 0x0c, 0x0d));
    palette.setColor(QPalette::Highlight, highlight);
    palette.setColor(QPalette::HighlightedText, Qt::white);
    palette.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    palette.setColor(QPalette::LinkVisited, QColor(0xc3, 0x9b, 0xff));
    for (const QPalette::ColorRole role :
         {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        palette.setColor(QPalette::Disabled, role, disabledText);
    palette.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x4a, 0x4c, 0x50));
    return palette;
}

void applyColorScheme(ColorScheme scheme)
{
    platformPalette(); // remember it before it is replaced
    if (scheme == ColorScheme::System) {
        const bool wantDark = systemColorScheme() == ColorScheme::Dark;
        if (wantDark == isDark(platformPalette())) {
            // An empty palette resolves against the platform's and is not "set by the
            // application", so Qt keeps following the platform theme when it changes.
            QApplication::setPalette(QPalette());
            return;
        }
        scheme = wantDark ? ColorScheme::Dark : ColorScheme::Light;
    }
    // Fusion draws every control from the palette, so both schemes look complete in it.
    if (QStyle *fusion = QStyleFactory::create(u"Fusion"_s))
        QApplication::setStyle(fusion);
    QApplication::setPalette(
        scheme == ColorScheme::Dark ? darkPalette() : QApplication::style()->standardPalette());
}

QColor outcomeColor(DeliveryOutcome outcome, const QPalette &palette)
{
    const QColor color = outcomeColor(outcome);
    if (!isDark(palette))
        return color;
    // The same hue, lighter, until it reads on the dark base (at least 4.5:1 where possible).
    QColor lighter = color;
    const QColor base = palette.color(QPalette::Base);
    for (int step = 0; step < 10 && contrastRatio(lighter, base) < 4.5; ++step)
        lighter = QColor::fromHslF(lighter.hslHueF(), lighter.hslSaturationF(),
                                   std::min(1.0f, lighter.lightnessF() + 0.05f));
    return lighter;
}

double contrastRatio(const QColor &first, const QColor &second)
{
    const double a = relativeLuminance(first);
    const double b = relativeLuminance(second);
    return (std::max(a, b) + 0.05) / (std::min(a, b) + 0.05);
}

} // namespace EventDesk::Ui
