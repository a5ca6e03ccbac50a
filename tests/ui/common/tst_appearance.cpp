// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "common/Appearance.h"
#include "common/Format.h"

#include <QApplication>
#include <QStyle>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Ui;

class TestAppearance final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parsesSchemeNames();
    void darkPaletteIsReadable();
    void outcomeColoursStayReadableOnDark_data();
    void outcomeColoursStayReadableOnDark();
    void applyingASchemeSetsTheApplicationPalette();
};

void TestAppearance::parsesSchemeNames()
{
    QCOMPARE(parseColorScheme(u"system"_s), ColorScheme::System);
    QCOMPARE(parseColorScheme(u"light"_s), ColorScheme::Light);
    QCOMPARE(parseColorScheme(u"dark"_s), ColorScheme::Dark);
    QVERIFY(!parseColorScheme(u"Dark "_s));
    QVERIFY(!parseColorScheme(QString()));
}

void TestAppearance::darkPaletteIsReadable()
{
    const QPalette dark = darkPalette();
    QVERIFY(isDark(dark));
    QVERIFY(!isDark(QApplication::style()->standardPalette()));
    QVERIFY(contrastRatio(dark.color(QPalette::Text), dark.color(QPalette::Base)) >= 7.0);
    QVERIFY(contrastRatio(dark.color(QPalette::WindowText), dark.color(QPalette::Window)) >= 7.0);
    QVERIFY(contrastRatio(dark.color(QPalette::HighlightedText), dark.color(QPalette::Highlight))
            >= 4.5);
    QVERIFY(contrastRatio(dark.color(QPalette::PlaceholderText), dark.color(QPalette::Base))
            >= 4.5);
    // Disabled text is dimmer than enabled text, but still there.
    const double disabled
        = contrastRatio(dark.color(QPalette::Disabled, QPalette::Text), dark.color(QPalette::Base));
    QVERIFY(disabled > 2.0);
    QVERIFY(disabled < contrastRatio(dark.color(QPalette::Text), dark.color(QPalette::Base)));
    QCOMPARE(contrastRatio(Qt::black, Qt::white), 21.0);
}

void TestAppearance::outcomeColoursStayReadableOnDark_data()
{
    QTest::addColumn<DeliveryOutcome>("outcome");
    for (const DeliveryOutcome outcome :
         {DeliveryOutcome::Delivered, DeliveryOutcome::Busy, DeliveryOutcome::BadRequest,
          DeliveryOutcome::SocketError, DeliveryOutcome::Canceled})
        QTest::newRow(qPrintable(deliveryOutcomeName(outcome))) << outcome;
}

void TestAppearance::outcomeColoursStayReadableOnDark()
{
    QFETCH(DeliveryOutcome, outcome);
    const QPalette light = QApplication::style()->standardPalette();
    QCOMPARE(outcomeColor(outcome, light), outcomeColor(outcome)); // light palettes: as designed
    const QPalette dark = darkPalette();
    const QColor onDark = outcomeColor(outcome, dark);
    QVERIFY2(contrastRatio(onDark, dark.color(QPalette::Base)) >= 4.5, qPrintable(onDark.name()));
    // The same hue family: it is the same colour, lighter.
    if (outcomeColor(outcome).hslSaturationF() > 0.1)
        QVERIFY(std::abs(onDark.hslHueF() - outcomeColor(outcome).hslHueF()) < 0.02);
}

void TestAppearance::applyingASchemeSetsTheApplicationPalette()
{
    const QPalette before = QApplication::palette();
    applyColorScheme(ColorScheme::Dark);
    QVERIFY(isDark(QApplication::palette()));
    QCOMPARE(QApplication::palette().color(QPalette::Base), darkPalette().color(QPalette::Base));
    QCOMPARE(QApplication::style()->name(), u"fusion"_s);
    applyColorScheme(ColorScheme::Light);
    QVERIFY(!isDark(QApplication::palette()));
    // The offscreen platform is light and asks for nothing else: System gives its palette back.
    QCOMPARE(systemColorScheme(), ColorScheme::Light);
    applyColorScheme(ColorScheme::System);
    QCOMPARE(QApplication::palette().color(QPalette::Window), before.color(QPalette::Window));
}

QTEST_MAIN(TestAppearance)
#include "tst_appearance.moc"
