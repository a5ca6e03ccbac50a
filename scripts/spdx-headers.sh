#!/usr/bin/env bash
# Puts the licence header on EventDesk's own source files, or checks that they have it:
#   // SPDX-FileCopyrightText: 2026 The EventDesk developers      (# in shell, CMake, YAML)
#   // SPDX-License-Identifier: Apache-2.0
# at the top of every C++, shell, CMake, JavaScript and YAML file git tracks (after a #! line).
# Files that cannot carry a comment (images, JSON, fuzz seeds) are covered by LICENSE and NOTICE.
# Files that already name a licence are left as they are. Re-run it after merging new files.
#
#   scripts/spdx-headers.sh          add the header where it is missing
#   scripts/spdx-headers.sh --check  list the files without it; exit 1 if there are any
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
check=0
[[ ${1:-} == --check ]] && check=1

copyright='SPDX-FileCopyrightText: 2026 The EventDesk developers'
licence='SPDX-License-Identifier: Apache-2.0'
missing=0
while IFS= read -r -d '' file; do
    case $file in
    *.cpp | *.h | *.mjs | *.cjs) comment='//' ;;
    *.sh | *.cmake | */CMakeLists.txt | CMakeLists.txt | *.yml | .ci/run) comment='#' ;;
    *) continue ;;
    esac
    if head -n 5 "$file" | grep -q 'SPDX-License-Identifier:'; then
        continue
    fi
    if ((check)); then
        echo "$file"
        missing=$((missing + 1))
        continue
    fi
    header="$comment $copyright"$'\n'"$comment $licence"
    tmp=$(mktemp)
    if [[ $(head -c 2 "$file") == '#!' ]]; then
        { head -n 1 "$file"; printf '%s\n' "$header"; tail -n +2 "$file"; } >"$tmp"
    else
        { printf '%s\n' "$header"; cat "$file"; } >"$tmp"
    fi
    # Keep the file's mode (scripts stay executable).
    cat "$tmp" >"$file"
    rm -f "$tmp"
done < <(git ls-files -z)

if ((check)); then
    if ((missing > 0)); then
        echo "spdx-headers.sh: $missing file(s) above lack the SPDX header (run scripts/spdx-headers.sh)" >&2
        exit 1
    fi
    echo "spdx-headers.sh: every source file carries the SPDX header"
fi
