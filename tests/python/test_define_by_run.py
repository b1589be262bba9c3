"""Define-by-run (trial.suggest_*) and Optuna's study API (create_study,
samplers, ask/tell, catch, callbacks) against a real `hpt serve`."""

import math
import unittest
import warnings
from typing import Any, List

import hpt
from hpt.trial import TrialState
from hpt_server import ServerTestCase


def quadratic(trial: "hpt.Trial") -> float:
    x = trial.suggest_float("x", -5, 5)
    k = trial.suggest_int("k", 1, 4)
    kind = trial.suggest_categorical("kind", ["a", "b"])
    return (x - 1) ** 2 + k + (0.5 if kind == "b" else 0)


class DefineByRunTest(ServerTestCase):

    def study(self, prefix: str, **kwargs: Any) -> "hpt.Study":
        kwargs.setdefault("sampler", hpt.samplers.RandomSampler(seed=3))
        return hpt.create_study(storage=self.client, study_name=self.unique(prefix), **kwargs)

    def test_parameters_join_the_space_typed_and_stored(self) -> None:
        study = self.study("join")
        study.optimize(quadratic, n_trials=6, show_progress_bar=False)
        study.refresh()
        params = {p["name"]: p for p in study.spec["parameters"]}
        self.assertEqual(set(params), {"x", "k", "kind"})
        self.assertTrue(all(p.get("definedByRun") for p in params.values()))
        self.assertEqual(params["kind"]["feasibleSpace"]["list"], ["a", "b"])
        trials = study.trials
        self.assertEqual(len(trials), 6)
        for t in trials:
            self.assertEqual(t.state, TrialState.COMPLETE)
            self.assertIsInstance(t.params["x"], float)
            self.assertIsInstance(t.params["k"], int)
            self.assertIn(t.params["kind"], ("a", "b"))
            self.assertTrue(-5 <= t.params["x"] <= 5 and 1 <= t.params["k"] <= 4)
            self.assertAlmostEqual(t.value, quadratic_value(t.params))
        # Another client reads the same types from the server.
        again = hpt.Client(self.server.url, token="").experiment(study.name)
        self.assertIsInstance(again.trials()[0].params["k"], int)

    def test_a_dynamic_depth_keeps_only_what_each_trial_asked_for(self) -> None:
        study = self.study("depth", sampler=hpt.samplers.TPESampler(seed=1, n_startup_trials=4))

        def objective(trial: "hpt.Trial") -> float:
            layers = trial.suggest_int("n_layers", 1, 3)
            units = [trial.suggest_int(f"units_{i}", 4, 64, log=True) for i in range(layers)]
            return sum(units) / 100 + layers

        study.optimize(objective, n_trials=14, show_progress_bar=False)
        trials = study.get_trials(states=[TrialState.COMPLETE])
        self.assertEqual(len(trials), 14)
        for t in trials:
            wanted = {"n_layers"} | {f"units_{i}" for i in range(t.params["n_layers"])}
            self.assertEqual(set(t.params), wanted, t.name)
        deep = [t for t in trials if t.params["n_layers"] == 3]
        self.assertTrue(deep, "no trial had 3 layers")
        # Past the startup trials TPE still suggests the dynamic parameters:
        # a trial gets every value from the algorithm, not from the prior.
        spec_names = {p["name"] for p in study.refresh().spec["parameters"]}
        self.assertEqual(spec_names, {"n_layers", "units_0", "units_1", "units_2"})

    def test_a_trial_that_failed_before_asking_keeps_no_values_it_never_used(self) -> None:
        study = self.study("early-fail")
        study.optimize(quadratic, n_trials=2, show_progress_bar=False)

        def fails(trial: "hpt.Trial") -> float:
            raise ValueError("before any suggest_*")

        study.optimize(fails, n_trials=1, catch=(ValueError,), show_progress_bar=False)
        failed = study.get_trials(states=[TrialState.FAIL])
        self.assertEqual(len(failed), 1)
        self.assertEqual(failed[0].params, {})

    def test_a_name_keeps_its_definition(self) -> None:
        study = self.study("redefine")
        trial = study.ask()
        trial.suggest_float("lr", 1e-4, 1e-1, log=True)
        self.assertEqual(trial.suggest_float("lr", 1e-4, 1e-1, log=True), trial.params["lr"])
        other = study.ask()
        with self.assertRaisesRegex(ValueError, r"parameter 'lr': defined as double .*"
                                    r"logUniform, asked for as double \[1e-04, 0.5\]"):
            other.suggest_float("lr", 1e-4, 0.5)
        with self.assertRaisesRegex(ValueError, "lr"):
            other.suggest_int("lr", 1, 3)
        self.assertEqual(other.suggest_float("lr", 1e-4, 1e-1, log=True), other.params["lr"])
        study.tell(trial, 1.0)
        study.tell(other, 2.0)

    def test_declared_and_defined_by_run_mix(self) -> None:
        exp = self.client.create_experiment(
            self.unique("mix"), space=[hpt.Float("x", 0, 1)], max_trials=5,
            algorithm="tpe", algorithm_settings={"random_state": 2})
        seen: List[Any] = []

        def objective(trial: "hpt.Trial") -> float:
            width = trial.suggest_int("width", 8, 32, step=8)
            seen.append((trial.params["x"], width))
            return trial.params["x"] + width / 100

        exp.optimize(objective, show_progress_bar=False)
        self.assertEqual(len(seen), 5)
        for t in exp.trials():
            self.assertEqual(set(t.params), {"x", "width"})
            self.assertIn(t.params["width"], (8, 16, 24, 32))

    def test_every_sampler_runs_a_define_by_run_objective(self) -> None:
        samplers = [hpt.samplers.TPESampler(seed=1, n_startup_trials=3),
                    hpt.samplers.TPESampler(seed=1, n_startup_trials=3, multivariate=True),
                    hpt.samplers.CmaEsSampler(seed=1), hpt.samplers.GPSampler(
                        seed=1, n_startup_trials=3), hpt.samplers.QMCSampler(seed=1),
                    hpt.samplers.RandomSampler(seed=1)]
        for sampler in samplers:
            with self.subTest(sampler=sampler):
                study = self.study("sampler", sampler=sampler)

                def objective(trial: "hpt.Trial") -> float:
                    return (trial.suggest_float("a", -2, 2) - 0.5) ** 2 + \
                        trial.suggest_float("b", 0.01, 1, log=True)

                study.optimize(objective, n_trials=8, show_progress_bar=False)
                self.assertEqual(len(study.get_trials(states=[TrialState.COMPLETE])), 8)
                self.assertEqual(study.spec["algorithm"]["algorithmName"], sampler.algorithm)
        nsga = self.study("nsga", sampler=hpt.samplers.NSGAIISampler(seed=1, population_size=4),
                          directions=["minimize", "maximize"])
        nsga.optimize(lambda t: (t.suggest_float("a", 0, 1), t.suggest_float("b", 0, 1)),
                      n_trials=10, show_progress_bar=False)
        self.assertTrue(nsga.best_trials)

    def test_grid_refuses_a_parameter_it_was_not_given(self) -> None:
        study = self.study("grid", sampler=hpt.samplers.GridSampler({"x": [1, 2, 3]}))
        trial = study.ask()
        self.assertIn(trial.suggest_categorical("x", [1, 2, 3]), (1, 2, 3))
        with self.assertRaisesRegex(ValueError, "grid"):
            trial.suggest_float("y", 0, 1)

    def test_ask_and_tell(self) -> None:
        study = self.study("asktell", direction="maximize")
        first = study.ask()
        study.tell(first, first.suggest_float("v", 0, 1))
        pruned = study.ask()
        pruned.suggest_float("v", 0, 1)
        pruned.report(0.1, 1)
        study.tell(pruned, state=TrialState.PRUNED)
        nan = study.ask()
        study.tell(nan.number, float("nan"))
        states = [t.state for t in study.trials]
        self.assertEqual(states[0], TrialState.COMPLETE)
        self.assertNotEqual(states[1], TrialState.RUNNING)
        self.assertEqual(states[2], TrialState.FAIL)
        self.assertEqual([t.number for t in study.get_trials(states=[TrialState.FAIL])], [2])
        self.assertEqual(study.best_trial.number, 0)
        self.assertEqual(study.direction, "maximize")
        with self.assertRaisesRegex(RuntimeError, "already"):
            study.tell(first, 1.0)

    def test_a_seeded_study_repeats_a_draw_from_the_prior(self) -> None:
        # Trial 0 is made before "v" joins the space, so "v" is drawn from
        # its prior: from the sampler's seed when it has one.
        drawn = []
        for prefix, seed in (("seeded", 3), ("again", 3), ("other", 4)):
            study = self.study(prefix, sampler=hpt.samplers.RandomSampler(seed=seed))
            drawn.append(study.ask().suggest_float("v", 0, 1))
        self.assertEqual(drawn[0], drawn[1])
        self.assertNotEqual(drawn[0], drawn[2])

    def test_catch_records_the_failure_and_goes_on(self) -> None:
        study = self.study("catch")
        calls = []

        def objective(trial: "hpt.Trial") -> float:
            x = trial.suggest_float("x", 0, 1)
            calls.append(x)
            if len(calls) % 2 == 0:
                raise ValueError("odd")
            return x if len(calls) != 5 else float("nan")

        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            study.optimize(objective, n_trials=12, catch=(ValueError,), show_progress_bar=False)
        self.assertEqual(len(calls), 12)  # a study has no failure budget, as Optuna's
        counts = study.status["trials"]
        self.assertEqual(counts["failed"], 7)  # 6 ValueErrors and the NaN
        self.assertEqual(counts["succeeded"], 5)

    def test_a_failure_budget_that_ends_the_run_says_so(self) -> None:
        exp = self.client.create_experiment(self.unique("budget"), space=[hpt.Float("x", 0, 1)],
                                            max_trials=10, max_failed=2)

        def objective(trial: "hpt.Trial") -> float:
            raise ValueError("always")

        with self.assertWarnsRegex(RuntimeWarning, r"optimize\(\) ended early: .*"
                                   r"MaxFailedTrialsReached.*maxFailedTrialCount is 2"):
            exp.optimize(objective, n_trials=10, catch=(ValueError,), show_progress_bar=False)

    def test_callbacks_and_study_stop(self) -> None:
        study = self.study("stop")
        ended: List[int] = []

        def callback(s: "hpt.Study", trial: "hpt.Trial") -> None:
            ended.append(trial.number)
            if len(ended) == 3:
                s.stop()

        study.optimize(quadratic, n_trials=10, callbacks=[callback], show_progress_bar=False)
        self.assertEqual(ended, [0, 1, 2])
        self.assertEqual(study.phase, "Running")  # the study stays open

    def test_a_samplers_constraints_func_reaches_every_trial(self) -> None:
        # Optuna's constraints_func: values <= 0 feasible; the best trial is
        # the best feasible one.
        sampler = hpt.samplers.TPESampler(seed=4, n_startup_trials=4,
                                          constraints_func=lambda t: [0.4 - t.params["x"]])
        study = self.study("constrained", sampler=sampler)
        study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=12,
                       show_progress_bar=False)
        for t in study.trials:
            self.assertEqual(t.constraints, [0.4 - t.params["x"]])
            self.assertEqual(t.feasible, t.params["x"] >= 0.4)
        self.assertGreaterEqual(study.best_trial.params["x"], 0.4)
        self.assertEqual(study.best_value, min(t.value for t in study.trials if t.feasible))

    def test_load_if_exists(self) -> None:
        name = self.unique("load")
        study = hpt.create_study(storage=self.client, study_name=name)
        study.optimize(quadratic, n_trials=2, show_progress_bar=False)
        again = hpt.create_study(storage=self.server.url, study_name=name, load_if_exists=True)
        self.assertEqual(len(again.trials), 2)
        with self.assertRaises(hpt.ApiError):
            hpt.create_study(storage=self.client, study_name=name)
        loaded = hpt.load_study(study_name=name, storage=self.server.url)
        self.assertEqual(loaded.best_trial.number, again.best_trial.number)


def quadratic_value(params: dict) -> float:
    return (params["x"] - 1) ** 2 + params["k"] + (0.5 if params["kind"] == "b" else 0)


class LocalStudyTest(unittest.TestCase):
    """create_study() with no storage starts one local server per process."""

    def test_default_storage_is_a_private_local_server(self) -> None:
        first = hpt.create_study(study_name="local-a")
        second = hpt.create_study(study_name="local-b", direction="maximize")
        self.assertEqual(first._client.url, second._client.url)
        first.optimize(quadratic, n_trials=3, show_progress_bar=False)
        self.assertTrue(math.isfinite(first.best_value))
        self.assertEqual(set(first.best_params), {"x", "k", "kind"})


if __name__ == "__main__":
    unittest.main()
