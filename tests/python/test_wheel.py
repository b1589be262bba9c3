"""The platform wheel scripts/build_wheel.sh builds (#33, finding 9): it
carries the hpt binary, so that `pip install` of it into a fresh virtual
environment, then hpt.local(), works with no HPT_BINARY and no `hpt` on the
PATH; and the wheel, its package and its binary all say the version of the
repository's VERSION file."""

import importlib.metadata
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import sysconfig
import tempfile
import unittest

import hpt
from hpt_server import REPO, binary

# What the installed package does, run by the virtual environment's Python
# with a clean environment; prints one JSON line.
_PROGRAM = r"""
import json, os, subprocess, sys
import hpt
with hpt.local(args=["--gpus", "none"]) as client:
    exp = client.create_experiment("from-wheel", space=[hpt.Float("x", 0, 1)], max_trials=2)
    exp.optimize(lambda t: (t.params["x"] - 0.5) ** 2, show_progress_bar=False)
    result = {"file": hpt.__file__, "version": hpt.__version__, "binary": client.binary,
              "phase": exp.phase, "trials": len(exp.trials()),
              "healthz": client.health().get("version")}
result["binary_version"] = subprocess.run([result["binary"], "--version"], check=True,
                                          capture_output=True, text=True).stdout.strip()
print(json.dumps(result))
"""


def missing_wheel_tools() -> str:
    """Why Debian's interpreter cannot build the wheel offline ("" when it can)."""
    if importlib.util.find_spec("pip") is None:
        return "pip is not installed (Debian: python3-pip)"
    try:
        version = importlib.metadata.version("setuptools")
    except importlib.metadata.PackageNotFoundError:
        return "setuptools is not installed (Debian: python3-setuptools)"
    if importlib.util.find_spec("wheel") is None:
        return "the wheel package is not installed (Debian: python3-wheel)"
    major_minor = tuple(int(p) for p in version.split(".")[:2] if p.isdigit())
    if major_minor < (61,):
        return f"setuptools {version} predates pyproject.toml metadata (61)"
    return ""


def run(command, **kwargs) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, **kwargs)
    if done.returncode != 0:
        raise AssertionError(f"{command} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done.stdout


class WheelTest(unittest.TestCase):

    def test_the_checkout_says_the_version_file(self) -> None:
        version = (REPO / "VERSION").read_text().strip()
        self.assertEqual(hpt.__version__, version)
        out = run([binary(), "--version"])
        self.assertEqual(out, f"hpt {version}\n")

    def test_pip_install_then_local_needs_nothing_else(self) -> None:
        reason = missing_wheel_tools()
        if reason:
            self.skipTest(reason)
        version = (REPO / "VERSION").read_text().strip()
        with tempfile.TemporaryDirectory() as d:
            wheel = pathlib.Path(run(["bash", str(REPO / "scripts" / "build_wheel.sh"),
                                      binary(), d]).strip())
            platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
            self.assertEqual(wheel.name, f"hpt-{version}-py3-none-{platform}.whl")

            # A user's fresh environment, seeing Debian's packages (pip,
            # pandas) but not this checkout, nor the build folder, nor
            # HPT_BINARY. Debian's pip installs into it (a pip of its own,
            # from ensurepip, would add 10 s and test nothing of ours).
            venv = pathlib.Path(d, "venv")
            run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                 str(venv)])
            python = str(venv / "bin" / "python")
            env = {k: v for k, v in os.environ.items()
                   if k not in ("HPT_BINARY", "PYTHONPATH", "HPT_SERVER", "HPT_TOKEN")}
            env["PATH"] = f"{venv / 'bin'}:/usr/bin:/bin"
            run([python, "-m", "pip", "--disable-pip-version-check", "install", "--no-index",
                 "--no-deps", "--no-cache-dir", "-q", str(wheel)], env=env, cwd=d)
            out = run([python, "-c", _PROGRAM], env=env, cwd=d)
            result = json.loads(out.splitlines()[-1])

        site = str(venv / "lib")
        self.assertTrue(result["file"].startswith(site), result)
        self.assertTrue(result["binary"].startswith(site), result)
        self.assertTrue(result["binary"].endswith("/hpt/_bin/hpt"), result)
        self.assertEqual((result["phase"], result["trials"]), ("Succeeded", 2))
        self.assertEqual(result["version"], version)
        self.assertEqual(result["binary_version"], f"hpt {version}")
        self.assertEqual(result["healthz"], version)


if __name__ == "__main__":
    unittest.main()
