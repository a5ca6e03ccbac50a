// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "FilterSection.h"

#include "AdvancedFilterModel.h"
#include "EditorDelegates.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

FilterSection::FilterSection(EditorFields &fields)
    : EditorSection(tr("Filters"), fields)
{
    auto *form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_eventTypesEdit = new QLineEdit(this);
    m_eventTypesEdit->setObjectName(u"eventTypesEdit"_s);
    m_eventTypesEdit->setPlaceholderText(tr("All event types"));
    m_eventTypesEdit->setToolTip(
        tr("Event types to deliver, separated by commas; empty delivers every type"));
    form->addRow(tr("Event &types:"), m_eventTypesEdit);

    m_subjectBeginsEdit = new QLineEdit(this);
    m_subjectBeginsEdit->setObjectName(u"subjectBeginsWithEdit"_s);
    m_subjectBeginsEdit->setPlaceholderText(tr("Any subject"));
    form->addRow(tr("Subject &begins with:"), m_subjectBeginsEdit);

    m_subjectEndsEdit = new QLineEdit(this);
    m_subjectEndsEdit->setObjectName(u"subjectEndsWithEdit"_s);
    m_subjectEndsEdit->setPlaceholderText(tr("Any subject"));
    form->addRow(tr("Subject en&ds with:"), m_subjectEndsEdit);

    m_caseSensitiveCheck = new QCheckBox(tr("Case-sensitive subject &matching"), this);
    m_caseSensitiveCheck->setObjectName(u"caseSensitiveCheck"_s);
    form->addRow(QString(), m_caseSensitiveCheck);

    m_filterModel = new AdvancedFilterModel(this);
    m_filterView = makeEditorTable(m_filterModel, this);
    m_filterView->setObjectName(u"advancedFiltersView"_s);
    m_filterView->setAccessibleName(tr("Advanced filters"));
    QList<ComboBoxDelegate::Choice> operators;
    for (int op = int(FilterOperator::NumberIn); op <= int(FilterOperator::IsNotNull); ++op) {
        operators.append({filterOperatorName(FilterOperator(op)), op,
                          AdvancedFilterModel::operatorDescription(FilterOperator(op))});
    }
    m_filterView->setItemDelegateForColumn(AdvancedFilterModel::OperatorColumn,
                                           new ComboBoxDelegate(operators, m_filterView));
    QHeaderView *filterHeader = m_filterView->horizontalHeader();
    filterHeader->setSectionResizeMode(AdvancedFilterModel::OperatorColumn,
                                       QHeaderView::ResizeToContents);
    filterHeader->setSectionResizeMode(AdvancedFilterModel::KeyColumn, QHeaderView::Interactive);
    filterHeader->setSectionResizeMode(AdvancedFilterModel::ValuesColumn, QHeaderView::Stretch);
    filterHeader->setSectionResizeMode(AdvancedFilterModel::CountColumn,
                                       QHeaderView::ResizeToContents);
    m_filterView->setColumnWidth(AdvancedFilterModel::KeyColumn, 160);

    m_addFilterButton = new QPushButton(tr("&Add filter"), this);
    m_addFilterButton->setObjectName(u"addFilterButton"_s);
    m_addFilterButton->setIcon(QIcon::fromTheme(u"list-add"_s));
    m_removeFilterButton = new QPushButton(tr("Remove filter"), this);
    m_removeFilterButton->setObjectName(u"removeFilterButton"_s);
    m_removeFilterButton->setIcon(QIcon::fromTheme(u"list-remove"_s));
    m_filterCountLabel = new QLabel(this);
    m_filterCountLabel->setObjectName(u"filterCountLabel"_s);
    auto *buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    buttons->addWidget(m_addFilterButton);
    buttons->addWidget(m_removeFilterButton);
    buttons->addStretch(1);
    buttons->addWidget(m_filterCountLabel);

    auto *tableBox = new QWidget(this);
    auto *tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(m_filterView);
    tableLayout->addLayout(buttons);
    QWidget *withError = fields.withErrorLabel(SubscriptionField::AdvancedFilters, tableBox);
    fields.setInput(SubscriptionField::AdvancedFilters, m_filterView);
    fields.errorLabel(SubscriptionField::AdvancedFilters)->setObjectName(u"advancedFiltersError"_s);
    form->addRow(tr("Advanced filters:"), withError);

    connect(m_addFilterButton, &QPushButton::clicked, this, [this] {
        const int row = m_filterModel->addFilter();
        if (row < 0)
            return;
        const QModelIndex key = m_filterModel->index(row, AdvancedFilterModel::KeyColumn);
        m_filterView->setCurrentIndex(key);
        m_filterView->setFocus();
        m_filterView->edit(key);
    });
    connect(m_removeFilterButton, &QPushButton::clicked, this,
            [this] { m_filterModel->removeFilter(m_filterView->currentIndex().row()); });
    connect(m_filterModel, &AdvancedFilterModel::filtersChanged, this, &FilterSection::edited);
    connect(m_filterView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &FilterSection::updateCounts);
    for (QLineEdit *edit : {m_eventTypesEdit, m_subjectBeginsEdit, m_subjectEndsEdit})
        connect(edit, &QLineEdit::textChanged, this, &FilterSection::edited);
    connect(m_caseSensitiveCheck, &QCheckBox::toggled, this, &FilterSection::edited);
}

FilterSection::~FilterSection() = default;

void FilterSection::load(const EventSubscription &subscription)
{
    const EventFilter &filter = subscription.filter;
    m_eventTypesEdit->setText(filter.includedEventTypes.join(u", "_s));
    m_subjectBeginsEdit->setText(filter.subjectBeginsWith);
    m_subjectEndsEdit->setText(filter.subjectEndsWith);
    m_caseSensitiveCheck->setChecked(filter.isSubjectCaseSensitive);
    m_filterModel->setFilters(filter.advancedFilters);
}

void FilterSection::store(EventSubscription &subscription) const
{
    EventFilter &filter = subscription.filter;
    filter.includedEventTypes.clear();
    const QStringList types = m_eventTypesEdit->text().split(u',');
    for (const QString &type : types) {
        if (!type.trimmed().isEmpty())
            filter.includedEventTypes.append(type.trimmed());
    }
    filter.subjectBeginsWith = m_subjectBeginsEdit->text();
    filter.subjectEndsWith = m_subjectEndsEdit->text();
    filter.isSubjectCaseSensitive = m_caseSensitiveCheck->isChecked();
    filter.advancedFilters = m_filterModel->filters();
}

QHash<int, QString> FilterSection::parseErrors() const
{
    return m_filterModel->parseErrors();
}

void FilterSection::setRowErrors(const QHash<int, QString> &errors)
{
    m_filterModel->setRowErrors(errors);
}

QByteArray FilterSection::valuesAsTyped() const
{
    QByteArray values;
    for (int row = 0; row < m_filterModel->rowCount(); ++row) {
        values += '\n'
            + m_filterModel->index(row, AdvancedFilterModel::ValuesColumn)
                  .data(Qt::EditRole)
                  .toString()
                  .toUtf8();
    }
    return values;
}

void FilterSection::setCurrentRow(int row)
{
    m_filterView->setCurrentIndex(m_filterModel->index(row, 0));
}

void FilterSection::updateCounts()
{
    const int values = m_filterModel->totalValueCount();
    const int filters = m_filterModel->rowCount();
    m_filterCountLabel->setText(tr("%1 of %2 values · %3 of %4 filters")
                                    .arg(values)
                                    .arg(EventFilter::MaxFilterValues)
                                    .arg(filters)
                                    .arg(EventFilter::MaxAdvancedFilters));
    m_addFilterButton->setEnabled(m_filterModel->canAddFilter());
    m_addFilterButton->setToolTip(
        m_filterModel->canAddFilter()
            ? tr("Add an advanced filter")
            : tr("At most %1 advanced filters").arg(EventFilter::MaxAdvancedFilters));
    m_removeFilterButton->setEnabled(m_filterView->currentIndex().isValid());
}

} // namespace EventDesk::Ui
