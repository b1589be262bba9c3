#!/usr/bin/python3
"""The peer of hpt_bench_fanova: Optuna's FanovaImportanceEvaluator on the
trials hpt_bench_fanova wrote (the same 6-parameter space), timed.

  /usr/bin/python3 bench/fanova_peer.py TRIALS.json [REPEATS]

Prints {"seconds": median, "importances": [[name, share], ...]}.
"""
import json
import logging
import sys
import time

import optuna
from optuna.distributions import (CategoricalDistribution, FloatDistribution,
                                  IntDistribution)
from optuna.importance import FanovaImportanceEvaluator, get_param_importances

SPACE = {
    "lr": FloatDistribution(1e-4, 1, log=True),
    "depth": IntDistribution(1, 10),
    "subsample": FloatDistribution(0.5, 1),
    "momentum": FloatDistribution(0, 1),
    "units": IntDistribution(16, 512, log=True),
    "opt": CategoricalDistribution(["sgd", "adam", "rmsprop"]),
}


def main():
    optuna.logging.set_verbosity(logging.WARNING)
    rows = json.load(open(sys.argv[1]))
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    study = optuna.create_study()
    for row in rows:
        params = {}
        for name, text in row["params"].items():
            d = SPACE[name]
            if isinstance(d, CategoricalDistribution):
                params[name] = text
            elif isinstance(d, IntDistribution):
                params[name] = int(text)
            else:
                params[name] = float(text)
        study.add_trial(optuna.trial.create_trial(
            params=params, distributions=SPACE, value=row["value"]))
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = get_param_importances(
            study, evaluator=FanovaImportanceEvaluator(seed=0))
        seconds.append(time.perf_counter() - start)
    seconds.sort()
    print(json.dumps({"seconds": seconds[len(seconds) // 2],
                      "importances": [[k, v] for k, v in result.items()]}))


if __name__ == "__main__":
    main()
