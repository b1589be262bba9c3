#!/usr/bin/python3
"""The quality benchmark's peer: Optuna 3.1's TPE (Debian's python3-optuna)
on the same closed-form functions as bench/quality_functions.cc.

  quality_tpe.py check PROBES.json      values at the harness's probe points
  quality_tpe.py tpe [--functions a,b] --seeds N --trials T --out OUT.json
                                        best-so-far regret curves per seed
  quality_tpe.py latency --out OUT.json median time to sample one trial of a
                                        6-D study holding n = 100 and 1,000
                                        (--sizes to change)
Run by hpt_bench_quality and bench/run_quality.sh, not by hand."""

import argparse
import json
import math
import statistics
import sys
import time

import optuna

optuna.logging.set_verbosity(optuna.logging.WARNING)


def branin(x):
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (x[1] - b * x[0] ** 2 + c * x[0] - 6) ** 2 + 10 * (1 - t) * math.cos(x[0]) + 10


HARTMANN_A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14],
              [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]]
HARTMANN_P = [[1312, 1696, 5569, 124, 8283, 5886], [2329, 4135, 8307, 3736, 1004, 9991],
              [2348, 1451, 3522, 2883, 3047, 6650], [4047, 8828, 8732, 5743, 1091, 381]]
HARTMANN_ALPHA = [1, 1.2, 3, 3.2]


def hartmann6(x):
    return -sum(HARTMANN_ALPHA[i] * math.exp(-sum(
        HARTMANN_A[i][j] * (x[j] - HARTMANN_P[i][j] * 1e-4) ** 2 for j in range(6)))
        for i in range(4))


def rosenbrock(x):
    return sum(100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2 for i in range(len(x) - 1))


def ackley(x):
    d = len(x)
    return (-20 * math.exp(-0.2 * math.sqrt(sum(v * v for v in x) / d))
            - math.exp(sum(math.cos(2 * math.pi * v) for v in x) / d) + 20 + math.e)


def levy(x):
    w = [1 + (v - 1) / 4 for v in x]
    s = math.sin(math.pi * w[0]) ** 2
    for i in range(len(w) - 1):
        s += (w[i] - 1) ** 2 * (1 + 10 * math.sin(math.pi * w[i] + 1) ** 2)
    return s + (w[-1] - 1) ** 2 * (1 + math.sin(2 * math.pi * w[-1]) ** 2)


OPTIMIZER_COST = {"sgd": 1.0, "adam": 0.0, "rmsprop": 0.4}


def mixed(p):
    return ((math.log10(p["lr"]) + 2.5) ** 2 + 4 * (p["momentum"] - 0.9) ** 2
            + 0.25 * (p["layers"] - 4) ** 2 + 0.5 * (math.log2(p["units"]) - 7) ** 2
            + OPTIMIZER_COST[p["optimizer"]])


def box(f, dim, lo, hi):
    names = ["x%d" % d for d in range(dim)]
    return {"space": [(n, "float", lo, hi, False) for n in names],
            "eval": lambda p: f([p[n] for n in names])}


FUNCTIONS = {
    "branin": {"space": [("x0", "float", -5, 10, False), ("x1", "float", 0, 15, False)],
               "eval": lambda p: branin([p["x0"], p["x1"]]), "minimum": 0.397887357729738},
    "hartmann6": dict(box(hartmann6, 6, 0, 1), minimum=-3.32236801141551),
    "rosenbrock4": dict(box(rosenbrock, 4, -5, 10), minimum=0.0),
    "ackley5": dict(box(ackley, 5, -32.768, 32.768), minimum=0.0),
    "levy5": dict(box(levy, 5, -10, 10), minimum=0.0),
    "mixed": {"space": [("lr", "float", 1e-5, 1, True), ("momentum", "float", 0, 1, False),
                        ("layers", "int", 1, 8, False), ("units", "int", 16, 1024, True),
                        ("optimizer", "cat", ["sgd", "adam", "rmsprop"], None, None)],
              "eval": mixed, "minimum": 0.0},
}


def suggest(trial, space):
    params = {}
    for name, kind, lo, hi, log in space:
        if kind == "float":
            params[name] = trial.suggest_float(name, lo, hi, log=log)
        elif kind == "int":
            params[name] = trial.suggest_int(name, lo, hi, log=log)
        else:
            params[name] = trial.suggest_categorical(name, lo)
    return params


def check(path):
    with open(path) as f:
        probes = json.load(f)
    out = {}
    for name, points in probes.items():
        spec = FUNCTIONS[name]
        kinds = {s[0]: s[1] for s in spec["space"]}
        values = []
        for point in points:
            params = {k: (v if kinds[k] == "cat" else
                          int(float(v)) if kinds[k] == "int" else float(v))
                      for k, v in point.items()}
            values.append(spec["eval"](params))
        out[name] = values
    json.dump(out, sys.stdout)


def regret_curves(names, seeds, trials, out_path, make_sampler, result, label):
    """Best-so-far regret per seed of make_sampler(seed) on each function,
    written with `result`'s header fields to out_path."""
    result["functions"] = {}
    for name in names:
        spec = FUNCTIONS[name]
        curves, seconds = [], 0.0
        for seed in range(1, seeds + 1):
            study = optuna.create_study(sampler=make_sampler(seed))
            best, curve = math.inf, []
            start = time.perf_counter()
            for _ in range(trials):
                trial = study.ask()
                value = spec["eval"](suggest(trial, spec["space"]))
                study.tell(trial, value)
                best = min(best, value)
                curve.append(best - spec["minimum"])
            seconds += time.perf_counter() - start
            curves.append(curve)
        result["functions"][name] = {"curves": curves, "seconds": seconds}
        print("%s: %s done (%.1f s)" % (label, name, seconds), file=sys.stderr)
    with open(out_path, "w") as f:
        json.dump(result, f)


def tpe(names, seeds, trials, out_path, multivariate=False):
    result = {"optuna": optuna.__version__,
              "sampler": "TPESampler(multivariate=True)" if multivariate
              else "TPESampler (defaults)"}
    regret_curves(names, seeds, trials, out_path,
                  lambda seed: optuna.samplers.TPESampler(seed=seed, multivariate=multivariate),
                  result, "quality_tpe")


def latency(out_path, samples, sizes=(100, 1000), variants=(False, True)):
    space = FUNCTIONS["hartmann6"]["space"]
    distributions = {n: optuna.distributions.FloatDistribution(lo, hi)
                     for n, _, lo, hi, _ in space}
    result = {"optuna": optuna.__version__, "dim": 6, "ms": {}, "ms_multivariate": {}}
    for n, multivariate in [(n, m) for m in variants for n in sizes]:
        study = optuna.create_study(
            sampler=optuna.samplers.TPESampler(seed=1, multivariate=multivariate))
        rng = optuna.samplers.RandomSampler(seed=2)._rng
        trials = []
        for _ in range(n):
            params = {name: float(rng.uniform(0, 1)) for name in distributions}
            trials.append(optuna.trial.create_trial(
                params=params, distributions=distributions,
                value=hartmann6([params["x%d" % d] for d in range(6)])))
        study.add_trials(trials)
        times = []
        for _ in range(samples):
            start = time.perf_counter()
            trial = study.ask()
            params = suggest(trial, space)
            times.append((time.perf_counter() - start) * 1e3)
            study.tell(trial, hartmann6([params["x%d" % d] for d in range(6)]))
        result["ms_multivariate" if multivariate else "ms"][str(n)] = {
            "median": statistics.median(times), "samples": samples}
        print("quality_tpe: TPE%s sample at n=%d: median %.1f ms" %
              (" (multivariate)" if multivariate else "", n, statistics.median(times)),
              file=sys.stderr)
    with open(out_path, "w") as f:
        json.dump(result, f)


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check")
    c.add_argument("probes")
    t = sub.add_parser("tpe")
    t.add_argument("--seeds", type=int, default=20)
    t.add_argument("--trials", type=int, default=50)
    t.add_argument("--out", required=True)
    t.add_argument("--functions", default=",".join(FUNCTIONS))
    t.add_argument("--multivariate", action="store_true")
    l = sub.add_parser("latency")
    l.add_argument("--out", required=True)
    l.add_argument("--samples", type=int, default=30)
    l.add_argument("--sizes", default="100,1000")
    l.add_argument("--univariate-only", action="store_true")
    args = parser.parse_args()
    if args.command == "check":
        check(args.probes)
    elif args.command == "tpe":
        tpe([n for n in args.functions.split(",") if n], args.seeds, args.trials, args.out,
            args.multivariate)
    else:
        latency(args.out, args.samples, [int(n) for n in args.sizes.split(",") if n],
                (False,) if args.univariate_only else (False, True))


if __name__ == "__main__":
    main()
