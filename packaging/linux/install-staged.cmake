# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# The files a package manager's install gets besides the prefix's (packaging/CMakeLists.txt runs
# it at install time, with SOURCE_DIR, UNIT_DIR, BINDIR and MAINTAINER set): eventdeskd's systemd
# unit, /etc/default/eventdeskd, and lintian's overrides for the package. The first two belong
# where systemd and the administrator look, outside the installation prefix, so all of them go
# only into a staged install (DESTDIR set: the .deb CPack builds, a distribution's package), never
# into a plain prefix (the .tar.gz, `cmake --install build --prefix DIR`), which would write them
# into this machine's /etc.
if("$ENV{DESTDIR}" STREQUAL "")
    message(STATUS "Not installing eventdeskd.service, /etc/default/eventdeskd and the lintian "
        "overrides: they go into a staged install only (DESTDIR)")
    return()
endif()
# ExecStart names the binary where this install puts it.
set(EVENTDESKD_PATH "${CMAKE_INSTALL_PREFIX}/${BINDIR}/eventdeskd")
set(unit "$ENV{DESTDIR}${UNIT_DIR}/eventdeskd.service")
message(STATUS "Installing: ${unit}")
configure_file("${SOURCE_DIR}/eventdeskd.service.in" "${unit}" @ONLY)
file(CHMOD "${unit}" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
# Secrets may be written into it: root only. (file(INSTALL) puts DESTDIR in front by itself.)
file(INSTALL "${SOURCE_DIR}/eventdeskd.default" DESTINATION /etc/default
    RENAME eventdeskd PERMISSIONS OWNER_READ OWNER_WRITE)

# What lintian reports about the package on purpose, each with the reason (lintian shows the
# comment above an override with it).
set(overrides "# It holds the service's secrets (EVENTDESK_TOPIC_KEY_*, ...): root alone may read it.
eventdesk: non-standard-file-perm 0600 != 0644 [etc/default/eventdeskd]
")
if(NOT MAINTAINER MATCHES "<.+@.+>")
    string(APPEND overrides "# The project names no e-mail address (a made-up one would bounce); whoever publishes
# the package names theirs with -DEVENTDESK_PACKAGE_MAINTAINER=\"Name <address>\".
eventdesk: malformed-contact Maintainer *
")
endif()
file(WRITE "$ENV{DESTDIR}/usr/share/lintian/overrides/eventdesk" "${overrides}")
