// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// What every fuzz target shares: the application object, quiet logging, and the check that turns
// a broken property into a crash libFuzzer records with its input.

#include <QByteArray>
#include <QString>

#include <cstddef>
#include <cstdint>

namespace EventDesk::Fuzz {

// Creates the QCoreApplication (once; the HTTP target needs its event loop) and silences Qt's
// and EventDesk's log output, which would otherwise cost more than the code under test.
void initialize(int *argc, char ***argv);

// The fuzz input as a QByteArray of its own: a copy, NUL-terminated like every array the code
// under test gets in the application (a raw-data array is not, and reading its end would look
// like a finding).
QByteArray bytes(const uint8_t *data, size_t size);

// A property of the code under test: when it does not hold, prints what and aborts, so that
// libFuzzer writes the input out as a crash.
void require(bool holds, const char *property, const QString &detail = QString());

} // namespace EventDesk::Fuzz
