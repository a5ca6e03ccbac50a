// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeadLetterRecordHighlighter.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

DeadLetterRecordHighlighter::DeadLetterRecordHighlighter(QTextDocument *document,
                                                         const QPalette &palette)
    : QSyntaxHighlighter(document)
{
    setPalette(palette);
}

void DeadLetterRecordHighlighter::setPalette(const QPalette &palette)
{
    m_fieldFormat = QTextCharFormat();
    m_fieldFormat.setBackground(palette.color(QPalette::Highlight));
    m_fieldFormat.setForeground(palette.color(QPalette::HighlightedText));
    m_fieldFormat.setFontWeight(QFont::Bold);
    m_keyFormat = QTextCharFormat();
    m_keyFormat.setForeground(palette.color(QPalette::Link));
    rehighlight();
}

bool DeadLetterRecordHighlighter::isDeadLetterField(QStringView name)
{
    static const QStringList names = {
        u"deadLetterReason"_s,   u"deliveryAttempts"_s,        u"lastDeliveryOutcome"_s,
        u"lastHttpStatusCode"_s, u"publishTime"_s,             u"lastDeliveryAttemptTime"_s,
        u"deadletterreason"_s,   u"deliveryattempts"_s,        u"lastdeliveryoutcome"_s,
        u"lasthttpstatuscode"_s, u"publishtime"_s,             u"lastdeliveryattempttime"_s,
    };
    return names.contains(name);
}

void DeadLetterRecordHighlighter::highlightBlock(const QString &text)
{
    // A member name at the start of a line (prettyJson puts one member per line).
    static const QRegularExpression member(uR"re(^(\s*)"((?:[^"\\]|\\.)*)"\s*:)re"_s);
    const QRegularExpressionMatch match = member.match(text);
    if (!match.hasMatch())
        return;
    const qsizetype indent = match.capturedLength(1);
    // Only the record's own members (one level deep), not look-alikes inside the event's data.
    if (indent == 4 && isDeadLetterField(match.capturedView(2))) {
        setFormat(int(indent), int(text.size() - indent), m_fieldFormat);
        return;
    }
    setFormat(int(indent), int(match.capturedLength(2) + 2), m_keyFormat);
}

} // namespace EventDesk::Ui
