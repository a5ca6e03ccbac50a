// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;

namespace EventDesk {
struct DeadLetterEntry;
}

namespace EventDesk::Ui {

class DeadLetterRecordHighlighter;
class StoreReader;

// The record of one dead letter, pretty-printed with the dead-letter fields highlighted, under a
// caption that names the event, the dead letter and its blob. The record is read through the
// browser's StoreReader when a dead letter is shown.
class DeadLetterDetailPane final : public QWidget
{
    Q_OBJECT

public:
    explicit DeadLetterDetailPane(StoreReader *reader, QWidget *parent = nullptr);
    ~DeadLetterDetailPane() override;

    // Reads and shows the record of this dead letter (entry.id).
    void showDeadLetter(const EventDesk::DeadLetterEntry &entry);
    // Shows no dead letter.
    void clear();

    // The dead letter shown or being read (0: none).
    qint64 deadLetterId() const { return m_id; }
    QPlainTextEdit *recordView() const { return m_record; }

Q_SIGNALS:
    // The record of dead letter id is on screen (or why it could not be read).
    void shown(qint64 id);

private:
    StoreReader *m_reader = nullptr;
    QLabel *m_caption = nullptr;
    QPlainTextEdit *m_record = nullptr;
    DeadLetterRecordHighlighter *m_highlighter = nullptr;
    qint64 m_id = 0;
    quint64 m_generation = 0;
};

} // namespace EventDesk::Ui
