// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "Topic.h"

using namespace Qt::StringLiterals;

namespace EventDesk {

QString Topic::resourcePath() const
{
    // SPEC S1: the shape of an Azure topic's resource id, with a fixed all-zero subscription and
    // a fixed resource group, so that subscribers parsing "topic" see what Azure would send.
    return u"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/eventdesk/"
           u"providers/Microsoft.EventGrid/topics/"_s
        + name;
}

} // namespace EventDesk
