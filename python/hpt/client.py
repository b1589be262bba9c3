"""The entry point: a Client for one hpt server."""

import json
import os
import warnings
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from hpt import _spec
from hpt._errors import ApiError
from hpt._http import (DEFAULT_NAMESPACE, Transport, check_namespace, experiments_path,
                       quote)
from hpt.experiment import Experiment
from hpt.space import Parameter

#: Where `hpt serve` listens by default.
DEFAULT_URL = "http://127.0.0.1:8750"

Spec = Union[Mapping[str, Any], str, "os.PathLike[str]"]

_SPEC_SUFFIXES = (".yaml", ".yml", ".json")


class Client:
    """Talks to one hpt server over its REST API v1, in one namespace.

    ``url`` defaults to $HPT_URL, then http://127.0.0.1:8750. The caller is
    ``api_key`` (a user's key, from ``hpt user create``) or ``token`` (the
    server's admin token, its --token-file contents), sent as the bearer;
    given neither, $HPT_API_KEY, then $HPT_TOKEN (an explicit ``token=""``
    sends none). ``namespace`` (default $HPT_NAMESPACE, then "default") is
    where experiments are created, listed and fetched.

    Every call that the server refuses raises ApiError: PermissionDenied
    (403) when the key's role may not (a viewer writing), Unauthenticated
    (401) for no key or an unknown one; outside the key's namespaces the
    server answers 404 as if nothing were there. An unreachable server
    raises ConnectionError. A Client keeps no connection open and may be
    shared between threads.
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None,
                 timeout: float = 30.0, *, api_key: Optional[str] = None,
                 namespace: Optional[str] = None) -> None:
        url = url or os.environ.get("HPT_URL") or DEFAULT_URL
        if api_key is not None and token is not None:
            raise TypeError("give api_key= (a user's key) or token= (the admin token), not both")
        bearer = api_key if api_key is not None else token
        if bearer is None:
            bearer = os.environ.get("HPT_API_KEY") or os.environ.get("HPT_TOKEN")
        self._transport = Transport(url, bearer, timeout)
        self._namespace = check_namespace(
            namespace if namespace is not None
            else os.environ.get("HPT_NAMESPACE") or DEFAULT_NAMESPACE)

    @property
    def url(self) -> str:
        return self._transport.url

    @property
    def namespace(self) -> str:
        """The namespace this client's experiments are in."""
        return self._namespace

    def whoami(self) -> Mapping[str, Any]:
        """Who the server takes this client for: {"name", "admin", "roles":
        {namespace: "member" | "viewer"}}."""
        return self._transport.request("GET", "/api/v1/whoami")

    def create_experiment(
            self, spec: Optional[Spec] = None, *, name: Optional[str] = None,
            space: Optional[Sequence[Parameter]] = None,
            objective: Union[str, Sequence[str], None] = None,
            direction: Union[str, Sequence[str], None] = None,
            directions: Optional[Sequence[str]] = None, algorithm: Optional[str] = None,
            algorithm_settings: Optional[Mapping[str, Any]] = None,
            max_trials: Optional[int] = None, parallel: Optional[int] = None,
            max_failed: Optional[int] = None, goal: Optional[float] = None,
            early_stopping: Optional[str] = None,
            early_stopping_settings: Optional[Mapping[str, Any]] = None,
            lease_seconds: Optional[int] = None,
            load_if_exists: bool = False, exist_ok: bool = False) -> Experiment:
        """Creates an experiment and returns it, from a spec or from a space.

        ``create_experiment(spec)``: a dict (sent as JSON), YAML text (sent
        as application/yaml), or a path (str or os.PathLike) to a .yaml,
        .yml or .json file.

        ``create_experiment(name, space=[hpt.Float(...), ...], ...)``: a
        client-run experiment (evaluated with optimize() or suggest()):
        ``objective`` is the metric's name ("objective" by default),
        ``direction`` "minimize" (default) or "maximize", ``algorithm`` and
        ``algorithm_settings`` Katib's (``"random"``, ``{"random_state":
        7}``), ``max_trials`` the budget (required), ``parallel``,
        ``max_failed`` and ``goal`` the spec's parallelTrialCount,
        maxFailedTrialCount and objective.goal, ``early_stopping`` and its
        settings the policy (``"medianstop"``, ``{"start_step": 2}``),
        ``lease_seconds`` the spec's trialLeaseSeconds (a Running trial with
        no report for that long is Failed, reason Abandoned; optimize()
        sends heartbeats meanwhile).

        Several objectives (a Pareto front): ``objective=["loss", "latency"]``
        with ``direction=["minimize", "minimize"]`` (or Optuna's
        ``directions=[...]``; without names the metrics are called
        objective_0, objective_1, ...) write ``objective.objectives``;
        optimize()'s fn then returns one value per objective, and
        Experiment.best_trials is the front. Algorithms that take several:
        random, sobol, grid, bayesianoptimization (ParEGO), nsga2.

        ``load_if_exists=True`` (or ``exist_ok=True``; a dict, .json or
        space only): when the name is taken, returns that experiment instead
        of raising 409, provided its spec matches; limits that differ
        (maxTrialCount, parallelTrialCount, maxFailedTrialCount,
        trialLeaseSeconds) are updated
        as by resume(), and any other difference raises ValueError naming
        each one. Raises ApiError 400 naming every problem with its field
        path when the spec is invalid, 409 when the name is taken.
        """
        keywords = (objective, direction, directions, algorithm, algorithm_settings, max_trials,
                    parallel, max_failed, goal, early_stopping, early_stopping_settings,
                    lease_seconds)
        if space is not None:
            if spec is not None and name is not None:
                raise TypeError("give the experiment's name once (positionally or name=)")
            spec = _spec.build(
                name if name is not None else spec, space, objective=objective,
                direction=direction, algorithm=algorithm,
                algorithm_settings=algorithm_settings, max_trials=max_trials,
                parallel=parallel, max_failed=max_failed, goal=goal,
                early_stopping=early_stopping, early_stopping_settings=early_stopping_settings,
                lease_seconds=lease_seconds, directions=directions)
        elif name is not None or any(k is not None for k in keywords):
            raise TypeError("name=, objective=, max_trials=, ... go with space=; "
                            "otherwise give the whole spec")
        elif spec is None:
            raise TypeError("create_experiment() needs a spec, or a name and space=")
        if not (load_if_exists or exist_ok):
            return self._create(spec)
        wanted = _spec_dict(spec)
        try:
            return self._create(wanted)
        except ApiError as e:
            if e.status != "ALREADY_EXISTS":
                raise
        existing = self.experiment(str(wanted.get("name")))
        differences = _spec.differences(wanted, existing.spec)
        if differences:
            raise ValueError(
                f"experiment {existing.name!r} already exists with a different spec: "
                + "; ".join(differences)
                + " (there: the stored spec, here: the one given; delete it, or use another name)")
        limits = _spec.limit_changes(wanted, existing.spec)
        if limits:
            existing.resume(max_trials=limits.get("maxTrialCount"),
                            parallel=limits.get("parallelTrialCount"),
                            max_failed=limits.get("maxFailedTrialCount"),
                            lease_seconds=limits.get("trialLeaseSeconds"))
        return existing

    def _create(self, spec: Spec) -> Experiment:
        path = experiments_path(self._namespace)
        if isinstance(spec, Mapping):
            reply = self._transport.request("POST", path, dict(spec))
        else:
            body, content_type = _spec_body(spec)
            reply = self._transport.request("POST", path, body, content_type)
        for note in reply.get("notes") or []:  # e.g. a pruner that can never prune
            warnings.warn(f"experiment {reply.get('name')!r}: {note}", UserWarning, stacklevel=3)
        return Experiment(self, reply)

    def experiment(self, name: str) -> Experiment:
        """The experiment called ``name`` in this client's namespace
        (ApiError 404 when there is none)."""
        return Experiment(self, self._transport.request(
            "GET", f"{experiments_path(self._namespace)}/{quote(name)}"))

    def experiments(self) -> List[Experiment]:
        """Every experiment in this client's namespace."""
        reply = self._transport.request("GET", experiments_path(self._namespace))
        return [Experiment(self, e) for e in reply.get("experiments", [])]

    def algorithms(self) -> List[str]:
        """The names of the algorithms the server knows."""
        return list(self._transport.request("GET", "/api/v1/algorithms").get("algorithms", []))

    def health(self) -> Mapping[str, Any]:
        """GET /healthz: {"status": "ok", "version": ...}."""
        return self._transport.request("GET", "/healthz")

    def __repr__(self) -> str:
        if self._namespace == DEFAULT_NAMESPACE:
            return f"Client({self.url!r})"
        return f"Client({self.url!r}, namespace={self._namespace!r})"


def _spec_dict(spec: Spec) -> Dict[str, Any]:
    """The spec as a dict, to compare with a stored one (load_if_exists)."""
    if isinstance(spec, Mapping):
        return dict(spec)
    path = os.fspath(spec) if isinstance(spec, os.PathLike) else str(spec).strip()
    if path.endswith(".json") and "\n" not in path:
        with open(path, "rb") as f:
            return json.loads(f.read())
    raise TypeError("load_if_exists compares the spec with the stored one, so it needs a "
                    "dict, a .json file or name and space=; hpt's Python client reads no "
                    "YAML (the server does)")


def _spec_body(spec: Union[str, "os.PathLike[str]"]) -> Tuple[bytes, str]:
    """Reads a spec given as a path or YAML text into (body, content type)."""
    path = None
    if isinstance(spec, os.PathLike):
        path = os.fspath(spec)
    elif isinstance(spec, str) and "\n" not in spec.strip() and (
            spec.strip().endswith(_SPEC_SUFFIXES) or os.path.isfile(spec)):
        path = spec.strip()
    elif not isinstance(spec, str):
        raise TypeError("spec must be a dict, YAML text or a path to a .yaml/.json "
                        f"file, not {type(spec).__name__}")
    if path is None:
        return spec.encode(), "application/yaml"
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".json"):
        json.loads(data)  # a clear local error beats the server's byte offset
        return data, "application/json"
    return data, "application/yaml"
