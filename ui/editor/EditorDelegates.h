// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QList>
#include <QStyledItemDelegate>
#include <QVariant>

namespace EventDesk::Ui {

// Edits a cell whose Qt::EditRole is one of a fixed set of values with a combo box; the choice is
// committed as soon as it is made, so keyboard users do not need an extra Enter.
class ComboBoxDelegate final : public QStyledItemDelegate
{
    Q_OBJECT

public:
    struct Choice
    {
        QString text;
        QVariant value;
        QString toolTip;
    };

    explicit ComboBoxDelegate(QList<Choice> choices, QObject *parent = nullptr);

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &option,
                          const QModelIndex &index) const override;
    void setEditorData(QWidget *editor, const QModelIndex &index) const override;
    void setModelData(QWidget *editor, QAbstractItemModel *model,
                      const QModelIndex &index) const override;

private:
    QList<Choice> m_choices;
};

// Role a model sets to true on a cell whose value is secret and currently masked: the line edit
// then hides what is typed (SPEC H2).
inline constexpr int MaskedEditRole = Qt::UserRole + 40;

// A line edit that masks its text when the cell says so (MaskedEditRole).
class SecretTextDelegate final : public QStyledItemDelegate
{
    Q_OBJECT

public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &option,
                          const QModelIndex &index) const override;
};

} // namespace EventDesk::Ui
