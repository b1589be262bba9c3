"""The Python client against a real `hpt serve`: client-run (ask/tell) experiments."""

import json
import math
import os
import pathlib
import sys
import tempfile
import threading
import time
import unittest
from typing import Any, Dict

import hpt
from hpt_server import ServerTestCase


def quadratic_spec(name: str, max_trials: int = 6, parallel: int = 2,
                   objective: str = "minimize") -> Dict[str, Any]:
    return {
        "name": name,
        "objective": {"type": objective, "objectiveMetricName": "loss",
                      "additionalMetricNames": ["acc"]},
        "algorithm": {"algorithmName": "random",
                      "algorithmSettings": [{"name": "random_state", "value": "3"}]},
        "parallelTrialCount": parallel,
        "maxTrialCount": max_trials,
        "maxFailedTrialCount": max_trials,
        "parameters": [
            {"name": "x", "parameterType": "double", "feasibleSpace": {"min": "-5", "max": "5"}},
            {"name": "y", "parameterType": "double", "feasibleSpace": {"min": "-5", "max": "5"}},
        ],
        "metricsCollectorSpec": {"collector": {"kind": "Push"}},
    }


YAML_SPEC = """\
name: {name}
objective: {{type: minimize, objectiveMetricName: loss}}
algorithm: {{algorithmName: random}}
maxTrialCount: 4
parallelTrialCount: 2
parameters:
  - name: lr
    parameterType: double
    feasibleSpace: {{min: "1e-4", max: "1e-1", distribution: logUniform}}
"""


def loss(p: Dict[str, Any]) -> float:
    return (p["x"] - 1.0) ** 2 + (p["y"] + 2.0) ** 2


def run_to_end(exp: "hpt.Experiment", count: int = 2) -> Dict[str, float]:
    """Ask/tell until the server hands out no more trials; returns the
    losses by trial name."""
    losses: Dict[str, float] = {}
    while True:
        trials = exp.suggest(count=count)
        if not trials:
            return losses
        for t in trials:
            value = loss(t.parameters)
            t.report(1, loss=value + 1.0)
            t.report(2, loss=value + 0.5, acc=0.5)
            t.complete(loss=value)
            losses[t.name] = value


class CreateTest(ServerTestCase):

    def test_from_dict(self) -> None:
        name = self.unique("from-dict")
        exp = self.client.create_experiment(quadratic_spec(name))
        self.assertIsInstance(exp, hpt.Experiment)
        self.assertEqual(exp.name, name)
        self.assertEqual(exp.objective_metric, "loss")
        self.assertIn(exp.phase, ("Created", "Running"))
        self.assertEqual(self.client.experiment(name).spec["maxTrialCount"], 6)

    def test_from_yaml_text(self) -> None:
        name = self.unique("from-yaml")
        exp = self.client.create_experiment(YAML_SPEC.format(name=name))
        self.assertEqual(exp.name, name)
        self.assertEqual(exp.spec["parameters"][0]["feasibleSpace"]["distribution"],
                         "logUniform")

    def test_from_paths(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            yaml_name, json_name = self.unique("from-yaml-file"), self.unique("from-json-file")
            yaml_path = pathlib.Path(d, "experiment.yaml")
            yaml_path.write_text(YAML_SPEC.format(name=yaml_name))
            json_path = pathlib.Path(d, "experiment.json")
            json_path.write_text(json.dumps(quadratic_spec(json_name)))
            self.assertEqual(self.client.create_experiment(str(yaml_path)).name, yaml_name)
            self.assertEqual(self.client.create_experiment(json_path).name, json_name)
            with self.assertRaises(FileNotFoundError):
                self.client.create_experiment(os.path.join(d, "missing.yaml"))
        names = [e.name for e in self.client.experiments()]
        self.assertIn(yaml_name, names)
        self.assertIn(json_name, names)

    def test_bad_spec_raises_api_error_with_field_path(self) -> None:
        spec = quadratic_spec(self.unique("bad"))
        spec["parameters"][1]["feasibleSpace"] = {"min": "5", "max": "3"}
        spec["parallelTrialCount"] = 0
        with self.assertRaises(hpt.ApiError) as caught:
            self.client.create_experiment(spec)
        err = caught.exception
        self.assertEqual(err.code, 400)
        self.assertEqual(err.status, "INVALID_ARGUMENT")
        self.assertIn("parameters[1].feasibleSpace", err.message)
        self.assertIn("parallelTrialCount", err.message)
        self.assertIn("parameters[1].feasibleSpace", str(err))
        with self.assertRaises(hpt.ApiError) as caught:
            self.client.experiment(spec["name"])
        self.assertEqual(caught.exception.code, 404)

    def test_bad_yaml_raises_api_error(self) -> None:
        with self.assertRaises(hpt.ApiError) as caught:
            self.client.create_experiment("name: [unclosed\n  objective: {")
        self.assertEqual(caught.exception.code, 400)

    def test_name_taken(self) -> None:
        spec = quadratic_spec(self.unique("taken"))
        self.client.create_experiment(spec)
        with self.assertRaises(hpt.ApiError) as caught:
            self.client.create_experiment(spec)
        self.assertEqual(caught.exception.code, 409)
        self.assertEqual(caught.exception.status, "ALREADY_EXISTS")

    def test_unreachable_server(self) -> None:
        client = hpt.Client("http://127.0.0.1:9", timeout=5)
        with self.assertRaises(ConnectionError):
            client.experiments()


class AskTellTest(ServerTestCase):

    def test_loop_to_the_end(self) -> None:
        exp = self.client.create_experiment(quadratic_spec(self.unique("loop"), max_trials=7))
        losses = run_to_end(exp, count=2)
        self.assertEqual(len(losses), 7)
        status = exp.status
        self.assertEqual(status["phase"], "Succeeded")
        self.assertEqual(status["reason"], "MaxTrialsReached")
        self.assertEqual(status["trials"]["succeeded"], 7)
        self.assertEqual(exp.suggest(count=3), [])
        trials = exp.trials()
        self.assertEqual(sorted(t.name for t in trials), sorted(losses))
        for t in trials:
            self.assertEqual(t.phase, "Succeeded")
            self.assertTrue(t.finished)
            self.assertAlmostEqual(t.objective_value, losses[t.name])
            self.assertEqual(t.metrics["acc"]["latest"], 0.5)
            self.assertAlmostEqual(t.metrics["loss"]["max"], losses[t.name] + 1.0)
            self.assertEqual([o["step"] for o in t.observations()][:2], [1, 2])

    def test_suggest_honours_count_and_budget(self) -> None:
        exp = self.client.create_experiment(
            quadratic_spec(self.unique("count"), max_trials=5, parallel=5))
        first = exp.suggest(count=3)
        self.assertEqual(len(first), 3)
        self.assertEqual(len({t.name for t in first}), 3)
        self.assertTrue(all(t.phase == "Running" for t in first))
        self.assertEqual(len(exp.suggest(count=10)), 2)

    def test_typed_parameters_of_all_four_types(self) -> None:
        spec = {
            "name": self.unique("typed"),
            "objective": {"type": "maximize", "objectiveMetricName": "score"},
            "algorithm": {"algorithmName": "random"},
            "maxTrialCount": 12, "parallelTrialCount": 12,
            "parameters": [
                {"name": "lr", "parameterType": "double",
                 "feasibleSpace": {"min": "1e-5", "max": "1e-1", "distribution": "logUniform"}},
                {"name": "layers", "parameterType": "int",
                 "feasibleSpace": {"min": "1", "max": "8"}},
                {"name": "batch", "parameterType": "discrete",
                 "feasibleSpace": {"list": ["16", "32", "64"]}},
                {"name": "dropout", "parameterType": "discrete",
                 "feasibleSpace": {"list": ["0.1", "0.25", "0.5"]}},
                {"name": "opt", "parameterType": "categorical",
                 "feasibleSpace": {"list": ["sgd", "adam", "1"]}},
            ],
        }
        exp = self.client.create_experiment(spec)
        trials = exp.suggest(count=12)
        self.assertEqual(len(trials), 12)
        for t in trials:
            p = t.parameters
            self.assertEqual(set(p), {"lr", "layers", "batch", "dropout", "opt"})
            self.assertIs(type(p["lr"]), float)
            self.assertTrue(1e-5 <= p["lr"] <= 1e-1)
            self.assertIs(type(p["layers"]), int)
            self.assertTrue(1 <= p["layers"] <= 8)
            self.assertIs(type(p["batch"]), int)
            self.assertIn(p["batch"], (16, 32, 64))
            self.assertIs(type(p["dropout"]), float)
            self.assertIn(p["dropout"], (0.1, 0.25, 0.5))
            self.assertIs(type(p["opt"]), str)
            self.assertIn(p["opt"], ("sgd", "adam", "1"))
        # The same typing for trials read back later, through a fresh handle.
        again = {t.name: t.parameters for t in self.client.experiment(exp.name).trials()}
        self.assertEqual(again, {t.name: t.parameters for t in trials})

    def test_infeasible(self) -> None:
        exp = self.client.create_experiment(quadratic_spec(self.unique("infeasible"), 2, 1))
        (trial,) = exp.suggest()
        trial.complete(infeasible="diverged: loss was NaN")
        self.assertEqual(trial.phase, "Failed")
        self.assertEqual(trial.raw["reason"], "Infeasible")
        self.assertEqual(trial.raw["message"], "diverged: loss was NaN")
        self.assertIsNone(trial.objective_value)
        self.assertEqual(exp.status["trials"]["failed"], 1)
        with self.assertRaises(TypeError):
            exp.suggest()[0].complete(infeasible="no", loss=1.0)

    def test_report_checks_values_locally(self) -> None:
        exp = self.client.create_experiment(quadratic_spec(self.unique("values"), 2, 1))
        (trial,) = exp.suggest()
        with self.assertRaisesRegex(ValueError, "'loss' must be finite"):
            trial.report(1, loss=math.nan)
        with self.assertRaisesRegex(TypeError, "'loss' must be a number"):
            trial.report(1, loss="low")
        with self.assertRaises(TypeError):
            trial.report()
        # A number as text was sent as the number; a fractional step was cut.
        with self.assertRaisesRegex(TypeError, "'loss' must be a number, not str"):
            trial.report("0.3", 1)
        with self.assertRaisesRegex(TypeError, "step must be a whole number, not 3.7"):
            trial.report(0.4, 3.7)
        with self.assertRaisesRegex(TypeError, "step must be a whole number, not str"):
            trial.report("1", loss=0.3)
        self.assertEqual(trial.observations(), [])
        trial.report(0, loss=1)  # ints are numbers too
        trial.report(0.5, 2.0)  # a whole float is a step
        self.assertEqual([(o["step"], o["metrics"]) for o in trial.observations()],
                         [(0, {"loss": 1.0}), (2, {"loss": 0.5})])

    def test_complete_twice_is_an_api_error(self) -> None:
        exp = self.client.create_experiment(quadratic_spec(self.unique("twice"), 2, 1))
        (trial,) = exp.suggest()
        trial.complete(loss=1.0)
        with self.assertRaises(hpt.ApiError) as caught:
            trial.complete(loss=2.0)
        self.assertEqual(caught.exception.code, 409)
        self.assertEqual(caught.exception.status, "FAILED_PRECONDITION")
        with self.assertRaises(hpt.ApiError) as caught:
            trial.report(3, loss=2.0)
        self.assertEqual(caught.exception.code, 409)

    def test_best_trial(self) -> None:
        exp = self.client.create_experiment(quadratic_spec(self.unique("best"), 6, 3))
        # Optuna's study.best_trial/best_value/best_params: properties, and a
        # ValueError while no trial has reported the objective.
        for attribute in ("best_trial", "best_value", "best_params"):
            with self.assertRaisesRegex(ValueError, "no trial has reported the objective"):
                getattr(exp, attribute)
        losses = run_to_end(exp, count=3)
        best = exp.best_trial
        self.assertIsInstance(best, hpt.Trial)
        self.assertEqual(best.name, min(losses, key=losses.get))
        self.assertAlmostEqual(best.objective_value, min(losses.values()))
        self.assertEqual(best.value, best.objective_value)
        self.assertAlmostEqual(exp.best_value, min(losses.values()))
        self.assertEqual(exp.best_params, best.params)
        self.assertEqual(best.number, best.index - 1)
        self.assertIs(type(best.parameters["x"]), float)
        self.assertIn(best.name, repr(best))

    def test_best_trial_maximize(self) -> None:
        exp = self.client.create_experiment(
            quadratic_spec(self.unique("best-max"), 4, 2, objective="maximize"))
        losses = run_to_end(exp)
        self.assertEqual(exp.best_trial.name, max(losses, key=losses.get))

    def test_objective_value_is_the_servers(self) -> None:
        # run_to_end reports loss+1, loss+0.5 then completes with loss.
        for strategy, offset in (("min", 0.0), ("max", 1.0), ("latest", 0.0)):
            spec = quadratic_spec(self.unique(f"strategy-{strategy}"), 2, 2)
            spec["objective"]["metricStrategies"] = [{"name": "loss", "value": strategy}]
            exp = self.client.create_experiment(spec)
            losses = run_to_end(exp)
            for t in exp.trials():
                self.assertAlmostEqual(t.objective_value, losses[t.name] + offset)
                self.assertEqual(t.objective_value, t.raw["objectiveValue"])

    def test_index_is_creation_order(self) -> None:
        exp = self.client.create_experiment(quadratic_spec(self.unique("index"), 11, 11))
        first = exp.suggest(count=1)
        rest = exp.suggest(count=10)
        self.assertEqual([t.index for t in first + rest], list(range(1, 12)))
        self.assertEqual([t.name for t in exp.trials()], [t.name for t in first + rest])
        self.assertEqual([t.index for t in exp.trials()], list(range(1, 12)))
        self.assertEqual(exp.trial(rest[-1].name).index, 11)

    def test_should_stop(self) -> None:
        exp = self.client.create_experiment(quadratic_spec(self.unique("should-stop"), 2, 1))
        (trial,) = exp.suggest()
        trial.report(1, loss=3.0)
        self.assertIs(trial.should_stop(), False)  # no early-stopping policy in the spec

    def test_should_stop_follows_the_policy(self) -> None:
        spec = quadratic_spec(self.unique("should-stop-median"), 3, 1)
        spec["earlyStopping"] = {"algorithmName": "medianstop", "algorithmSettings": [
            {"name": "min_trials_required", "value": "2"}, {"name": "start_step", "value": "2"}]}
        exp = self.client.create_experiment(spec)
        for _ in range(2):
            (good,) = exp.suggest()
            for step in (1, 2, 3):
                good.report(step, loss=1.0)
            good.complete(loss=1.0)
        (bad,) = exp.suggest()
        bad.report(1, loss=5.0)
        self.assertIs(bad.should_stop(), False)  # before start_step
        bad.report(2, loss=5.0)
        self.assertIs(bad.should_stop(), True)
        self.assertIn("median", bad.stop_reason)

    def test_trial_stop(self) -> None:
        exp = self.client.create_experiment(quadratic_spec(self.unique("trial-stop"), 2, 1))
        (trial,) = exp.suggest()
        trial.stop()
        self.assertEqual(trial.phase, "Killed")
        self.assertEqual(exp.trial(trial.name).phase, "Killed")


class DataFrameTest(ServerTestCase):

    def test_trials_dataframe(self) -> None:
        try:
            import pandas as pd
        except ImportError:
            self.skipTest("pandas is not installed")
        exp = self.client.create_experiment(quadratic_spec(self.unique("frame"), 5, 2))
        losses = run_to_end(exp)
        df = exp.trials_dataframe()
        self.assertEqual(len(df), 5)
        self.assertEqual(list(df.columns[:4]), ["name", "phase", "x", "y"])
        self.assertIn("loss", df.columns)
        self.assertIn("acc", df.columns)
        self.assertEqual(df["x"].dtype.kind, "f")
        self.assertTrue(pd.api.types.is_datetime64_any_dtype(df["completionTime"]))
        by_name = dict(zip(df["name"], df["loss"]))
        objective = dict(zip(df["name"], df["objectiveValue"]))
        for name, value in losses.items():
            self.assertAlmostEqual(by_name[name], value)
            self.assertAlmostEqual(objective[name], value)
        empty = self.client.create_experiment(quadratic_spec(self.unique("frame-empty")))
        self.assertEqual(len(empty.trials_dataframe()), 0)

    def test_trials_dataframe_without_pandas(self) -> None:
        exp = self.client.create_experiment(quadratic_spec(self.unique("no-pandas")))
        saved = sys.modules.get("pandas")
        sys.modules["pandas"] = None  # makes `import pandas` raise ImportError
        try:
            with self.assertRaisesRegex(ImportError, "needs pandas"):
                exp.trials_dataframe()
        finally:
            if saved is None:
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = saved


class LifecycleTest(ServerTestCase):

    def test_wait_returns_when_the_experiment_ends(self) -> None:
        exp = self.client.create_experiment(quadratic_spec(self.unique("wait"), 4, 2))
        with self.assertRaises(TimeoutError):
            exp.wait(timeout=0.3, poll=0.1)
        worker = threading.Thread(target=run_to_end, args=(self.client.experiment(exp.name),))
        started = time.monotonic()
        worker.start()
        try:
            self.assertIs(exp.wait(timeout=30, poll=0.05), exp)
        finally:
            worker.join()
        self.assertLess(time.monotonic() - started, 30)
        self.assertEqual(exp.phase, "Succeeded")

    def test_stop(self) -> None:
        exp = self.client.create_experiment(quadratic_spec(self.unique("stop"), 6, 2))
        (running,) = exp.suggest()
        self.assertIs(exp.stop(), exp)
        self.assertEqual(exp.phase, "Stopped")
        self.assertIs(exp.wait(timeout=5), exp)
        self.assertEqual(exp.suggest(count=2), [])
        self.assertEqual(exp.status["reason"], "StoppedByUser")
        self.assertEqual(exp.trial(running.name).phase, "Killed")
        with self.assertRaises(hpt.ApiError) as caught:
            exp.stop()
        self.assertEqual(caught.exception.code, 409)

    def test_delete(self) -> None:
        name = self.unique("delete")
        exp = self.client.create_experiment(quadratic_spec(name))
        exp.suggest(count=2)
        exp.delete()
        with self.assertRaises(hpt.ApiError) as caught:
            self.client.experiment(name)
        self.assertEqual(caught.exception.code, 404)
        self.assertEqual(caught.exception.status, "NOT_FOUND")
        self.assertNotIn(name, [e.name for e in self.client.experiments()])
        with self.assertRaises(hpt.ApiError):
            exp.trials()


class TokenTest(ServerTestCase):
    token = "s3cret-token"

    def test_token_is_sent(self) -> None:
        exp = self.client.create_experiment(quadratic_spec(self.unique("token"), 2, 2))
        self.assertEqual(len(exp.suggest(count=2)), 2)

    def test_a_token_read_from_its_file_keeps_working(self) -> None:
        client = hpt.Client(self.server.url, token=self.token + "\n")
        self.assertIsInstance(client.experiments(), list)

    def test_missing_token_is_401(self) -> None:
        saved = os.environ.pop("HPT_TOKEN", None)
        try:
            with self.assertRaises(hpt.ApiError) as caught:
                hpt.Client(self.server.url).experiments()
        finally:
            if saved is not None:
                os.environ["HPT_TOKEN"] = saved
        self.assertEqual(caught.exception.code, 401)


if __name__ == "__main__":
    unittest.main()
