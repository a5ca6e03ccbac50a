// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EndpointAccess.h"

#include <QHostInfo>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

bool isNameCharacter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
        || c == '.' || c == '_';
}

bool isDecimal(QByteArrayView text)
{
    if (text.isEmpty())
        return false;
    for (const char c : text) {
        if (c < '0' || c > '9')
            return false;
    }
    return true;
}

QByteArray nameOf(const QHostAddress &address)
{
    const QByteArray text = address.toString().toLower().toLatin1();
    return address.protocol() == QAbstractSocket::IPv6Protocol ? '[' + text + ']' : text;
}

bool isWildcard(const QHostAddress &address)
{
    return address == QHostAddress::Any || address == QHostAddress::AnyIPv4
        || address == QHostAddress::AnyIPv6;
}

EndpointAccess::Verdict refusal(int status, const QString &code, const QString &message)
{
    EndpointAccess::Verdict verdict;
    verdict.status = status;
    verdict.code = code;
    verdict.message = message;
    return verdict;
}

} // namespace

EndpointAccess::EndpointAccess()
    : EndpointAccess(QHostAddress::LocalHost, 0, {}, {})
{
}

EndpointAccess::EndpointAccess(const QHostAddress &listenAddress, quint16 port,
                               const QStringList &allowedHosts, const QStringList &allowedOrigins)
{
    m_names = {"127.0.0.1", "localhost", "[::1]"};
    if (isWildcard(listenAddress)) {
        // Reached through any of the machine's addresses. An address in Host cannot come from
        // DNS rebinding (a page's own name would), so every address literal is accepted, and the
        // machine's own name.
        m_anyAddressLiteral = true;
        if (const QByteArray host = QHostInfo::localHostName().toLower().toLatin1();
            !host.isEmpty())
            m_names.append(host);
    } else if (const QByteArray name = nameOf(listenAddress);
               !listenAddress.isNull() && !m_names.contains(name)) {
        m_names.append(name);
    }
    for (const QString &host : allowedHosts) {
        if (const QByteArray name = host.toLower().toLatin1(); !m_names.contains(name))
            m_names.append(name);
    }
    for (const QByteArray &name : std::as_const(m_names)) {
        m_exactHosts.append(name);
        if (port != 0)
            m_exactHosts.append(name + ':' + QByteArray::number(port));
    }
    for (const QString &origin : allowedOrigins)
        m_origins.append(origin.toLatin1());
}

QString EndpointAccess::acceptedHosts() const
{
    QStringList names;
    for (const QByteArray &name : m_names)
        names.append(QString::fromLatin1(name));
    QString text = names.join(u", "_s);
    if (m_anyAddressLiteral)
        text += u" or any IP address of this machine"_s;
    return text;
}

bool EndpointAccess::splitHost(QByteArrayView value, QByteArray *name)
{
    QByteArrayView host = value;
    QByteArrayView port;
    if (value.startsWith('[')) {
        const qsizetype close = value.indexOf(']');
        if (close < 0)
            return false;
        host = value.first(close + 1);
        port = value.sliced(close + 1);
        for (const char c : host.sliced(1, host.size() - 2)) {
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
                  || c == ':' || c == '.'))
                return false;
        }
    } else {
        if (const qsizetype colon = value.indexOf(':'); colon >= 0) {
            host = value.first(colon);
            port = value.sliced(colon);
        }
        for (const char c : host) {
            if (!isNameCharacter(c))
                return false;
        }
    }
    if (host.isEmpty() || host == "[]")
        return false;
    if (!port.isEmpty() && (port.front() != ':' || port.size() > 6 || !isDecimal(port.sliced(1))))
        return false;
    *name = host.toByteArray().toLower();
    return true;
}

bool EndpointAccess::isAddressLiteral(QByteArrayView name)
{
    if (name.startsWith('[') && name.endsWith(']')) {
        const QHostAddress address(QString::fromLatin1(name.sliced(1, name.size() - 2)));
        return address.protocol() == QAbstractSocket::IPv6Protocol;
    }
    // Four decimal octets: the form a browser's URL parser writes every IPv4 address in.
    int parts = 0;
    for (;;) {
        const qsizetype dot = name.indexOf('.');
        const QByteArrayView octet = dot < 0 ? name : name.first(dot);
        if (++parts > 4 || octet.size() > 3 || !isDecimal(octet) || octet.toInt() > 255)
            return false;
        if (dot < 0)
            return parts == 4;
        name = name.sliced(dot + 1);
    }
}

EndpointAccess::HostMatch EndpointAccess::matchHost(QByteArrayView value) const
{
    for (const QByteArray &exact : m_exactHosts) {
        if (exact.size() == value.size() && exact.compare(value, Qt::CaseInsensitive) == 0)
            return HostMatch::Allowed;
    }
    QByteArray name;
    if (!splitHost(value, &name))
        return HostMatch::Malformed;
    if (m_names.contains(name) || (m_anyAddressLiteral && isAddressLiteral(name)))
        return HostMatch::Allowed; // another port: a forwarded one
    return HostMatch::Other;
}

EndpointAccess::Verdict EndpointAccess::check(const HttpRequest &head) const
{
    QByteArrayView host;
    int hostLines = 0;
    QByteArrayView origin;
    bool hasOrigin = false;
    for (const auto &[name, value] : head.headers) {
        if (name.size() == 4 && name.compare("Host", Qt::CaseInsensitive) == 0) {
            host = value;
            ++hostLines;
        } else if (name.size() == 6 && name.compare("Origin", Qt::CaseInsensitive) == 0) {
            origin = value;
            hasOrigin = true;
        }
    }
    // RFC 9112 §3.2: a request without Host, or with more than one, is answered 400.
    if (hostLines == 0) {
        return refusal(400, u"BadRequest"_s,
                       u"The request has no Host header. Send the address of this endpoint, "
                       u"e.g. Host: 127.0.0.1:<port>; accepted: %1."_s.arg(acceptedHosts()));
    }
    if (hostLines > 1)
        return refusal(400, u"BadRequest"_s, u"The request has more than one Host header."_s);
    switch (matchHost(host)) {
    case HostMatch::Allowed:
        break;
    case HostMatch::Malformed:
        return refusal(
            400, u"BadRequest"_s,
            u"The Host header '%1' is malformed; accepted: %2, with or without a port."_s.arg(
                QString::fromLatin1(host.first(std::min<qsizetype>(host.size(), 200))),
                acceptedHosts()));
    case HostMatch::Other:
        // RFC 9110 §15.5.20: 421, the request was sent to a server that does not answer for
        // that host (a DNS name rebound to this address, a proxy that forwards another site).
        return refusal(
            421, u"MisdirectedRequest"_s,
            u"The Host header '%1' does not name this endpoint; accepted: %2, with or "
            u"without a port. Add other names to workspace.json settings.allowedHosts."_s.arg(
                QString::fromLatin1(host.first(std::min<qsizetype>(host.size(), 200))),
                acceptedHosts()));
    }
    Verdict verdict;
    if (!hasOrigin)
        return verdict;
    for (const QByteArray &allowed : m_origins) {
        if (allowed.size() == origin.size() && allowed.compare(origin, Qt::CaseInsensitive) == 0) {
            verdict.allowedOrigin = origin.toByteArray();
            return verdict;
        }
    }
    return refusal(403, u"Forbidden"_s,
                   u"Requests from web pages are refused: the Origin '%1' is not in workspace.json "
                   u"settings.allowedOrigins (%2). The SDKs and curl send no Origin header."_s.arg(
                       QString::fromLatin1(origin.first(std::min<qsizetype>(origin.size(), 200))),
                       m_origins.isEmpty()
                           ? u"none is listed"_s
                           : u"listed: "_s + QString::fromLatin1(m_origins.join(", "))));
}

} // namespace EventDesk
