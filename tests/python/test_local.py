"""hpt.local(): a private `hpt serve` started, used and stopped. The wheel
that carries the binary: test_wheel.py."""

import os
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

import hpt
from hpt_server import PYTHON_CLIENT, binary


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


class LocalTest(unittest.TestCase):

    def test_with_block_starts_and_stops_the_server(self) -> None:
        with hpt.local(binary=binary(), args=["--gpus", "none"]) as client:
            self.assertIsInstance(client, hpt.Client)
            self.assertEqual(client.health()["status"], "ok")
            self.assertRegex(client.url, r"^http://127\.0\.0\.1:\d+$")
            exp = client.create_experiment("local", space=[hpt.Float("x", 0, 1)], max_trials=2)
            exp.optimize(lambda t: t.params["x"], show_progress_bar=False)
            self.assertEqual(exp.phase, "Succeeded")
            pid, folder = client.pid, os.path.dirname(client.db)
            self.assertFalse(gone(pid))
        self.assertTrue(gone(pid))
        self.assertFalse(os.path.exists(folder))
        self.assertIsNone(client.pid)
        self.assertIn("stopped", repr(client))
        with self.assertRaises(ConnectionError):
            client.experiments()

    def test_warnings_before_the_url_line_do_not_stop_the_start(self) -> None:
        # `hpt serve` warns first about a token file others may read, then
        # names its URL; hpt.local() read the first line only.
        with tempfile.TemporaryDirectory() as d:
            token = os.path.join(d, "token")
            with open(token, "w") as f:
                f.write("local-token\n")
            os.chmod(token, 0o644)
            with hpt.local(binary=binary(), args=["--gpus", "none", "--token-file", token]) as c:
                self.assertEqual(c.health()["status"], "ok")
                with open(c.log_path) as log:
                    self.assertIn("readable by other users", log.readline())
                self.assertEqual(hpt.Client(c.url, token="local-token").experiments(), [])
                # $HPT_NAMESPACE is for a shared server, not this private one.
                self.assertEqual(c.namespace, "default")

    def test_plain_call_then_stop_and_a_kept_database(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "hpt.db")
            with mock.patch.dict(os.environ, {"HPT_BINARY": binary()}):
                client = hpt.local(db=db)
            pid = client.pid
            client.create_experiment("kept", space=[hpt.Int("n", 1, 3)], max_trials=2)
            client.stop()
            client.stop()  # a second stop does nothing
            self.assertTrue(gone(pid))
            self.assertTrue(os.path.exists(db))
            with hpt.local(binary=binary(), db=db) as again:
                exp = again.create_experiment("kept", space=[hpt.Int("n", 1, 3)], max_trials=2,
                                              load_if_exists=True)
                self.assertEqual(exp.name, "kept")

    def test_stopped_at_exit(self) -> None:
        script = "import hpt; print(hpt.local().pid, flush=True)"  # never stopped by hand
        env = dict(os.environ, HPT_BINARY=binary(), PYTHONPATH=str(PYTHON_CLIENT))
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                             text=True, timeout=60, check=True).stdout
        self.assertTrue(gone(int(out)))

    def test_a_killed_program_takes_its_server_and_folder_along(self) -> None:
        # SIGKILL (an OOM kill, the end of a Slurm job): no atexit runs.
        script = ("import hpt, os, time; c = hpt.local(); "
                  "print(c.pid, os.path.dirname(c.db), flush=True); time.sleep(600)")
        env = dict(os.environ, HPT_BINARY=binary(), PYTHONPATH=str(PYTHON_CLIENT))
        program = subprocess.Popen([sys.executable, "-c", script], env=env,
                                   stdout=subprocess.PIPE, text=True)
        try:
            pid, folder = program.stdout.readline().split()
            self.assertFalse(gone(int(pid)))
            self.assertTrue(os.path.isdir(folder))
        finally:
            program.kill()
            program.wait()
            program.stdout.close()
        deadline = time.monotonic() + 10
        while not gone(int(pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertTrue(gone(int(pid)), "the server outlived the program that started it")
        while os.path.exists(folder) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertFalse(os.path.exists(folder), "its temporary folder was left behind")

    def test_the_server_outlives_the_thread_that_started_it(self) -> None:
        # The kernel's parent-death signal follows the starting thread: a
        # server started from a thread that ended must keep serving.
        import threading
        started = []
        thread = threading.Thread(
            target=lambda: started.append(hpt.local(binary=binary(), args=["--gpus", "none"])))
        thread.start()
        thread.join()
        client = started[0]
        try:
            time.sleep(0.5)
            self.assertEqual(client.health()["status"], "ok")
        finally:
            client.stop()

    def test_no_binary_is_a_clear_error(self) -> None:
        with mock.patch.dict(os.environ, {"PATH": "/nonexistent"}):
            os.environ.pop("HPT_BINARY", None)
            with self.assertRaisesRegex(FileNotFoundError, "set HPT_BINARY"):
                hpt.local()
            os.environ["HPT_BINARY"] = "/nonexistent/hpt"
            with self.assertRaisesRegex(FileNotFoundError, r"\$HPT_BINARY '/nonexistent/hpt'"):
                hpt.local()

    def test_a_server_that_does_not_start(self) -> None:
        with self.assertRaisesRegex(RuntimeError,
                                    r"(?s)did not start.*its output:.*--no-such-flag"):
            hpt.local(binary=binary(), args=["--no-such-flag"])


if __name__ == "__main__":
    unittest.main()
