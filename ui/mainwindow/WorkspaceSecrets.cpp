// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "WorkspaceSecrets.h"

#include "common/Format.h"

#include "Logging.h"
#include "keychain/KeychainSecretStore.h"
#include "model/Workspace.h"
#include "secrets/InlineSecrets.h"
#include "secrets/SecretCache.h"
#include "secrets/SecretStore.h"
#include "workspace/WorkspaceFolder.h"

#include <QCheckBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

WorkspaceSecrets::WorkspaceSecrets()
    : m_keychain(std::make_unique<KeychainSecretStore>())
    , m_cache(std::make_shared<SecretCache>(QList<SecretStore *>{m_keychain.get()}))
{
    connect(m_keychain.get(), &SecretStore::availabilityChanged, this,
            &WorkspaceSecrets::statusChanged);
}

WorkspaceSecrets::~WorkspaceSecrets() = default;

void WorkspaceSecrets::checkKeychain()
{
    m_keychainChecked = true;
    m_keychain->checkAvailability();
}

SecretStore *WorkspaceSecrets::activeStore() const
{
    return m_alternative ? m_alternative.get() : static_cast<SecretStore *>(m_keychain.get());
}

void WorkspaceSecrets::load(const Workspace &workspace, std::function<void()> done)
{
    const QList<SecretRequirement> requirements = SecretCache::requirements(workspace);
    const bool referencesSecret
        = std::any_of(requirements.cbegin(), requirements.cend(),
                      [](const SecretRequirement &requirement) { return requirement.required; });
    if (referencesSecret && !m_alternative && !m_keychainChecked)
        checkKeychain();
    QPointer<WorkspaceSecrets> self(this);
    m_cache->load(workspace, [self, done](const QList<SecretProblem> &problems) {
        if (!self)
            return;
        self->m_problems = problems;
        Q_EMIT self->statusChanged();
        if (done)
            done();
    });
}

void WorkspaceSecrets::open(const QString &directory, const Workspace &workspace,
                            QWidget *dialogParent, std::function<void()> done)
{
    m_cache->setWorkspaceValues({});
    const QList<InlineSecret> secrets = InlineSecrets::find(workspace);
    if (secrets.isEmpty()) {
        load(workspace, std::move(done));
        return;
    }
    // The engine may already run: a load now declares the workspace's topic keys (publishes to a
    // keyed topic stay closed until its key comes) and brings every secret the store holds; the
    // subscriptions whose values are being moved wait until the load after the move.
    load(workspace);
    QPointer<WorkspaceSecrets> self(this);
    QPointer<QWidget> parent(dialogParent);
    InlineSecrets::move(
        WorkspaceFolder::workspaceFile(directory), secrets, activeStore(),
        [self, parent, secrets, workspace = Workspace(workspace),
         done](const Expected<void> &moved) mutable {
            if (!self)
                return;
            if (moved) {
                qCInfo(lcSecrets).noquote()
                    << u"moved %1 secret header value(s) from workspace.json into %2"_s
                           .arg(secrets.size())
                           .arg(self->activeStore()->description());
                InlineSecrets::clearValues(workspace);
            } else {
                qCCritical(lcSecrets).noquote() << moved.error();
                self->m_cache->setWorkspaceValues(InlineSecrets::values(secrets));
                // Not modal: the workspace opens meanwhile, with the values from the file.
                auto *box = new QMessageBox(QMessageBox::Warning,
                                            tr("Secret Values Left in workspace.json"),
                                            moved.error(), QMessageBox::Ok, parent.data());
                box->setObjectName(u"inlineSecretsNotMoved"_s);
                box->setInformativeText(tr("Choose where to keep secrets (Workspace ▸ Secret "
                                           "Storage…): the workspace is opened again and the "
                                           "values are moved."));
                box->setAttribute(Qt::WA_DeleteOnClose);
                box->open();
            }
            self->load(workspace, std::move(done));
        });
}

void WorkspaceSecrets::useStore(std::unique_ptr<SecretStore> store)
{
    // The engine holds the cache: it starts again on a cache over the chosen store.
    m_alternative = std::move(store);
    m_cache = std::make_shared<SecretCache>(QList<SecretStore *>{activeStore()});
    Q_EMIT statusChanged();
    Q_EMIT storeChanged();
}

void WorkspaceSecrets::chooseStorage(QWidget *parent)
{
    QMessageBox box(parent);
    box.setWindowTitle(tr("Secret Storage"));
    box.setIcon(QMessageBox::Information);
    SecretStore *store = activeStore();
    QString state = tr("Secrets are kept in: %1.").arg(store->description());
    if (store->availability() == SecretStore::Availability::Unavailable)
        state = tr("The system keychain cannot be used: %1").arg(store->unavailabilityReason());
    box.setText(state);
    QStringList lines;
    for (const SecretProblem &problem : std::as_const(m_problems))
        lines << tr("• %1 — %2").arg(problem.purpose, problem.reason);
    QString informative
        = tr("Secret delivery-header values, topic access keys and storage account keys are never "
             "written to workspace.json, the store or logs. Without a working keychain you can "
             "keep them for this run only (they are lost when EventDesk quits), or store them in a "
             "file readable only by you (plain text on disk).");
    if (!lines.isEmpty())
        informative += u"\n\n"_s + tr("Unavailable now:") + u'\n' + lines.join(u'\n');
    box.setInformativeText(informative);
    QPushButton *keychainButton
        = box.addButton(tr("Use the System Keychain"), QMessageBox::AcceptRole);
    QPushButton *memoryButton
        = box.addButton(tr("Keep for This Run Only"), QMessageBox::ActionRole);
    QPushButton *fileButton = box.addButton(tr("Store in a Private File"), QMessageBox::ActionRole);
    box.addButton(QMessageBox::Cancel);
    box.exec();
    QAbstractButton *clicked = box.clickedButton();
    if (clicked == keychainButton) {
        checkKeychain();
        useStore(nullptr);
    } else if (clicked == memoryButton) {
        useStore(std::make_unique<MemorySecretStore>(MemorySecretStore::Usage::ThisRunOnly));
    } else if (clicked == fileButton) {
        useStore(std::make_unique<FileSecretStore>(FileSecretStore::defaultFilePath()));
    }
}

bool WorkspaceSecrets::askForSecret(QWidget *parent, const QString &title, const QString &label,
                                    QString &value, const ProblemOf &problemOf) const
{
    QDialog dialog(parent);
    dialog.setWindowTitle(title);
    auto *edit = new QLineEdit(value);
    edit->setEchoMode(QLineEdit::Password);
    edit->setMinimumWidth(360);
    auto *reveal = new QCheckBox(tr("&Show"));
    connect(reveal, &QCheckBox::toggled, edit, [edit](bool shown) {
        edit->setEchoMode(shown ? QLineEdit::Normal : QLineEdit::Password);
    });
    auto *hint = new QLabel(tr("Kept in: %1").arg(activeStore()->description()));
    hint->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto *row = new QHBoxLayout;
    row->addWidget(edit, 1);
    row->addWidget(reveal);
    auto *prompt = new QLabel(label);
    prompt->setWordWrap(true);
    auto *form = new QFormLayout(&dialog);
    form->addRow(prompt);
    form->addRow(row);
    if (problemOf) {
        // The problem in the value's own words (never the value): a connection string of another
        // account, one without a key.
        auto *problem = new QLabel;
        problem->setObjectName(u"secretProblem"_s);
        problem->setWordWrap(true);
        problem->setTextFormat(Qt::PlainText);
        QPalette palette = problem->palette();
        palette.setColor(QPalette::WindowText, errorTextColor(palette));
        problem->setPalette(palette);
        // Room for two lines from the start: a dialog does not grow for wrapped text shown later.
        problem->setMinimumHeight(2 * problem->fontMetrics().lineSpacing());
        problem->setAlignment(Qt::AlignLeft | Qt::AlignTop);
        form->addRow(problem);
        const auto check = [edit, problem, buttons, problemOf] {
            const QString value = edit->text().trimmed();
            const QString text = value.isEmpty() ? QString() : problemOf(value);
            problem->setText(text);
            buttons->button(QDialogButtonBox::Ok)->setEnabled(!value.isEmpty() && text.isEmpty());
        };
        connect(edit, &QLineEdit::textChanged, &dialog, check);
        check();
    }
    form->addRow(hint);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    value = edit->text();
    return true;
}

void WorkspaceSecrets::storeHeaderSecrets(const QString &topic, EventSubscription subscription,
                                          SubscriptionCallback done)
{
    // SPEC H2: a secret header's value goes to the secret store, never into workspace.json; an
    // empty value means "keep the stored one".
    QList<std::pair<QString, QString>> pending;
    for (DeliveryHeader &header : subscription.deliveryHeaders) {
        if (header.kind != DeliveryHeader::Kind::Static || !header.secret || header.value.isEmpty())
            continue;
        pending.append(
            {SecretKeys::deliveryHeader(topic, subscription.name, header.name), header.value});
        header.value.clear();
    }
    if (pending.isEmpty()) {
        done(subscription);
        return;
    }
    SecretStore *store = activeStore();
    if (store->availability() == SecretStore::Availability::Unavailable) {
        done(Error(tr("Secret header values cannot be stored: %1. Choose where to keep secrets "
                      "(Workspace ▸ Secret Storage…) and save again.")
                       .arg(store->unavailabilityReason())));
        return;
    }
    auto remaining = std::make_shared<int>(int(pending.size()));
    auto failure = std::make_shared<QString>();
    QPointer<WorkspaceSecrets> self(this);
    for (const auto &[key, value] : std::as_const(pending)) {
        store->write(
            key, value,
            [self, key, value, remaining, failure, subscription,
             done](const Expected<void> &result) {
                if (!self)
                    return;
                if (result)
                    self->m_cache->setValue(key, value);
                else if (failure->isEmpty())
                    *failure = result.error();
                if (--*remaining > 0)
                    return;
                if (!failure->isEmpty()) {
                    done(Error(tr("A secret header value could not be stored: %1").arg(*failure)));
                    return;
                }
                done(subscription);
            });
    }
}

void WorkspaceSecrets::storeTopicAccessKey(const QString &topic, const QString &key,
                                           DoneCallback done)
{
    const QString secretKey = SecretKeys::topicAccessKey(topic);
    QPointer<WorkspaceSecrets> self(this);
    auto cached = [self, secretKey, key, done](const Expected<void> &result) {
        if (!self)
            return;
        if (result) {
            if (key.isEmpty())
                self->m_cache->removeValue(secretKey);
            else
                self->m_cache->setValue(secretKey, key);
        }
        done(result);
    };
    if (key.isEmpty())
        activeStore()->remove(secretKey, cached);
    else
        activeStore()->write(secretKey, key, cached);
}

void WorkspaceSecrets::storeStorageAccountKey(const QString &account, const QString &key,
                                              DoneCallback done)
{
    storeSecret(SecretKeys::storageAccountKey(account), key, std::move(done));
}

void WorkspaceSecrets::storeSecret(const QString &key, const QString &value, DoneCallback done)
{
    QPointer<WorkspaceSecrets> self(this);
    activeStore()->write(key, value, [self, key, value, done](const Expected<void> &result) {
        if (self && result.hasValue())
            self->m_cache->setValue(key, value);
        done(result);
    });
}

void WorkspaceSecrets::findStored(const QString &key, FoundCallback done)
{
    if (!m_cache->value(key).isEmpty()) {
        done(true);
        return;
    }
    // A credential the workspace did not need yet (a destination not saved) is not cached.
    activeStore()->read(key, [done](const Expected<std::optional<QString>> &value) {
        if (!value)
            done(Error(value.error()));
        else
            done(value.value().has_value() && !value.value()->isEmpty());
    });
}

void WorkspaceSecrets::askToStore(QWidget *parent, const DestinationCredential &credential,
                                  StoredCallback done)
{
    QString value = m_cache->value(credential.key);
    if (!askForSecret(
            parent, credential.title(), credential.prompt(), value,
            [credential](const QString &typed) { return credential.problemWith(typed); })) {
        done(false);
        return;
    }
    QPointer<QWidget> dialogParent(parent);
    storeSecret(
        credential.key, value.trimmed(),
        [dialogParent, credential, done](const Expected<void> &result) {
            if (!result) {
                QMessageBox::warning(
                    dialogParent, tr("Not Stored"),
                    tr("%1 could not be stored: %2").arg(credential.title(), result.error()));
            }
            done(result.hasValue());
        });
}

QString WorkspaceSecrets::storeDescription() const
{
    return activeStore()->description();
}

} // namespace EventDesk::Ui
