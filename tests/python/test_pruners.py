"""hpt.pruners against a real `hpt serve`: each of Optuna's pruners becomes
an earlyStopping block the server accepts, and it prunes a clearly bad
trial through trial.should_prune()."""

import unittest
import warnings
from typing import Any, Dict, List, Optional, Sequence

from hpt import pruners
from hpt_server import ServerTestCase


def spec(name: str, early_stopping: Optional[Dict[str, Any]], max_trials: int = 30,
         direction: str = "minimize") -> Dict[str, Any]:
    out: Dict[str, Any] = {
        "name": name,
        "objective": {"type": direction, "objectiveMetricName": "loss"},
        "algorithm": {"algorithmName": "random",
                      "algorithmSettings": [{"name": "random_state", "value": "3"}]},
        "parallelTrialCount": 1,
        "maxTrialCount": max_trials,
        "maxFailedTrialCount": max_trials,
        "parameters": [
            {"name": "x", "parameterType": "double", "feasibleSpace": {"min": "0", "max": "1"}},
        ],
        "metricsCollectorSpec": {"collector": {"kind": "Push"}},
    }
    if early_stopping is not None:
        out["earlyStopping"] = early_stopping
    return out


class PrunersTest(ServerTestCase):

    def create(self, prefix: str, pruner: pruners.BasePruner, **kwargs: Any):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # none of these should draw a note
            return self.client.create_experiment(
                spec(self.unique(prefix), pruner.to_spec(), **kwargs))

    def run_trial(self, exp, values: Sequence[float]) -> List[bool]:
        """Reports values at steps 0, 1, ... as Optuna programs do, asking
        should_prune() after each; stops at the first yes. The answers."""
        (trial,) = exp.suggest()
        answers = []
        for step, value in enumerate(values):
            trial.report(value, step)
            answers.append(trial.should_prune())
            if answers[-1]:
                break
        trial.complete(loss=values[len(answers) - 1])
        return answers

    def test_median_pruner_defaults_prune_the_third_fold(self) -> None:
        # Three CV folds (steps 0-2): after 5 finished trials, a trial worse
        # than the median at fold 1 is pruned there. (hpt's medianstop used
        # to wait for step 4, so it never pruned.)
        exp = self.create("median", pruners.MedianPruner())
        for i in range(5):
            self.assertEqual(self.run_trial(exp, [0.5, 0.3 + i / 100, 0.2]), [False] * 3)
        self.assertEqual(self.run_trial(exp, [0.45, 0.4, 0.35]), [False, True])
        self.assertEqual(exp.trials()[-1].phase, "EarlyStopped")

    def test_percentile_pruner(self) -> None:
        exp = self.create("percentile", pruners.PercentilePruner(25.0, n_startup_trials=2),
                          direction="maximize")
        for _ in range(2):
            self.run_trial(exp, [0.8, 0.9])
        self.assertEqual(self.run_trial(exp, [0.1, 0.1]), [True])

    def test_patient_pruner(self) -> None:
        exp = self.create("patient", pruners.PatientPruner(None, patience=1))
        self.assertEqual(self.run_trial(exp, [1.0, 2.0, 3.0]), [False, False, True])
        wrapped = self.create("patient-median", pruners.PatientPruner(
            pruners.MedianPruner(n_startup_trials=1), patience=1))
        self.assertEqual(self.run_trial(wrapped, [1.0, 0.9, 0.8]), [False] * 3)
        # Stalled and worse than the median: pruned; stalled alone is not enough.
        self.assertEqual(self.run_trial(wrapped, [0.5, 0.6, 0.7]), [False] * 3)
        self.assertEqual(self.run_trial(wrapped, [2.0, 2.1, 2.2]), [False, False, True])

    def test_threshold_pruner(self) -> None:
        exp = self.create("threshold", pruners.ThresholdPruner(upper=10.0))
        self.assertEqual(self.run_trial(exp, [1.0, 100.0]), [False, True])

    def test_successive_halving_pruner(self) -> None:
        exp = self.create("asha", pruners.SuccessiveHalvingPruner(min_resource=1,
                                                                  reduction_factor=2))
        self.assertEqual(self.run_trial(exp, [0.5, 0.1, 0.1]), [False] * 3)
        self.assertEqual(self.run_trial(exp, [0.5, 0.9, 0.9]), [False, True])

    def test_hyperband_pruner(self) -> None:
        exp = self.create("hyperband", pruners.HyperbandPruner(1, 9, 3))
        for _ in range(6):
            self.run_trial(exp, [0.1] * 10)
        # Trials are spread over brackets by name; the most aggressive one
        # holds about half of them, so some of six bad trials are pruned.
        pruned = [self.run_trial(exp, [5.0] * 10)[-1] for _ in range(6)]
        self.assertTrue(any(pruned), pruned)

    def test_nop_pruner_means_no_early_stopping(self) -> None:
        self.assertIsNone(pruners.NopPruner().to_spec())
        self.assertIsNone(pruners.PatientPruner(pruners.NopPruner(), 1).to_spec())
        exp = self.client.create_experiment(spec(self.unique("nop"), None))
        self.assertEqual(self.run_trial(exp, [100.0, 200.0]), [False, False])

    def test_a_pruner_that_can_never_prune_draws_a_warning(self) -> None:
        with self.assertWarnsRegex(UserWarning, r"medianstop waits for 5 succeeded trials "
                                                r"\(n_startup_trials\) but maxTrialCount is 4"):
            self.client.create_experiment(
                spec(self.unique("never"), pruners.MedianPruner().to_spec(), max_trials=4))

    def test_bad_arguments_are_refused_as_optuna_does(self) -> None:
        with self.assertRaises(ValueError):
            pruners.PercentilePruner(101.0)
        with self.assertRaises(ValueError):
            pruners.MedianPruner(interval_steps=0)
        with self.assertRaises(TypeError):
            pruners.ThresholdPruner()
        with self.assertRaises(ValueError):
            pruners.ThresholdPruner(lower=2.0, upper=1.0)
        with self.assertRaises(ValueError):
            pruners.PatientPruner(None, patience=-1)
        with self.assertRaisesRegex(ValueError, "max_resource"):
            pruners.HyperbandPruner()

    def test_the_server_names_a_bad_setting(self) -> None:
        from hpt import ApiError
        bad = pruners.ThresholdPruner(upper=1.0).to_spec()
        bad["algorithmSettings"].append({"name": "interval_steps", "value": "0"})
        with self.assertRaises(ApiError) as caught:
            self.client.create_experiment(spec(self.unique("bad"), bad))
        self.assertIn("earlyStopping.algorithmSettings[3].name: 'interval_steps' is already set",
                      str(caught.exception))


if __name__ == "__main__":
    unittest.main()
