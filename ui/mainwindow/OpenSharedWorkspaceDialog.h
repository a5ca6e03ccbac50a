// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "Expected.h"

#include <QDialog>
#include <QString>

#include <functional>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QTabWidget;

namespace EventDesk::Ui {

// Where a shared workspace is: a PostgreSQL store that eventdeskd instances share
// (docs/shared-store.md "Several instances on one store"), and the password to reach it, which is
// kept apart from the URL so that the URL can be shown, remembered in the recent list and used as a
// key without it.
struct SharedWorkspaceLocation
{
    QString url; // postgresql://USER@HOST:PORT/DATABASE[?parameters], never with a password
    QString password; // empty: none (libpq may still find one in ~/.pgpass or PGPASSWORD)
    bool rememberPassword = false; // keep it in the secret store (never in the settings)

    // The URL libpq connects with: url with the password in it. Never shown.
    QString connectionUrl() const;

    // From the server fields; the error names the field and what it accepts.
    static Expected<SharedWorkspaceLocation> fromFields(const QString &host, const QString &port,
                                                        const QString &database,
                                                        const QString &user,
                                                        const QString &password);
    // From a URL as typed; a password in it moves to password (the field wins when both are
    // set). The error names the field and the accepted forms.
    static Expected<SharedWorkspaceLocation> fromUrl(const QString &url, const QString &password);
};

// The key of a shared workspace's password in the secret store.
QString sharedWorkspacePasswordKey(const QString &url);

// File ▸ Open Shared Workspace…: the location of the PostgreSQL store, as server fields or as a
// URL, and its password (masked), optionally remembered in the secret store. Open checks the
// fields, then reads the store once (on a thread of its own, so that the window never waits) and
// stays open with the error when it cannot be read; the errors name the store without its password.
class OpenSharedWorkspaceDialog final : public QDialog
{
    Q_OBJECT

public:
    // The check of a location before the dialog accepts it: the error, or nothing. Runs on a
    // thread of its own.
    using Check = std::function<Expected<void>(const QString &connectionUrl)>;

    // secretStoreName: where a remembered password goes ("system keychain"), empty when none can
    // be kept (the choice is then off).
    explicit OpenSharedWorkspaceDialog(const QString &secretStoreName, QWidget *parent = nullptr);
    ~OpenSharedWorkspaceDialog() override;

    // Tests check without a server, or against one of their own.
    void setCheck(Check check);
    // Fills the fields from a location (a recent one; no password).
    void setLocation(const QString &url);

    // What was accepted.
    const SharedWorkspaceLocation &location() const { return m_location; }
    // The error shown, if any.
    QString errorText() const;
    // Whether a check is running.
    bool isChecking() const { return m_checking; }

    void accept() override;

private:
    Expected<SharedWorkspaceLocation> locationFromInput() const;
    void showError(const QString &message);
    void checked(quint64 generation, const QString &error);

    QTabWidget *m_forms = nullptr;
    QLineEdit *m_host = nullptr;
    QLineEdit *m_port = nullptr;
    QLineEdit *m_database = nullptr;
    QLineEdit *m_user = nullptr;
    QLineEdit *m_url = nullptr;
    QLineEdit *m_password = nullptr;
    QCheckBox *m_remember = nullptr;
    QLabel *m_error = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
    Check m_check;
    SharedWorkspaceLocation m_location;
    SharedWorkspaceLocation m_pending;
    quint64 m_generation = 0;
    bool m_checking = false;
};

} // namespace EventDesk::Ui
