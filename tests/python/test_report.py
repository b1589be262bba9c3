"""hpt.report() from inside trials that hpt's runner starts (collector kind Push)."""

import os
import unittest
from typing import Any, Dict
from unittest import mock

import hpt
from hpt_server import PYTHON_CLIENT, ServerTestCase

TRIAL_CODE = ("import hpt, sys; x = float(sys.argv[1]); "
              "hpt.report(step=1, loss=0.5); hpt.report(step=2, loss=x * x)")


def runner_spec(name: str) -> Dict[str, Any]:
    return {
        "name": name,
        # latest: the trial's value is its last report (x * x), not its
        # best (Katib's default, min here, would be the first report's 0.5).
        "objective": {"type": "minimize", "objectiveMetricName": "loss",
                      "metricStrategies": [{"name": "loss", "value": "latest"}]},
        "algorithm": {"algorithmName": "random",
                      "algorithmSettings": [{"name": "random_state", "value": "5"}]},
        "parallelTrialCount": 2,
        "maxTrialCount": 3,
        "maxFailedTrialCount": 0,
        "parameters": [
            {"name": "x", "parameterType": "double", "feasibleSpace": {"min": "1", "max": "2"}},
        ],
        "trialTemplate": {
            "command": ["/usr/bin/python3", "-c", TRIAL_CODE, "${trialParameters.x}"],
            "trialParameters": [{"name": "x", "reference": "x"}],
            "env": {"PYTHONPATH": str(PYTHON_CLIENT)},
            "timeoutSeconds": 60,
        },
        "metricsCollectorSpec": {"collector": {"kind": "Push"}},
    }


class PushReportTest(ServerTestCase):

    def check_runs_to_the_end(self, name: str) -> None:
        exp = self.client.create_experiment(runner_spec(name))
        exp.wait(timeout=60, poll=0.2)
        trials = exp.trials()
        logs = "\n".join(f"--- {t.name} ({t.phase}):\n{t.logs()}" for t in trials)
        self.assertEqual(exp.phase, "Succeeded", logs)
        self.assertEqual(len(trials), 3, logs)
        for t in trials:
            self.assertEqual(t.phase, "Succeeded", logs)
            x = t.parameters["x"]
            self.assertAlmostEqual(t.objective_value, x * x)
            self.assertEqual(t.metrics["loss"]["min"], 0.5)
            self.assertEqual([(o["step"], o["metrics"]["loss"]) for o in t.observations()],
                             [(1, 0.5), (2, t.objective_value)])
        self.assertEqual(exp.best_trial.name,
                         min(trials, key=lambda t: t.parameters["x"]).name)

    def test_report_from_runner_run_trials(self) -> None:
        self.check_runs_to_the_end(self.unique("push"))

    def test_suggest_is_refused_for_runner_run_experiments(self) -> None:
        exp = self.client.create_experiment(runner_spec(self.unique("no-suggest")))
        with self.assertRaises(hpt.ApiError) as caught:
            exp.suggest()
        self.assertEqual(caught.exception.code, 409)
        exp.stop()

    def test_report_outside_a_trial(self) -> None:
        env = {k: v for k, v in os.environ.items()
               if k not in ("HPT_URL", "HPT_EXPERIMENT", "HPT_TRIAL")}
        with mock.patch.dict(os.environ, env, clear=True):
            self.assertFalse(hpt.in_trial())
            with self.assertRaisesRegex(RuntimeError, "HPT_URL, HPT_EXPERIMENT, HPT_TRIAL"):
                hpt.report(step=1, loss=0.5)

    def test_report_to_a_finished_trial_is_an_api_error(self) -> None:
        exp = self.client.create_experiment(runner_spec(self.unique("finished")))
        exp.wait(timeout=60, poll=0.2)
        trial = exp.trials()[0]
        env = {"HPT_URL": self.server.url, "HPT_EXPERIMENT": exp.name, "HPT_TRIAL": trial.name,
               "HPT_TOKEN": self.token or ""}
        with mock.patch.dict(os.environ, env):
            self.assertTrue(hpt.in_trial())
            with self.assertRaises(hpt.ApiError) as caught:
                hpt.report(step=9, loss=1.0)
        self.assertEqual(caught.exception.code, 409)
        self.assertIn("observations are taken only while it runs", caught.exception.message)


class PushReportWithTokenTest(PushReportTest):
    """The runner hands trials HPT_TOKEN; hpt.report() sends it."""
    token = "trial-token"


if __name__ == "__main__":
    unittest.main()
