# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# What the self-checks of the structure scripts share (tests/structure/check-*-test.sh source it):
# a scratch folder, a way to write small trees, and expect(), which runs the check under test on a
# tree and compares its exit status and report with what they must be. The sourcing script sets
# check (the script under test) first, and ends with finish.

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# put TREE PATH [LINE...]: writes a file of the tree, one argument per line.
put() {
    local tree=$1 path=$2
    shift 2
    mkdir -p "$(dirname "$tree/$path")"
    printf '%s\n' "$@" >"$tree/$path"
}

# expect NAME STATUS TREE [TEXT...]: the check on TREE exits with STATUS and prints every TEXT
# (a whole line of its report, compared literally; a TEXT starting with ~ is an extended regular
# expression a whole line must match instead).
expect() {
    local name=$1 status=$2 tree=$3
    shift 3
    local output actual problems=""
    output=$(bash "$check" "$tree" 2>&1)
    actual=$?
    [[ $actual == "$status" ]] || problems+="  exit status $actual, expected $status"$'\n'
    local text
    for text in "$@"; do
        if [[ $text == '~'* ]]; then
            grep -qxE -- "${text#\~}" <<<"$output" || problems+="  no line matching: ${text#\~}"$'\n'
        else
            grep -qxF -- "$text" <<<"$output" || problems+="  missing line: $text"$'\n'
        fi
    done
    if [[ -z $problems ]]; then
        echo "PASS $name"
    else
        echo "FAIL $name"
        printf '%s' "$problems"
        echo "  the check printed:"
        sed 's/^/    | /' <<<"$output"
        failures=$((failures + 1))
    fi
}

# Ends the self-check: its exit status says whether every case passed.
finish() {
    if ((failures)); then
        echo "$failures case(s) failed"
        exit 1
    fi
    echo "every case passed"
    exit 0
}
