"""hpt.report() and hpt.set_user_attr(): from inside a trial that hpt's
runner started."""

import os
import time
from typing import Any, Dict, Optional

from hpt._errors import ApiError
from hpt._http import (DEFAULT_NAMESPACE, Transport, check_namespace, experiments_path,
                       metrics_body, quote, step_value)

_ENV = ("HPT_URL", "HPT_EXPERIMENT", "HPT_TRIAL")


def in_trial() -> bool:
    """Whether this process is a trial started by hpt's runner (HPT_URL,
    HPT_EXPERIMENT and HPT_TRIAL are set)."""
    return all(os.environ.get(k) for k in _ENV)


def report(step: Optional[int] = None, **metrics: float) -> None:
    """Pushes one observation for the trial this process runs:
    ``hpt.report(step=epoch, loss=0.31, acc=0.9)``.

    Uses the environment the runner sets (HPT_URL, HPT_EXPERIMENT,
    HPT_TRIAL, HPT_NAMESPACE (absent: default), and HPT_TOKEN when the
    server has a token); pair it with
    ``metricsCollectorSpec: {collector: {kind: Push}}``. Raises RuntimeError
    outside a runner-run trial, ApiError when the server refuses the
    observation.
    """
    missing = [k for k in _ENV if not os.environ.get(k)]
    if missing:
        raise RuntimeError(
            f"hpt.report() runs inside a trial started by hpt's runner; "
            f"{', '.join(missing)} not set (use Trial.report() for a client-run trial)")
    if not metrics:
        raise TypeError("report() needs at least one metric, e.g. report(step=1, loss=0.3)")
    body: Dict[str, object] = {"metrics": metrics_body(metrics)}
    if step is not None:
        body["step"] = step_value(step)
    _own_trial("POST", "/observations", body)


def set_user_attr(key: str, value: Any) -> None:
    """Optuna's trial.set_user_attr for the trial this process runs:
    stores ``value`` (any JSON value) under ``key``, with the trial's own
    token. Raises RuntimeError outside a runner-run trial, ApiError when the
    server refuses it (past 100 keys or 64 KiB)."""
    missing = [k for k in _ENV if not os.environ.get(k)]
    if missing:
        raise RuntimeError(
            f"hpt.set_user_attr() runs inside a trial started by hpt's runner; "
            f"{', '.join(missing)} not set (use Trial.set_user_attr() for a client-run trial)")
    if not isinstance(key, str):
        raise TypeError(f"set_user_attr: the key must be a str, not {type(key).__name__}")
    _own_trial("PATCH", "", {"userAttrs": {key: value}})


#: Answers that say no server could take the call just now: a server
#: restarting, or (several servers on one database) the one that drove the
#: experiment gone and its lease not yet taken over.
_RETRIED_CODES = (502, 503, 504)


def _own_trial(method: str, suffix: str, body: Dict[str, Any]) -> None:
    """Sends the call, and again while no server can take it, for up to
    HPT_REPORT_RETRY_SECONDS (default 60; 0: once), backing off from 0.1 s
    to 2 s. A refused connection or a 502/503/504 means the call was not
    carried out, so sending it again stores it once."""
    transport = Transport(os.environ["HPT_URL"], os.environ.get("HPT_TOKEN"))
    namespace = check_namespace(os.environ.get("HPT_NAMESPACE") or DEFAULT_NAMESPACE)
    path = (f"{experiments_path(namespace)}/{quote(os.environ['HPT_EXPERIMENT'])}"
            f"/trials/{quote(os.environ['HPT_TRIAL'])}{suffix}")
    try:
        window = float(os.environ.get("HPT_REPORT_RETRY_SECONDS", "60"))
    except ValueError:
        window = 60.0
    deadline = time.monotonic() + max(window, 0.0)
    pause = 0.1
    while True:
        try:
            transport.request(method, path, body)
            return
        except (ConnectionError, ApiError) as e:
            if isinstance(e, ApiError) and e.code not in _RETRIED_CODES:
                raise
            if time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 2.0)
