// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../http/HttpServer.h"

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QString>
#include <QStringList>

namespace EventDesk {

// Which requests may reach the endpoint at all (docs/security.md "The HTTP endpoint"). A loopback
// port is reachable from every web page the user opens: a page can send a request without a CORS
// preflight, or make a DNS name of its own resolve to 127.0.0.1 (DNS rebinding). Such a request
// names the page's server in its Host header, or carries an Origin header; the endpoint's own
// clients (the Event Grid SDKs, curl, EventDesk's deliveries to its test receivers and validation
// URLs) send a Host that names the endpoint and no Origin. Checked once per request head, before
// its body is read: on the usual path one comparison of the Host value and one scan of the headers.
class EndpointAccess final
{
public:
    struct Verdict
    {
        int status = 0; // 0: allowed; 400 (no or malformed Host), 421 (another host), 403 (Origin)
        QString
            code; // Event Grid error code of a refusal: BadRequest, MisdirectedRequest, Forbidden
        QString message; // what was wrong and what is accepted
        // An Origin header that the settings allow (answered with CORS headers); empty otherwise.
        QByteArray allowedOrigin;

        bool isAllowed() const { return status == 0; }
    };

    // Loopback names only, on the default port: what an endpoint not yet listening accepts.
    EndpointAccess();
    // listenAddress: the address the endpoint is bound to (a wildcard address admits more names,
    // see acceptedHosts()). allowedHosts and allowedOrigins: workspace.json's settings, as
    // WorkspaceSettings holds them (validated and normalised).
    EndpointAccess(const QHostAddress &listenAddress, quint16 port, const QStringList &allowedHosts,
                   const QStringList &allowedOrigins);

    Verdict check(const HttpRequest &head) const;

    // The host names accepted, for messages and the log ("127.0.0.1, localhost, [::1]").
    QString acceptedHosts() const;

    // Host header syntax: "name", "name:port", "[v6]" or "[v6]:port". Sets *name to the host part
    // in lower case. False when malformed.
    static bool splitHost(QByteArrayView value, QByteArray *name);
    // A dotted-quad IPv4 address or a bracketed IPv6 address.
    static bool isAddressLiteral(QByteArrayView name);

private:
    enum class HostMatch { Allowed, Malformed, Other };
    HostMatch matchHost(QByteArrayView value) const;

    QList<QByteArray>
        m_exactHosts; // lower case "name" and "name:port": the common case, compared whole
    QList<QByteArray> m_names; // lower case, without port
    bool m_anyAddressLiteral = false; // listening on a wildcard address
    QList<QByteArray> m_origins; // serialised as browsers send them ("http://localhost:3000")
};

} // namespace EventDesk
