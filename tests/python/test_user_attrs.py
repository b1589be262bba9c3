"""Optuna's user attributes through a real `hpt serve` (#33):
trial.set_user_attr / trial.user_attrs, study (experiment) set_user_attr /
user_attrs, and trials_dataframe()'s user_attrs_<key> columns."""

import os
import unittest
from unittest import mock

import hpt
from hpt_server import PYTHON_CLIENT, ServerTestCase
from test_client import quadratic_spec

# A trial hpt's runner starts sets its own attribute with its own token.
TRIAL_CODE = ("import hpt, sys; hpt.set_user_attr('x_seen', float(sys.argv[1])); "
              "hpt.set_user_attr('host', {'name': 'node-7', 'gpus': [0, 1]}); print('loss=1')")


class UserAttrsTest(ServerTestCase):

    def test_trial_attrs_are_stored_merged_and_read_back(self) -> None:
        exp = self.client.create_experiment(quadratic_spec(self.unique("attrs"), 4, 2))
        first, second = exp.suggest(count=2)
        self.assertEqual(first.user_attrs, {})
        first.set_user_attr("fold", 3)
        first.set_user_attr("note", "<b>text</b>")
        first.set_user_attr("flags", {"early": True, "none": None, "list": [1, 2.5, "x"]})
        first.set_user_attr("fold", 4)  # over the old value
        expected = {"fold": 4, "note": "<b>text</b>",
                    "flags": {"early": True, "none": None, "list": [1, 2.5, "x"]}}
        self.assertEqual(first.user_attrs, expected)
        # Another handle on the same trial reads them from the server.
        self.assertEqual(exp.trial(first.name).user_attrs, expected)
        first.complete(loss=1.0)
        self.assertEqual(first.user_attrs, expected)
        self.assertEqual({t.name: t.user_attrs for t in exp.trials()},
                         {first.name: expected, second.name: {}})
        # user_attrs is a copy: changing it changes nothing stored.
        first.user_attrs["fold"] = 99
        self.assertEqual(first.refresh().user_attrs["fold"], 4)

        with self.assertRaisesRegex(TypeError, "the key must be a str"):
            first.set_user_attr(1, "x")  # type: ignore[arg-type]
        with self.assertRaises(hpt.ApiError) as caught:
            second.set_user_attr("big", "x" * 70000)
        self.assertEqual(caught.exception.code, 400)
        self.assertIn("userAttrs: at most 65536 bytes", str(caught.exception))
        self.assertEqual(second.refresh().user_attrs, {})

    def test_experiment_attrs(self) -> None:
        exp = self.client.create_experiment(quadratic_spec(self.unique("study-attrs")))
        self.assertEqual(exp.user_attrs, {})
        exp.set_user_attr("dataset", "mnist")
        exp.set_user_attr("seeds", [1, 2, 3])
        self.assertEqual(exp.user_attrs, {"dataset": "mnist", "seeds": [1, 2, 3]})
        again = self.client.experiment(exp.name)
        self.assertEqual(again.user_attrs, {"dataset": "mnist", "seeds": [1, 2, 3]})
        # Limits still change as before beside them.
        exp.resume(max_trials=8)
        self.assertEqual(exp.spec["maxTrialCount"], 8)
        self.assertEqual(exp.user_attrs, {"dataset": "mnist", "seeds": [1, 2, 3]})

    def test_trials_dataframe_has_a_column_per_attr(self) -> None:
        try:
            import pandas as pd
        except ImportError:
            self.skipTest("pandas is not installed")
        exp = self.client.create_experiment(quadratic_spec(self.unique("attrs-frame"), 3, 3))
        trials = exp.suggest(count=3)
        trials[0].set_user_attr("fold", 1)
        trials[2].set_user_attr("fold", 3)
        trials[2].set_user_attr("tag", "last")
        for t in trials:
            t.complete(loss=float(t.index), acc=0.5)
        df = exp.trials_dataframe()
        self.assertEqual([c for c in df.columns if c.startswith("user_attrs_")],
                         ["user_attrs_fold", "user_attrs_tag"])
        by_name = df.set_index("name")
        self.assertEqual(by_name.loc[trials[0].name, "user_attrs_fold"], 1)
        self.assertTrue(pd.isna(by_name.loc[trials[1].name, "user_attrs_fold"]))
        self.assertEqual(by_name.loc[trials[2].name, "user_attrs_tag"], "last")


class RunnerTrialAttrsTest(ServerTestCase):
    """With a server token: the trial's own HPT_TOKEN is what lets it in."""

    token = "attrs-test-token"

    def test_a_runner_run_trial_sets_its_own_attrs(self) -> None:
        exp = self.client.create_experiment({
            "name": self.unique("runner-attrs"),
            "objective": {"type": "minimize", "objectiveMetricName": "loss"},
            "algorithm": {"algorithmName": "random"},
            "parallelTrialCount": 2, "maxTrialCount": 2, "maxFailedTrialCount": 0,
            "parameters": [{"name": "x", "parameterType": "double",
                            "feasibleSpace": {"min": "1", "max": "2"}}],
            "trialTemplate": {
                "command": ["/usr/bin/python3", "-c", TRIAL_CODE, "${trialParameters.x}"],
                "trialParameters": [{"name": "x", "reference": "x"}],
                "env": {"PYTHONPATH": str(PYTHON_CLIENT)},
            },
        })
        exp.wait(timeout=60, poll=0.2)
        trials = exp.trials()
        logs = "\n".join(f"--- {t.name}:\n{t.logs()}" for t in trials)
        self.assertEqual(exp.phase, "Succeeded", logs)
        for t in trials:
            self.assertEqual(t.user_attrs, {"x_seen": t.parameters["x"],
                                            "host": {"name": "node-7", "gpus": [0, 1]}}, logs)

    def test_outside_a_trial(self) -> None:
        env = {k: v for k, v in os.environ.items()
               if k not in ("HPT_URL", "HPT_EXPERIMENT", "HPT_TRIAL")}
        with mock.patch.dict(os.environ, env, clear=True):
            with self.assertRaisesRegex(RuntimeError, "runs inside a trial started by hpt's runner"):
                hpt.set_user_attr("a", 1)


if __name__ == "__main__":
    unittest.main()
