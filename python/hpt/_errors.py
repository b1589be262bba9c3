"""Errors the client raises."""

from typing import Optional


class ApiError(Exception):
    """The server answered with an error.

    Attributes:
      code: the HTTP status code (400, 404, 409, ...).
      status: the server's status name (``INVALID_ARGUMENT``, ``NOT_FOUND``,
        ``ALREADY_EXISTS``, ``FAILED_PRECONDITION``, ...).
      message: the server's message; for an invalid spec it names every
        problem with its field path (``parameters[1].feasibleSpace: ...``).
    """

    def __init__(self, code: int, status: str, message: str,
                 method: Optional[str] = None, path: Optional[str] = None) -> None:
        self.code = code
        self.status = status
        self.message = message
        self.method = method
        self.path = path
        where = f" ({method} {path})" if method and path else ""
        super().__init__(f"{code} {status}: {message}{where}")


class Unauthenticated(ApiError):
    """401: no key, or one the server does not know (a deleted user's key
    fails at once). Check ``api_key=`` / $HPT_API_KEY."""


class PermissionDenied(ApiError):
    """403: the key is known but may not do this: a viewer creating,
    changing or stopping an experiment, a member calling an admin-only
    route, or a namespace's quota.experiments reached (the message says
    which). Outside the caller's namespaces the server answers 404, as if
    nothing were there."""


def api_error(code: int, status: str, message: str, method: Optional[str] = None,
              path: Optional[str] = None) -> ApiError:
    """The ApiError subclass for an HTTP status."""
    kind = {401: Unauthenticated, 403: PermissionDenied}.get(code, ApiError)
    return kind(code, status, message, method, path)


class Pruned(Exception):
    """Raised by an objective function inside Experiment.optimize() to end
    its trial early, as ``optuna.TrialPruned`` is: ``if trial.should_prune():
    raise hpt.Pruned()``. The trial ends EarlyStopped when the experiment's
    early-stopping policy advised it (see Experiment.optimize)."""


def is_slots_full(error: ApiError) -> bool:
    """Whether ``error`` is :suggest's 409 for every parallelTrialCount slot
    taken (a later call may succeed), not some other conflict."""
    return error.code == 409 and error.message.startswith("parallelTrialCount:")
