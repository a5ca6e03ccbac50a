// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QPalette>
#include <QSyntaxHighlighter>

namespace EventDesk::Ui {

// Colours a pretty-printed dead-letter record (prettyJson): the fields SPEC L7 adds
// (deadLetterReason, deliveryAttempts, lastDeliveryOutcome, lastHttpStatusCode, publishTime,
// lastDeliveryAttemptTime and their lower-case CloudEvents spellings) get the palette's highlight,
// other member names the link colour.
class DeadLetterRecordHighlighter final : public QSyntaxHighlighter
{
    Q_OBJECT

public:
    DeadLetterRecordHighlighter(QTextDocument *document, const QPalette &palette);

    void setPalette(const QPalette &palette);
    static bool isDeadLetterField(QStringView name);

protected:
    void highlightBlock(const QString &text) override;

private:
    QTextCharFormat m_fieldFormat;
    QTextCharFormat m_keyFormat;
};

} // namespace EventDesk::Ui
