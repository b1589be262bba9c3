"""Experiment's warm-start methods (Optuna's enqueue_trial, add_trial and
an import from another experiment or a CSV), kept apart from the rest of
the handle in hpt/experiment.py."""

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence

from hpt import _warm
from hpt.trial import Trial

if TYPE_CHECKING:
    from hpt.client import Client


class WarmStart:
    """Mixed into Experiment, whose spec, objective_metrics, _request,
    _path and _client these methods use."""

    spec: Dict[str, Any]
    _client: "Client"

    def enqueue_trial(self, params: Mapping[str, Any],
                      skip_if_exists: bool = False) -> Dict[str, Any]:
        """Optuna's enqueue_trial: ``params`` ({name: value}, typed as
        trial.params are) is the next configuration suggested, before the
        algorithm is asked (queued ones go oldest first, and count towards
        maxTrialCount). ``skip_if_exists`` leaves it out when a trial or a
        queued entry already has it. Returns {"queued": [...], "skipped":
        count, "queueLength"}; ApiError 400 names a parameter that does not
        fit the space, 409 when the experiment has finished."""
        return self.enqueue_trials([params], skip_if_exists)

    def enqueue_trials(self, params: Sequence[Mapping[str, Any]],
                       skip_if_exists: bool = False) -> Dict[str, Any]:
        """enqueue_trial() for a list of configurations, in one request
        (all or nothing)."""
        return self._request("POST", "/trials:enqueue",
                             _warm.enqueue_body(params, self.spec, skip_if_exists))

    def add_trial(self, params: Mapping[str, Any], value: Optional[float] = None,
                  values: Optional[Sequence[float]] = None,
                  metrics: Optional[Mapping[str, float]] = None, phase: str = "Succeeded",
                  intermediate_values: Optional[Mapping[int, float]] = None) -> Trial:
        """Optuna's add_trial: stores a finished trial with known results
        (reason Imported), which the algorithm then learns from; it does
        not count towards maxTrialCount. ``params`` {name: value}; ``value``
        the objective's result, or ``values`` one per objective (in
        objective_metrics order); ``metrics`` more metrics by name;
        ``phase`` "Succeeded" or "EarlyStopped" (Optuna's "COMPLETE",
        "PRUNED" too); ``intermediate_values`` {step: value} of the (first)
        objective, stored as observations. Returns the new Trial."""
        body = _warm.trials_body(self.spec, self.objective_metrics, [{
            "params": params, "value": value, "values": values, "metrics": metrics,
            "phase": phase, "intermediate_values": intermediate_values}])
        reply = self._request("POST", "/trials:import", body)
        return Trial(self, reply["trials"][0])

    def add_trials(self, trials: Sequence[Mapping[str, Any]]) -> List[Trial]:
        """add_trial() for many, in one request (all or nothing): each
        entry is a dict of add_trial's arguments, ``{"params": {...},
        "value": 0.3}``. Returns the new Trials."""
        body = _warm.trials_body(self.spec, self.objective_metrics, trials)
        return [Trial(self, t) for t in self._request("POST", "/trials:import", body)["trials"]]

    def import_trials(self, from_experiment: Optional[str] = None,
                      csv: Optional[_warm.Csv] = None) -> Dict[str, Any]:
        """Imports finished trials (as add_trial does) from another
        experiment on this server (its Succeeded and EarlyStopped trials
        that fit this space and report its objectives) or from a CSV: a
        path, CSV text or a pandas DataFrame, with a column per parameter
        (or params_<name>), per metric (or Optuna's value / values_<i> for
        the objectives in order) and an optional state (COMPLETE, PRUNED;
        other rows are skipped) -- what Optuna's
        ``study.trials_dataframe().to_csv()`` writes. Returns {"trials":
        [Trial], "skipped": [why, ...], "ignoredColumns": [...]}."""
        if (from_experiment is None) == (csv is None):
            raise TypeError("import_trials() takes from_experiment= or csv=, one of them")
        if from_experiment is not None:
            reply = self._request("POST", "/trials:import", {"fromExperiment": from_experiment})
        else:
            reply = self._client._transport.request(
                "POST", self._path("/trials:import"), _warm.csv_body(csv), "text/csv")
        return {"trials": [Trial(self, t) for t in reply.get("trials") or []],
                "skipped": list(reply.get("skipped") or []),
                "ignoredColumns": list(reply.get("ignoredColumns") or [])}
