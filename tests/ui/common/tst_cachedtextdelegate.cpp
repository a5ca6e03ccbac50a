// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "common/CachedTextDelegate.h"

#include <QDir>
#include <QImage>
#include <QPainter>
#include <QStandardItemModel>
#include <QTableView>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk::Ui;

class TestCachedTextDelegate final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void drawsCellsAsTheStyleDoes_data();
    void drawsCellsAsTheStyleDoes();
    void sizeHintIsTheStyles_data();
    void sizeHintIsTheStyles();
    void shapesEachTextOnce();
    void cacheIsBounded();
    void textsInUseStayCached();
};

namespace {

struct Cell
{
    QString text;
    Qt::Alignment alignment = Qt::AlignLeft | Qt::AlignVCenter;
    QColor decoration;
    bool selected = false;
    bool focused = false;
    int width = 160;
};

// A one-cell model of `cell` in a view of the usual record-table setup, so the option is the one
// a table hands its delegate.
struct Fixture
{
    QTableView view;
    QStandardItemModel model {1, 1};

    explicit Fixture(const Cell &cell)
    {
        auto *item = new QStandardItem(cell.text);
        item->setTextAlignment(cell.alignment);
        if (cell.decoration.isValid())
            item->setData(cell.decoration, Qt::DecorationRole);
        model.setItem(0, 0, item);
        view.setModel(&model);
        view.setTextElideMode(Qt::ElideRight);
        view.setColumnWidth(0, cell.width);
        view.resize(400, 200);
    }

    QStyleOptionViewItem option(const Cell &cell) const
    {
        QStyleOptionViewItem option;
        option.initFrom(&view);
        option.widget = &view;
        option.rect = QRect(0, 0, cell.width, view.rowHeight(0));
        option.font = view.font();
        option.fontMetrics = view.fontMetrics();
        const int icon = view.style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, &view);
        option.decorationSize = QSize(icon, icon);
        option.showDecorationSelected = true;
        option.textElideMode = Qt::ElideRight;
        option.state |= QStyle::State_Enabled | QStyle::State_Active;
        if (cell.selected)
            option.state |= QStyle::State_Selected;
        if (cell.focused)
            option.state |= QStyle::State_HasFocus;
        return option;
    }

    QImage render(const QAbstractItemDelegate &delegate, const Cell &cell) const
    {
        const QStyleOptionViewItem cellOption = option(cell);
        QImage image(cellOption.rect.size(), QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        QPainter painter(&image);
        delegate.paint(&painter, cellOption, model.index(0, 0));
        painter.end();
        return image;
    }
};

} // namespace

Q_DECLARE_METATYPE(Cell)

namespace {

// The pixels where the two images differ by more than a rounding step in any channel.
int differingPixels(const QImage &a, const QImage &b)
{
    int count = 0;
    for (int y = 0; y < a.height(); ++y) {
        for (int x = 0; x < a.width(); ++x) {
            const QRgb p = a.pixel(x, y);
            const QRgb q = b.pixel(x, y);
            if (std::abs(qRed(p) - qRed(q)) > 2 || std::abs(qGreen(p) - qGreen(q)) > 2
                || std::abs(qBlue(p) - qBlue(q)) > 2)
                ++count;
        }
    }
    return count;
}

} // namespace

void TestCachedTextDelegate::drawsCellsAsTheStyleDoes_data()
{
    QTest::addColumn<Cell>("cell");
    QTest::newRow("text") << Cell {u"2026-11-29 10:41:07"_s};
    QTest::newRow("right-aligned number")
        << Cell {u"204"_s, Qt::AlignRight | Qt::AlignVCenter};
    QTest::newRow("centred") << Cell {u"Delivered"_s, Qt::AlignCenter};
    QTest::newRow("elided")
        << Cell {u"3f2c8a41-77c4-4e0c-9d0b-2f6a1c9e5b10 (+31)"_s, Qt::AlignLeft | Qt::AlignVCenter,
                 QColor(), false, false, 90};
    QTest::newRow("colour before the text")
        << Cell {u"Delivered"_s, Qt::AlignLeft | Qt::AlignVCenter, QColor(Qt::darkGreen)};
    QTest::newRow("selected") << Cell {u"sub0"_s, Qt::AlignLeft | Qt::AlignVCenter, QColor(), true};
    QTest::newRow("selected with focus")
        << Cell {u"sub0"_s, Qt::AlignLeft | Qt::AlignVCenter, QColor(Qt::red), true, true};
    QTest::newRow("two lines (the style's own path)")
        << Cell {u"first\nsecond"_s};
    QTest::newRow("markup is text") << Cell {u"<b>not bold</b>"_s};
    QTest::newRow("right to left script") << Cell {u"שלום עולם"_s};
}

void TestCachedTextDelegate::drawsCellsAsTheStyleDoes()
{
    QFETCH(Cell, cell);
    Fixture fixture(cell);
    const QStyledItemDelegate styled;
    const CachedTextDelegate cached;
    const QImage expected = fixture.render(styled, cell);
    // The cell has something to compare: its text differs from an empty cell's.
    Cell blank = cell;
    blank.text.clear();
    blank.decoration = QColor();
    QVERIFY(differingPixels(expected, Fixture(blank).render(styled, blank)) > 10);
    // Twice: the first draw shapes the text, the second draws it from the cache.
    QCOMPARE(differingPixels(fixture.render(cached, cell), expected), 0);
    // Drawn by the cache, except where the style must draw (several lines).
    const bool oneLine = !cell.text.contains(u'\n');
    QCOMPARE(cached.cachedTexts() > 0, oneLine);
    const QImage again = fixture.render(cached, cell);
    const int differing = differingPixels(again, expected);
    if (differing > 0) {
        expected.save(u"%1/styled-%2.png"_s.arg(QDir::tempPath(), QString::fromUtf8(QTest::currentDataTag()).replace(u' ', u'-')));
        again.save(u"%1/cached-%2.png"_s.arg(QDir::tempPath(), QString::fromUtf8(QTest::currentDataTag()).replace(u' ', u'-')));
    }
    QCOMPARE(differing, 0);
}

void TestCachedTextDelegate::sizeHintIsTheStyles_data()
{
    QTest::addColumn<Cell>("cell");
    QTest::newRow("short") << Cell {u"7"_s};
    QTest::newRow("time") << Cell {u"2026-11-29 10:41:07"_s};
    QTest::newRow("long") << Cell {u"UndeliverableDueToClientError"_s};
    QTest::newRow("with a colour")
        << Cell {u"Delivered"_s, Qt::AlignLeft | Qt::AlignVCenter, QColor(Qt::darkGreen)};
    QTest::newRow("empty") << Cell {QString()};
}

void TestCachedTextDelegate::sizeHintIsTheStyles()
{
    QFETCH(Cell, cell);
    Fixture fixture(cell);
    const QStyledItemDelegate styled;
    const CachedTextDelegate cached;
    const QStyleOptionViewItem option = fixture.option(cell);
    const QModelIndex index = fixture.model.index(0, 0);
    QCOMPARE(cached.sizeHint(option, index), styled.sizeHint(option, index));
    QCOMPARE(cached.sizeHint(option, index), styled.sizeHint(option, index));
}

void TestCachedTextDelegate::shapesEachTextOnce()
{
    QTableView view;
    QStandardItemModel model(30, 3);
    for (int row = 0; row < 30; ++row) {
        model.setItem(row, 0, new QStandardItem(u"row %1"_s.arg(row)));
        model.setItem(row, 1, new QStandardItem(u"sub0"_s)); // the same text on every row
        model.setItem(row, 2, new QStandardItem(u"Delivered"_s));
    }
    auto *delegate = new CachedTextDelegate(&view);
    view.setItemDelegate(delegate);
    view.setWordWrap(false); // as record tables are (wrapped text is the style's to draw)
    view.setModel(&model);
    view.resize(500, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.viewport()->repaint();
    const int afterFirst = delegate->cachedTexts();
    // 30 row texts, one subscription, one outcome (and no text twice).
    QCOMPARE(afterFirst, 32);
    view.viewport()->repaint();
    QCOMPARE(delegate->cachedTexts(), afterFirst);
}

void TestCachedTextDelegate::cacheIsBounded()
{
    Fixture fixture(Cell {u"x"_s});
    const CachedTextDelegate cached;
    Cell cell;
    for (int i = 0; i < CachedTextDelegate::MaximumCachedTexts + 10; ++i) {
        cell.text = QString::number(i);
        fixture.model.item(0, 0)->setText(cell.text);
        QImage image(cell.width, 30, QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&image);
        cached.paint(&painter, fixture.option(cell), fixture.model.index(0, 0));
    }
    QVERIFY(cached.cachedTexts() > 0);
    QVERIFY(cached.cachedTexts() <= CachedTextDelegate::MaximumCachedTexts);
}

void TestCachedTextDelegate::textsInUseStayCached()
{
    // A log following new attempts: every row a new event id, every row the same subscription.
    Fixture fixture(Cell {u"x"_s});
    const CachedTextDelegate cached;
    Cell cell;
    const auto draw = [&](const QString &text) {
        cell.text = text;
        fixture.model.item(0, 0)->setText(text);
        QImage image(cell.width, 30, QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&image);
        cached.paint(&painter, fixture.option(cell), fixture.model.index(0, 0));
    };
    for (int i = 0; i < 2 * CachedTextDelegate::MaximumCachedTexts; ++i) {
        draw(u"event %1"_s.arg(i));
        draw(u"sub0"_s);
    }
    QVERIFY(cached.isCached(u"sub0"_s));
    QVERIFY(cached.isCached(u"event %1"_s.arg(2 * CachedTextDelegate::MaximumCachedTexts - 1)));
    QVERIFY(!cached.isCached(u"event 0"_s));
    QVERIFY(cached.cachedTexts() <= CachedTextDelegate::MaximumCachedTexts);
}

QTEST_MAIN(TestCachedTextDelegate)
#include "tst_cachedtextdelegate.moc"
