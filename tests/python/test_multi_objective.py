"""Several objectives through the Python client against a real `hpt serve`:
create_experiment's objective/direction lists and directions=, optimize()
with a tuple, Trial.values, Experiment.best_trials and pareto_front()."""

import unittest
import warnings
from typing import List, Sequence

import hpt
from hpt import _spec
from hpt_server import ServerTestCase

SPACE = [hpt.Float("x", 0, 2), hpt.Float("y", 0, 1)]


def two_objectives(trial: "hpt.Trial"):
    x, y = trial.params["x"], trial.params["y"]
    return x * x + y, (x - 2) ** 2 + y  # both minimised: the front is y = 0, x in [0, 2]


def dominates(a: Sequence[float], b: Sequence[float]) -> bool:
    return all(p <= q for p, q in zip(a, b)) and any(p < q for p, q in zip(a, b))


def front(points: List[Sequence[float]]) -> List[int]:
    return [i for i, p in enumerate(points) if not any(dominates(q, p) for q in points)]


class SpecTest(unittest.TestCase):
    """The keyword form's objective block, without a server."""

    def build(self, **kwargs):
        return _spec.build("mo", SPACE, max_trials=5, algorithm=None, algorithm_settings=None,
                           parallel=None, max_failed=None, early_stopping=None,
                           early_stopping_settings=None, **kwargs)

    def test_lists_and_directions(self) -> None:
        o = self.build(objective=["loss", "latency"], direction=["minimize", "maximize"],
                       goal=None)["objective"]
        # Optuna's value is what the function returns: the latest, per objective.
        self.assertEqual(o, {"type": "minimize", "objectiveMetricName": "loss", "objectives": [
            {"type": "minimize", "objectiveMetricName": "loss"},
            {"type": "maximize", "objectiveMetricName": "latency"}],
            "metricStrategies": [{"name": "loss", "value": "latest"},
                                 {"name": "latency", "value": "latest"}]})
        o = self.build(objective=None, direction=None, directions=["maximize", "minimize"],
                       goal=None)["objective"]
        self.assertEqual([x["objectiveMetricName"] for x in o["objectives"]],
                         ["objective_0", "objective_1"])
        self.assertEqual(o["type"], "maximize")
        o = self.build(objective=["a", "b"], direction=None, goal=None)["objective"]
        self.assertEqual([x["type"] for x in o["objectives"]], ["minimize", "minimize"])
        # One objective stays the single-objective form.
        o = self.build(objective=["a"], direction=["maximize"], goal=1.0)["objective"]
        self.assertEqual(o, {"type": "maximize", "objectiveMetricName": "a", "goal": 1.0,
                             "metricStrategies": [{"name": "a", "value": "latest"}]})

    def test_mistakes(self) -> None:
        with self.assertRaisesRegex(ValueError, "2 objectives but 3 directions"):
            self.build(objective=["a", "b"], direction=["minimize"] * 3, goal=None)
        with self.assertRaisesRegex(ValueError, "one objective 'a'"):
            self.build(objective="a", directions=["minimize", "maximize"], direction=None,
                       goal=None)
        with self.assertRaisesRegex(ValueError, "goal needs a single objective"):
            self.build(objective=["a", "b"], direction=None, goal=1.0)
        with self.assertRaisesRegex(TypeError, "not both"):
            self.build(objective=None, direction="minimize", directions=["minimize"], goal=None)
        with self.assertRaisesRegex(ValueError, "must differ"):
            self.build(objective=["a", "a"], direction=None, goal=None)
        with self.assertRaisesRegex(ValueError, "'up'"):
            self.build(objective=["a", "b"], direction=["minimize", "up"], goal=None)


class MultiObjectiveTest(ServerTestCase):

    def create(self, prefix: str, max_trials: int = 12, **kwargs) -> "hpt.Experiment":
        kwargs.setdefault("objective", ["cost", "error"])
        kwargs.setdefault("direction", ["minimize", "minimize"])
        return self.client.create_experiment(
            self.unique(prefix), space=SPACE, max_trials=max_trials,
            algorithm_settings={"random_state": 3}, **kwargs)

    def test_spec_and_properties(self) -> None:
        exp = self.create("props", objective=["cost", "acc"], direction=["minimize", "maximize"])
        self.assertEqual(exp.objective_metrics, ["cost", "acc"])
        self.assertEqual(exp.directions, ["minimize", "maximize"])
        self.assertEqual(exp.objective_metric, "cost")
        self.assertEqual(exp.spec["objective"]["objectives"][1],
                         {"type": "maximize", "objectiveMetricName": "acc"})
        self.assertEqual(exp.best_trials, [])
        empty = exp.pareto_front()
        self.assertEqual(empty["front"], [])
        self.assertIsNone(empty["hypervolume"])
        # Optuna's directions= and load_if_exists with the same spec.
        name = self.unique("directions")
        exp = self.client.create_experiment(name, space=SPACE, max_trials=4,
                                            directions=["minimize", "maximize"])
        self.assertEqual(exp.objective_metrics, ["objective_0", "objective_1"])
        again = self.client.create_experiment(name, space=SPACE, max_trials=4,
                                              directions=["minimize", "maximize"],
                                              load_if_exists=True)
        self.assertEqual(again.name, name)
        with self.assertRaisesRegex(ValueError, "objective"):
            self.client.create_experiment(name, space=SPACE, max_trials=4,
                                          directions=["minimize", "minimize"],
                                          load_if_exists=True)
        # A single objective: directions from the plain fields.
        single = self.client.create_experiment(self.unique("single"), space=SPACE, max_trials=2,
                                               objective="loss", direction="maximize")
        self.assertEqual((single.objective_metrics, single.directions), (["loss"], ["maximize"]))

    def test_optimize_with_tuples_and_the_front(self) -> None:
        exp = self.create("optimize")
        exp.optimize(two_objectives, n_trials=12, n_jobs=2, show_progress_bar=False)
        trials = exp.trials()
        self.assertEqual([t.phase for t in trials], ["Succeeded"] * 12)
        for t in trials:
            want = two_objectives(t)
            self.assertAlmostEqual(t.values[0], want[0])
            self.assertAlmostEqual(t.values[1], want[1])
            self.assertAlmostEqual(t.objective_value, want[0])  # ranked by the first
        expected = [trials[i].name for i in front([t.values for t in trials])]
        best = exp.best_trials
        self.assertTrue(best)
        self.assertEqual([t.name for t in best], expected)
        self.assertTrue(all(isinstance(t, hpt.Trial) and t.phase == "Succeeded" for t in best))
        self.assertEqual(best[0].params, next(t.params for t in trials if t.name == best[0].name))
        doc = exp.pareto_front()
        self.assertEqual(doc["objectives"], [{"objectiveMetricName": "cost", "type": "minimize"},
                                             {"objectiveMetricName": "error", "type": "minimize"}])
        self.assertEqual([f["name"] for f in doc["front"]], expected)
        self.assertEqual(len(doc["hypervolumeCurve"]), 12)
        self.assertEqual([p["trial"] for p in doc["hypervolumeCurve"]], [t.name for t in trials])
        curve = [p["hypervolume"] for p in doc["hypervolumeCurve"]]
        self.assertEqual(curve, sorted(curve))  # never shrinks
        self.assertAlmostEqual(doc["hypervolume"], curve[-1])
        self.assertGreater(doc["hypervolume"], 0)
        wide = exp.pareto_front(reference=[10, 10])
        self.assertEqual(wide["reference"], [10, 10])
        self.assertGreater(wide["hypervolume"], doc["hypervolume"])
        with self.assertRaises(hpt.ApiError) as caught:
            exp.pareto_front(reference=[10])
        self.assertEqual(caught.exception.code, 400)
        with self.assertRaises(ValueError):
            exp.pareto_front(reference=[float("nan"), 1])

    def test_bad_returns_fail_the_trial(self) -> None:
        exp = self.create("bad", max_trials=3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exp.optimize(lambda t: 1.0, n_trials=1, show_progress_bar=False)
            exp.optimize(lambda t: (1.0, 2.0, 3.0), n_trials=1, show_progress_bar=False)
        self.assertEqual([t.phase for t in exp.trials()], ["Failed", "Failed"])
        messages = [str(w.message) for w in caught if w.category is RuntimeWarning]
        self.assertEqual(len(messages), 2)
        self.assertIn("not 2 values (cost, error)", messages[0])
        self.assertIn("(1.0, 2.0, 3.0)", messages[1])
        # A dict of metrics still works, and a list as well as a tuple.
        exp.optimize(lambda t: [0.5, 0.25], n_trials=1, show_progress_bar=False)
        self.assertEqual(exp.trials()[-1].values, [0.5, 0.25])

    def test_report_goes_to_the_first_objective(self) -> None:
        exp = self.create("report", max_trials=1)

        def fn(trial: "hpt.Trial"):
            for step in range(3):
                trial.report(1.0 / (step + 1), step)
            return 0.2, 0.7

        exp.optimize(fn, show_progress_bar=False)
        [t] = exp.trials()
        observations = t.observations()
        self.assertEqual([o["metrics"] for o in observations[:3]],
                         [{"cost": 1.0}, {"cost": 0.5}, {"cost": 1.0 / 3}])
        self.assertEqual(t.values, [0.2, 0.7])
        self.assertEqual([b.name for b in exp.best_trials], [t.name])

    def test_single_objective_best_trials(self) -> None:
        exp = self.client.create_experiment(self.unique("one"), space=SPACE, max_trials=4,
                                            objective="loss")
        self.assertEqual(exp.best_trials, [])
        exp.optimize(lambda t: t.params["x"], n_trials=4, show_progress_bar=False)
        best = exp.best_trials
        self.assertEqual(len(best), 1)
        self.assertEqual(best[0].name, exp.best_trial.name)
        self.assertEqual(best[0].values, [best[0].objective_value])


if __name__ == "__main__":
    unittest.main()
