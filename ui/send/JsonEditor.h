// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QPlainTextEdit>
#include <QString>

class QAction;
class QTimer;

namespace EventDesk::Ui {

class JsonHighlighter;

// A plain-text JSON editor: syntax highlighting in palette-derived colours, a line-number gutter,
// validation as you type (the error position is underlined and named as "Line 3, column 14:
// missing comma") and a pretty-print action (Ctrl+Shift+F) that keeps the key order.
class JsonEditor final : public QPlainTextEdit
{
    Q_OBJECT

public:
    explicit JsonEditor(QWidget *parent = nullptr);
    ~JsonEditor() override;

    bool isValid() const { return m_valid; }
    QString errorMessage() const { return m_errorMessage; }
    // 1-based position of the current error; 0 when the text is valid.
    int errorLine() const { return m_errorLine; }
    int errorColumn() const { return m_errorColumn; }

    // Replaces the whole text as one undoable edit and validates it immediately.
    void replaceText(const QString &text);
    QAction *prettyPrintAction() const { return m_prettyPrintAction; }

    // Re-indents JSON text (two spaces) without reordering keys or reformatting numbers.
    // Invalid JSON is returned unchanged.
    static QString prettyPrinted(const QString &json);

public Q_SLOTS:
    void prettyPrint();
    void validateNow();

Q_SIGNALS:
    void validityChanged(bool valid, const QString &message);

protected:
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;

private:
    friend class JsonLineNumberArea;
    int lineNumberAreaWidth() const;
    void paintLineNumbers(QPaintEvent *event);
    void updateLineNumberArea(const QRect &rect, int dy);
    void scheduleValidation();
    void updateErrorSelection();

    QWidget *m_lineNumberArea = nullptr;
    JsonHighlighter *m_highlighter = nullptr;
    QAction *m_prettyPrintAction = nullptr;
    QTimer *m_validationTimer = nullptr;
    bool m_valid = false;
    bool m_validatedOnce = false;
    QString m_errorMessage;
    int m_errorLine = 0;
    int m_errorColumn = 0;
    int m_errorPosition = -1;
};

} // namespace EventDesk::Ui
