"""A widget's state as short, URL-safe link text, versioned and owned by the engine.

The dotted-path links (``?sg-combat.terrain=forest``) stay; this is a second
form for states too large for them, e.g. a battle of two dozen units:
``?instance=~1.z…``. The text is

* ``~1.`` — the format and its version;
* ``j`` + base64url of compact JSON, or ``z`` + base64url of that JSON
  compressed in the **zlib** format (RFC 1950: what Python's ``zlib`` and the
  browser's ``CompressionStream('deflate')`` write; not ``'deflate-raw'``),
  whichever is shorter. zlib's 6 bytes of header and Adler-32 cost 8
  characters and buy a checksum: a damaged link is refused, not misread.

The JSON holds only what differs from the page's base inputs:

* a group: an object of its fields that differ (by name, so a link survives
  a field added to the schema);
* a list that differs from the base's: ``[names, row, row, …]``, where
  ``names`` lists once the item fields any row sets, and each row gives
  those fields' values in that order, ``null`` where the item's default
  holds; or, when shorter, ``{"b": [names, row, …]}``: the same rows
  against the base list's item at the same place (the item default past
  its end), a row that is the base's written ``0``, so one edited row of
  a long default list costs only its changes. (This second form came
  later within version 1: links written before it never hold it and read
  as they always did);
* a value: its JSON (numbers that are not whole as text such as ``"5/2"``).

Decoding is safe on hostile text: the link text, the inflated size and the
nesting are bounded, and every failure is an :class:`InputError` on
``state``; each part that the schema rejects is reported on its own path and
left at its base value, like the dotted links.

>>> from engine.schema import Group, Integer, ListOf
>>> g = Group("inputs", "", fields=(Integer("sides", "", 1, minimum=1, maximum=6),
...     ListOf("units", "", ({"n": 1},), item=Group("unit", "", fields=(Integer("n", "", 0), Integer("m", "", 0))))))
>>> base = g.validate({})
>>> text = encode(g, g.validate({"sides": 3, "units": [{"n": 2}, {"m": 5}]}), base)
>>> text
'~1.jeyJzaWRlcyI6MywidW5pdHMiOltbIm4iLCJtIl0sWzIsbnVsbF0sW251bGwsNV1dfQ'
>>> decode(g, text, base)
({'sides': 3, 'units': [{'n': 2, 'm': 0}, {'n': 0, 'm': 5}]}, [])
>>> encode(g, base, base)
'~1.j'
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Final

from .schema import Field, Group, InputError, ListOf, fraction_text, json_depth_ok, jsonable
from .schema import shown as schema_shown

__all__ = ["PREFIX", "encode", "decode", "is_state", "MAX_TEXT", "MAX_JSON", "MAX_DEPTH", "diff", "pack", "unpack",
           "apply"]

PREFIX: Final = "~1."
"""Format and version; a later format takes ``~2.`` and this module keeps reading ``~1.``."""

MAX_TEXT: Final = 16_000
"""Longest link state read, in characters."""

MAX_JSON: Final = 256_000
"""Most bytes the state may inflate to."""

MAX_DEPTH: Final = 16
"""Deepest nesting of arrays and objects in a state."""

_ZLIB_LEVEL: Final = 9


def is_state(text: str) -> bool:
    """Whether link text is in this codec's form (any version).

    >>> is_state("~1.j"), is_state("forest")
    (True, False)
    """
    return text.startswith("~")


# Encoding ------------------------------------------------------------------------------------------------------

def _value(v: Any) -> Any:
    if isinstance(v, Fraction):
        return v.numerator if v.denominator == 1 else fraction_text(v)
    return jsonable(v)


def _same(a: Any, b: Any) -> bool:
    return jsonable(a) == jsonable(b)


def _group_diff(group: Group, values: Mapping[str, Any], base: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in group.fields:
        v, b = values[f.name], base[f.name]
        if _same(v, b):
            continue
        if isinstance(f, Group):
            out[f.name] = _group_diff(f, v, b)
        elif isinstance(f, ListOf):
            out[f.name] = _list_diff(f, v, b)
        else:
            out[f.name] = _value(v)
    return out


def _item_default(f: ListOf) -> dict[str, Any]:
    return f.item.coerce(f.item.default_value, "")


def _list_rows(f: ListOf, items: list[Mapping[str, Any]], refs: list[Mapping[str, Any]]) -> list[Any]:
    diffs = [_group_diff(f.item, item, ref) for item, ref in zip(items, refs)]
    names = [x.name for x in f.item.fields if any(x.name in d for d in diffs)]
    return [names, *[[d.get(n) for n in names] for d in diffs]]


def _short(data: Any) -> int:
    return len(json.dumps(data, separators=(",", ":"), ensure_ascii=False))


def _list_diff(f: ListOf, items: list[Mapping[str, Any]], base: list[Mapping[str, Any]]) -> Any:
    """A list's rows against the item default, or (``{"b": rows}``) against the base's row at the same place,
    whichever is shorter: one edited row of a long default list costs that row's changes only."""
    default = _item_default(f)
    plain = _list_rows(f, items, [default] * len(items))
    if not base:
        return plain
    names, *rows = _list_rows(f, items, [base[i] if i < len(base) else default for i in range(len(items))])
    by_base = {"b": [names, *[row if any(v is not None for v in row) else 0 for row in rows]]}
    return by_base if _short(by_base) < _short(plain) else plain


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def encode(group: Group, values: Mapping[str, Any], base: Mapping[str, Any]) -> str:
    """Link text of validated ``values`` against validated ``base`` (both from ``group.validate``)."""
    return pack(_group_diff(group, values, base))


def diff(group: Group, values: Mapping[str, Any], base: Mapping[str, Any]) -> dict[str, Any]:
    """What :func:`encode` writes before packing: the fields of ``values`` that differ from ``base``."""
    return _group_diff(group, values, base)


def pack(data: Any) -> str:
    """Any JSON data as link text in this format (``~1.j…`` or ``~1.z…``, whichever is shorter).

    A scenario (a pinned state, a sweep, a target: :mod:`engine.scenarios`)
    travels this way beside the widget's own state.

    >>> unpack(pack({"s": {"input": "hexsides", "from": 1, "to": 6}}))
    {'s': {'input': 'hexsides', 'from': 1, 'to': 6}}
    """
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    raw = text.encode("utf-8") if text != "{}" else b""
    plain = "j" + _b64(raw)
    packed = "z" + _b64(zlib.compress(raw, _ZLIB_LEVEL)) if raw else plain
    return PREFIX + (packed if len(packed) < len(plain) else plain)


# Decoding ------------------------------------------------------------------------------------------------------

def _fail(why: str) -> InputError:
    """The whole saved state refused, in the reader's words: what happened, why, and what is shown instead."""
    error = InputError("state", f"this link's saved inputs could not be read ({why}); the widget shows the "
                       "page's example instead", "a link state written by this site")
    error.why = why  # type: ignore[attr-defined]  # for callers that word the refusal for another part of a link
    return error


def _unb64(text: str) -> bytes:
    if any(c not in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" for c in text):
        raise _fail("it holds characters this site never writes in a link: was it changed by hand?")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise _fail("the link may be cut short or damaged") from None


def _inflate(data: bytes) -> bytes:
    d = zlib.decompressobj()
    try:
        out = d.decompress(data, MAX_JSON)
    except zlib.error:
        raise _fail("the link may be cut short or damaged") from None
    if d.unconsumed_tail:
        raise _fail(f"it unpacks to more than {MAX_JSON:,} bytes, far more than this site writes")
    if not d.eof:
        raise _fail("the link is cut short")
    return out


def _payload(text: str) -> Any:
    if len(text) > MAX_TEXT:
        raise _fail(f"it is longer than {MAX_TEXT:,} characters")
    if not text.startswith(PREFIX):
        raise _fail("it is in a format this site does not read"
                    if text.startswith("~") else f"the widget's own link parameter carries its state as written by this "
                    f"site ({PREFIX}…); {schema_shown(text)} is not one")
    body = text[len(PREFIX):]
    mode, data = body[:1], _unb64(body[1:])
    if mode == "z":
        data = _inflate(data)
    elif mode != "j":
        raise _fail("it is in an encoding this site does not write")
    if len(data) > MAX_JSON:
        raise _fail(f"it is larger than {MAX_JSON:,} bytes")
    if not data:
        return {}
    try:
        json_text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _fail("it does not hold text") from None
    if not json_depth_ok(json_text, MAX_DEPTH):
        raise _fail(f"it nests deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(json_text)
    except ValueError:
        raise _fail("it is not valid JSON") from None


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _apply_group(group: Group, diff: Any, target: dict[str, Any], path: str, errors: list[InputError]) -> None:
    if not isinstance(diff, Mapping):
        errors.append(InputError(path or "state", "should be an object of fields", group.allowed()))
        return
    for name, part in diff.items():
        sub = _join(path, str(name))
        try:
            f: Field = group.field(str(name))
        except KeyError:
            errors.append(InputError(sub, "no input of this widget has that name"))
            continue
        if isinstance(f, Group):
            inner = dict(target[f.name])
            _apply_group(f, part, inner, sub, errors)
            target[f.name] = inner
            continue
        try:
            target[f.name] = f.coerce(_rows_to_items(f, part, sub, target[f.name]) if isinstance(f, ListOf) else part,
                                      sub)
        except InputError as exc:
            errors.append(exc)


def _rows_to_items(f: ListOf, rows: Any, path: str, base: Any = ()) -> list[dict[str, Any]]:
    """Items from ``[names, row, …]`` over the item default, or from ``{"b": [names, row, …]}`` over the
    base's items at the same places (the item default past the base's end)."""
    default = jsonable(_item_default(f))
    refs: list[Any] = []
    if isinstance(rows, Mapping) and list(rows) == ["b"]:
        rows, refs = rows["b"], [jsonable(x) for x in base] if isinstance(base, list) else []
    if not isinstance(rows, list) or not rows or not isinstance(rows[0], list):
        raise InputError(path, "should be a list of rows", f.allowed())
    names = rows[0]
    if not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
        raise InputError(path, "has a damaged list of field names", f.allowed())
    if len(rows) - 1 > f.max_items:
        raise InputError(path, f"has {len(rows) - 1} items; {f.allowed()}", f.allowed())
    items = []
    for i, row in enumerate(rows[1:]):
        if refs and row == 0 and not isinstance(row, bool):  # the base form's row left as the base's
            row = [None] * len(names)
        if not isinstance(row, list) or len(row) != len(names):
            raise InputError(_join(path, str(i)), "has a damaged row", f.item.allowed())
        diff = {n: v for n, v in zip(names, row) if v is not None}
        ref = refs[i] if i < len(refs) and isinstance(refs[i], Mapping) else default
        items.append(_expand(f.item, diff, ref, _join(path, str(i))))
    return items


def _expand(group: Group, diff: Mapping[str, Any], default: Mapping[str, Any], path: str) -> dict[str, Any]:
    """An item's raw value from its diff against the item default (nested groups and lists too)."""
    out = dict(default)
    for name, part in diff.items():
        try:
            f = group.field(name)
        except KeyError:
            raise InputError(_join(path, name), "no input of this widget has that name") from None
        if isinstance(f, Group) and isinstance(part, Mapping):
            out[name] = _expand(f, part, default[name], _join(path, name))
        elif isinstance(f, ListOf):
            out[name] = _rows_to_items(f, part, _join(path, name), default.get(name, ()))
        else:
            out[name] = part
    return out


def unpack(text: str) -> Any:
    """The JSON data of :func:`pack` text; bounded as :func:`decode` is; an InputError on ``state``."""
    return _payload(text)


def apply(group: Group, diff: Any, base: Mapping[str, Any]) -> tuple[dict[str, Any], list[InputError]]:
    """Validated inputs from a :func:`diff` over validated ``base``, and the parts rejected (as :func:`decode`)."""
    target = dict(base)
    errors: list[InputError] = []
    _apply_group(group, diff, target, "", errors)
    try:
        return group.validate(target), errors
    except InputError as exc:  # each part was valid on its own; keep the base
        return dict(base), [*errors, exc]


def decode(group: Group, text: str, base: Mapping[str, Any]) -> tuple[dict[str, Any], list[InputError]]:
    """Validated inputs from link text over validated ``base``, and the parts rejected.

    A malformed text is rejected whole (one error on ``state``, ``base``
    returned); otherwise each rejected part keeps its base value.

    >>> from engine.schema import Group, Integer
    >>> g = Group("inputs", "", fields=(Integer("sides", "", 1, minimum=1, maximum=6),))
    >>> decode(g, "~1.zbroken", g.validate({}))[1][0].message
    "this link's saved inputs could not be read (the link may be cut short or damaged); the widget shows the page's example instead"
    >>> values, errors = decode(g, encode(g, {"sides": 3}, {"sides": 1}), {"sides": 1})
    >>> values, errors
    ({'sides': 3}, [])
    """
    try:
        diff = _payload(text)
    except InputError as exc:
        return dict(base), [exc]
    return apply(group, diff, base)
