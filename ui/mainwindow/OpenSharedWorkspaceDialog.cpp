// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "OpenSharedWorkspaceDialog.h"

#include "common/Format.h"
#include "host/StoreOpener.h"
#include "store/StoreLocation.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QTabWidget>
#include <QThread>
#include <QUrl>
#include <QUrlQuery>
#include <QVBoxLayout>

#include <memory>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

constexpr int DefaultPostgresPort = 5432;

// Reads the store once: the store's own errors (the URL without its password).
Expected<void> readStoreOnce(const QString &connectionUrl)
{
    auto reader = openDeliveryStoreReader(connectionUrl);
    if (!reader)
        return Error(reader.error());
    if (auto marks = reader.value()->watermarks(); !marks)
        return Error(marks.error());
    return {};
}

} // namespace

QString SharedWorkspaceLocation::connectionUrl() const
{
    if (password.isEmpty())
        return url;
    QUrl withPassword(url, QUrl::TolerantMode);
    withPassword.setPassword(password);
    return withPassword.toString();
}

Expected<SharedWorkspaceLocation> SharedWorkspaceLocation::fromFields(const QString &host,
                                                                      const QString &port,
                                                                      const QString &database,
                                                                      const QString &user,
                                                                      const QString &password)
{
    const QString hostName = host.trimmed();
    if (hostName.isEmpty())
        return Error(OpenSharedWorkspaceDialog::tr("Host: must be the database server's name or "
                                                   "IP address (it is empty)"));
    if (hostName.contains(u'/') || hostName.contains(u'@') || hostName.contains(u' '))
        return Error(OpenSharedWorkspaceDialog::tr("Host: must be a name or an IP address, without "
                                                   "'/', '@' or spaces (got '%1')")
                         .arg(hostName));
    bool isNumber = false;
    const int portNumber
        = port.trimmed().isEmpty() ? DefaultPostgresPort : port.trimmed().toInt(&isNumber);
    if (!port.trimmed().isEmpty() && (!isNumber || portNumber < 1 || portNumber > 65535))
        return Error(
            OpenSharedWorkspaceDialog::tr("Port: must be a number from 1 to 65535 (got '%1')")
                .arg(port.trimmed()));
    const QString databaseName = database.trimmed();
    if (databaseName.isEmpty())
        return Error(OpenSharedWorkspaceDialog::tr("Database: must be the name of the database "
                                                   "that holds the store (it is empty)"));
    const QString userName = user.trimmed();
    if (userName.isEmpty())
        return Error(OpenSharedWorkspaceDialog::tr("User: must be the database user to connect as "
                                                   "(it is empty)"));
    QUrl url;
    url.setScheme(u"postgresql"_s);
    url.setHost(hostName);
    url.setPort(portNumber);
    url.setUserName(userName);
    url.setPath(u'/' + databaseName);
    SharedWorkspaceLocation location;
    location.url = url.toString();
    location.password = password;
    return location;
}

Expected<SharedWorkspaceLocation> SharedWorkspaceLocation::fromUrl(const QString &text,
                                                                   const QString &password)
{
    const QString typed = text.trimmed();
    if (typed.isEmpty() || !isPostgresLocation(typed) || !storeLocationProblem(typed).isEmpty()) {
        return Error(OpenSharedWorkspaceDialog::tr("URL: must be "
                                                   "postgresql://USER@HOST:PORT/DATABASE (or "
                                                   "postgres://...) (got '%1')")
                         .arg(redactedStoreLocation(typed)));
    }
    QUrl url(typed, QUrl::TolerantMode);
    if (!url.isValid() || url.host().isEmpty() || url.path().size() < 2) {
        return Error(
            OpenSharedWorkspaceDialog::tr("URL: must name a host and a database, as in "
                                          "postgresql://USER@HOST:PORT/DATABASE (got '%1')")
                .arg(redactedStoreLocation(typed)));
    }
    SharedWorkspaceLocation location;
    location.password = password.isEmpty() ? url.password() : password;
    url.setPassword(QString());
    QUrlQuery query(url);
    if (query.hasQueryItem(u"password"_s)) {
        if (location.password.isEmpty())
            location.password = query.queryItemValue(u"password"_s, QUrl::FullyDecoded);
        query.removeAllQueryItems(u"password"_s);
        url.setQuery(query);
    }
    location.url = url.toString();
    return location;
}

QString sharedWorkspacePasswordKey(const QString &url)
{
    return u"shared-workspace-password:"_s + url;
}

OpenSharedWorkspaceDialog::OpenSharedWorkspaceDialog(const QString &secretStoreName,
                                                     QWidget *parent)
    : QDialog(parent)
    , m_forms(new QTabWidget(this))
    , m_host(new QLineEdit(this))
    , m_port(new QLineEdit(this))
    , m_database(new QLineEdit(this))
    , m_user(new QLineEdit(this))
    , m_url(new QLineEdit(this))
    , m_password(new QLineEdit(this))
    , m_remember(new QCheckBox(this))
    , m_error(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this))
    , m_check(readStoreOnce)
{
    setWindowTitle(tr("Open Shared Workspace"));
    auto *intro = new QLabel(tr("A shared workspace is a PostgreSQL store that several eventdeskd "
                                "instances share (eventdeskd --store). The app monitors it: the "
                                "instances deliver; the dashboard, the delivery log and the dead "
                                "letters show what they write."),
                             this);
    intro->setWordWrap(true);

    m_host->setObjectName(u"host"_s);
    m_host->setPlaceholderText(u"db.example.internal"_s);
    m_port->setObjectName(u"port"_s);
    m_port->setPlaceholderText(QString::number(DefaultPostgresPort));
    m_database->setObjectName(u"database"_s);
    m_user->setObjectName(u"user"_s);
    auto *fields = new QWidget;
    auto *fieldsLayout = new QFormLayout(fields);
    fieldsLayout->addRow(tr("&Host:"), m_host);
    fieldsLayout->addRow(tr("P&ort:"), m_port);
    fieldsLayout->addRow(tr("&Database:"), m_database);
    fieldsLayout->addRow(tr("&User:"), m_user);
    m_forms->addTab(fields, tr("Server"));

    m_url->setObjectName(u"url"_s);
    m_url->setPlaceholderText(u"postgresql://USER@HOST:PORT/DATABASE"_s);
    auto *urlPage = new QWidget;
    auto *urlLayout = new QFormLayout(urlPage);
    urlLayout->addRow(tr("U&RL:"), m_url);
    auto *urlHint = new QLabel(tr("libpq parameters may follow (?sslmode=require)."), urlPage);
    urlHint->setWordWrap(true);
    urlLayout->addRow(QString(), urlHint);
    m_forms->addTab(urlPage, tr("URL"));

    m_password->setObjectName(u"password"_s);
    m_password->setEchoMode(QLineEdit::Password);
    m_password->setPlaceholderText(tr("none, or from ~/.pgpass"));
    m_remember->setObjectName(u"rememberPassword"_s);
    if (secretStoreName.isEmpty()) {
        m_remember->setText(tr("Remember the password (no secret store can keep it)"));
        m_remember->setEnabled(false);
    } else {
        m_remember->setText(tr("Remember the password (kept in: %1)").arg(secretStoreName));
    }
    auto *passwordLayout = new QFormLayout;
    passwordLayout->addRow(tr("&Password:"), m_password);
    passwordLayout->addRow(QString(), m_remember);

    m_error->setObjectName(u"error"_s);
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPalette palette = m_error->palette();
    palette.setColor(QPalette::WindowText, errorTextColor(palette));
    m_error->setPalette(palette);
    m_error->setVisible(false);

    connect(m_buttons, &QDialogButtonBox::accepted, this, &OpenSharedWorkspaceDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_forms);
    layout->addLayout(passwordLayout);
    layout->addWidget(m_error);
    layout->addWidget(m_buttons);
    setMinimumWidth(520);
}

OpenSharedWorkspaceDialog::~OpenSharedWorkspaceDialog()
{
    // A check still running reports to nobody (its generation is stale).
    ++m_generation;
}

void OpenSharedWorkspaceDialog::setCheck(Check check)
{
    m_check = std::move(check);
}

void OpenSharedWorkspaceDialog::setLocation(const QString &url)
{
    const QUrl parsed(url, QUrl::TolerantMode);
    m_host->setText(parsed.host());
    m_port->setText(parsed.port() > 0 ? QString::number(parsed.port()) : QString());
    m_database->setText(parsed.path().mid(1));
    m_user->setText(parsed.userName());
    m_url->setText(redactedStoreLocation(url));
    // Parameters have no field: a URL that has some is edited as a URL.
    m_forms->setCurrentIndex(parsed.hasQuery() ? 1 : 0);
}

QString OpenSharedWorkspaceDialog::errorText() const
{
    return m_error->isVisible() ? m_error->text() : QString();
}

Expected<SharedWorkspaceLocation> OpenSharedWorkspaceDialog::locationFromInput() const
{
    Expected<SharedWorkspaceLocation> location = m_forms->currentIndex() == 0
        ? SharedWorkspaceLocation::fromFields(m_host->text(), m_port->text(), m_database->text(),
                                              m_user->text(), m_password->text())
        : SharedWorkspaceLocation::fromUrl(m_url->text(), m_password->text());
    if (location)
        location.value().rememberPassword = m_remember->isEnabled() && m_remember->isChecked();
    return location;
}

void OpenSharedWorkspaceDialog::showError(const QString &message)
{
    m_error->setText(message);
    m_error->setVisible(!message.isEmpty());
    // A long error takes more lines: the dialog grows instead of squeezing its fields.
    adjustSize();
}

void OpenSharedWorkspaceDialog::accept()
{
    if (m_checking)
        return;
    auto location = locationFromInput();
    if (!location) {
        showError(location.error());
        return;
    }
    m_pending = location.value();
    showError(QString());
    m_checking = true;
    m_buttons->button(QDialogButtonBox::Open)->setEnabled(false);
    showError(tr("Reading the store…"));
    const quint64 generation = ++m_generation;
    QPointer<OpenSharedWorkspaceDialog> self(this);
    auto result = std::make_shared<QString>();
    QThread *thread = QThread::create([check = m_check, url = m_pending.connectionUrl(), result] {
        if (auto checked = check(url); !checked)
            *result = checked.error();
    });
    connect(thread, &QThread::finished, this, [self, generation, result, thread] {
        thread->deleteLater();
        if (self)
            self->checked(generation, *result);
    });
    thread->start();
}

void OpenSharedWorkspaceDialog::checked(quint64 generation, const QString &error)
{
    if (generation != m_generation)
        return;
    m_checking = false;
    m_buttons->button(QDialogButtonBox::Open)->setEnabled(true);
    if (!error.isEmpty()) {
        // The store's errors name it without its password; a password typed here is never
        // shown, even where a server quotes what it was given.
        QString message = error;
        if (!m_pending.password.isEmpty())
            message.replace(m_pending.password, u"***"_s);
        showError(tr("The shared workspace could not be opened: %1").arg(message));
        return;
    }
    showError(QString());
    m_location = m_pending;
    QDialog::accept();
}

} // namespace EventDesk::Ui
