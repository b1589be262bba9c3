"""Typing parameter values: the wire carries every value as a string, and
the experiment's spec says what each one is."""

from typing import Any, Callable, Dict, Iterable, List, Mapping, Union

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


def _wire_value(param: Mapping[str, Any], value: Any) -> str:
    name = param.get("name")
    kind = param.get("parameterType")
    if kind == "categorical":
        return value if isinstance(value, str) else str(value)
    text = _text(value, f"parameter {name!r}")
    if kind == "int" and "." in text:
        raise ValueError(f"parameter {name!r} is an int, not {value!r}")
    if kind == "discrete":
        # The listed text ("0.50") for a value equal to it (0.5), so that
        # the server finds it in the list.
        for listed in (param.get("feasibleSpace") or {}).get("list") or []:
            try:
                if float(listed) == float(text):
                    return str(listed)
            except (TypeError, ValueError):
                continue
    return text


def assignments(params: Mapping[str, Any], spec: Mapping[str, Any]) -> List[Dict[str, str]]:
    """The wire's [{"name", "value"}] for {name: value}: the inverse of
    typed(). Numbers become their text (an integral float 3.0 -> "3"),
    a discrete value the listed text it equals, a categorical one its str.
    A name the spec does not know is sent as given, for the server to
    name in its 400."""
    if not isinstance(params, Mapping):
        raise TypeError(f"parameters must be a dict of name to value, not {type(params).__name__}")
    by_name = {p.get("name"): p for p in spec.get("parameters") or []}
    out: List[Dict[str, str]] = []
    for name, value in params.items():
        param = by_name.get(name)
        text = _wire_value(param, value) if param is not None else str(value)
        out.append({"name": str(name), "value": text})
    return out
