// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "SubscriptionValidator.h"

#include <QGroupBox>
#include <QList>
#include <QMap>
#include <QStringList>

class QAbstractItemModel;
class QLabel;
class QTableView;

namespace EventDesk::Ui {

// Where each field of the subscription editor is, and the label under it that shows its
// validation messages.
class EditorFields
{
public:
    // input with an error label under it (and trailing, then a stretch, to its right). The label
    // shows field's messages; input is what focusing the field focuses.
    QWidget *withErrorLabel(SubscriptionField field, QWidget *input, QWidget *trailing = nullptr);
    // The widget that focusing field focuses, when it is not the one given to withErrorLabel().
    void setInput(SubscriptionField field, QWidget *input);

    QWidget *input(SubscriptionField field) const { return m_inputs.value(field); }
    QLabel *errorLabel(SubscriptionField field) const { return m_errorLabels.value(field); }
    QList<QLabel *> errorLabels() const { return m_errorLabels.values(); }

    // Shows each field's messages under it and hides the labels of the fields without any.
    void showMessages(const QMap<SubscriptionField, QStringList> &messages);

private:
    QMap<SubscriptionField, QLabel *> m_errorLabels;
    QMap<SubscriptionField, QWidget *> m_inputs;
};

// One group of settings of the subscription editor: it shows its part of an EventSubscription,
// writes it back, and says when the user changed something.
class EditorSection : public QGroupBox
{
    Q_OBJECT

public:
    ~EditorSection() override;

    // Shows these settings (edited() may be emitted on the way).
    virtual void load(const EventDesk::EventSubscription &subscription) = 0;
    // Writes the settings as edited into subscription.
    virtual void store(EventDesk::EventSubscription &subscription) const = 0;

Q_SIGNALS:
    void edited();

protected:
    EditorSection(const QString &title, EditorFields &fields);

    EditorFields &fields() const { return m_fields; }

private:
    EditorFields &m_fields;
};

// A table of the editor's (advanced filters, delivery headers): five rows high, one row selected,
// edited in place.
QTableView *makeEditorTable(QAbstractItemModel *model, QWidget *parent);
// A range or format hint next to a field, in the placeholder colour.
QLabel *hintLabel(const QString &text, QWidget *parent);

} // namespace EventDesk::Ui
