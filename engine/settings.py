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
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from .schema import Boolean, Choice, Field, Group, Integer, Number

__all__ = ["setting", "rules_group", "rules_from", "rules_values", "sections", "SETTING_KEY"]

SETTING_KEY = "engine.setting"
"""Key of a dataclass field's metadata that :func:`setting` fills."""

R = TypeVar("R")


def setting(default: Any, *, help: str, label: str = "", minimum: int | Fraction | None = None,
            maximum: int | Fraction | None = None, choices: Sequence[str] = (),
            labels: Mapping[str, str] | None = None, assumed: str = "", section: str = "") -> Any:
    """A dataclass field declaring one rule setting.

    The field's type follows its default: ``bool`` a yes/no, ``int`` a whole
    number, ``Fraction`` an exact number, ``str`` one of ``choices``.
    """
    if isinstance(default, float):
        raise TypeError("declare a fractional setting with a Fraction default, not a float")
    if isinstance(default, str) and default not in choices:
        raise ValueError(f"the default {default!r} is not one of the choices {tuple(choices)}")
    meta = {"help": help, "label": label, "minimum": minimum, "maximum": maximum,
            "choices": tuple(choices), "labels": dict(labels or {}), "assumed": assumed, "section": section}
    return dataclasses.field(default=default, metadata={SETTING_KEY: meta})


def _schema_field(f: dataclasses.Field[Any]) -> Field:
    meta = f.metadata.get(SETTING_KEY)
    if meta is None:
        raise TypeError(f"rules field {f.name!r} is not declared with setting()")
    common = {"label": meta["label"], "assumed": meta["assumed"], "section": meta["section"]}
    default = f.default
    if isinstance(default, bool):
        return Boolean(f.name, meta["help"], default, **common)
    if isinstance(default, int):
        return Integer(f.name, meta["help"], default, minimum=meta["minimum"], maximum=meta["maximum"], **common)
    if isinstance(default, Fraction):
        return Number(f.name, meta["help"], default, minimum=meta["minimum"], maximum=meta["maximum"], **common)
    if isinstance(default, str):
        return Choice(f.name, meta["help"], default, choices=meta["choices"], labels=meta["labels"], **common)
    raise TypeError(f"rules field {f.name!r} has a default of unsupported type {type(default).__name__}")


def rules_group(cls: type[Any], name: str = "settings", help: str = "", *, label: str = "") -> Group:
    """The schema group of a rules dataclass: one field per setting, in declaration order."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    return Group(name, help, fields=tuple(_schema_field(f) for f in dataclasses.fields(cls)), label=label)


def rules_from(cls: type[R], values: Mapping[str, Any]) -> R:
    """The rules dataclass from validated input (``rules_group(cls).validate(...)``)."""
    return cls(**{f.name: values[f.name] for f in dataclasses.fields(cls)})  # type: ignore[arg-type]


def rules_values(rules: Any) -> dict[str, Any]:
    """A rules dataclass back to input values (the inverse of :func:`rules_from`)."""
    return {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}


def sections(group: Group) -> list[tuple[str, list[Field]]]:
    """The group's fields by section, sections in order of first appearance ("" for none)."""
    out: dict[str, list[Field]] = {}
    for f in group.fields:
        out.setdefault(f.section, []).append(f)
    return list(out.items())
