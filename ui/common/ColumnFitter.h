// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "CachedTextDelegate.h"

#include <QElapsedTimer>
#include <QObject>
#include <QSet>

class QAbstractItemView;
class QTableView;
class QTimer;

namespace EventDesk::Ui {

// A delegate that, when a cell's text does not fit its column and is drawn elided, shows the
// whole text as the cell's tooltip (followed by the model's own tooltip, when it has one and
// says something else). Cells that fit keep the model's tooltip. Texts are drawn from a cache
// of shaped text (CachedTextDelegate).
class ElidedTextToolTipDelegate final : public CachedTextDelegate
{
    Q_OBJECT

public:
    using CachedTextDelegate::CachedTextDelegate;

    // Whether the view draws the index's text elided at its current column width.
    static bool isElided(const QAbstractItemView *view, const QModelIndex &index);
    // The tooltip the view shows for the index.
    static QString toolTip(const QAbstractItemView *view, const QModelIndex &index);

    bool helpEvent(QHelpEvent *event, QAbstractItemView *view, const QStyleOptionViewItem &option,
                   const QModelIndex &index) override;
};

// Sizes a table's columns to their content (header and the rows in view) whenever rows arrive,
// capped at a maximum so one long value cannot push the others out of sight; the elided cells
// get their full text as a tooltip (ElidedTextToolTipDelegate, installed on the view). A column
// the user resized by hand keeps the user's width.
//
// Cheap at any rate of arriving rows: fits are at most MinimumIntervalMs apart, and a view that
// is not on screen is not measured (Qt would measure every row of a hidden table) but fitted
// when it is shown.
class ColumnFitter final : public QObject
{
    Q_OBJECT

public:
    static constexpr int DefaultMaximumCharacters = 48;
    static constexpr int MinimumIntervalMs = 250;

    // Parented to the view; sets the view's item delegate.
    explicit ColumnFitter(QTableView *view, int maximumCharacters = DefaultMaximumCharacters);

    int maximumWidth() const { return m_maximumWidth; }
    bool isUserSized(int column) const { return m_userSized.contains(column); }

public Q_SLOTS:
    void fit(); // now (or when the view is shown); normally called after rows arrive

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void scheduleFit();

    QTableView *m_view = nullptr;
    int m_maximumWidth = 0;
    bool m_fitting = false;
    bool m_fitWhenShown = false;
    QTimer *m_fitTimer = nullptr;
    QElapsedTimer m_sinceFit;
    QSet<int> m_userSized;
};

} // namespace EventDesk::Ui
