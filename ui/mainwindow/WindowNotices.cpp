// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "WindowNotices.h"

#include "Banner.h"
#include "secrets/SecretCache.h"
#include "secrets/SecretStore.h"

#include <QPushButton>
#include <QUrl>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// At most this many names in a banner's sentence; the rest are counted.
constexpr qsizetype NamesShown = 3;

QString namesOf(const QStringList &names)
{
    QStringList shown;
    for (qsizetype i = 0; i < std::min(names.size(), NamesShown); ++i)
        shown << u"<i>"_s + names.at(i).toHtmlEscaped() + u"</i>"_s;
    QString text = shown.join(u", "_s);
    if (names.size() > NamesShown)
        text += WindowNotices::tr(" and %n more", nullptr, int(names.size() - NamesShown));
    return text;
}

} // namespace

WindowNotices::WindowNotices(QObject *parent)
    : QObject(parent)
    , m_portBanner(new Banner(Banner::Kind::Information, u"portBanner"_s))
    , m_secretsBanner(new Banner(Banner::Kind::Warning, u"secretsBanner"_s))
{
    m_portBanner->setDismissable(true);
    QPushButton *listenOn = m_portBanner->addButton(tr("Listen On…"), u"listenOn"_s);
    listenOn->setToolTip(tr("Choose the port of this workspace (remembered for it)"));
    connect(listenOn, &QPushButton::clicked, this, &WindowNotices::listenOnRequested);

    m_secretsBanner->setDismissable(true);
    QPushButton *storage = m_secretsBanner->addButton(tr("Secret Storage…"), u"secretStorage"_s);
    storage->setToolTip(tr("Use the system keychain again, or keep secrets elsewhere"));
    connect(storage, &QPushButton::clicked, this, &WindowNotices::secretStorageRequested);
}

WindowNotices::~WindowNotices() = default;

void WindowNotices::showListening(const QString &busyPort, const QString &listenUrl,
                                  const QString &usualUrl)
{
    if (busyPort.isEmpty() || listenUrl.isEmpty()) {
        m_portBanner->showMessage(QString());
        return;
    }
    const QUrl usual(usualUrl);
    const QString usualAddress = u"%1:%2"_s.arg(usual.host()).arg(usual.port());
    m_portBanner->showMessage(
        tr("<b>%1 is in use</b> (another EventDesk, an emulator?), so this workspace listens on "
           "<b>%2</b> for now: publish there and copy the receivers' URLs from here. Webhooks "
           "addressed to its test receivers at %1 are delivered there too. The next start tries "
           "%1 again.<br><small>%3</small>")
            .arg(usualAddress.toHtmlEscaped(), listenUrl.toHtmlEscaped(),
                 busyPort.toHtmlEscaped()));
}

void WindowNotices::showSecrets(const SecretStore &store, const QList<SecretProblem> &problems,
                                const QStringList &waitingSubscriptions)
{
    QStringList paragraphs;
    const bool unavailable = store.availability() == SecretStore::Availability::Unavailable;
    if (!waitingSubscriptions.isEmpty()) {
        QString text
            = tr("<b>Waiting for the %1</b> — the deliveries of %n subscription(s) (%2) are held "
                 "until it gives their secrets; everything else runs.",
                 nullptr, int(waitingSubscriptions.size()))
                  .arg(store.description().toHtmlEscaped(), namesOf(waitingSubscriptions));
        text += u' '
            + (unavailable ? tr("It cannot be used now: %1")
                                 .arg(store.unavailabilityReason().toHtmlEscaped())
                           : tr("Unlock the keyring or answer its password prompt."));
        paragraphs << text;
    } else if (unavailable) {
        paragraphs << tr("<b>Secrets cannot be kept</b>: %1")
                          .arg(store.unavailabilityReason().toHtmlEscaped());
    } else if (!store.warning().isEmpty()) {
        paragraphs << store.warning().toHtmlEscaped();
    }
    QStringList missing;
    for (const SecretProblem &problem : problems) {
        if (!problem.storeUnavailable)
            missing << tr("%1 — %2").arg(problem.purpose, problem.reason).toHtmlEscaped();
    }
    if (!missing.isEmpty()) {
        paragraphs << tr("<b>%n secret(s) missing</b>: ", nullptr, int(missing.size()))
                + missing.join(u"; "_s);
    }
    m_secretsBanner->showMessage(paragraphs.join(u"<br>"_s));
}

} // namespace EventDesk::Ui
