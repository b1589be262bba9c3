"""Typing parameter values: the wire carries every value as a string, and
the experiment's spec says what each one is. A categorical or discrete
parameter's ``feasibleSpace.list`` holds its choices as JSON scalars
(null, true, 3, 0.5, "adam"), each as the server stored it; an
assignment's value is the text of one of them ("null", "true", "3",
"0.5", "adam"), and a client maps it back to that choice."""

import math
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Union

Value = Union[float, int, str, bool, None]
Converter = Callable[[str], Value]


def _is_integral_text(text: str) -> bool:
    try:
        return float(text).is_integer() and "." not in text and "e" not in text.lower()
    except ValueError:
        return False


def _to_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return int(float(text))  # "3.0" or "1e2": integral by the spec's type


def _discrete_converter(space: Mapping[str, Any]) -> Converter:
    values = [str(v) for v in space.get("list") or []]
    if values and all(_is_integral_text(v) for v in values):
        return _to_int
    if values:
        return float

    def per_value(text: str) -> Value:
        return int(text) if _is_integral_text(text) else float(text)
    return per_value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _same_number(text: str, choice: Any) -> bool:
    try:
        return float(text) == float(choice)
    except (TypeError, ValueError, OverflowError):
        return False


def _listed_converter(kind: str, space: Mapping[str, Any]) -> Converter:
    """A choice's text to the choice itself, as the spec lists it (the
    server keeps each one's JSON type): "null" -> None, "true" -> True,
    "1" -> 1 for a listed 1 and 1.0 for a listed 1.0. Listed strings stay
    str (discrete ones, as Katib files write them, become numbers)."""
    listed = list(space.get("list") or [])
    strings = {v for v in listed if isinstance(v, str)}
    others = [v for v in listed if not isinstance(v, str)]
    fallback: Converter = _discrete_converter(space) if kind == "discrete" else str

    def convert(text: str) -> Value:
        if text in strings:  # the server refuses two choices with one text
            return fallback(text)
        for choice in others:
            if choice is None:
                if text == "null":
                    return None
            elif isinstance(choice, bool):
                if text == ("true" if choice else "false"):
                    return choice
            elif _same_number(text, choice):
                return choice
        return fallback(text)
    return convert


def converters(spec: Mapping[str, Any]) -> Dict[str, Converter]:
    """Maps each parameter's name to the function that types its values:
    double -> float, int -> int, categorical and discrete -> the listed
    choice itself, with its JSON type (None, bool, int, float, str); a
    discrete choice listed as text ("16", Katib's way) -> int when every
    listed value is integral text and float otherwise."""
    out: Dict[str, Converter] = {}
    for p in spec.get("parameters") or []:
        kind = p.get("parameterType")
        space = p.get("feasibleSpace") or {}
        if kind == "double":
            out[p["name"]] = float
        elif kind == "int":
            out[p["name"]] = _to_int
        elif kind in ("discrete", "categorical"):
            out[p["name"]] = _listed_converter(kind, space)
        else:
            out[p["name"]] = str
    return out


def typed(assignments: Iterable[Mapping[str, Any]],
          convert: Mapping[str, Converter]) -> Dict[str, Value]:
    """Turns [{"name", "value"}] into {name: typed value}. A name the spec
    does not know keeps its string value."""
    out: Dict[str, Value] = {}
    for a in assignments:
        name, value = a["name"], a["value"]
        fn = convert.get(name)
        if fn is None or not isinstance(value, str):
            out[name] = value
            continue
        try:
            out[name] = fn(value)
        except ValueError:
            out[name] = value  # the server sent something we cannot type; keep it
    return out


def _text(value: Any, what: str) -> str:
    """A number as the wire's text: 3 -> "3", 0.1 -> "0.1"."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be a number, not bool")
    try:
        number = float(value)  # int, float, numpy scalars, numeric text
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a number, not {value!r}") from None
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return repr(number)


def _choice(listed: Iterable[Any], value: Any) -> Optional[List[Any]]:
    """[the listed choice] that ``value`` is, or None: None is null, a bool
    the same bool, a str the same str, a number an equal number (1 is a
    listed 1.0; unlike Python's ==, True is not 1)."""
    for choice in listed:
        if value is None or isinstance(value, bool) or choice is None or isinstance(choice, bool):
            if value is choice:
                return [choice]
        elif isinstance(value, str) or isinstance(choice, str):
            if value == choice:
                return [choice]
        elif _is_number(value) and _is_number(choice) and float(value) == float(choice):
            return [choice]
    return None


def _scalar(value: Any) -> Any:
    """value as a JSON scalar: numpy scalars as Python's, the rest as str."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if value is None or isinstance(value, (str, bool)):
        return value
    if _is_number(value) and math.isfinite(value):
        return value
    return str(value)


def _wire_value(param: Mapping[str, Any], value: Any) -> Any:
    name = param.get("name")
    kind = param.get("parameterType")
    if kind in ("categorical", "discrete"):
        # The listed choice as the spec has it (null, true, 0.5, "0.50"),
        # which the server reads as the choice's own text.
        listed = (param.get("feasibleSpace") or {}).get("list") or []
        value = _scalar(value)
        found = _choice(listed, value)
        if found is not None:
            return found[0]
        if kind == "categorical" or not _is_number(value):
            return value  # not a choice: the server's 400 names it
        for choice in listed:  # a discrete choice listed as text ("0.50")
            if isinstance(choice, str) and _same_number(choice, value):
                return choice
    text = _text(value, f"parameter {name!r}")
    if kind == "int" and "." in text:
        raise ValueError(f"parameter {name!r} is an int, not {value!r}")
    return text


def assignments(params: Mapping[str, Any], spec: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """The wire's [{"name", "value"}] for {name: value}: the inverse of
    typed(). Numbers become their text (an integral float 3.0 -> "3"),
    a categorical or discrete value the listed choice it is (None, True,
    0.5, "adam": the server takes any JSON scalar and reads its text).
    A name the spec does not know is sent as given, for the server to
    name in its 400."""
    if not isinstance(params, Mapping):
        raise TypeError(f"parameters must be a dict of name to value, not {type(params).__name__}")
    by_name = {p.get("name"): p for p in spec.get("parameters") or []}
    out: List[Dict[str, Any]] = []
    for name, value in params.items():
        param = by_name.get(name)
        text = _wire_value(param, value) if param is not None else str(value)
        out.append({"name": str(name), "value": text})
    return out
