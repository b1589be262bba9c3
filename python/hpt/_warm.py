"""Warm starts: the bodies of trials:enqueue (configurations to try first,
Optuna's enqueue_trial) and trials:import (finished trials with known
results, Optuna's add_trial), built from Optuna-shaped arguments."""

import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from hpt._http import metrics_body
from hpt._params import assignments

#: add_trial's phases, by hpt's names and by Optuna's TrialState names.
_PHASES = {"Succeeded": "Succeeded", "EarlyStopped": "EarlyStopped",
           "COMPLETE": "Succeeded", "PRUNED": "EarlyStopped"}


def enqueue_body(params: Sequence[Mapping[str, Any]], spec: Mapping[str, Any],
                 skip_if_exists: bool) -> Dict[str, Any]:
    """trials:enqueue's body for a list of {name: value}."""
    if isinstance(params, Mapping):
        raise TypeError("enqueue_trials() takes a list of dicts; enqueue_trial() takes one")
    trials = [{"parameterAssignments": assignments(p, spec)} for p in params]
    if not trials:
        raise ValueError("enqueue_trials() needs at least one configuration")
    return {"trials": trials, "skipIfExists": bool(skip_if_exists)}


def _phase(phase: Any) -> str:
    key = getattr(phase, "name", phase)  # optuna.trial.TrialState.COMPLETE too
    if key not in _PHASES:
        raise ValueError(f"phase must be 'Succeeded' or 'EarlyStopped' (Optuna's COMPLETE or "
                         f"PRUNED), not {phase!r}")
    return _PHASES[key]


def trial_body(spec: Mapping[str, Any], objectives: Sequence[str], params: Mapping[str, Any],
               value: Optional[float] = None, values: Optional[Sequence[float]] = None,
               metrics: Optional[Mapping[str, float]] = None, phase: Any = "Succeeded",
               intermediate_values: Optional[Mapping[int, float]] = None) -> Dict[str, Any]:
    """One entry of trials:import's "trials": ``value`` is the (first)
    objective's, ``values`` one per objective in order, ``metrics`` any
    others by name, ``intermediate_values`` {step: first objective's
    value} become observations."""
    final: Dict[str, Any] = {}
    if value is not None and values is not None:
        raise TypeError("give value= (one objective) or values= (one per objective), not both")
    if value is not None:
        if len(objectives) > 1:
            raise ValueError(f"the experiment has {len(objectives)} objectives "
                             f"({', '.join(objectives)}): give values=[...], one for each")
        final[objectives[0]] = value
    if values is not None:
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            raise TypeError(f"values must be a list of numbers, not {type(values).__name__}")
        if len(values) != len(objectives):
            raise ValueError(f"values has {len(values)} numbers but the experiment has "
                             f"{len(objectives)} objectives ({', '.join(objectives)})")
        final.update(zip(objectives, values))
    for name, v in (metrics or {}).items():
        if name in final:
            raise TypeError(f"metric {name!r} is given twice (value(s)= and metrics=)")
        final[name] = v
    entry: Dict[str, Any] = {"parameterAssignments": assignments(params, spec),
                             "phase": _phase(phase)}
    if final:
        entry["metrics"] = metrics_body(final)
    if intermediate_values:
        if not isinstance(intermediate_values, Mapping):
            raise TypeError("intermediate_values must be a dict of step to value")
        entry["observations"] = [
            {"step": int(step), "metrics": metrics_body({objectives[0]: v})}
            for step, v in sorted(intermediate_values.items(), key=lambda kv: int(kv[0]))]
    return entry


def trials_body(spec: Mapping[str, Any], objectives: Sequence[str],
                trials: Sequence[Mapping[str, Any]]) -> Dict[str, Any]:
    """trials:import's body for add_trials(): each dict holds add_trial's
    keyword arguments (params, value or values, metrics, phase,
    intermediate_values)."""
    if isinstance(trials, Mapping):
        raise TypeError("add_trials() takes a list of dicts; add_trial() takes one")
    out: List[Dict[str, Any]] = []
    for i, t in enumerate(trials):
        if not isinstance(t, Mapping):
            raise TypeError(f"add_trials(): trials[{i}] must be a dict with params, value or "
                            f"values, ..., not {type(t).__name__}")
        unknown = set(t) - {"params", "value", "values", "metrics", "phase",
                            "intermediate_values"}
        if unknown or "params" not in t:
            raise TypeError(f"add_trials(): trials[{i}] needs 'params' and takes value, values, "
                            f"metrics, phase, intermediate_values; not {sorted(unknown)}")
        try:
            out.append(trial_body(spec, objectives, **t))
        except (TypeError, ValueError) as e:
            raise type(e)(f"add_trials(): trials[{i}]: {e}") from None
    if not out:
        raise ValueError("add_trials() needs at least one trial")
    return {"trials": out}


Csv = Union[str, bytes, "os.PathLike[str]", Any]


def csv_body(csv: Csv) -> bytes:
    """The CSV to send: a pandas DataFrame (written without its index),
    a path (str ending in .csv or naming a file, or os.PathLike), bytes, or
    the CSV text itself."""
    if hasattr(csv, "to_csv"):
        return csv.to_csv(index=False).encode()
    if isinstance(csv, bytes):
        return csv
    if isinstance(csv, os.PathLike):
        with open(os.fspath(csv), "rb") as f:
            return f.read()
    if not isinstance(csv, str):
        raise TypeError("csv must be a path, CSV text or a pandas DataFrame, "
                        f"not {type(csv).__name__}")
    one_line = "\n" not in csv.strip()
    if one_line and (csv.strip().endswith(".csv") or os.path.isfile(csv.strip())):
        with open(csv.strip(), "rb") as f:
            return f.read()
    return csv.encode()
