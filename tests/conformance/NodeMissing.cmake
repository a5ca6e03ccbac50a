# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
message(FATAL_ERROR "conformance tests need Node.js: 'node' was not found when CMake configured the build. "
                    "Install it (scripts/install-deps.sh does) and configure again.")
