"""Typing parameter values: the wire carries every value as a string, and
the experiment's spec says what each one is."""

from typing import Any, Callable, Dict, Iterable, Mapping, Union

Value = Union[float, int, str]
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


def converters(spec: Mapping[str, Any]) -> Dict[str, Converter]:
    """Maps each parameter's name to the function that types its values:
    double -> float, int -> int, discrete -> int when every listed value is
    integral text ("16", "32") and float otherwise, categorical -> str."""
    out: Dict[str, Converter] = {}
    for p in spec.get("parameters") or []:
        kind = p.get("parameterType")
        space = p.get("feasibleSpace") or {}
        if kind == "double":
            out[p["name"]] = float
        elif kind == "int":
            out[p["name"]] = _to_int
        elif kind == "discrete":
            out[p["name"]] = _discrete_converter(space)
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
