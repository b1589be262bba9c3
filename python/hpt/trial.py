"""One trial of an experiment: its typed parameters, and the calls a client
makes while it evaluates them (report, should_stop, complete)."""

from typing import TYPE_CHECKING, Any, Dict, List, Optional

from hpt._http import metrics_body, quote, step_value
from hpt._params import Value, typed

if TYPE_CHECKING:
    from hpt.experiment import Experiment

#: Phases after which a trial changes no more.
FINISHED_PHASES = frozenset(
    {"Succeeded", "Failed", "EarlyStopped", "MetricsUnavailable", "Killed"})


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

    def complete(self, infeasible: Optional[str] = None, **metrics: float) -> "Trial":
        """Finishes the trial: ``trial.complete(loss=0.3)`` stores the final
        values as its last observation and the trial becomes Succeeded;
        ``trial.complete(infeasible="diverged")`` marks it Failed (reason
        Infeasible, message "diverged"). Returns self, refreshed."""
        if infeasible is not None:
            if metrics:
                raise TypeError("an infeasible trial reports no metrics")
            body: Dict[str, Any] = {"infeasible": True, "reason": str(infeasible)}
        else:
            body = {"metrics": metrics_body(metrics)}
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
