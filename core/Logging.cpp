// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "Logging.h"

Q_LOGGING_CATEGORY(lcModel, "eventdesk.model", QtInfoMsg)
Q_LOGGING_CATEGORY(lcDelivery, "eventdesk.delivery", QtInfoMsg)
Q_LOGGING_CATEGORY(lcScheduler, "eventdesk.scheduler", QtInfoMsg)
Q_LOGGING_CATEGORY(lcStore, "eventdesk.store", QtInfoMsg)
Q_LOGGING_CATEGORY(lcEndpoint, "eventdesk.endpoint", QtInfoMsg)
Q_LOGGING_CATEGORY(lcDeadLetter, "eventdesk.deadletter", QtInfoMsg)
Q_LOGGING_CATEGORY(lcDaemon, "eventdesk.daemon", QtInfoMsg)
Q_LOGGING_CATEGORY(lcSecrets, "eventdesk.secrets", QtInfoMsg)
