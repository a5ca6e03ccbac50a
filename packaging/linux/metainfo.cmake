# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# eventdesk_configure_metainfo(OUTPUT HOMEPAGE BUGTRACKER SCREENSHOT_BASE): the AppStream metainfo
# from io.eventdesk.EventDesk.metainfo.xml.in. Addresses are listed only when given (none is
# invented); the screenshots are those of docs/screenshots/ under SCREENSHOT_BASE. The developer
# element takes the form the installed appstream validates: <developer> from AppStream 1.0 on,
# <developer_name> before (Debian 12 has 0.16).
set(EVENTDESK_METAINFO_TEMPLATE "${CMAKE_CURRENT_LIST_DIR}/io.eventdesk.EventDesk.metainfo.xml.in")

function(eventdesk_configure_metainfo output homepage bugtracker screenshot_base)
    set(EVENTDESK_METAINFO_DEVELOPER
        "  <developer id=\"io.eventdesk\">\n    <name>The EventDesk developers</name>\n  </developer>")
    find_program(EVENTDESK_APPSTREAMCLI appstreamcli)
    if(EVENTDESK_APPSTREAMCLI)
        execute_process(COMMAND "${EVENTDESK_APPSTREAMCLI}" --version
            OUTPUT_VARIABLE appstream_version ERROR_QUIET)
        string(REGEX MATCH "[0-9]+\\.[0-9]+(\\.[0-9]+)?" appstream_version "${appstream_version}")
        if(appstream_version AND appstream_version VERSION_LESS 1.0)
            set(EVENTDESK_METAINFO_DEVELOPER
                "  <developer_name>The EventDesk developers</developer_name>")
        endif()
    endif()

    set(EVENTDESK_METAINFO_URLS "")
    if(homepage)
        string(APPEND EVENTDESK_METAINFO_URLS "<url type=\"homepage\">${homepage}</url>\n")
    endif()
    if(bugtracker)
        string(APPEND EVENTDESK_METAINFO_URLS "  <url type=\"bugtracker\">${bugtracker}</url>\n")
    endif()

    set(EVENTDESK_METAINFO_SCREENSHOTS "")
    if(screenshot_base)
        string(REGEX REPLACE "/+$" "" screenshot_base "${screenshot_base}")
        # The README's screenshots, in its order, with what each shows.
        set(shots
            "dashboard|The dashboard: throughput, failed attempts by outcome, backlog, latency and the probation timeline"
            "subscription-editor|The subscription editor: destination, filters, retry policy and dead-lettering"
            "delivery-log|The delivery log: every attempt with its outcome, status and duration"
            "dead-letters|The dead-letter browser: why each event died, its record, resubmit and export"
            "send-test-event|Sending test events to a topic"
            "dashboard-dark|The dashboard with a dark palette")
        string(APPEND EVENTDESK_METAINFO_SCREENSHOTS "<screenshots>\n")
        set(type " type=\"default\"")
        foreach(shot IN LISTS shots)
            string(REPLACE "|" ";" shot "${shot}")
            list(GET shot 0 name)
            list(GET shot 1 caption)
            string(APPEND EVENTDESK_METAINFO_SCREENSHOTS
                "    <screenshot${type}>\n"
                "      <caption>${caption}</caption>\n"
                "      <image>${screenshot_base}/${name}.png</image>\n"
                "    </screenshot>\n")
            set(type "")
        endforeach()
        string(APPEND EVENTDESK_METAINFO_SCREENSHOTS "  </screenshots>\n")
    endif()
    configure_file("${EVENTDESK_METAINFO_TEMPLATE}" "${output}" @ONLY)
endfunction()
