"""hpt.report() from inside trials that hpt's runner starts (collector kind Push)."""

import http.server
import json
import os
import threading
import time
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


class ReportRetryTest(unittest.TestCase):
    """hpt.report() sends a call again while no server can take it (a
    server restarting, or a takeover between servers on one database), and
    only then. The server here is a plain HTTP server on port 0 that answers
    as told, standing in for one mid-takeover."""

    def serve(self, answers: "list[int]") -> str:
        """Starts a server that answers POSTs with `answers` in turn (the
        last one from then on); returns its URL. self.bodies: what came."""
        self.bodies: "list[bytes]" = []
        test = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                test.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
                code = answers[min(len(test.bodies), len(answers)) - 1]
                reply = b"{}" if code == 200 else json.dumps(
                    {"error": {"code": code, "status": "UNAVAILABLE",
                               "message": "the experiment's server did not answer"}}).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        return f"http://127.0.0.1:{server.server_address[1]}"

    def env(self, url: str, window: str) -> Dict[str, str]:
        return {"HPT_URL": url, "HPT_EXPERIMENT": "e", "HPT_TRIAL": "e-1",
                "HPT_REPORT_RETRY_SECONDS": window}

    def test_a_report_is_sent_again_until_a_server_takes_it(self) -> None:
        url = self.serve([503, 502, 200])
        with mock.patch.dict(os.environ, self.env(url, "30")):
            hpt.report(step=3, loss=0.25)
        self.assertEqual(len(self.bodies), 3)
        self.assertEqual(len(set(self.bodies)), 1, self.bodies)
        self.assertEqual(json.loads(self.bodies[0])["step"], 3)

    def test_a_refusal_is_not_sent_again(self) -> None:
        url = self.serve([409])
        with mock.patch.dict(os.environ, self.env(url, "30")):
            with self.assertRaises(hpt.ApiError) as caught:
                hpt.report(step=1, loss=0.5)
        self.assertEqual(caught.exception.code, 409)
        self.assertEqual(len(self.bodies), 1)

    def test_it_gives_up_after_the_window(self) -> None:
        url = self.serve([503])
        started = time.monotonic()
        with mock.patch.dict(os.environ, self.env(url, "0.5")):
            with self.assertRaises(hpt.ApiError) as caught:
                hpt.report(step=1, loss=0.5)
        self.assertEqual(caught.exception.code, 503)
        self.assertGreaterEqual(len(self.bodies), 2)
        self.assertLess(time.monotonic() - started, 5)

    def test_no_server_at_all_is_a_connection_error_after_the_window(self) -> None:
        url = self.serve([200])  # a port that was listening, then closed
        self.doCleanups()
        with mock.patch.dict(os.environ, self.env(url, "0.3")):
            with self.assertRaises(ConnectionError):
                hpt.report(step=1, loss=0.5)


if __name__ == "__main__":
    unittest.main()
