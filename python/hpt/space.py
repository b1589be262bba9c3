"""Search spaces in Optuna's idiom: ``hpt.Float``, ``hpt.Int`` and
``hpt.Categorical`` each describe one parameter and write its entry of the
spec's ``parameters`` (Katib's field names, bounds as numeric strings).

Each takes ``parent=("optimizer", ["sgd"])`` for a conditional parameter:
it is active, and in a trial's ``params``, only when that parameter is
active and takes one of the values (the spec's ``parent: {name, values}``);
read it with ``trial.params.get("momentum")``."""

import math
import numbers
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

Number = Union[int, float]


def _number(value: Any, what: str) -> float:
    if isinstance(value, (bool, str, bytes)):
        raise TypeError(f"{what} must be a number, not {type(value).__name__}")
    try:
        number = float(value)  # int, float, numpy scalars
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a number, not {type(value).__name__}") from None
    if not math.isfinite(number):
        raise ValueError(f"{what} must be finite, not {number}")
    return number


def _text(value: Number) -> str:
    """Katib's numeric string for a bound: 1e-05, 0.1, 1000.0 -> "1000"."""
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


def _parent_repr(parent: Optional[Dict[str, Any]]) -> str:
    return f", parent=({parent['name']!r}, {parent['values']!r})" if parent else ""


Parent = Union[Tuple[str, Sequence[Union[str, Number]]], Mapping[str, Any]]


def _parent(parent: Optional[Parent], name: str) -> Optional[Dict[str, Any]]:
    """The spec's ``parent`` from ``("optimizer", ["sgd"])``, ``("layers",
    2)`` or ``{"name": ..., "values": [...]}``; values as text."""
    if parent is None:
        return None
    if isinstance(parent, Mapping):
        parent_name, values = parent.get("name"), parent.get("values")
    elif isinstance(parent, (tuple, list)) and len(parent) == 2:
        parent_name, values = parent
    else:
        raise TypeError(f"{name}: parent must be (name, values), not {parent!r}")
    if not isinstance(parent_name, str) or not parent_name:
        raise TypeError(f"{name}: parent's name must be a non-empty str, not {parent_name!r}")
    if hasattr(values, "tolist") and not isinstance(values, (str, bytes)):
        values = values.tolist()  # a numpy array or scalar
    if values is None or isinstance(values, (str, int, float)):
        values = [values]
    if not isinstance(values, Sequence) or not values:
        raise ValueError(f"{name}: parent {parent_name!r} needs at least one value")
    # As the text of the parent's choice, which the stored spec keeps:
    # None is "null", True "true".
    texts = [v if isinstance(v, str) else _choice_text(v) if v is None or isinstance(v, bool)
             else _text(_number(v, f"{name}: parent value")) for v in values]
    return {"name": parent_name, "values": texts}


class _Range:
    """A numeric parameter in [low, high]; Float and Int say which type."""

    parameter_type = ""

    def __init__(self, name: str, low: Number, high: Number, *,
                 step: Optional[Number] = None, log: bool = False,
                 parent: Optional[Parent] = None) -> None:
        self.name = _name(name)
        self.parent = _parent(parent, name)
        self.low = _number(low, f"{name}: low")
        self.high = _number(high, f"{name}: high")
        self.step = None if step is None else _number(step, f"{name}: step")
        self.log = bool(log)
        if self.step is not None and self.step <= 0:
            raise ValueError(f"{name}: step must be positive, not {step}")
        if self.log and self.low <= 0:
            raise ValueError(f"{name}: log=True needs low > 0, not {low}")

    def to_spec(self) -> Dict[str, Any]:
        """This parameter's entry of the spec's ``parameters``."""
        space: Dict[str, Any] = {"min": _text(self.low), "max": _text(self.high)}
        if self.step is not None:
            space["step"] = _text(self.step)
        if self.log:
            space["distribution"] = "logUniform"
        spec = {"name": self.name, "parameterType": self.parameter_type, "feasibleSpace": space}
        if self.parent:
            spec["parent"] = self.parent
        return spec

    def __repr__(self) -> str:
        extra = (f", step={self.step!r}" if self.step is not None else "") + (
            ", log=True" if self.log else "") + _parent_repr(self.parent)
        return f"{type(self).__name__}({self.name!r}, {self.low!r}, {self.high!r}{extra})"


class Float(_Range):
    """A double parameter in [low, high]: ``hpt.Float("lr", 1e-5, 1e-1, log=True)``.

    ``log=True`` samples log-uniformly (``distribution: logUniform``; low
    must then be positive). ``step`` makes the space a grid of low, low +
    step, ... (the ``grid`` algorithm needs it). Trials receive a float.
    """

    parameter_type = "double"


class Int(_Range):
    """An integer parameter in [low, high], both included:
    ``hpt.Int("layers", 1, 8)``, ``hpt.Int("units", 16, 512, log=True)``,
    ``hpt.Int("batch", 32, 256, step=32)``. Trials receive an int."""

    parameter_type = "int"

    def __init__(self, name: str, low: int, high: int, *, step: int = 1,
                 log: bool = False, parent: Optional[Parent] = None) -> None:
        super().__init__(name, low, high, step=step, log=log, parent=parent)
        for what, value in (("low", self.low), ("high", self.high), ("step", self.step)):
            if not float(value).is_integer():
                raise ValueError(f"{name}: {what} must be an integer, not {value}")
        self.low, self.high, self.step = int(self.low), int(self.high), int(self.step)

    def to_spec(self) -> Dict[str, Any]:
        spec = super().to_spec()
        if self.step == 1:
            del spec["feasibleSpace"]["step"]  # the server's default
        return spec

    def __repr__(self) -> str:
        extra = (f", step={self.step}" if self.step != 1 else "") + (
            ", log=True" if self.log else "") + _parent_repr(self.parent)
        return f"Int({self.name!r}, {self.low}, {self.high}{extra})"


Choice = Union[None, bool, int, float, str]


def _choice_text(choice: Choice) -> str:
    """The text the server gives a choice (a float's may be spelt
    otherwise there: 0.0001 is "1e-04"; its number is the same)."""
    if choice is None:
        return "null"
    if isinstance(choice, bool):
        return "true" if choice else "false"
    if isinstance(choice, str):
        return choice
    return _text(choice) if float(choice).is_integer() else repr(float(choice))


class Categorical:
    """One of a list of choices, as Optuna's ``suggest_categorical`` takes
    them: ``hpt.Categorical("opt", ["sgd", "adam"])``,
    ``hpt.Categorical("class_weight", [None, "balanced"])``,
    ``hpt.Categorical("bootstrap", [True, False])``, ``[1, "a", None, 2.5]``.

    Each choice is None, a bool, an int, a float or a str, and trials
    receive exactly that choice (``is None``, ``is True``, ``type(v) is
    int``), read back from the spec the server stored. Choices that are all
    numbers (``[16, 32, 64]``, ``[0.1, 1, 10]``) make a ``discrete``
    parameter (the algorithms model it as a number), anything else a
    ``categorical`` one. Each choice reaches the trial's command as text
    (None as ``null``, True as ``true``), so choices must differ as text:
    1 and 1.0, 1 and "1", None and "null" are one choice and refused
    (unlike Python's ==, True and 1 are two).
    """

    def __init__(self, name: str, choices: Sequence[Choice], *,
                 parent: Optional[Parent] = None) -> None:
        self.name = _name(name)
        self.parent = _parent(parent, name)
        if hasattr(choices, "tolist") and not isinstance(choices, (str, bytes)):
            choices = choices.tolist()  # a numpy array: its values as Python's
        if isinstance(choices, (str, bytes)) or not isinstance(choices, Sequence):
            raise TypeError(f"{name}: choices must be a list, not {type(choices).__name__}")
        # numpy scalars (np.int64, np.float32, np.bool_, np.str_) as the
        # Python values they stand for.
        self.choices: List[Choice] = [
            c.item() if hasattr(c, "item") and not isinstance(c, (str, bytes)) else c
            for c in choices]
        if not self.choices:
            raise ValueError(f"{name}: choices must not be empty")
        seen: Dict[str, Choice] = {}
        for c in self.choices:
            if c is not None and not isinstance(c, (bool, int, float, str)):
                raise TypeError(f"{name}: a choice must be None, bool, int, float or str, "
                                f"not {type(c).__name__} ({c!r})")
            if isinstance(c, float) and not math.isfinite(c):
                raise ValueError(f"{name}: a choice must be finite, not {c}")
            text = _choice_text(c)
            if text in seen:
                raise ValueError(f"{name}: choices {seen[text]!r} and {c!r} are one choice "
                                 f"(both read {text!r}); choices must differ as text")
            seen[text] = c
        all_numbers = all(isinstance(c, numbers.Real) and not isinstance(c, bool)
                          for c in self.choices)
        self.parameter_type = "discrete" if all_numbers else "categorical"

    def to_spec(self) -> Dict[str, Any]:
        """This parameter's entry of the spec's ``parameters``: the choices
        as JSON scalars, which the server keeps with their types."""
        spec = {"name": self.name, "parameterType": self.parameter_type,
                "feasibleSpace": {"list": list(self.choices)}}
        if self.parent:
            spec["parent"] = self.parent
        return spec

    def __repr__(self) -> str:
        return f"Categorical({self.name!r}, {self.choices!r}{_parent_repr(self.parent)})"


Parameter = Union[Float, Int, Categorical]


def _name(name: Any) -> str:
    if not isinstance(name, str) or not name:
        raise TypeError(f"a parameter's name must be a non-empty str, not {name!r}")
    return name


def parameters(space: Sequence[Parameter]) -> List[Dict[str, Any]]:
    """The spec's ``parameters`` for a search space (a list of Float, Int,
    Categorical); names must be unique."""
    if isinstance(space, (_Range, Categorical)):
        space = [space]
    out, seen = [], set()
    for p in space:
        if not hasattr(p, "to_spec"):
            raise TypeError("space must hold hpt.Float, hpt.Int or hpt.Categorical, "
                            f"not {type(p).__name__}")
        if p.name in seen:
            raise ValueError(f"space: parameter {p.name!r} is given twice")
        seen.add(p.name)
        out.append(p.to_spec())
    if not out:
        raise ValueError("space must hold at least one parameter")
    for p in out:
        if "parent" in p and p["parent"]["name"] not in seen:
            raise ValueError(f"space: {p['name']!r}'s parent {p['parent']['name']!r} "
                             "is not in the space")
    return out
