# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Writes eventdeskd's manual page as the build installs it: `eventdeskd --print-manpage DATE`
# into OUTPUT (roff) and OUTPUT.gz (gzip -9n: the smallest, and no name or time stamp inside, so the
# same sources give the same bytes).
#   cmake -DEVENTDESKD=... -DDATE=YYYY-MM-DD -DOUTPUT=.../eventdeskd.1 -DGZIP=... -P render-manpage.cmake
foreach(variable EVENTDESKD DATE OUTPUT GZIP)
    if(NOT DEFINED ${variable})
        message(FATAL_ERROR "render-manpage.cmake needs -D${variable}=...")
    endif()
endforeach()
# The page names the default paths under the home folder as ~/...: the builder's own XDG folders
# must not end up in it. Leak checking is off in sanitizer builds: the page is all that is wanted.
execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env --unset=XDG_CONFIG_HOME --unset=XDG_DATA_HOME
        --unset=QT_LOGGING_RULES ASAN_OPTIONS=detect_leaks=0
        "${EVENTDESKD}" --print-manpage "${DATE}"
    OUTPUT_FILE "${OUTPUT}.new"
    ERROR_VARIABLE errors
    RESULT_VARIABLE status)
if(NOT status EQUAL 0)
    file(REMOVE "${OUTPUT}.new")
    message(FATAL_ERROR "eventdeskd --print-manpage ${DATE} failed (${status}): ${errors}")
endif()
file(RENAME "${OUTPUT}.new" "${OUTPUT}")
execute_process(COMMAND "${GZIP}" -9nc "${OUTPUT}" OUTPUT_FILE "${OUTPUT}.gz" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "${GZIP} -9nc ${OUTPUT} failed (${status})")
endif()
