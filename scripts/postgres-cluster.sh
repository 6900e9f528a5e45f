#!/usr/bin/env bash
# A private PostgreSQL cluster for the tests and benchmarks: `initdb` as the `postgres` user in
# a temporary folder, a unix socket in that folder and a loopback port, password authentication
# over TCP, and a role `feedcli` (LOGIN CREATEDB, not a superuser) with a database of its own.
# No fsync (a test cluster dies with its folder), but every commit is written before it returns,
# so a server killed mid-run (halt) keeps what it committed, as a real one does.
#
#   scripts/postgres-cluster.sh start DIR   starts it, prints the role's connection URL
#   scripts/postgres-cluster.sh stop DIR    stops it and removes DIR
#   scripts/postgres-cluster.sh halt DIR    stops the server at once (as a crash would), keeps DIR
#   scripts/postgres-cluster.sh resume DIR  starts a halted server again on its port
#
# Needs Debian's `postgresql` (15); runs initdb and the server as `postgres` (root, else sudo).
set -euo pipefail

command=${1:?start or stop}
dir=${2:?a folder}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] || { echo "postgres-cluster: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 69; }

as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# The server's standard streams are not the caller's: a reader of this script's output (a test)
# must see it end, and the server outlives the script.
start_server() {
    as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start -o \
        "-p $1 -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200" \
        </dev/null >/dev/null 2>&1 || { cat "$dir/server.log" >&2; exit 1; }
}

case $command in
start)
    mkdir -p "$dir"
    as_root chown postgres: "$dir"
    as_root chmod 700 "$dir"
    password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_postgres "$bin/initdb" -D "$dir/data" -U postgres -E UTF8 --locale=C.UTF-8 \
        --auth-local=trust --auth-host=scram-sha-256 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    start_server "$port"
    as_postgres "$bin/psql" -h "$dir" -p "$port" -U postgres -d postgres -q -v ON_ERROR_STOP=1 \
        -c "CREATE ROLE feedcli LOGIN CREATEDB PASSWORD '$password'" \
        -c "CREATE DATABASE feedcli OWNER feedcli" >/dev/null
    echo "$port" >"$dir/port"
    echo "postgresql://feedcli:$password@127.0.0.1:$port/feedcli"
    ;;
stop)
    if [ -d "$dir/data" ]; then as_postgres "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
    as_root rm -rf "$dir"
    ;;
halt)
    as_postgres "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
    ;;
resume)
    start_server "$(cat "$dir/port")"
    ;;
*)
    echo "postgres-cluster: start or stop, not $command" >&2
    exit 64
    ;;
esac
