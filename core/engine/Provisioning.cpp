// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "Provisioning.h"

using namespace Qt::StringLiterals;

namespace EventDesk {

QString provisioningStateName(ProvisioningState state)
{
    switch (state) {
    case ProvisioningState::Creating:
        return u"Creating"_s;
    case ProvisioningState::AwaitingManualActionValidation:
        return u"AwaitingManualActionValidation"_s;
    case ProvisioningState::Succeeded:
        return u"Succeeded"_s;
    case ProvisioningState::Failed:
        return u"Failed"_s;
    }
    return u"Failed"_s;
}

} // namespace EventDesk
