// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "ReceiversView.h"

#include "ReceivedRequestModel.h"
#include "ReceiverListModel.h"
#include "common/Format.h"
#include "host/EngineHost.h"
#include "rules/OutcomeClassifier.h"
#include "secrets/SecretMasking.h"
#include "workspace/WorkspaceFolder.h"

#include <QCheckBox>
#include <QDir>
#include <QFontDatabase>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPointer>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// The names of the workspace's secret delivery headers (SPEC H2): their values are masked too.
QStringList secretDeliveryHeaderNames(const Workspace &workspace)
{
    QStringList names;
    for (const Topic &topic : workspace.topics) {
        for (const EventSubscription &subscription : topic.eventSubscriptions) {
            for (const DeliveryHeader &header : subscription.deliveryHeaders) {
                if (header.kind == DeliveryHeader::Kind::Static && header.secret
                    && !names.contains(header.name, Qt::CaseInsensitive))
                    names << header.name;
            }
        }
    }
    return names;
}

QPlainTextEdit *makeDetailText(const QString &placeholder, QWidget *parent)
{
    auto *edit = new QPlainTextEdit(parent);
    edit->setReadOnly(true);
    edit->setLineWrapMode(QPlainTextEdit::NoWrap);
    edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    edit->setPlaceholderText(placeholder);
    edit->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    return edit;
}

QWidget *titled(const QString &title, QWidget *content, QLabel **titleLabel = nullptr)
{
    auto *box = new QWidget;
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *label = new QLabel(title, box);
    QFont font = label->font();
    font.setBold(true);
    label->setFont(font);
    label->setBuddy(content);
    layout->addWidget(label);
    layout->addWidget(content, 1);
    if (titleLabel)
        *titleLabel = label;
    return box;
}

} // namespace

ReceiversView::ReceiversView(EngineHost *host, QWidget *parent)
    : QWidget(parent)
    , m_host(host)
    , m_receiverModel(new ReceiverListModel(this))
    , m_requestModel(new ReceivedRequestModel(this))
{
    m_hint = new QLabel(this);
    m_hint->setObjectName(u"receiversHint"_s);
    m_hint->setWordWrap(true);
    m_hint->setTextFormat(Qt::RichText);
    m_hint->setOpenExternalLinks(true);
    m_hint->setTextInteractionFlags(Qt::TextBrowserInteraction);

    m_receiverView = new QTreeView(this);
    m_receiverView->setObjectName(u"receiverList"_s);
    m_receiverView->setModel(m_receiverModel);
    m_receiverView->setRootIsDecorated(false);
    m_receiverView->setUniformRowHeights(true);
    m_receiverView->setAlternatingRowColors(true);
    m_receiverView->setAllColumnsShowFocus(true);
    m_receiverView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_receiverView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_receiverView->header()->setStretchLastSection(true);
    m_receiverView->header()->setSectionResizeMode(ReceiverListModel::NameColumn, QHeaderView::ResizeToContents);
    m_receiverView->header()->setSectionResizeMode(ReceiverListModel::ScriptColumn, QHeaderView::Interactive);
    m_receiverView->header()->setSectionResizeMode(ReceiverListModel::RequestsColumn, QHeaderView::ResizeToContents);
    m_receiverView->header()->resizeSection(ReceiverListModel::ScriptColumn,
                                            m_receiverView->fontMetrics().horizontalAdvance(
                                                u"503, 503, 200 then repeat; delay 2 s"_s));
    m_receiverView->setToolTip(tr("The built-in test receivers of this workspace"));

    m_requestView = new QTableView(this);
    m_requestView->setObjectName(u"requestTable"_s);
    m_requestView->setModel(m_requestModel);
    m_requestView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_requestView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_requestView->setAlternatingRowColors(true);
    m_requestView->setWordWrap(false);
    m_requestView->setShowGrid(false);
    m_requestView->verticalHeader()->hide();
    m_requestView->verticalHeader()->setDefaultSectionSize(m_requestView->fontMetrics().height() + 8);
    m_requestView->horizontalHeader()->setHighlightSections(false);
    m_requestView->horizontalHeader()->setStretchLastSection(false);
    for (int column = 0; column < ReceivedRequestModel::ColumnCount; ++column) {
        m_requestView->horizontalHeader()->setSectionResizeMode(
            column, column == ReceivedRequestModel::EventTypeColumn ? QHeaderView::Stretch
                                                                    : QHeaderView::ResizeToContents);
    }
    m_requestView->setToolTip(tr("Every request the selected receiver recorded, oldest first "
                                 "(the last %n are kept)", nullptr, ReceivedRequestModel::Capacity));

    m_requestText = makeDetailText(tr("Select a request to see its headers and body."), this);
    m_requestText->setObjectName(u"requestDetail"_s);
    m_responseText = makeDetailText(tr("Select a request to see the answer it was given."), this);
    m_responseText->setObjectName(u"responseDetail"_s);

    // Masked by default: a screen shared or recorded must not show an endpoint's credentials.
    m_revealSecrets = new QCheckBox(tr("Show &secret values"), this);
    m_revealSecrets->setObjectName(u"revealSecrets"_s);
    m_revealSecrets->setToolTip(
        tr("Shows the values of credential headers (%1), of the workspace's secret delivery "
           "headers and of the request's query parameters, which are masked otherwise.")
            .arg(SecretMasking::credentialHeaderNames().join(u", "_s)));
    connect(m_revealSecrets, &QCheckBox::toggled, this,
            [this] { showRequest(m_requestView->currentIndex()); });

    auto *detail = new QSplitter(Qt::Horizontal, this);
    detail->setChildrenCollapsible(false);
    detail->addWidget(titled(tr("&Request"), m_requestText));
    detail->addWidget(titled(tr("Res&ponse"), m_responseText));
    detail->setStretchFactor(0, 3);
    detail->setStretchFactor(1, 2);
    auto *detailBox = new QWidget(this);
    auto *detailLayout = new QVBoxLayout(detailBox);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addWidget(detail, 1);
    detailLayout->addWidget(m_revealSecrets);

    auto *right = new QSplitter(Qt::Vertical, this);
    right->setChildrenCollapsible(false);
    right->addWidget(titled(tr("Requests received"), m_requestView, &m_requestsTitle));
    right->addWidget(detailBox);
    right->setStretchFactor(0, 1);
    right->setStretchFactor(1, 1);

    auto *main = new QSplitter(Qt::Horizontal, this);
    main->setChildrenCollapsible(false);
    main->addWidget(titled(tr("Rece&ivers"), m_receiverView));
    main->addWidget(right);
    main->setStretchFactor(0, 2);
    main->setStretchFactor(1, 3);
    main->setSizes({560, 840});

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_hint);
    layout->addWidget(main, 1);

    connect(m_receiverView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { showReceiver(current); });
    connect(m_requestView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { showRequest(current); });
    connect(m_requestModel, &ReceivedRequestModel::recordsAdded, this, &ReceiversView::onRecordsAdded);
    connect(m_requestModel, &QAbstractItemModel::modelReset, this, [this] { showRequest({}); });
    // Follow the newest request while the list is scrolled to its end; stay put otherwise.
    connect(m_requestModel, &QAbstractItemModel::rowsAboutToBeInserted, this, [this] {
        const QScrollBar *bar = m_requestView->verticalScrollBar();
        m_followNewest = bar->value() >= bar->maximum();
    });
    connect(m_requestModel, &QAbstractItemModel::rowsInserted, this, [this] {
        if (m_followNewest)
            m_requestView->scrollToBottom();
    });

    if (m_host) {
        connect(m_host, &EngineHost::started, this,
                [this](bool ok, const QString &, const QString &) { onEngineStarted(ok); });
        connect(m_host, &EngineHost::workspaceChanged, this, &ReceiversView::reload);
        connect(m_host, &EngineHost::receiverRequestsRecorded, m_requestModel,
                &ReceivedRequestModel::addRecords);
    }
    reload();
}

ReceiversView::~ReceiversView() = default;

void ReceiversView::onEngineStarted(bool ok)
{
    // A (re)started engine numbers its requests from 1 again: what was held belongs to the past.
    ++m_generation;
    m_requestModel->clear();
    m_receiverModel->clearCounts();
    if (ok)
        reload();
    else
        updateHint();
}

void ReceiversView::reload()
{
    const QString selected = m_receiverView->currentIndex().isValid()
        ? m_receiverView->currentIndex().data(ReceiverListModel::ReceiverNameRole).toString()
        : QString();
    const QList<TestReceiver> receivers = m_host ? m_host->workspace().receivers : QList<TestReceiver>();
    m_requestModel->setSecretHeaderNames(m_host ? secretDeliveryHeaderNames(m_host->workspace())
                                                : QStringList());
    QStringList names;
    for (const TestReceiver &receiver : receivers)
        names << receiver.name;
    m_requestModel->retainReceivers(names);
    m_receiverModel->setReceivers(receivers, m_host ? m_host->listenUrl() : QString());
    for (const QString &name : std::as_const(names))
        m_receiverModel->setReceivedCount(name, m_requestModel->lastSequence(name));
    updateHint();

    int row = selected.isEmpty() ? -1 : m_receiverModel->rowOf(selected);
    if (row < 0 && m_receiverModel->rowCount() > 0)
        row = 0;
    if (row >= 0)
        m_receiverView->setCurrentIndex(m_receiverModel->index(row, ReceiverListModel::NameColumn));
    else
        showReceiver({});

    if (!m_host || !m_host->isRunning())
        return;
    QPointer<ReceiversView> self(this);
    const quint64 generation = m_generation;
    for (const QString &name : std::as_const(names)) {
        m_host->receiverRecords(name, m_requestModel->lastSequence(name),
                                [self, generation](const QList<ReceivedRequest> &records) {
                                    if (self && self->m_generation == generation)
                                        self->m_requestModel->addRecords(records);
                                });
    }
}

void ReceiversView::updateHint()
{
    const QString directory = m_host ? m_host->config().workspaceDirectory : QString();
    if (directory.isEmpty()) {
        m_hint->setText(tr("Receivers are defined in workspace.json (\"receivers\")").toHtmlEscaped());
        return;
    }
    const QString file = QDir(WorkspaceFolder::workspaceFile(directory)).absolutePath();
    m_hint->setText(tr("Receivers are defined in workspace.json (\"receivers\"): %1")
                        .toHtmlEscaped()
                        .arg(u"<a href=\"%1\">%2</a>"_s.arg(QUrl::fromLocalFile(file).toString(QUrl::FullyEncoded),
                                                            QDir::toNativeSeparators(file).toHtmlEscaped())));
    m_hint->setToolTip(tr("Edit the file and reopen the workspace to change a receiver's script. "
                          "An event subscription reaches a receiver at its URL."));
}

void ReceiversView::onRecordsAdded(const QStringList &receiverKeys)
{
    for (const QString &key : receiverKeys)
        m_receiverModel->setReceivedCount(key, m_requestModel->lastSequence(key));
    const QString current = m_requestModel->currentReceiver();
    if (!current.isEmpty() && receiverKeys.contains(current)) {
        const int row = m_receiverModel->rowOf(current);
        if (row >= 0)
            showReceiver(m_receiverModel->index(row, 0));
    }
}

void ReceiversView::showReceiver(const QModelIndex &current)
{
    if (!current.isValid()) {
        m_requestModel->setCurrentReceiver(QString());
        m_requestsTitle->setText(tr("Requests received"));
        return;
    }
    const QString name = current.siblingAtColumn(0).data(ReceiverListModel::ReceiverNameRole).toString();
    m_requestModel->setCurrentReceiver(name);
    const quint64 total = m_requestModel->lastSequence(name);
    const int held = m_requestModel->recordCount(name);
    if (quint64(held) < total)
        m_requestsTitle->setText(tr("Requests received by %1: %2 (the last %3 are shown)")
                                     .arg(name).arg(total).arg(held));
    else
        m_requestsTitle->setText(tr("Requests received by %1: %2").arg(name).arg(total));
}

void ReceiversView::showRequest(const QModelIndex &current)
{
    if (!current.isValid() || current.row() >= m_requestModel->rowCount()) {
        m_requestText->clear();
        m_responseText->clear();
        return;
    }
    const ReceivedRequest &record = m_requestModel->record(current.row());
    const auto display = m_revealSecrets->isChecked()
        ? ReceivedRequestModel::SecretDisplay::Revealed
        : ReceivedRequestModel::SecretDisplay::Masked;
    QString request = QString::fromLatin1(record.method) + u' '
        + ReceivedRequestModel::targetText(record.target, display) + "  ("_L1
        + ReceivedRequestModel::kindText(record.kind) + "; "_L1 + formatTime(record.receivedMs)
        + ")\n"_L1 + m_requestModel->headersText(record.headers, display);
    if (!record.body.isEmpty())
        request += u'\n' + prettyJson(record.body);
    m_requestText->setPlainText(request);

    QString response;
    if (record.responseStatus == 0) {
        response = tr("The connection was closed without an answer.") + u'\n';
        if (record.retransmission)
            response += tr("This was the sender's retransmission of the request dropped just before; "
                           "it counts as the same attempt.")
                + u'\n';
    } else {
        response = tr("HTTP %1").arg(record.responseStatus) + u'\n'
            + m_requestModel->headersText(record.responseHeaders, display);
    }
    if (record.kind == ReceivedRequest::Kind::Notification) {
        const DeliveryOutcome outcome = OutcomeClassifier::classify(
            record.responseStatus,
            record.responseStatus == 0 ? QNetworkReply::RemoteHostClosedError : QNetworkReply::NoError);
        if (outcome == DeliveryOutcome::Delivered)
            response += tr("Outcome for Event Grid: delivered.") + u'\n';
        else if (OutcomeClassifier::isNoRetry(outcome))
            response += tr("Outcome for Event Grid: %1, not retried.").arg(deliveryOutcomeName(outcome)) + u'\n';
        else
            response += tr("Outcome for Event Grid: %1, retried.").arg(deliveryOutcomeName(outcome)) + u'\n';
    }
    if (record.delayMs > 0)
        response += tr("Held back for %1 before answering.").arg(formatLatency(record.delayMs)) + u'\n';
    if (!record.responseBody.isEmpty())
        response += u'\n' + prettyJson(record.responseBody);
    m_responseText->setPlainText(response);
}

} // namespace EventDesk::Ui
