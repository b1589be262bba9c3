"""The Python client on a shared server: an API key, a namespace, the
permission errors, and hpt.report() from trials the server runs in a
namespace."""

import os
import unittest
from typing import Any, Dict
from unittest import mock

import hpt
from hpt_server import ServerTestCase
from test_client import quadratic_spec
from test_report import runner_spec


class TenancyTest(ServerTestCase):

    token = "admin-token-for-the-python-tenancy-test"

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        admin = cls.client._transport
        for ns in ("team-a", "team-b"):
            admin.request("POST", "/api/v1/namespaces", {"name": ns})
        cls.member_key = cls.make_user("ann", {"team-a": "member"})
        cls.viewer_key = cls.make_user("vic", {"team-a": "viewer"})

    @classmethod
    def make_user(cls, name: str, roles: Dict[str, str]) -> str:
        made = cls.client._transport.request("POST", "/api/v1/users",
                                              {"name": name, "roles": roles})
        return made["apiKey"]

    def member(self) -> hpt.Client:
        return hpt.Client(self.server.url, api_key=self.member_key, namespace="team-a")

    def test_a_member_works_in_her_namespace(self) -> None:
        ann = self.member()
        self.assertEqual(ann.whoami(), {"name": "ann", "admin": False,
                                        "roles": {"team-a": "member"}})
        name = self.unique("ns-exp")
        exp = ann.create_experiment(quadratic_spec(name, max_trials=2))
        self.assertEqual(exp.namespace, "team-a")
        trial = exp.suggest(count=1)[0]
        trial.complete(loss=1.5)
        self.assertEqual(ann.experiment(name).trials()[0].objective_value, 1.5)
        self.assertIn(name, [e.name for e in ann.experiments()])
        # The admin sees it in team-a, not in default.
        self.assertNotIn(name, [e.name for e in self.client.experiments()])
        admin_a = hpt.Client(self.server.url, token=self.token, namespace="team-a")
        self.assertIn(name, [e.name for e in admin_a.experiments()])
        exp.stop()
        exp.delete()

    def test_outside_her_namespaces_is_as_if_absent(self) -> None:
        ann = hpt.Client(self.server.url, api_key=self.member_key, namespace="team-b")
        with self.assertRaises(hpt.ApiError) as caught:
            ann.experiments()
        self.assertEqual(caught.exception.code, 404)

    def test_a_viewer_reads_but_cannot_create(self) -> None:
        name = self.unique("viewed")
        self.member().create_experiment(quadratic_spec(name, max_trials=1, parallel=1))
        vic = hpt.Client(self.server.url, api_key=self.viewer_key, namespace="team-a")
        self.assertEqual(vic.experiment(name).namespace, "team-a")
        with self.assertRaises(hpt.PermissionDenied) as caught:
            vic.create_experiment(quadratic_spec(self.unique("refused")))
        self.assertEqual(caught.exception.code, 403)
        self.assertIsInstance(caught.exception, hpt.ApiError)
        self.assertIn("viewer", caught.exception.message)
        with self.assertRaises(hpt.PermissionDenied):
            vic.experiment(name).stop()

    def test_an_unknown_key_is_unauthenticated(self) -> None:
        stranger = hpt.Client(self.server.url, api_key="hpt_" + "0" * 64, namespace="team-a")
        with self.assertRaises(hpt.Unauthenticated) as caught:
            stranger.experiments()
        self.assertEqual(caught.exception.code, 401)

    def test_the_environment_gives_the_key_and_the_namespace(self) -> None:
        env = {"HPT_API_KEY": self.member_key, "HPT_NAMESPACE": "team-a",
               "HPT_URL": self.server.url}
        with mock.patch.dict(os.environ, env):
            os.environ.pop("HPT_TOKEN", None)
            client = hpt.Client()
            self.assertEqual(client.namespace, "team-a")
            self.assertEqual(client.whoami()["name"], "ann")
        with mock.patch.dict(os.environ, {"HPT_NAMESPACE": "Not A Label"}):
            with self.assertRaisesRegex(ValueError, "'Not A Label' is not a namespace name"):
                hpt.Client(self.server.url, token=self.token)
        with self.assertRaises(TypeError):
            hpt.Client(self.server.url, token=self.token, api_key=self.member_key)

    def test_report_from_trials_in_a_namespace(self) -> None:
        exp = self.member().create_experiment(runner_spec(self.unique("ns-push")))
        exp.wait(timeout=60, poll=0.2)
        trials = exp.trials()
        logs = "\n".join(f"--- {t.name} ({t.phase}):\n{t.logs()}" for t in trials)
        self.assertEqual(exp.phase, "Succeeded", logs)
        for t in trials:
            self.assertEqual([o["step"] for o in t.observations()], [1, 2], logs)
            self.assertAlmostEqual(t.objective_value, t.parameters["x"] ** 2)


if __name__ == "__main__":
    unittest.main()
