// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "WorkspaceInUseDialog.h"

#include "WorkspaceFolders.h"
#include "common/Format.h"
#include "workspace/WorkspaceFolder.h"

#include <QDate>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// "10:32:05" for a time of today, "2026-05-03 22:10:41" otherwise.
QString sinceText(const QDateTime &since)
{
    const QDateTime local = since.toLocalTime();
    const qint64 ms = local.toMSecsSinceEpoch();
    return local.date() == QDate::currentDate() ? formatClock(ms) : formatTime(ms);
}

} // namespace

WorkspaceInUseDialog::WorkspaceInUseDialog(const QString &directory, const WorkspaceOwner &owner,
                                           QWidget *parent)
    : QDialog(parent)
{
    setObjectName(u"workspaceInUseDialog"_s);
    setWindowTitle(tr("Workspace in Use"));
    const QString absolute = QDir(directory).absolutePath();
    const auto label = [this](const QString &text) {
        auto *created = new QLabel(text, this);
        created->setWordWrap(true);
        created->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_labels.append(created);
        return created;
    };

    QLabel *heading = label(
        tr("The workspace “%1” is open in another engine").arg(QFileInfo(absolute).fileName()));
    QFont headingFont = heading->font();
    headingFont.setBold(true);
    headingFont.setPointSizeF(headingFont.pointSizeF() * 1.15);
    heading->setFont(headingFont);

    auto *facts = new QFormLayout;
    facts->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    facts->addRow(tr("Owner:"),
                  label(owner.application.isEmpty() ? tr("unknown") : owner.application));
    QString process = owner.pid > 0 ? tr("pid %1").arg(owner.pid) : QString();
    if (!owner.hostName.isEmpty()) {
        const QString host = owner.onThisHost ? tr("%1 (this computer)").arg(owner.hostName)
                                              : tr("%1 (another computer)").arg(owner.hostName);
        process = process.isEmpty() ? tr("on %1").arg(host) : tr("%1 on %2").arg(process, host);
    }
    if (!process.isEmpty())
        facts->addRow(tr("Process:"), label(process));
    if (owner.since.isValid())
        facts->addRow(tr("Since:"), label(sinceText(owner.since)));
    facts->addRow(tr("Folder:"), label(QDir::toNativeSeparators(absolute)));

    QLabel *explanation = label(
        tr("Only one engine at a time may run a workspace: that one delivers its events. As a "
           "read-only monitor, this window shows its dashboard, delivery log and dead letters as "
           "that engine writes them; nothing can be edited, sent or resubmitted from it."));

    auto *text = new QVBoxLayout;
    text->setSpacing(10);
    text->addWidget(heading);
    text->addLayout(facts);
    text->addWidget(explanation);
    if (!owner.onThisHost) {
        text->addWidget(label(
            tr("That engine runs on another computer, so whether it still runs cannot be checked "
               "from here. If it does not, delete %1 to open the workspace normally.")
                .arg(QDir::toNativeSeparators(WorkspaceFolder::lockFile(absolute)))));
    }

    auto *icon = new QLabel(this);
    const int iconSize = style()->pixelMetric(QStyle::PM_MessageBoxIconSize, nullptr, this);
    icon->setPixmap(style()
                        ->standardIcon(QStyle::SP_MessageBoxInformation, nullptr, this)
                        .pixmap(iconSize, iconSize));
    auto *top = new QHBoxLayout;
    top->setSpacing(16);
    top->addWidget(icon, 0, Qt::AlignTop);
    top->addLayout(text, 1);

    auto *buttons = new QDialogButtonBox(this);
    m_monitorButton
        = buttons->addButton(tr("Open Read-Only &Monitor"), QDialogButtonBox::AcceptRole);
    m_openAnotherButton
        = buttons->addButton(tr("Open &Another Workspace…"), QDialogButtonBox::ActionRole);
    m_cancelButton = buttons->addButton(QDialogButtonBox::Cancel);
    m_monitorButton->setDefault(true);
    connect(m_monitorButton, &QPushButton::clicked, this,
            [this] { choose(WorkspaceInUseChoice::Action::Monitor); });
    connect(m_openAnotherButton, &QPushButton::clicked, this,
            [this] { choose(WorkspaceInUseChoice::Action::OpenAnother); });
    connect(m_cancelButton, &QPushButton::clicked, this,
            [this] { choose(WorkspaceInUseChoice::Action::Cancel); });

    // Escape and the window's close button answer Cancel too.
    connect(this, &QDialog::rejected, this,
            [this] { m_action = WorkspaceInUseChoice::Action::Cancel; });

    auto *layout = new QVBoxLayout(this);
    layout->setSpacing(16);
    layout->addLayout(top);
    layout->addWidget(buttons);
    setMinimumWidth(560);
}

WorkspaceInUseDialog::~WorkspaceInUseDialog() = default;

void WorkspaceInUseDialog::choose(WorkspaceInUseChoice::Action action)
{
    m_action = action;
    if (action == WorkspaceInUseChoice::Action::Cancel)
        reject();
    else
        accept();
}

QString WorkspaceInUseDialog::text() const
{
    QStringList texts;
    for (const QLabel *label : m_labels)
        texts << label->text();
    return texts.join(u'\n');
}

QString WorkspaceInUseDialog::ownerText(const WorkspaceOwner &owner)
{
    QStringList facts;
    QString process;
    if (owner.pid > 0)
        process = tr("pid %1").arg(owner.pid);
    if (!owner.hostName.isEmpty())
        process = process.isEmpty() ? tr("on %1").arg(owner.hostName)
                                    : tr("%1 on %2").arg(process, owner.hostName);
    if (!process.isEmpty())
        facts << process;
    if (owner.since.isValid())
        facts << tr("since %1").arg(sinceText(owner.since));
    const QString name = owner.application.isEmpty() ? tr("Another engine") : owner.application;
    return facts.isEmpty() ? name : tr("%1 (%2)").arg(name, facts.join(u", "_s));
}

WorkspaceInUseChoice WorkspaceInUseDialog::ask(const QString &directory,
                                               const WorkspaceOwner &owner,
                                               const WorkspaceFolders &folders, QWidget *parent)
{
    WorkspaceInUseDialog dialog(directory, owner, parent);
    dialog.exec();
    WorkspaceInUseChoice choice;
    choice.action = dialog.chosenAction();
    if (choice.action == WorkspaceInUseChoice::Action::OpenAnother) {
        if (const auto other = folders.askForFolder(QFileInfo(directory).absolutePath()))
            choice.otherDirectory = *other;
        else
            choice.action = WorkspaceInUseChoice::Action::Cancel;
    }
    return choice;
}

} // namespace EventDesk::Ui
