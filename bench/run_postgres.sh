#!/usr/bin/env bash
# hpt on SQLite, hpt on PostgreSQL and Optuna's RDB storage on the same
# PostgreSQL, in one run (bench/README.md, "PostgreSQL"): builds hpt and
# hpt_bench_postgres (Release), starts one private PostgreSQL
# (scripts/postgres-local.sh), measures Optuna on it, then hpt, prints the
# table (also written to bench/out/postgres.md) and discards the server.
#
#   bash bench/run_postgres.sh [--servers N] [--server-cpus C]
#     N: the several-servers rows (default 2); C: the cores each held
#     server may use (default 0.25; bench/cpu_budget.h, root needed)
#
# Environment: BUILD_DIR (default build), SECONDS_PER_MEASUREMENT (default
# 4), JOBS (default 2), POSTGRES_DIR (the scratch server's folder, default a
# new temporary one).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
seconds="${SECONDS_PER_MEASUREMENT:-4}"
servers=2
server_cpus=0.25
while [ $# -gt 0 ]; do
  case "$1" in
    --servers) servers="${2:?--servers needs a number}"; shift 2 ;;
    --server-cpus) server_cpus="${2:?--server-cpus needs a number}"; shift 2 ;;
    *) echo "usage: $0 [--servers N] [--server-cpus C]" >&2; exit 2 ;;
  esac
done
out="$root/bench/out"
mkdir -p "$out"

/usr/bin/python3 -c 'import optuna, psycopg2, sqlalchemy' 2>/dev/null || {
  echo "run_postgres: /usr/bin/python3 needs python3-optuna, python3-psycopg2 and" \
       "python3-sqlalchemy (apt-get install)" >&2
  exit 3
}

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHPT_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --target hpt hpt_bench_postgres -j "${JOBS:-2}" >&2

if [ -z "${POSTGRES_DIR:-}" ]; then
  scratch="$(mktemp -d "${TMPDIR:-/tmp}/hpt-bench-pg-XXXXXX")"
  chmod 755 "$scratch"  # as root, the server runs as postgres and must reach it
  POSTGRES_DIR="$scratch/pg"
fi
pg_dir="$POSTGRES_DIR"
trap 'bash "$root/scripts/postgres-local.sh" discard "$pg_dir"; rmdir "${scratch:-/nonexistent}" 2>/dev/null || true' EXIT
url="$(bash "$root/scripts/postgres-local.sh" start "$pg_dir")"
echo "run_postgres: PostgreSQL at $url" >&2

# One after the other, never together: they share the machine's cores.
echo "run_postgres: measuring Optuna on PostgreSQL ..." >&2
/usr/bin/python3 "$root/bench/optuna_postgres_peer.py" --postgres "$url" \
  --out "$out/optuna_postgres.json" --seconds "$seconds"
"$build/bench/hpt_bench_postgres" --postgres "$url" --peer "$out/optuna_postgres.json" \
  --out "$out/postgres.md" --seconds "$seconds" --servers "$servers" \
  --server-cpus "$server_cpus"
echo "run_postgres: table written to $out/postgres.md" >&2
