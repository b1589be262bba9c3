#!/usr/bin/env bash
# A private PostgreSQL server on 127.0.0.1 for tests and demos: initdb into
# DIR/data (trust authentication, UTF8), a server on a free port with its
# socket in DIR, and its URL in DIR/url.
#
#   scripts/postgres-local.sh start DIR   # prints the URL (hpt serve --db URL)
#   scripts/postgres-local.sh stop DIR      # a clean (fast) shutdown
#   scripts/postgres-local.sh discard DIR   # immediate stop, DIR removed
#
# discard is for scratch servers (the tests'): a clean shutdown writes a
# checkpoint of every page the tests dirtied, seconds of fsync for data
# that is thrown away next.
#
# Needs Debian's postgresql (initdb and pg_ctl; scripts/install-deps.sh).
# As root the server runs as the `postgres` user (initdb refuses root).
# Port: the first free one from 15432 up, or POSTGRES_LOCAL_PORT.
set -euo pipefail

cmd="${1:-}"
dir="${2:-}"
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|start-if-possible|stop|discard DIR" >&2; exit 2; }
dir="$(realpath -m "$dir")"
# start-if-possible: as start, but where no server can run here (no
# binaries, root without a postgres user) says why, also in DIR.why (the
# tests' skip message quotes it), writes no DIR/url and exits 0; the tests
# then skip.
if_possible=0
if [ "$cmd" = start-if-possible ]; then if_possible=1; cmd=start; fi
why_file="${dir%/}.why"
cannot() {
  echo "postgres-local: $1" >&2
  [ "$if_possible" = 1 ] && echo "$1" > "$why_file"
  [ "$if_possible" = 1 ] && exit 0
  exit 3
}

bindir=""
for candidate in "$(pg_config --bindir 2>/dev/null || true)" \
                 $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
  if [ -n "$candidate" ] && [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ]; then
    bindir="$candidate"
    break
  fi
done

# Runs a PostgreSQL tool as the user the server runs as.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

stop() {
  [ -n "$bindir" ] && [ -f "$dir/data/postmaster.pid" ] || return 0
  as_pg "$bindir/pg_ctl" -D "$dir/data" stop -m fast -w -t 30 >/dev/null 2>&1 || true
}

case "$cmd" in
  stop) stop; exit 0 ;;
  discard)
    if [ -n "$bindir" ] && [ -f "$dir/data/postmaster.pid" ]; then
      as_pg "$bindir/pg_ctl" -D "$dir/data" stop -m immediate -w -t 30 >/dev/null 2>&1 || true
    fi
    rm -rf "$dir" "$why_file"
    exit 0 ;;
  start) ;;
  *) echo "usage: $0 start|start-if-possible|stop|discard DIR" >&2; exit 2 ;;
esac

rm -f "$why_file"
[ -n "$bindir" ] || cannot "PostgreSQL's initdb and pg_ctl are not installed (apt-get install postgresql)"
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || cannot "running as root, and there is no postgres user to run the server as"
  command -v runuser >/dev/null || cannot "running as root without runuser to become postgres"
fi

stop
rm -rf "$dir"
mkdir -p "$dir"
[ "$(id -u)" = 0 ] && chown postgres: "$dir"
as_pg test -w "$dir" || cannot "the postgres user cannot write to $dir"
# --no-sync: a test database need not survive a power cut while it is made;
# the server itself runs with fsync on, as in production.
if ! as_pg "$bindir/initdb" -D "$dir/data" --auth=trust -U postgres --encoding=UTF8 \
     --locale=C --no-sync >"$dir/initdb.log" 2>&1; then
  cannot "initdb failed: $(tail -n 3 "$dir/initdb.log" | tr '\n' ' ')"
fi

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port="${POSTGRES_LOCAL_PORT:-15432}"
for _ in $(seq 20); do
  while [ -z "${POSTGRES_LOCAL_PORT:-}" ] && listening "$port"; do port=$((port + 1)); done
  if as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
       -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=on -c max_connections=300" \
       start >/dev/null; then
    url="postgresql://postgres@127.0.0.1:$port/postgres"
    echo "$url" > "$dir/url"
    echo "$url"
    exit 0
  fi
  # Another server may have taken the port between the check and the start.
  [ -n "${POSTGRES_LOCAL_PORT:-}" ] && break
  port=$((port + 1))
done
echo "postgres-local: the server did not start; see $dir/server.log" >&2
tail -n 5 "$dir/server.log" >&2 || true
[ "$if_possible" = 1 ] && echo "the server did not start (see $dir/server.log)" > "$why_file" && exit 0
exit 1
