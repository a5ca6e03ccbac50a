// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "ListenAddress.h"

#include <QUrl>

using namespace Qt::StringLiterals;

namespace EventDesk {

Expected<ListenAddress> ListenAddress::parse(const QString &text)
{
    const QUrl url(u"http://"_s + text);
    const int port = url.port(-1);
    if (!url.isValid() || url.host().isEmpty() || port < 0 || port > 65535 || !url.path().isEmpty())
        return Error(u"expected HOST:PORT with a port from 0 to 65535 (got '%1')"_s.arg(text));
    ListenAddress result;
    result.host = url.host();
    result.port = quint16(port);
    if (result.address().isNull())
        return Error(u"'%1' is not an IP address (use 127.0.0.1, ::1, 0.0.0.0 or localhost)"_s.arg(
            result.host));
    return result;
}

QHostAddress ListenAddress::address() const
{
    if (host.compare(u"localhost"_s, Qt::CaseInsensitive) == 0)
        return QHostAddress(QHostAddress::LocalHost);
    return QHostAddress(host);
}

QString ListenAddress::urlHost() const
{
    return host.contains(u':') ? u'[' + host + u']' : host;
}

QString ListenAddress::url(quint16 onPort) const
{
    return u"http://%1:%2"_s.arg(urlHost()).arg(onPort);
}

} // namespace EventDesk
