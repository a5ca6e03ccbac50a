// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QFont>
#include <QHash>
#include <QStaticText>
#include <QStyledItemDelegate>

namespace EventDesk::Ui {

// A delegate for tables of records (one line of plain text per cell, maybe a colour or an icon
// before it) that draws each distinct text once shaped and then from a cache.
//
// QStyledItemDelegate lays every cell's text out again at every paint (QTextLayout, HarfBuzz):
// about 25 µs a cell, 10 ms for one screen of the delivery log, repeated at every refresh while
// the log follows new attempts. Here a cell's text is shaped the first time it is drawn
// (QStaticText) and drawn from the cache afterwards; the panel, the selection, the icon and the
// focus frame are still the style's, in the rectangles the style gives. A cell this path cannot
// draw exactly as the style would (a check box, several lines, word wrap) is handed to
// QStyledItemDelegate.
class CachedTextDelegate : public QStyledItemDelegate
{
    Q_OBJECT

public:
    // Distinct texts kept: the texts drawn since the cache last filled up, and those drawn before
    // that (a log's ids come and go; its subscription names and outcomes stay).
    static constexpr int MaximumCachedTexts = 4096;

    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    // Texts shaped so far and still cached (for tests).
    int cachedTexts() const { return int(m_texts.size() + m_olderTexts.size()); }
    bool isCached(const QString &text) const
    {
        return m_texts.contains(text) || m_olderTexts.contains(text);
    }

private:
    struct Shaped
    {
        QStaticText text;
        qreal width = 0;
        int advance = 0; // QFontMetrics::horizontalAdvance(): what elision is decided on
        qreal height = 0;
        // The text elided for the last width it did not fit (columns keep their width).
        mutable int elidedWidth = -1;
        mutable Qt::TextElideMode elidedMode = Qt::ElideRight;
        mutable QString elided;
    };
    // Where the style puts a cell's decoration, text and focus frame, relative to the cell. The
    // style computes them with a layout of the text (which is what this delegate avoids), but
    // they depend on the cell's size and decoration only: asked once per shape of cell.
    struct Layout
    {
        QSize size;
        bool decorated = false;
        QSize decorationSize;
        int decorationPosition = 0;
        int decorationAlignment = 0;
        Qt::LayoutDirection direction = Qt::LeftToRight;
        const QStyle *style = nullptr;
        QRect decoration;
        QRect text;
        QRect focus;
    };
    static bool drawsLikeTheStyle(const QStyleOptionViewItem &option);
    const Shaped &shaped(const QString &text, const QFont &font) const;
    const Layout &layout(const QStyleOptionViewItem &option, const QStyle *style) const;

    mutable QFont m_font; // the font the cached texts were shaped in
    mutable QHash<QString, Shaped> m_texts; // at most MaximumCachedTexts / 2
    mutable QHash<QString, Shaped> m_olderTexts; // the previous m_texts
    mutable QList<Layout> m_layouts;
};

} // namespace EventDesk::Ui
