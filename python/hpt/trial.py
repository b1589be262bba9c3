"""One trial of an experiment: its typed parameters, and the calls a client
makes while it evaluates them (report, should_stop, complete)."""

import enum
import math
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

from hpt._http import metrics_body, quote, step_value
from hpt._params import Value, typed
from hpt._suggest import suggest
from hpt.space import Categorical, Float, Int

if TYPE_CHECKING:
    from hpt.experiment import Experiment

#: Phases after which a trial changes no more.
FINISHED_PHASES = frozenset(
    {"Succeeded", "Failed", "EarlyStopped", "MetricsUnavailable", "Killed"})


def constraints_body(constraints: Sequence[float]) -> List[float]:
    """Constraint values as finite floats, naming the one that is not."""
    if isinstance(constraints, (str, bytes)) or not hasattr(constraints, "__iter__"):
        raise TypeError("constraints must be a sequence of numbers, not "
                        f"{type(constraints).__name__}")
    out: List[float] = []
    for i, value in enumerate(constraints):
        if isinstance(value, (bool, str, bytes)):
            raise TypeError(f"constraints[{i}] must be a number, not {type(value).__name__}")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise TypeError(
                f"constraints[{i}] must be a number, not {type(value).__name__}") from None
        if math.isnan(number):
            raise ValueError(f"constraints[{i}] must not be NaN")
        if not math.isfinite(number):
            raise ValueError(f"constraints[{i}] must be finite, not {number}")
        out.append(number)
    return out


class TrialState(enum.Enum):
    """Optuna's TrialState, read from a trial's phase: Pending is WAITING,
    Running RUNNING, Succeeded COMPLETE, EarlyStopped PRUNED, and Failed,
    MetricsUnavailable and Killed are FAIL."""

    RUNNING = 0
    COMPLETE = 1
    PRUNED = 2
    FAIL = 3
    WAITING = 4

    def is_finished(self) -> bool:
        return self not in (TrialState.RUNNING, TrialState.WAITING)


_STATES = {"Pending": TrialState.WAITING, "Running": TrialState.RUNNING,
           "Succeeded": TrialState.COMPLETE, "EarlyStopped": TrialState.PRUNED}


class Trial:
    """A trial as the server last described it.

    ``parameters`` holds the assignment typed by the experiment's spec
    (float, int or str). ``phase``, ``metrics`` and ``raw`` reflect the last
    reply from the server; ``refresh()`` fetches it again. Methods that
    change the trial (``complete``, ``stop``) refresh it from their reply.
    """

    def __init__(self, experiment: "Experiment", raw: Dict[str, Any]) -> None:
        self._experiment = experiment
        #: The reason the last should_stop() call gave, if any.
        self.stop_reason: Optional[str] = None
        #: Whether a should_stop() call has said yes (the server keeps that
        #: advice: the trial then completes EarlyStopped).
        self.stop_advised = False
        #: Define-by-run: {name: definition} of what suggest_* asked for.
        self._asked: Dict[str, Dict[str, Any]] = {}
        self._set(raw)

    def _set(self, raw: Dict[str, Any]) -> None:
        self.raw: Dict[str, Any] = raw
        self.name: str = raw["name"]
        self.parameters: Dict[str, Value] = typed(
            raw.get("parameterAssignments") or [], self._experiment._converters)

    @property
    def experiment(self) -> "Experiment":
        return self._experiment

    @property
    def params(self) -> Dict[str, Value]:
        """``parameters`` under Optuna's name: {name: float, int or str}."""
        return self.parameters

    @property
    def phase(self) -> str:
        """Pending, Running, Succeeded, Failed, EarlyStopped,
        MetricsUnavailable or Killed."""
        return self.raw.get("phase", "")

    @property
    def state(self) -> TrialState:
        """Optuna's trial.state (hpt.trial.TrialState), from ``phase``."""
        return _STATES.get(self.phase, TrialState.FAIL)

    # Define-by-run, as Optuna's: a parameter first asked for joins the
    # experiment's space; asked again (in any trial) it must keep its
    # definition. Values come back typed (float, int, the choice itself).

    def suggest_float(self, name: str, low: float, high: float, *,
                      step: Optional[float] = None, log: bool = False) -> float:
        """A float in [low, high] (log-uniform with ``log=True``, on a grid
        of ``step``)."""
        return float(suggest(self, Float(name, low, high, step=step, log=log)))

    def suggest_int(self, name: str, low: int, high: int, step: int = 1,
                    log: bool = False) -> int:
        """An int in [low, high], both included."""
        return int(suggest(self, Int(name, low, high, step=step, log=log)))

    def suggest_categorical(self, name: str, choices: Sequence[Any]) -> Any:
        """One of ``choices``, given back as it was passed."""
        return suggest(self, Categorical(name, choices))

    def suggest_uniform(self, name: str, low: float, high: float) -> float:
        """Optuna's older name: suggest_float(name, low, high)."""
        return self.suggest_float(name, low, high)

    def suggest_loguniform(self, name: str, low: float, high: float) -> float:
        """Optuna's older name: suggest_float(name, low, high, log=True)."""
        return self.suggest_float(name, low, high, log=True)

    def suggest_discrete_uniform(self, name: str, low: float, high: float, q: float) -> float:
        """Optuna's older name: suggest_float(name, low, high, step=q)."""
        return self.suggest_float(name, low, high, step=q)

    @property
    def metrics(self) -> Dict[str, Dict[str, float]]:
        """{metric name: {"min", "max", "latest"}} over the trial's observations."""
        return {m["name"]: {k: m[k] for k in ("min", "max", "latest") if k in m}
                for m in self.raw.get("metrics") or []}

    @property
    def index(self) -> int:
        """The trial's 1-based position in its experiment's creation order."""
        return int(self.raw.get("index", 0))

    @property
    def objective_value(self) -> Optional[float]:
        """The trial's objective value as the server ranks it (its
        objectiveValue: the objective metric's value under the spec's
        metricStrategies, by default its best). None until the metric has
        been reported."""
        return self.raw.get("objectiveValue")

    @property
    def value(self) -> Optional[float]:
        """Optuna's trial.value: the objective value (objective_value)."""
        return self.objective_value

    @property
    def number(self) -> int:
        """Optuna's trial.number: the 0-based position in creation order
        (index - 1)."""
        return self.index - 1

    @property
    def values(self) -> Optional[List[float]]:
        """Optuna's trial.values: one value per objective, in the
        experiment's objective_metrics order, each the metric's value under
        the spec's metricStrategies (by default, as Katib, its best: min to
        minimize, max to maximize); None until every objective has been
        reported."""
        objective = self._experiment.spec.get("objective") or {}
        strategies = {s.get("name"): s.get("value")
                      for s in objective.get("metricStrategies") or []}
        directions = {o.get("objectiveMetricName"): o.get("type")
                      for o in objective.get("objectives") or [objective]}
        metrics = self.metrics
        out: List[float] = []
        for name in self._experiment.objective_metrics:
            default = "max" if directions.get(name) == "maximize" else "min"
            value = metrics.get(name, {}).get(strategies.get(name) or default)
            if value is None:
                return None
            out.append(float(value))
        return out

    @property
    def constraints(self) -> Optional[List[float]]:
        """The constraint values sent with ``complete(constraints=...)``
        (each satisfied when <= 0; stored as the metrics constraint_0,
        constraint_1, ...), or None when the trial has none."""
        values = self.raw.get("constraints")
        return [float(v) for v in values] if values is not None else None

    @property
    def feasible(self) -> bool:
        """False when a constraint value is above 0. A trial without
        constraint values counts as feasible (as Optuna's best_trial takes
        it); the server's best trial and Pareto front skip infeasible ones."""
        return bool(self.raw.get("feasible", True))

    @property
    def user_attrs(self) -> Dict[str, Any]:
        """Optuna's trial.user_attrs: {key: value} as set_user_attr stored
        them (any JSON value), as of the last reply from the server."""
        return dict(self.raw.get("userAttrs") or {})

    def set_user_attr(self, key: str, value: Any) -> None:
        """Optuna's trial.set_user_attr: stores ``value`` (anything JSON
        can hold: numbers, strings, bool, None, lists, dicts) under ``key``
        on the server, over any value it had. A trial run by the server may
        call it with its own token (HPT_TOKEN). Raises ApiError past the
        server's limits (100 keys, 64 KiB in all)."""
        if not isinstance(key, str):
            raise TypeError(f"set_user_attr: the key must be a str, not {type(key).__name__}")
        self._set(self._request("PATCH", "", {"userAttrs": {key: value}}))

    @property
    def finished(self) -> bool:
        return self.phase in FINISHED_PHASES

    def _path(self, suffix: str = "") -> str:
        return f"{self._experiment._path()}/trials/{quote(self.name)}{suffix}"

    def _request(self, method: str, suffix: str = "", body: Any = None,
                 text: bool = False) -> Any:
        return self._experiment._client._transport.request(
            method, self._path(suffix), body, text=text)

    def refresh(self) -> "Trial":
        """Fetches the trial again; returns self."""
        self._set(self._request("GET"))
        return self

    def report(self, value: Optional[float] = None, step: Optional[int] = None,
               **metrics: float) -> None:
        """Records one observation, in Optuna's order or with named metrics:

        - ``trial.report(0.93, step)``: the objective metric at that step;
        - ``trial.report(step, loss=0.31, acc=0.9)``: named metrics (with
          named metrics, a lone positional argument is the step, as before);
        - ``trial.report(0.93, step, f1=0.8)``: the objective and more.

        ``step`` is a non-negative integer (the epoch, the fold); values are
        finite numbers. Raises ApiError if the server refuses it (e.g. the
        trial has finished)."""
        if metrics and step is None:
            value, step = None, value  # report(step, loss=...): the named form
        if value is not None:
            metric = self._experiment.objective_metric
            if metric in metrics:
                raise TypeError(f"report() got the objective {metric!r} twice")
            metrics = {metric: value, **metrics}
        if not metrics:
            raise TypeError("report() needs a value: report(value, step) for the objective, "
                            "or report(step, loss=0.3) for named metrics")
        body: Dict[str, Any] = {"metrics": metrics_body(metrics)}
        if step is not None:
            body["step"] = step_value(step)
        self._request("POST", "/observations", body)

    def observations(self) -> List[Dict[str, Any]]:
        """Every observation so far: [{"step", "timestamp", "metrics"}]."""
        reply = self._request("GET", "/observations")
        return reply.get("observations", [])

    def should_stop(self) -> bool:
        """Whether the experiment's early-stopping policy says this trial
        should stop now (its reason is kept in ``stop_reason``)."""
        reply = self._request("GET", ":shouldStop")
        self.stop_reason = reply.get("reason")
        self.stop_advised = self.stop_advised or bool(reply.get("shouldStop"))
        return bool(reply.get("shouldStop"))

    def heartbeat(self) -> None:
        """Renews the trial's lease: a trial with no report (report(),
        should_stop(), heartbeat()) for the experiment's trialLeaseSeconds
        is Failed (Abandoned). optimize() sends these while fn runs."""
        self._request("POST", ":heartbeat", {})

    def should_prune(self) -> bool:
        """should_stop() under Optuna's name; pair it with ``raise hpt.Pruned()``."""
        return self.should_stop()

    def complete(self, infeasible: Optional[str] = None,
                 constraints: Optional[Sequence[float]] = None, **metrics: float) -> "Trial":
        """Finishes the trial: ``trial.complete(loss=0.3)`` stores the final
        values as its last observation and the trial becomes Succeeded;
        ``trial.complete(infeasible="diverged")`` marks it Failed (reason
        Infeasible, message "diverged"). Returns self, refreshed.

        ``constraints``: Optuna's constraints_func values for this trial,
        each satisfied when <= 0 (``trial.complete(loss=0.3,
        constraints=[c0, c1])``). tpe and bayesianoptimization steer away
        from infeasible regions with them, and the best trial is chosen
        among feasible trials."""
        if infeasible is not None:
            if metrics or constraints is not None:
                raise TypeError("an infeasible trial reports no metrics or constraints")
            body: Dict[str, Any] = {"infeasible": True, "reason": str(infeasible)}
        else:
            body = {"metrics": metrics_body(metrics)}
            if constraints is not None:
                body["constraints"] = constraints_body(constraints)
        if self._asked or any(p.get("definedByRun")
                              for p in self._experiment.spec.get("parameters") or []):
            # The parameters defined by run that this trial never asked for
            # leave its assignment (inactive in it, as in Optuna's record),
            # also when it failed before asking for any.
            body["usedParameters"] = sorted(self._asked)
        self._set(self._request("POST", ":complete", body))
        return self

    def stop(self) -> "Trial":
        """Kills the trial (phase Killed). Returns self, refreshed."""
        self._set(self._request("POST", ":stop", {}))
        return self

    def logs(self) -> str:
        """The runner's captured stdout and stderr (runner-run trials)."""
        return self._request("GET", "/logs", text=True)

    def __repr__(self) -> str:
        return (f"Trial(name={self.name!r}, phase={self.phase!r}, "
                f"parameters={self.parameters!r}, objective={self.objective_value!r})")
