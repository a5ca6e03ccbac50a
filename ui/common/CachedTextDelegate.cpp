// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "CachedTextDelegate.h"

#include <QApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QStyle>
#include <QStyleOptionFocusRect>

#include <cmath>
#include <utility>

namespace EventDesk::Ui {

namespace {

QPalette::ColorGroup colorGroup(const QStyleOptionViewItem &option)
{
    if (!(option.state & QStyle::State_Enabled))
        return QPalette::Disabled;
    return option.state & QStyle::State_Active ? QPalette::Normal : QPalette::Inactive;
}

} // namespace

bool CachedTextDelegate::drawsLikeTheStyle(const QStyleOptionViewItem &option)
{
    if (option.features & (QStyleOptionViewItem::HasCheckIndicator | QStyleOptionViewItem::WrapText))
        return false;
    if (option.state & QStyle::State_Editing)
        return false;
    // One line: the style draws a line separator or a newline as a line break.
    for (const QChar c : option.text) {
        if (c == u'\n' || c == QChar::LineSeparator)
            return false;
    }
    return true;
}

const CachedTextDelegate::Shaped &CachedTextDelegate::shaped(const QString &text,
                                                             const QFont &font) const
{
    if (font != m_font) {
        m_texts.clear();
        m_olderTexts.clear();
        m_font = font;
    }
    if (const auto found = m_texts.constFind(text); found != m_texts.cend())
        return *found;
    if (m_texts.size() >= MaximumCachedTexts / 2) {
        // What was not drawn since the last time is dropped; what was, is kept.
        m_olderTexts = std::exchange(m_texts, {});
    }
    if (const auto older = m_olderTexts.constFind(text); older != m_olderTexts.cend())
        return *m_texts.insert(text, *older);
    Shaped entry;
    entry.text.setText(text);
    entry.text.setTextFormat(Qt::PlainText); // never guessed as rich text
    entry.text.setPerformanceHint(QStaticText::AggressiveCaching);
    // One shaping per text: the layout prepared here gives the advance too (the one
    // QFontMetrics would give by shaping it again, in whole pixels: rounded).
    entry.text.prepare(QTransform(), font);
    entry.width = entry.text.size().width();
    entry.advance = qRound(entry.width);
    entry.height = QFontMetricsF(font).height();
    return *m_texts.insert(text, std::move(entry));
}

const CachedTextDelegate::Layout &CachedTextDelegate::layout(const QStyleOptionViewItem &option,
                                                             const QStyle *style) const
{
    const bool decorated = option.features & QStyleOptionViewItem::HasDecoration;
    for (const Layout &known : std::as_const(m_layouts)) {
        if (known.size == option.rect.size() && known.decorated == decorated
            && known.decorationSize == option.decorationSize
            && known.decorationPosition == option.decorationPosition
            && known.decorationAlignment == int(option.decorationAlignment)
            && known.direction == option.direction && known.style == style)
            return known;
    }
    // Columns times the shapes of their cells: a handful. Resizing a column makes new ones.
    constexpr qsizetype MaximumLayouts = 64;
    if (m_layouts.size() >= MaximumLayouts)
        m_layouts.clear();
    const QPoint origin = option.rect.topLeft();
    Layout layout;
    layout.size = option.rect.size();
    layout.decorated = decorated;
    layout.decorationSize = option.decorationSize;
    layout.decorationPosition = option.decorationPosition;
    layout.decorationAlignment = int(option.decorationAlignment);
    layout.direction = option.direction;
    layout.style = style;
    const QWidget *widget = option.widget;
    layout.decoration = style->subElementRect(QStyle::SE_ItemViewItemDecoration, &option, widget)
                            .translated(-origin);
    layout.text = style->subElementRect(QStyle::SE_ItemViewItemText, &option, widget)
                      .translated(-origin);
    layout.focus = style->subElementRect(QStyle::SE_ItemViewItemFocusRect, &option, widget)
                       .translated(-origin);
    m_layouts.append(layout);
    return m_layouts.constLast();
}

void CachedTextDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                               const QModelIndex &index) const
{
    QStyleOptionViewItem item = option;
    initStyleOption(&item, index);
    if (!drawsLikeTheStyle(item)) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    const QWidget *widget = item.widget;
    const QStyle *style = widget ? widget->style() : QApplication::style();

    painter->save();
    painter->setClipRect(item.rect);
    style->drawPrimitive(QStyle::PE_PanelItemViewItem, &item, painter, widget);

    const Layout &cell = layout(item, style);
    const QPoint origin = item.rect.topLeft();
    if (item.features & QStyleOptionViewItem::HasDecoration) {
        const QRect iconRect = cell.decoration.translated(origin);
        QIcon::Mode mode = QIcon::Normal;
        if (!(item.state & QStyle::State_Enabled))
            mode = QIcon::Disabled;
        else if (item.state & QStyle::State_Selected)
            mode = QIcon::Selected;
        const QIcon::State state = item.state & QStyle::State_Open ? QIcon::On : QIcon::Off;
        item.icon.paint(painter, iconRect, item.decorationAlignment, mode, state);
    }

    if (!item.text.isEmpty()) {
        QRect textRect = cell.text.translated(origin);
        // The style keeps the text a focus-frame margin away from either side.
        const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 1;
        textRect.adjust(margin, 0, -margin, 0);
        const Shaped *text = &shaped(item.text, item.font);
        // The same test as ElidedTextToolTipDelegate::isElided(), in whole pixels.
        if (text->advance > textRect.width()) {
            if (text->elidedWidth != textRect.width() || text->elidedMode != item.textElideMode) {
                text->elided = QFontMetrics(item.font).elidedText(item.text, item.textElideMode,
                                                                  textRect.width());
                text->elidedWidth = textRect.width();
                text->elidedMode = item.textElideMode;
            }
            const QString elided = text->elided; // shaped() may rehash the cache
            text = &shaped(elided, item.font);
        }
        const Qt::Alignment alignment = QStyle::visualAlignment(item.direction, item.displayAlignment);
        qreal x = textRect.left();
        if (alignment & Qt::AlignRight)
            x = textRect.left() + textRect.width() - text->width;
        else if (alignment & Qt::AlignHCenter)
            x = textRect.left() + (textRect.width() - text->width) / 2;
        const int lineHeight = int(std::ceil(text->height));
        int y = textRect.top();
        if (alignment & Qt::AlignBottom)
            y = textRect.bottom() + 1 - lineHeight;
        else if (alignment & Qt::AlignVCenter)
            y = textRect.top() + (textRect.height() - lineHeight) / 2;
        painter->setFont(item.font);
        painter->setPen(item.palette.color(colorGroup(item), item.state & QStyle::State_Selected
                                                                 ? QPalette::HighlightedText
                                                                 : QPalette::Text));
        painter->drawStaticText(QPointF(x, y), text->text);
    }

    if (item.state & QStyle::State_HasFocus) {
        QStyleOptionFocusRect focus;
        focus.QStyleOption::operator=(item);
        focus.rect = cell.focus.translated(origin);
        focus.state |= QStyle::State_KeyboardFocusChange | QStyle::State_Item;
        focus.backgroundColor = item.palette.color(
            colorGroup(item),
            item.state & QStyle::State_Selected ? QPalette::Highlight : QPalette::Window);
        style->drawPrimitive(QStyle::PE_FrameFocusRect, &focus, painter, widget);
    }
    painter->restore();
}

QSize CachedTextDelegate::sizeHint(const QStyleOptionViewItem &option,
                                   const QModelIndex &index) const
{
    if (const QVariant size = index.data(Qt::SizeHintRole); size.isValid())
        return size.toSize();
    QStyleOptionViewItem item = option;
    initStyleOption(&item, index);
    if (!drawsLikeTheStyle(item) || item.text.isEmpty())
        return QStyledItemDelegate::sizeHint(option, index);
    // The style's hint is its hint without the text, widened by the text's advance: measured
    // once per distinct text instead of laid out at every call.
    const QWidget *widget = item.widget;
    const QStyle *style = widget ? widget->style() : QApplication::style();
    const qreal textWidth = shaped(item.text, item.font).width;
    item.text.clear();
    QSize hint = style->sizeFromContents(QStyle::CT_ItemViewItem, &item, QSize(), widget);
    hint.rwidth() += int(std::ceil(textWidth));
    return hint;
}

} // namespace EventDesk::Ui
