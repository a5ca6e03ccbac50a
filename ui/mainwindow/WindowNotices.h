// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

namespace EventDesk {
class SecretStore;
struct SecretProblem;
} // namespace EventDesk

namespace EventDesk::Ui {

class Banner;

// The warnings that do not fit the status bar, each whole in a dismissable Banner above the views
// (after the read-only monitor's): the port the workspace listens on when its usual one was
// taken, and the secrets - subscriptions waiting for the keychain, a keychain that cannot be
// used, secrets that are missing. A dismissed banner comes back when its message changes.
class WindowNotices final : public QObject
{
    Q_OBJECT

public:
    explicit WindowNotices(QObject *parent = nullptr);
    ~WindowNotices() override;

    Banner *portBanner() const { return m_portBanner; }
    Banner *secretsBanner() const { return m_secretsBanner; }

    // busyPort: why the usual port could not be had (EngineWorker::StartResult::busyPort), empty
    // when it could; listenUrl: where the endpoint listens now; usualUrl: where it usually does.
    void showListening(const QString &busyPort, const QString &listenUrl, const QString &usualUrl);
    // The active store, the required secrets it did not give, and the subscriptions ("topic /
    // subscription") whose deliveries wait for it.
    void showSecrets(const EventDesk::SecretStore &store,
                     const QList<EventDesk::SecretProblem> &problems,
                     const QStringList &waitingSubscriptions);

Q_SIGNALS:
    void listenOnRequested();
    void secretStorageRequested();

private:
    Banner *m_portBanner = nullptr;
    Banner *m_secretsBanner = nullptr;
};

} // namespace EventDesk::Ui
