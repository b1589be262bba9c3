"""Specs for Client.create_experiment(name, space=...): writing one from
Optuna-style arguments, and comparing a spec with the one the server
stores (for load_if_exists)."""

import math
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from hpt.space import Parameter, parameters

#: Limits that load_if_exists updates (PATCH) rather than refuses.
LIMITS = ("maxTrialCount", "parallelTrialCount", "maxFailedTrialCount", "trialLeaseSeconds")
#: Parts of a spec that, when the stored spec has them and the given one
#: does not, still make the two differ (the rest are the server's defaults).
_STRUCTURAL = ("earlyStopping", "trialTemplate", "nasConfig")
#: Parts compared both ways: a field the stored spec has and the given one
#: lacks is a difference too, unless it holds the server's default.
_BOTH_WAYS = ("objective", "parameters")
_DEFAULTS = {"distribution": "uniform"}


def _settings(values: Optional[Mapping[str, Any]], what: str) -> List[Dict[str, str]]:
    if values is None:
        return []
    if not isinstance(values, Mapping):
        raise TypeError(f"{what} must be a dict of setting name to value, "
                        f"not {type(values).__name__}")
    return [{"name": str(k), "value": str(v)} for k, v in values.items()]


Names = Union[str, Sequence[str], None]
_DIRECTIONS = ("minimize", "maximize")


def _objective(objective: Names, direction: Names, directions: Optional[Sequence[str]],
               goal: Optional[float]) -> Dict[str, Any]:
    """The spec's objective: one metric and direction, or (a list of
    either, or directions=) objective.objectives, the first also as
    type/objectiveMetricName."""
    if directions is not None:
        if direction is not None:
            raise TypeError("give direction= or directions=, not both")
        if isinstance(directions, str):
            raise TypeError("directions= is a list, e.g. ['minimize', 'maximize']; "
                            "for one objective use direction=")
        direction = list(directions)
    names = [objective] if objective is None or isinstance(objective, str) else list(objective)
    ways = [direction] if direction is None or isinstance(direction, str) else list(direction)
    if len(names) == 1 and len(ways) > 1:
        if names[0] is not None:
            raise ValueError(f"{len(ways)} directions but one objective {names[0]!r}: "
                             "give objective=[name, ...] with one name per direction")
        names = [f"objective_{i}" for i in range(len(ways))]
    elif len(ways) == 1 and len(names) > 1:
        ways = ways * len(names) if ways[0] is None else ways
    if len(names) != len(ways):
        raise ValueError(f"{len(names)} objectives but {len(ways)} directions: "
                         "give one direction per objective")
    if not names:
        raise ValueError("objective must name at least one metric")
    ways = [w or "minimize" for w in ways]
    for w in ways:
        if w not in _DIRECTIONS:
            raise ValueError(f"direction must be 'minimize' or 'maximize', not {w!r}")
    for n in names:
        if n is not None and (not isinstance(n, str) or not n):
            raise TypeError(f"an objective must be a metric's name (a non-empty str), not {n!r}")
    names = [n or "objective" for n in names]
    if len(set(names)) != len(names):
        raise ValueError(f"objectives must differ: {names}")
    out: Dict[str, Any] = {"type": ways[0], "objectiveMetricName": names[0]}
    # Optuna's value is what the function returns (complete()'s, the last
    # observation), not the best report; the server's default is Katib's.
    out["metricStrategies"] = [{"name": n, "value": "latest"} for n in names]
    if len(names) > 1:
        if goal is not None:
            raise ValueError("goal needs a single objective")
        out["objectives"] = [{"type": w, "objectiveMetricName": n} for n, w in zip(names, ways)]
    elif goal is not None:
        out["goal"] = float(goal)
    return out


def build(name: str, space: Sequence[Parameter], *, objective: Names,
          direction: Names, algorithm: Optional[str],
          algorithm_settings: Optional[Mapping[str, Any]], max_trials: Optional[int],
          parallel: Optional[int], max_failed: Optional[int], goal: Optional[float],
          early_stopping: Optional[str],
          early_stopping_settings: Optional[Mapping[str, Any]],
          lease_seconds: Optional[int] = None,
          directions: Optional[Sequence[str]] = None,
          empty_space_ok: bool = False) -> Dict[str, Any]:
    """The spec a client-run experiment gets from create_experiment's
    keyword form; the server validates it further."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"the experiment's name must be a non-empty str, not {name!r}")
    if max_trials is None:
        raise TypeError("create_experiment(name, space=...) needs max_trials, "
                        "the experiment's trial budget (maxTrialCount)")
    max_trials = int(max_trials)
    spec: Dict[str, Any] = {
        "name": name,
        "objective": _objective(objective, direction, directions, goal),
        "algorithm": {"algorithmName": algorithm or "random",
                      "algorithmSettings": _settings(algorithm_settings,
                                                     "algorithm_settings")},
        "maxTrialCount": max_trials,
        # Empty for a study: its trials define the parameters (suggest_*).
        "parameters": parameters(space) if space or not empty_space_ok else [],
    }
    # The server's defaults (3 each) may not exceed maxTrialCount: a small
    # budget lowers them rather than being refused.
    spec["parallelTrialCount"] = int(parallel) if parallel is not None else min(3, max_trials)
    spec["maxFailedTrialCount"] = (int(max_failed) if max_failed is not None
                                   else min(3, max_trials))
    if lease_seconds is not None:
        spec["trialLeaseSeconds"] = int(lease_seconds)
    if early_stopping is not None:
        spec["earlyStopping"] = {
            "algorithmName": early_stopping,
            "algorithmSettings": _settings(early_stopping_settings, "early_stopping_settings")}
    elif early_stopping_settings:
        raise TypeError("early_stopping_settings needs early_stopping (e.g. 'medianstop')")
    return spec


def differences(given: Mapping[str, Any], stored: Mapping[str, Any]) -> List[str]:
    """What differs between a spec and the one the server stores, one
    'path: A there, B here' each, leaving out the limits (LIMITS) and the
    defaults the server filled in. Numbers compare by value ("1e-5" is
    0.00001); settings compare by name."""
    out: List[str] = []
    for key, value in given.items():
        if key in LIMITS or key == "name":
            continue
        if key not in stored:
            if not _empty(value):
                out.append(f"{key}: not set there, {_show(value)} here")
            continue
        _walk(key, value, stored[key], out, key in _BOTH_WAYS)
    for key in _STRUCTURAL:
        if key not in given and not _empty(stored.get(key)):
            out.append(f"{key}: {_show(stored[key])} there, not set here")
    return out


def limit_changes(given: Mapping[str, Any], stored: Mapping[str, Any]) -> Dict[str, int]:
    """The limits the given spec sets to other values than the stored one."""
    return {k: int(given[k]) for k in LIMITS
            if k in given and not _same(given[k], stored.get(k))}


def _walk(path: str, given: Any, stored: Any, out: List[str], both_ways: bool) -> None:
    if isinstance(given, Mapping):
        if not isinstance(stored, Mapping):
            out.append(f"{path}: {_show(stored)} there, {_show(given)} here")
            return
        for key, value in given.items():
            if key not in stored:
                if not _empty(value):
                    out.append(f"{path}.{key}: not set there, {_show(value)} here")
                continue
            _walk(f"{path}.{key}", value, stored[key], out, both_ways)
        if both_ways:
            for key, value in stored.items():
                if key not in given and not _empty(value) and _DEFAULTS.get(key) != value:
                    out.append(f"{path}.{key}: {_show(value)} there, not set here")
    elif isinstance(given, (list, tuple)):
        if not isinstance(stored, (list, tuple)):
            out.append(f"{path}: {_show(stored)} there, {_show(given)} here")
        elif _is_settings(given) and _is_settings(stored):
            there = {s["name"]: s["value"] for s in stored}
            for s in given:
                if s["name"] not in there:
                    out.append(f"{path}.{s['name']}: not set there, {_show(s['value'])} here")
                elif not _same(s["value"], there[s["name"]]):
                    out.append(f"{path}.{s['name']}: {_show(there[s['name']])} there, "
                               f"{_show(s['value'])} here")
            here = {s["name"] for s in given}
            for s in stored:  # the server fills in no settings: any other is the user's
                if s["name"] not in here:
                    out.append(f"{path}.{s['name']}: {_show(s['value'])} there, not set here")
        elif _names(given) != _names(stored) or len(given) != len(stored):
            out.append(f"{path}: {_show_list(stored)} there, {_show_list(given)} here")
        else:
            for i, (g, s) in enumerate(zip(given, stored)):
                _walk(f"{path}[{i}]", g, s, out, both_ways)
    elif not _same(given, stored):
        out.append(f"{path}: {_show(stored)} there, {_show(given)} here")


def _number(value: Any) -> Optional[float]:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _same(a: Any, b: Any) -> bool:
    x, y = _number(a), _number(b)
    if x is not None and y is not None:
        return x == y or math.isclose(x, y, rel_tol=1e-9)
    return a == b


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (list, tuple, dict, str)) and not value)


def _is_settings(items: Sequence[Any]) -> bool:
    return all(isinstance(s, Mapping) and set(s) == {"name", "value"} for s in items)


def _names(items: Sequence[Any]) -> Optional[List[Any]]:
    if all(isinstance(i, Mapping) and "name" in i for i in items):
        return [i["name"] for i in items]
    return None


def _show(value: Any) -> str:
    if isinstance(value, Mapping) and "algorithmName" in value:
        return str(value["algorithmName"])
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value) if isinstance(value, (str, int, float)) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _show_list(items: Sequence[Any]) -> str:
    names = _names(items)
    if names is not None:
        return "[" + ", ".join(str(n) for n in names) + "]"
    return _show(list(items))
