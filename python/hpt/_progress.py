"""Experiment.optimize()'s progress display: a bar redrawn with \\r on a
terminal, one plain line per finished trial elsewhere (notebooks, logs).
No dependency: Jupyter shows the plain lines as they come."""

import shutil
import sys
import threading
import time
from typing import IO, Any, Dict, Optional, Tuple

from hpt.trial import Trial


def _short(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _params(params: Dict[str, Any]) -> str:
    return " ".join(f"{k}={_short(v)}" for k, v in params.items())


class Progress:
    """Counts finished trials against ``total`` and keeps the best value.
    Thread-safe: optimize()'s workers call finished() concurrently."""

    def __init__(self, experiment: str, metric: str, maximize: bool, total: int,
                 best: Optional[Tuple[str, float]] = None,
                 stream: Optional[IO[str]] = None) -> None:
        self._experiment = experiment
        self._metric = metric
        self._maximize = maximize
        self._total = total
        self._best = best
        self._done = 0
        self._phases: Dict[str, int] = {}
        self._started = time.monotonic()
        self._lock = threading.Lock()
        if stream is None:
            stream = sys.stderr
            # In a Jupyter kernel stderr is shown pink, and \r redraws would
            # be saved in the notebook: plain lines on stdout read better.
            if "ipykernel" in sys.modules:
                stream = sys.stdout
        self._stream = stream
        self._bar = _isatty(stream) and "ipykernel" not in sys.modules
        self._width = 0

    def finished(self, trial: Trial) -> None:
        with self._lock:
            self._done += 1
            self._phases[trial.phase] = self._phases.get(trial.phase, 0) + 1
            value = trial.objective_value
            if value is not None and trial.phase in ("Succeeded", "EarlyStopped") and (
                    self._best is None or
                    (value > self._best[1] if self._maximize else value < self._best[1])):
                self._best = (trial.name, value)
            if self._bar:
                self._draw()
            else:
                self._line(trial)

    def close(self, note: str = "") -> None:
        """Ends the display with a summary line; ``note`` says why it
        stopped early, if it did."""
        with self._lock:
            counts = ", ".join(f"{n} {phase}" for phase, n in sorted(self._phases.items()))
            text = (f"{self._experiment}: {self._done} trial{'s' * (self._done != 1)} in "
                    f"{time.monotonic() - self._started:.1f} s"
                    + (f" ({counts})" if counts else "") + f"; {self._best_text()}"
                    + (f"; {note}" if note else ""))
            if self._bar:
                self._write("\r" + " " * self._width + "\r")
            self._write(text + "\n")

    def _best_text(self) -> str:
        if self._best is None:
            return f"no {self._metric} yet"
        return f"best {self._best[0]} {self._metric}={self._best[1]:.6g}"

    def _line(self, trial: Trial) -> None:
        width = len(str(self._total))
        value = trial.objective_value
        if trial.phase == "Failed":
            result = (trial.raw.get("message") or trial.raw.get("reason") or "")[:200]
        elif value is not None:
            result = f"{self._metric}={value:.6g}"
        else:
            result = trial.raw.get("reason") or ""
        self._write(f"[{self._done:>{width}}/{self._total}] {trial.name} {trial.phase} "
                    f"{result}  {_params(trial.params)}; {self._best_text()}\n")

    def _draw(self) -> None:
        columns = shutil.get_terminal_size((80, 24)).columns - 1
        filled = int(20 * self._done / self._total) if self._total else 20
        elapsed = int(time.monotonic() - self._started)
        text = (f"{self._experiment} |{'#' * filled}{'.' * (20 - filled)}| "
                f"{self._done}/{self._total} {elapsed // 60}:{elapsed % 60:02d}  "
                f"{self._best_text()}")[:columns]
        self._write("\r" + text + " " * max(0, self._width - len(text)))
        self._width = len(text)

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):  # a closed stream must not fail the search
            pass


def _isatty(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
