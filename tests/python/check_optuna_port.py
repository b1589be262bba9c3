"""Checks one ported Optuna example (examples/optuna/NAME.py) against its
twin (NAME_optuna.py): the code is the twin's with `import optuna` changed
to `import hpt as optuna` and nothing else (docstrings aside), so it has as
many code lines; then runs the port against a private local server and
checks what it printed.

    check_optuna_port.py examples/optuna/NAME.py [REGEX that must match its output]
"""

import ast
import os
import re
import subprocess
import sys


def code_lines(path: str) -> list:
    """The file's code lines: no blank lines, comments or module docstring."""
    with open(path) as f:
        text = f.read()
    tree = ast.parse(text)
    skip = set()
    first = tree.body[0] if tree.body else None
    if isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant):
        skip = set(range(first.lineno, first.end_lineno + 1))
    return [line for n, line in enumerate(text.splitlines(), 1)
            if n not in skip and line.strip() and not line.strip().startswith("#")]


def main() -> int:
    port = os.path.abspath(sys.argv[1])
    twin = port[:-3] + "_optuna.py"
    ours, theirs = code_lines(port), code_lines(twin)
    expected = [("import hpt as optuna" if line == "import optuna" else line) for line in theirs]
    if ours != expected:
        diff = [f"  twin: {a!r}\n  port: {b!r}" for a, b in zip(expected, ours) if a != b]
        print(f"FAIL {port}: not its twin with the import changed "
              f"({len(ours)} vs {len(theirs)} code lines)\n" + "\n".join(diff[:5]))
        return 1
    print(f"{os.path.basename(port)}: {len(ours)} code lines, its Optuna twin {len(theirs)}")
    run = subprocess.run([sys.executable, port], cwd=os.path.dirname(port),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=600)
    print(run.stdout[-4000:])
    if run.returncode != 0:
        print(f"FAIL {port} exited {run.returncode}")
        return 1
    for pattern in sys.argv[2:]:
        if not re.search(pattern, run.stdout, re.M):
            print(f"FAIL {port}: its output does not match {pattern!r}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
