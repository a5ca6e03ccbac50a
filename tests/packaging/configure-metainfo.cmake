# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# cmake -DSOURCE_DIR=... -DOUTPUT=... [-DHOMEPAGE=... -DBUGTRACKER=... -DSCREENSHOT_BASE=...]
#       -DPROJECT_VERSION=... -DEVENTDESK_RELEASE_DATE=... -P configure-metainfo.cmake
# The metainfo as packaging/CMakeLists.txt configures it, with the addresses given here.
include("${SOURCE_DIR}/packaging/linux/metainfo.cmake")
eventdesk_configure_metainfo("${OUTPUT}" "${HOMEPAGE}" "${BUGTRACKER}" "${SCREENSHOT_BASE}")
