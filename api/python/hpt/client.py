"""The entry point: a Client for one hpt server."""

import json
import os
from typing import Any, List, Mapping, Optional, Tuple, Union

from hpt._http import Transport, quote
from hpt.experiment import Experiment

#: Where `hpt serve` listens by default.
DEFAULT_URL = "http://127.0.0.1:8750"

Spec = Union[Mapping[str, Any], str, "os.PathLike[str]"]

_SPEC_SUFFIXES = (".yaml", ".yml", ".json")


class Client:
    """Talks to one hpt server over its REST API v1.

    ``url`` defaults to $HPT_URL, then http://127.0.0.1:8750; ``token`` (the
    server's --token-file contents) defaults to $HPT_TOKEN. Every call that
    the server refuses raises ApiError; an unreachable server raises
    ConnectionError. A Client keeps no connection open and may be shared
    between threads.
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None,
                 timeout: float = 30.0) -> None:
        url = url or os.environ.get("HPT_URL") or DEFAULT_URL
        token = token if token is not None else os.environ.get("HPT_TOKEN")
        self._transport = Transport(url, token, timeout)

    @property
    def url(self) -> str:
        return self._transport.url

    def create_experiment(self, spec: Spec) -> Experiment:
        """Creates an experiment and returns it.

        ``spec`` is a dict (sent as JSON), YAML text (sent as
        application/yaml), or a path (str or os.PathLike) to a .yaml, .yml
        or .json file. Raises ApiError 400 naming every problem with its
        field path when the spec is invalid, 409 when the name is taken.
        """
        if isinstance(spec, Mapping):
            reply = self._transport.request("POST", "/api/v1/experiments", dict(spec))
        else:
            body, content_type = _spec_body(spec)
            reply = self._transport.request("POST", "/api/v1/experiments", body, content_type)
        return Experiment(self, reply)

    def experiment(self, name: str) -> Experiment:
        """The experiment called ``name`` (ApiError 404 when there is none)."""
        return Experiment(self, self._transport.request(
            "GET", f"/api/v1/experiments/{quote(name)}"))

    def experiments(self) -> List[Experiment]:
        """Every experiment on the server."""
        reply = self._transport.request("GET", "/api/v1/experiments")
        return [Experiment(self, e) for e in reply.get("experiments", [])]

    def algorithms(self) -> List[str]:
        """The names of the algorithms the server knows."""
        return list(self._transport.request("GET", "/api/v1/algorithms").get("algorithms", []))

    def health(self) -> Mapping[str, Any]:
        """GET /healthz: {"status": "ok", "version": ...}."""
        return self._transport.request("GET", "/healthz")

    def __repr__(self) -> str:
        return f"Client({self.url!r})"


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
