// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QFrame>
#include <QStyle>

class QLabel;
class QHBoxLayout;
class QPushButton;
class QToolButton;

namespace EventDesk::Ui {

// A strip above the views that shows one message whole, where the status bar would cut it: the
// read-only monitor's note, a port that was taken, secrets the keychain has not given. It may
// carry buttons, and a dismissable one has a close button; a dismissed banner stays hidden until
// its message changes.
class Banner final : public QFrame
{
    Q_OBJECT

public:
    enum class Kind { Information, Warning };

    explicit Banner(Kind kind, const QString &objectName, QWidget *parent = nullptr);
    ~Banner() override;

    // Shows richText (hidden when empty). The same text again changes nothing, so a banner the
    // user dismissed stays closed while its message stays the same.
    void showMessage(const QString &richText);
    QString message() const { return m_message; }
    // Whether the user can close it (a close button on the right).
    void setDismissable(bool dismissable);
    bool isDismissed() const { return m_dismissed; }

    // A button after the message; objectName finds it again (button()).
    QPushButton *addButton(const QString &text, const QString &objectName);
    QPushButton *button(const QString &objectName) const;
    QLabel *label() const { return m_label; }
    QToolButton *closeButton() const { return m_closeButton; }

Q_SIGNALS:
    void dismissed();

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyPalette();

    Kind m_kind;
    QLabel *m_icon = nullptr;
    QLabel *m_label = nullptr;
    QHBoxLayout *m_buttons = nullptr;
    QToolButton *m_closeButton = nullptr;
    QString m_message;
    bool m_dismissed = false;
    bool m_applyingPalette = false;
};

} // namespace EventDesk::Ui
