"""Warm starts through the Python client against a real `hpt serve`:
enqueue_trial(s) (suggested first), add_trial(s) (finished trials with
known results) and import_trials (from another experiment, a CSV file,
CSV text or a pandas DataFrame)."""

import os
import tempfile
import unittest

import hpt
from hpt._warm import csv_body
from hpt_server import ServerTestCase

SPACE = [hpt.Float("x", -5, 5), hpt.Int("n", 1, 8), hpt.Categorical("opt", ["sgd", "adam"]),
         hpt.Categorical("batch", [16, 32, 64])]

OPTUNA_CSV = """\
number,value,datetime_start,params_batch,params_n,params_opt,params_x,state
0,1.5,2024-01-01 10:00:00,32,2,adam,0.25,COMPLETE
1,,2024-01-01 10:01:00,16,3,sgd,-1.0,FAIL
2,0.75,2024-01-01 10:02:00,64,5,sgd,2.5,COMPLETE
"""


class WarmStartTest(ServerTestCase):

    def create(self, prefix: str, max_trials: int = 4, **kwargs) -> "hpt.Experiment":
        kwargs.setdefault("objective", "loss")
        return self.client.create_experiment(self.unique(prefix), space=SPACE,
                                             max_trials=max_trials, parallel=1, **kwargs)

    def test_enqueued_configurations_come_first(self) -> None:
        exp = self.create("enqueue")
        first = {"x": 0.5, "n": 3.0, "opt": "adam", "batch": 32.0}  # 3.0 and 32.0 are ints here
        reply = exp.enqueue_trial(first)
        self.assertEqual(reply["queueLength"], 1)
        self.assertEqual(reply["skipped"], 0)
        self.assertEqual(reply["queued"][0]["parameterAssignments"],
                         [{"name": "x", "value": "0.5"}, {"name": "n", "value": "3"},
                          {"name": "opt", "value": "adam"}, {"name": "batch", "value": "32"}])
        self.assertEqual(exp.enqueue_trial(first, skip_if_exists=True)["skipped"], 1)
        reply = exp.enqueue_trials([{"x": -2, "n": 8, "opt": "sgd", "batch": 64}])
        self.assertEqual(reply["queueLength"], 2)
        self.assertEqual(exp.status["queuedTrials"], 2)
        [t] = exp.suggest()
        self.assertEqual(t.params, {"x": 0.5, "n": 3, "opt": "adam", "batch": 32})
        self.assertIsInstance(t.params["n"], int)
        t.complete(loss=1.0)
        seen = []
        exp.optimize(lambda trial: seen.append(trial.params) or 0.0, show_progress_bar=False)
        self.assertEqual(seen[0], {"x": -2.0, "n": 8, "opt": "sgd", "batch": 64})
        self.assertEqual(len(exp.trials()), 4)  # the queue counts towards maxTrialCount
        self.assertEqual(exp.status["queuedTrials"], 0)

    def test_trials_page_sorts_and_filters_on_the_server(self) -> None:
        exp = self.create("paged", max_trials=30)
        exp.add_trials([{"params": {"x": i / 2 - 5, "n": 1 + i % 8, "opt": "sgd", "batch": 16},
                         "value": abs(i - 7)} for i in range(20)])
        page, total = exp.trials_page(limit=3, sort="objective")
        self.assertEqual(total, 20)
        self.assertEqual([t.params["x"] for t in page], [-1.5, -2.0, -1.0])
        page, total = exp.trials_page(limit=50, ranges={"p:x": (None, -4.0)}, order="desc")
        self.assertEqual(total, 3)
        self.assertEqual([t.params["x"] for t in page], [-4.0, -4.5, -5.0])
        with self.assertRaises(hpt.ApiError) as caught:
            exp.trials_page(sort="size")
        self.assertEqual(caught.exception.code, 400)
        self.assertIn("sort", str(caught.exception))

    def test_enqueue_refuses_what_does_not_fit(self) -> None:
        exp = self.create("enqueue-bad")
        for bad in ({"x": 9.0, "n": 1, "opt": "sgd", "batch": 16},
                    {"x": 0.0, "n": 1, "opt": "rmsprop", "batch": 16}):
            with self.assertRaises(hpt.ApiError) as caught:
                exp.enqueue_trial(bad)
            self.assertEqual(caught.exception.code, 400)
        with self.assertRaisesRegex(ValueError, "is an int"):
            exp.enqueue_trial({"x": 0.0, "n": 1.5, "opt": "sgd", "batch": 16})
        with self.assertRaises(TypeError):
            exp.enqueue_trials({"x": 0.0})
        self.assertEqual(exp.status.get("queuedTrials", 0), 0)

    def test_add_trial_is_imported_and_not_budgeted(self) -> None:
        exp = self.create("add", max_trials=2, direction="maximize")
        t = exp.add_trial({"x": 1.0, "n": 2, "opt": "sgd", "batch": 16}, value=0.9,
                          metrics={"acc": 0.8}, intermediate_values={1: 0.5, 0: 0.2})
        self.assertIsInstance(t, hpt.Trial)
        self.assertEqual((t.phase, t.raw.get("reason")), ("Succeeded", "Imported"))
        self.assertEqual(t.params, {"x": 1.0, "n": 2, "opt": "sgd", "batch": 16})
        self.assertEqual(t.objective_value, 0.9)
        self.assertEqual(t.metrics["acc"]["latest"], 0.8)
        steps = [(o["step"], o["metrics"].get("loss")) for o in t.observations()]
        self.assertEqual(steps[:2], [(0, 0.2), (1, 0.5)])
        pruned = exp.add_trial({"x": 2.0, "n": 3, "opt": "adam", "batch": 64},
                               phase="PRUNED", intermediate_values={0: 0.1, 1: 0.3})
        self.assertEqual(pruned.phase, "EarlyStopped")
        more = exp.add_trials([{"params": {"x": 0.0, "n": 1, "opt": "sgd", "batch": 32},
                                "value": 0.1},
                               {"params": {"x": 0.5, "n": 1, "opt": "sgd", "batch": 32},
                                "value": 0.2, "phase": "Succeeded"}])
        self.assertEqual([m.objective_value for m in more], [0.1, 0.2])
        status = exp.status
        self.assertEqual(status["trials"]["imported"], 4)
        self.assertEqual(status["currentOptimalTrial"]["name"], t.name)
        # The budget is still whole: optimize() runs maxTrialCount new trials.
        exp.optimize(lambda trial: 0.0, show_progress_bar=False)
        self.assertEqual(len(exp.trials()), 6)
        self.assertEqual(exp.status["trials"]["imported"], 4)

    def test_add_trial_mistakes(self) -> None:
        exp = self.create("add-bad")
        params = {"x": 1.0, "n": 2, "opt": "sgd", "batch": 16}
        with self.assertRaisesRegex(TypeError, "not both"):
            exp.add_trial(params, value=1.0, values=[1.0])
        with self.assertRaisesRegex(ValueError, "values has 2 numbers"):
            exp.add_trial(params, values=[1.0, 2.0])
        with self.assertRaisesRegex(ValueError, "phase"):
            exp.add_trial(params, value=1.0, phase="Failed")
        with self.assertRaisesRegex(ValueError, "finite"):
            exp.add_trial(params, value=float("inf"))
        with self.assertRaisesRegex(TypeError, r"trials\[1\]"):
            exp.add_trials([{"params": params, "value": 1.0}, {"value": 2.0}])
        with self.assertRaises(hpt.ApiError) as caught:
            exp.add_trial({**params, "x": 50.0}, value=1.0)
        self.assertEqual(caught.exception.code, 400)
        self.assertEqual(exp.trials(), [])

    def test_add_trial_with_several_objectives(self) -> None:
        exp = self.create("add-mo", objective=["cost", "error"], direction=["minimize"] * 2)
        a = exp.add_trial({"x": 0.0, "n": 1, "opt": "sgd", "batch": 16}, values=[1.0, 3.0])
        b = exp.add_trial({"x": 1.0, "n": 1, "opt": "sgd", "batch": 16}, values=[3.0, 1.0])
        exp.add_trial({"x": 2.0, "n": 1, "opt": "sgd", "batch": 16}, values=[4.0, 4.0])
        self.assertEqual(a.values, [1.0, 3.0])
        with self.assertRaisesRegex(ValueError, "values="):
            exp.add_trial({"x": 0.0, "n": 1, "opt": "sgd", "batch": 16}, value=1.0)
        self.assertEqual([t.name for t in exp.best_trials], [a.name, b.name])
        self.assertEqual([f["values"] for f in exp.pareto_front()["front"]],
                         [[1.0, 3.0], [3.0, 1.0]])

    def test_import_from_an_experiment(self) -> None:
        source = self.create("source", max_trials=3)
        source.optimize(lambda t: t.params["x"] ** 2, show_progress_bar=False)
        target = self.create("target", max_trials=3)
        result = target.import_trials(from_experiment=source.name)
        self.assertEqual(len(result["trials"]), 3)
        self.assertEqual(sorted(t.objective_value for t in result["trials"]),
                         sorted(t.objective_value for t in source.trials()))
        self.assertTrue(all(t.raw.get("reason") == "Imported" for t in result["trials"]))
        self.assertEqual(target.status["trials"]["imported"], 3)
        with self.assertRaises(TypeError):
            target.import_trials()
        with self.assertRaises(TypeError):
            target.import_trials(from_experiment=source.name, csv="a,b\n")
        with self.assertRaises(hpt.ApiError) as caught:
            target.import_trials(from_experiment="no-such-experiment")
        self.assertIn(caught.exception.code, (400, 404))

    def check_optuna_import(self, exp: "hpt.Experiment", result) -> None:
        self.assertEqual([t.params for t in result["trials"]],
                         [{"x": 0.25, "n": 2, "opt": "adam", "batch": 32},
                          {"x": 2.5, "n": 5, "opt": "sgd", "batch": 64}])
        self.assertEqual([t.objective_value for t in result["trials"]], [1.5, 0.75])
        self.assertEqual(len(result["skipped"]), 1)  # the FAIL row
        self.assertIn("number", result["ignoredColumns"])
        self.assertIn("datetime_start", result["ignoredColumns"])

    def test_import_an_optuna_csv_as_text_and_file(self) -> None:
        exp = self.create("csv-text")
        self.check_optuna_import(exp, exp.import_trials(csv=OPTUNA_CSV))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "trials.csv")
            with open(path, "w") as f:
                f.write(OPTUNA_CSV)
            exp = self.create("csv-file")
            self.check_optuna_import(exp, exp.import_trials(csv=path))
            with self.assertRaises(FileNotFoundError):
                exp.import_trials(csv=os.path.join(d, "missing.csv"))
        with self.assertRaises(hpt.ApiError) as caught:
            exp.import_trials(csv="params_x,value\nnot-a-number,1\n")
        self.assertEqual(caught.exception.code, 400)

    def test_import_a_dataframe(self) -> None:
        try:
            import io

            import pandas as pd
        except ImportError:
            self.skipTest("pandas is not installed")
        frame = pd.read_csv(io.StringIO(OPTUNA_CSV))
        self.assertTrue(csv_body(frame).startswith(b"number,value,"))  # no index column
        exp = self.create("csv-frame")
        self.check_optuna_import(exp, exp.import_trials(csv=frame))


if __name__ == "__main__":
    unittest.main()
