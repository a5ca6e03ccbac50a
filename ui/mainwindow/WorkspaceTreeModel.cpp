// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "WorkspaceTreeModel.h"

#include "common/Appearance.h"
#include "common/Format.h"
#include "engine/Provisioning.h"

#include <QApplication>
#include <QFont>
#include <QIcon>
#include <QPainter>
#include <QPalette>
#include <QPixmap>
#include <QPolygonF>

#include <algorithm>
#include <limits>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// Subscription rows carry their topic's row + 1 as internal id; topic rows carry 0.
constexpr quintptr TopicMarker = 0;

QString schemaLabel(EventSchema schema)
{
    switch (schema) {
    case EventSchema::EventGrid:
        return QCoreApplication::translate("WorkspaceTreeModel", "Event Grid schema");
    case EventSchema::CloudEvents10:
        return QCoreApplication::translate("WorkspaceTreeModel", "CloudEvents 1.0");
    case EventSchema::Custom:
        return QCoreApplication::translate("WorkspaceTreeModel", "Custom schema");
    }
    return {};
}

// A small status badge for the name column (a plain QColor decoration fills the row). Its shape
// says the state as well as its colour does, for readers who cannot tell the colours apart:
// a disc when healthy, a triangle when waiting (probation, validation pending), a diamond while
// probing, a square when validation failed, a ring when disabled.
QIcon stateBadge(WorkspaceTreeModel::Badge badge, const QColor &color)
{
    static QHash<QPair<int, QRgb>, QIcon> cache;
    const QPair<int, QRgb> key(int(badge), color.rgba());
    auto it = cache.constFind(key);
    if (it != cache.cend())
        return *it;
    QIcon icon;
    for (int size : {12, 16, 24, 32}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(QPen(color.darker(130), size / 12.0));
        painter.setBrush(color);
        const qreal margin = size * 0.15;
        const QRectF box(margin, margin, size - 2 * margin, size - 2 * margin);
        switch (badge) {
        case WorkspaceTreeModel::Badge::Healthy:
            painter.drawEllipse(box.adjusted(size * 0.05, size * 0.05, -size * 0.05, -size * 0.05));
            break;
        case WorkspaceTreeModel::Badge::Waiting:
            painter.drawPolygon(QPolygonF {QPointF(box.center().x(), box.top()), box.bottomRight(),
                                           box.bottomLeft()});
            break;
        case WorkspaceTreeModel::Badge::Probing:
            painter.drawPolygon(QPolygonF {
                QPointF(box.center().x(), box.top()), QPointF(box.right(), box.center().y()),
                QPointF(box.center().x(), box.bottom()), QPointF(box.left(), box.center().y())});
            break;
        case WorkspaceTreeModel::Badge::Failed:
            painter.drawRect(box.adjusted(size * 0.08, size * 0.08, -size * 0.08, -size * 0.08));
            break;
        case WorkspaceTreeModel::Badge::Disabled:
            painter.setPen(QPen(color, size / 8.0));
            painter.setBrush(Qt::NoBrush);
            painter.drawEllipse(box.adjusted(size * 0.08, size * 0.08, -size * 0.08, -size * 0.08));
            break;
        }
        painter.end();
        icon.addPixmap(pixmap);
    }
    cache.insert(key, icon);
    return icon;
}

} // namespace

WorkspaceTreeModel::WorkspaceTreeModel(QObject *parent)
    : QAbstractItemModel(parent)
{
}

void WorkspaceTreeModel::setWorkspace(const Workspace &workspace)
{
    // Keep the live state of subscriptions that survive the change.
    QHash<QString, SubscriptionRow> previous;
    for (const TopicRow &topic : std::as_const(m_topics)) {
        for (const SubscriptionRow &subscription : topic.subscriptions)
            previous.insert(topic.name.toLower() + u'/' + subscription.name.toLower(), subscription);
    }
    beginResetModel();
    m_topics.clear();
    for (const Topic &topic : workspace.topics) {
        TopicRow row;
        row.name = topic.name;
        row.inputSchema = topic.inputSchema;
        row.counters.topic = topic.name;
        for (const EventSubscription &subscription : topic.eventSubscriptions) {
            SubscriptionRow child = previous.value(topic.name.toLower() + u'/' + subscription.name.toLower());
            child.name = subscription.name;
            // "webhook http://...", "storage queue 'orders' of account 'dev'": a webhook's query
            // and user info are left out, as they may carry a key.
            child.destination
                = Destinations::describe(subscription.destination, subscription.endpointUrl);
            child.enabled = subscription.enabled;
            row.subscriptions.append(child);
        }
        m_topics.append(row);
    }
    endResetModel();
}

template<typename Change> void WorkspaceTreeModel::announceChanges(Change change)
{
    // What every row draws before the change, then after it.
    QList<QVariantList> topicsBefore;
    QList<QList<QVariantList>> subscriptionsBefore;
    topicsBefore.reserve(m_topics.size());
    subscriptionsBefore.reserve(m_topics.size());
    for (const TopicRow &topic : std::as_const(m_topics)) {
        topicsBefore.append(paintedValues(topic));
        QList<QVariantList> rows;
        rows.reserve(topic.subscriptions.size());
        for (const SubscriptionRow &subscription : topic.subscriptions)
            rows.append(paintedValues(topic, subscription));
        subscriptionsBefore.append(rows);
    }
    change();
    for (int topicRow = 0; topicRow < m_topics.size(); ++topicRow) {
        const TopicRow &topic = m_topics.at(topicRow);
        const QModelIndex parentIndex = index(topicRow, 0);
        // Runs of changed rows, each announced once.
        int firstChanged = -1;
        const auto announce = [&](int endRow) {
            if (firstChanged >= 0)
                Q_EMIT dataChanged(index(firstChanged, NameColumn, parentIndex),
                                   index(endRow - 1, DeadLetterColumn, parentIndex));
            firstChanged = -1;
        };
        for (int row = 0; row < topic.subscriptions.size(); ++row) {
            if (paintedValues(topic, topic.subscriptions.at(row)) != subscriptionsBefore.at(topicRow).at(row)) {
                if (firstChanged < 0)
                    firstChanged = row;
            } else {
                announce(row);
            }
        }
        announce(int(topic.subscriptions.size()));
        // The topic's row sums its subscriptions.
        if (paintedValues(topic) != topicsBefore.at(topicRow))
            Q_EMIT dataChanged(index(topicRow, StateColumn), index(topicRow, DeadLetterColumn));
    }
}

void WorkspaceTreeModel::applySnapshot(const EngineSnapshot &snapshot)
{
    m_nowMs = snapshot.nowMs;
    const auto key = [](const QString &topic, const QString &subscription) -> QString {
        return topic.toCaseFolded() + u'/' + subscription.toCaseFolded();
    };
    QHash<QString, const TopicSnapshot *> topics;
    for (const TopicSnapshot &counters : snapshot.topics)
        topics.insert(counters.topic.toCaseFolded(), &counters);
    QHash<QString, const SubscriptionSnapshot *> subscriptions;
    for (const SubscriptionSnapshot &state : snapshot.subscriptions)
        subscriptions.insert(key(state.topic, state.subscription), &state);

    announceChanges([&] {
        for (TopicRow &topic : m_topics) {
            if (const TopicSnapshot *counters = topics.value(topic.name.toCaseFolded())) {
                topic.counters = *counters;
                topic.hasCounters = true;
            }
            for (SubscriptionRow &subscription : topic.subscriptions) {
                if (const SubscriptionSnapshot *state
                    = subscriptions.value(key(topic.name, subscription.name))) {
                    subscription.state = *state;
                    subscription.hasState = true;
                }
            }
        }
    });
}

void WorkspaceTreeModel::setTotals(const std::optional<StoreTotals> &totals)
{
    if (totals == m_totals)
        return;
    announceChanges([&] { m_totals = totals; });
}

TopicTotals WorkspaceTreeModel::topicTotals(const TopicRow &topic) const
{
    return m_totals ? m_totals->topic(topic.name) : TopicTotals();
}

SubscriptionTotals WorkspaceTreeModel::subscriptionTotals(const TopicRow &topic,
                                                          const SubscriptionRow &subscription) const
{
    return m_totals ? m_totals->subscription(topic.name, subscription.name) : SubscriptionTotals();
}

quint64 WorkspaceTreeModel::topicDeadLettered(const TopicRow &topic) const
{
    quint64 deadLetters = 0;
    for (const SubscriptionRow &subscription : topic.subscriptions)
        deadLetters += subscriptionTotals(topic, subscription).deadLettered();
    return deadLetters;
}

QVariantList WorkspaceTreeModel::paintedValues(const TopicRow &topic) const
{
    QVariantList values;
    for (int column = StateColumn; column <= DeadLetterColumn; ++column)
        values.append(topicData(topic, column, Qt::DisplayRole));
    return values;
}

QVariantList WorkspaceTreeModel::paintedValues(const TopicRow &topic,
                                               const SubscriptionRow &subscription) const
{
    QVariantList values {QVariant::fromValue(badgeOf(subscription)), badgeColor(subscription)};
    for (int column = StateColumn; column <= DeadLetterColumn; ++column) {
        values.append(subscriptionData(topic, subscription, column, Qt::DisplayRole));
        values.append(subscriptionData(topic, subscription, column, Qt::ForegroundRole));
    }
    return values;
}

QModelIndex WorkspaceTreeModel::topicIndex(const QString &topic) const
{
    for (int row = 0; row < m_topics.size(); ++row) {
        if (m_topics.at(row).name.compare(topic, Qt::CaseInsensitive) == 0)
            return index(row, 0);
    }
    return {};
}

QModelIndex WorkspaceTreeModel::subscriptionIndex(const QString &topic, const QString &subscription) const
{
    const QModelIndex parentIndex = topicIndex(topic);
    if (!parentIndex.isValid())
        return {};
    const TopicRow &row = m_topics.at(parentIndex.row());
    for (int child = 0; child < row.subscriptions.size(); ++child) {
        if (row.subscriptions.at(child).name.compare(subscription, Qt::CaseInsensitive) == 0)
            return index(child, 0, parentIndex);
    }
    return {};
}

QModelIndex WorkspaceTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < m_topics.size() ? createIndex(row, column, TopicMarker) : QModelIndex();
    if (parent.internalId() != TopicMarker || parent.row() >= m_topics.size())
        return {};
    if (row >= m_topics.at(parent.row()).subscriptions.size())
        return {};
    return createIndex(row, column, quintptr(parent.row()) + 1);
}

QModelIndex WorkspaceTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == TopicMarker)
        return {};
    return createIndex(int(child.internalId() - 1), 0, TopicMarker);
}

int WorkspaceTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_topics.size());
    if (parent.column() != 0 || parent.internalId() != TopicMarker || parent.row() >= m_topics.size())
        return 0;
    return int(m_topics.at(parent.row()).subscriptions.size());
}

int WorkspaceTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

Qt::ItemFlags WorkspaceTreeModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable;
}

QVariant WorkspaceTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case StateColumn:
        return tr("State");
    case BacklogColumn:
        return tr("Backlog");
    case DeadLetterColumn:
        return tr("Dead letters");
    }
    return {};
}

QVariant WorkspaceTreeModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    if (index.internalId() == TopicMarker) {
        if (index.row() >= m_topics.size())
            return {};
        return topicData(m_topics.at(index.row()), index.column(), role);
    }
    const int topicRow = int(index.internalId() - 1);
    if (topicRow >= m_topics.size() || index.row() >= m_topics.at(topicRow).subscriptions.size())
        return {};
    const TopicRow &topic = m_topics.at(topicRow);
    return subscriptionData(topic, topic.subscriptions.at(index.row()), index.column(), role);
}

QVariant WorkspaceTreeModel::topicData(const TopicRow &topic, int column, int role) const
{
    switch (role) {
    case KindRole:
        return u"topic"_s;
    case TopicNameRole:
        return topic.name;
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            return topic.name;
        case StateColumn:
            // The store's count: what every engine that ran the workspace accepted.
            if (!m_totals)
                return QString();
            return tr("%n published", nullptr,
                      int(std::min<quint64>(topicTotals(topic).published, std::numeric_limits<int>::max())));
        case BacklogColumn: {
            qint64 backlog = 0;
            for (const SubscriptionRow &subscription : topic.subscriptions)
                backlog += subscription.state.backlog;
            return backlog;
        }
        case DeadLetterColumn:
            return topicDeadLettered(topic);
        }
        break;
    case Qt::ToolTipRole: {
        QString tip = tr("Topic %1 (%2)").arg(topic.name, schemaLabel(topic.inputSchema));
        if (m_totals) {
            const TopicTotals totals = topicTotals(topic);
            tip += u'\n'
                + tr("Published: %1, unmatched: %2 (the workspace's totals)")
                      .arg(totals.published)
                      .arg(totals.unmatched);
        }
        if (topic.hasCounters && topic.counters.rejectedRequests > 0) {
            tip += u'\n'
                + tr("Requests refused since the engine started: %1").arg(topic.counters.rejectedRequests);
        }
        return tip;
    }
    case Qt::FontRole:
        if (column == NameColumn) {
            QFont font;
            font.setBold(true);
            return font;
        }
        break;
    case Qt::TextAlignmentRole:
        if (column == BacklogColumn || column == DeadLetterColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    }
    return {};
}

WorkspaceTreeModel::Badge WorkspaceTreeModel::badgeOf(const SubscriptionRow &subscription)
{
    const SubscriptionSnapshot &state = subscription.state;
    if (!subscription.enabled)
        return Badge::Disabled;
    // The badge agrees with the state text: not validated is not healthy.
    if (state.provisioningState == ProvisioningState::Failed)
        return Badge::Failed;
    if (state.provisioningState != ProvisioningState::Succeeded || state.awaitingSecrets)
        return Badge::Waiting;
    if (state.probationState == ProbationTracker::State::InProbation)
        return Badge::Waiting;
    if (state.probationState == ProbationTracker::State::HalfOpen)
        return Badge::Probing;
    return Badge::Healthy;
}

QColor WorkspaceTreeModel::badgeColor(const SubscriptionRow &subscription)
{
    const QPalette palette = QApplication::palette();
    const SubscriptionSnapshot &state = subscription.state;
    switch (badgeOf(subscription)) {
    case Badge::Disabled:
        return palette.color(QPalette::Disabled, QPalette::Text);
    case Badge::Failed:
        return outcomeColor(DeliveryOutcome::BadRequest, palette);
    case Badge::Waiting:
    case Badge::Probing:
        if (state.provisioningState != ProvisioningState::Succeeded || state.awaitingSecrets)
            return outcomeColor(DeliveryOutcome::Busy, palette);
        return outcomeColor(state.probationCause, palette);
    case Badge::Healthy:
        break;
    }
    return outcomeColor(DeliveryOutcome::Delivered, palette);
}

QString WorkspaceTreeModel::provisioningText(const SubscriptionSnapshot &state) const
{
    QString text;
    switch (state.provisioningState) {
    case ProvisioningState::Creating:
        if (state.endpointUnreachable.isEmpty())
            text = tr("Validating endpoint…");
        else if (state.nextValidationMs <= 0)
            text = tr("Waiting for endpoint (%1) · validating now").arg(state.endpointUnreachable);
        else
            text = tr("Waiting for endpoint (%1) · retry in %2")
                       .arg(state.endpointUnreachable,
                            formatDuration(std::max<qint64>(0, state.nextValidationMs - m_nowMs)));
        break;
    case ProvisioningState::AwaitingManualActionValidation:
        text = tr("Awaiting manual validation");
        break;
    case ProvisioningState::Failed:
        text = tr("Validation failed");
        break;
    case ProvisioningState::Succeeded:
        break;
    }
    if (state.held > 0)
        text += u" · "_s + tr("%n held", nullptr, int(std::min<qint64>(state.held, std::numeric_limits<int>::max())));
    return text;
}

QVariant WorkspaceTreeModel::subscriptionData(const TopicRow &topic, const SubscriptionRow &subscription,
                                              int column, int role) const
{
    const SubscriptionSnapshot &state = subscription.state;
    const SubscriptionTotals totals = subscriptionTotals(topic, subscription);
    const bool inProbation = state.probationState != ProbationTracker::State::Healthy;
    switch (role) {
    case KindRole:
        return u"subscription"_s;
    case TopicNameRole:
        return topic.name;
    case SubscriptionNameRole:
        return subscription.name;
    case InProbationRole:
        return inProbation;
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            return subscription.name;
        case StateColumn:
            if (!subscription.enabled)
                return tr("Disabled");
            // Endpoint validation comes first: nothing is delivered until it succeeded.
            if (state.provisioningState != ProvisioningState::Succeeded)
                return provisioningText(state);
            // Its secrets have not come from the keychain: nothing is sent until they have.
            if (state.awaitingSecrets) {
                return state.held > 0
                    ? tr("Waiting for the keychain · %n held", nullptr,
                         int(std::min<qint64>(state.held, std::numeric_limits<int>::max())))
                    : tr("Waiting for the keychain");
            }
            if (state.probationState == ProbationTracker::State::InProbation)
                return tr("Probation until %1 (%2)")
                    .arg(formatClock(state.probationUntilMs), deliveryOutcomeName(state.probationCause));
            if (state.probationState == ProbationTracker::State::HalfOpen)
                return tr("Probing (%1)").arg(deliveryOutcomeName(state.probationCause));
            return tr("Healthy");
        case BacklogColumn:
            return state.backlog + state.inFlight;
        case DeadLetterColumn:
            return totals.deadLettered();
        }
        break;
    case Qt::ToolTipRole: {
        QString tip = tr("%1 → %2\nMatched %3, delivered %4, failed attempts %5, dead-lettered %6, "
                         "dropped %7 (the workspace's totals)\nIn flight %8, waiting %9")
                          .arg(subscription.name, subscription.destination)
                          .arg(totals.matched)
                          .arg(totals.delivered)
                          .arg(totals.failedAttempts())
                          .arg(totals.deadLettered())
                          .arg(totals.dropped())
                          .arg(state.inFlight)
                          .arg(state.backlog);
        if (state.provisioningState != ProvisioningState::Succeeded) {
            tip += u'\n' + tr("Provisioning state: %1").arg(provisioningStateName(state.provisioningState));
            if (state.held > 0)
                tip += u'\n'
                    + tr("%n event(s) held: delivered once the endpoint is validated, dead-lettered at their "
                         "time to live.", nullptr, int(std::min<qint64>(state.held, std::numeric_limits<int>::max())));
            if (!state.provisioningMessage.isEmpty())
                tip += u'\n' + state.provisioningMessage;
            if (!state.validationUrl.isEmpty())
                tip += u'\n' + tr("Validate by opening %1 before %2.").arg(state.validationUrl, formatClock(state.validationExpiresMs));
        }
        if (state.awaitingSecrets) {
            tip += u'\n'
                + tr("Waiting for the keychain: a secret this subscription needs has not come from "
                     "it yet (unlock the keyring or answer its prompt). Its events are held - not "
                     "attempted - and delivered once it answers, or dead-lettered at their time to "
                     "live.");
        }
        if (inProbation) {
            tip += u'\n'
                + tr("In probation because of %1 after %n consecutive failure(s); ends in %2.", nullptr,
                     state.consecutiveFailures)
                      .arg(deliveryOutcomeName(state.probationCause),
                           formatDuration(std::max<qint64>(0, state.probationUntilMs - m_nowMs)));
        }
        return tip;
    }
    case Qt::ForegroundRole:
        if (column == StateColumn)
            return badgeColor(subscription);
        if (column == DeadLetterColumn && totals.deadLettered() > 0)
            return outcomeColor(DeliveryOutcome::BadRequest, QApplication::palette());
        break;
    case Qt::DecorationRole:
        if (column == NameColumn)
            return stateBadge(badgeOf(subscription), badgeColor(subscription));
        break;
    case BadgeRole:
        return QVariant::fromValue(badgeOf(subscription));
    case Qt::AccessibleDescriptionRole:
        // Screen readers get the state the badge and the colours show.
        if (column == NameColumn || column == StateColumn)
            return tr("Subscription %1 of topic %2: %3; backlog %4; %n dead letter(s)", nullptr,
                      int(std::min<quint64>(totals.deadLettered(), std::numeric_limits<int>::max())))
                .arg(subscription.name, topic.name,
                     subscriptionData(topic, subscription, StateColumn, Qt::DisplayRole).toString())
                .arg(state.backlog + state.inFlight);
        break;
    case Qt::TextAlignmentRole:
        if (column == BacklogColumn || column == DeadLetterColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    }
    return {};
}

} // namespace EventDesk::Ui
