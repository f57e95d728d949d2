#!/usr/bin/env bash
# A private PostgreSQL (with pgvector) for tests and benchmarks, from the
# tree `./scripts/setup.sh` makes in target/test-tools/pg (Debian's
# PostgreSQL with pgvector built from scripts/vendor/pgvector). It listens
# only on a Unix socket inside DIR, never on the network.
#
#   ./scripts/pg.sh start DIR     create DIR (first time), start the server, make
#                                 database "keep" with the vector extension and
#                                 print its connection string
#   ./scripts/pg.sh stop DIR      stop it (fast shutdown) and keep its data
#   ./scripts/pg.sh url DIR       print the connection string
#   ./scripts/pg.sh sql DIR SQL   run SQL in database "keep", print the rows
#   ./scripts/pg.sh standby DIR PRIMARY_DIR
#                                 make DIR a hot standby of the server running
#                                 in PRIMARY_DIR (pg_basebackup, streaming
#                                 replication; first time), start it and print
#                                 its connection string
#
# KEEP_PG_DIR names another tree. The server refuses to run as root; as
# root it runs as nobody, and DIR is handed to nobody.
#
# With KEEP_PG_TLS=CERTS (a folder holding server.crt and server.key) and
# KEEP_PG_PORT=PORT, `start` also listens on 127.0.0.1:PORT with ssl = on
# and accepts network connections only when encrypted (hostssl), as a
# managed server does; the Unix socket stays for administration. With
# KEEP_PG_CERT_USER=NAME as well (and ca.crt in CERTS), role NAME is made
# and must log in with a client certificate signed by that CA.
set -euo pipefail
cd "$(dirname "$0")/.."
pg="${KEEP_PG_DIR:-$(pwd)/target/test-tools/pg}"
bin="$pg/bin"

die() { echo "pg: $*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: $0 start|stop|url|sql|standby DIR [SQL|PRIMARY_DIR]"
action=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd)
[ -x "$bin/postgres" ] || die "PostgreSQL is not installed in $pg: run ./scripts/setup.sh"

# As root the server runs as nobody, who must be able to reach the
# binaries; when they sit below a folder nobody may not enter (a checkout
# in /root), a world-readable copy in the temporary folder is used.
if [ "$(id -u)" -eq 0 ] && ! setpriv --reuid=65534 --regid=65534 --clear-groups \
    test -x "$bin/postgres" 2>/dev/null; then
  copy="${TMPDIR:-/tmp}/keep-pg-$( (printf '%s' "$pg"; cat "$pg/.installed" 2>/dev/null || true) | sha256sum | cut -c1-12)"
  if [ ! -x "$copy/bin/postgres" ]; then
    rm -rf "$copy.$$"
    mkdir -p "$copy.$$"
    cp -a "$pg/." "$copy.$$/"
    chmod -R a+rX "$copy.$$"
    mv -T "$copy.$$" "$copy" 2>/dev/null || rm -rf "$copy.$$"
  fi
  pg=$copy
  bin="$pg/bin"
fi

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
  else
    "$@"
  fi
}

pgport="${KEEP_PG_PORT:-5432}"
url() {
  if [ -n "${KEEP_PG_PORT:-}" ]; then
    echo "postgres://keep@/keep?host=$dir&port=$pgport"
  else
    echo "postgres://keep@/keep?host=$dir"
  fi
}

case "$action" in
  start)
    [ "$(id -u)" -ne 0 ] || chown 65534:65534 "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_owner "$bin/initdb" --pgdata="$dir/data" --username=keep --auth=trust \
        --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
        || die "initdb failed: see $dir/initdb.log"
    fi
    options="-c listen_addresses='' -c port=$pgport -c unix_socket_directories='$dir'"
    if [ -n "${KEEP_PG_TLS:-}" ]; then
      [ -n "${KEEP_PG_PORT:-}" ] || die "KEEP_PG_TLS needs KEEP_PG_PORT"
      install -m 644 "$KEEP_PG_TLS/server.crt" "$dir/server.crt"
      install -m 600 "$KEEP_PG_TLS/server.key" "$dir/server.key"
      [ "$(id -u)" -ne 0 ] || chown 65534:65534 "$dir/server.crt" "$dir/server.key"
      {
        echo "local all all trust"
        [ -z "${KEEP_PG_CERT_USER:-}" ] || echo "hostssl all $KEEP_PG_CERT_USER 127.0.0.1/32 cert"
        echo "hostssl all all 127.0.0.1/32 trust"
      } >"$dir/data/pg_hba.conf"
      options="-c listen_addresses='127.0.0.1' -c port=$pgport -c unix_socket_directories='$dir'"
      options="$options -c ssl=on -c ssl_cert_file='$dir/server.crt' -c ssl_key_file='$dir/server.key'"
      if [ -n "${KEEP_PG_CERT_USER:-}" ]; then
        install -m 644 "$KEEP_PG_TLS/ca.crt" "$dir/ca.crt"
        options="$options -c ssl_ca_file='$dir/ca.crt'"
      fi
    fi
    as_owner "$bin/pg_ctl" --pgdata="$dir/data" status >/dev/null 2>&1 \
      || as_owner "$bin/pg_ctl" --pgdata="$dir/data" --log="$dir/server.log" --wait \
      --options="$options" \
      start >/dev/null || die "the server did not start: see $dir/server.log"
    if ! as_owner "$bin/psql" --host="$dir" --port="$pgport" --username=keep --dbname=postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname = 'keep'" | grep -q 1; then
      as_owner "$bin/createdb" --host="$dir" --port="$pgport" --username=keep keep
      as_owner "$bin/psql" --host="$dir" --port="$pgport" --username=keep --dbname=keep -qc \
        "CREATE EXTENSION IF NOT EXISTS vector" >/dev/null
    fi
    if [ -n "${KEEP_PG_CERT_USER:-}" ]; then
      as_owner "$bin/psql" --host="$dir" --port="$pgport" --username=keep --dbname=keep -qc \
        "DO \$\$ BEGIN CREATE ROLE \"$KEEP_PG_CERT_USER\" SUPERUSER LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$" >/dev/null
    fi
    url
    ;;
  standby)
    [ $# -eq 3 ] || die "usage: $0 standby DIR PRIMARY_DIR"
    primary=$(cd "$3" && pwd)
    [ "$(id -u)" -ne 0 ] || chown 65534:65534 "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_owner "$bin/pg_basebackup" --host="$primary" --port="$pgport" --username=keep \
        --pgdata="$dir/data" --write-recovery-conf --checkpoint=fast --wal-method=stream \
        >"$dir/basebackup.log" 2>&1 || die "pg_basebackup failed: see $dir/basebackup.log"
    fi
    exec "$0" start "$dir"
    ;;
  stop)
    if as_owner "$bin/pg_ctl" --pgdata="$dir/data" status >/dev/null 2>&1; then
      as_owner "$bin/pg_ctl" --pgdata="$dir/data" --mode=fast --wait stop >/dev/null
    else
      echo "pg: no server running in $dir" >&2
    fi
    ;;
  url)
    url
    ;;
  sql)
    [ $# -eq 3 ] || die "usage: $0 sql DIR SQL"
    as_owner "$bin/psql" --host="$dir" --port="$pgport" --username=keep --dbname=keep -qtA \
      -v ON_ERROR_STOP=1 -c "$3"
    ;;
  *)
    die "unknown action '$action': start, stop, url, sql or standby"
    ;;
esac
