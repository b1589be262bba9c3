"""hpt.__version__: the top-level VERSION file's, the one `hpt --version` says.

A built package carries a copy as hpt/VERSION (python/setup.py writes it); a
checkout on the path (PYTHONPATH=python) reads the repository's own.
"""

import os
import re

_HERE = os.path.dirname(os.path.abspath(__file__))
_CANDIDATES = (os.path.join(_HERE, "VERSION"),                    # installed
               os.path.join(_HERE, os.pardir, os.pardir, "VERSION"))  # checkout


def _read_version() -> str:
    for path in _CANDIDATES:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read().strip()
        except OSError:
            continue
        if re.fullmatch(r"\d+\.\d+\.\d+", text):
            return text
    raise ImportError(f"hpt: no VERSION file at {' or '.join(_CANDIDATES)}; "
                      "install hpt from its wheel (bash scripts/build.sh) or the repository")


__version__ = _read_version()
