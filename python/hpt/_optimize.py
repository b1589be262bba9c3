"""Experiment.optimize(): Optuna's study.optimize() loop over hpt's ask/tell
calls (trials:suggest, observations, :shouldStop, :complete)."""

import gc
import math
import os
import threading
import time
import warnings
from typing import (TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence,
                    Tuple, Type,
                    Union)

from hpt._errors import ApiError, Pruned, is_slots_full
from hpt._http import metrics_body
from hpt._progress import Progress
from hpt.trial import Trial, constraints_body

if TYPE_CHECKING:
    from hpt.experiment import Experiment

Catch = Union[Type[Exception], Tuple[Type[Exception], ...]]

#: The longest failure message sent with a failed trial.
_MAX_MESSAGE = 1000


def optimize(exp: "Experiment", fn: Callable[[Trial], Any], n_trials: Optional[int],
             timeout: Optional[float], n_jobs: int, catch: Catch,
             show_progress_bar: bool, callbacks: Sequence[Callable[..., None]] = (),
             gc_after_trial: bool = False) -> None:
    """See Experiment.optimize."""
    if not callable(fn):
        raise TypeError(f"optimize() needs a function of one trial, not {type(fn).__name__}")
    if n_trials is not None and (isinstance(n_trials, bool) or int(n_trials) < 0):
        raise ValueError(f"n_trials must be a non-negative int or None, not {n_trials!r}")
    if timeout is not None and not timeout >= 0:
        raise ValueError(f"timeout must be a non-negative number of seconds, not {timeout!r}")
    if n_jobs == -1:
        n_jobs = os.cpu_count() or 1
    if n_jobs < 1:
        raise ValueError(f"n_jobs must be at least 1 (or -1: one per CPU), not {n_jobs}")
    catch = tuple(catch) if isinstance(catch, (list, tuple)) else (catch,)
    parallel = int(exp.spec.get("parallelTrialCount") or 1)
    if n_jobs > parallel:
        # The server hands out no more than parallelTrialCount trials at a
        # time (default 3): the extra workers take turns. Said, not silent.
        warnings.warn(f"optimize(n_jobs={n_jobs}): experiment '{exp.name}' runs at most "
                      f"{parallel} trials at once (parallelTrialCount); the other workers "
                      f"wait their turn. exp.resume(parallel={n_jobs}) raises it.",
                      RuntimeWarning, stacklevel=3)
    status = exp.status
    counts = status.get("trials") or {}
    # Imported trials do not count towards maxTrialCount; queued ones do,
    # and they are among the trials suggested next.
    budget = max(0, int(exp.spec.get("maxTrialCount", 0)) -
                 int(counts.get("total", 0)) + int(counts.get("imported", 0)))
    optimal = status.get("currentOptimalTrial") or {}
    best = ((optimal["name"], float(optimal["objectiveValue"]))
            if optimal.get("objectiveValue") is not None else None)
    progress = Progress(exp.name, exp.objective_metric, exp.objective_type == "maximize",
                        budget if n_trials is None else min(int(n_trials), budget), best
                        ) if show_progress_bar else None
    run = _Run(exp, fn, None if n_trials is None else int(n_trials), timeout, catch, progress)
    run.callbacks = list(callbacks)
    run.gc_after_trial = gc_after_trial
    exp._runs.append(run)
    try:
        if n_jobs == 1:
            run.work()
        else:
            run.work_in_threads(n_jobs)
    finally:
        exp._runs.remove(run)
        note = run.note()
        if progress is not None:
            progress.close(note)
    if run.ended_by_failures:
        # Optuna has no failure budget: a run it ends must not end unsaid.
        warnings.warn(f"optimize() ended early: {note}", RuntimeWarning, stacklevel=3)


class _Run:
    """One optimize() call: workers claim trials from a shared count, so
    that exactly n_trials start however many workers there are."""

    def __init__(self, exp: "Experiment", fn: Callable[[Trial], Any],
                 n_trials: Optional[int], timeout: Optional[float],
                 catch: Tuple[Type[BaseException], ...], progress: Optional[Progress]) -> None:
        self.exp = exp
        self.fn = fn
        self.n_trials = n_trials
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.catch = catch
        self.progress = progress
        self.lock = threading.Lock()
        self.started = 0
        self.stop = threading.Event()
        self.exhausted = False  # the server handed out no more trials
        self.timed_out = False
        self.error: Optional[BaseException] = None
        self.active: Dict[str, Trial] = {}  # trials whose fn is running
        self.callbacks: List[Callable[..., None]] = []
        self.gc_after_trial = False
        self.ended_by_failures = False

    def note(self) -> str:
        """Why the run ended short of what was asked, if it did."""
        if self.exhausted:
            try:
                status = self.exp.status
            except (ApiError, ConnectionError):
                return "the server handed out no more trials"
            reason = status.get("reason")
            hint = (" (exp.resume(max_trials=...) raises the budget)"
                    if reason == "MaxTrialsReached" else "")
            if reason == "MaxFailedTrialsReached":
                self.ended_by_failures = True
                failed = (status.get("trials") or {}).get("failed")
                hint = (f": {failed} trials failed, the experiment's maxFailedTrialCount is "
                        f"{self.exp.spec.get('maxFailedTrialCount')} (exp.resume(max_failed=...)"
                        " raises it)")
            elif self.started > 0 and (self.n_trials is None or self.started >= self.n_trials):
                return ""  # it ran what was asked, or the whole budget
            return (f"the experiment is {status.get('phase')} ({status.get('reason')}): "
                    f"no more trials{hint}")
        if self.timed_out:
            return "timeout reached"
        return ""

    def work_in_threads(self, n_jobs: int) -> None:
        threads = [threading.Thread(target=self._guarded, name=f"hpt-optimize-{i}", daemon=True)
                   for i in range(n_jobs)]
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(0.2)  # a timeout keeps Ctrl-C deliverable to this thread
        except BaseException as e:
            self.stop.set()  # workers ask for no more trials
            # The workers are daemon threads: when the interpreter exits, they
            # end mid-trial, and their trials would hold parallelTrialCount's
            # slots until their leases ran out. They end here, as with n_jobs=1.
            with self.lock:
                active = list(self.active.values())
            for trial in active:
                try:
                    end_failed(trial, f"{type(e).__name__}: optimize() was interrupted")
                except Exception:  # the server is gone: the lease ends it
                    pass
            raise
        if self.error is not None:
            raise self.error

    def _guarded(self) -> None:
        try:
            self.work()
        except BaseException as e:  # handed to the calling thread
            with self.lock:
                if self.error is None:
                    self.error = e
            self.stop.set()

    def work(self) -> None:
        while self._claim():
            trials = self._suggest()
            if trials is None:  # stopped, or timed out, while every slot was taken
                with self.lock:
                    self.started -= 1
                return
            if not trials:  # the budget is used, or the experiment has ended
                with self.lock:
                    self.started -= 1
                    self.exhausted = True
                self.stop.set()
                return
            self._evaluate(trials[0])

    def _suggest(self) -> Optional[List[Trial]]:
        """One new trial, waiting while parallelTrialCount's slots are all
        taken (by other workers or clients); None when the run stops or
        times out meanwhile."""
        while True:
            left = None if self.deadline is None else self.deadline - time.monotonic()
            try:
                return self.exp.suggest(count=1, wait=5.0 if left is None else min(5.0, left))
            except ApiError as e:
                if not is_slots_full(e):
                    raise
            if self.stop.is_set():
                return None
            if self.deadline is not None and time.monotonic() >= self.deadline:
                with self.lock:
                    self.timed_out = True
                return None

    def _claim(self) -> bool:
        with self.lock:
            if self.stop.is_set():
                return False
            if self.n_trials is not None and self.started >= self.n_trials:
                return False
            if self.deadline is not None and time.monotonic() >= self.deadline:
                self.timed_out = True
                return False
            self.started += 1
            return True

    def _evaluate(self, trial: Trial) -> None:
        with self.lock:
            self.active[trial.name] = trial
        try:
            self._evaluate_active(trial)
        finally:
            with self.lock:
                self.active.pop(trial.name, None)

    def _evaluate_active(self, trial: Trial) -> None:
        try:
            with _Heartbeat(trial, int(self.exp.spec.get("trialLeaseSeconds") or 0)):
                result = self.fn(trial)
        except Pruned:
            end_pruned(trial)
        except BaseException as e:
            ended_elsewhere = end_failed(trial, f"{type(e).__name__}: {e}" if str(e)
                                    else type(e).__name__)
            if self.progress is not None:
                self.progress.finished(trial)
            if ended_elsewhere and isinstance(e, ApiError) and e.code == 409:
                return  # e.g. the experiment reached its goal and killed this trial
            if isinstance(e, Exception) and isinstance(e, self.catch):
                warnings.warn(f"trial {trial.name} failed: {type(e).__name__}: {e} "
                              "(caught; the search goes on)", RuntimeWarning, stacklevel=2)
                self._after(trial)
                return
            raise
        else:
            if not trial.finished:  # fn may have completed the trial itself
                self._complete(trial, result)
        if self.progress is not None:
            self.progress.finished(trial)
        self._after(trial)

    def _after(self, trial: Trial) -> None:
        """Optuna's per-trial hooks: the callbacks, then gc_after_trial."""
        for callback in self.callbacks:
            callback(self.exp, trial)
        if self.gc_after_trial:
            gc.collect()

    def _complete(self, trial: Trial, result: Any) -> None:
        metric = self.exp.objective_metric
        objectives = self.exp.objective_metrics
        if result is None:
            try:
                # With the objective the trial reported, if it did.
                trial.complete(constraints=self._constraints(trial))
            except ApiError as e:
                if e.code != 400:
                    raise
                self._bad_result(trial, f"returned None and reported no {metric!r}"
                                 if len(objectives) == 1 else
                                 f"returned None and did not report {', '.join(objectives)}")
            return
        if isinstance(result, Mapping):
            metrics = result
        elif _is_sequence(result) or len(objectives) > 1:
            # Optuna's rule: a sequence of one value per objective.
            if not _is_sequence(result) or len(result) != len(objectives):
                self._bad_result(trial, f"returned {result!r}, not {len(objectives)} "
                                 f"value{'s' * (len(objectives) > 1)} "
                                 f"({', '.join(objectives)})")
                return
            metrics = dict(zip(objectives, result))
        else:
            metrics = {metric: result}
        try:
            metrics_body(metrics)
        except (TypeError, ValueError) as e:
            self._bad_result(trial, f"returned {result!r}: {e}")
            return
        try:
            trial.complete(constraints=self._constraints(trial), **metrics)
        except ApiError as e:
            if e.code == 409:  # ended meanwhile (killed when the experiment finished)
                trial.refresh()
            elif e.code == 400:  # e.g. a dict without the objective metric
                self._bad_result(trial, f"returned {result!r}: {e.message}")
            else:
                raise

    def _constraints(self, trial: Trial) -> Optional[List[float]]:
        """Optuna's constraints_func (the sampler's) on the trial, values
        <= 0 feasible; None without one. Values that are not finite
        numbers are left out with a warning, as Optuna does."""
        fn = self.exp._constraints_func
        if fn is None:
            return None
        values = fn(trial)
        try:
            return constraints_body(values)
        except (TypeError, ValueError) as e:
            warnings.warn(f"trial {trial.name}: constraints_func gave {values!r}: {e}; "
                          "the trial is stored without constraints", RuntimeWarning,
                          stacklevel=2)
            return None

    def _bad_result(self, trial: Trial, what: str) -> None:
        """Optuna's rule: a trial whose function returns no usable value
        fails, with a warning, and the search goes on."""
        message = f"the objective function {what}"
        # stacklevel: the caller of Experiment.optimize, when n_jobs is 1.
        warnings.warn(f"trial {trial.name} failed: {message}", RuntimeWarning, stacklevel=7)
        end_failed(trial, message)


class _Heartbeat:
    """While fn runs, renews its trial's lease (a third of trialLeaseSeconds
    apart), so that a long step with no report is not taken for an
    abandoned trial; a client that dies stops renewing, and the server
    frees the slot."""

    def __init__(self, trial: Trial, lease_seconds: int) -> None:
        self.trial = trial
        self.interval = max(0.2, min(60.0, lease_seconds / 3)) if lease_seconds > 0 else None
        self.done = threading.Event()
        self.thread: Optional[threading.Thread] = None

    def __enter__(self) -> "_Heartbeat":
        if self.interval is not None:
            self.thread = threading.Thread(target=self._beat, daemon=True,
                                           name=f"hpt-heartbeat-{self.trial.name}")
            self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.done.set()
        if self.thread is not None:
            self.thread.join()

    def _beat(self) -> None:
        while not self.done.wait(self.interval):
            try:
                self.trial.heartbeat()
            except ApiError:
                return  # the trial has ended (stopped, the experiment's goal)
            except OSError:
                continue  # the server may be back by the next beat


def _is_sequence(value: Any) -> bool:
    """A list, tuple or 1-d array (numpy's), not text or a scalar."""
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        return False
    try:
        len(value)
    except TypeError:  # a 0-d array
        return False
    return True


def end_failed(trial: Trial, message: str) -> bool:
    """Ends the trial Failed (infeasible, with the message); returns True
    when it had already ended (by fn, or killed by the server)."""
    if trial.finished:
        return True
    try:
        trial.complete(infeasible=message[:_MAX_MESSAGE])
        return False
    except ApiError as e:
        if e.code != 409:
            raise
        trial.refresh()
        return True


def end_pruned(trial: Trial) -> None:
    """Ends a trial whose function raised Pruned. The server ends a client
    trial EarlyStopped only when its policy advised it (a :shouldStop that
    said yes): so ask once, if fn did not, then :complete with what the
    trial reported. Without that advice it ends Succeeded with its last
    value; having reported no objective at all, it is stopped (Killed)."""
    if trial.finished:
        return
    if not trial.stop_advised:
        trial.should_stop()
    trial.refresh()
    if trial.finished:
        return
    try:
        if trial.objective_value is None or not math.isfinite(trial.objective_value):
            trial.stop()
        else:
            trial.complete()
    except ApiError as e:
        if e.code != 409:
            raise
        trial.refresh()
