// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "workspace/WorkspaceLock.h"

#include <QDialog>
#include <QString>

#include <functional>

class QLabel;
class QPushButton;

namespace EventDesk::Ui {

class WorkspaceFolders;

// What to do with a workspace that another engine owns (docs/user-guide.md "One owner per
// workspace").
struct WorkspaceInUseChoice
{
    enum class Action {
        Monitor, // open it as a read-only monitor
        OpenAnother, // open otherDirectory instead
        Cancel, // leave the window as it is
    };
    Action action = Action::Cancel;
    QString otherDirectory;
};

// Asks what to do with directory, which owner holds. MainWindow asks through one of these, so
// that a test can answer without a modal dialog; the default is WorkspaceInUseDialog::ask().
using WorkspaceInUseHandler = std::function<WorkspaceInUseChoice(
    const QString &directory, const EventDesk::WorkspaceOwner &owner)>;

// The question: which engine holds the workspace, where and since when, and three answers: open
// it as a read-only monitor (the default), open another workspace, or cancel.
class WorkspaceInUseDialog final : public QDialog
{
    Q_OBJECT

public:
    WorkspaceInUseDialog(const QString &directory, const EventDesk::WorkspaceOwner &owner,
                         QWidget *parent = nullptr);
    ~WorkspaceInUseDialog() override;

    QPushButton *monitorButton() const { return m_monitorButton; }
    QPushButton *openAnotherButton() const { return m_openAnotherButton; }
    QPushButton *cancelButton() const { return m_cancelButton; }
    // Everything the dialog says, as plain text (tests).
    QString text() const;

    // The answer of the button that closed the dialog (Cancel when it was closed otherwise).
    WorkspaceInUseChoice::Action chosenAction() const { return m_action; }

    // "eventdeskd (pid 4242 on build-7, since 10:32:05)": the time of day when it is today's.
    static QString ownerText(const EventDesk::WorkspaceOwner &owner);

    // Shows the dialog; "Open Another Workspace…" then asks folders for the workspace (and is a
    // Cancel when none is chosen).
    static WorkspaceInUseChoice ask(const QString &directory,
                                    const EventDesk::WorkspaceOwner &owner,
                                    const WorkspaceFolders &folders, QWidget *parent);

private:
    void choose(WorkspaceInUseChoice::Action action);

    QList<QLabel *> m_labels;
    QPushButton *m_monitorButton = nullptr;
    QPushButton *m_openAnotherButton = nullptr;
    QPushButton *m_cancelButton = nullptr;
    WorkspaceInUseChoice::Action m_action = WorkspaceInUseChoice::Action::Cancel;
};

} // namespace EventDesk::Ui
