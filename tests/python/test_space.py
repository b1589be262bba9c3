"""Search spaces (hpt.Float, hpt.Int, hpt.Categorical), the spec they
write, and create_experiment(name, space=...) with load_if_exists against a
real `hpt serve`."""

import json
import pathlib
import tempfile
import unittest

import hpt
from hpt_server import ServerTestCase

SPACE = [
    hpt.Float("lr", 1e-5, 1e-1, log=True),
    hpt.Float("momentum", 0, 0.9, step=0.1),
    hpt.Int("layers", 1, 8),
    hpt.Int("units", 16, 512, log=True),
    hpt.Int("batch", 32, 256, step=32),
    hpt.Categorical("opt", ["sgd", "adam"]),
    hpt.Categorical("width", [16, 32, 64]),
    hpt.Categorical("dropout", [0.1, 0.25]),
]


class SpaceTest(unittest.TestCase):

    def test_the_spec_each_writes(self) -> None:
        specs = {p.name: (p.to_spec()["parameterType"], p.to_spec()["feasibleSpace"])
                 for p in SPACE}
        self.assertEqual(specs, {
            "lr": ("double", {"min": "1e-05", "max": "0.1", "distribution": "logUniform"}),
            "momentum": ("double", {"min": "0", "max": "0.9", "step": "0.1"}),
            "layers": ("int", {"min": "1", "max": "8"}),
            "units": ("int", {"min": "16", "max": "512", "distribution": "logUniform"}),
            "batch": ("int", {"min": "32", "max": "256", "step": "32"}),
            "opt": ("categorical", {"list": ["sgd", "adam"]}),
            "width": ("discrete", {"list": [16, 32, 64]}),
            "dropout": ("discrete", {"list": [0.1, 0.25]}),
        })
        self.assertEqual(repr(SPACE[0]), "Float('lr', 1e-05, 0.1, log=True)")
        self.assertEqual(repr(SPACE[4]), "Int('batch', 32, 256, step=32)")

    def test_refusals(self) -> None:
        with self.assertRaisesRegex(ValueError, "lr: log=True needs low > 0"):
            hpt.Float("lr", 0, 1, log=True)
        with self.assertRaisesRegex(ValueError, "n: low must be an integer"):
            hpt.Int("n", 1.5, 4)
        with self.assertRaisesRegex(TypeError, "x: high must be a number, not str"):
            hpt.Float("x", 0, "1")
        with self.assertRaisesRegex(ValueError, "step must be positive"):
            hpt.Float("x", 0, 1, step=0)
        with self.assertRaisesRegex(TypeError, "choices must be a list"):
            hpt.Categorical("c", "ab")
        with self.assertRaisesRegex(ValueError, "choices must not be empty"):
            hpt.Categorical("c", [])

    def test_numpy_choices(self) -> None:
        # Refused before as "must be a list" (an array) or "all numbers"
        # (np.int64 is no int).
        try:
            import numpy as np
        except ImportError:
            self.skipTest("no numpy")
        width = hpt.Categorical("width", np.array([16, 32, 64]))
        self.assertEqual(width.to_spec()["feasibleSpace"], {"list": [16, 32, 64]})
        self.assertEqual(width.choices, [16, 32, 64])
        self.assertIs(type(width.choices[0]), int)
        rate = hpt.Categorical("rate", [np.float32(0.5), np.float64(0.25)])
        self.assertEqual(rate.to_spec()["feasibleSpace"], {"list": [0.5, 0.25]})
        opt = hpt.Categorical("opt", np.array(["sgd", "adam"]))
        self.assertEqual(opt.to_spec(), {"name": "opt", "parameterType": "categorical",
                                         "feasibleSpace": {"list": ["sgd", "adam"]}})
        flag = hpt.Categorical("flag", np.array([True, False]))
        self.assertEqual(flag.to_spec()["feasibleSpace"], {"list": [True, False]})
        self.assertIs(flag.choices[0], True)
        width_of = hpt.Int("units", 8, 64, parent=("width", np.array([16, 32])))
        self.assertEqual(width_of.to_spec()["parent"], {"name": "width", "values": ["16", "32"]})
        one = hpt.Int("units", 8, 64, parent=("width", np.int64(16)))
        self.assertEqual(one.to_spec()["parent"], {"name": "width", "values": ["16"]})


CONDITIONAL = [
    hpt.Categorical("optimizer", ["sgd", "adam"]),
    hpt.Float("momentum", 0.5, 0.99, parent=("optimizer", ["sgd"])),
    hpt.Float("beta1", 0.8, 0.999, parent={"name": "optimizer", "values": ["adam"]}),
    hpt.Int("layers", 1, 3),
    hpt.Int("width", 8, 64, step=8, parent=("layers", [2, 3])),
]


class ConditionalSpaceTest(unittest.TestCase):

    def test_parent_is_written_as_the_spec_has_it(self) -> None:
        specs = hpt.space.parameters(CONDITIONAL)
        self.assertNotIn("parent", specs[0])
        self.assertEqual(specs[1]["parent"], {"name": "optimizer", "values": ["sgd"]})
        self.assertEqual(specs[2]["parent"], {"name": "optimizer", "values": ["adam"]})
        self.assertEqual(specs[4]["parent"], {"name": "layers", "values": ["2", "3"]})
        self.assertEqual(repr(CONDITIONAL[1]),
                         "Float('momentum', 0.5, 0.99, parent=('optimizer', ['sgd']))")

    def test_parent_refusals(self) -> None:
        with self.assertRaisesRegex(ValueError, "'m''s parent 'opt' is not in the space"):
            hpt.space.parameters([hpt.Float("m", 0, 1, parent=("opt", "sgd"))])
        with self.assertRaisesRegex(ValueError, "needs at least one value"):
            hpt.Float("m", 0, 1, parent=("opt", []))
        with self.assertRaisesRegex(TypeError, "parent must be"):
            hpt.Float("m", 0, 1, parent="opt")


class CreateFromSpaceTest(ServerTestCase):

    def create(self, name: str, **kwargs: object) -> "hpt.Experiment":
        options = dict(space=SPACE, objective="accuracy", direction="maximize",
                       algorithm="random", algorithm_settings={"random_state": 11},
                       max_trials=20, early_stopping="medianstop",
                       early_stopping_settings={"start_step": 2})
        options.update(kwargs)
        return self.client.create_experiment(name, **options)

    def test_stored_spec_and_typed_values(self) -> None:
        exp = self.create(self.unique("space"), parallel=4, goal=0.99)
        spec = exp.spec
        self.assertEqual(spec["objective"]["objectiveMetricName"], "accuracy")
        self.assertEqual(spec["objective"]["type"], "maximize")
        self.assertEqual(spec["objective"]["goal"], 0.99)
        self.assertEqual(spec["algorithm"]["algorithmSettings"],
                         [{"name": "random_state", "value": "11"}])
        self.assertEqual(spec["earlyStopping"]["algorithmName"], "medianstop")
        self.assertEqual((spec["maxTrialCount"], spec["parallelTrialCount"]), (20, 4))
        self.assertNotIn("trialTemplate", spec)
        self.assertEqual([p["name"] for p in spec["parameters"]], [p.name for p in SPACE])
        self.assertEqual(spec["parameters"][0]["feasibleSpace"]["distribution"], "logUniform")
        for trial in exp.suggest(count=20):
            p = trial.params
            self.assertTrue(1e-5 <= p["lr"] <= 1e-1)
            self.assertIs(type(p["lr"]), float)
            self.assertIn(round(p["momentum"], 9), [round(i / 10, 9) for i in range(10)])
            self.assertIs(type(p["layers"]), int)
            self.assertTrue(16 <= p["units"] <= 512)
            self.assertIn(p["batch"], range(32, 257, 32))
            self.assertIn(p["opt"], ("sgd", "adam"))
            self.assertIn(p["width"], (16, 32, 64))
            self.assertIs(type(p["width"]), int)
            self.assertIn(p["dropout"], (0.1, 0.25))

    def test_conditional_parameters_are_absent_when_inactive(self) -> None:
        exp = self.client.create_experiment(self.unique("conditional"), space=CONDITIONAL,
                                            algorithm="random",
                                            algorithm_settings={"random_state": 4},
                                            max_trials=12, parallel=12)
        self.assertEqual(exp.spec["parameters"][1]["parent"],
                         {"name": "optimizer", "values": ["sgd"]})
        trials = exp.suggest(count=12)
        for trial in trials:
            p = trial.params
            self.assertEqual("momentum" in p, p["optimizer"] == "sgd")
            self.assertEqual("beta1" in p, p["optimizer"] == "adam")
            self.assertEqual("width" in p, p["layers"] in (2, 3))
            trial.complete(objective=p.get("momentum", 0.5) + p["layers"])
        self.assertEqual({t.params["optimizer"] for t in trials}, {"sgd", "adam"})
        self.assertIsNotNone(exp.best_trial)
        try:
            import pandas  # noqa: F401  (optional: trials_dataframe needs it)
        except ImportError:
            self.skipTest("pandas is not installed: the data frame half is not checked")
        frame = exp.trials_dataframe()
        self.assertEqual(len(frame), 12)
        self.assertEqual(frame["momentum"].isna().sum(),
                         sum(t.params["optimizer"] != "sgd" for t in trials))

    def test_defaults_and_small_budgets(self) -> None:
        exp = self.client.create_experiment(self.unique("small"), space=[hpt.Float("x", 0, 1)],
                                            max_trials=1)
        self.assertEqual(exp.objective_metric, "objective")
        self.assertEqual(exp.objective_type, "minimize")
        self.assertEqual(exp.spec["algorithm"]["algorithmName"], "random")
        self.assertEqual(exp.spec["parallelTrialCount"], 1)  # not the default 3: 1 trial

    def test_argument_errors(self) -> None:
        with self.assertRaisesRegex(TypeError, "needs max_trials"):
            self.client.create_experiment("no-budget", space=SPACE)
        with self.assertRaisesRegex(TypeError, "go with space="):
            self.client.create_experiment({"name": "x"}, max_trials=3)
        with self.assertRaisesRegex(ValueError, "direction must be"):
            self.create("bad-direction", direction="up")
        with self.assertRaises(hpt.ApiError) as caught:  # the server's own checks
            self.create("bad-algorithm", algorithm="annealing")
        self.assertEqual(caught.exception.code, 400)
        self.assertIn("annealing", caught.exception.message)

    def test_load_if_exists_returns_the_same_experiment(self) -> None:
        name = self.unique("rerun")
        exp = self.create(name)
        exp.optimize(lambda t: t.params["lr"], n_trials=2, show_progress_bar=False)
        with self.assertRaises(hpt.ApiError) as caught:
            self.create(name)
        self.assertEqual(caught.exception.code, 409)
        for flag in ("load_if_exists", "exist_ok"):
            again = self.create(name, **{flag: True})
            self.assertEqual(again.name, name)
            self.assertEqual(len(again.trials()), 2)
        self.assertEqual([e.name for e in self.client.experiments()].count(name), 1)

    def test_load_if_exists_applies_new_limits(self) -> None:
        name = self.unique("limits")
        exp = self.create(name, max_trials=2)
        exp.optimize(lambda t: t.params["lr"], show_progress_bar=False)
        self.assertEqual(exp.phase, "Succeeded")
        again = self.create(name, max_trials=3, load_if_exists=True)
        self.assertEqual(again.spec["maxTrialCount"], 3)
        self.assertEqual(self.client.experiment(name).spec["maxTrialCount"], 3)
        again.optimize(lambda t: t.params["lr"], show_progress_bar=False)
        self.assertEqual(len(again.trials()), 3)

    def test_load_if_exists_names_what_differs(self) -> None:
        name = self.unique("differs")
        self.create(name)
        changed = [hpt.Float("lr", 1e-5, 1e-1)] + SPACE[1:2] + [hpt.Int("layers", 1, 9)] + SPACE[3:]
        with self.assertRaises(ValueError) as caught:
            self.create(name, space=changed, direction="minimize", early_stopping=None,
                        early_stopping_settings=None, algorithm_settings={"random_state": 12},
                        load_if_exists=True)
        message = str(caught.exception)
        self.assertIn(f"experiment '{name}' already exists with a different spec", message)
        for part in ("objective.type: maximize there, minimize here",
                     "algorithm.algorithmSettings.random_state: 11 there, 12 here",
                     "parameters[0].feasibleSpace.distribution: logUniform there, not set here",
                     "parameters[2].feasibleSpace.max: 8 there, 9 here",
                     "earlyStopping: medianstop there, not set here"):
            self.assertIn(part, message)
        with self.assertRaisesRegex(ValueError, r"parameters: \[lr, momentum, layers, units, "
                                                r"batch, opt, width, dropout\] there, \[lr\] here"):
            self.create(name, space=SPACE[:1], load_if_exists=True)

    def test_load_if_exists_with_dict_and_json_specs(self) -> None:
        spec = {"name": self.unique("dict"),
                "objective": {"type": "minimize", "objectiveMetricName": "loss"},
                "algorithm": {"algorithmName": "random"}, "maxTrialCount": 4,
                "parallelTrialCount": 2,
                "parameters": [{"name": "x", "parameterType": "double",
                                "feasibleSpace": {"min": "-5", "max": "5"}}],
                "metricsCollectorSpec": {"collector": {"kind": "Push"}}}
        first = self.client.create_experiment(spec, load_if_exists=True)
        self.assertEqual(self.client.create_experiment(spec, exist_ok=True).name, first.name)
        with tempfile.TemporaryDirectory() as d:
            path = pathlib.Path(d, "experiment.json")
            path.write_text(json.dumps(spec))
            self.assertEqual(self.client.create_experiment(path, exist_ok=True).name, first.name)
            path.with_suffix(".yaml").write_text(f"name: {spec['name']}\n")
            with self.assertRaisesRegex(TypeError, "reads no YAML"):
                self.client.create_experiment(path.with_suffix(".yaml"), exist_ok=True)


if __name__ == "__main__":
    unittest.main()
