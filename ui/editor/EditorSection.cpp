// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EditorSection.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace EventDesk::Ui {

QWidget *EditorFields::withErrorLabel(SubscriptionField field, QWidget *input, QWidget *trailing)
{
    auto *container = new QWidget;
    auto *layout = new QVBoxLayout(container);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    if (trailing) {
        auto *row = new QHBoxLayout;
        row->setContentsMargins(0, 0, 0, 0);
        row->addWidget(input);
        row->addWidget(trailing);
        row->addStretch(1);
        layout->addLayout(row);
    } else {
        layout->addWidget(input);
    }
    auto *error = new QLabel(container);
    error->setWordWrap(true);
    error->setTextFormat(Qt::PlainText);
    error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error->hide();
    layout->addWidget(error);
    m_errorLabels.insert(field, error);
    m_inputs.insert(field, input);
    return container;
}

void EditorFields::setInput(SubscriptionField field, QWidget *input)
{
    m_inputs.insert(field, input);
}

void EditorFields::showMessages(const QMap<SubscriptionField, QStringList> &messages)
{
    for (auto it = m_errorLabels.cbegin(); it != m_errorLabels.cend(); ++it) {
        const QStringList fieldMessages = messages.value(it.key());
        it.value()->setText(fieldMessages.join(u'\n'));
        it.value()->setVisible(!fieldMessages.isEmpty());
    }
}

EditorSection::EditorSection(const QString &title, EditorFields &fields)
    : QGroupBox(title)
    , m_fields(fields)
{
}

EditorSection::~EditorSection()
{
    // ~QWidget closes an open cell editor, which commits into the models; by then this object is
    // no longer the section that connected to them, so nothing may call back into it.
    const QList<QObject *> children = findChildren<QObject *>();
    for (QObject *object : children)
        disconnect(object, nullptr, this, nullptr);
}

QTableView *makeEditorTable(QAbstractItemModel *model, QWidget *parent)
{
    auto *view = new QTableView(parent);
    view->setModel(model);
    view->verticalHeader()->hide();
    view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view->horizontalHeader()->setHighlightSections(false);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setAlternatingRowColors(true);
    view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
                          | QAbstractItemView::AnyKeyPressed | QAbstractItemView::SelectedClicked);
    view->setTabKeyNavigation(false); // Tab leaves the table, as in the rest of the form
    const int rows = 5;
    view->setMinimumHeight(view->horizontalHeader()->sizeHint().height()
                           + rows * view->verticalHeader()->defaultSectionSize()
                           + 2 * view->frameWidth());
    return view;
}

QLabel *hintLabel(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    label->setForegroundRole(QPalette::PlaceholderText);
    return label;
}

} // namespace EventDesk::Ui
