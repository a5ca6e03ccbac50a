// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "ColumnFitter.h"

#include <QAbstractItemView>
#include <QHeaderView>
#include <QHelpEvent>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QToolTip>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

QStyleOptionViewItem optionFor(const QAbstractItemView *view, const QModelIndex &index)
{
    QStyleOptionViewItem option;
    option.initFrom(view);
    option.rect = view->visualRect(index);
    option.font = view->font();
    option.fontMetrics = view->fontMetrics();
    const int iconSize = view->style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, view);
    option.decorationSize
        = view->iconSize().isValid() ? view->iconSize() : QSize(iconSize, iconSize);
    option.showDecorationSelected = true;
    option.textElideMode = view->textElideMode();
    option.features |= QStyleOptionViewItem::HasDisplay;
    return option;
}

// initStyleOption() is protected; this plain delegate computes the text and decoration the
// view's delegate draws.
class OptionDelegate final : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::initStyleOption;
};

bool elided(const QAbstractItemView *view, QStyleOptionViewItem option, const QModelIndex &index)
{
    if (!index.isValid() || option.rect.isEmpty())
        return false;
    const OptionDelegate delegate;
    delegate.initStyleOption(&option, index);
    if (option.text.isEmpty())
        return false;
    const QStyle *style = view->style();
    const QRect textRect = style->subElementRect(QStyle::SE_ItemViewItemText, &option, view);
    // The style draws the text inside a focus-frame margin on either side (QCommonStyle).
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1;
    const QString firstLine = option.text.section(QChar::LineSeparator, 0, 0).section(u'\n', 0, 0);
    return option.fontMetrics.horizontalAdvance(firstLine) > textRect.width() - 2 * margin
        || firstLine.size() < option.text.size();
}

} // namespace

bool ElidedTextToolTipDelegate::isElided(const QAbstractItemView *view, const QModelIndex &index)
{
    return elided(view, optionFor(view, index), index);
}

QString ElidedTextToolTipDelegate::toolTip(const QAbstractItemView *view, const QModelIndex &index)
{
    const QString own = index.data(Qt::ToolTipRole).toString();
    if (!isElided(view, index))
        return own;
    const QString text = index.data(Qt::DisplayRole).toString();
    return own.isEmpty() || own == text ? text : text + u'\n' + own;
}

bool ElidedTextToolTipDelegate::helpEvent(QHelpEvent *event, QAbstractItemView *view,
                                          const QStyleOptionViewItem &option,
                                          const QModelIndex &index)
{
    if (event->type() != QEvent::ToolTip || !view || !index.isValid())
        return CachedTextDelegate::helpEvent(event, view, option, index);
    const QString text = toolTip(view, index);
    if (text.isEmpty()) {
        QToolTip::hideText();
        event->ignore();
        return false;
    }
    QToolTip::showText(event->globalPos(), text, view, option.rect);
    return true;
}

ColumnFitter::ColumnFitter(QTableView *view, int maximumCharacters)
    : QObject(view)
    , m_view(view)
    , m_maximumWidth(view->fontMetrics().horizontalAdvance(QString(maximumCharacters, u'n')))
{
    view->setItemDelegate(new ElidedTextToolTipDelegate(view));
    view->setTextElideMode(Qt::ElideRight);
    QHeaderView *header = view->horizontalHeader();
    // Measure the rows in view only: a log may hold hundreds of thousands of rows.
    header->setResizeContentsPrecision(0);
    connect(header, &QHeaderView::sectionResized, this, [this, header](int column, int, int) {
        // Resizes not made by fit() are the user's (the header is Interactive); the stretched last
        // section follows the window instead.
        if (!m_fitting && column != header->count() - 1)
            m_userSized.insert(column);
    });
    m_fitTimer = new QTimer(this);
    m_fitTimer->setSingleShot(true);
    connect(m_fitTimer, &QTimer::timeout, this, &ColumnFitter::fit);
    view->installEventFilter(this);
    if (QAbstractItemModel *model = view->model()) {
        connect(model, &QAbstractItemModel::rowsInserted, this, &ColumnFitter::scheduleFit);
        connect(model, &QAbstractItemModel::modelReset, this, &ColumnFitter::scheduleFit);
        connect(model, &QAbstractItemModel::layoutChanged, this, &ColumnFitter::scheduleFit);
    }
    scheduleFit();
}

void ColumnFitter::scheduleFit()
{
    if (m_fitTimer->isActive())
        return;
    // After the view has laid out the new rows (many rows arrive in one page), and not more
    // often than every MinimumIntervalMs while rows keep arriving.
    const qint64 since = m_sinceFit.isValid() ? m_sinceFit.elapsed() : MinimumIntervalMs;
    m_fitTimer->start(int(std::max<qint64>(0, MinimumIntervalMs - since)));
}

bool ColumnFitter::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view && event->type() == QEvent::Show && m_fitWhenShown)
        scheduleFit();
    return QObject::eventFilter(watched, event);
}

void ColumnFitter::fit()
{
    m_fitTimer->stop();
    // A hidden QTableView measures every row of the model for sizeHintForColumn(), however many.
    m_fitWhenShown = !m_view->isVisible();
    if (m_fitWhenShown)
        return;
    m_sinceFit.start();
    const QAbstractItemModel *model = m_view->model();
    if (!model || model->rowCount() == 0)
        return;
    QHeaderView *header = m_view->horizontalHeader();
    const int last = header->count() - 1;
    m_fitting = true;
    for (int column = 0; column < header->count(); ++column) {
        if (m_userSized.contains(column) || header->isSectionHidden(column))
            continue;
        if (column == last && header->stretchLastSection())
            continue;
        // QTableView makes sizeHintForColumn() protected; QAbstractItemView's is public.
        const QAbstractItemView *view = m_view;
        const int content
            = std::max(view->sizeHintForColumn(column), header->sectionSizeHint(column));
        header->resizeSection(column, std::min(content, m_maximumWidth));
    }
    m_fitting = false;
}

} // namespace EventDesk::Ui
