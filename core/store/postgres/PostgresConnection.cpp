// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "PostgresConnection.h"

#include "../StoreLocation.h"

#include <QStringEncoder>
#include <QUrl>
#include <QUrlQuery>
#include <QtEndian>

#include <libpq-fe.h>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// Type OIDs of PostgreSQL's catalog (pg_type.dat); fixed since PostgreSQL 7.
constexpr Oid ByteaOid = 17;
constexpr Oid Int8Oid = 20;
constexpr Oid TextOid = 25;
constexpr Oid ByteaArrayOid = 1001;
constexpr Oid TextArrayOid = 1009;
constexpr Oid Int8ArrayOid = 1016;

constexpr int BinaryFormat = 1;

// A pipeline syncs after this many commands and reads their answers before it sends more:
// otherwise the server's answers to a very large transaction could fill the socket buffers of
// both sides while neither reads, and both would wait for ever.
constexpr int CommandsPerSync = 1000;

void appendInt32(QByteArray &bytes, qint32 value)
{
    const qint32 big = qToBigEndian(value);
    bytes.append(reinterpret_cast<const char *>(&big), sizeof big);
}

void appendInt64(QByteArray &bytes, qint64 value)
{
    const qint64 big = qToBigEndian(value);
    bytes.append(reinterpret_cast<const char *>(&big), sizeof big);
}

// The binary header of a one-dimensional array without NULLs (array_send()).
QByteArray arrayHeader(Oid elementType, qsizetype count)
{
    QByteArray bytes;
    appendInt32(bytes, count > 0 ? 1 : 0); // dimensions: an empty array has none
    appendInt32(bytes, 0); // no NULL elements
    appendInt32(bytes, qint32(elementType));
    if (count > 0) {
        appendInt32(bytes, qint32(count));
        appendInt32(bytes, 1); // lower bound
    }
    return bytes;
}

// The header of a non-empty one-dimensional array: dimensions, NULL flag, element type, length,
// lower bound.
constexpr qsizetype ArrayHeaderBytes = 20;

void writeInt32(char *at, qint32 value)
{
    qToBigEndian(value, at);
}

// Whether a statement failed because of the values of a row (SQLSTATE classes 22, data
// exception, and 23, integrity constraint violation: a duplicate id, a NUL in a text) rather
// than the connection, the server or the transaction: only such a failure is worth replaying row
// by row to name the row (PostgresCommand::singleRows).
bool isRowError(const PGresult *result)
{
    const char *state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
    return state && (qstrncmp(state, "22", 2) == 0 || qstrncmp(state, "23", 2) == 0);
}

void ignoreNotice(void *, const char *)
{
}

} // namespace

// --- PostgresParameters -------------------------------------------------------------------------

void PostgresParameters::append(unsigned int type, QByteArray value, bool isNull)
{
    m_types.push_back(type);
    m_lengths.push_back(isNull ? 0 : int(value.size()));
    m_formats.push_back(BinaryFormat);
    m_nulls.push_back(isNull);
    m_values.push_back(std::move(value));
    // A QByteArray's bytes stay where they are when the vector moves it, but the vector may have
    // moved the others: the pointers are taken again.
    m_pointers.clear();
    for (size_t i = 0; i < m_values.size(); ++i)
        m_pointers.push_back(m_nulls[i] ? nullptr : m_values[i].constData());
}

void PostgresParameters::bind(qint64 value)
{
    QByteArray bytes;
    bytes.reserve(8);
    appendInt64(bytes, value);
    append(Int8Oid, std::move(bytes), false);
}

void PostgresParameters::bind(const QString &text)
{
    if (text.isNull()) {
        append(TextOid, QByteArray(), true);
        return;
    }
    QByteArray utf8 = text.toUtf8();
    if (utf8.isNull())
        utf8 = QByteArray("", 0);
    append(TextOid, std::move(utf8), false);
}

void PostgresParameters::bind(const QByteArray &bytes)
{
    if (bytes.isNull()) {
        append(ByteaOid, QByteArray(), true);
        return;
    }
    append(ByteaOid, bytes, false);
}

void PostgresParameters::bindNull()
{
    append(Int8Oid, QByteArray(), true);
}

void PostgresParameters::bindArray(const std::vector<qint64> &values)
{
    QByteArray bytes = arrayHeader(Int8Oid, qsizetype(values.size()));
    bytes.reserve(bytes.size() + qsizetype(values.size()) * 12);
    for (const qint64 value : values) {
        appendInt32(bytes, 8);
        appendInt64(bytes, value);
    }
    append(Int8ArrayOid, std::move(bytes), false);
}

void PostgresParameters::bindArray(const QStringList &texts)
{
    QByteArray bytes = arrayHeader(TextOid, texts.size());
    for (const QString &text : texts) {
        const QByteArray utf8 = text.toUtf8();
        appendInt32(bytes, qint32(utf8.size()));
        bytes.append(utf8);
    }
    append(TextArrayOid, std::move(bytes), false);
}

void PostgresParameters::bindArray(PostgresArray &&array)
{
    Oid type = Int8ArrayOid;
    switch (array.element()) {
    case PostgresArray::Element::BigInt:
        break;
    case PostgresArray::Element::Text:
        type = TextArrayOid;
        break;
    case PostgresArray::Element::Bytea:
        type = ByteaArrayOid;
        break;
    }
    append(type, std::move(array).take(), false);
}

// --- PostgresArray ------------------------------------------------------------------------------

PostgresArray::PostgresArray(Element element, qsizetype expectedCount, qsizetype expectedBytes)
    : m_element(element)
{
    const qsizetype perElement = element == Element::BigInt ? 12 : 4;
    m_bytes.reserve(ArrayHeaderBytes + expectedCount * perElement + expectedBytes);
    m_bytes.resize(ArrayHeaderBytes, '\0');
}

void PostgresArray::append(qint64 value)
{
    Q_ASSERT(m_element == Element::BigInt);
    appendInt32(m_bytes, 8);
    appendInt64(m_bytes, value);
    ++m_count;
}

void PostgresArray::append(const QString &text)
{
    Q_ASSERT(m_element == Element::Text);
    if (text.isNull()) {
        appendNull();
        return;
    }
    // The length goes in front of the bytes, known only once they are encoded in place.
    const qsizetype lengthAt = m_bytes.size();
    appendInt32(m_bytes, 0);
    QStringEncoder encoder(QStringEncoder::Utf8);
    const qsizetype room = encoder.requiredSpace(text.size());
    m_bytes.resize(lengthAt + 4 + room);
    char *start = m_bytes.data() + lengthAt + 4;
    char *end = encoder.appendToBuffer(start, text);
    m_bytes.resize(lengthAt + 4 + (end - start));
    writeInt32(m_bytes.data() + lengthAt, qint32(end - start));
    ++m_count;
}

void PostgresArray::append(const QByteArray &bytes)
{
    Q_ASSERT(m_element == Element::Bytea);
    if (bytes.isNull()) {
        appendNull();
        return;
    }
    appendInt32(m_bytes, qint32(bytes.size()));
    m_bytes.append(bytes);
    ++m_count;
}

void PostgresArray::appendNull()
{
    appendInt32(m_bytes, -1); // array_send(): a NULL element is a length of -1 and no bytes
    m_hasNull = true;
    ++m_count;
}

QByteArray PostgresArray::take() &&
{
    const Oid elementType = m_element == Element::BigInt ? Int8Oid
        : m_element == Element::Text                     ? TextOid
                                                         : ByteaOid;
    if (m_count == 0)
        return arrayHeader(elementType, 0);
    char *header = m_bytes.data();
    writeInt32(header, 1); // dimensions
    writeInt32(header + 4, m_hasNull ? 1 : 0);
    writeInt32(header + 8, qint32(elementType));
    writeInt32(header + 12, qint32(m_count));
    writeInt32(header + 16, 1); // lower bound
    return std::move(m_bytes);
}

// --- PostgresResult -----------------------------------------------------------------------------

void PostgresResult::Clearer::operator()(pg_result *result) const
{
    PQclear(result);
}

PostgresResult::PostgresResult(pg_result *result)
    : m_result(result)
{
}

int PostgresResult::rowCount() const
{
    return m_result ? PQntuples(m_result.get()) : 0;
}

bool PostgresResult::isNull(int column) const
{
    return PQgetisnull(m_result.get(), m_row, column) != 0;
}

qint64 PostgresResult::columnInt64(int column) const
{
    if (isNull(column))
        return 0;
    const char *bytes = PQgetvalue(m_result.get(), m_row, column);
    switch (PQgetlength(m_result.get(), m_row, column)) {
    case 8:
        return qFromBigEndian<qint64>(bytes);
    case 4:
        return qFromBigEndian<qint32>(bytes);
    case 2:
        return qFromBigEndian<qint16>(bytes);
    case 1:
        return bytes[0] != 0; // boolean
    default:
        return 0;
    }
}

QString PostgresResult::columnText(int column) const
{
    if (isNull(column))
        return QString();
    const int length = PQgetlength(m_result.get(), m_row, column);
    if (length == 0)
        return u""_s;
    return QString::fromUtf8(PQgetvalue(m_result.get(), m_row, column), length);
}

QByteArray PostgresResult::columnBlob(int column) const
{
    if (isNull(column))
        return QByteArray();
    const int length = PQgetlength(m_result.get(), m_row, column);
    if (length == 0)
        return QByteArray("", 0);
    return QByteArray(PQgetvalue(m_result.get(), m_row, column), length);
}

// --- PostgresConnection -------------------------------------------------------------------------

PostgresConnection::PostgresConnection(const QString &url)
    : m_url(url)
    , m_displayUrl(redactedStoreLocation(url))
{
    const QUrl parsed(url, QUrl::TolerantMode);
    m_password = parsed.password(QUrl::FullyDecoded);
    if (m_password.isEmpty())
        m_password = QUrlQuery(parsed).queryItemValue(u"password"_s, QUrl::FullyDecoded);
}

PostgresConnection::~PostgresConnection()
{
    disconnect();
}

bool PostgresConnection::isConnected() const
{
    return m_connection && PQstatus(m_connection) == CONNECTION_OK;
}

void PostgresConnection::disconnect()
{
    // A connection that broke tells the others; one closed while healthy (close(), a reconnect
    // because another broke) does not, so that the connections never make each other reconnect
    // in turn.
    if (m_losses && m_connection && PQstatus(m_connection) != CONNECTION_OK)
        ++*m_losses;
    if (m_connection)
        PQfinish(m_connection);
    m_connection = nullptr;
    m_prepared.clear();
}

void PostgresConnection::disconnectIfBroken()
{
    // At once rather than at this connection's next call: disconnect() tells the others now.
    if (m_connection && PQstatus(m_connection) != CONNECTION_OK)
        disconnect();
}

void PostgresConnection::shareLosses(std::shared_ptr<std::atomic<quint64>> losses)
{
    m_losses = std::move(losses);
    m_lossesSeen = m_losses ? m_losses->load() : 0;
}

Expected<void> PostgresConnection::ensureConnected()
{
    // libpq learns that the server closed a connection only when a call fails on it: a connection
    // that was idle while another found the server gone is taken for broken too.
    const quint64 losses = m_losses ? m_losses->load() : 0;
    if (isConnected() && losses == m_lossesSeen)
        return {};
    disconnect();
    const QByteArray url = m_url.toUtf8();
    // Defaults first: values the URL names itself win (only the dbname entry is expanded). The
    // keepalives and the TCP user timeout end a call on a server that vanished without closing
    // the connection (a pulled cable, a paused VM) within about a minute instead of never.
    const char *const keywords[] = {"client_encoding",
                                    "connect_timeout",
                                    "application_name",
                                    "keepalives_idle",
                                    "keepalives_interval",
                                    "keepalives_count",
                                    "tcp_user_timeout",
                                    "dbname",
                                    nullptr};
    const char *const values[]
        = {"UTF8", "10", "eventdesk", "30", "10", "3", "60000", url.constData(), nullptr};
    m_connection = PQconnectdbParams(keywords, values, 1);
    if (!m_connection)
        return error(u"connect"_s, u"out of memory"_s);
    if (PQstatus(m_connection) != CONNECTION_OK) {
        const QString cause = lastErrorText();
        disconnect();
        return error(u"connect"_s, cause);
    }
    // Notices ("relation already exists, skipping", ...) are no errors and not for stderr.
    PQsetNoticeProcessor(m_connection, ignoreNotice, nullptr);
    // Counted before connecting: a loss found meanwhile makes this one connect again, once.
    m_lossesSeen = losses;
    return {};
}

QString PostgresConnection::lastErrorText() const
{
    QString text = m_connection ? QString::fromUtf8(PQerrorMessage(m_connection)).trimmed()
                                : u"not connected"_s;
    if (!m_password.isEmpty())
        text.replace(m_password, u"***"_s);
    return text.isEmpty() ? u"unknown error"_s : text;
}

QString PostgresConnection::resultErrorText(pg_result *result) const
{
    QString text = result ? QString::fromUtf8(PQresultErrorMessage(result)).trimmed() : QString();
    if (text.isEmpty())
        return lastErrorText();
    if (!m_password.isEmpty())
        text.replace(m_password, u"***"_s);
    return text;
}

Error PostgresConnection::error(const QString &what) const
{
    return Error(u"Store %1: could not %2"_s.arg(m_displayUrl, what));
}

Error PostgresConnection::error(const QString &what, const QString &cause) const
{
    QString scrubbed = cause;
    if (!m_password.isEmpty())
        scrubbed.replace(m_password, u"***"_s);
    return Error(u"Store %1: could not %2: %3"_s.arg(m_displayUrl, what, scrubbed));
}

Expected<PostgresResult> PostgresConnection::run(const QByteArray &sql, const QString &what)
{
    if (auto connected = ensureConnected(); !connected)
        return Error(connected.error());
    pg_result *result = PQexecParams(m_connection, sql.constData(), 0, nullptr, nullptr, nullptr,
                                     nullptr, BinaryFormat);
    const ExecStatusType status = result ? PQresultStatus(result) : PGRES_FATAL_ERROR;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        const QString cause = resultErrorText(result);
        PQclear(result);
        disconnectIfBroken();
        return error(what, cause);
    }
    return PostgresResult(result);
}

Expected<QByteArray> PostgresConnection::preparedName(const QByteArray &sql,
                                                      const PostgresParameters &parameters,
                                                      const QString &what)
{
    if (auto it = m_prepared.find(sql); it != m_prepared.end())
        return it->second;
    const QByteArray name = "eventdesk_" + QByteArray::number(qulonglong(m_prepared.size()));
    pg_result *prepared = PQprepare(m_connection, name.constData(), sql.constData(),
                                    parameters.count(), parameters.types());
    const bool ok = prepared && PQresultStatus(prepared) == PGRES_COMMAND_OK;
    const QString cause = ok ? QString() : resultErrorText(prepared);
    PQclear(prepared);
    if (!ok) {
        disconnectIfBroken();
        return error(u"prepare to %1"_s.arg(what), cause);
    }
    m_prepared.emplace(sql, name);
    return name;
}

Expected<PostgresResult> PostgresConnection::execute(const QByteArray &sql,
                                                     const PostgresParameters &parameters,
                                                     const QString &what)
{
    if (auto connected = ensureConnected(); !connected)
        return Error(connected.error());
    const auto name = preparedName(sql, parameters, what);
    if (!name)
        return Error(name.error());
    pg_result *result
        = PQexecPrepared(m_connection, name->constData(), parameters.count(), parameters.values(),
                         parameters.lengths(), parameters.formats(), BinaryFormat);
    const ExecStatusType status = result ? PQresultStatus(result) : PGRES_FATAL_ERROR;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        const QString cause = resultErrorText(result);
        PQclear(result);
        disconnectIfBroken();
        return error(what, cause);
    }
    return PostgresResult(result);
}

void PostgresConnection::rollbackIfNeeded()
{
    if (!m_connection || PQstatus(m_connection) != CONNECTION_OK) {
        disconnect();
        return;
    }
    const PGTransactionStatusType state = PQtransactionStatus(m_connection);
    if (state == PQTRANS_INTRANS || state == PQTRANS_INERROR)
        PQclear(PQexec(m_connection, "ROLLBACK"));
}

Expected<std::vector<PostgresResult>>
PostgresConnection::transaction(const QList<PostgresCommand> &commands, const QStringList &whats)
{
    Q_ASSERT(commands.size() == whats.size());
    QList<const PostgresCommand *> pointers;
    pointers.reserve(commands.size());
    for (const PostgresCommand &command : commands)
        pointers.append(&command);
    qsizetype failedCommand = -1;
    auto results = pipeline(pointers, whats, Ending::Commit, &failedCommand);
    if (results || failedCommand < 0 || !commands[failedCommand].singleRows)
        return results;
    if (const QString row = rowThatFails(commands, whats, failedCommand); !row.isEmpty())
        return error(row);
    return results;
}

QString PostgresConnection::rowThatFails(const QList<PostgresCommand> &commands,
                                         const QStringList &whats, qsizetype failedCommand)
{
    const PostgresSingleRows rows = commands[failedCommand].singleRows();
    Q_ASSERT(rows.commands.size() == rows.whats.size());
    QList<const PostgresCommand *> pointers;
    QStringList rowWhats = whats.mid(0, failedCommand);
    for (qsizetype i = 0; i < failedCommand; ++i)
        pointers.append(&commands[i]);
    for (const PostgresCommand &row : rows.commands)
        pointers.append(&row);
    rowWhats.append(rows.whats);
    qsizetype failedRow = -1;
    auto replayed = pipeline(pointers, rowWhats, Ending::Rollback, &failedRow);
    // Only a row's own failure says more than the first error did.
    if (replayed || failedRow < failedCommand)
        return {};
    return replayed.error();
}

Expected<std::vector<PostgresResult>>
PostgresConnection::pipeline(const QList<const PostgresCommand *> &commands,
                             const QStringList &whats, Ending ending, qsizetype *failedCommand)
{
    *failedCommand = -1;
    if (auto connected = ensureConnected(); !connected)
        return Error(connected.error());
    // Prepared outside the pipeline (once per connection and statement), so that the pipeline
    // holds nothing but the transaction.
    std::vector<QByteArray> names;
    names.reserve(size_t(commands.size()));
    for (qsizetype i = 0; i < commands.size(); ++i) {
        const auto name = preparedName(commands[i]->sql, commands[i]->parameters, whats[i]);
        if (!name)
            return Error(name.error());
        names.push_back(name.value());
    }
    if (PQenterPipelineMode(m_connection) != 1)
        return error(u"start a pipeline"_s, lastErrorText());

    // The items of the pipeline: BEGIN (item 0), the commands, COMMIT (the last item).
    const qsizetype itemCount = commands.size() + 2;
    const auto isCommand = [itemCount](qsizetype item) {
        return item > 0 && item < itemCount - 1;
    };
    const char *const end = ending == Ending::Commit ? "COMMIT" : "ROLLBACK";
    const auto itemWhat = [&](qsizetype item) {
        if (item == 0)
            return u"begin a transaction"_s;
        return isCommand(item) ? whats[item - 1]
                               : (ending == Ending::Commit ? u"commit"_s : u"roll back"_s);
    };
    std::vector<PostgresResult> results;
    results.reserve(size_t(commands.size()));
    QString failure; // the first error: what failed and why
    bool broken = false; // an answer missing: the connection is gone or out of step

    // Reads the answers to the items first .. first + count - 1, then that of their sync.
    const auto readAnswers = [&](qsizetype first, qsizetype count) {
        for (qsizetype item = first; item < first + count; ++item) {
            pg_result *result = PQgetResult(m_connection);
            if (!result) {
                broken = true;
                if (failure.isEmpty())
                    failure = u"%1: %2"_s.arg(itemWhat(item), lastErrorText());
                return;
            }
            const ExecStatusType status = PQresultStatus(result);
            if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
                if (failure.isEmpty() && status != PGRES_PIPELINE_ABORTED) {
                    failure = u"%1: %2"_s.arg(itemWhat(item), resultErrorText(result));
                    if (isCommand(item) && isRowError(result))
                        *failedCommand = item - 1;
                }
                PQclear(result);
            } else if (isCommand(item)) {
                results.emplace_back(result);
            } else {
                PQclear(result);
            }
            // Each item's answers end with a null result.
            while (pg_result *rest = PQgetResult(m_connection))
                PQclear(rest);
        }
        pg_result *sync = PQgetResult(m_connection);
        if (!sync || PQresultStatus(sync) != PGRES_PIPELINE_SYNC) {
            broken = true;
            if (failure.isEmpty())
                failure = u"finish the pipeline: %1"_s.arg(resultErrorText(sync));
        }
        PQclear(sync);
    };

    // A sync after every CommandsPerSync items; nothing more is sent once an item has failed.
    bool sent = true;
    for (qsizetype first = 0; first < itemCount && failure.isEmpty() && sent && !broken;
         first += CommandsPerSync) {
        const qsizetype count = std::min<qsizetype>(CommandsPerSync, itemCount - first);
        for (qsizetype item = first; item < first + count && sent; ++item) {
            if (!isCommand(item)) {
                sent = PQsendQueryParams(m_connection, item == 0 ? "BEGIN" : end, 0, nullptr,
                                         nullptr, nullptr, nullptr, BinaryFormat)
                    == 1;
                continue;
            }
            const PostgresParameters &parameters = commands[item - 1]->parameters;
            sent = PQsendQueryPrepared(m_connection, names[size_t(item - 1)].constData(),
                                       parameters.count(), parameters.values(),
                                       parameters.lengths(), parameters.formats(), BinaryFormat)
                == 1;
        }
        sent = sent && PQpipelineSync(m_connection) == 1;
        if (sent)
            readAnswers(first, count);
    }
    if (!sent && failure.isEmpty())
        failure = u"send the transaction: %1"_s.arg(lastErrorText());
    if (broken || !sent || PQexitPipelineMode(m_connection) != 1) {
        // The pipeline is in an unknown state: a new connection is cleaner than repairing it.
        disconnect();
    } else if (!failure.isEmpty()) {
        rollbackIfNeeded();
    }
    if (!failure.isEmpty())
        return error(failure);
    return results;
}

} // namespace EventDesk
