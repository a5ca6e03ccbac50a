// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "MainStatusBar.h"

#include "secrets/SecretCache.h"
#include "secrets/SecretStore.h"

#include <QLabel>
#include <QLocale>
#include <QStatusBar>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

SnapshotTotals SnapshotTotals::of(const EngineSnapshot &snapshot)
{
    SnapshotTotals totals;
    for (const TopicSnapshot &topic : snapshot.topics)
        totals.published += topic.published;
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions) {
        totals.delivered += subscription.delivered;
        for (quint64 value : subscription.failedByOutcome)
            totals.failedAttempts += value;
        for (quint64 value : subscription.deadLetteredByReason)
            totals.deadLettered += value;
        for (quint64 value : subscription.droppedByReason)
            totals.dropped += value;
        if (subscription.probationState != ProbationTracker::State::Healthy)
            ++totals.inProbation;
    }
    return totals;
}

MainStatusBar::MainStatusBar(QStatusBar *bar)
    : QObject(bar)
    , m_listenLabel(new QLabel)
    , m_stateLabel(new SteadyLabel(tr("Starting…")))
    , m_totalsLabel(new SteadyLabel)
    , m_secretsLabel(new QLabel)
    , m_healthLabel(new QLabel)
{
    m_listenLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_secretsLabel->setTextFormat(Qt::RichText);
    m_secretsLabel->setVisible(false);
    connect(m_secretsLabel, &QLabel::linkActivated, this, &MainStatusBar::secretStorageRequested);
    bar->addWidget(m_stateLabel);
    bar->addWidget(m_listenLabel);
    bar->addWidget(m_secretsLabel);
    m_healthLabel->setVisible(false);
    bar->addWidget(m_healthLabel);
    bar->addPermanentWidget(m_totalsLabel);
}

MainStatusBar::~MainStatusBar() = default;

void MainStatusBar::setEngineState(const QString &text)
{
    m_stateLabel->setSteadyText(text);
}

void MainStatusBar::setReadOnly(bool readOnly)
{
    m_readOnly = readOnly;
    if (readOnly)
        m_stateLabel->setSteadyText(readOnlyState());
}

void MainStatusBar::setReadOnlyState(const QString &text)
{
    m_readOnlyState = text;
    if (m_readOnly)
        m_stateLabel->setSteadyText(readOnlyState());
}

QString MainStatusBar::readOnlyState() const
{
    return m_readOnlyState.isEmpty() ? tr("Read-only monitor") : m_readOnlyState;
}

void MainStatusBar::setListenUrl(const QString &url)
{
    if (url.isEmpty()) {
        m_listenLabel->clear();
        m_listenLabel->setToolTip(QString());
    } else {
        m_listenLabel->setText(url);
        m_listenLabel->setToolTip(tr("Topic endpoint: %1/topics/<topic>/api/events\n"
                                     "Test receivers: %1/receivers/<name>")
                                      .arg(url));
    }
}

void MainStatusBar::showTotals(const SnapshotTotals &totals)
{
    const QString state = m_readOnly ? readOnlyState() : tr("Engine running");
    m_stateLabel->setSteadyText(
        totals.inProbation
            ? tr("%1 — %n subscription(s) in probation", nullptr, totals.inProbation).arg(state)
            : state);
}

void MainStatusBar::showStoredTotals(const std::optional<StoreTotals> &totals)
{
    if (!totals) {
        m_totalsLabel->setSteadyText(QString());
        m_totalsLabel->setToolTip(QString());
        return;
    }
    const QLocale locale;
    const TopicTotals topics = totals->allTopics();
    const SubscriptionTotals subscriptions = totals->allSubscriptions();
    m_totalsLabel->setSteadyText(
        tr("Published %1 · Delivered %2 · Failed attempts %3 · Dead-lettered %4 · Dropped %5")
            .arg(locale.toString(topics.published), locale.toString(subscriptions.delivered),
                 locale.toString(subscriptions.failedAttempts()),
                 locale.toString(subscriptions.deadLettered()),
                 locale.toString(subscriptions.dropped())));
    m_totalsLabel->setToolTip(
        tr("Totals of the workspace's store: everything every engine that ran this workspace "
           "counted since the store was created, deleted subscriptions included.\n"
           "Unmatched events (published, no subscription matched): %1\n"
           "Requests sent: %2")
            .arg(locale.toString(topics.unmatched), locale.toString(subscriptions.requests)));
}

void MainStatusBar::showSecrets(const SecretStore &store, const QList<SecretProblem> &problems)
{
    QString text;
    QStringList details;
    if (store.availability() == SecretStore::Availability::Unavailable) {
        text = tr("⚠ <a href=\"choose\">Keychain unavailable</a>");
        details << store.unavailabilityReason();
    } else if (!store.warning().isEmpty()) {
        text = tr("⚠ <a href=\"choose\">Secrets: %1</a>").arg(store.description().toHtmlEscaped());
        details << store.warning();
    }
    for (const SecretProblem &problem : problems)
        details << tr("%1: %2").arg(problem.purpose, problem.reason);
    if (!problems.isEmpty() && text.isEmpty()) {
        text = tr("⚠ <a href=\"choose\">%n secret(s) unavailable</a>", nullptr,
                  int(problems.size()));
    }
    m_secretsLabel->setText(text);
    m_secretsLabel->setToolTip(details.join(u'\n'));
    m_secretsLabel->setVisible(!text.isEmpty());
}

void MainStatusBar::showHealth(const EngineSnapshot &snapshot)
{
    QStringList warnings;
    QStringList details;
    if (!snapshot.store.writable) {
        warnings << tr("⚠ Store cannot be written");
        details << tr("The workspace's store cannot be written: %1\nPublishes are refused with 503 "
                      "(publishers send them again later) and delivery results wait in memory "
                      "until a write succeeds. Free space on the workspace's disk.")
                       .arg(snapshot.store.lastError);
    }
    QStringList deadLetterDetails;
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions) {
        if (!subscription.deadLetterWriteError.isEmpty()) {
            deadLetterDetails << tr("%1 / %2: %3")
                                     .arg(subscription.topic, subscription.subscription,
                                          subscription.deadLetterWriteError);
        }
    }
    if (!deadLetterDetails.isEmpty()) {
        warnings << tr("⚠ Dead letters cannot be written (%n subscription(s))", nullptr,
                       int(deadLetterDetails.size()));
        details << tr("Dead letters wait and the write is tried again every minute; after 4 hours "
                      "of failures they are dropped.")
                << deadLetterDetails;
    }
    if (snapshot.endpoint.acceptFailing) {
        warnings << tr("⚠ Topic endpoint cannot accept connections");
        details
            << tr("The topic endpoint cannot accept new connections: %1\nIdle connections are "
                  "closed to make room and accepting is tried again; new clients wait meanwhile. "
                  "Raise the open-file limit (ulimit -n) or use fewer connections.")
                   .arg(snapshot.endpoint.lastAcceptError);
    }
    m_healthLabel->setText(warnings.join(u" · "_s));
    m_healthLabel->setToolTip(details.join(u'\n'));
    m_healthLabel->setVisible(!warnings.isEmpty());
}

void MainStatusBar::showStoreError(const QString &message)
{
    EngineSnapshot failing;
    failing.store.writable = false;
    failing.store.lastError = message;
    showHealth(failing);
}

} // namespace EventDesk::Ui
