// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QTableView;
class QTreeView;

namespace EventDesk {
class EngineHost;
struct ReceivedRequest;
}

namespace EventDesk::Ui {

class ReceivedRequestModel;
class ReceiverListModel;

// The test receivers (docs/eventdeskd.md "Built-in test receivers"): on the left the workspace's
// receivers with their URL, script and request count; on the right every request the selected one
// recorded (live, at most 1000 per receiver) and, for the selected request, its headers and body
// and the response given. The scripts are defined in workspace.json. Credentials among the headers
// (ReceivedRequestModel::isSecretHeader) and the target's query values are masked until "Show
// secret values" is ticked; what is copied from the panes is what they show.
class ReceiversView final : public QWidget
{
    Q_OBJECT

public:
    explicit ReceiversView(EventDesk::EngineHost *host, QWidget *parent = nullptr);
    ~ReceiversView() override;

    // Re-reads host->workspace().receivers and fetches their records.
    void reload();

private:
    void onEngineStarted(bool ok);
    void onRecordsAdded(const QStringList &receiverKeys);
    void showReceiver(const QModelIndex &current);
    void showRequest(const QModelIndex &current);
    void updateHint();

    EngineHost *m_host;
    ReceiverListModel *m_receiverModel;
    ReceivedRequestModel *m_requestModel;
    QLabel *m_hint;
    QTreeView *m_receiverView;
    QLabel *m_requestsTitle;
    QTableView *m_requestView;
    QPlainTextEdit *m_requestText;
    QPlainTextEdit *m_responseText;
    QCheckBox *m_revealSecrets;
    bool m_followNewest = true;
    quint64 m_generation = 0; // discards fetch answers from before a restart
};

} // namespace EventDesk::Ui
