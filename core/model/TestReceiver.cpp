// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "TestReceiver.h"

#include "JsonSupport.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <cmath>

using namespace Qt::StringLiterals;
using namespace EventDesk::JsonSupport;

namespace EventDesk {

namespace {

const QStringList s_knownKeys{u"name"_s,          u"status"_s,  u"script"_s,
                              u"failureRate"_s,   u"seed"_s,    u"failureStatus"_s,
                              u"delayMs"_s,       u"closeConnection"_s, u"validation"_s,
                              u"allowedRate"_s};

// Reads a status: an integer 100..599, or "close" (close the connection without answering).
Expected<int> readStatus(const QJsonValue &value, const QString &path)
{
    if (value.isString() && value.toString() == "close"_L1)
        return TestReceiver::CloseConnection;
    const double number = value.toDouble(-1);
    if (!value.isDouble() || std::floor(number) != number || number < 100 || number > 599)
        return Error(atPath(path, u"must be an HTTP status from 100 to 599 or \"close\" (got %1)"_s
                                      .arg(describeValue(value))));
    return int(number);
}

QJsonValue statusToJson(int status)
{
    return status == TestReceiver::CloseConnection ? QJsonValue(u"close"_s) : QJsonValue(status);
}

Expected<qint64> readInteger(const QJsonValue &value, const QString &path, qint64 minimum,
                             qint64 maximum)
{
    const double number = value.toDouble();
    if (!value.isDouble() || std::floor(number) != number || number < double(minimum)
        || number > double(maximum))
        return Error(atPath(path, u"must be an integer from %1 to %2 (got %3)"_s.arg(minimum)
                                      .arg(maximum)
                                      .arg(describeValue(value))));
    return qint64(number);
}

} // namespace

QString TestReceiver::validationName(Validation validation)
{
    switch (validation) {
    case Validation::Answer:
        return u"answer"_s;
    case Validation::Refuse:
        return u"refuse"_s;
    case Validation::Ignore:
        return u"ignore"_s;
    case Validation::Unavailable:
        return u"unavailable"_s;
    }
    return u"answer"_s;
}

Expected<TestReceiver> TestReceiver::fromJson(const QJsonValue &value, const QString &jsonPath)
{
    if (!value.isObject())
        return Error(atPath(jsonPath, u"must be an object (got %1)"_s.arg(describeValue(value))));
    const QJsonObject object = value.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!s_knownKeys.contains(it.key()))
            return Error(atPath(jsonPath, u"unknown field \"%1\" (known: %2)"_s.arg(
                                              it.key(), s_knownKeys.join(u", "_s))));
    }
    TestReceiver receiver;

    const QString namePath = joinPath(jsonPath, "name"_L1);
    const QJsonValue name = object.value("name"_L1);
    static const QRegularExpression namePattern(u"^[A-Za-z0-9_-]{1,64}$"_s);
    if (!name.isString() || !namePattern.match(name.toString()).hasMatch())
        return Error(atPath(namePath, u"must be 1 to 64 characters of A-Z, a-z, 0-9, '-' and '_' (got %1)"_s
                                          .arg(describeValue(name))));
    receiver.name = name.toString();

    const bool hasStatus = object.contains("status"_L1);
    const bool hasScript = object.contains("script"_L1);
    if (hasStatus && hasScript)
        return Error(atPath(jsonPath, u"give either \"status\" or \"script\", not both"_s));
    if (hasStatus) {
        auto status = readStatus(object.value("status"_L1), joinPath(jsonPath, "status"_L1));
        if (!status)
            return Error(status.error());
        receiver.status = status.value();
    }
    if (hasScript) {
        const QString scriptPath = joinPath(jsonPath, "script"_L1);
        const QJsonValue scriptValue = object.value("script"_L1);
        if (!scriptValue.isObject())
            return Error(atPath(scriptPath, u"must be an object (got %1)"_s.arg(describeValue(scriptValue))));
        const QJsonObject script = scriptValue.toObject();
        const QJsonValue mode = script.value("mode"_L1);
        if (mode.isString() && mode.toString() == "fixed"_L1) {
            receiver.mode = Mode::Fixed;
            auto status = readStatus(script.value("status"_L1), joinPath(scriptPath, "status"_L1));
            if (!status)
                return Error(status.error());
            receiver.status = status.value();
        } else if (mode.isString() && mode.toString() == "sequence"_L1) {
            receiver.mode = Mode::Sequence;
            const QString statusesPath = joinPath(scriptPath, "statuses"_L1);
            const QJsonValue statuses = script.value("statuses"_L1);
            if (!statuses.isArray() || statuses.toArray().isEmpty()
                || statuses.toArray().size() > MaxSequenceLength)
                return Error(atPath(statusesPath, u"must be an array of 1 to %1 statuses (got %2)"_s
                                                      .arg(MaxSequenceLength)
                                                      .arg(statuses.isArray()
                                                               ? u"%1 entries"_s.arg(statuses.toArray().size())
                                                               : describeValue(statuses))));
            const QJsonArray array = statuses.toArray();
            for (qsizetype i = 0; i < array.size(); ++i) {
                auto status = readStatus(array.at(i), indexPath(statusesPath, i));
                if (!status)
                    return Error(status.error());
                receiver.statuses.append(status.value());
            }
            const QJsonValue after = script.value("after"_L1);
            if (after.isUndefined() || (after.isString() && after.toString() == "repeat"_L1))
                receiver.after = After::Repeat;
            else if (after.isString() && after.toString() == "stick"_L1)
                receiver.after = After::Stick;
            else
                return Error(atPath(joinPath(scriptPath, "after"_L1),
                                    u"must be \"repeat\" or \"stick\" (got %1)"_s.arg(describeValue(after))));
        } else {
            return Error(atPath(joinPath(scriptPath, "mode"_L1),
                                u"must be \"fixed\" or \"sequence\" (got %1)"_s.arg(describeValue(mode))));
        }
    }

    if (object.contains("failureRate"_L1)) {
        const QJsonValue rate = object.value("failureRate"_L1);
        if (!rate.isDouble() || rate.toDouble() < 0.0 || rate.toDouble() > 1.0)
            return Error(atPath(joinPath(jsonPath, "failureRate"_L1),
                                u"must be a number from 0 to 1 (got %1)"_s.arg(describeValue(rate))));
        receiver.failureRate = rate.toDouble();
    }
    if (object.contains("seed"_L1)) {
        // JSON numbers are doubles: integers above 2^53 would not round-trip.
        auto seed = readInteger(object.value("seed"_L1), joinPath(jsonPath, "seed"_L1), 0,
                                9'007'199'254'740'992LL);
        if (!seed)
            return Error(seed.error());
        receiver.seed = quint64(seed.value());
    }
    if (object.contains("failureStatus"_L1)) {
        auto status = readStatus(object.value("failureStatus"_L1), joinPath(jsonPath, "failureStatus"_L1));
        if (!status)
            return Error(status.error());
        receiver.failureStatus = status.value();
    }
    if (object.contains("delayMs"_L1)) {
        auto delay = readInteger(object.value("delayMs"_L1), joinPath(jsonPath, "delayMs"_L1), 0,
                                 MaxDelayMs);
        if (!delay)
            return Error(delay.error());
        receiver.delayMs = int(delay.value());
    }
    if (object.contains("closeConnection"_L1)) {
        const QJsonValue close = object.value("closeConnection"_L1);
        if (!close.isBool())
            return Error(atPath(joinPath(jsonPath, "closeConnection"_L1),
                                u"must be true or false (got %1)"_s.arg(describeValue(close))));
        receiver.closeConnection = close.toBool();
    }
    if (object.contains("validation"_L1)) {
        const QJsonValue validation = object.value("validation"_L1);
        const QString text = validation.toString();
        if (validation.isString() && text == "answer"_L1)
            receiver.validation = Validation::Answer;
        else if (validation.isString() && text == "refuse"_L1)
            receiver.validation = Validation::Refuse;
        else if (validation.isString() && text == "ignore"_L1)
            receiver.validation = Validation::Ignore;
        else if (validation.isString() && text == "unavailable"_L1)
            receiver.validation = Validation::Unavailable;
        else
            return Error(atPath(joinPath(jsonPath, "validation"_L1),
                                u"must be \"answer\", \"refuse\", \"ignore\" or \"unavailable\" (got %1)"_s.arg(
                                    describeValue(validation))));
    }
    if (object.contains("allowedRate"_L1)) {
        auto rate = readInteger(object.value("allowedRate"_L1), joinPath(jsonPath, "allowedRate"_L1), 1,
                                MaxAllowedRate);
        if (!rate)
            return Error(rate.error());
        receiver.allowedRate = int(rate.value());
    }
    return receiver;
}

QJsonObject TestReceiver::toJson() const
{
    QJsonObject object{{u"name"_s, name}};
    if (mode == Mode::Fixed) {
        object.insert(u"status"_s, statusToJson(status));
    } else {
        QJsonArray array;
        for (int step : statuses)
            array.append(statusToJson(step));
        object.insert(u"script"_s, QJsonObject{{u"mode"_s, u"sequence"_s},
                                               {u"statuses"_s, array},
                                               {u"after"_s, after == After::Stick ? u"stick"_s : u"repeat"_s}});
    }
    // Only what differs from the defaults, so the simplest receiver stays {"name","status"}.
    const TestReceiver defaults;
    if (failureRate != defaults.failureRate)
        object.insert(u"failureRate"_s, failureRate);
    if (seed != defaults.seed)
        object.insert(u"seed"_s, double(seed));
    if (failureStatus != defaults.failureStatus)
        object.insert(u"failureStatus"_s, statusToJson(failureStatus));
    if (delayMs != defaults.delayMs)
        object.insert(u"delayMs"_s, delayMs);
    if (closeConnection != defaults.closeConnection)
        object.insert(u"closeConnection"_s, closeConnection);
    if (validation != defaults.validation)
        object.insert(u"validation"_s, validationName(validation));
    if (allowedRate != defaults.allowedRate)
        object.insert(u"allowedRate"_s, allowedRate);
    return object;
}

Expected<QList<TestReceiver>> testReceiversFromJson(const QJsonValue &value, const QString &jsonPath)
{
    QList<TestReceiver> receivers;
    if (value.isUndefined() || value.isNull())
        return receivers;
    if (!value.isArray())
        return Error(atPath(jsonPath, u"must be an array (got %1)"_s.arg(describeValue(value))));
    const QJsonArray array = value.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString path = indexPath(jsonPath, i);
        auto receiver = TestReceiver::fromJson(array.at(i), path);
        if (!receiver)
            return Error(receiver.error());
        for (qsizetype earlier = 0; earlier < receivers.size(); ++earlier) {
            if (receivers.at(earlier).name.compare(receiver->name, Qt::CaseInsensitive) == 0)
                return Error(atPath(joinPath(path, "name"_L1),
                                    u"duplicate receiver name \"%1\" (receiver names are unique, compared "
                                    u"case-insensitively; see %2)"_s.arg(receiver->name,
                                                                         indexPath(jsonPath, earlier))));
        }
        receivers.append(receiver.value());
    }
    return receivers;
}

} // namespace EventDesk
