// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "rules/FilterEvaluator.h"

#include <QJsonDocument>
#include <QTest>

using namespace EventDesk;
using namespace Qt::StringLiterals;

namespace {

// The filter view of one Event Grid event (PublishedEvent::filterView).
QJsonObject sampleEvent()
{
    const QByteArray json = R"({
        "id": "1",
        "topic": "/subscriptions/x/resourceGroups/rg/providers/Microsoft.EventGrid/topics/t",
        "subject": "/Blobs/Container/Photo.JPG",
        "eventType": "Microsoft.Storage.BlobCreated",
        "data": {
            "size": 1024,
            "ratio": 0.5,
            "name": "Report.PDF",
            "numericString": "42",
            "enabled": true,
            "nothing": null,
            "tags": ["Red", "green"],
            "sizes": [1, 5, 10],
            "empty": [],
            "nested": { "deep": { "value": "X" } }
        }
    })";
    return QJsonDocument::fromJson(json).object();
}

AdvancedFilter numbers(FilterOperator op, const QString &key, const QList<double> &values)
{
    AdvancedFilter filter;
    filter.op = op;
    filter.key = key;
    filter.numbers = values;
    return filter;
}

AdvancedFilter ranges(FilterOperator op, const QString &key,
                      const QList<std::pair<double, double>> &values)
{
    AdvancedFilter filter;
    filter.op = op;
    filter.key = key;
    filter.ranges = values;
    return filter;
}

AdvancedFilter strings(FilterOperator op, const QString &key, const QStringList &values)
{
    AdvancedFilter filter;
    filter.op = op;
    filter.key = key;
    filter.strings = values;
    return filter;
}

AdvancedFilter boolean(const QString &key, bool value)
{
    AdvancedFilter filter;
    filter.op = FilterOperator::BoolEquals;
    filter.key = key;
    filter.boolValue = value;
    return filter;
}

AdvancedFilter nullCheck(FilterOperator op, const QString &key)
{
    AdvancedFilter filter;
    filter.op = op;
    filter.key = key;
    return filter;
}

} // namespace

class TestFilters final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void advancedOperators_data();
    void advancedOperators();
    void lookup();
    void includedEventTypes_data();
    void includedEventTypes();
    void subjectFilters_data();
    void subjectFilters();
    void advancedFiltersAreAnded();
    void allPartsMustMatch();
};

void TestFilters::advancedOperators_data()
{
    QTest::addColumn<AdvancedFilter>("filter");
    QTest::addColumn<bool>("expected");

    using Op = FilterOperator;
    const QString size = u"data.size"_s;
    const QString name = u"data.name"_s;
    const QString missing = u"data.missing"_s;
    const QString numericString = u"data.numericString"_s;

    // Number operators need a JSON number.
    QTest::newRow("NumberIn match") << numbers(Op::NumberIn, size, {1, 1024}) << true;
    QTest::newRow("NumberIn no match") << numbers(Op::NumberIn, size, {1, 2}) << false;
    QTest::newRow("NumberIn fractional") << numbers(Op::NumberIn, u"data.ratio"_s, {0.5}) << true;
    QTest::newRow("NumberIn numeric string") << numbers(Op::NumberIn, numericString, {42}) << false;
    QTest::newRow("NumberIn missing") << numbers(Op::NumberIn, missing, {1}) << false;
    QTest::newRow("NumberNotIn match") << numbers(Op::NumberNotIn, size, {1024}) << false;
    QTest::newRow("NumberNotIn no match") << numbers(Op::NumberNotIn, size, {1, 2}) << true;
    QTest::newRow("NumberNotIn missing") << numbers(Op::NumberNotIn, missing, {1}) << true;
    QTest::newRow("NumberNotIn numeric string")
        << numbers(Op::NumberNotIn, numericString, {42}) << true;
    QTest::newRow("NumberLessThan true") << numbers(Op::NumberLessThan, size, {2000}) << true;
    QTest::newRow("NumberLessThan equal") << numbers(Op::NumberLessThan, size, {1024}) << false;
    QTest::newRow("NumberLessThan missing") << numbers(Op::NumberLessThan, missing, {5}) << false;
    QTest::newRow("NumberLessThanOrEquals equal")
        << numbers(Op::NumberLessThanOrEquals, size, {1024}) << true;
    QTest::newRow("NumberLessThanOrEquals below")
        << numbers(Op::NumberLessThanOrEquals, size, {1023}) << false;
    QTest::newRow("NumberGreaterThan true") << numbers(Op::NumberGreaterThan, size, {1000}) << true;
    QTest::newRow("NumberGreaterThan equal")
        << numbers(Op::NumberGreaterThan, size, {1024}) << false;
    QTest::newRow("NumberGreaterThanOrEquals equal")
        << numbers(Op::NumberGreaterThanOrEquals, size, {1024}) << true;
    QTest::newRow("NumberGreaterThanOrEquals above")
        << numbers(Op::NumberGreaterThanOrEquals, size, {1025}) << false;
    QTest::newRow("NumberGreaterThan numeric string")
        << numbers(Op::NumberGreaterThan, numericString, {1}) << false;
    QTest::newRow("NumberInRange inclusive max")
        << ranges(Op::NumberInRange, size, {{0, 1024}}) << true;
    QTest::newRow("NumberInRange inclusive min")
        << ranges(Op::NumberInRange, size, {{1024, 2000}}) << true;
    QTest::newRow("NumberInRange outside all")
        << ranges(Op::NumberInRange, size, {{0, 10}, {2000, 3000}}) << false;
    QTest::newRow("NumberInRange ranges OR'd")
        << ranges(Op::NumberInRange, size, {{0, 10}, {1000, 1100}}) << true;
    QTest::newRow("NumberInRange missing")
        << ranges(Op::NumberInRange, missing, {{0, 10}}) << false;
    QTest::newRow("NumberNotInRange outside")
        << ranges(Op::NumberNotInRange, size, {{0, 10}}) << true;
    QTest::newRow("NumberNotInRange inside")
        << ranges(Op::NumberNotInRange, size, {{0, 10}, {1000, 1100}}) << false;
    QTest::newRow("NumberNotInRange missing")
        << ranges(Op::NumberNotInRange, missing, {{0, 10}}) << true;

    // BoolEquals needs a JSON bool.
    QTest::newRow("BoolEquals true") << boolean(u"data.enabled"_s, true) << true;
    QTest::newRow("BoolEquals false") << boolean(u"data.enabled"_s, false) << false;
    QTest::newRow("BoolEquals on a string") << boolean(name, true) << false;
    QTest::newRow("BoolEquals missing") << boolean(missing, false) << false;

    // String operators compare case-insensitively; values within one filter are OR'd.
    QTest::newRow("StringIn case-insensitive")
        << strings(Op::StringIn, name, {u"report.pdf"_s}) << true;
    QTest::newRow("StringIn values OR'd")
        << strings(Op::StringIn, name, {u"other"_s, u"REPORT.PDF"_s}) << true;
    QTest::newRow("StringIn whole value only")
        << strings(Op::StringIn, name, {u"Report"_s}) << false;
    QTest::newRow("StringIn on a number") << strings(Op::StringIn, size, {u"1024"_s}) << false;
    QTest::newRow("StringIn missing") << strings(Op::StringIn, missing, {u"x"_s}) << false;
    QTest::newRow("StringNotIn match")
        << strings(Op::StringNotIn, name, {u"REPORT.pdf"_s}) << false;
    QTest::newRow("StringNotIn no match")
        << strings(Op::StringNotIn, name, {u"x"_s, u"y"_s}) << true;
    QTest::newRow("StringNotIn missing") << strings(Op::StringNotIn, missing, {u"x"_s}) << true;
    QTest::newRow("StringNotIn on a number") << strings(Op::StringNotIn, size, {u"1024"_s}) << true;
    QTest::newRow("StringContains") << strings(Op::StringContains, name, {u"PORT"_s}) << true;
    QTest::newRow("StringContains no match")
        << strings(Op::StringContains, name, {u"zzz"_s}) << false;
    QTest::newRow("StringContains missing")
        << strings(Op::StringContains, missing, {u"a"_s}) << false;
    QTest::newRow("StringNotContains match")
        << strings(Op::StringNotContains, name, {u"port"_s}) << false;
    QTest::newRow("StringNotContains no match")
        << strings(Op::StringNotContains, name, {u"zzz"_s}) << true;
    QTest::newRow("StringNotContains missing")
        << strings(Op::StringNotContains, missing, {u"a"_s}) << true;
    QTest::newRow("StringBeginsWith") << strings(Op::StringBeginsWith, name, {u"rep"_s}) << true;
    QTest::newRow("StringBeginsWith no match")
        << strings(Op::StringBeginsWith, name, {u"pdf"_s}) << false;
    QTest::newRow("StringNotBeginsWith match")
        << strings(Op::StringNotBeginsWith, name, {u"x"_s, u"REP"_s}) << false;
    QTest::newRow("StringNotBeginsWith no match")
        << strings(Op::StringNotBeginsWith, name, {u"x"_s}) << true;
    QTest::newRow("StringNotBeginsWith missing")
        << strings(Op::StringNotBeginsWith, missing, {u"x"_s}) << true;
    QTest::newRow("StringEndsWith") << strings(Op::StringEndsWith, name, {u".pdf"_s}) << true;
    QTest::newRow("StringEndsWith no match")
        << strings(Op::StringEndsWith, name, {u".doc"_s}) << false;
    QTest::newRow("StringNotEndsWith match")
        << strings(Op::StringNotEndsWith, name, {u".PDF"_s}) << false;
    QTest::newRow("StringNotEndsWith no match")
        << strings(Op::StringNotEndsWith, name, {u"doc"_s}) << true;
    QTest::newRow("StringNotEndsWith missing")
        << strings(Op::StringNotEndsWith, missing, {u"doc"_s}) << true;

    // Null checks.
    QTest::newRow("IsNullOrUndefined null")
        << nullCheck(Op::IsNullOrUndefined, u"data.nothing"_s) << true;
    QTest::newRow("IsNullOrUndefined missing") << nullCheck(Op::IsNullOrUndefined, missing) << true;
    QTest::newRow("IsNullOrUndefined missing parent")
        << nullCheck(Op::IsNullOrUndefined, u"nothere.at.all"_s) << true;
    QTest::newRow("IsNullOrUndefined present") << nullCheck(Op::IsNullOrUndefined, size) << false;
    QTest::newRow("IsNotNull null") << nullCheck(Op::IsNotNull, u"data.nothing"_s) << false;
    QTest::newRow("IsNotNull missing") << nullCheck(Op::IsNotNull, missing) << false;
    QTest::newRow("IsNotNull present") << nullCheck(Op::IsNotNull, size) << true;
    QTest::newRow("IsNotNull array") << nullCheck(Op::IsNotNull, u"data.tags"_s) << true;
    QTest::newRow("IsNotNull false bool") << nullCheck(Op::IsNotNull, u"data.enabled"_s) << true;

    // Arrays: positive operators match when any element does, negated ones when none does.
    QTest::newRow("array StringIn any element")
        << strings(Op::StringIn, u"data.tags"_s, {u"GREEN"_s}) << true;
    QTest::newRow("array StringIn none")
        << strings(Op::StringIn, u"data.tags"_s, {u"blue"_s}) << false;
    QTest::newRow("array StringNotIn one element matches")
        << strings(Op::StringNotIn, u"data.tags"_s, {u"red"_s}) << false;
    QTest::newRow("array StringNotIn none matches")
        << strings(Op::StringNotIn, u"data.tags"_s, {u"blue"_s}) << true;
    QTest::newRow("array StringNotContains one element matches")
        << strings(Op::StringNotContains, u"data.tags"_s, {u"RE"_s}) << false;
    QTest::newRow("array NumberGreaterThan any element")
        << numbers(Op::NumberGreaterThan, u"data.sizes"_s, {9}) << true;
    QTest::newRow("array NumberLessThan none")
        << numbers(Op::NumberLessThan, u"data.sizes"_s, {1}) << false;
    QTest::newRow("array NumberNotIn one element matches")
        << numbers(Op::NumberNotIn, u"data.sizes"_s, {5}) << false;
    QTest::newRow("array NumberNotIn none matches")
        << numbers(Op::NumberNotIn, u"data.sizes"_s, {7}) << true;
    QTest::newRow("array NumberInRange any element")
        << ranges(Op::NumberInRange, u"data.sizes"_s, {{6, 20}}) << true;
    QTest::newRow("array NumberNotInRange one element inside")
        << ranges(Op::NumberNotInRange, u"data.sizes"_s, {{6, 20}}) << false;
    QTest::newRow("empty array StringIn")
        << strings(Op::StringIn, u"data.empty"_s, {u"a"_s}) << false;
    QTest::newRow("empty array StringNotIn")
        << strings(Op::StringNotIn, u"data.empty"_s, {u"a"_s}) << true;

    // Keys: nested objects, top-level attributes, paths through non-objects.
    QTest::newRow("nested key") << strings(Op::StringIn, u"data.nested.deep.value"_s, {u"x"_s})
                                << true;
    QTest::newRow("top-level subject")
        << strings(Op::StringBeginsWith, u"subject"_s, {u"/blobs/"_s}) << true;
    QTest::newRow("top-level eventType")
        << strings(Op::StringIn, u"eventType"_s, {u"microsoft.storage.blobcreated"_s}) << true;
    QTest::newRow("path through a number")
        << nullCheck(Op::IsNullOrUndefined, u"data.size.x"_s) << true;
    QTest::newRow("path through a number, negated")
        << strings(Op::StringNotIn, u"data.size.x"_s, {u"x"_s}) << true;
}

void TestFilters::advancedOperators()
{
    QFETCH(AdvancedFilter, filter);
    QFETCH(bool, expected);
    QCOMPARE(FilterEvaluator::matchesAdvanced(filter, sampleEvent()), expected);

    // The same filter through matches(): a single advanced filter decides alone.
    EventFilter eventFilter;
    eventFilter.advancedFilters.append(filter);
    const QJsonObject event = sampleEvent();
    QCOMPARE(FilterEvaluator::matches(eventFilter, event.value("eventType"_L1).toString(),
                                      event.value("subject"_L1).toString(), event),
             expected);
}

void TestFilters::lookup()
{
    const QJsonObject event = sampleEvent();
    QCOMPARE(FilterEvaluator::lookup(event, u"data.nested.deep.value"_s), QJsonValue(u"X"_s));
    QCOMPARE(FilterEvaluator::lookup(event, u"data.size"_s), QJsonValue(1024));
    QCOMPARE(FilterEvaluator::lookup(event, u"id"_s), QJsonValue(u"1"_s));
    QVERIFY(FilterEvaluator::lookup(event, u"data.nothing"_s).isNull());
    QVERIFY(FilterEvaluator::lookup(event, u"data.missing"_s).isUndefined());
    QVERIFY(FilterEvaluator::lookup(event, u"data.nested.missing.deeper"_s).isUndefined());
    QVERIFY(FilterEvaluator::lookup(event, u"data.tags.0"_s).isUndefined());
    QVERIFY(FilterEvaluator::lookup(event, QString()).isUndefined());
    QVERIFY(FilterEvaluator::lookup(event, u"data"_s).isObject());
}

void TestFilters::includedEventTypes_data()
{
    QTest::addColumn<QStringList>("included");
    QTest::addColumn<bool>("expected");

    QTest::newRow("empty list: all") << QStringList() << true;
    QTest::newRow("same spelling") << QStringList {u"Microsoft.Storage.BlobCreated"_s} << true;
    QTest::newRow("case-insensitive") << QStringList {u"microsoft.storage.BLOBCREATED"_s} << true;
    QTest::newRow("one of several")
        << QStringList {u"A.B"_s, u"Microsoft.Storage.BlobCreated"_s} << true;
    QTest::newRow("other type") << QStringList {u"Microsoft.Storage.BlobDeleted"_s} << false;
    QTest::newRow("prefix is not equality") << QStringList {u"Microsoft.Storage"_s} << false;
}

void TestFilters::includedEventTypes()
{
    QFETCH(QStringList, included);
    QFETCH(bool, expected);

    EventFilter filter;
    filter.includedEventTypes = included;
    QCOMPARE(FilterEvaluator::matches(filter, u"Microsoft.Storage.BlobCreated"_s,
                                      u"/Blobs/Container/Photo.JPG"_s, sampleEvent()),
             expected);
}

void TestFilters::subjectFilters_data()
{
    QTest::addColumn<QString>("beginsWith");
    QTest::addColumn<QString>("endsWith");
    QTest::addColumn<bool>("caseSensitive");
    QTest::addColumn<bool>("expected");

    QTest::newRow("no subject filter") << QString() << QString() << false << true;
    QTest::newRow("prefix, insensitive by default")
        << u"/blobs/container/"_s << QString() << false << true;
    QTest::newRow("prefix, case-sensitive, wrong case")
        << u"/blobs/container/"_s << QString() << true << false;
    QTest::newRow("prefix, case-sensitive, right case")
        << u"/Blobs/Container/"_s << QString() << true << true;
    QTest::newRow("prefix does not match") << u"/queues/"_s << QString() << false << false;
    QTest::newRow("suffix, insensitive") << QString() << u".jpg"_s << false << true;
    QTest::newRow("suffix, case-sensitive, wrong case") << QString() << u".jpg"_s << true << false;
    QTest::newRow("suffix, case-sensitive, right case") << QString() << u".JPG"_s << true << true;
    QTest::newRow("both match") << u"/Blobs"_s << u"JPG"_s << false << true;
    QTest::newRow("prefix matches, suffix does not") << u"/Blobs"_s << u".png"_s << false << false;
    QTest::newRow("suffix matches, prefix does not") << u"/Queues"_s << u".jpg"_s << false << false;
}

void TestFilters::subjectFilters()
{
    QFETCH(QString, beginsWith);
    QFETCH(QString, endsWith);
    QFETCH(bool, caseSensitive);
    QFETCH(bool, expected);

    EventFilter filter;
    filter.subjectBeginsWith = beginsWith;
    filter.subjectEndsWith = endsWith;
    filter.isSubjectCaseSensitive = caseSensitive;
    QCOMPARE(FilterEvaluator::matches(filter, u"Microsoft.Storage.BlobCreated"_s,
                                      u"/Blobs/Container/Photo.JPG"_s, sampleEvent()),
             expected);
}

void TestFilters::advancedFiltersAreAnded()
{
    const QJsonObject event = sampleEvent();
    const QString type = u"Microsoft.Storage.BlobCreated"_s;
    const QString subject = u"/Blobs/Container/Photo.JPG"_s;

    EventFilter filter;
    filter.advancedFilters = {
        numbers(FilterOperator::NumberGreaterThan, u"data.size"_s, {1000}),
        strings(FilterOperator::StringEndsWith, u"data.name"_s, {u".pdf"_s}),
    };
    QVERIFY(FilterEvaluator::matches(filter, type, subject, event));

    filter.advancedFilters.append(boolean(u"data.enabled"_s, false));
    QVERIFY(!FilterEvaluator::matches(filter, type, subject, event));
}

void TestFilters::allPartsMustMatch()
{
    const QJsonObject event = sampleEvent();
    const QString type = u"Microsoft.Storage.BlobCreated"_s;
    const QString subject = u"/Blobs/Container/Photo.JPG"_s;

    EventFilter filter;
    filter.includedEventTypes = {type};
    filter.subjectBeginsWith = u"/blobs"_s;
    filter.advancedFilters = {numbers(FilterOperator::NumberIn, u"data.size"_s, {1024})};
    QVERIFY(FilterEvaluator::matches(filter, type, subject, event));

    // Event type and subject match, but a failing advanced filter still rejects the event.
    filter.advancedFilters = {numbers(FilterOperator::NumberIn, u"data.size"_s, {1})};
    QVERIFY(!FilterEvaluator::matches(filter, type, subject, event));

    // The advanced filter matches, but the event type does not.
    filter.advancedFilters = {numbers(FilterOperator::NumberIn, u"data.size"_s, {1024})};
    filter.includedEventTypes = {u"Other.Type"_s};
    QVERIFY(!FilterEvaluator::matches(filter, type, subject, event));
}

QTEST_GUILESS_MAIN(TestFilters)
#include "tst_filters.moc"
