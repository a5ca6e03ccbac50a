#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# A throwaway PostgreSQL cluster for the tests of the PostgreSQL store and for trying
# `eventdeskd --store postgresql://...` out, with nothing set up system-wide:
#
#   scripts/start-postgres.sh start DIR PORT   initdb (first time) + start; prints the URL when ready
#   scripts/start-postgres.sh halt DIR         stop the server, keep its data (start DIR PORT again)
#   scripts/start-postgres.sh stop DIR         stop the server fast and remove DIR
#
# The cluster lives in DIR/data, listens on 127.0.0.1:PORT only (its Unix socket is in DIR, not in
# /var/run/postgresql), lets loopback clients in without a password (trust: this cluster only) and
# runs with fsync off: it is for tests, a machine crash is not what they check. PostgreSQL refuses
# to run as root, so as root the server runs as the `postgres` system user (created by Debian's
# postgresql-common) and DIR is handed to it; as any other user it runs as that user.
set -euo pipefail

usage() {
    echo "usage: $0 start DIR PORT | halt DIR | stop DIR" >&2
    exit 2
}

# Debian keeps the server programs in /usr/lib/postgresql/<major>/bin (15 on Debian 12, 17 on
# Debian 13), off PATH; elsewhere pg_config or PATH knows them. The newest major wins.
find_bindir() {
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
        if [[ -x $dir/initdb && -x $dir/pg_ctl ]]; then
            echo "$dir"
            return
        fi
    done
    if command -v pg_config >/dev/null 2>&1; then
        dir=$(pg_config --bindir)
        if [[ -x $dir/initdb && -x $dir/pg_ctl ]]; then
            echo "$dir"
            return
        fi
    fi
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
        return
    fi
    echo "start-postgres.sh: the PostgreSQL server programs (initdb, pg_ctl) are not installed;" \
        "run scripts/install-deps.sh (Debian package: postgresql)" >&2
    exit 1
}

# Runs a command as the user the server runs as.
as_server_user() {
    if [[ $(id -u) -eq 0 ]]; then
        if ! id postgres >/dev/null 2>&1; then
            echo "start-postgres.sh: running as root, but there is no 'postgres' system user to run" \
                "the server as (PostgreSQL refuses root); run scripts/install-deps.sh" >&2
            exit 1
        fi
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

command=${1:-}
dir=${2:-}
[[ -n $command && -n $dir ]] || usage

case $command in
start)
    port=${3:-}
    [[ $port =~ ^[0-9]+$ ]] && ((port >= 1 && port <= 65535)) \
        || { echo "start-postgres.sh: PORT must be a number from 1 to 65535 (got '$port')" >&2; exit 2; }
    bindir=$(find_bindir)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    [[ $(id -u) -eq 0 ]] && chown postgres: "$dir"
    cd "$dir" # the server user may not be allowed into the caller's folder
    if [[ ! -f $dir/data/PG_VERSION ]]; then
        as_server_user "$bindir/initdb" --pgdata="$dir/data" --username=eventdesk --auth=trust \
            --encoding=UTF8 --no-locale --no-sync >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; echo "start-postgres.sh: initdb failed" >&2; exit 1; }
        # Only loopback TCP connections, trusted (initdb --auth=trust wrote the pg_hba.conf lines).
        cat >>"$dir/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
fsync = off
full_page_writes = off
max_connections = 50
EOF
        fresh=1
    else
        sed -i "s/^port = .*/port = $port/" "$dir/data/postgresql.conf"
    fi
    as_server_user "$bindir/pg_ctl" --pgdata="$dir/data" --log="$dir/server.log" --wait \
        --timeout=60 --silent start \
        || { tail -n 20 "$dir/server.log" >&2 || true; echo "start-postgres.sh: the server did not start on 127.0.0.1:$port" >&2; exit 1; }
    if [[ -n ${fresh:-} ]]; then
        as_server_user "$bindir/createdb" --host=127.0.0.1 --port="$port" --username=eventdesk eventdesk
    fi
    echo "postgresql://eventdesk@127.0.0.1:$port/eventdesk"
    ;;
halt | stop)
    [[ -d $dir ]] || { [[ $command == stop ]] && exit 0; echo "start-postgres.sh: no folder $dir" >&2; exit 1; }
    dir=$(cd "$dir" && pwd)
    if [[ -f $dir/data/postmaster.pid ]]; then
        bindir=$(find_bindir)
        # Fast: active connections are ended, nothing waits for clients to leave.
        as_server_user "$bindir/pg_ctl" --pgdata="$dir/data" --mode=fast --wait --timeout=60 \
            --silent stop || true
    fi
    if [[ $command == stop ]]; then
        rm -rf "$dir"
    fi
    ;;
*)
    usage
    ;;
esac
