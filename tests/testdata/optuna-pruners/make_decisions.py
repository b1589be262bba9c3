"""Writes decisions.txt: Optuna 3.1's pruning decisions on small recorded
tables of intermediate values, for tests/earlystop/optuna_decisions_test.cc.

Made offline with /usr/bin/python3 (Debian 12's python3-optuna 3.1.0,
numpy 1.24):  /usr/bin/python3 make_decisions.py > decisions.txt
The values are drawn from a seeded numpy generator, so a rerun gives the
same file. Each table runs its trials one after another through a study
with the pruner: a trial reports its values step by step, asks
should_prune() after each report, and is told PRUNED when it says yes,
else COMPLETE with its last value.

Format (blank lines and '#' comments ignored):
  table <hpt policy> <minimize|maximize> [name=value ...]   hpt's settings
  steps <s0> <s1> ...                                        the steps reported
  trial <v0> <v1> ... : <decision after each report, c or p>
"""

import numpy as np
import optuna
from optuna.pruners import (MedianPruner, PatientPruner, PercentilePruner,
                            ThresholdPruner)

optuna.logging.set_verbosity(optuna.logging.ERROR)


def curves(rng, n_trials, n_steps, maximize, noise=0.05, plateau=False):
    """Learning curves: each trial has a quality; values approach it."""
    out = []
    for _ in range(n_trials):
        quality = rng.uniform(0.1, 0.9)
        values = []
        for k in range(n_steps):
            v = quality * (1 - 0.5 ** (k + 1)) + rng.normal(0, noise)
            if plateau and k > n_steps // 2 and rng.uniform() < 0.5:
                v = values[-1] + rng.normal(0, noise)  # stalls
            values.append(round(float(v if maximize else 1 - v), 4))
        out.append(values)
    return out


def run(pruner, direction, steps, trials):
    study = optuna.create_study(direction=direction, pruner=pruner)
    rows = []
    for values in trials:
        trial = study.ask()
        decisions = []
        for step, value in zip(steps, values):
            trial.report(value, step)
            pruned = trial.should_prune()
            decisions.append("p" if pruned else "c")
            if pruned:
                break
        if decisions[-1] == "p":
            study.tell(trial, state=optuna.trial.TrialState.PRUNED)
        else:
            study.tell(trial, values[-1])
        rows.append((values[:len(decisions)], decisions))
    return rows


def table(header, pruner, direction, steps, trials):
    rows = run(pruner, direction, steps, trials)
    print(f"table {header}")
    print("steps " + " ".join(str(s) for s in steps))
    for values, decisions in rows:
        print("trial " + " ".join(repr(v) for v in values) + " : " + " ".join(decisions))
    print(f"# {sum(d[-1] == 'p' for _, d in rows)} of {len(rows)} pruned")
    print()


def main():
    rng = np.random.default_rng(33)
    print(__doc__.strip().replace("\n", "\n# ").join(["# ", ""]))
    print()
    # The case: MedianPruner's defaults on 3 CV folds (steps 0-2).
    table("medianstop minimize", MedianPruner(), "minimize", [0, 1, 2],
          curves(rng, 30, 3, False))
    table("medianstop maximize n_startup_trials=3 n_warmup_steps=2 "
          "interval_steps=3 n_min_trials=2",
          MedianPruner(3, 2, 3, n_min_trials=2), "maximize", list(range(10)),
          curves(rng, 20, 10, True))
    # Katib's names for the same settings, on steps reported every other one.
    table("medianstop minimize min_trials_required=4 start_step=4 interval_steps=4",
          MedianPruner(4, 4, 4), "minimize", [0, 2, 4, 6, 8, 10, 12],
          curves(rng, 20, 7, False))
    table("percentile minimize percentile=25", PercentilePruner(25.0), "minimize",
          list(range(5)), curves(rng, 25, 5, False))
    table("percentile maximize percentile=75 n_startup_trials=2 interval_steps=2",
          PercentilePruner(75.0, 2, 0, 2), "maximize", list(range(6)),
          curves(rng, 20, 6, True))
    table("threshold minimize lower=0.2 upper=0.7 n_warmup_steps=1 interval_steps=2",
          ThresholdPruner(lower=0.2, upper=0.7, n_warmup_steps=1, interval_steps=2),
          "minimize", list(range(6)), curves(rng, 15, 6, False, noise=0.15))
    table("threshold maximize upper=0.6", ThresholdPruner(upper=0.6), "maximize",
          list(range(4)), curves(rng, 10, 4, True))
    table("patient minimize patience=2 min_delta=0.01", PatientPruner(None, 2, 0.01),
          "minimize", list(range(8)), curves(rng, 15, 8, False, noise=0.03, plateau=True))
    table("patient maximize patience=1 wrapped_pruner=medianstop n_startup_trials=3",
          PatientPruner(MedianPruner(3), 1), "maximize", list(range(8)),
          curves(rng, 20, 8, True, noise=0.03, plateau=True))


if __name__ == "__main__":
    main()
