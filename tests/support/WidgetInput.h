// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QWidget>

namespace EventDesk::Testing {

// The child widget of parent called name. A widget renamed or gone stops the test with its name
// (a null pointer would crash it somewhere later).
template<typename T> T *child(QWidget *parent, const QString &name)
{
    T *widget = parent->findChild<T *>(name);
    if (!widget)
        qFatal("missing child widget %s", qPrintable(name));
    return widget;
}

// Replaces the text of a line edit or spin box the way a user does: select all, type.
void retype(QWidget *widget, const QString &text);

} // namespace EventDesk::Testing
