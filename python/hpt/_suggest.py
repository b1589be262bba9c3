"""Define-by-run: Optuna's trial.suggest_* against the server.

A trial asks for a parameter by its definition (hpt.Float, hpt.Int or
hpt.Categorical). A parameter the experiment has not seen joins its space on
the server; a known one must keep its definition (ValueError otherwise, as
Optuna's distributions). The value is the one the experiment's algorithm
chose for this trial, or, for a trial made before the parameter joined, a
draw from its prior."""

import threading
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional

from hpt._errors import ApiError
from hpt._params import Value, converters

if TYPE_CHECKING:
    from hpt.space import Parameter
    from hpt.trial import Trial

_lock = threading.Lock()


def _number(value: Any) -> Optional[float]:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def same_definition(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two spec.parameters entries define the same distribution
    (numbers compared by value: "0.01" is 1e-2; an int's step defaults to 1)."""
    if a.get("parameterType") != b.get("parameterType"):
        return False
    fa, fb = a.get("feasibleSpace") or {}, b.get("feasibleSpace") or {}
    int_step = 1.0 if a.get("parameterType") == "int" else None
    for key in ("min", "max"):
        if _number(fa.get(key)) != _number(fb.get(key)):
            return False
    if (_number(fa.get("step")) or int_step) != (_number(fb.get("step")) or int_step):
        return False
    if (fa.get("distribution") or "uniform") != (fb.get("distribution") or "uniform"):
        return False
    return [str(v) for v in fa.get("list") or []] == [str(v) for v in fb.get("list") or []]


def _known(trial: "Trial", name: str) -> Optional[Mapping[str, Any]]:
    for p in trial.experiment.spec.get("parameters") or []:
        if p.get("name") == name:
            return p
    return None


def suggest(trial: "Trial", dist: "Parameter") -> Value:
    """The trial's value of `dist`'s parameter, asking the server when
    needed; records the name as used by the trial."""
    spec = dist.to_spec()
    name = spec["name"]
    asked = trial._asked.get(name)
    if asked is not None:
        if not same_definition(asked, spec):
            raise ValueError(f"parameter {name!r} was suggested as {asked} in this trial; "
                             f"it cannot be suggested again as {spec}")
        return trial.parameters[name]
    known = _known(trial, name)
    convert = converters({"parameters": [spec]})[name]
    text = next((a.get("value") for a in trial.raw.get("parameterAssignments") or []
                 if a.get("name") == name), None)
    if known is None or text is None or not same_definition(known, spec):
        try:
            reply = trial._request("POST", ":suggestParameter", {"parameter": spec})
        except ApiError as e:
            if e.code == 400:  # another definition of the name, or a bad one
                raise ValueError(e.message) from None
            raise
        text = reply["value"]
        _learn(trial, spec, name, text)
    value = convert(text) if isinstance(text, str) else text
    trial.parameters[name] = value
    trial._asked[name] = spec
    return value


def _learn(trial: "Trial", spec: Dict[str, Any], name: str, text: str) -> None:
    """Keeps what the server now holds: the parameter in the experiment's
    spec (so later trials type its values) and in this trial's assignment."""
    exp = trial.experiment
    with _lock:
        if _known(trial, name) is None:
            exp.spec.setdefault("parameters", []).append(dict(spec, definedByRun=True))
            exp._converters.update(converters({"parameters": [spec]}))
    assignments = trial.raw.setdefault("parameterAssignments", [])
    if not any(a.get("name") == name for a in assignments):
        assignments.append({"name": name, "value": text})
