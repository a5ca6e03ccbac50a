// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeadLetterDetailPane.h"

#include "DeadLetterRecordHighlighter.h"
#include "common/Format.h"
#include "log/StoreReader.h"
#include "store/DeliveryStore.h"

#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

DeadLetterDetailPane::DeadLetterDetailPane(StoreReader *reader, QWidget *parent)
    : QWidget(parent)
    , m_reader(reader)
    , m_caption(new QLabel(this))
    , m_record(new QPlainTextEdit(this))
{
    m_record->setReadOnly(true);
    m_record->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_record->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_record->setPlaceholderText(tr("Select a dead letter to see its record."));
    m_highlighter = new DeadLetterRecordHighlighter(m_record->document(), palette());
    m_caption->setWordWrap(true);
    m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_caption->setText(tr("Record"));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_caption);
    layout->addWidget(m_record, 1);
}

DeadLetterDetailPane::~DeadLetterDetailPane() = default;

void DeadLetterDetailPane::clear()
{
    m_id = 0;
    ++m_generation; // a record still being read is not shown
    m_record->clear();
    m_caption->setText(tr("Record"));
}

void DeadLetterDetailPane::showDeadLetter(const DeadLetterEntry &entry)
{
    const qint64 id = entry.id;
    m_id = id;
    const quint64 generation = ++m_generation;
    m_caption->setText(tr("<b>Event %1</b> · dead letter %2 · blob <i>%3</i>")
                           .arg(entry.eventId.toHtmlEscaped())
                           .arg(id)
                           .arg(entry.blobPath.toHtmlEscaped()));
    m_reader->run(this,
                  [this, id, generation](
                      const Expected<DeliveryStoreReader *> &store) -> StoreReader::Continuation {
                      QByteArray record;
                      QString error;
                      bool found = false;
                      if (!store) {
                          error = store.error();
                      } else if (auto rows = store.value()->deadLettersById({id}); !rows) {
                          error = rows.error();
                      } else if (!rows->isEmpty()) {
                          found = true;
                          record = rows->constFirst().record;
                      }
                      QString text = found ? prettyJson(record) : QString();
                      return [this, id, generation, text = std::move(text), error, found] {
                          if (generation != m_generation)
                              return;
                          if (!error.isEmpty())
                              m_record->setPlainText(error);
                          else if (!found)
                              m_record->setPlainText(
                                  tr("This dead letter is no longer in the store (resubmitted "
                                     "or deleted). Reload to refresh the list."));
                          else
                              m_record->setPlainText(text);
                          Q_EMIT shown(id);
                      };
                  });
}

} // namespace EventDesk::Ui
