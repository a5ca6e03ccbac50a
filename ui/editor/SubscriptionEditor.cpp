#include "SubscriptionEditor.h"

#include "AdvancedFilterModel.h"
#include "DeliveryHeaderModel.h"
#include "EditorDelegates.h"
#include "LimitSpinBox.h"
#include "RetryTimelineView.h"

#include "common/Format.h"
#include "model/Workspace.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHostAddress>
#include <QHostInfo>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QStandardItemModel>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// The resource id the editor writes for an Azure Blob destination when the user gave only the
// account name: it names the account, which is all the engine reads from it.
QString derivedResourceId(const QString &accountName)
{
    return u"/providers/Microsoft.Storage/storageAccounts/"_s + accountName;
}

QString schemaDisplayName(EventSchema schema)
{
    switch (schema) {
    case EventSchema::EventGrid:
        return SubscriptionEditor::tr("Event Grid schema");
    case EventSchema::CloudEvents10:
        return SubscriptionEditor::tr("CloudEvents 1.0");
    case EventSchema::Custom:
        return SubscriptionEditor::tr("Custom input schema (as published)");
    }
    return QString();
}

// "properties.filter.advancedFilters[3].values[1]" -> 3 for "advancedFilters"
int indexAfter(const QString &path, QLatin1StringView name)
{
    const qsizetype at = path.indexOf(name + u'[');
    if (at < 0)
        return -1;
    const qsizetype start = at + name.size() + 1;
    const qsizetype end = path.indexOf(u']', start);
    bool ok = false;
    const int index = path.mid(start, end - start).toInt(&ok);
    return ok ? index : -1;
}

QTableView *makeTable(QAbstractItemModel *model, QWidget *parent)
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

} // namespace

SubscriptionEditor::SubscriptionEditor(QWidget *parent)
    : QWidget(parent)
{
    m_titleLabel = new QLabel(this);
    m_titleLabel->setObjectName(u"titleLabel"_s);
    QFont titleFont = m_titleLabel->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    titleFont.setBold(true);
    m_titleLabel->setFont(titleFont);
    m_titleLabel->setTextFormat(Qt::PlainText);

    auto *content = new QWidget;
    auto *contentLayout = new QVBoxLayout(content);
    contentLayout->addWidget(buildGeneralSection());
    contentLayout->addWidget(buildFilterSection());
    contentLayout->addWidget(buildRetrySection());
    contentLayout->addWidget(buildBatchingSection());
    contentLayout->addWidget(buildHeadersSection());
    contentLayout->addWidget(buildDeadLetterSection());
    contentLayout->addStretch(1);

    m_scroll = new QScrollArea(this);
    m_scroll->setObjectName(u"editorScrollArea"_s);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setWidget(content);

    m_saveErrorLabel = new QLabel(this);
    m_saveErrorLabel->setObjectName(u"saveErrorLabel"_s);
    m_saveErrorLabel->setWordWrap(true);
    m_saveErrorLabel->setTextFormat(Qt::PlainText);
    m_saveErrorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_saveErrorLabel->hide();

    m_summaryIcon = new QLabel(this);
    const int iconSize = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    m_summaryIcon->setFixedSize(iconSize, iconSize);
    m_summaryLabel = new QLabel(this);
    m_summaryLabel->setObjectName(u"summaryLabel"_s);
    m_summaryLabel->setWordWrap(true);
    m_summaryLabel->setTextFormat(Qt::RichText);
    m_summaryLabel->setTextInteractionFlags(Qt::LinksAccessibleByMouse
                                            | Qt::LinksAccessibleByKeyboard);
    connect(m_summaryLabel, &QLabel::linkActivated, this, [this] {
        if (!m_errors.isEmpty())
            focusField(m_errors.constFirst().field, m_errors.constFirst().row);
    });

    m_revertButton = new QPushButton(tr("&Revert"), this);
    m_revertButton->setObjectName(u"revertButton"_s);
    m_revertButton->setToolTip(tr("Undo every change since the subscription was loaded or saved"));
    m_revertButton->setIcon(style()->standardIcon(QStyle::SP_DialogResetButton));
    m_saveButton = new QPushButton(tr("&Save"), this);
    m_saveButton->setObjectName(u"saveButton"_s);
    m_saveButton->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
    m_saveButton->setDefault(true);
    connect(m_saveButton, &QPushButton::clicked, this, &SubscriptionEditor::onSaveClicked);
    connect(m_revertButton, &QPushButton::clicked, this, &SubscriptionEditor::onRevertClicked);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_summaryIcon, 0, Qt::AlignTop);
    bar->addWidget(m_summaryLabel, 1);
    bar->addWidget(m_revertButton);
    bar->addWidget(m_saveButton);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_titleLabel);
    layout->addWidget(m_scroll, 1);
    layout->addWidget(m_saveErrorLabel);
    layout->addLayout(bar);

    applyErrorPalette();
    setSubscription(Topic(), EventSubscription(), true);
}

SubscriptionEditor::~SubscriptionEditor()
{
    // ~QWidget closes an open cell editor, which commits into the models; by then this object is
    // no longer a SubscriptionEditor, so nothing may call back into it.
    const QList<QObject *> children = findChildren<QObject *>();
    for (QObject *object : children)
        disconnect(object, nullptr, this, nullptr);
}

QWidget *SubscriptionEditor::fieldWithError(Field field, QWidget *input, QWidget *trailing)
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
    m_fieldWidgets.insert(field, input);
    return container;
}

QWidget *SubscriptionEditor::buildGeneralSection()
{
    auto *group = new QGroupBox(tr("Subscription"));
    auto *form = new QFormLayout(group);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_nameEdit = new QLineEdit(group);
    m_nameEdit->setObjectName(u"nameEdit"_s);
    m_nameEdit->setMaxLength(128);
    m_nameEdit->setMinimumWidth(m_nameEdit->fontMetrics().averageCharWidth() * 40);
    m_nameEdit->setPlaceholderText(tr("e.g. orders-to-billing"));
    m_nameEdit->setToolTip(tr("3 to 64 characters: A–Z, a–z, 0–9 and '-'"));
    form->addRow(
        tr("&Name:"),
        fieldWithError(Field::Name, m_nameEdit, hintLabel(tr("3–64: A–Z a–z 0–9 -"), group)));
    m_errorLabels.value(Field::Name)->setObjectName(u"nameError"_s);

    m_endpointEdit = new QLineEdit(group);
    m_endpointEdit->setObjectName(u"endpointEdit"_s);
    m_endpointEdit->setPlaceholderText(u"https://example.com/api/events"_s);
    m_endpointEdit->setToolTip(tr("The webhook the events are delivered to (http or https)"));
    auto *endpointField = new QWidget(group);
    auto *endpointLayout = new QVBoxLayout(endpointField);
    endpointLayout->setContentsMargins(0, 0, 0, 0);
    endpointLayout->setSpacing(2);
    endpointLayout->addWidget(fieldWithError(Field::Endpoint, m_endpointEdit));
    m_hostWarning = new QLabel(endpointField);
    m_hostWarning->setObjectName(u"endpointHostWarning"_s);
    m_hostWarning->setWordWrap(true);
    m_hostWarning->setTextFormat(Qt::PlainText);
    m_hostWarning->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_hostWarning->hide();
    endpointLayout->addWidget(m_hostWarning);
    form->addRow(tr("&Endpoint URL:"), endpointField);
    m_errorLabels.value(Field::Endpoint)->setObjectName(u"endpointError"_s);
    m_hostLookupTimer = new QTimer(this);
    m_hostLookupTimer->setSingleShot(true);
    m_hostLookupTimer->setInterval(400); // once typing pauses
    connect(m_hostLookupTimer, &QTimer::timeout, this, &SubscriptionEditor::lookUpHost);
    connect(m_endpointEdit, &QLineEdit::textChanged, this, &SubscriptionEditor::scheduleHostLookup);

    m_schemaCombo = new QComboBox(group);
    m_schemaCombo->setObjectName(u"deliverySchemaCombo"_s);
    m_schemaCombo->setModel(new QStandardItemModel(m_schemaCombo));
    m_schemaCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    form->addRow(tr("Delivery &schema:"),
                 fieldWithError(Field::DeliverySchema, m_schemaCombo, new QWidget(group)));

    m_enabledCheck
        = new QCheckBox(tr("&Deliver events (uncheck to pause this subscription)"), group);
    m_enabledCheck->setObjectName(u"enabledCheck"_s);
    form->addRow(QString(), m_enabledCheck);

    connect(m_nameEdit, &QLineEdit::textChanged, this, &SubscriptionEditor::onEdited);
    connect(m_endpointEdit, &QLineEdit::textChanged, this, &SubscriptionEditor::onEdited);
    connect(m_schemaCombo, &QComboBox::currentIndexChanged, this, &SubscriptionEditor::onEdited);
    connect(m_enabledCheck, &QCheckBox::toggled, this, &SubscriptionEditor::onEdited);
    return group;
}

QWidget *SubscriptionEditor::buildFilterSection()
{
    auto *group = new QGroupBox(tr("Filters"));
    auto *form = new QFormLayout(group);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_eventTypesEdit = new QLineEdit(group);
    m_eventTypesEdit->setObjectName(u"eventTypesEdit"_s);
    m_eventTypesEdit->setPlaceholderText(tr("All event types"));
    m_eventTypesEdit->setToolTip(
        tr("Event types to deliver, separated by commas; empty delivers every type"));
    form->addRow(tr("Event &types:"), m_eventTypesEdit);

    m_subjectBeginsEdit = new QLineEdit(group);
    m_subjectBeginsEdit->setObjectName(u"subjectBeginsWithEdit"_s);
    m_subjectBeginsEdit->setPlaceholderText(tr("Any subject"));
    form->addRow(tr("Subject &begins with:"), m_subjectBeginsEdit);

    m_subjectEndsEdit = new QLineEdit(group);
    m_subjectEndsEdit->setObjectName(u"subjectEndsWithEdit"_s);
    m_subjectEndsEdit->setPlaceholderText(tr("Any subject"));
    form->addRow(tr("Subject en&ds with:"), m_subjectEndsEdit);

    m_caseSensitiveCheck = new QCheckBox(tr("Case-sensitive subject &matching"), group);
    m_caseSensitiveCheck->setObjectName(u"caseSensitiveCheck"_s);
    form->addRow(QString(), m_caseSensitiveCheck);

    m_filterModel = new AdvancedFilterModel(this);
    m_filterView = makeTable(m_filterModel, group);
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

    m_addFilterButton = new QPushButton(tr("&Add filter"), group);
    m_addFilterButton->setObjectName(u"addFilterButton"_s);
    m_addFilterButton->setIcon(QIcon::fromTheme(u"list-add"_s));
    m_removeFilterButton = new QPushButton(tr("Remove filter"), group);
    m_removeFilterButton->setObjectName(u"removeFilterButton"_s);
    m_removeFilterButton->setIcon(QIcon::fromTheme(u"list-remove"_s));
    m_filterCountLabel = new QLabel(group);
    m_filterCountLabel->setObjectName(u"filterCountLabel"_s);
    auto *buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    buttons->addWidget(m_addFilterButton);
    buttons->addWidget(m_removeFilterButton);
    buttons->addStretch(1);
    buttons->addWidget(m_filterCountLabel);

    auto *tableBox = new QWidget(group);
    auto *tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(m_filterView);
    tableLayout->addLayout(buttons);
    QWidget *withError = fieldWithError(Field::AdvancedFilters, tableBox);
    m_fieldWidgets.insert(Field::AdvancedFilters, m_filterView);
    m_errorLabels.value(Field::AdvancedFilters)->setObjectName(u"advancedFiltersError"_s);
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
    connect(m_filterModel, &AdvancedFilterModel::filtersChanged, this,
            &SubscriptionEditor::onEdited);
    connect(m_filterView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &SubscriptionEditor::updateCounts);
    for (QLineEdit *edit : {m_eventTypesEdit, m_subjectBeginsEdit, m_subjectEndsEdit})
        connect(edit, &QLineEdit::textChanged, this, &SubscriptionEditor::onEdited);
    connect(m_caseSensitiveCheck, &QCheckBox::toggled, this, &SubscriptionEditor::onEdited);
    return group;
}

QWidget *SubscriptionEditor::buildRetrySection()
{
    auto *group = new QGroupBox(tr("Retry policy"));
    auto *layout = new QVBoxLayout(group);
    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    layout->addLayout(form);

    m_maxAttemptsSpin = new LimitSpinBox(RetryPolicy::MinAttempts, RetryPolicy::MaxAttempts, group);
    m_maxAttemptsSpin->setObjectName(u"maxAttemptsSpin"_s);
    m_maxAttemptsSpin->setToolTip(tr("Attempts before the event is dead-lettered or dropped "
                                     "(SPEC R6, R8): from %1 to %2")
                                      .arg(RetryPolicy::MinAttempts)
                                      .arg(RetryPolicy::MaxAttempts));
    form->addRow(
        tr("Max delivery &attempts:"),
        fieldWithError(
            Field::MaxAttempts, m_maxAttemptsSpin,
            hintLabel(tr("%1–%2").arg(RetryPolicy::MinAttempts).arg(RetryPolicy::MaxAttempts),
                      group)));
    m_errorLabels.value(Field::MaxAttempts)->setObjectName(u"maxAttemptsError"_s);

    m_ttlSpin = new LimitSpinBox(RetryPolicy::MinTtlMinutes, RetryPolicy::MaxTtlMinutes, group);
    m_ttlSpin->setObjectName(u"ttlSpin"_s);
    m_ttlSpin->setSuffix(tr(" min"));
    m_ttlSpin->setToolTip(tr("Event time to live, counted from the publish time (SPEC R6, R7): "
                             "from %1 to %2 minutes")
                              .arg(RetryPolicy::MinTtlMinutes)
                              .arg(RetryPolicy::MaxTtlMinutes));
    auto *ttlTrailing = new QWidget(group);
    auto *ttlTrailingLayout = new QHBoxLayout(ttlTrailing);
    ttlTrailingLayout->setContentsMargins(0, 0, 0, 0);
    m_ttlHoursLabel = new QLabel(ttlTrailing);
    m_ttlHoursLabel->setObjectName(u"ttlHoursLabel"_s);
    ttlTrailingLayout->addWidget(m_ttlHoursLabel);
    ttlTrailingLayout->addSpacing(8);
    ttlTrailingLayout->addWidget(
        hintLabel(tr("%1–%2 min").arg(RetryPolicy::MinTtlMinutes).arg(RetryPolicy::MaxTtlMinutes),
                  ttlTrailing));
    form->addRow(tr("Event &time to live:"),
                 fieldWithError(Field::TimeToLive, m_ttlSpin, ttlTrailing));
    m_errorLabels.value(Field::TimeToLive)->setObjectName(u"ttlError"_s);

    auto *previewTitle = new QLabel(tr("Retry timeline preview"), group);
    QFont bold = previewTitle->font();
    bold.setBold(true);
    previewTitle->setFont(bold);
    layout->addSpacing(6);
    layout->addWidget(previewTitle);
    m_timeline = new RetryTimelineView(group);
    m_timeline->setObjectName(u"retryTimelineView"_s);
    m_timeline->setMinimumHeight(360);
    layout->addWidget(m_timeline, 1);

    connect(m_maxAttemptsSpin, &QSpinBox::valueChanged, this, &SubscriptionEditor::onEdited);
    connect(m_ttlSpin, &QSpinBox::valueChanged, this, &SubscriptionEditor::onEdited);
    return group;
}

QWidget *SubscriptionEditor::buildBatchingSection()
{
    m_batchingGroup = new QGroupBox(tr("&Batching (several events per request)"));
    m_batchingGroup->setObjectName(u"batchingGroup"_s);
    m_batchingGroup->setCheckable(true);
    m_batchingGroup->setChecked(false);
    m_batchingGroup->setToolTip(
        tr("Off: one event per request (SPEC B1). On: a request carries up to the max events, "
           "within the preferred size; an event larger than that is sent alone."));
    auto *form = new QFormLayout(m_batchingGroup);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_maxEventsSpin = new LimitSpinBox(1, BatchPolicy::MaxEventsLimit, m_batchingGroup);
    m_maxEventsSpin->setObjectName(u"maxEventsSpin"_s);
    form->addRow(
        tr("Max &events per batch:"),
        fieldWithError(Field::MaxEvents, m_maxEventsSpin,
                       hintLabel(tr("1–%1").arg(BatchPolicy::MaxEventsLimit), m_batchingGroup)));
    m_errorLabels.value(Field::MaxEvents)->setObjectName(u"maxEventsError"_s);

    m_preferredSizeSpin = new LimitSpinBox(1, BatchPolicy::MaxPreferredKilobytes, m_batchingGroup);
    m_preferredSizeSpin->setObjectName(u"preferredSizeSpin"_s);
    m_preferredSizeSpin->setSuffix(tr(" KB"));
    form->addRow(tr("&Preferred batch size:"),
                 fieldWithError(Field::PreferredSize, m_preferredSizeSpin,
                                hintLabel(tr("1–%1 KB").arg(BatchPolicy::MaxPreferredKilobytes),
                                          m_batchingGroup)));
    m_errorLabels.value(Field::PreferredSize)->setObjectName(u"preferredSizeError"_s);

    connect(m_batchingGroup, &QGroupBox::toggled, this, &SubscriptionEditor::onEdited);
    connect(m_maxEventsSpin, &QSpinBox::valueChanged, this, &SubscriptionEditor::onEdited);
    connect(m_preferredSizeSpin, &QSpinBox::valueChanged, this, &SubscriptionEditor::onEdited);
    return m_batchingGroup;
}

QWidget *SubscriptionEditor::buildHeadersSection()
{
    auto *group = new QGroupBox(tr("Delivery headers"));
    auto *layout = new QVBoxLayout(group);

    m_headerModel = new DeliveryHeaderModel(this);
    m_headerView = makeTable(m_headerModel, group);
    m_headerView->setObjectName(u"headersView"_s);
    m_headerView->setAccessibleName(tr("Delivery headers"));
    m_headerView->setItemDelegateForColumn(
        DeliveryHeaderModel::TypeColumn,
        new ComboBoxDelegate(
            {{tr("Static"), int(DeliveryHeader::Kind::Static), tr("A fixed value")},
             {tr("Dynamic"), int(DeliveryHeader::Kind::Dynamic),
              tr("The value of a field of the event")}},
            m_headerView));
    m_headerView->setItemDelegateForColumn(DeliveryHeaderModel::ValueColumn,
                                           new SecretTextDelegate(m_headerView));
    QHeaderView *header = m_headerView->horizontalHeader();
    header->setSectionResizeMode(DeliveryHeaderModel::NameColumn, QHeaderView::Interactive);
    header->setSectionResizeMode(DeliveryHeaderModel::TypeColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(DeliveryHeaderModel::ValueColumn, QHeaderView::Stretch);
    header->setSectionResizeMode(DeliveryHeaderModel::SecretColumn, QHeaderView::ResizeToContents);
    m_headerView->setColumnWidth(DeliveryHeaderModel::NameColumn, 180);

    m_addHeaderButton = new QPushButton(tr("Add &header"), group);
    m_addHeaderButton->setObjectName(u"addHeaderButton"_s);
    m_addHeaderButton->setIcon(QIcon::fromTheme(u"list-add"_s));
    m_removeHeaderButton = new QPushButton(tr("Remove header"), group);
    m_removeHeaderButton->setObjectName(u"removeHeaderButton"_s);
    m_removeHeaderButton->setIcon(QIcon::fromTheme(u"list-remove"_s));
    m_revealSecretsCheck = new QCheckBox(tr("Show secret &values"), group);
    m_revealSecretsCheck->setObjectName(u"revealSecretsCheck"_s);
    m_revealSecretsCheck->setToolTip(tr("Secret values are masked unless this is checked"));
    m_headerCountLabel = new QLabel(group);
    m_headerCountLabel->setObjectName(u"headerCountLabel"_s);
    auto *buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    buttons->addWidget(m_addHeaderButton);
    buttons->addWidget(m_removeHeaderButton);
    buttons->addSpacing(12);
    buttons->addWidget(m_revealSecretsCheck);
    buttons->addStretch(1);
    buttons->addWidget(m_headerCountLabel);

    auto *tableBox = new QWidget(group);
    auto *tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(m_headerView);
    tableLayout->addLayout(buttons);
    layout->addWidget(fieldWithError(Field::Headers, tableBox));
    m_fieldWidgets.insert(Field::Headers, m_headerView);
    m_errorLabels.value(Field::Headers)->setObjectName(u"headersError"_s);

    connect(m_addHeaderButton, &QPushButton::clicked, this, [this] {
        const int row = m_headerModel->addHeader();
        if (row < 0)
            return;
        const QModelIndex name = m_headerModel->index(row, DeliveryHeaderModel::NameColumn);
        m_headerView->setCurrentIndex(name);
        m_headerView->setFocus();
        m_headerView->edit(name);
    });
    connect(m_removeHeaderButton, &QPushButton::clicked, this,
            [this] { m_headerModel->removeHeader(m_headerView->currentIndex().row()); });
    connect(m_revealSecretsCheck, &QCheckBox::toggled, m_headerModel,
            &DeliveryHeaderModel::setSecretsRevealed);
    connect(m_headerModel, &DeliveryHeaderModel::headersChanged, this,
            &SubscriptionEditor::onEdited);
    connect(m_headerView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &SubscriptionEditor::updateCounts);
    return group;
}

QWidget *SubscriptionEditor::buildDeadLetterSection()
{
    auto *group = new QGroupBox(tr("Dead-letter destination"));
    m_deadLetterForm = new QFormLayout(group);
    m_deadLetterForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_deadLetterCombo = new QComboBox(group);
    m_deadLetterCombo->setObjectName(u"deadLetterCombo"_s);
    m_deadLetterCombo->addItem(tr("None (drop undeliverable events)"),
                               int(DeadLetterDestination::Kind::None));
    m_deadLetterCombo->addItem(tr("Local folder container"),
                               int(DeadLetterDestination::Kind::LocalFolder));
    m_deadLetterCombo->addItem(tr("Azure Blob container"),
                               int(DeadLetterDestination::Kind::AzureBlob));
    m_deadLetterCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_deadLetterCombo->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    m_deadLetterCombo->setToolTip(
        tr("Where events go when delivery gives up (SPEC L1): without a destination they are "
           "dropped"));
    m_deadLetterForm->addRow(tr("Dead-letter &to:"), m_deadLetterCombo);

    m_deadLetterAccountEdit = new QLineEdit(group);
    m_deadLetterAccountEdit->setObjectName(u"deadLetterAccountEdit"_s);
    m_deadLetterAccountEdit->setPlaceholderText(u"devstoreaccount1"_s);
    m_deadLetterAccountEdit->setToolTip(tr("3 to 24 characters of a–z and 0–9"));
    m_deadLetterForm->addRow(tr("Storage &account name:"),
                             fieldWithError(Field::DeadLetterAccount, m_deadLetterAccountEdit));
    m_errorLabels.value(Field::DeadLetterAccount)->setObjectName(u"deadLetterAccountError"_s);

    m_deadLetterEndpointEdit = new QLineEdit(group);
    m_deadLetterEndpointEdit->setObjectName(u"deadLetterEndpointEdit"_s);
    m_deadLetterEndpointEdit->setPlaceholderText(
        tr("https://<account>.blob.core.windows.net (empty: the account's default)"));
    m_deadLetterEndpointEdit->setToolTip(
        tr("For the Azurite emulator: http://127.0.0.1:10000/devstoreaccount1"));
    m_deadLetterForm->addRow(tr("Blob &endpoint:"),
                             fieldWithError(Field::DeadLetterEndpoint, m_deadLetterEndpointEdit));
    m_errorLabels.value(Field::DeadLetterEndpoint)->setObjectName(u"deadLetterEndpointError"_s);

    m_deadLetterContainerEdit = new QLineEdit(group);
    m_deadLetterContainerEdit->setObjectName(u"deadLetterContainerEdit"_s);
    m_deadLetterContainerEdit->setPlaceholderText(u"deadletters"_s);
    m_deadLetterContainerEdit->setToolTip(
        tr("3 to 63 characters of a–z, 0–9 and '-' (Azure container naming)"));
    m_deadLetterForm->addRow(tr("&Container:"),
                             fieldWithError(Field::DeadLetterContainer, m_deadLetterContainerEdit));
    m_errorLabels.value(Field::DeadLetterContainer)->setObjectName(u"deadLetterContainerError"_s);

    m_deadLetterResourceIdEdit = new QLineEdit(group);
    m_deadLetterResourceIdEdit->setObjectName(u"deadLetterResourceIdEdit"_s);
    m_deadLetterResourceIdEdit->setPlaceholderText(tr("Optional: .../storageAccounts/<account>"));
    m_deadLetterResourceIdEdit->setToolTip(
        tr("The storage account's Azure resource id, as in an exported ARM template"));
    m_deadLetterForm->addRow(
        tr("Resource &ID:"),
        fieldWithError(Field::DeadLetterResourceId, m_deadLetterResourceIdEdit));
    m_errorLabels.value(Field::DeadLetterResourceId)->setObjectName(u"deadLetterResourceIdError"_s);

    m_deadLetterHint = new QLabel(group);
    m_deadLetterHint->setWordWrap(true);
    m_deadLetterHint->setForegroundRole(QPalette::PlaceholderText);
    m_deadLetterForm->addRow(QString(), m_deadLetterHint);

    connect(m_deadLetterCombo, &QComboBox::currentIndexChanged, this, [this] {
        updateDeadLetterRows();
        onEdited();
    });
    for (QLineEdit *edit : {m_deadLetterAccountEdit, m_deadLetterEndpointEdit,
                            m_deadLetterContainerEdit, m_deadLetterResourceIdEdit})
        connect(edit, &QLineEdit::textChanged, this, &SubscriptionEditor::onEdited);
    return group;
}

void SubscriptionEditor::updateDeadLetterRows()
{
    const auto kind = DeadLetterDestination::Kind(m_deadLetterCombo->currentData().toInt());
    const bool azure = kind == DeadLetterDestination::Kind::AzureBlob;
    const bool any = kind != DeadLetterDestination::Kind::None;
    m_deadLetterForm->setRowVisible(m_deadLetterAccountEdit->parentWidget(), azure);
    m_deadLetterForm->setRowVisible(m_deadLetterEndpointEdit->parentWidget(), azure);
    m_deadLetterForm->setRowVisible(m_deadLetterResourceIdEdit->parentWidget(), azure);
    m_deadLetterForm->setRowVisible(m_deadLetterContainerEdit->parentWidget(), any);
    switch (kind) {
    case DeadLetterDestination::Kind::None:
        m_deadLetterHint->setText(
            tr("Events that cannot be delivered are dropped; the delivery log and the metrics "
               "still record why."));
        break;
    case DeadLetterDestination::Kind::LocalFolder:
        m_deadLetterHint->setText(
            tr("Dead letters are written to the workspace's dead-letter folder as "
               "<container>/<SUBSCRIPTION>/<yyyy>/<M>/<d>/<H>/<uuid>.json."));
        break;
    case DeadLetterDestination::Kind::AzureBlob:
        m_deadLetterHint->setText(
            tr("Works with a real storage account and with the Azurite emulator. Blobs are named "
               "<SUBSCRIPTION>/<yyyy>/<M>/<d>/<H>/<uuid>.json inside the container."));
        break;
    }
}

void SubscriptionEditor::rebuildSchemaChoices()
{
    auto *model = static_cast<QStandardItemModel *>(m_schemaCombo->model());
    model->clear();
    // SPEC S4: which delivery schemas a topic supports is the core's rule; ask it with a probe
    // subscription that is valid in every other respect.
    EventSubscription probe;
    probe.name = u"schema-probe"_s;
    probe.endpointUrl = QUrl(u"http://localhost/"_s);
    for (const EventSchema schema :
         {EventSchema::EventGrid, EventSchema::CloudEvents10, EventSchema::Custom}) {
        probe.deliverySchema = schema;
        const bool supported = bool(validateEventSubscription(probe, m_topicInputSchema));
        auto *item = new QStandardItem(schemaDisplayName(schema));
        item->setData(int(schema), Qt::UserRole);
        item->setEnabled(supported);
        item->setToolTip(
            supported ? eventSchemaName(schema)
                      : tr("%1 is not available for a topic whose input schema is %2")
                            .arg(eventSchemaName(schema), eventSchemaName(m_topicInputSchema)));
        model->appendRow(item);
    }
}

void SubscriptionEditor::setSubscription(const Topic &topic, const EventSubscription &subscription,
                                         bool isNew)
{
    m_topicInputSchema = topic.inputSchema;
    m_topicName = topic.name;
    m_original = subscription;
    m_isNew = isNew;
    populate(subscription);
    m_titleLabel->setText(
        isNew
            ? (m_topicName.isEmpty() ? tr("New event subscription")
                                     : tr("New event subscription in topic “%1”").arg(m_topicName))
            : (m_topicName.isEmpty() ? tr("Event subscription “%1”").arg(subscription.name)
                                     : tr("Event subscription “%1” in topic “%2”")
                                           .arg(subscription.name, m_topicName)));
    m_scroll->ensureVisible(0, 0);
}

void SubscriptionEditor::populate(const EventSubscription &subscription)
{
    m_loading = true;
    rebuildSchemaChoices();
    m_nameEdit->setText(subscription.name);
    m_nameEdit->setReadOnly(!m_isNew);
    m_nameEdit->setToolTip(m_isNew ? tr("3 to 64 characters: A–Z, a–z, 0–9 and '-'")
                                   : tr("The name of an existing subscription cannot change"));
    m_endpointEdit->setText(subscription.endpointUrl.toString());
    m_schemaCombo->setCurrentIndex(
        std::max(0, m_schemaCombo->findData(int(subscription.deliverySchema), Qt::UserRole)));
    m_enabledCheck->setChecked(subscription.enabled);

    const EventFilter &filter = subscription.filter;
    m_eventTypesEdit->setText(filter.includedEventTypes.join(u", "_s));
    m_subjectBeginsEdit->setText(filter.subjectBeginsWith);
    m_subjectEndsEdit->setText(filter.subjectEndsWith);
    m_caseSensitiveCheck->setChecked(filter.isSubjectCaseSensitive);
    m_filterModel->setFilters(filter.advancedFilters);

    m_maxAttemptsSpin->setValue(subscription.retryPolicy.maxDeliveryAttempts);
    m_ttlSpin->setValue(subscription.retryPolicy.eventTimeToLiveInMinutes);

    m_batchingGroup->setChecked(subscription.batchPolicy.enabled);
    m_maxEventsSpin->setValue(subscription.batchPolicy.maxEventsPerBatch);
    m_preferredSizeSpin->setValue(subscription.batchPolicy.preferredBatchSizeInKilobytes);

    m_headerModel->setHeaders(subscription.deliveryHeaders);
    m_revealSecretsCheck->setChecked(false);

    const DeadLetterDestination &deadLetter = subscription.deadLetterDestination;
    m_deadLetterCombo->setCurrentIndex(
        std::max(0, m_deadLetterCombo->findData(int(deadLetter.kind))));
    m_deadLetterContainerEdit->setText(deadLetter.blobContainerName);
    m_deadLetterAccountEdit->setText(deadLetter.accountName);
    m_deadLetterEndpointEdit->setText(deadLetter.blobEndpoint.toString());
    const bool derived = deadLetter.kind != DeadLetterDestination::Kind::AzureBlob
        || deadLetter.resourceId == derivedResourceId(deadLetter.accountName);
    m_deadLetterResourceIdEdit->setText(derived ? QString() : deadLetter.resourceId);
    updateDeadLetterRows();
    m_loading = false;

    m_saveErrorLabel->hide();
    m_originalKey = stateKey();
    const bool wasModified = m_modified;
    m_modified = m_isNew;
    revalidate();
    if (wasModified != m_modified)
        Q_EMIT modifiedChanged(m_modified);
}

EventSubscription SubscriptionEditor::subscription() const
{
    EventSubscription subscription = m_original;
    subscription.name = m_nameEdit->text();
    subscription.endpointUrl = QUrl(m_endpointEdit->text().trimmed(), QUrl::StrictMode);
    subscription.deliverySchema = EventSchema(m_schemaCombo->currentData(Qt::UserRole).toInt());
    subscription.enabled = m_enabledCheck->isChecked();

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

    subscription.retryPolicy.maxDeliveryAttempts = m_maxAttemptsSpin->value();
    subscription.retryPolicy.eventTimeToLiveInMinutes = m_ttlSpin->value();

    subscription.batchPolicy.enabled = m_batchingGroup->isChecked();
    subscription.batchPolicy.maxEventsPerBatch = m_maxEventsSpin->value();
    subscription.batchPolicy.preferredBatchSizeInKilobytes = m_preferredSizeSpin->value();

    subscription.deliveryHeaders = m_headerModel->headers();
    for (DeliveryHeader &header : subscription.deliveryHeaders)
        header.name = header.name.trimmed();

    DeadLetterDestination &deadLetter = subscription.deadLetterDestination;
    deadLetter = DeadLetterDestination();
    deadLetter.kind = DeadLetterDestination::Kind(m_deadLetterCombo->currentData().toInt());
    switch (deadLetter.kind) {
    case DeadLetterDestination::Kind::None:
        break;
    case DeadLetterDestination::Kind::LocalFolder:
        deadLetter.resourceId = u"local"_s;
        deadLetter.blobContainerName = m_deadLetterContainerEdit->text().trimmed();
        break;
    case DeadLetterDestination::Kind::AzureBlob: {
        deadLetter.blobContainerName = m_deadLetterContainerEdit->text().trimmed();
        deadLetter.accountName = m_deadLetterAccountEdit->text().trimmed();
        const QString endpoint = m_deadLetterEndpointEdit->text().trimmed();
        if (!endpoint.isEmpty())
            deadLetter.blobEndpoint = QUrl(endpoint, QUrl::StrictMode);
        const QString resourceId = m_deadLetterResourceIdEdit->text().trimmed();
        deadLetter.resourceId = !resourceId.isEmpty() ? resourceId
            : deadLetter.accountName.isEmpty()        ? QString()
                                                      : derivedResourceId(deadLetter.accountName);
        break;
    }
    }
    return subscription;
}

QByteArray SubscriptionEditor::stateKey() const
{
    const EventSubscription current = subscription();
    QByteArray key = QJsonDocument(eventSubscriptionToArm(current)).toJson(QJsonDocument::Compact);
    // What the ARM shape leaves out: secret values (H2) and the text exactly as typed.
    for (const DeliveryHeader &header : current.deliveryHeaders)
        key += '\n' + header.value.toUtf8();
    for (int row = 0; row < m_filterModel->rowCount(); ++row) {
        key += '\n'
            + m_filterModel->index(row, AdvancedFilterModel::ValuesColumn)
                  .data(Qt::EditRole)
                  .toString()
                  .toUtf8();
    }
    key += '\n' + m_endpointEdit->text().toUtf8();
    return key;
}

void SubscriptionEditor::onEdited()
{
    if (m_loading)
        return;
    m_saveErrorLabel->hide();
    const bool modified = m_isNew || stateKey() != m_originalKey;
    revalidate();
    if (modified != m_modified) {
        m_modified = modified;
        updateSaveState();
        Q_EMIT modifiedChanged(modified);
    }
}

SubscriptionEditor::FieldError
SubscriptionEditor::describeCoreError(const QString &coreMessage) const
{
    FieldError error;
    const qsizetype separator = coreMessage.indexOf(u": "_s);
    const QString path = separator >= 0 ? coreMessage.left(separator) : QString();
    QString text = separator >= 0 ? coreMessage.mid(separator + 2) : coreMessage;
    // "required: ..." reads as "<Field> is required: ..."
    if (text.startsWith("required"_L1))
        text = tr("is ") + text;
    QString label;

    if (path == "name"_L1) {
        error.field = Field::Name;
        label = tr("Name");
    } else if (path.endsWith("endpointUrl"_L1)) {
        error.field = Field::Endpoint;
        label = tr("Endpoint URL");
    } else if (path.endsWith("retryPolicy.maxDeliveryAttempts"_L1)) {
        error.field = Field::MaxAttempts;
        label = tr("Max delivery attempts");
    } else if (path.endsWith("retryPolicy.eventTimeToLiveInMinutes"_L1)) {
        error.field = Field::TimeToLive;
        label = tr("Event time to live (minutes)");
    } else if (path.endsWith("maxEventsPerBatch"_L1)) {
        error.field = Field::MaxEvents;
        label = tr("Max events per batch");
    } else if (path.endsWith("preferredBatchSizeInKilobytes"_L1)) {
        error.field = Field::PreferredSize;
        label = tr("Preferred batch size (KB)");
    } else if (path.contains("deliveryAttributeMappings"_L1)) {
        error.field = Field::Headers;
        error.row = indexAfter(path, "deliveryAttributeMappings"_L1);
        if (error.row < 0) {
            label = tr("Delivery headers");
        } else {
            const QString number = QString::number(error.row + 1);
            label = path.endsWith(".name"_L1)      ? tr("Header %1 name").arg(number)
                : path.endsWith(".value"_L1)       ? tr("Header %1 value").arg(number)
                : path.endsWith(".sourceField"_L1) ? tr("Header %1 source field").arg(number)
                                                   : tr("Header %1").arg(number);
        }
    } else if (path.contains("advancedFilters"_L1)) {
        error.field = Field::AdvancedFilters;
        error.row = indexAfter(path, "advancedFilters"_L1);
        if (error.row < 0) {
            label = tr("Advanced filters");
        } else {
            const QString number = QString::number(error.row + 1);
            const int valueIndex = indexAfter(path, "values"_L1);
            label = valueIndex >= 0
                ? tr("Advanced filter %1 value %2").arg(number).arg(valueIndex + 1)
                : path.endsWith(".key"_L1)    ? tr("Advanced filter %1 key").arg(number)
                : path.endsWith(".values"_L1) ? tr("Advanced filter %1 values").arg(number)
                : path.endsWith(".value"_L1)  ? tr("Advanced filter %1 value").arg(number)
                                              : tr("Advanced filter %1").arg(number);
        }
    } else if (path.endsWith("eventDeliverySchema"_L1)) {
        error.field = Field::DeliverySchema;
        label = tr("Delivery schema");
    } else if (path.endsWith("deadLetterDestination.properties.blobContainerName"_L1)) {
        error.field = Field::DeadLetterContainer;
        label = tr("Dead-letter container");
    } else if (path.endsWith("deadLetterDestination.properties.accountName"_L1)) {
        error.field = Field::DeadLetterAccount;
        label = tr("Storage account name");
    } else if (path.endsWith("deadLetterDestination.properties.blobEndpoint"_L1)) {
        error.field = Field::DeadLetterEndpoint;
        label = tr("Blob endpoint");
    } else if (path.endsWith("deadLetterDestination.properties.resourceId"_L1)) {
        if (m_deadLetterResourceIdEdit->text().trimmed().isEmpty()) {
            // The user gave neither: ask for the field they can see first.
            error.field = Field::DeadLetterAccount;
            error.message = tr("Storage account name is required for an Azure Blob destination "
                               "(3 to 24 characters of a–z and 0–9)");
            return error;
        }
        error.field = Field::DeadLetterResourceId;
        label = tr("Resource ID");
    } else {
        error.field = Field::General;
        error.message = coreMessage;
        return error;
    }
    error.message = label + u' ' + text;
    return error;
}

QList<SubscriptionEditor::FieldError>
SubscriptionEditor::collectErrors(const EventSubscription &subscription) const
{
    QList<FieldError> errors;
    const QHash<int, QString> parseErrors = m_filterModel->parseErrors();
    QList<int> parseRows = parseErrors.keys();
    std::sort(parseRows.begin(), parseRows.end());
    for (const int row : std::as_const(parseRows)) {
        errors.append(
            {Field::AdvancedFilters, row,
             tr("Advanced filter %1 values: %2").arg(row + 1).arg(parseErrors.value(row))});
    }

    // The core reports the first problem only. To show every problem at once, replace the field
    // it names with a value known to be valid and ask again; the messages stay the core's own.
    EventSubscription probe = subscription;
    QStringList seenPaths;
    for (int round = 0; round < 64; ++round) {
        const Expected<void> result = validateEventSubscription(probe, m_topicInputSchema);
        if (result)
            break;
        const QString message = result.error();
        const QString path = message.section(u": "_s, 0, 0);
        if (seenPaths.contains(path))
            break;
        seenPaths.append(path);
        const FieldError error = describeCoreError(message);
        const bool duplicateRow = error.row >= 0 && error.field == Field::AdvancedFilters
            && parseErrors.contains(error.row);
        if (!duplicateRow)
            errors.append(error);

        switch (error.field) {
        case Field::Name:
            probe.name = u"placeholder-name"_s;
            break;
        case Field::Endpoint:
            probe.endpointUrl = QUrl(u"http://localhost/"_s);
            break;
        case Field::MaxAttempts:
            probe.retryPolicy.maxDeliveryAttempts = RetryPolicy::MaxAttempts;
            break;
        case Field::TimeToLive:
            probe.retryPolicy.eventTimeToLiveInMinutes = RetryPolicy::MaxTtlMinutes;
            break;
        case Field::MaxEvents:
            probe.batchPolicy.maxEventsPerBatch = 1;
            break;
        case Field::PreferredSize:
            probe.batchPolicy.preferredBatchSizeInKilobytes = 64;
            break;
        case Field::Headers:
            if (error.row >= 0 && error.row < probe.deliveryHeaders.size()) {
                DeliveryHeader placeholder;
                placeholder.name = u"X-EventDesk-Check-%1"_s.arg(error.row);
                probe.deliveryHeaders[error.row] = placeholder;
            } else {
                probe.deliveryHeaders.resize(
                    std::min<qsizetype>(probe.deliveryHeaders.size(), DeliveryHeader::MaxHeaders));
            }
            break;
        case Field::AdvancedFilters:
            if (error.row >= 0 && error.row < probe.filter.advancedFilters.size()) {
                AdvancedFilter placeholder;
                placeholder.op = FilterOperator::IsNotNull;
                placeholder.key = u"subject"_s;
                probe.filter.advancedFilters[error.row] = placeholder;
            } else {
                probe.filter.advancedFilters.clear();
            }
            break;
        case Field::DeliverySchema:
            probe.deliverySchema = m_topicInputSchema;
            break;
        case Field::DeadLetterResourceId:
        case Field::DeadLetterContainer:
        case Field::DeadLetterAccount:
        case Field::DeadLetterEndpoint:
            probe.deadLetterDestination = DeadLetterDestination();
            break;
        case Field::General:
            return errors;
        }
    }
    return errors;
}

void SubscriptionEditor::revalidate()
{
    const bool wasValid = m_errors.isEmpty();
    const EventSubscription current = subscription();
    m_errors = collectErrors(current);

    QMap<Field, QStringList> messages;
    QHash<int, QString> headerRows;
    QHash<int, QString> filterRows;
    for (const FieldError &error : std::as_const(m_errors)) {
        messages[error.field].append(error.message);
        if (error.field == Field::Headers && error.row >= 0)
            headerRows.insert(error.row, error.message);
        if (error.field == Field::AdvancedFilters && error.row >= 0)
            filterRows.insert(error.row, error.message);
    }
    for (auto it = m_errorLabels.cbegin(); it != m_errorLabels.cend(); ++it) {
        const QStringList fieldMessages = messages.value(it.key());
        it.value()->setText(fieldMessages.join(u'\n'));
        it.value()->setVisible(!fieldMessages.isEmpty());
    }
    m_headerModel->setRowErrors(headerRows);
    m_filterModel->setRowErrors(filterRows);

    updateTtlHours();
    updateCounts();
    updateTimeline();
    updateSaveState();
    if (wasValid != m_errors.isEmpty())
        Q_EMIT validityChanged(m_errors.isEmpty());
}

QString SubscriptionEditor::validationMessage() const
{
    return m_errors.isEmpty() ? QString() : m_errors.constFirst().message;
}

void SubscriptionEditor::updateSaveState()
{
    const bool valid = m_errors.isEmpty();
    m_saveButton->setEnabled(valid && m_modified);
    m_revertButton->setEnabled(m_modified && !(m_isNew && stateKey() == m_originalKey));
    m_saveButton->setToolTip(valid ? tr("Save the subscription to the workspace")
                                   : tr("Fix the problems shown first"));

    const int iconSize = m_summaryIcon->width();
    if (!valid) {
        m_summaryIcon->setPixmap(style()
                                     ->standardIcon(QStyle::SP_MessageBoxWarning, nullptr, this)
                                     .pixmap(iconSize, iconSize, QIcon::Normal));
        const QString first = m_errors.constFirst().message.toHtmlEscaped();
        const QString text = m_errors.size() == 1
            ? first
            : tr("%1 problems. First: %2").arg(m_errors.size()).arg(first);
        m_summaryLabel->setText(text + u" <a href=\"#show\">"_s + tr("Show") + u"</a>"_s);
    } else {
        m_summaryIcon->setPixmap(style()
                                     ->standardIcon(QStyle::SP_DialogApplyButton, nullptr, this)
                                     .pixmap(iconSize, iconSize, QIcon::Normal));
        const QString text = m_isNew ? tr("New subscription, not saved yet.")
            : m_modified             ? tr("Unsaved changes.")
                                     : tr("No unsaved changes.");
        m_summaryLabel->setText(text.toHtmlEscaped());
    }
}

void SubscriptionEditor::updateTtlHours()
{
    const int minutes = m_ttlSpin->value();
    QString hours;
    if (minutes % 60 == 0) {
        hours = QLocale().toString(minutes / 60);
    } else {
        hours = QLocale().toString(minutes / 60.0, 'f', 2);
        const QChar point = QLocale().decimalPoint().front();
        while (hours.endsWith(u'0'))
            hours.chop(1);
        if (hours.endsWith(point))
            hours.chop(1);
    }
    m_ttlHoursLabel->setText(tr("= %1 h").arg(hours));
}

void SubscriptionEditor::updateCounts()
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

    const int headers = m_headerModel->rowCount();
    m_headerCountLabel->setText(
        tr("%1 of %2 headers").arg(headers).arg(DeliveryHeader::MaxHeaders));
    m_addHeaderButton->setEnabled(m_headerModel->canAddHeader());
    m_addHeaderButton->setToolTip(
        m_headerModel->canAddHeader()
            ? tr("Add a delivery header")
            : tr("At most %1 delivery headers (SPEC H1)").arg(DeliveryHeader::MaxHeaders));
    m_removeHeaderButton->setEnabled(m_headerView->currentIndex().isValid());
}

void SubscriptionEditor::updateTimeline()
{
    RetryPolicy policy;
    policy.maxDeliveryAttempts = m_maxAttemptsSpin->value();
    policy.eventTimeToLiveInMinutes = m_ttlSpin->value();
    const bool hasDeadLetter
        = m_deadLetterCombo->currentData().toInt() != int(DeadLetterDestination::Kind::None);
    if (policy.maxDeliveryAttempts != m_timeline->policy().maxDeliveryAttempts
        || policy.eventTimeToLiveInMinutes != m_timeline->policy().eventTimeToLiveInMinutes
        || hasDeadLetter != m_timeline->hasDeadLetterDestination()) {
        m_timeline->setPolicy(policy, hasDeadLetter);
    }
}

void SubscriptionEditor::focusField(Field field, int row)
{
    QWidget *widget = m_fieldWidgets.value(field);
    if (!widget)
        return;
    m_scroll->ensureWidgetVisible(widget);
    widget->setFocus(Qt::OtherFocusReason);
    if (row >= 0) {
        if (field == Field::Headers)
            m_headerView->setCurrentIndex(m_headerModel->index(row, 0));
        else if (field == Field::AdvancedFilters)
            m_filterView->setCurrentIndex(m_filterModel->index(row, 0));
    }
}

void SubscriptionEditor::onSaveClicked()
{
    revalidate();
    if (!m_errors.isEmpty()) {
        focusField(m_errors.constFirst().field, m_errors.constFirst().row);
        return;
    }
    Q_EMIT saveRequested(subscription());
}

void SubscriptionEditor::onRevertClicked()
{
    populate(m_original);
    Q_EMIT revertRequested();
}

void SubscriptionEditor::markSaved()
{
    m_original = subscription();
    m_isNew = false;
    m_nameEdit->setReadOnly(true);
    m_nameEdit->setToolTip(tr("The name of an existing subscription cannot change"));
    m_titleLabel->setText(
        m_topicName.isEmpty()
            ? tr("Event subscription “%1”").arg(m_original.name)
            : tr("Event subscription “%1” in topic “%2”").arg(m_original.name, m_topicName));
    m_saveErrorLabel->hide();
    m_originalKey = stateKey();
    const bool wasModified = m_modified;
    m_modified = false;
    updateSaveState();
    if (wasModified)
        Q_EMIT modifiedChanged(false);
}

void SubscriptionEditor::showSaveError(const QString &message)
{
    m_saveErrorLabel->setText(tr("Not saved: %1").arg(message));
    m_saveErrorLabel->show();
    // A message that names a field ("properties.retryPolicy...: ...") leads to that field.
    const FieldError error = describeCoreError(message);
    if (error.field != Field::General)
        focusField(error.field, error.row);
}

SubscriptionEditor::DiscardChoice SubscriptionEditor::askToSave(QWidget *parent,
                                                                const QString &name)
{
    QMessageBox box(parent);
    box.setIcon(QMessageBox::Warning);
    box.setWindowTitle(tr("Unsaved changes"));
    box.setText(name.isEmpty() ? tr("The new event subscription has not been saved.")
                               : tr("Event subscription “%1” has unsaved changes.").arg(name));
    box.setInformativeText(tr("Save them before you leave the editor?"));
    box.setStandardButtons(QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    box.setDefaultButton(QMessageBox::Save);
    box.setEscapeButton(QMessageBox::Cancel);
    switch (box.exec()) {
    case QMessageBox::Save:
        return DiscardChoice::Save;
    case QMessageBox::Discard:
        return DiscardChoice::Discard;
    default:
        return DiscardChoice::Cancel;
    }
}

void SubscriptionEditor::scheduleHostLookup()
{
    m_hostWarning->hide();
    if (m_hostLookupId >= 0) {
        QHostInfo::abortHostLookup(m_hostLookupId);
        m_hostLookupId = -1;
    }
    m_hostLookupTimer->start();
}

void SubscriptionEditor::lookUpHost()
{
    const QUrl url(m_endpointEdit->text().trimmed(), QUrl::StrictMode);
    const QString host = url.host();
    // Only a well-formed http(s) URL with a name: the format errors are shown already, and an
    // address literal needs no lookup.
    if (!url.isValid() || (url.scheme() != "http"_L1 && url.scheme() != "https"_L1) || host.isEmpty()
        || !QHostAddress(host).isNull())
        return;
    m_hostLookupId = QHostInfo::lookupHost(host, this, &SubscriptionEditor::onHostLookedUp);
}

void SubscriptionEditor::onHostLookedUp(const QHostInfo &info)
{
    if (info.lookupId() != m_hostLookupId)
        return; // an answer for a host the field no longer names
    m_hostLookupId = -1;
    if (info.error() == QHostInfo::NoError && !info.addresses().isEmpty()) {
        m_hostWarning->hide();
        return;
    }
    m_hostWarning->setText(tr("The host “%1” does not resolve (%2). Deliveries and the validation "
                              "handshake fail (ResolutionError) until it does; EventDesk keeps retrying.")
                               .arg(info.hostName(), info.errorString()));
    m_hostWarning->show();
}

void SubscriptionEditor::applyErrorPalette()
{
    const QColor color = errorTextColor(palette());
    const auto paint = [&color](QLabel *label) {
        QPalette pal = label->palette();
        pal.setColor(QPalette::WindowText, color);
        label->setPalette(pal);
    };
    for (QLabel *label : std::as_const(m_errorLabels))
        paint(label);
    paint(m_saveErrorLabel);
    QPalette warning = m_hostWarning->palette();
    warning.setColor(QPalette::WindowText, outcomeColor(DeliveryOutcome::Busy)); // amber: a warning
    m_hostWarning->setPalette(warning);
}

void SubscriptionEditor::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && m_saveErrorLabel)
        applyErrorPalette();
}

} // namespace EventDesk::Ui
