"""A real `hpt serve` on port 0 for the client's tests.

The binary comes from $HPT_BINARY (ctest sets it), else build/cli/hpt.
"""

import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
from typing import List, Optional

REPO = pathlib.Path(__file__).resolve().parents[2]
PYTHON_CLIENT = REPO / "python"


def binary() -> str:
    given = os.environ.get("HPT_BINARY")
    path = given or str(REPO / "build" / "cli" / "hpt")
    if not os.access(path, os.X_OK):
        if given:  # ctest names the binary it built: not finding it is a failure
            raise RuntimeError(f"HPT_BINARY={given} is not an executable file")
        raise unittest.SkipTest(f"no hpt binary at {path}; build it or set HPT_BINARY")
    return path


class Server:
    """Starts `hpt serve --port 0` on a fresh database; stop() ends it."""

    def __init__(self, token: Optional[str] = None) -> None:
        self.dir = tempfile.mkdtemp(prefix="hpt-py-")
        self.log_path = os.path.join(self.dir, "serve.log")
        args: List[str] = [binary(), "serve", "--port", "0", "--gpus", "none",
                           "--db", os.path.join(self.dir, "hpt.db")]
        if token is not None:
            token_file = os.path.join(self.dir, "token")
            # 0600, as a token file should be (hpt serve warns otherwise).
            with os.fdopen(os.open(token_file, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
                f.write(token + "\n")
            args += ["--token-file", token_file]
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT,
                                     cwd=self.dir)
        self.url = self._wait_for_url()

    def _wait_for_url(self) -> str:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            # Warnings may come before the line that names the URL.
            with open(self.log_path, "rb") as f:
                for raw in f:
                    line = raw.decode(errors="replace")
                    m = re.match(r"hpt serving on (http://\S+)", line)
                    if m and line.endswith("\n"):
                        return m.group(1)
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        output = self.log()  # stop() removes the folder it is in
        self.stop()
        raise RuntimeError(f"hpt serve did not start; its output:\n{output}")

    def log(self) -> str:
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class ServerTestCase(unittest.TestCase):
    """Each test class gets its own server (class attribute `server`) and a
    Client for it (`client`)."""

    token: Optional[str] = None

    @classmethod
    def setUpClass(cls) -> None:
        import hpt
        cls.server = Server(token=cls.token)
        cls.client = hpt.Client(cls.server.url, token=cls.token or "")  # not $HPT_TOKEN

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.stop()

    _counter = 0

    def unique(self, prefix: str) -> str:
        """An experiment name no other test in this class uses."""
        ServerTestCase._counter += 1
        return f"{prefix}-{ServerTestCase._counter}"
