"""Constraint values (Optuna's constraints_func) from the Python client
against a real `hpt serve`: sent with complete(), read back, and the best
trial chosen among feasible trials only."""

import math
import unittest
from typing import Any, Dict

import hpt
from hpt_server import ServerTestCase


def spec(name: str, algorithm: str = "random", max_trials: int = 4) -> Dict[str, Any]:
    return {
        "name": name,
        "objective": {"type": "minimize", "objectiveMetricName": "loss"},
        "algorithm": {"algorithmName": algorithm,
                      "algorithmSettings": [{"name": "random_state", "value": "5"}]},
        "parallelTrialCount": 4,
        "maxTrialCount": max_trials,
        "parameters": [
            {"name": "x", "parameterType": "double", "feasibleSpace": {"min": "-2", "max": "2"}},
            {"name": "y", "parameterType": "double", "feasibleSpace": {"min": "-2", "max": "2"}},
        ],
    }


class ConstraintsTest(ServerTestCase):

    def test_round_trip_and_best_trial_skips_infeasible(self) -> None:
        exp = self.client.create_experiment(spec(self.unique("constraints")))
        a, b, c = exp.suggest(count=3)
        a.complete(loss=0.1, constraints=[0.5, -1])  # best loss, infeasible
        b.complete(loss=0.9, constraints=[-0.5, 0.0])
        c.complete(loss=2.0)
        self.assertEqual(a.constraints, [0.5, -1.0])
        self.assertFalse(a.feasible)
        self.assertEqual(b.constraints, [-0.5, 0.0])
        self.assertTrue(b.feasible)
        self.assertIsNone(c.constraints)
        self.assertTrue(c.feasible)
        self.assertEqual(exp.trial(a.name).constraints, [0.5, -1.0])
        self.assertEqual(exp.best_trial.name, b.name)
        self.assertEqual(exp.best_value, 0.9)
        # numpy-like numbers and tuples are taken as floats.
        d = exp.suggest()[0]
        d.complete(loss=0.05, constraints=(0, 1e-3))
        self.assertFalse(d.feasible)
        self.assertEqual(exp.best_trial.name, b.name)

    def test_bad_values_are_refused_naming_the_index(self) -> None:
        exp = self.client.create_experiment(spec(self.unique("bad-constraints")))
        t = exp.suggest()[0]
        for bad, error, text in [([float("nan")], ValueError, "constraints[0]"),
                                 ([0.0, math.inf], ValueError, "constraints[1]"),
                                 (["high"], TypeError, "constraints[0]"),
                                 (0.5, TypeError, "constraints"),
                                 ([True], TypeError, "constraints[0]")]:
            with self.assertRaises(error) as caught:
                t.complete(loss=1.0, constraints=bad)  # type: ignore[arg-type]
            self.assertIn(text, str(caught.exception))
        with self.assertRaises(TypeError):
            t.complete(infeasible="diverged", constraints=[1.0])
        # The server refuses what the client would not send.
        with self.assertRaises(hpt.ApiError) as refused:
            t._request("POST", ":complete", {"metrics": {"loss": 1.0}, "constraints": ["x"]})
        self.assertEqual(refused.exception.code, 400)
        self.assertIn("constraints[0]", refused.exception.message)
        self.assertEqual(t.refresh().phase, "Running")

    def test_tpe_suggests_mostly_feasible_points(self) -> None:
        """minimise x^2 + y^2 subject to x + y >= 1 through the server."""
        exp = self.client.create_experiment(spec(self.unique("tpe-constrained"), "tpe", 60))
        feasible_late = 0
        for i in range(60):
            t = exp.suggest()[0]
            x, y = t.params["x"], t.params["y"]
            t.complete(loss=x * x + y * y, constraints=[1 - x - y])
            feasible_late += i >= 10 and t.feasible
        self.assertGreater(feasible_late, 25)  # of 50; random search: about 14
        self.assertTrue(exp.best_trial.feasible)
        self.assertLess(exp.best_value, 1.0)


if __name__ == "__main__":
    unittest.main()
