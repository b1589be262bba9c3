"""Builds the hpt package; its metadata is in pyproject.toml.

What pyproject.toml cannot say:
- the package carries the repository's VERSION file as hpt/VERSION, so that
  an installed hpt.__version__ is the one `hpt --version` says;
- with HPT_WHEEL_BINARY=/path/to/hpt (scripts/build_wheel.sh sets it) it
  carries that binary as hpt/_bin/hpt, executable, for hpt.local() to run,
  and the wheel is a platform wheel (py3-none-<this platform>, e.g.
  linux_x86_64): the binary is built for this machine, not for any.
Without HPT_WHEEL_BINARY the wheel is the pure client (py3-none-any).
"""

import os

from setuptools import setup
from setuptools.command.build_py import build_py

_VERSION = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "VERSION")


def _binary():
    path = os.environ.get("HPT_WHEEL_BINARY")
    if not path:
        return None
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise SystemExit(f"setup.py: HPT_WHEEL_BINARY={path!r} is not an executable file")
    return path


class BuildPy(build_py):
    """build_py, plus hpt/VERSION and (where asked) hpt/_bin/hpt, with the
    hpt-nas beside it (`hpt nas` runs it) where the build made one."""

    def run(self):
        super().run()
        package = os.path.join(self.build_lib, "hpt")
        if os.path.exists(_VERSION):
            self.copy_file(_VERSION, os.path.join(package, "VERSION"), preserve_mode=False)
        binary = _binary()
        for name in ("hpt", "hpt-nas"):
            target = os.path.join(package, "_bin", name)
            source = binary and os.path.join(os.path.dirname(binary), name)
            if source and name != "hpt" and not os.path.isfile(source):
                source = None  # a build without libtorch has no hpt-nas
            if source:
                self.mkpath(os.path.dirname(target))
                self.copy_file(binary if name == "hpt" else source, target)
                os.chmod(target, 0o755)
            elif os.path.exists(target):  # left by an earlier build
                os.remove(target)


cmdclass = {"build_py": BuildPy}
try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # no `wheel`: no wheels to tag either
    bdist_wheel = None

if bdist_wheel is not None:
    class PlatformWheel(bdist_wheel):
        """A platform wheel when it carries the binary."""

        def finalize_options(self):
            if _binary():  # so that the files sit at the wheel's root (platlib)
                self.distribution.has_ext_modules = lambda: True
            super().finalize_options()

        def get_tag(self):
            python, abi, platform = super().get_tag()
            # Any Python 3 runs it: only the binary is platform-specific.
            return ("py3", "none", platform) if _binary() else (python, abi, platform)

    cmdclass["bdist_wheel"] = PlatformWheel

setup(cmdclass=cmdclass)
