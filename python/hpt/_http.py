"""The one place that speaks HTTP: urllib.request and json, nothing else."""

import http
import json
import math
import operator
import re
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Mapping, Optional, Union

from hpt._errors import ApiError, api_error

JsonBody = Union[Mapping[str, Any], bytes, None]


class Transport:
    """Sends requests to one hpt server. Holds no connection between calls,
    so one Transport may be shared by threads."""

    def __init__(self, url: str, token: Optional[str] = None,
                 timeout: float = 30.0) -> None:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"hpt server URL must start with http:// or https://, not {url!r}")
        self.url = url.rstrip("/")
        # A token read from its file keeps the file's newline; the server
        # trims its own copy the same way.
        self.token = token.strip() if token else None
        self.timeout = timeout

    def request(self, method: str, path: str, body: JsonBody = None,
                content_type: str = "application/json", text: bool = False) -> Any:
        """Sends one request; returns the decoded JSON reply (the text when
        ``text`` is set or the reply is not JSON, None for an empty one).
        Raises ApiError for any HTTP error status and ConnectionError when
        the server cannot be reached."""
        data = None
        if isinstance(body, bytes):
            data = body
        elif body is not None:
            data = json.dumps(body, allow_nan=False).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", content_type)
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
                if text:
                    return raw.decode("utf-8", errors="replace")
                return _decode(raw, resp.headers.get("Content-Type", ""))
        except urllib.error.HTTPError as e:
            raise _api_error(e, method, path) from None
        except urllib.error.URLError as e:
            raise ConnectionError(
                f"cannot reach the hpt server at {self.url}: {e.reason}") from None


#: The namespace of experiments created without one.
DEFAULT_NAMESPACE = "default"

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def check_namespace(namespace: str) -> str:
    """Returns ``namespace`` when it is a namespace name (a lowercase DNS
    label), else raises ValueError naming it."""
    if not isinstance(namespace, str) or not _DNS_LABEL.match(namespace):
        raise ValueError(f"namespace {namespace!r} is not a namespace name "
                         "(a lowercase DNS label: a-z, 0-9 and '-')")
    return namespace


def experiments_path(namespace: str) -> str:
    """The experiments of ``namespace``: /api/v1/experiments in the default
    namespace (the paths from before namespaces), else
    /api/v1/namespaces/NS/experiments."""
    if namespace == DEFAULT_NAMESPACE:
        return "/api/v1/experiments"
    return f"/api/v1/namespaces/{quote(namespace)}/experiments"


def quote(segment: str) -> str:
    """Escapes one path segment (an experiment or trial name)."""
    return urllib.parse.quote(segment, safe="")


def step_value(step: Any) -> int:
    """A report's step as an int: whole numbers only (3.7 was cut to 3)."""
    if isinstance(step, (bool, str, bytes)):
        raise TypeError(f"step must be a whole number, not {type(step).__name__}")
    try:
        number = operator.index(step)
    except TypeError:
        if not (isinstance(step, float) and step.is_integer()):
            raise TypeError(f"step must be a whole number, not {step!r}") from None
        number = int(step)
    return number


def metrics_body(metrics: Mapping[str, Any]) -> Dict[str, float]:
    """Converts metric values (Python or numpy numbers) to finite floats,
    naming the metric that is not one."""
    out: Dict[str, float] = {}
    for name, value in metrics.items():
        if isinstance(value, (bool, str, bytes)):
            raise TypeError(f"metric {name!r} must be a number, not {type(value).__name__}")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise TypeError(
                f"metric {name!r} must be a number, not {type(value).__name__}") from None
        if not math.isfinite(number):
            raise ValueError(f"metric {name!r} must be finite, not {number}")
        out[name] = number
    return out


def _decode(raw: bytes, content_type: str) -> Any:
    text = raw.decode("utf-8", errors="replace")
    if not text.strip():
        return None
    if "json" in content_type or (not content_type and text.lstrip()[:1] in "{["):
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text


def _api_error(e: urllib.error.HTTPError, method: str, path: str) -> ApiError:
    try:
        raw = e.read()
    except OSError:
        raw = b""
    reply = _decode(raw, e.headers.get("Content-Type", "") if e.headers else "")
    try:
        default_status = http.HTTPStatus(e.code).name
    except ValueError:
        default_status = "UNKNOWN"
    if isinstance(reply, dict) and isinstance(reply.get("error"), dict):
        err = reply["error"]
        return api_error(int(err.get("code", e.code)), str(err.get("status", default_status)),
                         str(err.get("message", "")), method, path)
    message = reply if isinstance(reply, str) and reply else (e.reason or "")
    return api_error(e.code, default_status, str(message).strip(), method, path)
