#!/usr/bin/python3
"""The quality benchmark's CMA-ES peer: Optuna 3.1's CmaEsSampler (Debian's
python3-optuna on python3-cmaes) on the functions of quality_tpe.py.

  quality_cmaes.py cmaes [--functions a,b] --seeds N --trials T --out OUT.json
                    best-so-far regret curves per seed (the format of
                    `quality_tpe.py tpe`), CmaEsSampler(seed=s) with its
                    defaults: n_startup_trials 1, x0 the centre, sigma0
                    min_range / 6, no restarts, categoricals drawn by its
                    RandomSampler
  quality_cmaes.py latency --out OUT.json [--n 1000] [--samples 30]
                    median time to sample one trial of a 6-D study
                    (Hartmann6) that CmaEsSampler itself ran for n trials
Run by hpt_bench_quality and bench/run_quality.sh, not by hand."""

import argparse
import json
import os
import statistics
import sys
import time
import warnings

import optuna

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quality_tpe import FUNCTIONS, hartmann6, regret_curves, suggest  # noqa: E402

# CmaEsSampler warns once per categorical draw ("sampled independently").
optuna.logging.set_verbosity(optuna.logging.ERROR)
warnings.simplefilter("ignore")


def cmaes(names, seeds, trials, out_path):
    result = {"optuna": optuna.__version__, "sampler": "CmaEsSampler (defaults)"}
    regret_curves(names, seeds, trials, out_path,
                  lambda seed: optuna.samplers.CmaEsSampler(seed=seed), result, "quality_cmaes")


def latency(out_path, n, samples):
    space = FUNCTIONS["hartmann6"]["space"]

    def one(study):
        start = time.perf_counter()
        trial = study.ask()
        params = suggest(trial, space)
        elapsed = (time.perf_counter() - start) * 1e3
        study.tell(trial, hartmann6([params["x%d" % d] for d in range(6)]))
        return elapsed

    study = optuna.create_study(sampler=optuna.samplers.CmaEsSampler(seed=1))
    for _ in range(n):
        one(study)
    times = [one(study) for _ in range(samples)]
    result = {"optuna": optuna.__version__, "dim": 6, "ms": {
        str(n): {"median": statistics.median(times), "samples": samples}}}
    print("quality_cmaes: CmaEsSampler sample at n=%d: median %.2f ms" %
          (n, statistics.median(times)), file=sys.stderr)
    with open(out_path, "w") as f:
        json.dump(result, f)


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("cmaes")
    c.add_argument("--seeds", type=int, default=20)
    c.add_argument("--trials", type=int, default=50)
    c.add_argument("--out", required=True)
    c.add_argument("--functions", default=",".join(FUNCTIONS))
    l = sub.add_parser("latency")
    l.add_argument("--out", required=True)
    l.add_argument("--n", type=int, default=1000)
    l.add_argument("--samples", type=int, default=30)
    args = parser.parse_args()
    if args.command == "cmaes":
        cmaes([n for n in args.functions.split(",") if n], args.seeds, args.trials, args.out)
    else:
        latency(args.out, args.n, args.samples)


if __name__ == "__main__":
    main()
