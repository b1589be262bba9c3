#!/usr/bin/python3
"""Compute saved by early stopping: hpt's policies against Optuna's pruners.

For each seed, on one `hpt serve` and then in-process with Optuna 3.1, runs
the same search (27 random configurations of compute_saved_trial.py, 3 at a
time, up to 27 epochs each) with:

  hpt    no stopping | medianstop | asha | hyperband (the algorithm, its own
         plan) | hyperband (the early-stopping policy)
  optuna no pruning | MedianPruner | SuccessiveHalvingPruner | HyperbandPruner

and counts the epochs really trained and the best final accuracy. See the
"Compute saved" section of bench/README.md for the definitions; run with

  bash bench/compute_saved.sh          # builds hpt, then runs this

Each Optuna pruner gets exactly the configurations, in the same order, that
its hpt twin drew for that seed (study.enqueue_trial; TWINS below), so only
the stopping rule differs within a pair. hpt's random search can draw a few
different configurations when trials end together, so the twin's draws, not
the no-stopping run's, are the ones to share. Optuna's no-pruning run gets
the no-stopping run's and must therefore equal hpt's no-stopping row: a
check that the curves are the same on both sides.
"""

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)

import hpt  # noqa: E402
import compute_saved_trial as workload  # noqa: E402

PYTHON = "/usr/bin/python3"

METHODS = [
    # (key, label, kind)
    ("none", "hpt: no stopping", "hpt"),
    ("medianstop", "hpt: medianstop", "hpt"),
    ("asha", "hpt: asha", "hpt"),
    ("hyperband", "hpt: hyperband (algorithm)", "hpt"),
    ("hyperband-stop", "hpt: hyperband (early stopping)", "hpt"),
    ("optuna-none", "Optuna: no pruning", "optuna"),
    ("optuna-median", "Optuna: MedianPruner", "optuna"),
    ("optuna-sha", "Optuna: SuccessiveHalvingPruner", "optuna"),
    ("optuna-hyperband", "Optuna: HyperbandPruner", "optuna"),
]


# The hpt run whose configurations each Optuna run is given; the others get
# the no-stopping run's (Katib's hyperband algorithm draws its own 49).
TWINS = {"optuna-median": "medianstop", "optuna-sha": "asha",
         "optuna-hyperband": "hyperband-stop"}


def log(msg):
    print(f"compute_saved: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- settings
# The same rule parameters on both sides, as near as the two rules allow:
# median from step 4 once 3 trials have finished; successive halving with
# eta 3 and rungs at epochs 1, 3, 9, 27; Hyperband's brackets up to 27.
MEDIAN_MIN_TRIALS = 3
MEDIAN_START_STEP = 4
ETA = 3
MIN_RESOURCE = 1


def hyperband_plan(eta, r_l):
    """(trials, epochs) per rung, bracket by bracket, as HyperbandPlan."""
    s_max = 0
    while eta ** (s_max + 1) <= r_l:
        s_max += 1
    plan = []
    for s in range(s_max, -1, -1):
        n = math.ceil((s_max + 1) / (s + 1) * eta ** s)
        rungs = []
        for i in range(s + 1):
            rungs.append((max(1, n // eta ** i), max(1, round(r_l * eta ** (i - s)))))
        plan.append(rungs)
    return plan


# ---------------------------------------------------------------- hpt side
def parameters_spec():
    out = []
    for name, (kind, lo, hi, dist) in workload.SPACE.items():
        fs = {"min": str(lo), "max": str(hi)}
        if dist == "log":
            fs["distribution"] = "logUniform"
        out.append({"name": name, "parameterType": kind, "feasibleSpace": fs})
    return out


def hpt_spec(method, seed, args):
    params = parameters_spec()
    epochs = str(args.epochs)
    algorithm = {"algorithmName": "random",
                 "algorithmSettings": [{"name": "random_state", "value": str(seed)}]}
    max_trials = args.trials
    if method == "hyperband":
        params.append({"name": "epochs", "parameterType": "int",
                       "feasibleSpace": {"min": "1", "max": str(args.epochs)}})
        epochs = "${trialParameters.epochs}"
        algorithm = {"algorithmName": "hyperband", "algorithmSettings": [
            {"name": "resource_name", "value": "epochs"},
            {"name": "eta", "value": str(ETA)},
            {"name": "r_l", "value": str(args.epochs)},
            {"name": "random_state", "value": str(seed)}]}
        max_trials = sum(n for b in hyperband_plan(ETA, args.epochs) for n, _ in b)
    spec = {
        "name": f"cs-{method}-s{seed}",
        "objective": {"type": "maximize", "objectiveMetricName": "accuracy"},
        "algorithm": algorithm,
        "parallelTrialCount": args.parallel,
        "maxTrialCount": max_trials,
        "maxFailedTrialCount": 0,
        "parameters": params,
        "trialTemplate": {
            "command": [PYTHON, os.path.join(HERE, "compute_saved_trial.py"),
                        "--lr=${trialParameters.lr}",
                        "--alpha=${trialParameters.alpha}",
                        "--hidden=${trialParameters.hidden}",
                        "--batch-size=${trialParameters.batch_size}",
                        f"--epochs={epochs}",
                        f"--epoch-seconds={args.epoch_seconds}"],
            "trialParameters": [{"name": p["name"], "reference": p["name"]}
                                for p in params],
            "workingDir": HERE,
            "timeoutSeconds": 600,
        },
        "metricsCollectorSpec": {"collector": {"kind": "StdOut"}, "stepKey": "epoch"},
    }
    if method == "medianstop":
        spec["earlyStopping"] = {"algorithmName": "medianstop", "algorithmSettings": [
            {"name": "min_trials_required", "value": str(MEDIAN_MIN_TRIALS)},
            {"name": "start_step", "value": str(MEDIAN_START_STEP)}]}
    elif method == "asha":
        spec["earlyStopping"] = {"algorithmName": "asha", "algorithmSettings": [
            {"name": "eta", "value": str(ETA)},
            {"name": "min_resource", "value": str(MIN_RESOURCE)},
            {"name": "resource_name", "value": "epoch"}]}
    elif method == "hyperband-stop":
        spec["earlyStopping"] = {"algorithmName": "hyperband", "algorithmSettings": [
            {"name": "r_l", "value": str(args.epochs)},
            {"name": "eta", "value": str(ETA)},
            {"name": "min_resource", "value": str(MIN_RESOURCE)},
            {"name": "resource_name", "value": "epoch"}]}
    return spec


def start_server(binary, db_dir):
    proc = subprocess.Popen(
        [binary, "serve", "--port", "0", "--db", os.path.join(db_dir, "hpt.db"),
         "--gpus", "none"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    first = proc.stdout.readline()
    if not first.startswith("hpt serving on "):
        proc.kill()
        raise RuntimeError(f"hpt serve did not start: {first!r}")
    url = first.split()[3]
    # Drain the rest of stdout so the server never blocks on a full pipe.
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    return proc, url


def run_hpt(client, method, seed, args):
    spec = hpt_spec(method, seed, args)
    exp = client.create_experiment(spec)
    exp.wait(timeout=args.timeout, poll=0.5)
    status = exp.status
    if status.get("phase") != "Succeeded":
        raise RuntimeError(f"{spec['name']}: {status}")
    trials = []
    for t in exp.trials():
        curve = {}
        for o in t.observations():
            if "accuracy" in o.get("metrics", {}) and o.get("step") is not None:
                curve[int(o["step"])] = float(o["metrics"]["accuracy"])
        params = {k: v for k, v in t.parameters.items() if k != "epochs"}
        trials.append({"name": t.name, "phase": t.phase, "params": params,
                       "budget": t.parameters.get("epochs", args.epochs),
                       "curve": curve})
    return trials


# ---------------------------------------------------------------- Optuna side
def run_optuna(method, seed, configs, args):
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    pruners = {
        "optuna-none": optuna.pruners.NopPruner(),
        "optuna-median": optuna.pruners.MedianPruner(
            n_startup_trials=MEDIAN_MIN_TRIALS, n_warmup_steps=MEDIAN_START_STEP),
        "optuna-sha": optuna.pruners.SuccessiveHalvingPruner(
            min_resource=MIN_RESOURCE, reduction_factor=ETA),
        "optuna-hyperband": optuna.pruners.HyperbandPruner(
            min_resource=MIN_RESOURCE, max_resource=args.epochs, reduction_factor=ETA),
    }
    study = optuna.create_study(direction="maximize",
                                sampler=optuna.samplers.RandomSampler(seed=seed),
                                pruner=pruners[method])
    for c in configs:
        study.enqueue_trial(c)

    def objective(trial):
        p = {}
        for name, (kind, lo, hi, dist) in workload.SPACE.items():
            if kind == "int":
                p[name] = trial.suggest_int(name, lo, hi, log=dist == "log")
            else:
                p[name] = trial.suggest_float(name, lo, hi, log=dist == "log")
        accuracy = None
        for epoch, accuracy in workload.train(**p, epochs=args.epochs,
                                              epoch_seconds=args.epoch_seconds):
            trial.report(accuracy, epoch)
            if trial.should_prune():
                raise optuna.TrialPruned()
        return accuracy

    workload._split()  # load once, before the threads race for it
    study.optimize(objective, n_trials=len(configs), n_jobs=args.parallel)
    return [{"name": str(t.number), "phase": t.state.name, "params": t.params,
             "budget": args.epochs,
             "curve": {int(k): float(v) for k, v in t.intermediate_values.items()}}
            for t in study.trials]


# ---------------------------------------------------------------- figures
def summarize(trials, max_epochs):
    """Total epochs trained, and the best final accuracy: the highest
    accuracy at epoch `max_epochs` among trials that trained that far."""
    epochs = sum(len(t["curve"]) for t in trials)
    finals = [t["curve"][max_epochs] for t in trials if max_epochs in t["curve"]]
    return {
        "epochs": epochs,
        "best": max(finals) if finals else float("nan"),
        "trials": len(trials),
        "full": len(finals),
        "stopped": sum(t["phase"] in ("EarlyStopped", "PRUNED") for t in trials),
    }


def config_key(params):
    return tuple((k, round(float(params[k]), 6)) for k in sorted(workload.SPACE))


def points(delta):
    text = f"{100 * delta:+.2f}"
    return "0.00" if text in ("+0.00", "-0.00") else text


def table(results, seeds):
    base = results["none"]
    base_epochs = statistics.median(r["epochs"] for r in base)
    base_best = statistics.median(r["best"] for r in base)
    lines = [
        "| method | median total epochs | ratio vs no stopping (fewer epochs) "
        "| median best accuracy "
        "| delta vs no stopping (points) | median trials (stopped / full) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for key, label, _ in METHODS:
        rs = results.get(key)
        if not rs:
            continue
        e = statistics.median(r["epochs"] for r in rs)
        b = statistics.median(r["best"] for r in rs)
        lines.append(
            f"| {label} | {e:g} | {base_epochs / e:.2f}x | {100 * b:.2f}% "
            f"| {points(b - base_best)} "
            f"| {statistics.median(r['trials'] for r in rs):g} "
            f"({statistics.median(r['stopped'] for r in rs):g} / "
            f"{statistics.median(r['full'] for r in rs):g}) |")
    per_seed = ["", "Per seed (total epochs / best final accuracy %):", "",
                "| method | " + " | ".join(f"seed {s}" for s in seeds) + " |",
                "|---|" + "---:|" * len(seeds)]
    for key, label, _ in METHODS:
        if results.get(key):
            per_seed.append(f"| {label} | " + " | ".join(
                f"{r['epochs']} / {100 * r['best']:.2f}" for r in results[key]) + " |")
    return "\n".join(lines + per_seed)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hpt", default=os.environ.get(
        "HPT_BINARY", os.path.join(ROOT, "build", "cli", "hpt")))
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--trials", type=int, default=27)
    p.add_argument("--epochs", type=int, default=workload.MAX_EPOCHS)
    p.add_argument("--parallel", type=int, default=3)
    p.add_argument("--epoch-seconds", type=float, default=0.05,
                   help="each epoch lasts at least this long (default 0.05)")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--methods", default=",".join(m[0] for m in METHODS))
    p.add_argument("--out", default=os.path.join(HERE, "out"))
    args = p.parse_args()

    wanted = args.methods.split(",")
    if "none" not in wanted:
        wanted.insert(0, "none")  # the baseline, and Optuna's configurations
    os.makedirs(args.out, exist_ok=True)
    seeds = list(range(1, args.seeds + 1))
    results = {k: [] for k in wanted}
    raw = {k: [] for k in wanted}
    overlap = {k: [] for k in wanted}
    db_dir = tempfile.mkdtemp(prefix="hpt-compute-saved-")
    server, url = start_server(args.hpt, db_dir)
    started = time.monotonic()
    try:
        client = hpt.Client(url)
        for seed in seeds:
            drawn = {}  # hpt method -> its configurations, in creation order
            for key, label, kind in METHODS:
                if key not in wanted:
                    continue
                t0 = time.monotonic()
                if kind == "hpt":
                    trials = run_hpt(client, key, seed, args)
                    drawn[key] = [t["params"] for t in trials]
                else:
                    trials = run_optuna(
                        key, seed, drawn.get(TWINS.get(key), drawn["none"]), args)
                base_configs = drawn["none"]
                s = summarize(trials, args.epochs)
                if key != "hyperband":
                    mine = {config_key(t["params"]) for t in trials}
                    same = sum(config_key(c) in mine for c in base_configs)
                    overlap[key].append(same)
                results[key].append(s)
                raw[key].append({"seed": seed, **s, "trials": trials})
                log(f"seed {seed} {label}: {s['epochs']} epochs, best "
                    f"{100 * s['best']:.2f}%, {s['stopped']} stopped, "
                    f"{time.monotonic() - t0:.0f} s")
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(db_dir, ignore_errors=True)

    elapsed = time.monotonic() - started
    text = table(results, seeds)
    text += ("\n\nConfigurations shared with hpt's no-stopping run, per seed: "
             + "; ".join(f"{k} {overlap[k]}" for k in wanted
                         if k not in ("none", "hyperband")) + "\n")
    text += (f"\n{args.seeds} seeds, {args.trials} trials x {args.epochs} epochs, "
             f"{args.parallel} at a time, epochs padded to {args.epoch_seconds} s; "
             f"{elapsed / 60:.1f} minutes on {os.cpu_count()} cores.\n")
    print(text)
    with open(os.path.join(args.out, "compute_saved.md"), "w") as f:
        f.write(text)
    with open(os.path.join(args.out, "compute_saved.json"), "w") as f:
        json.dump(raw, f, indent=1, default=str)
    log(f"table written to {os.path.join(args.out, 'compute_saved.md')}")


if __name__ == "__main__":
    main()
