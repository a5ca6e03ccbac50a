// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "JsonEditor.h"

#include <QAction>
#include <QContextMenuEvent>
#include <QFontDatabase>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QMenu>
#include <QPainter>
#include <QSyntaxHighlighter>
#include <QTextBlock>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// Documents above these sizes are validated after a pause in typing and shown without colours,
// so that pasting a 1 MB event never makes typing lag.
constexpr int ImmediateValidationLimit = 100'000;
constexpr int HighlightingLimit = 500'000;

enum class SyntaxRole { Key, String, Number, Keyword, Punctuation };

QColor syntaxColor(SyntaxRole role, const QPalette &palette)
{
    const bool dark = palette.color(QPalette::Base).lightnessF() < 0.5;
    const auto tone = [dark](int hue) {
        return dark ? QColor::fromHslF(hue / 360.0, 0.70, 0.72) : QColor::fromHslF(hue / 360.0, 0.80, 0.32);
    };
    switch (role) {
    case SyntaxRole::Key:
        return tone(212);
    case SyntaxRole::String:
        return tone(125);
    case SyntaxRole::Number:
        return tone(24);
    case SyntaxRole::Keyword:
        return tone(290);
    case SyntaxRole::Punctuation: {
        const QColor text = palette.color(QPalette::Text);
        const QColor base = palette.color(QPalette::Base);
        return QColor::fromRgbF(text.redF() * 0.6f + base.redF() * 0.4f,
                                text.greenF() * 0.6f + base.greenF() * 0.4f,
                                text.blueF() * 0.6f + base.blueF() * 0.4f);
    }
    }
    return palette.color(QPalette::Text);
}

QColor errorColor(const QPalette &palette)
{
    const bool dark = palette.color(QPalette::Base).lightnessF() < 0.5;
    return dark ? QColor(0xff, 0x6b, 0x6b) : QColor(0xd0, 0x24, 0x24);
}

QString describeParseError(QJsonParseError::ParseError error)
{
    switch (error) {
    case QJsonParseError::NoError:
        return {};
    case QJsonParseError::UnterminatedObject:
        return JsonEditor::tr("unterminated object (missing '}' or a comma)");
    case QJsonParseError::MissingNameSeparator:
        return JsonEditor::tr("missing colon after the key");
    case QJsonParseError::UnterminatedArray:
        return JsonEditor::tr("unterminated array (missing ']' or a comma)");
    case QJsonParseError::MissingValueSeparator:
        return JsonEditor::tr("missing comma");
    case QJsonParseError::IllegalValue:
        return JsonEditor::tr("unexpected character: expected a value (string, number, object, array, true, false or null)");
    case QJsonParseError::TerminationByNumber:
        return JsonEditor::tr("the text ends in the middle of a number");
    case QJsonParseError::IllegalNumber:
        return JsonEditor::tr("invalid number");
    case QJsonParseError::IllegalEscapeSequence:
        return JsonEditor::tr("invalid escape sequence in a string");
    case QJsonParseError::IllegalUTF8String:
        return JsonEditor::tr("invalid UTF-8 in a string");
    case QJsonParseError::UnterminatedString:
        return JsonEditor::tr("unterminated string (missing closing quote)");
    case QJsonParseError::MissingObject:
        return JsonEditor::tr("expected an object or an array");
    case QJsonParseError::DeepNesting:
        return JsonEditor::tr("nested too deeply");
    case QJsonParseError::DocumentTooLarge:
        return JsonEditor::tr("the document is too large");
    case QJsonParseError::GarbageAtEnd:
        return JsonEditor::tr("unexpected text after the end of the JSON value");
    }
    return JsonEditor::tr("invalid JSON");
}

// Qt reports "unterminated object" both for a missing '}' and for two members without a comma
// between them; look at the text to say which.
QString describeError(const QString &text, int position, QJsonParseError::ParseError error)
{
    if (error != QJsonParseError::UnterminatedObject && error != QJsonParseError::UnterminatedArray
        && error != QJsonParseError::MissingValueSeparator)
        return describeParseError(error);
    if (QStringView(text).mid(position).trimmed().isEmpty())
        return error == QJsonParseError::UnterminatedArray ? JsonEditor::tr("unterminated array (missing ']')")
                                                          : JsonEditor::tr("unterminated object (missing '}')");
    const QChar found = text.at(position);
    int previous = position - 1;
    while (previous >= 0 && text.at(previous).isSpace())
        --previous;
    const QChar before = previous >= 0 ? text.at(previous) : QChar();
    const bool valueEndsBefore = before == u'"' || before.isDigit() || before == u'}' || before == u']'
                                 || before == u'e' || before == u'l';
    if (found != u'}' && found != u']' && found != u',' && valueEndsBefore)
        return JsonEditor::tr("missing comma");
    return describeParseError(error);
}

} // namespace

// Colours JSON tokens. JSON strings cannot contain raw line breaks, so each line can be scanned
// on its own without carrying state between blocks.
class JsonHighlighter final : public QSyntaxHighlighter
{
public:
    explicit JsonHighlighter(QTextDocument *document)
        : QSyntaxHighlighter(document)
    {
    }

    void setPalette(const QPalette &palette)
    {
        const auto format = [&palette](SyntaxRole role, bool bold = false) {
            QTextCharFormat result;
            result.setForeground(syntaxColor(role, palette));
            if (bold)
                result.setFontWeight(QFont::DemiBold);
            return result;
        };
        m_key = format(SyntaxRole::Key, true);
        m_string = format(SyntaxRole::String);
        m_number = format(SyntaxRole::Number);
        m_keyword = format(SyntaxRole::Keyword, true);
        m_punctuation = format(SyntaxRole::Punctuation);
        if (document())
            rehighlight();
    }

protected:
    void highlightBlock(const QString &text) override
    {
        const qsizetype length = text.size();
        qsizetype i = 0;
        while (i < length) {
            const QChar c = text.at(i);
            if (c == u'"') {
                qsizetype end = i + 1;
                while (end < length && text.at(end) != u'"')
                    end += text.at(end) == u'\\' ? 2 : 1;
                end = std::min(end + 1, length);
                qsizetype next = end;
                while (next < length && text.at(next).isSpace())
                    ++next;
                const bool isKey = next < length && text.at(next) == u':';
                setFormat(int(i), int(end - i), isKey ? m_key : m_string);
                i = end;
            } else if (c == u'-' || c.isDigit()) {
                qsizetype end = i + 1;
                while (end < length
                       && (text.at(end).isDigit() || text.at(end) == u'.' || text.at(end) == u'e'
                           || text.at(end) == u'E' || text.at(end) == u'+' || text.at(end) == u'-'))
                    ++end;
                setFormat(int(i), int(end - i), m_number);
                i = end;
            } else if (c.isLetter()) {
                qsizetype end = i + 1;
                while (end < length && text.at(end).isLetter())
                    ++end;
                const QStringView word = QStringView(text).mid(i, end - i);
                if (word == u"true" || word == u"false" || word == u"null")
                    setFormat(int(i), int(end - i), m_keyword);
                i = end;
            } else {
                if (c == u'{' || c == u'}' || c == u'[' || c == u']' || c == u':' || c == u',')
                    setFormat(int(i), 1, m_punctuation);
                ++i;
            }
        }
    }

private:
    QTextCharFormat m_key;
    QTextCharFormat m_string;
    QTextCharFormat m_number;
    QTextCharFormat m_keyword;
    QTextCharFormat m_punctuation;
};

class JsonLineNumberArea final : public QWidget
{
public:
    explicit JsonLineNumberArea(JsonEditor *editor)
        : QWidget(editor)
        , m_editor(editor)
    {
    }

    QSize sizeHint() const override { return {m_editor->lineNumberAreaWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent *event) override { m_editor->paintLineNumbers(event); }

private:
    JsonEditor *m_editor;
};

JsonEditor::JsonEditor(QWidget *parent)
    : QPlainTextEdit(parent)
    , m_lineNumberArea(new JsonLineNumberArea(this))
    , m_highlighter(new JsonHighlighter(document()))
    , m_validationTimer(new QTimer(this))
{
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    setFont(font);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setTabChangesFocus(false);
    setTabStopDistance(fontMetrics().horizontalAdvance(u' ') * 2);
    setPlaceholderText(tr("Type or paste a JSON event…"));
    m_highlighter->setPalette(palette());

    m_prettyPrintAction = new QAction(tr("&Format JSON"), this);
    m_prettyPrintAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    m_prettyPrintAction->setShortcutContext(Qt::WidgetShortcut);
    m_prettyPrintAction->setToolTip(tr("Re-indent the JSON, keeping the key order (Ctrl+Shift+F)"));
    m_prettyPrintAction->setEnabled(false);
    addAction(m_prettyPrintAction);
    connect(m_prettyPrintAction, &QAction::triggered, this, &JsonEditor::prettyPrint);

    m_validationTimer->setSingleShot(true);
    m_validationTimer->setInterval(300);
    connect(m_validationTimer, &QTimer::timeout, this, &JsonEditor::validateNow);

    connect(this, &QPlainTextEdit::blockCountChanged, this,
            [this] { setViewportMargins(lineNumberAreaWidth(), 0, 0, 0); });
    connect(this, &QPlainTextEdit::updateRequest, this, &JsonEditor::updateLineNumberArea);
    connect(this, &QPlainTextEdit::textChanged, this, &JsonEditor::scheduleValidation);
    setViewportMargins(lineNumberAreaWidth(), 0, 0, 0);
    validateNow();
}

JsonEditor::~JsonEditor() = default;

void JsonEditor::replaceText(const QString &text)
{
    QTextCursor cursor(document());
    cursor.beginEditBlock();
    cursor.select(QTextCursor::Document);
    cursor.insertText(text);
    cursor.endEditBlock();
    moveCursor(QTextCursor::Start);
    validateNow();
}

QString JsonEditor::prettyPrinted(const QString &json)
{
    QJsonParseError error;
    QJsonDocument::fromJson(json.toUtf8(), &error);
    if (error.error != QJsonParseError::NoError)
        return json;

    QString result;
    result.reserve(json.size() + json.size() / 2);
    int depth = 0;
    const auto newline = [&result, &depth] {
        result += u'\n';
        result += QString(depth * 2, u' ');
    };
    const qsizetype length = json.size();
    for (qsizetype i = 0; i < length; ++i) {
        const QChar c = json.at(i);
        if (c == u'"') {
            const qsizetype start = i;
            ++i;
            while (i < length && json.at(i) != u'"')
                i += json.at(i) == u'\\' ? 2 : 1;
            result += QStringView(json).mid(start, i - start + 1);
        } else if (c == u'{' || c == u'[') {
            qsizetype next = i + 1;
            while (next < length && json.at(next).isSpace())
                ++next;
            if (next < length && (json.at(next) == u'}' || json.at(next) == u']')) {
                result += c;
                result += json.at(next);
                i = next;
                continue;
            }
            result += c;
            ++depth;
            newline();
        } else if (c == u'}' || c == u']') {
            --depth;
            newline();
            result += c;
        } else if (c == u',') {
            result += c;
            newline();
        } else if (c == u':') {
            result += u": "_s;
        } else if (!c.isSpace()) {
            result += c;
        }
    }
    result += u'\n';
    return result;
}

void JsonEditor::prettyPrint()
{
    if (!m_valid)
        return;
    const QString formatted = prettyPrinted(toPlainText());
    if (formatted != toPlainText())
        replaceText(formatted);
}

void JsonEditor::scheduleValidation()
{
    const int characters = document()->characterCount();
    const bool highlight = characters <= HighlightingLimit;
    if (highlight != (m_highlighter->document() != nullptr))
        m_highlighter->setDocument(highlight ? document() : nullptr);
    if (characters <= ImmediateValidationLimit)
        validateNow();
    else
        m_validationTimer->start();
}

void JsonEditor::validateNow()
{
    m_validationTimer->stop();
    const QString text = toPlainText();
    const bool wasValid = m_valid;
    const QString previousMessage = m_errorMessage;

    m_errorPosition = -1;
    if (text.trimmed().isEmpty()) {
        m_valid = false;
        m_errorLine = 1;
        m_errorColumn = 1;
        m_errorMessage = tr("The JSON is empty");
    } else {
        const QByteArray utf8 = text.toUtf8();
        QJsonParseError error;
        QJsonDocument::fromJson(utf8, &error);
        m_valid = error.error == QJsonParseError::NoError;
        if (m_valid) {
            m_errorLine = 0;
            m_errorColumn = 0;
            m_errorMessage.clear();
        } else {
            // QJsonParseError::offset points just past the character that stopped the parser.
            const int offset = int(std::clamp<qsizetype>(error.offset, 0, utf8.size()));
            // At the end of the text it means "the text ended too soon": point just after it.
            const int characters = int(QString::fromUtf8(utf8.constData(), offset).size());
            int position = offset >= utf8.size() ? characters : std::max(0, characters - 1);
            if (error.error == QJsonParseError::GarbageAtEnd) {
                // Here the offset is the end of the valid value: point at the text that follows.
                position = characters;
                while (position < text.size() && text.at(position).isSpace())
                    ++position;
            }
            QTextBlock block = document()->findBlock(position);
            if (!block.isValid())
                block = document()->lastBlock();
            m_errorPosition = position;
            m_errorLine = block.blockNumber() + 1;
            m_errorColumn = position - block.position() + 1;
            m_errorMessage = tr("Line %1, column %2: %3")
                                 .arg(m_errorLine)
                                 .arg(m_errorColumn)
                                 .arg(describeError(text, position, error.error));
        }
    }
    m_prettyPrintAction->setEnabled(m_valid);
    updateErrorSelection();
    m_lineNumberArea->update();
    if (!m_validatedOnce || wasValid != m_valid || previousMessage != m_errorMessage) {
        m_validatedOnce = true;
        Q_EMIT validityChanged(m_valid, m_errorMessage);
    }
}

void JsonEditor::updateErrorSelection()
{
    QList<QTextEdit::ExtraSelection> selections;
    if (m_errorPosition >= 0) {
        const QColor error = errorColor(palette());
        QTextEdit::ExtraSelection line;
        QColor lineBackground = error;
        lineBackground.setAlpha(40);
        line.format.setBackground(lineBackground);
        line.format.setProperty(QTextFormat::FullWidthSelection, true);
        line.cursor = QTextCursor(document()->findBlock(m_errorPosition));
        selections.append(line);

        QTextEdit::ExtraSelection mark;
        mark.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
        mark.format.setUnderlineColor(error);
        QColor markBackground = error;
        markBackground.setAlpha(90);
        mark.format.setBackground(markBackground);
        QTextCursor cursor(document());
        const int last = document()->characterCount() - 1;
        const int start = std::clamp(m_errorPosition, 0, std::max(0, last - 1));
        cursor.setPosition(start);
        cursor.setPosition(std::min(start + 1, last), QTextCursor::KeepAnchor);
        mark.cursor = cursor;
        selections.append(mark);
    }
    setExtraSelections(selections);
}

int JsonEditor::lineNumberAreaWidth() const
{
    int digits = 1;
    for (int max = std::max(1, blockCount()); max >= 10; max /= 10)
        ++digits;
    return 12 + fontMetrics().horizontalAdvance(u'9') * std::max(digits, 2);
}

void JsonEditor::updateLineNumberArea(const QRect &rect, int dy)
{
    if (dy)
        m_lineNumberArea->scroll(0, dy);
    else
        m_lineNumberArea->update(0, rect.y(), m_lineNumberArea->width(), rect.height());
}

void JsonEditor::resizeEvent(QResizeEvent *event)
{
    QPlainTextEdit::resizeEvent(event);
    const QRect contents = contentsRect();
    m_lineNumberArea->setGeometry(QRect(contents.left(), contents.top(), lineNumberAreaWidth(), contents.height()));
}

void JsonEditor::changeEvent(QEvent *event)
{
    QPlainTextEdit::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        m_highlighter->setPalette(palette());
        updateErrorSelection();
        m_lineNumberArea->update();
    } else if (event->type() == QEvent::FontChange) {
        setViewportMargins(lineNumberAreaWidth(), 0, 0, 0);
    }
}

void JsonEditor::contextMenuEvent(QContextMenuEvent *event)
{
    QMenu *menu = createStandardContextMenu(event->pos());
    menu->addSeparator();
    menu->addAction(m_prettyPrintAction);
    menu->exec(event->globalPos());
    delete menu;
}

void JsonEditor::paintLineNumbers(QPaintEvent *event)
{
    QPainter painter(m_lineNumberArea);
    const QPalette pal = palette();
    painter.fillRect(event->rect(), pal.color(QPalette::AlternateBase));
    painter.setPen(pal.color(QPalette::Mid));
    painter.drawLine(m_lineNumberArea->width() - 1, event->rect().top(), m_lineNumberArea->width() - 1,
                     event->rect().bottom());

    const QColor numberColor = pal.color(QPalette::PlaceholderText);
    const QColor error = errorColor(pal);
    QFont errorFont = font();
    errorFont.setBold(true);

    QTextBlock block = firstVisibleBlock();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    int bottom = top + qRound(blockBoundingRect(block).height());
    const int width = m_lineNumberArea->width() - 6;
    while (block.isValid() && top <= event->rect().bottom()) {
        if (block.isVisible() && bottom >= event->rect().top()) {
            const int number = block.blockNumber() + 1;
            const bool isErrorLine = m_errorPosition >= 0 && number == m_errorLine;
            painter.setPen(isErrorLine ? error : numberColor);
            painter.setFont(isErrorLine ? errorFont : font());
            painter.drawText(0, top, width, fontMetrics().height(), Qt::AlignRight | Qt::AlignVCenter,
                             QString::number(number));
        }
        block = block.next();
        top = bottom;
        bottom = top + qRound(blockBoundingRect(block).height());
    }
}

} // namespace EventDesk::Ui
