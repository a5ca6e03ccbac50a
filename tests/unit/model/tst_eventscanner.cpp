// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The publish parser's event scanner (SPEC S1, S2, §10): reading events with EventScanner must
// give every publish request exactly the answer that reading them with QJsonDocument gives - the
// same acceptance, the same rejection with the same message, the same fields and stored bytes.
// A differential test: the parser with and without the scanner, over a table of tricky inputs and
// a few thousand generated and mutated ones (seeded, so every run sees the same inputs).

#include "model/EventParser.h"
#include "model/EventScanner.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTest>

#include <array>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

const QString publishTime = u"2024-05-01T10:00:00.0000000Z"_s;

Topic topicWithSchema(EventSchema schema)
{
    Topic topic;
    topic.name = u"orders"_s;
    topic.inputSchema = schema;
    return topic;
}

// The members the parser asks the scanner for (Event Grid's, then CloudEvents').
constexpr std::array<QLatin1StringView, 7> eventGridNames = {
    "id"_L1,          "subject"_L1, "eventType"_L1,       "eventTime"_L1,
    "dataVersion"_L1, "topic"_L1,   "metadataVersion"_L1,
};
constexpr std::array<QLatin1StringView, 9> cloudEventNames = {
    "specversion"_L1, "id"_L1,          "source"_L1, "type"_L1,        "subject"_L1,
    "time"_L1,        "dataversion"_L1, "data"_L1,   "data_base64"_L1,
};

QByteArray eventGridEvent(const QByteArray &data)
{
    return R"({"id":"e-1","subject":"/orders/1","eventType":"Order.Created",)"
           R"("eventTime":"2024-05-01T09:59:59.1234567Z","dataVersion":"1.0","data":)"
        + data + '}';
}

QByteArray cloudEvent(const QByteArray &members)
{
    return R"({"specversion":"1.0","id":"c-1","source":"/contoso","type":"order.created")" + members
        + '}';
}

// The first difference between two parse results, or an empty string.
QString difference(const PublishParseResult &expected, const PublishParseResult &actual)
{
    if (expected.httpStatus != actual.httpStatus)
        return u"status %1 against %2"_s.arg(expected.httpStatus).arg(actual.httpStatus);
    if (expected.errorCode != actual.errorCode)
        return u"code %1 against %2"_s.arg(expected.errorCode, actual.errorCode);
    if (expected.errorMessage != actual.errorMessage)
        return u"message '%1' against '%2'"_s.arg(expected.errorMessage, actual.errorMessage);
    if (expected.events.size() != actual.events.size()) {
        return u"%1 events against %2"_s.arg(expected.events.size()).arg(actual.events.size());
    }
    for (qsizetype index = 0; index < expected.events.size(); ++index) {
        const PublishedEvent &left = expected.events.at(index);
        const PublishedEvent &right = actual.events.at(index);
        const std::array<std::pair<const char *, bool>, 7> same = {{
            {"id", left.id == right.id},
            {"eventType", left.eventType == right.eventType},
            {"subject", left.subject == right.subject},
            {"dataVersion", left.dataVersion == right.dataVersion},
            {"eventTime", left.eventTime == right.eventTime},
            {"body", left.body == right.body},
            {"filterView", left.filterView == right.filterView},
        }};
        for (const auto &[field, equal] : same) {
            if (!equal)
                return u"event %1: %2 differs"_s.arg(index).arg(QLatin1StringView(field));
        }
    }
    return {};
}

// Parses body on a topic of each schema the scanner serves, with and without the scanner; returns
// the first difference (empty when none) and counts the requests accepted.
QString compareReadings(const QByteArray &body, int *accepted = nullptr)
{
    for (const EventSchema schema : {EventSchema::EventGrid, EventSchema::CloudEvents10}) {
        const Topic topic = topicWithSchema(schema);
        const PublishParseResult scanned = EventParser::parse(
            topic, body, "application/json", publishTime, EventParser::FilterViews::Skip,
            EventParser::EventReading::Scanner);
        const PublishParseResult reference = EventParser::parse(
            topic, body, "application/json", publishTime, EventParser::FilterViews::Skip,
            EventParser::EventReading::JsonDocumentOnly);
        const QString found = difference(reference, scanned);
        if (!found.isEmpty())
            return u"%1: %2"_s.arg(eventSchemaName(schema), found);
        if (accepted && scanned.isAccepted())
            ++*accepted;
    }
    return {};
}

// Whether what the scanner read from json (one object) is what QJsonDocument reads there: when
// the scanner accepts, QJsonDocument must accept too, with the same members. Returns the first
// disagreement, or an empty string; *scanned tells whether the scanner accepted.
template<size_t Count>
QString compareScan(const QByteArray &json, const std::array<QLatin1StringView, Count> &names,
                    bool *scanned)
{
    std::array<ScannedMember, Count> members;
    *scanned = EventScanner::scanObject(json, names, members);
    if (!*scanned)
        return {};
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        return u"scanned, but QJsonDocument refuses it: "_s + error.errorString();
    if (!document.isObject())
        return u"scanned, but not an object"_s;
    const QJsonObject object = document.object();
    for (size_t index = 0; index < Count; ++index) {
        const QJsonValue value = object.value(names[index]);
        const ScannedMember &member = members[index];
        bool agrees = false;
        switch (member.kind) {
        case ScannedMember::Kind::Absent:
            agrees = value.isUndefined();
            break;
        case ScannedMember::Kind::Null:
            agrees = value.isNull();
            break;
        case ScannedMember::Kind::PlainString:
            agrees = value.isString()
                && value.toString() == QString::fromUtf8(member.text.data(), member.text.size());
            break;
        case ScannedMember::Kind::OtherValue:
            agrees = !value.isUndefined() && !value.isNull();
            break;
        }
        if (!agrees)
            return u"member %1 read differently"_s.arg(names[index]);
    }
    return {};
}

// Random JSON text for the differential test: events in valid but tricky spellings (escapes,
// UTF-8, raw control characters, number forms, nesting, whitespace), a share of them with odd
// choices mixed in (spellings QJsonDocument refuses or the scanner leaves to it, fields missing,
// named twice or of the wrong type), and sometimes damaged byte by byte afterwards.
class EventGenerator
{
public:
    explicit EventGenerator(quint32 seed)
        : m_random(seed)
    {
    }

    QByteArray event(EventSchema schema);
    QByteArray mutated(QByteArray text);
    int below(int bound) { return int(m_random.bounded(bound)); }

private:
    template<size_t Count> const char *pick(const std::array<const char *, Count> &choices)
    {
        return choices[size_t(below(int(Count)))];
    }
    // Whether to make an odd choice here: a spelling QJsonDocument refuses or the scanner leaves
    // to it (odd), or an unusual member (oddMember). How often depends on the event.
    bool odd() { return m_oddOneIn > 0 && below(m_oddOneIn) == 0; }
    bool oddMember() { return m_oddMemberOneIn > 0 && below(m_oddMemberOneIn) == 0; }
    QByteArray space();
    QByteArray string();
    QByteArray number();
    QByteArray value(int depth);
    QByteArray member(const QByteArray &name, const QByteArray &value);
    QByteArray fieldValue(QByteArray good);

    QRandomGenerator m_random;
    int m_oddOneIn = 0; // 0: never
    int m_oddMemberOneIn = 0;
};

QByteArray EventGenerator::space()
{
    static constexpr std::array<const char *, 5> spaces = {" ", "\n  ", "\t", "\r\n", "  "};
    static constexpr std::array<const char *, 3> oddSpaces = {"\f", "\v", "\xC2\xA0"};
    if (odd())
        return pick(oddSpaces);
    return below(6) == 0 ? pick(spaces) : "";
}

QByteArray EventGenerator::string()
{
    static constexpr std::array<const char *, 24> pieces = {
        "a",
        "Z",
        "order",
        " ",
        "/",
        "0",
        "\\n",
        "\\\"",
        "\\\\",
        "\\/",
        "\\b\\f\\r\\t",
        "\\u00e9",
        "\\uD83D\\uDE00",
        "\\uD800",
        "\xC3\xA9",
        "\xE2\x82\xAC",
        "\xF0\x9F\x98\x80",
        "\xEF\xBF\xBE",
        "\xEF\xBB\xBF",
        "\x01",
        "\x1F",
        "\x7F",
        "\t",
        "{[,:]}",
    };
    static constexpr std::array<const char *, 17> oddPieces = {
        "\\u00G1",
        "\\u41",
        "\\a",
        "\\x41",
        "\\'",
        "\xC0\x80",
        "\xE0\x80\x80",
        "\xF0\x80\x80\x80",
        "\xED\xA0\x80",
        "\xF4\x90\x80\x80",
        "\xF5\x80\x80\x80",
        "\x80",
        "\xE2\x82",
        "\xFF",
        "\\",
        "\\\xC3",
        "\xC3",
    };
    QByteArray text = "\"";
    const int count = below(3) == 0 ? below(12) : below(3);
    for (int piece = 0; piece < count; ++piece) {
        if (odd())
            text += pick(oddPieces);
        else
            text += below(3) == 0 ? pick(pieces) : "x";
    }
    if (below(40) == 0)
        text.append('\0');
    return text + '"';
}

QByteArray EventGenerator::number()
{
    static constexpr std::array<const char *, 14> spellings = {
        "0",
        "-0",
        "7",
        "-12",
        "3.25",
        "-0.5",
        "1e5",
        "1E+05",
        "2.5e-3",
        "6.02e23",
        "1e99",
        "1e-99",
        "9007199254740993",
        "12345678901234567890123456789012",
    };
    static constexpr std::array<const char *, 15> oddSpellings = {
        "01",
        "-01",
        "00",
        "1.",
        ".5",
        "-",
        "1e",
        "1e+",
        "+1",
        "1e400",
        "1e-400",
        "1e100",
        "123456789012345678901234567890123",
        "1.5e2.3",
        "0x10",
    };
    if (odd()) {
        // Now and then a number that overflows or underflows a double, spelt without exponent.
        if (below(8) == 0)
            return below(2) == 0 ? QByteArray('1' + QByteArray(400, '0'))
                                 : QByteArray("0." + QByteArray(400, '0') + '1');
        return pick(oddSpellings);
    }
    if (below(3) == 0) {
        QByteArray digits = QByteArray::number(m_random.bounded(1000000));
        if (below(2) == 0)
            digits += '.' + QByteArray::number(m_random.bounded(1000));
        if (below(3) == 0)
            digits += "e-" + QByteArray::number(m_random.bounded(120));
        return (below(2) == 0 ? "-" : "") + digits;
    }
    return pick(spellings);
}

QByteArray EventGenerator::value(int depth)
{
    static constexpr std::array<const char *, 5> oddLiterals
        = {"nul", "tru", "nulls", "True", "NaN"};
    const int kind = depth >= 4 ? below(4) : below(7);
    switch (kind) {
    case 0:
        return string();
    case 1:
        return number();
    case 2:
        if (odd())
            return pick(oddLiterals);
        return below(3) == 0 ? "false" : (below(2) == 0 ? "true" : "null");
    case 3: {
        // Nesting around the scanner's limit now and then, rarely past QJsonDocument's.
        if (odd() && below(10) == 0)
            return QByteArray(1100, '[') + QByteArray(1100, ']');
        if (below(30) == 0) {
            const int levels = EventScanner::MaxDepth - 3 + below(6);
            return QByteArray(levels, '[') + QByteArray(levels, ']');
        }
        return below(2) == 0 ? "[]" : "{}";
    }
    case 4:
    case 5: {
        QByteArray text = "{" + space();
        const int count = below(4);
        for (int index = 0; index < count; ++index) {
            if (index > 0)
                text += ',' + space();
            const QByteArray key
                = below(3) == 0 ? string() : "\"k" + QByteArray::number(index) + '"';
            text += member(key, value(depth + 1));
        }
        return text + space() + '}';
    }
    default: {
        QByteArray text = "[" + space();
        const int count = below(4);
        for (int index = 0; index < count; ++index) {
            if (index > 0)
                text += ',' + space();
            text += value(depth + 1) + space();
        }
        return text + ']';
    }
    }
}

QByteArray EventGenerator::member(const QByteArray &name, const QByteArray &value)
{
    return name + space() + ':' + space() + value;
}

// A wanted field's value: mostly the good one, with something else inside it or instead of it
// now and then.
QByteArray EventGenerator::fieldValue(QByteArray good)
{
    if (!oddMember()) {
        if (below(8) == 0) // still valid: escapes, UTF-8, control characters inside the text
            good.insert(1 + below(int(good.size()) - 1), string().chopped(1).mid(1));
        return good;
    }
    switch (below(3)) {
    case 0:
        return value(1);
    case 1:
        return "null";
    default:
        return "\"\"";
    }
}

QByteArray EventGenerator::event(EventSchema schema)
{
    // Half the events are made without odd spellings, the others with one in 4 to one in 40;
    // unusual members likewise, independently.
    m_oddOneIn = below(2) == 0 ? 0 : 4 + below(37);
    m_oddMemberOneIn = below(2) == 0 ? 0 : 3 + below(28);
    QByteArrayList members;
    const auto add = [&](const char *name, const QByteArray &good) {
        // Left out, named twice, or spelt with an escape or a byte order mark now and then.
        const int spelling = oddMember() ? below(4) : -1;
        if (spelling == 0)
            return;
        QByteArray key = '"' + QByteArray(name) + '"';
        if (spelling == 1)
            key = "\"\\u00" + QByteArray::number(uchar(name[0]), 16) + QByteArray(name + 1) + '"';
        else if (spelling == 2)
            key = "\"\xEF\xBB\xBF" + QByteArray(name) + '"';
        members.append(member(key, fieldValue(good)));
        if (spelling == 3)
            members.append(member(key, fieldValue(good)));
    };
    if (schema == EventSchema::EventGrid) {
        add("id", "\"e-" + QByteArray::number(below(1000)) + '"');
        add("subject", "\"/orders/1\"");
        add("eventType", "\"Order.Created\"");
        add("eventTime",
            oddMember() ? "\"2024-13-01T00:00:00Z\"" : "\"2024-05-01T09:59:59.1234567Z\"");
        add("dataVersion", "\"1.0\"");
        if (oddMember())
            add("topic", "\"/elsewhere\"");
        if (oddMember())
            add("metadataVersion", "\"1\"");
    } else {
        add("specversion", oddMember() ? "\"0.3\"" : "\"1.0\"");
        add("id", "\"c-" + QByteArray::number(below(1000)) + '"');
        add("source", "\"/contoso\"");
        add("type", "\"order.created\"");
        if (below(2) == 0)
            add("subject", below(4) == 0 ? "null" : "\"order-1\"");
        if (below(2) == 0)
            add("time",
                oddMember() ? "\"yesterday\""
                            : (below(4) == 0 ? "null" : "\"2024-05-01T09:59:59Z\""));
        if (below(3) == 0)
            add("dataversion", "\"3\"");
        if (below(4) == 0)
            add(below(4) == 0 ? "data_base64" : "data", "\"QQ==\"");
    }
    if (below(4) != 0)
        members.append(member("\"data\"", value(1)));
    for (int extra = below(3); extra > 0; --extra) {
        const QByteArray key = below(4) == 0 ? string() : "\"ext" + QByteArray::number(extra) + '"';
        members.append(member(key, value(1)));
    }
    // The publisher's key order is kept, so it is shuffled too.
    for (qsizetype index = members.size() - 1; index > 0; --index)
        members.swapItemsAt(index, below(int(index + 1)));
    return '{' + space() + members.join(',' + space()) + space() + '}';
}

QByteArray EventGenerator::mutated(QByteArray text)
{
    static constexpr std::array<const char *, 26> inserts = {
        "\"",
        "\\",
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        " ",
        "0",
        "-",
        ".",
        "e",
        "\\u",
        "\\uD800",
        "\xEF\xBB\xBF",
        "\xC3",
        "\xA9",
        "\xED\xA0\x80",
        "null",
        "\"topic\":\"x\",",
        "\"id\":\"dup\",",
        "\"data_base64\":\"QQ==\",",
        "\"time\":null,",
        "\x00",
        "\x1F",
    };
    for (int change = 1 + below(3); change > 0 && !text.isEmpty(); --change) {
        const qsizetype at = below(int(text.size()));
        switch (below(4)) {
        case 0:
            text[at] = char(below(256));
            break;
        case 1: {
            const char *insert = pick(inserts);
            text.insert(at, insert, qMax<qsizetype>(1, qstrlen(insert)));
            break;
        }
        case 2:
            text.remove(at, 1 + below(8));
            break;
        default:
            text.insert(at, text.mid(at, 1 + below(8)));
            break;
        }
    }
    return text;
}

QString failure(int round, const QString &found, const QByteArray &input)
{
    return u"round %1: %2 in %3"_s.arg(QString::number(round), found,
                                       QString::fromLatin1(input.toPercentEncoding()));
}

} // namespace

class TestEventScanner final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tricky_data();
    void tricky();
    void commonEventsAreScanned();
    void generatedAndMutated();
};

void TestEventScanner::tricky_data()
{
    QTest::addColumn<QByteArray>("event");
    QTest::addColumn<bool>("jsonDocumentAccepts"); // QJsonDocument, the event alone
    QTest::addColumn<bool>("scanned"); // EventScanner reads it itself (Event Grid's members)

    // Strings: what QJsonDocument takes (measured on Qt 6.4) and what the scanner leaves to it.
    QTest::newRow("raw control characters") << eventGridEvent("\"\x01\x1f\t\x7f\"") << true << true;
    QTest::newRow("raw NUL") << eventGridEvent(QByteArray("\"a\0b\"", 5)) << true << true;
    QTest::newRow("UTF-8, 2 to 4 bytes")
        << eventGridEvent("\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"") << true << true;
    QTest::newRow("noncharacter U+FFFE") << eventGridEvent("\"\xEF\xBF\xBE\"") << true << true;
    QTest::newRow("highest code point") << eventGridEvent("\"\xF4\x8F\xBF\xBF\"") << true << true;
    QTest::newRow("overlong 2 bytes") << eventGridEvent("\"\xC0\x80\"") << false << false;
    QTest::newRow("overlong 3 bytes") << eventGridEvent("\"\xE0\x80\x80\"") << false << false;
    QTest::newRow("overlong 4 bytes") << eventGridEvent("\"\xF0\x80\x80\x80\"") << false << false;
    QTest::newRow("encoded surrogate") << eventGridEvent("\"\xED\xA0\x80\"") << false << false;
    QTest::newRow("above U+10FFFF") << eventGridEvent("\"\xF4\x90\x80\x80\"") << false << false;
    QTest::newRow("F5 lead byte") << eventGridEvent("\"\xF5\x80\x80\x80\"") << false << false;
    QTest::newRow("stray continuation") << eventGridEvent("\"\x80\"") << false << false;
    QTest::newRow("truncated sequence") << eventGridEvent("\"\xE2\x82\"") << false << false;
    QTest::newRow("truncated at the quote") << eventGridEvent("\"\xC3\"") << false << false;
    QTest::newRow("FF byte") << eventGridEvent("\"\xFF\"") << false << false;
    QTest::newRow("known escapes")
        << eventGridEvent(R"("\"\\\/\b\f\n\r\t\u00e9\uABCD")") << true << true;
    QTest::newRow("lone surrogate escapes")
        << eventGridEvent(R"("\uD800\uDC00x\uDE00\uD83D")") << true << true;
    QTest::newRow("unknown escape \\a") << eventGridEvent(R"("\a")") << true << false;
    QTest::newRow("unknown escape \\x") << eventGridEvent(R"("\x41")") << true << false;
    QTest::newRow("escaped space") << eventGridEvent(R"("\ ")") << true << false;
    QTest::newRow("short \\u") << eventGridEvent(R"("\u41")") << false << false;
    QTest::newRow("\\u with a non-hex digit") << eventGridEvent(R"("\u00G1")") << false << false;
    QTest::newRow("backslash at the end") << eventGridEvent(R"("\)") << false << false;
    QTest::newRow("byte order mark in a value")
        << eventGridEvent("\"\xEF\xBB\xBFx\"") << true << true;

    // Numbers.
    QTest::newRow("plain numbers")
        << eventGridEvent("[0,-0,7,-12,3.25,1e5,1E+05,2.5e-3,6.02e23]") << true << true;
    QTest::newRow("exponent of two digits") << eventGridEvent("[1e99,1e-99]") << true << true;
    QTest::newRow("exponent of three digits") << eventGridEvent("1e100") << true << false;
    QTest::newRow("32 characters")
        << eventGridEvent("12345678901234567890123456789012") << true << true;
    QTest::newRow("33 characters")
        << eventGridEvent("123456789012345678901234567890123") << true << false;
    QTest::newRow("beyond 2^53") << eventGridEvent("9007199254740993") << true << true;
    QTest::newRow("leading zero") << eventGridEvent("01") << false << false;
    QTest::newRow("negative leading zero") << eventGridEvent("-01") << false << false;
    QTest::newRow("fraction without digits") << eventGridEvent("1.") << true << false;
    QTest::newRow("fraction without integer") << eventGridEvent(".5") << true << false;
    QTest::newRow("overflow") << eventGridEvent("1e400") << false << false;
    QTest::newRow("underflow") << eventGridEvent("1e-400") << false << false;
    QTest::newRow("plus sign") << eventGridEvent("+1") << false << false;
    QTest::newRow("minus alone") << eventGridEvent("-") << false << false;
    QTest::newRow("exponent without digits") << eventGridEvent("1e+") << false << false;
    QTest::newRow("hexadecimal") << eventGridEvent("0x10") << false << false;
    QTest::newRow("two fractions") << eventGridEvent("1.5e2.3") << false << false;
    QTest::newRow("NaN") << eventGridEvent("NaN") << false << false;

    // Literals, containers, nesting, whitespace.
    QTest::newRow("literals") << eventGridEvent("[true,false,null]") << true << true;
    QTest::newRow("capital True") << eventGridEvent("True") << false << false;
    QTest::newRow("nul") << eventGridEvent("nul") << false << false;
    QTest::newRow("nulls") << eventGridEvent("nulls") << false << false;
    QTest::newRow("empty containers")
        << eventGridEvent(R"({"a":{},"b":[],"c":[{}],"":{"e":[]}})") << true << true;
    QTest::newRow("trailing comma in an array") << eventGridEvent("[1,]") << false << false;
    QTest::newRow("trailing comma in an object") << eventGridEvent(R"({"a":1,})") << false << false;
    QTest::newRow("missing colon") << eventGridEvent(R"({"a" 1})") << false << false;
    QTest::newRow("single quotes") << eventGridEvent("{'a':1}") << false << false;
    const auto nested = [](int levels) -> QByteArray {
        return QByteArray(levels, '[') + QByteArray(levels, ']');
    };
    QTest::newRow("nesting at the limit")
        << eventGridEvent(nested(EventScanner::MaxDepth - 1)) << true << true;
    QTest::newRow("nesting past the limit")
        << eventGridEvent(nested(EventScanner::MaxDepth)) << true << false;
    QTest::newRow("nesting past QJsonDocument's limit")
        << eventGridEvent(nested(1100)) << false << false;
    QTest::newRow("whitespace between tokens") << QByteArray(
        " {\"id\" :\t\"e-1\",\r\n\"subject\":\"/s\", \"eventType\":\"T\",\"eventTime\":"
        "\"2024-05-01T09:59:59Z\",\"dataVersion\":\"1\",\"data\": [ 1 , { } ] }\n")
                                               << true << true;
    QTest::newRow("form feed between tokens") << eventGridEvent("\f1") << false << false;
    QTest::newRow("text after the object") << eventGridEvent("1") + "x" << false << false;
    QTest::newRow("second object") << eventGridEvent("1") + "{}" << false << false;

    // The members the parser reads.
    const auto changed = [](const QByteArray &from, const QByteArray &to) {
        return eventGridEvent("1").replace(from, to);
    };
    QTest::newRow("escape in a field") << changed("\"e-1\"", R"("e\/1")") << true << true;
    QTest::newRow("escaped key") << changed("\"id\"", R"("i\u0064")") << true << false;
    QTest::newRow("key behind a byte order mark")
        << changed("\"id\"", "\"\xEF\xBB\xBFid\"") << true << false;
    QTest::newRow("field named twice")
        << eventGridEvent("1").chopped(1) + R"(,"id":"e-2"})" << true << false;
    QTest::newRow("other member named twice")
        << eventGridEvent("1").chopped(1) + R"(,"data":2})" << true << true;
    QTest::newRow("number as a field") << changed("\"e-1\"", "1") << true << true;
    QTest::newRow("null field") << changed("\"/orders/1\"", "null") << true << true;
    QTest::newRow("publisher's topic")
        << eventGridEvent("1").chopped(1) + R"(,"topic":"/elsewhere"})" << true << true;
    QTest::newRow("publisher's metadataVersion")
        << eventGridEvent("1").chopped(1) + R"(,"metadataVersion":"1"})" << true << true;
    QTest::newRow("bad eventTime")
        << changed("2024-05-01T09:59:59.1234567Z", "2024-02-30T00:00:00Z") << true << true;
    QTest::newRow("empty id") << changed("\"e-1\"", "\"\"") << true << true;
    QTest::newRow("non-ASCII field")
        << changed("/orders/1", "/\xE2\x82\xAC\xF0\x9F\x98\x80") << true << true;
    QTest::newRow("field behind a byte order mark") << changed("\"e-1\"",
                                                               "\"\xEF\xBB\xBF"
                                                               "e-1\"")
                                                    << true << true;
    // The array splitter drops whitespace between tokens before an event is read either way.
    QTest::newRow("space inside a number") << eventGridEvent("1 2") << false << false;
    QTest::newRow("CloudEvent") << cloudEvent(
        R"(,"subject":null,"time":"2024-05-01T09:59:59Z","data":{"n":1})")
                                << true << true;
    QTest::newRow("CloudEvent, number as time") << cloudEvent(R"(,"time":5)") << true << true;
    QTest::newRow("CloudEvent, null required attribute")
        << QByteArray(R"({"specversion":"1.0","id":null,"source":"/s","type":"t"})") << true
        << true;
    QTest::newRow("CloudEvent, data and data_base64")
        << cloudEvent(R"(,"data":1,"data_base64":"QQ==")") << true << true;
    QTest::newRow("CloudEvent, spec version 0.3")
        << QByteArray(R"({"specversion":"0.3","id":"c","source":"/s","type":"t"})") << true << true;
    QTest::newRow("an array, not an object") << QByteArray("[1]") << true << false;
    QTest::newRow("empty object") << QByteArray("{}") << true << true;
}

void TestEventScanner::tricky()
{
    QFETCH(QByteArray, event);
    QFETCH(bool, jsonDocumentAccepts);
    QFETCH(bool, scanned);

    // The premises: QJsonDocument's answer as measured, and the scanner's reach.
    QJsonParseError error;
    QJsonDocument::fromJson(event, &error);
    QCOMPARE(error.error == QJsonParseError::NoError, jsonDocumentAccepts);
    bool scannedEventGrid = false;
    QCOMPARE(compareScan(event, eventGridNames, &scannedEventGrid), QString());
    QCOMPARE(scannedEventGrid, scanned);
    bool scannedCloudEvent = false;
    QCOMPARE(compareScan(event, cloudEventNames, &scannedCloudEvent), QString());

    // The parser gives the same answer with the scanner and without it: the event alone, after a
    // valid event, and before one (the first offending index is named).
    const QByteArray valid = eventGridEvent("{}");
    const QByteArrayList bodies = {'[' + event + ']', '[' + valid + ',' + event + ']',
                                   "[\n " + event + " ,\n" + valid + "\n]"};
    for (const QByteArray &body : bodies) {
        QCOMPARE(compareReadings(body), QString());
    }
}

void TestEventScanner::commonEventsAreScanned()
{
    // The fast path must cover what publishers send, or the scanner only costs time.
    const QByteArray pad(870, 'x');
    const QByteArrayList events = {
        eventGridEvent("{\"pad\":\"" + pad + "\"}"),
        eventGridEvent(
            R"({"amount":12.5,"items":[{"sku":"A-1","n":2},{"sku":"B-2","n":-1}],"ok":true,"note":null,"text":"line\nnext \"quoted\" caf\u00e9"})"),
        eventGridEvent("{\"name\":\"Gr\xC3\xBC\xC3\x9F"
                       "e \xF0\x9F\x98\x80\"}"),
    };
    for (const QByteArray &event : events) {
        bool scanned = false;
        QCOMPARE(compareScan(event, eventGridNames, &scanned), QString());
        QVERIFY2(scanned, event.constData());
    }
    bool scanned = false;
    QCOMPARE(compareScan(cloudEvent(R"(,"time":"2024-05-01T09:59:59Z","data":{"n":1})"),
                         cloudEventNames, &scanned),
             QString());
    QVERIFY(scanned);
}

void TestEventScanner::generatedAndMutated()
{
    // Deterministic: a fixed seed, a fixed number of inputs.
    constexpr quint32 seed = 20261125;
    constexpr int rounds = 10000;
    EventGenerator generator(seed);
    int texts = 0;
    int qtAccepted = 0;
    int scanned = 0;
    int requestsAccepted = 0;
    for (int round = 0; round < rounds; ++round) {
        const EventSchema schema
            = round % 2 == 0 ? EventSchema::EventGrid : EventSchema::CloudEvents10;
        QByteArrayList events;
        for (int count = 1 + generator.below(3); count > 0; --count)
            events.append(generator.event(schema));
        // The scanner on each event alone, against QJsonDocument.
        for (const QByteArray &event : events) {
            const QByteArray damaged = generator.below(2) == 0 ? generator.mutated(event) : event;
            for (const QByteArray &text : {event, damaged}) {
                bool accepted = false;
                const QString found = schema == EventSchema::EventGrid
                    ? compareScan(text, eventGridNames, &accepted)
                    : compareScan(text, cloudEventNames, &accepted);
                if (!found.isEmpty())
                    QFAIL(qPrintable(failure(round, found, text)));
                ++texts;
                scanned += accepted ? 1 : 0;
                QJsonParseError error;
                QJsonDocument::fromJson(text, &error);
                qtAccepted += error.error == QJsonParseError::NoError ? 1 : 0;
            }
        }
        // The parser with and without the scanner, on the request as generated and damaged.
        QByteArray body = "[" + events.join(generator.below(4) == 0 ? ",\n" : ",") + "]";
        if (generator.below(3) == 0)
            body = generator.mutated(body);
        const QString found = compareReadings(body, &requestsAccepted);
        if (!found.isEmpty())
            QFAIL(qPrintable(failure(round, found, body)));
    }
    // Not a vacuous comparison: many inputs were valid JSON, the scanner read most of those
    // itself, and many requests were accepted.
    qInfo("%d of %d event texts valid JSON, %d read by the scanner; %d requests accepted",
          qtAccepted, texts, scanned, requestsAccepted);
    QVERIFY(qtAccepted > rounds);
    QVERIFY(scanned > qtAccepted / 2);
    QVERIFY(requestsAccepted > rounds / 10);
}

QTEST_GUILESS_MAIN(TestEventScanner)
#include "tst_eventscanner.moc"
