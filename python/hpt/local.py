"""hpt.local(): a private `hpt serve` for one notebook or script."""

import atexit
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from typing import Optional, Sequence

from hpt._errors import ApiError
from hpt.client import Client

_URL_LINE = re.compile(r"hpt serving on (http://\S+)")
# The binary a platform wheel carries (python/setup.py, scripts/build_wheel.sh).
_BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", "hpt")


class LocalServer(Client):
    """A Client for an `hpt serve` that this object started and stops.

    ``with hpt.local() as client:`` stops the server when the block ends;
    ``client = hpt.local()`` keeps it until ``client.stop()`` or the
    interpreter's exit. The server listens on a free loopback port and keeps
    its database in a new temporary folder, removed on stop, unless ``db``
    names one to keep. Its output goes to ``log_path``.
    """

    def __init__(self, binary: Optional[str] = None, db: Optional[str] = None,
                 args: Sequence[str] = (), timeout: float = 30.0) -> None:
        self.binary = _find_binary(binary)
        self._dir = tempfile.mkdtemp(prefix="hpt-local-")
        self.db = os.path.abspath(db) if db else os.path.join(self._dir, "hpt.db")
        self.log_path = os.path.join(self._dir, "serve.log")
        # It stops, and removes the folder, when this process ends without
        # stop() (killed, out of memory, the end of a Slurm job).
        command = [self.binary, "serve", "--host", "127.0.0.1", "--port", "0",
                   "--db", self.db, "--parent-pid", str(os.getpid()),
                   "--parent-temp-dir", self._dir, *args]
        self._log = open(self.log_path, "wb")
        try:
            # Its own session: Ctrl-C in a terminal interrupts Python, which
            # then still reaches the server to fail the interrupted trial.
            self.process: Optional[subprocess.Popen] = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=self._log,
                stderr=subprocess.STDOUT, cwd=self._dir, start_new_session=True)
        except OSError as e:
            self._log.close()
            shutil.rmtree(self._dir, ignore_errors=True)
            raise RuntimeError(f"hpt.local() could not start {self.binary}: {e}") from e
        atexit.register(self.stop)
        try:
            url = self._wait_for_url(timeout)
            # Its own fresh server: the default namespace, whatever
            # $HPT_NAMESPACE says for the team's shared one.
            super().__init__(url, token="", namespace="default")
            self._wait_until_healthy(timeout)
        except BaseException:
            self.stop()
            raise

    @property
    def pid(self) -> Optional[int]:
        """The server's process id (None once stopped)."""
        return self.process.pid if self.process is not None else None

    def _wait_for_url(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            # Warnings (a token file others could read, say) may come first.
            with open(self.log_path, "rb") as f:
                for raw in f:
                    line = raw.decode(errors="replace")
                    match = _URL_LINE.match(line)
                    if match and line.endswith("\n"):
                        return match.group(1)
            if self.process is None or self.process.poll() is not None:
                break
            time.sleep(0.02)
        raise RuntimeError(f"hpt.local(): `{self.binary} serve` did not start "
                           f"(exit status {self.process and self.process.poll()}); "
                           f"its output:\n{self.log()}")

    def _wait_until_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.health()
                return
            except (ConnectionError, ApiError):
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.02)

    def log(self) -> str:
        """What the server has printed so far."""
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def stop(self, timeout: float = 15.0) -> None:
        """Stops the server (SIGTERM, then SIGKILL after ``timeout``
        seconds) and removes its temporary folder. Safe to call twice."""
        process, self.process = self.process, None
        if process is not None:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            self._log.close()
            shutil.rmtree(self._dir, ignore_errors=True)
        atexit.unregister(self.stop)

    def __enter__(self) -> "LocalServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = f"pid {self.pid}" if self.process is not None else "stopped"
        return f"LocalServer({self.url!r}, {state})"


def local(binary: Optional[str] = None, db: Optional[str] = None,
          args: Sequence[str] = (), timeout: float = 30.0) -> LocalServer:
    """Starts a private `hpt serve` and returns a Client for it (a
    LocalServer): ``with hpt.local() as client: ...``, or ``client =
    hpt.local()`` then ``client.stop()`` (else it stops at exit).

    The binary is ``binary``, else $HPT_BINARY, else the one the wheel
    carries (hpt/_bin/hpt, from scripts/build.sh), else `hpt` on the PATH.
    ``db`` keeps the database at that path (default: a temporary one,
    removed on stop); ``args`` are more `hpt serve` flags (``["--gpus",
    "none"]``). Waits up to ``timeout`` seconds for the server to answer;
    raises RuntimeError with its output when it does not start.
    """
    return LocalServer(binary, db, args, timeout)


def _find_binary(binary: Optional[str]) -> str:
    candidate = binary or os.environ.get("HPT_BINARY")
    if candidate:
        found = shutil.which(candidate) or (candidate if os.access(candidate, os.X_OK) else None)
        if not found or os.path.isdir(found):
            source = "binary=" if binary else "$HPT_BINARY"
            raise FileNotFoundError(f"hpt.local(): {source} {candidate!r} is not an executable")
        return os.path.abspath(found)
    if os.access(_BUNDLED, os.X_OK) and os.path.isfile(_BUNDLED):
        return _BUNDLED
    found = shutil.which("hpt")
    if not found:
        raise FileNotFoundError(
            "hpt.local() needs the hpt binary: install the wheel scripts/build.sh builds "
            "(build/python/hpt-*.whl carries it), set HPT_BINARY to its path (a checkout "
            "builds it as build/cli/hpt), pass binary=, or put `hpt` on the PATH")
    return found
