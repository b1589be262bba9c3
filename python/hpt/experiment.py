"""An experiment on the server: ask for trials, read results, stop, delete."""

import math
import time
import urllib.parse
import warnings as _warnings
from typing import (TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence,
                    Tuple, Union)

from hpt._errors import ApiError, is_slots_full
from hpt._http import experiments_path, quote
from hpt._optimize import Catch, optimize
from hpt._params import converters
from hpt._warm_start import WarmStart
from hpt.trial import Trial

if TYPE_CHECKING:
    import pandas

    from hpt.client import Client

#: Phases after which an experiment changes no more.
FINISHED_PHASES = frozenset({"Succeeded", "Failed", "Stopped"})
#: The longest one :suggest call waits on the server for a slot.
_MAX_WAIT_SECONDS = 30


class Experiment(WarmStart):
    """A handle on one experiment. ``spec`` is the experiment's spec as the
    server stores it (defaults filled in); ``status`` is fetched fresh on
    every access."""

    def __init__(self, client: "Client", raw: Dict[str, Any]) -> None:
        self._client = client
        self.name: str = raw["name"]
        #: Its namespace (the server says; older servers say nothing).
        self.namespace: str = raw.get("namespace") or client.namespace
        self.spec: Dict[str, Any] = raw.get("spec") or {}
        self._converters = converters(self.spec)
        self._status: Dict[str, Any] = raw.get("status") or {}
        #: optimize() calls under way (Study.stop() ends them).
        self._runs: List[Any] = []
        #: Optuna's constraints_func (a sampler's), called by optimize().
        self._constraints_func: Optional[Callable[[Trial], Sequence[float]]] = None
        self._user_attrs: Dict[str, Any] = raw.get("userAttrs") or {}

    def _path(self, suffix: str = "") -> str:
        return f"{experiments_path(self.namespace)}/{quote(self.name)}{suffix}"

    def _request(self, method: str, suffix: str = "", body: Any = None) -> Any:
        return self._client._transport.request(method, self._path(suffix), body)

    @property
    def objective_metric(self) -> str:
        """The spec's objective.objectiveMetricName."""
        return (self.spec.get("objective") or {}).get("objectiveMetricName", "")

    @property
    def objective_type(self) -> str:
        """minimize or maximize."""
        return (self.spec.get("objective") or {}).get("type", "")

    def _objectives(self) -> List[Dict[str, str]]:
        objective = self.spec.get("objective") or {}
        return objective.get("objectives") or [
            {"objectiveMetricName": self.objective_metric, "type": self.objective_type}]

    @property
    def objective_metrics(self) -> List[str]:
        """Every objective's metric name, the first one first (one entry for
        a single objective): the order of optimize()'s returned tuple, of
        add_trial(values=...) and of Trial.values."""
        return [o.get("objectiveMetricName", "") for o in self._objectives()]

    @property
    def directions(self) -> List[str]:
        """Per objective, "minimize" or "maximize" (objective_metrics' order)."""
        return [o.get("type", "") for o in self._objectives()]

    @property
    def status(self) -> Dict[str, Any]:
        """The experiment's status, fetched now: {"phase", "reason",
        "message", "trials": {counts by phase, and "imported"},
        "currentOptimalTrial", "queuedTrials", "paretoFront" (several
        objectives), ...}."""
        return self.refresh()._status

    @property
    def phase(self) -> str:
        """Created, Running, Succeeded, Failed or Stopped (fetched now)."""
        return self.status.get("phase", "")

    @property
    def warnings(self) -> List[str]:
        """What the server warns of while the experiment runs
        (status.warnings), fetched now: e.g. that trials did not report the
        objective metric, with the name they printed instead ("did you mean
        'val_loss'?"). wait() also raises each as a RuntimeWarning once."""
        return [w.get("message", "") for w in self.status.get("warnings") or []]

    def refresh(self) -> "Experiment":
        """Fetches the experiment (spec and status) again; returns self."""
        raw = self._request("GET")
        self.spec = raw.get("spec") or self.spec
        self._converters.update(converters(self.spec))
        self._status = raw.get("status") or {}
        self._user_attrs = raw.get("userAttrs") or {}
        return self

    @property
    def user_attrs(self) -> Dict[str, Any]:
        """Optuna's study.user_attrs: {key: value} as set_user_attr stored
        them, fetched now."""
        return dict(self.refresh()._user_attrs)

    def set_user_attr(self, key: str, value: Any) -> None:
        """Optuna's study.set_user_attr: stores ``value`` (any JSON value)
        under ``key`` on the experiment, over any value it had."""
        if not isinstance(key, str):
            raise TypeError(f"set_user_attr: the key must be a str, not {type(key).__name__}")
        reply = self._request("PATCH", "", {"userAttrs": {key: value}})
        self._status = reply.get("status") or {}
        self._user_attrs = reply.get("userAttrs") or {}

    def suggest(self, count: int = 1, wait: Optional[float] = None) -> List[Trial]:
        """Asks the experiment's algorithm for up to ``count`` new trials,
        Running from now on, for this client to evaluate. Fewer or none come
        back when the trial budget is used up. Never more than
        parallelTrialCount run at once: with every slot taken the server
        answers 409 (ApiError), or with ``wait`` (seconds; None: no wait)
        this waits that long for a slot first. A trial with no report for
        the spec's trialLeaseSeconds is Failed (Abandoned), freeing its
        slot. Only for client-run experiments (no trialTemplate)."""
        if count < 1:
            raise ValueError(f"count must be at least 1, not {count}")
        deadline = None if wait is None else time.monotonic() + max(0.0, wait)
        while True:
            body: Dict[str, Any] = {"count": int(count)}
            left = 0.0 if deadline is None else deadline - time.monotonic()
            if left >= 1:
                body["waitSeconds"] = int(min(left, _MAX_WAIT_SECONDS))
            try:
                reply = self._request("POST", "/trials:suggest", body)
            except ApiError as e:
                if not (is_slots_full(e) and deadline is not None
                        and time.monotonic() < deadline):
                    raise
                time.sleep(min(0.2, max(0.0, deadline - time.monotonic())))
                continue
            return [Trial(self, t) for t in reply.get("trials", [])]

    def optimize(self, fn: Callable[[Trial], Any], n_trials: Optional[int] = None,
                 timeout: Optional[float] = None, n_jobs: int = 1, catch: Catch = (),
                 callbacks: Optional[Sequence[Callable[["Experiment", Trial], None]]] = None,
                 gc_after_trial: bool = False, show_progress_bar: bool = True) -> None:
        """Runs the search here, as Optuna's study.optimize() does: asks the
        server for trials one at a time and calls ``fn(trial)`` on each.

        ``fn`` reads ``trial.params``, may ``trial.report(value, step)`` and
        ask ``trial.should_prune()``, and returns the objective value (or a
        dict of metrics holding it, or None when it reported the objective):
        the trial then completes with it. With several objectives fn returns
        a tuple or list, one value per objective in objective_metrics order
        (as Optuna's), and ``trial.report(value, step)`` reports the first
        objective (the one early stopping watches). ``raise hpt.Pruned()`` ends the
        trial early: EarlyStopped when the experiment's early-stopping policy
        advised it (should_prune() said yes, or says so now), else Succeeded
        with its last reported objective (Killed when it reported none); the
        server offers a client no other way to end a trial early. Any other
        exception fails the trial (Failed, reason Infeasible, message
        "Type: text") and is raised again unless it is an instance of
        ``catch``; a returned None without a report, NaN or a non-number
        fails the trial with a RuntimeWarning and the search goes on.

        Stops after ``n_trials`` trials (None: until the experiment's budget,
        maxTrialCount, is used), when the server hands out no more (budget
        used, experiment ended), or once ``timeout`` seconds have passed
        (running trials finish). ``n_jobs`` > 1 evaluates that many trials
        at once in threads (-1: one per CPU; a RuntimeWarning says so when
        the experiment's parallelTrialCount is lower, and the workers then
        take turns); fn must then be thread-safe.
        Progress goes to stderr as a one-line bar on a terminal, as one line
        per trial elsewhere (on stdout in a Jupyter kernel);
        ``show_progress_bar=False`` silences it. Each of ``callbacks`` is
        called as ``callback(experiment, trial)`` after each trial ends, as
        Optuna's are. A run that the experiment's failure budget
        (maxFailedTrialCount) ends says so in a RuntimeWarning. Returns None.
        """
        optimize(self, fn, n_trials, timeout, n_jobs, catch, show_progress_bar,
                 callbacks or (), gc_after_trial)

    def resume(self, max_trials: Optional[int] = None, parallel: Optional[int] = None,
               max_failed: Optional[int] = None,
               lease_seconds: Optional[int] = None) -> "Experiment":
        """New limits (``hpt resume``): a finished experiment they leave room
        in runs again, one that reached its goal stays done. Returns self."""
        body = {k: int(v) for k, v in (("maxTrialCount", max_trials),
                                        ("parallelTrialCount", parallel),
                                        ("maxFailedTrialCount", max_failed),
                                        ("trialLeaseSeconds", lease_seconds)) if v is not None}
        if not body:
            raise TypeError("resume() needs max_trials, parallel, max_failed or lease_seconds")
        reply = self._request("PATCH", "", body)
        self.spec = reply.get("spec") or self.spec
        self._status = reply.get("status") or {}
        return self

    def trials(self) -> List[Trial]:
        """Every trial so far, in the server's order (creation)."""
        return [Trial(self, t) for t in self._request("GET", "/trials").get("trials", [])]

    def trials_page(self, limit: int = 100, offset: int = 0, sort: Optional[str] = None,
                    order: str = "asc", phase: Union[str, Sequence[str], None] = None,
                    filter: Optional[str] = None,  # noqa: A002 (the server's name)
                    ranges: Optional[Mapping[str, Tuple[Optional[float], Optional[float]]]] = None,
                    ) -> Tuple[List[Trial], int]:
        """One page of the trials, sorted and filtered on the server (for
        experiments too large to list whole): ``(trials, total)``, total
        being how many pass the filters. Keys for ``sort`` and ``ranges``
        ({key: (min, max)}, either None): "name" (creation order), "phase",
        "objective", "start", "completion", "p:<parameter>", "m:<metric>"
        (its latest value). ``filter``: words that must all occur in the
        name or a "param=value". ApiError 400 names a bad argument."""
        query: List[Tuple[str, str]] = [("limit", str(limit)), ("offset", str(offset)),
                                        ("order", order)]
        if sort:
            query.append(("sort", sort))
        if phase:
            query.append(("phase", phase if isinstance(phase, str) else ",".join(phase)))
        if filter:
            query.append(("filter", filter))
        for key, (lo, hi) in (ranges or {}).items():
            if lo is not None:
                query.append((f"min.{key}", repr(float(lo))))
            if hi is not None:
                query.append((f"max.{key}", repr(float(hi))))
        reply = self._request("GET", "/trials?" + urllib.parse.urlencode(query))
        return [Trial(self, t) for t in reply.get("trials", [])], int(reply.get("total", 0))

    def trial(self, name: str) -> Trial:
        """One trial by name (ApiError 404 when there is none)."""
        return Trial(self, self._request("GET", f"/trials/{quote(name)}"))

    @property
    def best_trial(self) -> Trial:
        """Optuna's study.best_trial, fetched now: the best trial so far by
        the objective (status.currentOptimalTrial). ValueError, as Optuna's,
        while no trial has reported the objective metric."""
        optimal = self.status.get("currentOptimalTrial")
        if not optimal:
            raise ValueError(f"experiment '{self.name}': no trial has reported the "
                             "objective yet, so there is no best trial")
        return self.trial(optimal["name"])

    @property
    def best_value(self) -> float:
        """Optuna's study.best_value: the best trial's objective value
        (ValueError as best_trial)."""
        value = self.best_trial.objective_value
        assert value is not None  # the best trial is the best by it
        return float(value)

    @property
    def best_params(self) -> Dict[str, Any]:
        """Optuna's study.best_params: the best trial's parameters
        (ValueError as best_trial)."""
        return dict(self.best_trial.params)

    @property
    def best_trials(self) -> List[Trial]:
        """Optuna's best_trials, fetched now: the trials on the Pareto front
        (Succeeded trials that reported every objective and that no other
        dominates; status.paretoFront), in trial order. With a single
        objective, [best_trial] or [] while none has reported it."""
        status = self.status
        if len(self.objective_metrics) == 1:
            best = status.get("currentOptimalTrial")
            return [self.trial(best["name"])] if best else []
        front = [f["name"] for f in status.get("paretoFront") or []]
        if not front:
            return []
        by_name = {t.name: t for t in self.trials()}
        return [by_name[n] for n in front if n in by_name]

    def pareto_front(self, reference: Optional[Sequence[float]] = None) -> Dict[str, Any]:
        """GET .../pareto: {"objectives": [{"objectiveMetricName", "type"}],
        "front": [{"name", "parameterAssignments", "values"}], "reference",
        "hypervolume", "hypervolumeCurve": [{"trial", "hypervolume"}]}, the
        last three None until a trial reported every objective. The
        hypervolume is measured from ``reference`` (one number per
        objective, in their own units and directions; default: each
        objective's worst value moved a tenth of its range further out)."""
        suffix = "/pareto"
        if reference is not None:
            numbers = [float(v) for v in reference]
            if not all(math.isfinite(v) for v in numbers):
                raise ValueError(f"reference must be finite numbers, not {list(reference)}")
            suffix += "?reference=" + urllib.parse.quote(
                ",".join(repr(v) for v in numbers), safe=",")
        return self._request("GET", suffix)

    def trials_dataframe(self) -> "pandas.DataFrame":
        """The trials as a pandas DataFrame, one row per trial in creation
        order: name, phase, one column per parameter (typed), objectiveValue
        (as the server ranks the trial), one per metric (its latest value; a
        metric named like an earlier column becomes ``metric:NAME``), one
        ``user_attrs_<key>`` per user attribute (as Optuna's), and
        startTime/completionTime as timestamps. Needs pandas."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError(
                "Experiment.trials_dataframe() needs pandas, which is not installed "
                "(apt-get install python3-pandas, or pip install pandas); "
                "Experiment.trials() gives the same data without it") from e
        params = [p["name"] for p in self.spec.get("parameters") or []]
        trials = self.trials()
        metrics: List[str] = []
        for t in trials:
            metrics += [m for m in t.metrics if m not in metrics]
        columns = {"name": [t.name for t in trials], "phase": [t.phase for t in trials]}
        for p in params:
            columns[p] = [t.parameters.get(p) for t in trials]
        columns["objectiveValue"] = [t.objective_value for t in trials]
        for m in metrics:
            column = f"metric:{m}" if m in columns else m
            columns[column] = [t.metrics.get(m, {}).get("latest") for t in trials]
        attrs: List[str] = []
        for t in trials:
            attrs += [k for k in t.user_attrs if k not in attrs]
        for k in attrs:  # Optuna's columns: user_attrs_<key>
            columns[f"user_attrs_{k}"] = [t.user_attrs.get(k) for t in trials]
        for time_field in ("startTime", "completionTime"):
            columns[time_field] = pd.to_datetime(
                [t.raw.get(time_field) for t in trials], utc=True)
        return pd.DataFrame(columns)

    def wait(self, timeout: Optional[float] = None, poll: float = 1.0) -> "Experiment":
        """Blocks until the experiment is Succeeded, Failed or Stopped;
        returns self. Raises TimeoutError after ``timeout`` seconds (None:
        wait for ever). ``poll`` is the interval between status checks."""
        deadline = None if timeout is None else time.monotonic() + timeout
        warned = set()
        while True:
            phase = self.phase
            for w in self._status.get("warnings") or []:
                if w.get("reason") not in warned:
                    warned.add(w.get("reason"))
                    _warnings.warn(f"experiment {self.name}: {w.get('message', '')}",
                                   RuntimeWarning, stacklevel=2)
            if phase in FINISHED_PHASES:
                return self
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(
                        f"experiment {self.name} still {phase} after {timeout} s")
                time.sleep(min(poll, left))
            else:
                time.sleep(poll)

    def stop(self) -> "Experiment":
        """Stops the experiment (phase Stopped), killing its running trials;
        returns self."""
        self._status = self._request("POST", ":stop", {}).get("status") or {}
        return self

    def delete(self) -> None:
        """Deletes the experiment, its trials and observations, killing its
        running trials. The handle is unusable afterwards."""
        self._request("DELETE")

    def __repr__(self) -> str:
        return f"Experiment(name={self.name!r}, phase={self._status.get('phase')!r})"
