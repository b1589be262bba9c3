"""hpt.Categorical with Optuna's choices (issue 33): None, bools, ints,
floats, strings and mixes of them come back from a real `hpt serve`
exactly as given (value and type), through suggest, enqueue_trial,
add_trial and an experiment loaded by another Client."""

import unittest

import hpt
from hpt_server import ServerTestCase

SPACE = [
    hpt.Categorical("class_weight", [None, "balanced"]),
    hpt.Categorical("bootstrap", [True, False]),
    hpt.Categorical("rate", [0.1, 1, 10]),
    hpt.Categorical("mixed", [1, "a", None, 2.5]),
    hpt.Categorical("whole", [1.0, 2.0]),
]
CHOICES = {p.name: p.choices for p in SPACE}


def same_choice(value: object, choices: list) -> bool:
    """value is one of choices, of the same type (True is not 1, 1.0 not 1)."""
    return any(value is c or (type(value) is type(c) and value == c) for c in choices)


class CategoricalChoicesTest(unittest.TestCase):

    def test_the_spec_lists_the_choices_as_given(self) -> None:
        specs = {p.name: (p.to_spec()["parameterType"], p.to_spec()["feasibleSpace"]["list"])
                 for p in SPACE}
        self.assertEqual(specs["class_weight"], ("categorical", [None, "balanced"]))
        self.assertEqual(specs["bootstrap"], ("categorical", [True, False]))
        self.assertEqual(specs["rate"], ("discrete", [0.1, 1, 10]))
        self.assertEqual(specs["mixed"], ("categorical", [1, "a", None, 2.5]))

    def test_choices_that_read_the_same_are_refused(self) -> None:
        for choices in ([1, 1.0], [None, "null"], [True, "true"], [1, "1"]):
            with self.assertRaisesRegex(ValueError, "choices must differ as text"):
                hpt.Categorical("c", choices)
        with self.assertRaisesRegex(TypeError, "must be None, bool, int, float or str, not list"):
            hpt.Categorical("c", [[1]])
        with self.assertRaisesRegex(ValueError, "must be finite"):
            hpt.Categorical("c", [float("inf")])
        self.assertEqual(hpt.Categorical("c", [True, 1]).parameter_type, "categorical")


class CategoricalThroughTheServerTest(ServerTestCase):

    def create(self, name: str, space: list = SPACE, **kwargs: object) -> "hpt.Experiment":
        return self.client.create_experiment(
            name, space=space, objective="loss", algorithm="random",
            algorithm_settings={"random_state": 3}, max_trials=40, parallel=40, **kwargs)

    def assertChoices(self, params: dict) -> None:
        self.assertEqual(set(params), set(CHOICES))
        for name, value in params.items():
            self.assertTrue(same_choice(value, CHOICES[name]), f"{name}: {value!r}")

    def test_trials_get_exactly_the_choices(self) -> None:
        exp = self.create(self.unique("typed"))
        seen = {name: set() for name in CHOICES}
        for trial in exp.suggest(count=40):
            self.assertChoices(trial.params)
            for name, value in trial.params.items():
                seen[name].add(repr(value))
        # Every choice turns up in 40 random trials, each with its type.
        self.assertEqual(seen["class_weight"], {"None", "'balanced'"})
        self.assertEqual(seen["bootstrap"], {"True", "False"})
        self.assertEqual(seen["rate"], {"0.1", "1", "10"})
        self.assertEqual(seen["mixed"], {"1", "'a'", "None", "2.5"})
        self.assertEqual(seen["whole"], {"1.0", "2.0"})

    def test_another_client_reads_the_types_from_the_server(self) -> None:
        name = self.unique("other")
        exp = self.create(name)
        mine = {t.name: t.params for t in exp.suggest(count=10)}
        other = hpt.Client(self.server.url, token="").experiment(name)
        theirs = {t.name: t.params for t in other.trials()}
        self.assertEqual(set(theirs), set(mine))
        for trial_name, params in theirs.items():
            self.assertChoices(params)
            for key, value in params.items():
                self.assertIs(type(value), type(mine[trial_name][key]))
                self.assertEqual(value, mine[trial_name][key])

    def test_enqueue_and_add_trial_take_typed_values(self) -> None:
        exp = self.create(self.unique("warm"))
        wanted = {"class_weight": None, "bootstrap": False, "rate": 1, "mixed": None,
                  "whole": 2}
        exp.enqueue_trial(wanted)
        first = exp.suggest(count=1)[0].params
        self.assertIsNone(first["class_weight"])
        self.assertIs(first["bootstrap"], False)
        self.assertIs(type(first["rate"]), int)
        self.assertEqual(first["rate"], 1)
        self.assertIsNone(first["mixed"])
        self.assertIs(type(first["whole"]), float)  # the listed 2.0
        # The same configuration spelt with other types of equal value.
        skipped = exp.enqueue_trial(dict(wanted, rate=1.0, whole=2.0), skip_if_exists=True)
        self.assertEqual(skipped["skipped"], 1)

        added = exp.add_trial({"class_weight": "balanced", "bootstrap": True, "rate": 0.1,
                               "mixed": 2.5, "whole": 1.0}, value=0.5)
        self.assertEqual(added.params["class_weight"], "balanced")
        self.assertIs(added.params["bootstrap"], True)
        self.assertIs(type(added.params["mixed"]), float)
        with self.assertRaises(hpt.ApiError) as refused:
            exp.enqueue_trial(dict(wanted, bootstrap="yes"))
        self.assertIn("bootstrap: 'yes' is not one of true, false", str(refused.exception))

    def test_conditions_on_typed_choices_and_load_if_exists(self) -> None:
        space = SPACE + [hpt.Float("w", 0, 1, parent=("mixed", [None, 2.5]))]
        name = self.unique("cond")
        exp = self.create(name, space)
        again = self.create(name, space, load_if_exists=True)  # the stored spec matches
        self.assertEqual(again.name, exp.name)
        trials = exp.suggest(count=40)
        self.assertEqual(len(trials), 40)
        for trial in trials:
            mixed = trial.params["mixed"]
            self.assertEqual("w" in trial.params, mixed is None or mixed == 2.5, trial.params)

    def test_a_spec_with_duplicate_choices_is_a_400_naming_the_field(self) -> None:
        spec = {"name": self.unique("dup"),
                "objective": {"type": "minimize", "objectiveMetricName": "loss"},
                "algorithm": {"algorithmName": "random"}, "maxTrialCount": 3,
                "parameters": [{"name": "c", "parameterType": "categorical",
                                "feasibleSpace": {"list": [None, "balanced", "null"]}}]}
        with self.assertRaises(hpt.ApiError) as refused:
            self.client.create_experiment(spec)
        self.assertEqual(refused.exception.code, 400)
        self.assertIn("parameters[0].feasibleSpace.list[2]: 'null' is listed twice",
                      str(refused.exception))


if __name__ == "__main__":
    unittest.main()
