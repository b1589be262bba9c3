#!/usr/bin/python3
"""The multi-objective quality benchmark's peers: Optuna 3.1's NSGAIISampler
and its multi-objective TPESampler (Debian's python3-optuna) on the same
problems as bench/quality_mo_functions.cc.

  quality_mo.py check PROBES.json     the objectives at the harness's probes
  quality_mo.py run --sampler nsga2|motpe [--functions a,b] --seeds N
                [--first-seed S] --trials T --out OUT.json
                                      every trial's objective values, per
                                      function and seed, with the sampler's
                                      defaults and seed=s for s = S ..
                                      S + N - 1 (the harness
                                      computes the hypervolumes)
Run by hpt_bench_quality_mo, not by hand."""

import argparse
import json
import math
import sys
import time
import warnings

import optuna

optuna.logging.set_verbosity(optuna.logging.WARNING)
# MOTPE and NSGA-II are experimental in 3.1 (ExperimentalWarning).
warnings.simplefilter("ignore")


def zdt_g(x):
    return 1 + 9 * sum(x[1:]) / (len(x) - 1)


def zdt1(x):
    g = zdt_g(x)
    return [x[0], g * (1 - math.sqrt(x[0] / g))]


def zdt2(x):
    g = zdt_g(x)
    return [x[0], g * (1 - (x[0] / g) ** 2)]


def dtlz2(x):
    g = sum((v - 0.5) ** 2 for v in x[2:])
    r, h = 1 + g, math.pi / 2
    return [r * math.cos(x[0] * h) * math.cos(x[1] * h),
            r * math.cos(x[0] * h) * math.sin(x[1] * h),
            r * math.sin(x[0] * h)]


# name: (evaluate, variables, objectives)
FUNCTIONS = {"zdt1": (zdt1, 30, 2), "zdt2": (zdt2, 30, 2), "dtlz2": (dtlz2, 12, 3)}

SAMPLERS = {
    "nsga2": ("NSGAIISampler (defaults)", lambda seed: optuna.samplers.NSGAIISampler(seed=seed)),
    "motpe": ("TPESampler (defaults, multi-objective)",
              lambda seed: optuna.samplers.TPESampler(seed=seed)),
}


def check(path):
    with open(path) as f:
        probes = json.load(f)
    json.dump({name: [FUNCTIONS[name][0](p) for p in points]
               for name, points in probes.items()}, sys.stdout)


def run(sampler_name, names, first_seed, seeds, trials, out_path):
    label, make = SAMPLERS[sampler_name]
    result = {"optuna": optuna.__version__, "sampler": label, "functions": {}}
    for name in names:
        evaluate, variables, objectives = FUNCTIONS[name]
        runs, seconds = [], 0.0
        for seed in range(first_seed, first_seed + seeds):
            study = optuna.create_study(directions=["minimize"] * objectives,
                                        sampler=make(seed))
            values = []
            start = time.perf_counter()
            for _ in range(trials):
                trial = study.ask()
                x = [trial.suggest_float("x%d" % i, 0, 1) for i in range(variables)]
                v = evaluate(x)
                study.tell(trial, v)
                values.append(v)
            seconds += time.perf_counter() - start
            runs.append(values)
        result["functions"][name] = {"values": runs, "seconds": seconds}
        print("quality_mo: %s %s done (%.1f s)" % (sampler_name, name, seconds),
              file=sys.stderr)
    with open(out_path, "w") as f:
        json.dump(result, f)


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check")
    c.add_argument("probes")
    r = sub.add_parser("run")
    r.add_argument("--sampler", choices=sorted(SAMPLERS), required=True)
    r.add_argument("--seeds", type=int, default=5)
    r.add_argument("--first-seed", type=int, default=1)
    r.add_argument("--trials", type=int, default=100)
    r.add_argument("--out", required=True)
    r.add_argument("--functions", default=",".join(FUNCTIONS))
    args = parser.parse_args()
    if args.command == "check":
        check(args.probes)
    else:
        run(args.sampler, [n for n in args.functions.split(",") if n], args.first_seed,
            args.seeds, args.trials, args.out)


if __name__ == "__main__":
    main()
