// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EditorDelegates.h"

#include <QComboBox>
#include <QLineEdit>

#include <algorithm>
#include <utility>

namespace EventDesk::Ui {

ComboBoxDelegate::ComboBoxDelegate(QList<Choice> choices, QObject *parent)
    : QStyledItemDelegate(parent)
    , m_choices(std::move(choices))
{
}

QWidget *ComboBoxDelegate::createEditor(QWidget *parent, const QStyleOptionViewItem &option,
                                        const QModelIndex &index) const
{
    Q_UNUSED(option)
    Q_UNUSED(index)
    auto *combo = new QComboBox(parent);
    combo->setFrame(false);
    for (const Choice &choice : m_choices) {
        combo->addItem(choice.text, choice.value);
        if (!choice.toolTip.isEmpty())
            combo->setItemData(combo->count() - 1, choice.toolTip, Qt::ToolTipRole);
    }
    connect(combo, &QComboBox::activated, this, [this, combo] {
        auto *self = const_cast<ComboBoxDelegate *>(this);
        Q_EMIT self->commitData(combo);
        Q_EMIT self->closeEditor(combo, QAbstractItemDelegate::NoHint);
    });
    return combo;
}

void ComboBoxDelegate::setEditorData(QWidget *editor, const QModelIndex &index) const
{
    auto *combo = qobject_cast<QComboBox *>(editor);
    if (!combo)
        return;
    const int at = combo->findData(index.data(Qt::EditRole));
    combo->setCurrentIndex(std::max(at, 0));
}

void ComboBoxDelegate::setModelData(QWidget *editor, QAbstractItemModel *model,
                                    const QModelIndex &index) const
{
    if (auto *combo = qobject_cast<QComboBox *>(editor))
        model->setData(index, combo->currentData(), Qt::EditRole);
}

QWidget *SecretTextDelegate::createEditor(QWidget *parent, const QStyleOptionViewItem &option,
                                          const QModelIndex &index) const
{
    QWidget *editor = QStyledItemDelegate::createEditor(parent, option, index);
    if (auto *lineEdit = qobject_cast<QLineEdit *>(editor)) {
        if (index.data(MaskedEditRole).toBool())
            lineEdit->setEchoMode(QLineEdit::Password);
    }
    return editor;
}

} // namespace EventDesk::Ui
