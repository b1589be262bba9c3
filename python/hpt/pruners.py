"""Optuna's pruners, as hpt early-stopping policies.

Each class takes the constructor arguments of its namesake in Optuna 3.1
(``optuna.pruners``) and ``to_spec()`` gives the experiment spec's
``earlyStopping`` block (None for NopPruner: no early stopping)::

    spec["earlyStopping"] = hpt.pruners.MedianPruner(n_warmup_steps=1).to_spec()

The server decides as Optuna does (docs/early-stopping.md); trials ask
``trial.should_prune()``. Arguments are checked here as Optuna checks them
(ValueError), so a mistake shows at the line that made it.

Differences that remain:
 - SuccessiveHalvingPruner(min_resource="auto") starts its rungs at step 1
   (Optuna estimates the first rung from the first finished trial), and
   HyperbandPruner needs max_resource: the step a trial reaches when it runs
   to the end. bootstrap_count must be 0.
 - Non-finite intermediate values are not reported to the policies, so a
   NaN does not prune (Optuna's ThresholdPruner prunes on NaN).
"""

import math
from typing import Any, Dict, List, Optional, Union

__all__ = ["BasePruner", "MedianPruner", "PercentilePruner", "PatientPruner",
           "ThresholdPruner", "SuccessiveHalvingPruner", "HyperbandPruner", "NopPruner"]


def _text(value: Union[int, float]) -> str:
    return repr(float(value)) if isinstance(value, float) else str(int(value))


def _spec(algorithm: str, settings: Dict[str, Union[int, float, str]]) -> Dict[str, Any]:
    listed: List[Dict[str, str]] = [
        {"name": name, "value": value if isinstance(value, str) else _text(value)}
        for name, value in settings.items()]
    return {"algorithmName": algorithm, "algorithmSettings": listed}


def _at_least(name: str, value: int, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < least:
        raise ValueError(f"{name} must be at least {least} but got {value}.")
    return value


class BasePruner:
    """A pruner: ``to_spec()`` is the spec's earlyStopping block, or None."""

    def to_spec(self) -> Optional[Dict[str, Any]]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_spec()!r})"


class PercentilePruner(BasePruner):
    """Optuna's PercentilePruner: hpt's ``percentile`` policy. A trial whose
    best intermediate value is outside the top ``percentile`` percent of the
    finished trials' values at the same step is pruned."""

    def __init__(self, percentile: float, n_startup_trials: int = 5,
                 n_warmup_steps: int = 0, interval_steps: int = 1, *,
                 n_min_trials: int = 1) -> None:
        if not 0.0 <= percentile <= 100:
            raise ValueError(
                f"Percentile must be between 0 and 100 inclusive but got {percentile}.")
        self._settings: Dict[str, Union[int, float, str]] = {
            "n_startup_trials": _at_least("n_startup_trials", n_startup_trials, 0),
            "n_warmup_steps": _at_least("n_warmup_steps", n_warmup_steps, 0),
            "interval_steps": _at_least("interval_steps", interval_steps, 1),
            "n_min_trials": _at_least("n_min_trials", n_min_trials, 1),
        }
        self._percentile = float(percentile)

    def to_spec(self) -> Dict[str, Any]:
        return _spec("percentile", {"percentile": self._percentile, **self._settings})


class MedianPruner(PercentilePruner):
    """Optuna's MedianPruner: hpt's ``medianstop`` with the same defaults
    (5 startup trials, pruning from step 0)."""

    def __init__(self, n_startup_trials: int = 5, n_warmup_steps: int = 0,
                 interval_steps: int = 1, *, n_min_trials: int = 1) -> None:
        super().__init__(50.0, n_startup_trials, n_warmup_steps, interval_steps,
                         n_min_trials=n_min_trials)

    def to_spec(self) -> Dict[str, Any]:
        return _spec("medianstop", self._settings)


class PatientPruner(BasePruner):
    """Optuna's PatientPruner: hpt's ``patient``. A trial whose best value
    has not improved by more than ``min_delta`` for ``patience`` steps is
    pruned, or handed to ``wrapped_pruner`` to decide."""

    def __init__(self, wrapped_pruner: Optional[BasePruner], patience: int,
                 min_delta: float = 0.0) -> None:
        _at_least("patience", patience, 0)
        if min_delta < 0 or math.isnan(min_delta):
            raise ValueError(f"min_delta cannot be negative but got {min_delta}.")
        if wrapped_pruner is not None and not isinstance(wrapped_pruner, BasePruner):
            raise TypeError("wrapped_pruner must be one of hpt.pruners' pruners or None, "
                            f"got {wrapped_pruner!r}")
        if isinstance(wrapped_pruner, PatientPruner):
            raise ValueError("hpt's PatientPruner cannot wrap another PatientPruner")
        self._wrapped = wrapped_pruner
        self._patience = patience
        self._min_delta = float(min_delta)

    def to_spec(self) -> Optional[Dict[str, Any]]:
        settings: Dict[str, Union[int, float, str]] = {"patience": self._patience,
                                                       "min_delta": self._min_delta}
        if self._wrapped is not None:
            wrapped = self._wrapped.to_spec()
            if wrapped is None:  # a NopPruner never prunes, so neither does this
                return None
            settings["wrapped_pruner"] = wrapped["algorithmName"]
            for s in wrapped["algorithmSettings"]:
                settings[s["name"]] = s["value"]
        return _spec("patient", settings)


class ThresholdPruner(BasePruner):
    """Optuna's ThresholdPruner: hpt's ``threshold``. A trial whose latest
    intermediate value is below ``lower`` or above ``upper`` is pruned."""

    def __init__(self, lower: Optional[float] = None, upper: Optional[float] = None,
                 n_warmup_steps: int = 0, interval_steps: int = 1) -> None:
        if lower is None and upper is None:
            raise TypeError("Either lower or upper must be specified.")
        if lower is not None and upper is not None and float(lower) > float(upper):
            raise ValueError("lower should be smaller than upper.")
        self._settings: Dict[str, Union[int, float, str]] = {}
        if lower is not None:
            self._settings["lower"] = float(lower)
        if upper is not None:
            self._settings["upper"] = float(upper)
        self._settings["n_warmup_steps"] = _at_least("n_warmup_steps", n_warmup_steps, 0)
        self._settings["interval_steps"] = _at_least("interval_steps", interval_steps, 1)

    def to_spec(self) -> Dict[str, Any]:
        return _spec("threshold", self._settings)


def _no_bootstrap(bootstrap_count: int) -> None:
    if bootstrap_count != 0:
        raise ValueError(f"bootstrap_count={bootstrap_count} is not supported by hpt (0 only)")


class SuccessiveHalvingPruner(BasePruner):
    """Optuna's SuccessiveHalvingPruner (asynchronous successive halving):
    hpt's ``asha``, rungs at min_resource * reduction_factor ** (
    min_early_stopping_rate + k) steps."""

    def __init__(self, min_resource: Union[str, int] = "auto", reduction_factor: int = 4,
                 min_early_stopping_rate: int = 0, bootstrap_count: int = 0) -> None:
        if isinstance(min_resource, str) and min_resource != "auto":
            raise ValueError(
                f"The value of `min_resource` is {min_resource}, but must be either "
                "`min_resource >= 1` or 'auto'")
        if not isinstance(min_resource, str):
            _at_least("min_resource", min_resource, 1)
        _at_least("reduction_factor", reduction_factor, 2)
        _at_least("min_early_stopping_rate", min_early_stopping_rate, 0)
        _no_bootstrap(bootstrap_count)
        first = 1 if min_resource == "auto" else int(min_resource)
        self._settings: Dict[str, Union[int, float, str]] = {
            "eta": reduction_factor,
            "min_resource": first * reduction_factor ** min_early_stopping_rate}

    def to_spec(self) -> Dict[str, Any]:
        return _spec("asha", self._settings)


class HyperbandPruner(BasePruner):
    """Optuna's HyperbandPruner: hpt's ``hyperband`` early-stopping policy
    (r_l = max_resource, eta = reduction_factor)."""

    def __init__(self, min_resource: int = 1, max_resource: Union[str, int] = "auto",
                 reduction_factor: int = 3, bootstrap_count: int = 0) -> None:
        if max_resource == "auto":
            raise ValueError(
                "HyperbandPruner(max_resource='auto') is not supported by hpt: give "
                "max_resource, the step a trial reaches when it runs to the end "
                "(e.g. its number of epochs)")
        _at_least("min_resource", min_resource, 1)
        _at_least("max_resource", int(max_resource), min_resource)
        _at_least("reduction_factor", reduction_factor, 2)
        _no_bootstrap(bootstrap_count)
        self._settings: Dict[str, Union[int, float, str]] = {
            "r_l": int(max_resource), "eta": reduction_factor, "min_resource": min_resource}

    def to_spec(self) -> Dict[str, Any]:
        return _spec("hyperband", self._settings)


class NopPruner(BasePruner):
    """Optuna's NopPruner: no early stopping (``to_spec()`` is None)."""

    def to_spec(self) -> None:
        return None
