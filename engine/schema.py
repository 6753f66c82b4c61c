"""Declared widget inputs: fields, defaults, validation and link encoding.

A widget's inputs are a tree of fields. Each field knows its default, its
allowed values and a one-line help. ``validate`` takes JSON-like data (from
the command line, a Markdown page, a form or a link) and returns a complete,
normalised input dict, or raises :class:`InputError` naming the field and
what it allows.

Values may arrive as their JSON types or as text (forms and links carry
text); each field coerces text the same way everywhere.

>>> g = Group("root", "", fields=(Choice("terrain", "Hex terrain", "clear", choices=("clear", "town")),
...                               Integer("sides", "Hex sides", 1, minimum=1, maximum=6)))
>>> g.validate({"sides": "3"})
{'terrain': 'clear', 'sides': 3}
>>> g.validate({"terrain": "swamp"})
Traceback (most recent call last):
...
engine.schema.InputError: terrain: 'swamp' is not allowed; choose one of clear, town
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from fractions import Fraction
from typing import Any, Final

__all__ = [
    "InputError",
    "json_argument",
    "Field",
    "Choice",
    "Text",
    "Integer",
    "Number",
    "Boolean",
    "Group",
    "ListOf",
    "flatten",
    "unflatten",
    "to_text",
    "jsonable",
    "fraction_text",
]


MAX_FIELD_SHOWN = 64
"""Longest field path a message repeats whole; every real path is shorter (tests/test_hostile.py holds it)."""


class InputError(ValueError):
    """An input that the widget's schema does not allow.

    ``field`` is the dotted path of the offending field (``attacker.supply``)
    and ``allowed`` says what would have been accepted.
    """

    whole = False
    """Set where the refusal undid the whole of a link, not only this field (:meth:`engine.widgets.Widget.from_link`)."""

    def __init__(self, field: str, message: str, allowed: str = "") -> None:
        self.field = field
        self.message = message
        self.allowed = allowed
        # a link may name any field: the message quotes a name past every real path's length cut short
        super().__init__(f"{cut(field, MAX_FIELD_SHOWN)}: {message}" if field else message)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "InputError", "field": self.field, "message": str(self), "allowed": self.allowed}
        if self.whole:
            out["whole"] = True
        return out


MAX_NUMBER_TEXT = 40
"""Longest text a number field reads; every sensible value is far shorter."""
MAX_EXPONENT = 30
"""Largest power of ten a number's text may carry (``1e30``)."""
WHOLE_TEXT = re.compile(r"[+-]?[0-9]{1,%d}" % MAX_NUMBER_TEXT, re.ASCII)
"""A whole number as forms, links and the command line write it: ASCII digits only
(Python's ``int`` would also take ``1_000`` and other scripts' digits)."""
LONG_WHOLE_TEXT = re.compile(r"[+-]?[0-9]+", re.ASCII)
"""A whole number of any length: one past MAX_NUMBER_TEXT digits is out of range, not "not a number"."""
ROW_TEXT = re.compile(r"0|[1-9][0-9]{0,3}", re.ASCII)
"""A row's number in a dotted path (``attackers.1.count``), written one way only: as the engine writes it."""
NUMBER_TEXT = re.compile(r"(?=.{1,%d}$)[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE](?P<exp>[+-]?[0-9]+))?"
                         r"(?:/(?P<den>[0-9]+))?" % MAX_NUMBER_TEXT, re.ASCII)
"""An exact number's text: ``3``, ``-2.5``, ``5/2``, ``1.5e3``; at most MAX_NUMBER_TEXT characters."""
MAX_JSON_TEXT = 100_000
"""Longest JSON text a list or group field reads."""
MAX_JSON_DEPTH = 16
"""Deepest nesting of lists and objects a field's JSON text may have."""


def _unread(text: str, what: str) -> str:
    """Why a number field did not read ``text``: digits too many to read are out of range; the rest is not ``what``."""
    return "is out of range" if LONG_WHOLE_TEXT.fullmatch(text) else f"is not {what}"


def shown(value: Any, limit: int = 24) -> str:
    """A value as a message quotes it, cut short: messages never repeat a whole hostile input.

    >>> shown("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxxxx…'"
    >>> shown(5), shown(Fraction(5, 2)), shown(True), shown(None)
    ('5', '5/2', 'true', 'null')
    """
    if isinstance(value, bool) or value is None:  # as JSON, a link or a form spells them
        return "null" if value is None else "true" if value else "false"
    if isinstance(value, Fraction):
        return cut(fraction_text(value), limit)
    if isinstance(value, str):
        return repr(cut(value, limit))
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** limit:
        return "a number too large to show"
    text = repr(value)
    return text if len(text) <= limit + 2 else text[:limit] + "…"


def cut(text: str, limit: int) -> str:
    """``text``, or its first ``limit`` characters and an ellipsis when longer."""
    return text if len(text) <= limit else text[:limit] + "…"


def json_depth_ok(text: str, limit: int) -> bool:
    """Whether JSON text nests lists and objects at most ``limit`` deep, in one linear pass.

    Parsing deeply nested JSON recurses, and in Pyodide a deep enough recursion
    ends the whole runtime: the depth is checked on the text before parsing.

    >>> json_depth_ok('[[1], {"a": [2]}]', 3), json_depth_ok("[[[1]]]", 2), json_depth_ok('["[[[["]', 1)
    (True, False, True)
    """
    depth = 0
    for ch in _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)):  # the brackets outside strings
        if ch == "[" or ch == "{":
            depth += 1
            if depth > limit:
                return False
        else:
            depth -= 1
    return True


MAX_ARGUMENT_TEXT: Final = 1_000_000
"""Longest JSON text a command-line argument may carry."""


def json_argument(text: str, name: str, *, object_only: bool = False) -> Any:
    """JSON text given on the command line as a value (an object when ``object_only``), or an InputError.

    >>> json_argument('{"sides": 2}', "--inputs", object_only=True)
    {'sides': 2}
    >>> json_argument("[1", "--values")
    Traceback (most recent call last):
    ...
    engine.schema.InputError: --values is not valid JSON
    """
    if len(text) > MAX_ARGUMENT_TEXT or not json_depth_ok(text, MAX_JSON_DEPTH):
        raise InputError("", f"{name} is too long or nests too deep")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise InputError("", f"{name} is not valid JSON") from None
    if object_only and not isinstance(value, dict):
        raise InputError("", f"{name} must be a JSON object")
    return value


_JSON_STRING: Final = re.compile(r'"(?:[^"\\]++|\\.)*+"?', re.S)
"""A JSON string, to its closing quote or to the end of an unclosed one."""
_NOT_BRACKET: Final = re.compile(r"[^\[\]{}]++")
"""Anything but a bracket. Both patterns run in the regular expression engine,
so only the brackets cost a Python-level step: a Monte Carlo chunk's request
(a battle's inputs and a tally, some 20 KB) is scanned in microseconds."""


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


@dataclass(frozen=True)
class Field:
    """Base of every input field."""

    name: str
    """Key in the input object; dotted paths join nested names."""
    help: str
    """One line a reader sees beside the control."""
    default: Any = None
    """Value used when the input is absent."""
    _: KW_ONLY
    label: str = ""
    """Short control label; defaults to the name in words."""
    assumed: str = ""
    """If set, the value is ours, not the rulebook's: this text says what the source says."""
    assumed_range_only: bool = False
    """The assumption is only the range the form accepts (the source gives none), not the value: the reader
    enters the value from the game (a counter's printed rating), so "Which assumptions matter"
    (:mod:`engine.sensitivity`) never reads it otherwise."""
    section: str = ""
    """Named section of a long settings group this field is shown under ("" for none)."""

    @property
    def title(self) -> str:
        return self.label or self.name.replace("_", " ").capitalize()

    def coerce(self, value: Any, path: str) -> Any:
        raise NotImplementedError

    def allowed(self) -> str:
        """Human description of the values this field accepts."""
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        """JSON description for ``python -m engine list`` and the form builder."""
        out: dict[str, Any] = {"name": self.name, "type": type(self).__name__.lower(),
                               "help": self.help, "default": _jsonable(self.default),
                               "allowed": self.allowed()}
        if self.assumed:
            out["assumed"] = self.assumed
        if self.section:
            out["section"] = self.section
        return out

    def fail(self, path: str, message: str) -> InputError:
        return InputError(path, message, self.allowed())


@dataclass(frozen=True, kw_only=True)
class Choice(Field):
    """One value out of a fixed list."""

    choices: tuple[str, ...] = ()
    """Allowed values, in display order."""
    labels: Mapping[str, str] = field(default_factory=dict)
    """Optional display text per value."""

    def coerce(self, value: Any, path: str) -> str:
        if not isinstance(value, str) or value not in self.choices:
            raise self.fail(path, f"{shown(value)} is not allowed; choose one of {self.allowed()}")
        return value

    def allowed(self) -> str:
        return ", ".join(self.choices)

    def label_for(self, value: str) -> str:
        return self.labels.get(value, value.replace("_", " "))


@dataclass(frozen=True, kw_only=True)
class Text(Field):
    """Free text of bounded length, for names: a unit's name, a result cell to read.

    ``suggestions`` are offered (a form shows them as a list to pick from) but
    any text within ``max_length`` is taken; a subclass may check or normalise
    it further in ``read``. Text is data: it is escaped wherever it is shown.

    >>> Text("name", "", "Rifles", max_length=8).coerce("  Guards ", "name")
    'Guards'
    >>> Text("name", "", "", max_length=4).coerce("Grenadiers", "name")
    Traceback (most recent call last):
    ...
    engine.schema.InputError: name: is too long (10 characters); enter text of at most 4 characters
    """

    max_length: int = 40
    suggestions: tuple[str, ...] = ()

    def coerce(self, value: Any, path: str) -> str:
        if not isinstance(value, str):
            raise self.fail(path, f"{shown(value)} is not text; enter {self.allowed()}")
        text = value.strip()
        if len(text) > self.max_length:
            raise self.fail(path, f"is too long ({len(text)} characters); enter {self.allowed()}")
        if any(ch < " " or ch == "\x7f" for ch in text):
            raise self.fail(path, f"has control characters; enter {self.allowed()}")
        if any("\ud800" <= ch <= "\udfff" for ch in text):  # half of a character (JSON's "\ud800"): not text
            raise self.fail(path, f"has a broken character; enter {self.allowed()}")
        return self.read(text, path)

    def read(self, text: str, path: str) -> str:
        """Check or normalise text already within bounds (subclasses); plain text is kept."""
        return text

    def allowed(self) -> str:
        return f"text of at most {self.max_length} characters"

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        if self.suggestions:
            out["suggestions"] = list(self.suggestions)
        return out


@dataclass(frozen=True, kw_only=True)
class Integer(Field):
    """A whole number within an inclusive range."""

    minimum: int | None = None
    maximum: int | None = None

    def coerce(self, value: Any, path: str) -> int:
        if isinstance(value, str):
            text = value.strip()
            if not text:
                raise self.fail(path, f"enter {self.allowed()}")
            if not WHOLE_TEXT.fullmatch(text):
                raise self.fail(path, f"{shown(text)} {_unread(text, 'a whole number')}; enter {self.allowed()}")
            value = int(text)  # at most MAX_NUMBER_TEXT ASCII digits: constant time
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"{shown(value)} is not a whole number; enter {self.allowed()}")
        if self.minimum is not None and value < self.minimum or self.maximum is not None and value > self.maximum:
            raise self.fail(path, f"{shown(value)} is out of range; enter {self.allowed()}")
        return value

    def allowed(self) -> str:
        """Its range as the site writes numbers ("from 1 to 10,000"); a value is typed without the commas."""
        if self.minimum is not None and self.maximum is not None:
            return f"a whole number from {self.minimum:,} to {self.maximum:,}"
        if self.minimum is not None:
            return f"a whole number of at least {self.minimum:,}"
        if self.maximum is not None:
            return f"a whole number of at most {self.maximum:,}"
        return "a whole number"


@functools.lru_cache(maxsize=1024)
def _number_text(text: str) -> Fraction | None:
    """The exact number a stripped text stands for, or None if it is none. Kept for the texts seen last: inputs
    as data write every number as text (AT Gold's unit-type table, 37 columns a row, repeats the same few)."""
    match = NUMBER_TEXT.fullmatch(text)
    # The text is short and its exponent small before any arithmetic:
    # 1e99999999 would otherwise build a hundred-million-digit number.
    if (not match or match["exp"] and abs(int(match["exp"])) > MAX_EXPONENT
            or match["den"] is not None and int(match["den"]) == 0):
        return None
    return Fraction(text)


@dataclass(frozen=True, kw_only=True)
class Number(Field):
    """An exact rational number (``3``, ``2.5`` or ``5/2``), kept as a Fraction.

    Validated values are :class:`~fractions.Fraction`; results should print
    them with ``fraction_text``.
    """

    minimum: Fraction | int | None = None
    maximum: Fraction | int | None = None
    step: str = "any"
    """HTML step attribute for the form control."""

    def coerce(self, value: Any, path: str) -> Fraction:
        number: Fraction
        if isinstance(value, float) and math.isfinite(value):
            value = repr(value)  # the decimal a reader wrote (0.1 is 1/10), read as text: 5e-324 is refused as 1e-31 is
        if isinstance(value, str):
            text = value.strip()
            if not text:
                raise self.fail(path, f"enter {self.allowed()}")
            parsed = _number_text(text) if len(text) <= MAX_NUMBER_TEXT else None
            if parsed is None:
                raise self.fail(path, f"{shown(text)} {_unread(text, 'a number')}; enter {self.allowed()}")
            number = parsed
        elif isinstance(value, (int, Fraction)) and not isinstance(value, bool):
            number = Fraction(value)
        else:
            raise self.fail(path, f"{shown(value)} is not a number; enter {self.allowed()}")
        if self.minimum is not None and number < self.minimum or self.maximum is not None and number > self.maximum:
            raise self.fail(path, f"{shown(number)} is out of range; enter {self.allowed()}")
        return number

    def allowed(self) -> str:
        lo = None if self.minimum is None else fraction_text(Fraction(self.minimum))
        hi = None if self.maximum is None else fraction_text(Fraction(self.maximum))
        if lo is not None and hi is not None:
            return f"a number from {lo} to {hi}"
        if lo is not None:
            return f"a number of at least {lo}"
        if hi is not None:
            return f"a number of at most {hi}"
        return "a number"


@dataclass(frozen=True, kw_only=True)
class Boolean(Field):
    """Yes or no (default no)."""

    def __post_init__(self) -> None:
        if self.default is None:
            object.__setattr__(self, "default", False)

    def coerce(self, value: Any, path: str) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise self.fail(path, f"{shown(value)} is not true or false")

    def allowed(self) -> str:
        return "true or false"


@dataclass(frozen=True, kw_only=True)
class Group(Field):
    """A named object of fields, e.g. the attacker or the defender."""

    fields: tuple[Field, ...] = ()

    def __post_init__(self) -> None:
        names = [f.name for f in self.fields]
        if len(names) != len(set(names)):
            raise ValueError(f"duplicate field names in {self.name}: {names}")

    @property
    def default_value(self) -> dict[str, Any]:
        return {f.name: f.default_value if isinstance(f, (Group, ListOf)) else f.default for f in self.fields}

    def stands_for(self, values: Mapping[str, Any]) -> Mapping[str, Any]:
        """What each of ``values`` stands for, where a field's value means another's (a row's empty reduced
        value is its combat value): a suggested sweep centres there. Here, the values themselves."""
        return values

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def coerce(self, value: Any, path: str) -> dict[str, Any]:
        if isinstance(value, str):
            value = _parse_json_text(self, value, path)
        if not isinstance(value, Mapping):
            raise self.fail(path, "must be an object of fields")
        known = {f.name for f in self.fields}
        for key in value:
            if key not in known:
                raise InputError(_join(path, str(key)), f"unknown field; {path or 'the widget'} takes "
                                 f"{', '.join(f.name for f in self.fields)}", ", ".join(sorted(known)))
        out: dict[str, Any] = {}
        for f in self.fields:
            sub = _join(path, f.name)
            if f.name in value:
                out[f.name] = f.coerce(value[f.name], sub)
            elif isinstance(f, (Group, ListOf)):
                out[f.name] = f.coerce(f.default_value, sub)
            else:
                out[f.name] = f.coerce(f.default, sub)
        return out

    def validate(self, value: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Complete and check a top-level input object."""
        return self.coerce({} if value is None else value, "")

    def allowed(self) -> str:
        return "an object with " + ", ".join(f.name for f in self.fields)

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        out["default"] = _jsonable(self.default_value)
        out["fields"] = [f.describe() for f in self.fields]
        return out

    def assumed_fields(self, prefix: str = "") -> list[tuple[str, Field]]:
        """Every field marked assumed, with its dotted path."""
        found: list[tuple[str, Field]] = []
        for f in self.fields:
            path = _join(prefix, f.name)
            if f.assumed:
                found.append((path, f))
            if isinstance(f, Group):
                found.extend(f.assumed_fields(path))
        return found


@dataclass(frozen=True, kw_only=True)
class ListOf(Field):
    """A list of items that share one group of fields, e.g. the units of a stack."""

    item: Group = field(default_factory=lambda: Group("item", ""))
    min_items: int = 0
    max_items: int = 30

    def __post_init__(self) -> None:
        if self.default is None:
            object.__setattr__(self, "default", ())

    @property
    def default_value(self) -> list[Any]:
        return [dict(x) for x in self.default]

    def coerce(self, value: Any, path: str) -> list[dict[str, Any]]:
        if isinstance(value, str):
            value = _parse_json_text(self, value, path)
        if isinstance(value, Mapping) and all(ROW_TEXT.fullmatch(str(k)) for k in value):
            value = [value[k] for k in sorted(value, key=lambda k: int(k))]
        if not isinstance(value, Sequence) or isinstance(value, str):
            raise self.fail(path, "must be a list")
        if not self.min_items <= len(value) <= self.max_items:
            raise self.fail(path, f"has {len(value)} items; {self.allowed()}")
        return [self.item.coerce(v, _join(path, str(i))) for i, v in enumerate(value)]

    def allowed(self) -> str:
        return f"a list of {self.min_items} to {self.max_items} items"

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        out["item"] = self.item.describe()
        return out


def _parse_json_text(f: Field, text: str, path: str) -> Any:
    if len(text) > MAX_JSON_TEXT:
        raise f.fail(path, f"is too long ({len(text)} characters; at most {MAX_JSON_TEXT})")
    if not json_depth_ok(text, MAX_JSON_DEPTH):
        raise f.fail(path, f"nests lists or objects more than {MAX_JSON_DEPTH} deep")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise f.fail(path, f"{shown(text)} is not valid JSON") from None


_PLAIN_TYPES = frozenset({str, int, bool, float, type(None)})


def _jsonable(value: Any) -> Any:
    kind = type(value)  # the common cases by their exact type first: inputs of AT Gold's 37-column table are thousands
    if kind in _PLAIN_TYPES:
        return value
    if kind is dict:
        return {k: _jsonable(v) for k, v in value.items()}
    if kind is list:
        return [_jsonable(v) for v in value]
    if isinstance(value, Fraction):
        return fraction_text(value)
    if isinstance(value, Mapping):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def jsonable(value: Any) -> Any:
    """Inputs as plain JSON data (fractions become text such as ``"5/2"``)."""
    return _jsonable(value)


def fraction_text(value: Fraction) -> str:
    """A Fraction as the shortest exact text: ``3``, ``5/2``.

    >>> fraction_text(Fraction(5, 2)), fraction_text(Fraction(4))
    ('5/2', '4')
    """
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


# Links ------------------------------------------------------------------

def flatten(group: Group, values: Mapping[str, Any], base: Mapping[str, Any] | None = None) -> dict[str, str]:
    """Dotted-path text of every value that differs from ``base`` (default: the defaults).

    This is what goes into a link; lists are written as JSON text.

    >>> g = Group("root", "", fields=(Integer("sides", "", 1), Group("attacker", "", fields=(Boolean("artillery", ""),))))
    >>> flatten(g, {"sides": 3, "attacker": {"artillery": True}})
    {'sides': '3', 'attacker.artillery': 'true'}
    >>> flatten(g, {"sides": 1, "attacker": {"artillery": True}}, base={"sides": 3, "attacker": {"artillery": True}})
    {'sides': '1'}
    """
    out: dict[str, str] = {}
    _flatten(group, values, group.validate(base), "", out)
    return out


def _flatten(group: Group, values: Mapping[str, Any], base: Mapping[str, Any], prefix: str, out: dict[str, str]) -> None:
    for f in group.fields:
        if f.name not in values:
            continue
        path = _join(prefix, f.name)
        value = values[f.name]
        if isinstance(f, Group):
            _flatten(f, value, base[f.name], path, out)
            continue
        if _jsonable(value) == _jsonable(base[f.name]):
            continue
        out[path] = to_text(value)


def to_text(value: Any) -> str:
    """A validated value as the text a link or a form carries.

    >>> to_text(True), to_text(Fraction(5, 2)), to_text([{"re": 1}])
    ('true', '5/2', '[{"re":1}]')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Fraction):
        return fraction_text(value)
    if isinstance(value, (list, tuple, Mapping)):
        return json.dumps(_jsonable(value), separators=(",", ":"))
    return str(value)


def unflatten(group: Group, pairs: Mapping[str, str],
              base: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], list[InputError]]:
    """Read dotted-path text back into inputs, rejecting bad parts one by one.

    Parts start from ``base`` (default: the defaults). Every part that is
    unknown or invalid is reported and left at its base value; the rest is
    kept. The result is always a valid input object.

    >>> g = Group("root", "", fields=(Integer("sides", "", 1, minimum=1, maximum=6), Boolean("night", "")))
    >>> inputs, errors = unflatten(g, {"sides": "9", "night": "true"})
    >>> inputs, [str(e) for e in errors]
    ({'sides': 1, 'night': True}, ['sides: 9 is out of range; enter a whole number from 1 to 6'])
    """
    start = group.validate(base)
    nested: dict[str, Any] = dict(start)
    errors: list[InputError] = []
    for path, text in pairs.items():
        f = _resolve(group, path)
        if f is None:
            errors.append(InputError(path, "no input of this widget has that name"))
            continue
        try:
            value = f.coerce(text, path)
        except InputError as exc:
            errors.append(exc)
            continue
        _set_path(nested, path.split("."), value)
    try:
        return group.validate(nested), errors
    except InputError as exc:  # pragma: no cover - each part was valid on its own
        errors.append(exc)
        return start, errors


def _resolve(group: Group, path: str) -> Field | None:
    current: Field = group
    for part in path.split("."):
        if not isinstance(current, Group):
            return None
        try:
            current = current.field(part)
        except KeyError:
            return None
    return None if current is group else current


def _set_path(target: dict[str, Any], parts: list[str], value: Any) -> None:
    for part in parts[:-1]:
        target[part] = dict(target.get(part, {}))
        target = target[part]
    target[parts[-1]] = value
