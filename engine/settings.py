"""Rule settings declared once: a frozen dataclass whose fields carry their form.

A game system keeps the values its source does not give (and the options its
players may choose) in one frozen dataclass. Each field is declared with
:func:`setting`, which records the help line, the allowed range or choices,
the section it belongs to and, for a value that is ours rather than the
source's, what the source says (``assumed``). :func:`rules_group` turns the
class into the schema group the forms, links and command line use, and
:func:`rules_from` turns validated input back into the dataclass, so neither
the schema nor the engine repeats a default, a range or a note.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Rules:
...     faces: str = setting("0-9", help="Faces of the die.", choices=("0-9", "1-10"),
...                          assumed="The source never names its die.", section="Dice")
...     rounds: int = setting(3, help="Next rounds at most.", minimum=0, maximum=3, section="Rounds")
...     river: Fraction = setting(Fraction(1, 2), help="Penalty kept with a bridge.",
...                               minimum=0, maximum=1, section="Terrain")
...     elite: bool = setting(True, help="Elite units re-roll a miss.", section="Dice")
>>> group = rules_group(Rules)
>>> [f.name for f in group.fields]
['faces', 'rounds', 'river', 'elite']
>>> group.field("faces").assumed
'The source never names its die.'
>>> rules_from(Rules, group.validate({"river": "1/4"}))
Rules(faces='0-9', rounds=3, river=Fraction(1, 4), elite=True)
>>> [name for name, _ in sections(group)]
['Dice', 'Rounds', 'Terrain']

A widget that needs only some of the settings takes them by name, in the
order it shows them; the fields are the same ones the whole group holds:

>>> [f.name for f in rules_group(Rules, only=("rounds", "faces")).fields]
['rounds', 'faces']
>>> rules_group(Rules, only=("faces",)).fields[0] == group.field("faces")
True

A setting whose value is not a single number, flag or choice (a table of
rows, say) names the schema field that holds it with ``field=``, a callable
taking ``(name, help, default, label=, assumed=, section=)``:

>>> from functools import partial
>>> from .schema import ListOf
>>> row = Group("row", "", fields=(Integer("modifier", "Die modifier.", 0),))
>>> @dataclass(frozen=True)
... class Tables:
...     table: tuple[dict[str, int], ...] = setting(({"modifier": 1},), help="The table.",
...                                                 field=partial(ListOf, item=row, min_items=1))
>>> rules_group(Tables).field("table").min_items
1
>>> rules_from(Tables, rules_group(Tables).validate({"table": [{"modifier": "2"}]}))
Tables(table=[{'modifier': 2}])

A choice may also be declared with a member of a ``str`` enumeration: the
form shows the members' values (all of them, unless ``choices`` narrows
them) and the dataclass gets the member back:

>>> import enum
>>> class Side(str, enum.Enum):
...     LEFT = "left"
...     RIGHT = "right"
>>> @dataclass(frozen=True)
... class Flank:
...     side: Side = setting(Side.LEFT, help="Which flank.", labels={"left": "Left flank"})
>>> rules_group(Flank).field("side").default, rules_group(Flank).field("side").choices
('left', ('left', 'right'))
>>> rules_from(Flank, {"side": "right"}).side is Side.RIGHT
True
>>> rules_values(Flank())
{'side': 'left'}
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from .schema import Boolean, Choice, Field, Group, Integer, Number

__all__ = ["setting", "rules_group", "rules_from", "rules_values", "sections", "Watched", "SETTING_KEY"]

SETTING_KEY = "engine.setting"
"""Key of a dataclass field's metadata that :func:`setting` fills."""

R = TypeVar("R")


def setting(default: Any, *, help: str, label: str = "", minimum: int | Fraction | None = None,
            maximum: int | Fraction | None = None, choices: Sequence[str] = (),
            labels: Mapping[str, str] | None = None, assumed: str = "", section: str = "",
            field: Callable[..., Field] | None = None) -> Any:
    """A dataclass field declaring one rule setting.

    The field's type follows its default: ``bool`` a yes/no, ``int`` a whole
    number, ``Fraction`` an exact number, ``str`` one of ``choices``, a member
    of a ``str`` enumeration one of its values (or of ``choices``). Any
    other value (a table, say) needs ``field``, the schema field's maker,
    called as ``field(name, help, default, label=, assumed=, section=)``.
    """
    if field is not None:
        if minimum is not None or maximum is not None or choices or labels:
            raise TypeError("a setting with its own field= declares its range or choices in that field")
    elif isinstance(default, float):
        raise TypeError("declare a fractional setting with a Fraction default, not a float")
    elif isinstance(default, enum.Enum):
        if not isinstance(default, str):
            raise TypeError("an enumeration setting needs a str enumeration (its values are the choices)")
        choices = tuple(choices) or tuple(m.value for m in type(default))
        if default.value not in choices:
            raise ValueError(f"the default {default.value!r} is not one of the choices {tuple(choices)}")
    elif isinstance(default, str) and default not in choices:
        raise ValueError(f"the default {default!r} is not one of the choices {tuple(choices)}")
    meta = {"help": help, "label": label, "minimum": minimum, "maximum": maximum,
            "choices": tuple(choices), "labels": dict(labels or {}), "assumed": assumed, "section": section,
            "field": field}
    return dataclasses.field(default=default, metadata={SETTING_KEY: meta})


def _schema_field(f: dataclasses.Field[Any]) -> Field:
    meta = f.metadata.get(SETTING_KEY)
    if meta is None:
        raise TypeError(f"rules field {f.name!r} is not declared with setting()")
    common = {"label": meta["label"], "assumed": meta["assumed"], "section": meta["section"]}
    default = f.default
    if meta["field"] is not None:
        made: Field = meta["field"](f.name, meta["help"], default, **common)
        return made
    if isinstance(default, enum.Enum):
        return Choice(f.name, meta["help"], default.value, choices=meta["choices"], labels=meta["labels"], **common)
    if isinstance(default, bool):
        return Boolean(f.name, meta["help"], default, **common)
    if isinstance(default, int):
        return Integer(f.name, meta["help"], default, minimum=meta["minimum"], maximum=meta["maximum"], **common)
    if isinstance(default, Fraction):
        return Number(f.name, meta["help"], default, minimum=meta["minimum"], maximum=meta["maximum"], **common)
    if isinstance(default, str):
        return Choice(f.name, meta["help"], default, choices=meta["choices"], labels=meta["labels"], **common)
    raise TypeError(f"rules field {f.name!r} has a default of unsupported type {type(default).__name__}")


def rules_group(cls: type[Any], name: str = "settings", help: str = "", *, label: str = "",
                only: Sequence[str] | None = None) -> Group:
    """The schema group of a rules dataclass: one field per setting, in declaration order.

    With ``only``, just the settings it names, in its order (a widget that
    shows a few of them); the others keep their defaults in the dataclass.
    """
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    declared = {f.name: f for f in dataclasses.fields(cls)}
    if only is None:
        chosen = list(declared.values())
    else:
        unknown = [n for n in only if n not in declared]
        if unknown:
            raise KeyError(f"{cls.__name__} declares no setting {', '.join(unknown)}")
        chosen = [declared[n] for n in only]
    return Group(name, help, fields=tuple(_schema_field(f) for f in chosen), label=label)


def rules_from(cls: type[R], values: Mapping[str, Any], *, partial: bool = False) -> R:
    """The rules dataclass from validated input (``rules_group(cls).validate(...)``).

    With ``partial``, settings the input does not hold (a group made with
    ``only``) keep their defaults.
    """
    return cls(**{f.name: _value(f, values[f.name]) for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                  if not partial or f.name in values})


def _value(f: dataclasses.Field[Any], value: Any) -> Any:
    """A validated input value as the dataclass holds it (an enumeration's member for its value)."""
    return type(f.default)(value) if isinstance(f.default, enum.Enum) else value


def rules_values(rules: Any) -> dict[str, Any]:
    """A rules dataclass back to input values (the inverse of :func:`rules_from`)."""
    out = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}
    return {k: v.value if isinstance(v, enum.Enum) else v for k, v in out.items()}


def sections(group: Group) -> list[tuple[str, list[Field]]]:
    """The group's fields by section, sections in order of first appearance ("" for none)."""
    out: dict[str, list[Field]] = {}
    for f in group.fields:
        out.setdefault(f.section, []).append(f)
    return list(out.items())


class Watched:
    """Rules that note the name of each setting read from them (into ``read``).

    A battle that never read a setting plays alike, with the same dice, under any other value of it: a
    widget's trial that watches its rules (``Widget.watched``) lets a run copy that battle for such a value
    instead of playing it (:func:`engine.scenarios.figure_chunk`).

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Rules:
    ...     rounds: int = 3
    ...     elite: bool = True
    >>> read = set()
    >>> Watched(Rules(), read).rounds, read
    (3, {'rounds'})
    """

    __slots__ = ("rules_", "read_")

    def __init__(self, rules: Any, read: set[str]) -> None:
        self.rules_ = rules
        self.read_ = read

    def __getattr__(self, name: str) -> Any:
        self.read_.add(name)
        return getattr(self.rules_, name)
