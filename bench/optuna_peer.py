#!/usr/bin/python3
"""The peer of hpt_bench: Optuna with SQLite storage (RDBStorage), measured on
this machine in the same run. Writes its figures as JSON for hpt_bench.

  /usr/bin/python3 bench/optuna_peer.py --out bench/out/optuna.json [--seconds 4]

(a) ask/tell trials/s from one process on a fresh sqlite:/// file:
    study.ask(); suggest_float x 2; study.tell(trial, value). RandomSampler,
    as hpt's experiment uses `random` (the default TPE is noted too).
(b) trial.report(value, step) writes/s from 8 concurrent writers, each
    reporting to its own trial on the same SQLite file: measured both as 8
    processes (no GIL) and as 8 threads in one process; the table takes the
    faster of the two (which is named), so a ratio against it is conservative.
(c) trial.report writes/s from one process.
Optuna's storage is used as it comes: SQLite's default rollback journal
(journal_mode=delete, synchronous=full); hpt uses WAL with synchronous=NORMAL.
"""

import argparse
import json
import logging
import multiprocessing
import os
import sqlite3
import sys
import tempfile
import threading
import time
import warnings

import optuna
import sqlalchemy

N_WRITERS = 8
WARMUP_REPORTS = 5
WARMUP_TRIALS = 5


def quiet():
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.simplefilter("ignore")
    logging.getLogger("sqlalchemy").setLevel(logging.ERROR)


def ask_tell(url, seconds, max_trials, sampler):
    study = optuna.create_study(storage=url, sampler=sampler, direction="minimize")

    def one_trial():
        trial = study.ask()
        x = trial.suggest_float("x", -5, 10)
        y = trial.suggest_float("y", 0, 15)
        study.tell(trial, (x - 1) ** 2 + (y - 1) ** 2)

    for _ in range(WARMUP_TRIALS):  # first-call costs (SQL compilation, caches)
        one_trial()
    done = []
    start = time.perf_counter()
    while len(done) < max_trials and time.perf_counter() - start < seconds:
        one_trial()
        done.append(time.perf_counter() - start)
    n = len(done)
    tenth = max(1, n // 10)
    first = tenth / done[tenth - 1] if n >= 20 else float("nan")
    last = tenth / (done[-1] - done[n - tenth - 1]) if n >= 20 else float("nan")
    return {"trials": n, "seconds": done[-1], "rate": n / done[-1],
            "first_rate": first, "last_rate": last}


def report_loop(url, study_name, trial_id, seconds, ready, results):
    """Reports to one trial until `seconds` pass after everyone is ready."""
    quiet()
    study = optuna.load_study(study_name=study_name, storage=url)
    trial = optuna.trial.Trial(study, trial_id)
    step = 0
    for _ in range(WARMUP_REPORTS):
        trial.report(1.0, step)
        step += 1
    ready.wait()
    ok = failed = 0
    error = ""
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        try:
            trial.report(1.0 / (1 + step), step)
            ok += 1
        except Exception as e:  # e.g. "database is locked" past the busy timeout
            failed += 1
            error = error or repr(e)[:200]
        step += 1
    results.put((ok, failed, time.perf_counter() - start, error))


def concurrent_reports(url, seconds, writers, use_processes):
    study = optuna.create_study(storage=url, study_name="reports", direction="minimize")
    trial_ids = [study.ask()._trial_id for _ in range(writers)]
    if use_processes:
        ctx = multiprocessing.get_context("spawn")
        ready, results = ctx.Barrier(writers), ctx.Queue()
        workers = [ctx.Process(target=report_loop,
                               args=(url, "reports", t, seconds, ready, results))
                   for t in trial_ids]
    else:
        import queue
        ready, results = threading.Barrier(writers), queue.Queue()
        workers = [threading.Thread(target=report_loop,
                                    args=(url, "reports", t, seconds, ready, results))
                   for t in trial_ids]
    for w in workers:
        w.start()
    outcomes = [results.get() for _ in workers]
    for w in workers:
        w.join()
    ok = sum(o[0] for o in outcomes)
    failed = sum(o[1] for o in outcomes)
    elapsed = max(o[2] for o in outcomes)
    errors = [o[3] for o in outcomes if o[3]]
    return {"ok": ok, "failed": failed, "seconds": elapsed, "rate": ok / elapsed,
            "error": errors[0] if errors else ""}


def sqlite_modes(path):
    with sqlite3.connect(path) as db:
        journal = db.execute("PRAGMA journal_mode").fetchone()[0]
        sync = db.execute("PRAGMA synchronous").fetchone()[0]
    return journal, {0: "off", 1: "normal", 2: "full", 3: "extra"}.get(sync, sync)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--max-trials", type=int, default=2000)
    args = parser.parse_args()
    quiet()
    tmp = tempfile.mkdtemp(prefix="hpt-bench-optuna-")

    def fresh(name):
        path = os.path.join(tmp, name + ".db")
        return "sqlite:///" + path, path

    notes = []
    load_before = os.getloadavg()[0]
    url, path = fresh("asktell")
    a = ask_tell(url, args.seconds, args.max_trials, optuna.samplers.RandomSampler(seed=1))
    journal, sync = sqlite_modes(path)
    notes.append("Optuna %s, SQLAlchemy %s, SQLite %s (journal_mode=%s, synchronous=%s as "
                 "Optuna leaves them)" % (optuna.__version__, sqlalchemy.__version__,
                                          sqlite3.sqlite_version, journal, sync))
    notes.append("ask/tell (RandomSampler): %d trials in %.2f s; %.0f trials/s over the "
                 "first 10%%, %.0f over the last 10%%" %
                 (a["trials"], a["seconds"], a["first_rate"], a["last_rate"]))
    url, _ = fresh("asktell_tpe")
    tpe = ask_tell(url, min(args.seconds, 3.0), args.max_trials, optuna.samplers.TPESampler(seed=1))
    notes.append("ask/tell with the default TPESampler: %d trials in %.2f s = %.0f trials/s "
                 "(not in the table)" % (tpe["trials"], tpe["seconds"], tpe["rate"]))

    url, _ = fresh("reports8")
    b = concurrent_reports(url, args.seconds, N_WRITERS, use_processes=True)
    url, _ = fresh("reports8t")
    bt = concurrent_reports(url, args.seconds, N_WRITERS, use_processes=False)
    best = "processes" if b["rate"] >= bt["rate"] else "threads"
    for label, r in (("processes", b), ("threads in one process", bt)):
        notes.append("trial.report, %d %s on one SQLite file: %d writes in %.2f s = %.0f/s, "
                     "%d failed%s%s" % (N_WRITERS, label, r["ok"], r["seconds"], r["rate"],
                                        r["failed"],
                                        " (first: %s)" % r["error"] if r["error"] else "",
                                        " (in the table)" if label.startswith(best) else ""))
    url, _ = fresh("reports1")
    c = concurrent_reports(url, args.seconds, 1, use_processes=True)
    notes.append("trial.report, 1 process: %d writes in %.2f s" % (c["ok"], c["seconds"]))
    notes.append("1-minute load average %.1f before the peer's measurements, %.1f after"
                 % (load_before, os.getloadavg()[0]))

    result = {
        "asktell_trials_per_s": a["rate"],
        "report_writes_per_s_8": max(b["rate"], bt["rate"]),
        "report_writes_8_mode": best,
        "report_writes_per_s_1": c["rate"],
        "notes": notes,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    for n in notes:
        print("optuna_peer: " + n, file=sys.stderr)
    for name in os.listdir(tmp):
        os.remove(os.path.join(tmp, name))
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
