// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// workspace.json's settings for the endpoint (docs/security.md "The HTTP endpoint",
// docs/user-guide.md "Workspace"): allowedHosts and allowedOrigins, normalised as a Host or Origin
// header writes them, written back only when set, and refused with the field's path when they could
// never match a header.

#include "model/Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;

class WorkspaceSettingsTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void settingsAllowedHostsAndOrigins_data();
    void settingsAllowedHostsAndOrigins();
};

// docs/security.md "The HTTP endpoint": names and origins the endpoint admits besides its own,
// normalised as a Host or Origin header writes them, and refused with the field's path when they
// could never match one.
void WorkspaceSettingsTest::settingsAllowedHostsAndOrigins_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QJsonValue>("written"); // as toJson() writes it back (null: error)
    QTest::addColumn<QString>("expectedError");

    const QString hosts = u"allowedHosts"_s;
    const QString origins = u"allowedOrigins"_s;
    const auto list = [](std::initializer_list<QString> values) {
        QJsonArray array;
        for (const QString &value : values)
            array.append(value);
        return QJsonValue(array);
    };
    const QString hostRule
        = u"workspace.json: settings.allowedHosts[%1]: must be a host name or IP "
          u"address without scheme, port or path, e.g. \"eventdesk.internal\" (got %2)"_s;
    const QString originRule
        = u"workspace.json: settings.allowedOrigins[%1]: must be a web origin: http:// "
          u"or https://, a host and an optional port, nothing after it, e.g. "
          u"\"http://localhost:3000\" (got %2)"_s;
    QTest::newRow("hosts: names, lower-cased, duplicates dropped")
        << hosts << list({u"EventDesk.Internal"_s, u"build-7"_s, u"eventdesk.internal"_s})
        << list({u"eventdesk.internal"_s, u"build-7"_s}) << QString();
    QTest::newRow("hosts: addresses, IPv6 bracketed")
        << hosts << list({u"192.0.2.7"_s, u"2001:DB8::1"_s, u"[::1]"_s})
        << list({u"192.0.2.7"_s, u"[2001:db8::1]"_s, u"[::1]"_s}) << QString();
    QTest::newRow("hosts: with a port")
        << hosts << list({u"ok"_s, u"eventdesk.internal:5170"_s}) << QJsonValue()
        << hostRule.arg(1).arg(u"\"eventdesk.internal:5170\""_s);
    QTest::newRow("hosts: a URL") << hosts << list({u"http://eventdesk.internal"_s}) << QJsonValue()
                                  << hostRule.arg(0).arg(u"\"http://eventdesk.internal\""_s);
    QTest::newRow("hosts: empty") << hosts << list({u""_s}) << QJsonValue()
                                  << hostRule.arg(0).arg(u"\"\""_s);
    QTest::newRow("hosts: not a list")
        << hosts << QJsonValue(u"eventdesk.internal"_s) << QJsonValue()
        << u"workspace.json: settings.allowedHosts: must be an array (got \"eventdesk.internal\")"_s;
    QTest::newRow("origins: as browsers send them")
        << origins
        << list(
               {u"HTTP://LocalHost:3000"_s, u"https://app.example:443"_s, u"http://app.example/"_s})
        << list({u"http://localhost:3000"_s, u"https://app.example"_s, u"http://app.example"_s})
        << QString();
    QTest::newRow("origins: without scheme")
        << origins << list({u"localhost:3000"_s}) << QJsonValue()
        << originRule.arg(0).arg(u"\"localhost:3000\""_s);
    QTest::newRow("origins: with a path")
        << origins << list({u"http://localhost:3000/app"_s}) << QJsonValue()
        << originRule.arg(0).arg(u"\"http://localhost:3000/app\""_s);
    QTest::newRow("origins: another scheme")
        << origins << list({u"file:///tmp/page.html"_s}) << QJsonValue()
        << originRule.arg(0).arg(u"\"file:///tmp/page.html\""_s);
    QTest::newRow("origins: any") << origins << list({u"*"_s}) << QJsonValue()
                                  << u"workspace.json: settings.allowedOrigins[0]: \"*\" is not "
                                     u"accepted: list each origin that may call "
                                     u"the endpoint, e.g. \"http://localhost:3000\""_s;
    QTest::newRow("origins: null") << origins << list({u"http://ok"_s, u"null"_s}) << QJsonValue()
                                   << u"workspace.json: settings.allowedOrigins[1]: \"null\" is "
                                      u"not accepted: list each origin that may call "
                                      u"the endpoint, e.g. \"http://localhost:3000\""_s;
}

void WorkspaceSettingsTest::settingsAllowedHostsAndOrigins()
{
    QFETCH(QString, field);
    QFETCH(QJsonValue, value);
    QFETCH(QJsonValue, written);
    QFETCH(QString, expectedError);
    const QJsonObject root {{"topics"_L1, QJsonArray()},
                            {"settings"_L1, QJsonObject {{field, value}}}};
    const Expected<Workspace> workspace
        = Workspace::fromJson(QJsonDocument(root).toJson(), u"workspace.json"_s);
    if (!expectedError.isEmpty()) {
        QCOMPARE(workspace.error(), expectedError);
        return;
    }
    QVERIFY2(workspace, qPrintable(workspace.error()));
    const QJsonObject settings = workspace->toJson().value("settings"_L1).toObject();
    QCOMPARE(settings.value(field), written);
    // What is written reads back the same.
    const Expected<Workspace> again
        = Workspace::fromJson(QJsonDocument(workspace->toJson()).toJson(), u"workspace.json"_s);
    QVERIFY2(again, qPrintable(again.error()));
    QCOMPARE(again->settings.allowedHosts, workspace->settings.allowedHosts);
    QCOMPARE(again->settings.allowedOrigins, workspace->settings.allowedOrigins);
    // Unset, neither is written: existing files keep their shape.
    const Expected<Workspace> plain = Workspace::fromJson(R"({"topics":[]})", u"workspace.json"_s);
    QVERIFY(!plain->toJson().value("settings"_L1).toObject().contains(field));
}

QTEST_GUILESS_MAIN(WorkspaceSettingsTest)
#include "tst_workspacesettings.moc"
