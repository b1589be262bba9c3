"""#33, finding 1, in the Python client: trials that print `val_loss` while
the objective is `loss` are said once, while the experiment runs, with the
name they printed: Experiment.warnings and a RuntimeWarning from wait()."""

import unittest
import warnings
from typing import Any, Dict

from hpt_server import ServerTestCase


def wrong_metric_spec(name: str) -> Dict[str, Any]:
    return {
        "name": name,
        "objective": {"type": "minimize", "objectiveMetricName": "loss"},
        "algorithm": {"algorithmName": "random"},
        "parallelTrialCount": 1,
        "maxTrialCount": 4,
        "maxFailedTrialCount": 2,
        "parameters": [
            {"name": "x", "parameterType": "double", "feasibleSpace": {"min": "0", "max": "1"}},
        ],
        "trialTemplate": {
            "command": ["sh", "-c", "echo val_loss=${trialParameters.x}"],
            "trialParameters": [{"name": "x", "reference": "x"}],
        },
    }


class MetricsWarningTest(ServerTestCase):

    def test_wait_warns_once_with_the_name_the_trials_printed(self) -> None:
        name = self.unique("mu")
        exp = self.client.create_experiment(wrong_metric_spec(name))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exp.wait(timeout=60, poll=0.1)
        self.assertEqual(exp.phase, "Failed")
        said = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
        self.assertEqual(len(said), 1, said)
        self.assertIn(f"experiment {name}: ", said[0])
        self.assertIn(f"did not report the objective metric 'loss': {name}-1 reported none; "
                      "other names with a number: val_loss; did you mean 'val_loss'?", said[0])
        self.assertEqual(len(exp.warnings), 1)
        self.assertIn("3 trials did not report the objective metric 'loss'", exp.warnings[0])

    def test_no_warning_without_such_trials(self) -> None:
        spec = wrong_metric_spec(self.unique("fine"))
        spec["trialTemplate"]["command"] = ["sh", "-c", "echo loss=${trialParameters.x}"]
        exp = self.client.create_experiment(spec)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exp.wait(timeout=60, poll=0.1)
        self.assertEqual(exp.phase, "Succeeded")
        self.assertEqual([w for w in caught if issubclass(w.category, RuntimeWarning)], [])
        self.assertEqual(exp.warnings, [])


if __name__ == "__main__":
    unittest.main()
