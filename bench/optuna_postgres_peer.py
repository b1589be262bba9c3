#!/usr/bin/python3
"""Optuna's RDB storage on PostgreSQL, the peer of hpt_bench_postgres: the
same PostgreSQL server hpt is measured on, a fresh database per
measurement. Writes its figures as JSON.

  /usr/bin/python3 bench/optuna_postgres_peer.py --postgres postgresql://USER@HOST:PORT/DB \
      --out bench/out/optuna_postgres.json [--seconds 4]

(a) asktell_1: ask/tell trials/s from one process (bench/optuna_peer.py's
    ask_tell: study.ask(); suggest_float x 2; study.tell; RandomSampler).
(b) asktell_8: the same loop in 8 processes on one study, as Optuna users
    spread a study over workers.
(c) writes_8: trial.report(value, step) from 8 processes, each to its own
    trial (bench/optuna_peer.py's concurrent_reports).
Storage: optuna.storages.RDBStorage("postgresql+psycopg2://...") as it comes.
"""

import argparse
import itertools
import json
import multiprocessing
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import optuna  # noqa: E402
import psycopg2  # noqa: E402
import sqlalchemy  # noqa: E402

from optuna_peer import WARMUP_TRIALS, ask_tell, concurrent_reports, quiet  # noqa: E402

N_WORKERS = 8
_counter = itertools.count()


def fresh_database(url):
    """A new database on the server of `url`; its SQLAlchemy URL."""
    base, _, _ = url.partition("?")
    server, _, _ = base.rpartition("/")
    name = "optuna_bench_%d_%d" % (os.getpid(), next(_counter))
    conn = psycopg2.connect(url)
    conn.autocommit = True  # CREATE DATABASE cannot run in a transaction
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE " + name)
    conn.close()
    return server.replace("postgresql://", "postgresql+psycopg2://", 1) + "/" + name


def ask_tell_loop(url, study_name, seconds, ready, results):
    """One worker: ask/tell on the shared study until `seconds` pass after
    everyone is ready."""
    quiet()
    study = optuna.load_study(study_name=study_name, storage=url,
                              sampler=optuna.samplers.RandomSampler())

    def one_trial():
        trial = study.ask()
        x = trial.suggest_float("x", -5, 10)
        y = trial.suggest_float("y", 0, 15)
        study.tell(trial, (x - 1) ** 2 + (y - 1) ** 2)

    for _ in range(WARMUP_TRIALS):
        one_trial()
    ready.wait()
    ok = failed = 0
    error = ""
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        try:
            one_trial()
            ok += 1
        except Exception as e:  # e.g. a serialization failure
            failed += 1
            error = error or repr(e)[:200]
    results.put((ok, failed, time.perf_counter() - start, error))


def concurrent_ask_tell(url, seconds, workers):
    optuna.create_study(storage=url, study_name="asktell", direction="minimize")
    ctx = multiprocessing.get_context("spawn")
    ready, results = ctx.Barrier(workers), ctx.Queue()
    procs = [ctx.Process(target=ask_tell_loop, args=(url, "asktell", seconds, ready, results))
             for _ in range(workers)]
    for p in procs:
        p.start()
    outcomes = [results.get() for _ in procs]
    for p in procs:
        p.join()
    ok = sum(o[0] for o in outcomes)
    elapsed = max(o[2] for o in outcomes)
    errors = [o[3] for o in outcomes if o[3]]
    return {"ok": ok, "failed": sum(o[1] for o in outcomes), "seconds": elapsed,
            "rate": ok / elapsed, "error": errors[0] if errors else ""}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--postgres", required=True, help="postgresql://USER@HOST:PORT/DB")
    parser.add_argument("--out", required=True)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--max-trials", type=int, default=2000)
    args = parser.parse_args()
    quiet()
    notes = []
    load_before = os.getloadavg()[0]
    with psycopg2.connect(args.postgres) as conn, conn.cursor() as cur:
        cur.execute("SHOW server_version")
        version = cur.fetchone()[0]
        cur.execute("SHOW synchronous_commit")
        sync = cur.fetchone()[0]
    notes.append("Optuna %s, SQLAlchemy %s, psycopg2 %s, PostgreSQL %s (synchronous_commit=%s)"
                 % (optuna.__version__, sqlalchemy.__version__, psycopg2.__version__.split()[0],
                    version, sync))
    a = ask_tell(fresh_database(args.postgres), args.seconds, args.max_trials,
                 optuna.samplers.RandomSampler(seed=1))
    notes.append("ask/tell, 1 process (RandomSampler): %d trials in %.2f s; %.0f trials/s over "
                 "the first 10%%, %.0f over the last 10%%"
                 % (a["trials"], a["seconds"], a["first_rate"], a["last_rate"]))
    result = {"asktell_1": a["rate"]}
    for key, label, run in (
            ("asktell_8", "ask/tell, %d processes on one study" % N_WORKERS,
             lambda url: concurrent_ask_tell(url, args.seconds, N_WORKERS)),
            ("writes_8", "trial.report, %d processes, each its own trial" % N_WORKERS,
             lambda url: concurrent_reports(url, args.seconds, N_WORKERS, use_processes=True))):
        r = run(fresh_database(args.postgres))
        notes.append("%s: %d in %.2f s = %.0f/s, %d failed%s"
                     % (label, r["ok"], r["seconds"], r["rate"], r["failed"],
                        " (first: %s)" % r["error"] if r["error"] else ""))
        if r["failed"] == 0:
            result[key] = r["rate"]
    notes.append("1-minute load average %.1f before Optuna's measurements, %.1f after"
                 % (load_before, os.getloadavg()[0]))
    result["notes"] = notes
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    for n in notes:
        print("optuna_postgres_peer: " + n, file=sys.stderr)


if __name__ == "__main__":
    main()
