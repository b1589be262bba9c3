"""Experiment.optimize() and the Optuna-style trial calls against a real
`hpt serve`: trial counts, threads, report(value, step), pruning, failures,
timeout and the progress display."""

import io
import sys
import threading
import time
import unittest
from typing import Any, Dict, List

import hpt
from hpt_server import ServerTestCase

SPACE = [hpt.Float("x", -5, 5), hpt.Float("y", -5, 5)]


def quadratic(trial: "hpt.Trial") -> float:
    return (trial.params["x"] - 1.0) ** 2 + (trial.params["y"] + 2.0) ** 2


class _TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


class OptimizeTest(ServerTestCase):

    def create(self, prefix: str, max_trials: int = 10, **kwargs: Any) -> "hpt.Experiment":
        kwargs.setdefault("space", SPACE)
        kwargs.setdefault("algorithm_settings", {"random_state": 5})
        return self.client.create_experiment(self.unique(prefix), max_trials=max_trials,
                                             **kwargs)

    def test_n_jobs_above_parallel_trial_count_says_so_and_resume_raises_it(self) -> None:
        # parallelTrialCount defaults to 3: n_jobs=4 ran 3 at a time, silently.
        exp = self.create("four", max_trials=8)
        self.assertEqual(exp.spec["parallelTrialCount"], 3)
        with self.assertWarnsRegex(RuntimeWarning, r"runs at most 3 trials at once.*"
                                   r"exp\.resume\(parallel=4\)"):
            exp.optimize(quadratic, n_trials=4, n_jobs=4, show_progress_bar=False)
        exp.resume(parallel=4)
        barrier = threading.Barrier(4, timeout=20)

        def objective(trial: "hpt.Trial") -> float:
            barrier.wait()  # broken unless four trials run at once
            return quadratic(trial)

        exp.optimize(objective, n_trials=4, n_jobs=4, show_progress_bar=False)
        exp.refresh()
        self.assertEqual(exp.status["trials"]["succeeded"], 8)

    def test_n_trials_in_two_threads_finds_the_best(self) -> None:
        exp = self.create("jobs", max_trials=30)
        seen: Dict[str, float] = {}
        threads, active, most = set(), [0], [0]
        lock = threading.Lock()

        def objective(trial: "hpt.Trial") -> float:
            with lock:
                threads.add(threading.current_thread().name)
                active[0] += 1
                most[0] = max(most[0], active[0])
            time.sleep(0.05)  # long enough for the other thread to start one
            with lock:
                active[0] -= 1
                seen[trial.name] = quadratic(trial)
            return seen[trial.name]

        exp.optimize(objective, n_trials=12, n_jobs=2, show_progress_bar=False)
        trials = exp.trials()
        self.assertEqual(len(trials), 12)
        self.assertEqual(len(seen), 12)
        self.assertEqual(len(threads), 2)
        self.assertEqual(most[0], 2)
        self.assertTrue(all(t.phase == "Succeeded" for t in trials))
        best = exp.best_trial
        self.assertEqual(best.name, min(seen, key=seen.get))
        self.assertAlmostEqual(best.objective_value, min(seen.values()))
        self.assertLess(best.objective_value, 3.0)  # random_state 5: 12 points, one near (1, -2)
        self.assertEqual(exp.status["phase"], "Running")  # 18 of 30 left

    def test_without_n_trials_it_uses_the_budget(self) -> None:
        exp = self.create("budget", max_trials=5, direction="maximize")
        exp.optimize(lambda t: -quadratic(t), n_jobs=3, show_progress_bar=False)
        self.assertEqual(exp.status["trials"]["succeeded"], 5)
        self.assertEqual(exp.phase, "Succeeded")
        exp.optimize(quadratic, show_progress_bar=False)  # nothing left: returns at once
        self.assertEqual(len(exp.trials()), 5)
        exp.resume(max_trials=7)
        exp.optimize(lambda t: -quadratic(t), show_progress_bar=False)
        self.assertEqual(len(exp.trials()), 7)
        best = max(exp.trials(), key=lambda t: t.objective_value)
        self.assertEqual(exp.best_trial.name, best.name)

    def test_report_value_step_and_named_metrics(self) -> None:
        exp = self.create("report", max_trials=2, objective="accuracy", direction="maximize")

        def objective(trial: "hpt.Trial") -> float:
            for step in (0, 2, 5):
                trial.report(0.5 + step / 10, step)      # Optuna's order
            trial.report(0.9, step=7, f1=0.8)            # the objective and more
            trial.report(8, f1=0.85)                     # the old form: step, metrics
            trial.report(step=9, accuracy=0.95)          # and its keyword form
            return {"accuracy": 0.97, "f1": 0.9}         # the objective and more

        exp.optimize(objective, n_trials=1, show_progress_bar=False)
        (trial,) = exp.trials()
        observations = trial.observations()
        steps = [(o["step"], o["metrics"]) for o in observations]
        self.assertEqual(steps[:6], [(0, {"accuracy": 0.5}), (2, {"accuracy": 0.7}),
                                     (5, {"accuracy": 1.0}),
                                     (7, {"accuracy": 0.9, "f1": 0.8}), (8, {"f1": 0.85}),
                                     (9, {"accuracy": 0.95})])
        self.assertEqual(observations[-1]["metrics"], {"accuracy": 0.97, "f1": 0.9})
        self.assertEqual(trial.objective_value, 0.97)
        self.assertEqual(trial.params, trial.parameters)
        with self.assertRaises(TypeError):
            exp.suggest()[0].report(0.9, 1, accuracy=0.8)  # the objective twice

    def test_pruned_after_the_policys_advice_is_early_stopped(self) -> None:
        exp = self.create("prune", max_trials=4, objective="loss", early_stopping="medianstop",
                          early_stopping_settings={"min_trials_required": 2, "start_step": 2})
        verdicts: Dict[str, List[bool]] = {}

        def objective(trial: "hpt.Trial") -> float:
            bad = len(verdicts) == 2  # the third trial does badly from the start
            verdicts[trial.name] = []
            for step in range(1, 6):
                trial.report(5.0 if bad else 1.0, step)
                verdicts[trial.name].append(trial.should_prune())
                if verdicts[trial.name][-1]:
                    raise hpt.Pruned()
            return 1.0

        exp.optimize(objective, show_progress_bar=False)
        trials = exp.trials()
        self.assertEqual([t.phase for t in trials],
                         ["Succeeded", "Succeeded", "EarlyStopped", "Succeeded"])
        pruned = trials[2]
        self.assertEqual(verdicts[pruned.name], [False, True])
        self.assertEqual([o["step"] for o in pruned.observations()], [1, 2])
        self.assertEqual(pruned.objective_value, 5.0)
        self.assertIn("median", pruned.raw["message"])
        self.assertEqual(exp.status["trials"]["earlyStopped"], 1)

    def test_pruned_without_advice(self) -> None:
        # No early-stopping policy: the server has no way to end the trial
        # EarlyStopped, so it ends with its last value, or Killed without one.
        exp = self.create("prune-own", max_trials=2)

        def objective(trial: "hpt.Trial") -> float:
            if trial.index == 1:
                trial.report(3.5, 1)
            raise hpt.Pruned()

        exp.optimize(objective, show_progress_bar=False)
        first, second = exp.trials()
        self.assertEqual((first.phase, first.objective_value), ("Succeeded", 3.5))
        self.assertEqual((second.phase, second.objective_value), ("Killed", None))

    def test_an_exception_fails_the_trial_and_is_raised(self) -> None:
        exp = self.create("raise", max_trials=4)

        def objective(trial: "hpt.Trial") -> float:
            trial.report(1.0, 1)
            raise ValueError(f"diverged at x={trial.params['x']:.3f}")

        with self.assertRaisesRegex(ValueError, "diverged"):
            exp.optimize(objective, n_trials=3, n_jobs=2, show_progress_bar=False)
        trials = exp.trials()
        self.assertIn(len(trials), (1, 2))  # the other thread may have started one
        for t in trials:
            self.assertEqual(t.phase, "Failed")
            self.assertEqual(t.raw["message"], f"ValueError: diverged at x={t.params['x']:.3f}")

    def test_ctrl_c_with_threads_ends_the_running_trials(self) -> None:
        """Workers are daemon threads, killed mid-trial when the interpreter
        exits: their trials used to stay Running, holding the slots."""
        import _thread
        exp = self.create("interrupt", max_trials=6)
        started, release = threading.Semaphore(0), threading.Event()

        def objective(trial: "hpt.Trial") -> float:
            started.release()
            release.wait(30)
            return 1.0

        def interrupt() -> None:
            started.acquire()
            started.acquire()
            _thread.interrupt_main()

        threading.Thread(target=interrupt, daemon=True).start()
        with self.assertRaises(KeyboardInterrupt):
            exp.optimize(objective, n_trials=4, n_jobs=2, show_progress_bar=False)
        phases = {t.name: (t.phase, t.raw.get("message", "")) for t in exp.trials()}
        release.set()
        self.assertEqual(len(phases), 2, phases)
        for phase, message in phases.values():
            self.assertEqual(phase, "Failed", phases)
            self.assertIn("optimize() was interrupted", message)

    def test_catch_goes_on_and_bad_values_fail_with_a_warning(self) -> None:
        exp = self.create("catch", max_trials=5, max_failed=5)
        returns = iter([float("nan"), "low", None, {"f1": 0.5}])

        def objective(trial: "hpt.Trial") -> Any:
            if trial.index == 1:
                raise KeyError("missing")
            return next(returns)

        with self.assertWarns(RuntimeWarning):
            exp.optimize(objective, catch=(KeyError,), show_progress_bar=False)
        messages = [t.raw["message"] for t in exp.trials()]
        self.assertEqual([t.phase for t in exp.trials()], ["Failed"] * 5)
        self.assertEqual(messages[0], "KeyError: 'missing'")
        self.assertIn("returned nan", messages[1])
        self.assertIn("returned 'low'", messages[2])
        self.assertIn("returned None and reported no 'objective'", messages[3])
        self.assertIn("returned {'f1': 0.5}: metrics: the objective metric 'objective' was not "
                      "reported", messages[4])

    def test_timeout_stops_asking(self) -> None:
        exp = self.create("timeout", max_trials=50)
        started = time.monotonic()
        exp.optimize(lambda t: time.sleep(0.1) or quadratic(t), timeout=0.35,
                     show_progress_bar=False)
        self.assertLess(time.monotonic() - started, 5.0)
        self.assertIn(len(exp.trials()), range(1, 6))  # about 4 of the 50
        self.assertTrue(all(t.phase == "Succeeded" for t in exp.trials()))

    def test_progress_lines_and_bar(self) -> None:
        exp = self.create("progress", max_trials=3)
        saved = sys.stderr
        try:
            sys.stderr = plain = io.StringIO()
            exp.optimize(quadratic, n_trials=2)
            sys.stderr = tty = _TTY()
            exp.optimize(quadratic, n_trials=5)  # 1 left in the budget
            sys.stderr = silent = _TTY()
            exp.optimize(quadratic, show_progress_bar=False)
        finally:
            sys.stderr = saved
        lines = plain.getvalue().splitlines()
        self.assertEqual(len(lines), 3)
        self.assertRegex(lines[0], r"^\[1/2\] progress-\d+-1 Succeeded objective=[\d.]+  x=")
        self.assertRegex(lines[2], r"^progress-\d+: 2 trials in [\d.]+ s \(2 Succeeded\); best ")
        self.assertNotIn("\r", plain.getvalue())
        self.assertRegex(tty.getvalue(), r"^\rprogress-\d+ \|#{20}\| 1/1 0:00  best ")
        self.assertIn("(MaxTrialsReached): no more trials", tty.getvalue())
        self.assertTrue(tty.getvalue().endswith("\n"))
        self.assertEqual(silent.getvalue(), "")


if __name__ == "__main__":
    unittest.main()
