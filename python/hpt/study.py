"""Optuna's study API on hpt: ``import hpt as optuna`` and an Optuna
program runs as it is, against a server (``storage="http://..."``), a
database file (``storage="sqlite:///path.db"``: a local server on it) or,
by default, a private local server for this process."""

import math
import os
import threading
import uuid
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from hpt import _spec
from hpt._errors import ApiError
from hpt._optimize import end_failed, end_pruned
from hpt.client import Client
from hpt.experiment import Experiment
from hpt.samplers import BaseSampler, GridSampler
from hpt.trial import Trial, TrialState

#: The trial budget of a study: Optuna's studies have none (optimize's
#: n_trials or timeout decide), nor a failure budget.
STUDY_MAX_TRIALS = 1_000_000
#: How many trials of a study may run at once (optimize's n_jobs, ask()).
STUDY_PARALLEL = 64

_servers: Dict[Optional[str], Client] = {}
_servers_lock = threading.Lock()

Storage = Union[None, str, Client]


def _client(storage: Storage) -> Client:
    """The server a study lives on: a Client as given; an http(s) URL;
    "sqlite:///path" (Optuna's RDB URL) a local server on that database
    file, kept between runs; None $HPT_URL if set, else a local server with a
    temporary database for this process (as Optuna's in-memory default).
    Local servers are started once per process and stop at its exit."""
    if isinstance(storage, Client):
        return storage
    if storage is None and os.environ.get("HPT_URL"):
        return Client()
    db: Optional[str] = None
    if isinstance(storage, str):
        if storage.startswith(("http://", "https://")):
            return Client(storage)
        if not storage.startswith("sqlite:///"):
            raise ValueError(f"storage {storage!r}: give an hpt server's http(s):// URL, "
                             "sqlite:///path.db (a local server on that file) or None")
        db = os.path.abspath(storage[len("sqlite:///"):])
    elif storage is not None:
        raise TypeError(f"storage must be a URL, an hpt.Client or None, not {storage!r}")
    with _servers_lock:
        server = _servers.get(db)
        if server is None or getattr(server, "process", None) is None:
            from hpt.local import local
            server = _servers[db] = local(db=db)
        return server


class _TrialList(list):
    """``study.trials`` (Optuna's property) that ``study.trials()`` (hpt's
    method) also reads."""

    def __call__(self) -> "_TrialList":
        return self


class Study(Experiment):
    """An experiment under Optuna's names: ``study_name``, ``direction``,
    ``trials``, ``get_trials``, ``ask``/``tell``; the rest is Experiment's
    (optimize, best_trial, best_value, best_params, best_trials,
    trials_dataframe, enqueue_trial, add_trial)."""

    _stop_requested = False

    @property
    def study_name(self) -> str:
        return self.name

    @property
    def direction(self) -> str:
        """"minimize" or "maximize" (several objectives: see directions)."""
        if len(self.directions) > 1:
            raise RuntimeError("this study has several objectives: read study.directions")
        return self.directions[0]

    @property
    def trials(self) -> _TrialList:  # type: ignore[override]
        """Every trial so far, in creation order (trial.number)."""
        return _TrialList(Experiment.trials(self))

    def get_trials(self, deepcopy: bool = True,
                   states: Optional[Sequence[TrialState]] = None) -> List[Trial]:
        """The trials, those in ``states`` only when given."""
        trials = Experiment.trials(self)
        return trials if states is None else [t for t in trials if t.state in states]

    def ask(self, fixed_distributions: Optional[Mapping[str, Any]] = None) -> Trial:
        """A new Running trial for this process to evaluate, then tell().
        ``fixed_distributions`` ({name: hpt.Float/Int/Categorical}) are
        suggested in it at once."""
        trials = self.suggest(count=1, wait=30)
        if not trials:
            status = self.status
            raise RuntimeError(f"study {self.name!r} hands out no more trials: it is "
                               f"{status.get('phase')} ({status.get('reason')})")
        trial = trials[0]
        for name, dist in (fixed_distributions or {}).items():
            if getattr(dist, "name", name) != name:
                raise ValueError(f"fixed_distributions[{name!r}] is named {dist.name!r}")
            from hpt._suggest import suggest
            suggest(trial, dist)
        return trial

    def tell(self, trial: Union[Trial, int], values: Union[None, float, Sequence[float]] = None,
             state: Optional[TrialState] = None, skip_if_finished: bool = False) -> Trial:
        """Ends an asked trial: with its value(s) (COMPLETE), or
        ``state=TrialState.PRUNED`` or ``FAIL``. A NaN or infinite value,
        or none without a state, fails the trial, as in Optuna."""
        if isinstance(trial, int) and not isinstance(trial, bool):
            numbered = [t for t in Experiment.trials(self) if t.number == trial]
            if not numbered:
                raise ValueError(f"study {self.name!r} has no trial number {trial}")
            trial = numbered[0]
        if trial.finished:
            if skip_if_finished:
                return trial
            raise RuntimeError(f"trial {trial.number} ({trial.name}) is already {trial.phase}")
        if state == TrialState.PRUNED:
            end_pruned(trial)
        elif state == TrialState.FAIL:
            end_failed(trial, "told FAIL")
        elif state not in (None, TrialState.COMPLETE):
            raise ValueError(f"tell(state=...) takes COMPLETE, PRUNED or FAIL, not {state}")
        elif values is None:
            end_failed(trial, "told no values")
        else:
            numbers = list(values) if isinstance(values, (list, tuple)) else [values]
            names = self.objective_metrics
            if len(numbers) != len(names):
                raise ValueError(f"tell(): {len(names)} value(s) expected ({', '.join(names)}), "
                                 f"not {len(numbers)}")
            if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in numbers):
                end_failed(trial, f"the objective value {numbers} is not a finite number")
            else:
                trial.complete(**dict(zip(names, (float(v) for v in numbers))))
        return trial

    def stop(self) -> "Study":  # type: ignore[override]
        """Optuna's study.stop(): the optimize() call under way starts no
        more trials (the study itself stays open; Experiment.stop ends it
        on the server)."""
        if not self._runs:
            raise RuntimeError("study.stop() is for a callback or objective of optimize()")
        for run in list(self._runs):
            run.stop.set()
        return self


def create_study(*, storage: Storage = None, sampler: Optional[BaseSampler] = None,
                 pruner: Any = None, study_name: Optional[str] = None,
                 direction: Optional[str] = None, load_if_exists: bool = False,
                 directions: Optional[Sequence[str]] = None) -> Study:
    """Optuna's create_study: a client-run experiment whose trials define
    their parameters (trial.suggest_*). ``sampler`` (hpt.samplers.*)
    chooses the algorithm (default TPESampler; NSGAIISampler for several
    objectives), ``pruner`` (hpt.pruners.*) the early stopping."""
    if direction is not None and directions is not None:
        raise ValueError("give direction or directions, not both")
    wanted = list(directions) if directions is not None else [direction or "minimize"]
    for d in wanted:
        if d not in ("minimize", "maximize"):
            raise ValueError(f"direction must be 'minimize' or 'maximize', not {d!r}")
    if sampler is None:
        from hpt.samplers import NSGAIISampler, TPESampler
        sampler = TPESampler() if len(wanted) == 1 else NSGAIISampler()
    name = study_name or f"no-name-{uuid.uuid4().hex[:12]}"
    space = sampler.space() if isinstance(sampler, GridSampler) else []
    pruning = pruner.to_spec() if pruner is not None else None
    spec = _spec.build(
        name, space, objective=None, direction=wanted if len(wanted) > 1 else wanted[0],
        algorithm=None, algorithm_settings=None, max_trials=STUDY_MAX_TRIALS,
        parallel=STUDY_PARALLEL, max_failed=STUDY_MAX_TRIALS, goal=None,
        early_stopping=None, early_stopping_settings=None, empty_space_ok=True)
    spec["algorithm"] = sampler.to_spec()
    if pruning:
        spec["earlyStopping"] = pruning
    client = _client(storage)
    try:
        study = _as_study(client._create(spec))
    except ApiError as e:
        if e.status != "ALREADY_EXISTS" or not load_if_exists:
            raise
        study = load_study(study_name=name, storage=client)
        if study.directions != wanted:
            raise ValueError(f"study {name!r} exists with directions {study.directions}, "
                             f"not {wanted}") from None
    study._constraints_func = sampler.constraints_func
    return study


def load_study(*, study_name: str, storage: Storage = None, sampler: Any = None,
               pruner: Any = None) -> Study:
    """Optuna's load_study: the study of that name (ApiError 404 if none)."""
    study = _as_study(_client(storage).experiment(study_name))
    if sampler is not None:
        study._constraints_func = sampler.constraints_func
    return study


def delete_study(*, study_name: str, storage: Storage = None) -> None:
    """Optuna's delete_study."""
    _client(storage).experiment(study_name).delete()


def _as_study(exp: Experiment) -> Study:
    study = Study.__new__(Study)
    study.__dict__.update(exp.__dict__)
    return study
