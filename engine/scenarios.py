"""Trying scenarios on any widget: compare two, sweep one input, find what it takes.

Every operation works through a widget's declared figures
(:mod:`engine.figures`) and its input schema, so it serves every widget:

* :func:`compare` (A, B): each figure of both and the difference B − A.
  Exact for calculators. For estimators, trial *i* of A and trial *i* of B
  draw from the same generator (:func:`engine.montecarlo.trial_rng` of the
  seed and *i*: common random numbers), and the difference's interval comes
  from the paired differences, so it is much narrower than two independent
  runs would give.
* :func:`sweep`: each figure along one input (a range or a list of values).
* :func:`target` ("what it takes"): the least (or most) value of an input
  whose figure reaches a threshold. Exact figures are compared exactly at
  every point of the range, and the answer says when the figure is not
  monotone along it. Estimated figures are run in rounds of trials until
  each point's interval lies wholly on one side of the threshold (or the
  point's trial budget is spent), and the answer may be "cannot tell
  between 7 and 8 at this precision".

Monte Carlo work is cut into *jobs* (:func:`figure_chunk`): a job is a
function of (widget, inputs, seed, first trial, count) alone and answers a
:class:`~engine.montecarlo.Tally` of per-trial figure values (exact sums), so
jobs merge exactly in any order, in one process, a process pool or a Dask
cluster, and give the browser's answer. Each operation takes a ``mapper``
(``mapper(function, list_of_argument_tuples) -> list of answers``) to run
its jobs; the default runs them here, one after another.

All the answers are plain JSON; :mod:`engine.api` exposes them as the ops
``compare``, ``sweep`` and ``target``, and ``python -m engine`` as commands.

>>> a = compare("small_general.combat", {}, {"terrain": "town"})
>>> row = a["figures"][0]
>>> row["name"], row["a"]["exact"], row["b"]["exact"], row["diff"]["exact"]
('defender_destroyed', '1/216', '0', '-1/216')
>>> s = sweep("small_general.combat", {}, {"input": "hex_sides", "from": 1, "to": 3})
>>> [p["value"] for p in s["points"]], [p["figures"]["total_modifier"]["exact"] for p in s["points"]]
([1, 2, 3], ['0', '1', '2'])
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from html import escape
from typing import Any, Final

from . import linkstate, montecarlo, present, widgets
from .figures import Figure
from .montecarlo import Interval, Kept, Prepared, Tally, tally_wilson, trial_rng, wilson, z_score
from .schema import (ROW_TEXT, Boolean, Choice, Field, Group, InputError, Integer, ListOf, Number, fraction_text,
                     jsonable, shown)

__all__ = ["MAX_POINTS", "MAX_TARGET_TRIALS", "MAX_PARTS", "varies", "vary_points", "compare", "sweep", "target",
           "figure_chunk", "merged_state", "serial", "chart_svg", "pin_state", "read_pin_state", "scenario_state", "read_scenario_state"]

MAX_POINTS = 61
"""Most points of a sweep or of a target's range (the page draws them; the CLI may split larger grids)."""
MAX_TARGET_TRIALS = 100_000
"""Most trials a target may spend on one point of its range."""
MAX_PARTS = 16
"""Most partial states one request may merge (:func:`merged_state`: one per engine worker sharing the run)."""
INDEPENDENT_OFFSET = 2**62
"""Trial indices of B in an independent (unpaired) comparison start here: a stream no run of A touches."""

Mapper = Callable[[Callable[..., Any], list[tuple[Any, ...]]], list[Any]]


def serial(fn: Callable[..., Any], args: list[tuple[Any, ...]]) -> list[Any]:
    """Run jobs here, in order: the default mapper."""
    return [fn(*a) for a in args]


# Inputs that can vary --------------------------------------------------------------------------------------------

def _field_at(group: Group, path: str, values: Any) -> Field:
    """The field at a dotted path (list rows by index: ``attackers.0.count``), or InputError naming ``input``."""
    current: Field = group
    value = values
    parts = path.split(".") if path else []
    i = 0
    while i < len(parts):
        part = parts[i]
        if isinstance(current, Group):
            try:
                current = current.field(part)
            except KeyError:
                break
            value = value.get(part) if isinstance(value, Mapping) else None
        elif isinstance(current, ListOf):
            if not (ROW_TEXT.fullmatch(part) and isinstance(value, list) and int(part) < len(value)):
                raise InputError("input", f"{shown(path)}: {shown(part)} is not a row of {current.name}",
                                 "a row number of the list, from 0")
            value = value[int(part)]
            current = current.item
        else:
            break
        i += 1
    if i < len(parts) or current is group or not isinstance(current, (Integer, Number, Choice, Boolean)):
        raise InputError("input", f"{shown(path)} is not an input that can vary; see the widget's varying inputs",
                         "a dotted path of a number, choice or yes/no input")
    return current


def varies(w: widgets.Widget, values: Mapping[str, Any] | None = None, focus: str | None = None) -> list[dict[str, Any]]:
    """Every input of ``w`` that a sweep or a target may vary: numbers, choices and yes/no fields, in groups and
    in each row of a list (``attackers.1.count``), with what each allows, and a whole number's suggested sweep
    (``range``). The suggestion for ``focus`` (the input the reader has chosen; by default the first listed) is
    narrowed to the values the widget takes with the rest of ``values`` (:func:`_whole_range`); the others'
    are not, which would cost a large form hundreds of checks on every call.

    >>> [v["input"] for v in varies(widgets.get("small_general.combat"))][:3]
    ['terrain', 'hex_sides', 'attacker.movement']
    >>> w = widgets.get("small_general.combat")
    >>> [v["range"] for v in varies(w, w.validate({"retreat_hexes": 3}), "hex_sides") if v["input"] == "hex_sides"]
    [{'from': 1, 'to': 3}]
    """
    values = w.validate(None) if values is None else values
    out: list[dict[str, Any]] = []

    def walk(group: Group, vals: Mapping[str, Any], prefix: str, label: str) -> None:
        for f in group.fields:
            path = f"{prefix}.{f.name}" if prefix else f.name
            title = f"{label}{f.title}"
            if isinstance(f, Group):
                walk(f, vals.get(f.name, {}), path, f"{title}: ")
            elif isinstance(f, ListOf):
                for i, row in enumerate(vals.get(f.name, [])):
                    walk(f.item, row, f"{path}.{i}", f"{title}, row {i + 1}: ")
            elif isinstance(f, (Integer, Number, Choice, Boolean)):
                d: dict[str, Any] = {"input": path, "label": title, "type": type(f).__name__.lower(),
                                     "allowed": f.allowed(), "value": jsonable(vals.get(f.name))}
                if isinstance(f, Choice):
                    d["values"] = list(f.choices)
                if isinstance(f, Integer):
                    d["minimum"], d["maximum"] = f.minimum, f.maximum
                    narrow = path == focus or (focus is None and not out)
                    d["range"] = _whole_range(w if narrow else None, values, path, f, group.stands_for(vals)[f.name])
                elif isinstance(f, Number):
                    d["minimum"] = None if f.minimum is None else jsonable(Fraction(f.minimum))
                    d["maximum"] = None if f.maximum is None else jsonable(Fraction(f.maximum))
                out.append(d)
    walk(w.inputs, values, "", "")
    return out


SWEEP_REACH: Final = 5
"""A whole number's suggested sweep: its value and the SWEEP_REACH values either side, within its bounds."""


def _whole_range(w: widgets.Widget | None, values: Mapping[str, Any], path: str, f: Integer, centre: Any) -> dict[str, int]:
    """The suggested sweep of whole-number input ``f`` at ``path``: ``centre`` (what its value stands for) and
    :data:`SWEEP_REACH` either side, within the field's bounds; given widget ``w``, narrowed to the values its
    ``check`` takes with the rest of ``values`` as they are, so a suggested sweep shows no refused point.

    The narrowing probes the two ends first (a check refuses a range of values, in practice): both taken, the
    range stands; otherwise it grows from the centre one value at a time.

    >>> w = widgets.get("small_general.combat")
    >>> _whole_range(w, w.validate({"retreat_hexes": 3}), "hex_sides", w.inputs.field("hex_sides"), 1)
    {'from': 1, 'to': 3}
    """
    centre = centre if isinstance(centre, int) and not isinstance(centre, bool) else f.default
    centre = max(centre, f.minimum) if f.minimum is not None else centre
    centre = min(centre, f.maximum) if f.maximum is not None else centre
    lo = centre - SWEEP_REACH if f.minimum is None else max(f.minimum, centre - SWEEP_REACH)
    hi = centre + SWEEP_REACH if f.maximum is None else min(f.maximum, centre + SWEEP_REACH)
    if w is not None and w.check is not None:
        check = w.check

        def fits(x: int) -> bool:
            try:
                check(_replaced(values, path.split("."), x))
            except InputError:
                return False
            return True

        if not (fits(lo) and fits(hi)) and fits(centre):
            a = b = centre
            while a > lo and fits(a - 1):
                a -= 1
            while b < hi and fits(b + 1):
                b += 1
            lo, hi = a, b
    return {"from": lo, "to": hi}


def _replaced(values: Any, parts: Sequence[str], value: Any) -> Any:
    """``values`` with the value at the path ``parts`` replaced, copying only the objects along the path."""
    if not parts:
        return value
    key: Any = int(parts[0]) if isinstance(values, list) else parts[0]
    out = list(values) if isinstance(values, list) else dict(values)
    out[key] = _replaced(values[key], parts[1:], value)
    return out


def _with(w: widgets.Widget, values: Mapping[str, Any], path: str, value: Any, plain: Any = None) -> dict[str, Any]:
    """Validated inputs: ``values`` with the input at ``path`` set to ``value`` (raw or text).

    ``plain``: ``jsonable(values)``, from a caller that makes many (a sweep's points): it is shared by every
    call, never changed (only the objects along the path are copied).
    """
    return w.validate(_replaced(jsonable(values) if plain is None else plain, path.split("."), value))


def _number(value: Any, name: str) -> Fraction:
    return Number(name, "").coerce(value if not isinstance(value, float) else repr(value), name)


def _threshold(value: Any, f: Figure) -> Fraction:
    """A target's threshold: a number, or for a probability also a percentage (``"80%"``).

    >>> from engine.figures import Figure
    >>> p = Figure("win", "P(win)", lambda r: None)
    >>> _threshold("80%", p), _threshold("4/5", p), _threshold(0.5, p)
    (Fraction(4, 5), Fraction(4, 5), Fraction(1, 2))
    """
    if f.probability and isinstance(value, str) and value.strip().endswith("%"):
        thr = _number(value.strip()[:-1].strip(), "threshold") / 100
    else:
        thr = _number(value, "threshold")
        if f.probability and 1 < thr <= 100:
            raise InputError("threshold", "give a probability as a fraction of 1 (0.8, 4/5) or a percentage (80%)",
                             "a number from 0 to 1, or a percentage")
    if f.probability and not 0 <= thr <= 1:
        raise InputError("threshold", f"{shown(value)} is not a probability", "0 to 1, or 0% to 100%")
    return thr


def vary_points(w: widgets.Widget, values: Mapping[str, Any], spec: Any) -> tuple[str, list[Any]]:
    """The input path and the raw values of a sweep: ``{"input", "values": [...]}`` or
    ``{"input", "from", "to", "step"?}`` (step 1 by default), at most :data:`MAX_POINTS`; a choice or a yes/no
    with neither sweeps all its values.

    >>> vary_points(widgets.get("small_general.combat"), widgets.get("small_general.combat").validate({}),
    ...             {"input": "hex_sides", "from": 1, "to": 3})
    ('hex_sides', [1, 2, 3])
    """
    if not isinstance(spec, Mapping):
        raise InputError("vary", "give the input to vary and its values (or from, to and step)",
                         "an object with input and values, or input, from, to and step")
    path = spec.get("input")
    if not isinstance(path, str) or not 0 < len(path) <= 200:
        raise InputError("input", "name the input to vary by its dotted path", "a dotted path such as terrain")
    f = _field_at(w.inputs, path, values)
    if "values" in spec:
        raw = spec["values"]
        if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_POINTS:
            raise InputError("values", f"give a list of 1 to {MAX_POINTS} values", f"1..{MAX_POINTS} values")
        points = [f.coerce(v, path) for v in raw]
    elif "from" in spec or "to" in spec:
        if not isinstance(f, (Integer, Number)):
            raise InputError("input", f"{shown(path)} is not a number; give its values as a list", "values")
        lo, hi = _number(spec.get("from"), "from"), _number(spec.get("to"), "to")
        step = _number(spec.get("step", 1), "step")
        if step <= 0:
            raise InputError("step", "the step must be more than 0", "a number more than 0")
        if hi < lo:
            raise InputError("to", "the range ends before it starts", "a number at least from")
        count = math.floor((hi - lo) / step) + 1
        if count > MAX_POINTS:
            raise InputError("step", f"the range has {count:,} points; at most {MAX_POINTS}: take a larger step",
                             f"at most {MAX_POINTS} points")
        if isinstance(f, Integer) and (lo.denominator != 1 or step.denominator != 1):
            raise InputError("step", f"{shown(path)} is a whole number: give a whole start and step", "whole numbers")
        points = [f.coerce(int(lo + k * step) if isinstance(f, Integer) else lo + k * step, path)
                  for k in range(count)]
    elif isinstance(f, Choice):
        points = list(f.choices)
    elif isinstance(f, Boolean):
        points = [False, True]
    else:
        raise InputError("vary", f"give the values of {shown(path)}, or from, to and step", "values, or from and to")
    return path, [jsonable(p) for p in points]


# Figures of one state ------------------------------------------------------------------------------------------------

def _value_json(x: Fraction | int | None, iv: Interval | None = None, n: int = 0) -> dict[str, Any] | None:
    if x is None:
        return None
    q = Fraction(x)
    out: dict[str, Any] = {"exact": fraction_text(q), "float": float(q)}
    if iv is not None:
        out.update(low=iv.low, high=iv.high, trials=n)
    return out


def _figures(w: widgets.Widget, names: Sequence[str] | None) -> tuple[Figure, ...]:
    if not w.figures:
        raise InputError("", f"{w.id} declares no figures to compare")
    if names is None:
        return w.figures
    if not isinstance(names, list) or not 1 <= len(names) <= len(w.figures):
        raise InputError("figures", "give a list of the widget's figure names", ", ".join(f.name for f in w.figures))
    return tuple(figure_named(w, n, "figures") for n in names)


def figure_named(w: widgets.Widget, name: Any, field: str = "figure") -> Figure:
    """The figure of ``w`` so named, or an InputError on ``field`` (a name that is not text included)."""
    by = {f.name: f for f in w.figures}
    if not isinstance(name, str) or name not in by:
        raise InputError(field, f"{shown(name)} is not a figure of {w.id}", ", ".join(by))
    return by[name]


def exact_figures(w: widgets.Widget, values: dict[str, Any]) -> dict[str, Fraction | None]:
    """Each figure of a calculator's result on validated inputs."""
    result = w.result(values)
    return {f.name: (None if (v := f.read(result)) is None else Fraction(v)) for f in w.figures}


def _exact_points(w: widgets.Widget, states: Sequence[Any]) -> list[Any]:
    """:func:`exact_figures` at each point of a sweep or a target (or the point's InputError). Points whose
    inputs share the widget's ``result_key`` share one result: it is computed once, for the first of them."""
    out: list[Any] = []
    done: dict[Any, Any] = {}
    for st in states:
        if isinstance(st, InputError):
            out.append(st)
            continue
        key = None if w.result_key is None else w.result_key(st)
        if key is None or key not in done:
            try:
                got: Any = exact_figures(w, st)
            except InputError as exc:
                got = exc
            if key is not None:
                done[key] = got
        else:
            got = done[key]
        out.append(got)
    return out


def _key(w: widgets.Widget, variants: Sequence[Mapping[str, Any]], seed: int, pairing: str, rule: str = "",
         plain: bool = False) -> str:
    """A tally's key: a digest of the widget, every variant's validated inputs (``plain``: already as
    ``jsonable`` makes them), the seed, the pairing and the rule that stops readings."""
    parts: list[Any] = ["figures", w.id, variants if plain else [jsonable(v) for v in variants], seed, pairing]
    text = json.dumps(parts + ([rule] if rule else []), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


_CHUNK_KEYS_SIZE = 2 * MAX_POINTS
_CHUNK_KEYS = Kept(_CHUNK_KEYS_SIZE)
"""Tally keys of recent jobs' variants by a digest of the request's text: a key digests every variant's
validated inputs (about 1 ms for AT Gold's 40 against 40 in CPython), and a run's jobs repeat the same few."""


def _chunk_key(w: widgets.Widget, variants: list[Any], vals: list[dict[str, Any]], seed: int, pairing: str,
               rule: str = "") -> str:
    try:
        text = json.dumps([w.id, variants, seed, pairing, rule], separators=(",", ":"))
    except (TypeError, ValueError):  # not JSON data (a caller in Python)
        return _key(w, vals, seed, pairing, rule)
    sent = hashlib.sha256(text.encode("utf-8")).hexdigest()  # not the text: a reading of every setting is ~100 KB
    return _CHUNK_KEYS.keep(sent, lambda: _key(w, vals, seed, pairing, rule))


def _states(widget_id: str, seed: int, pairing: str, rule: str, *variants: Any) -> tuple[list[dict[str, Any]], str]:
    w = widgets.get(widget_id)
    vals = [w.run_inputs(v)[0] for v in variants]
    return vals, _chunk_key(w, list(variants), vals, seed, pairing, rule)


_kept_states = Prepared(_states, 2 * MAX_POINTS)
"""Recent jobs' states by the identity of the inputs sent (see :func:`chunk_states`)."""


def chunk_states(w: widgets.Widget, variants: list[Any], seed: int, pairing: str = "common",
                 rule: str = "", validated: Sequence[dict[str, Any]] | None = None) -> tuple[list[dict[str, Any]], str]:
    """The validated inputs of a job's states and its tally's key, kept for later jobs that send the same inputs.

    A run comes as many short calls, each sending the same inputs objects: a sweep's points
    (:func:`_prepared` keeps them by request), a reading of every assumed setting (:func:`engine.sensitivity._prepared`
    keeps a hundred states or more as one list). Validating and digesting them cost as much as a short call's
    battles; so does building each battle's setup from them again (the widgets' ``Prepared``), which the same
    validated objects spare too. Kept by the identity of the objects sent, so a caller's fresh inputs (a
    compare's, a plain call's) are validated afresh.

    ``validated``: the states' validated inputs, from a caller that made ``variants`` from them with ``jsonable``
    (:func:`engine.sensitivity._prepared`): they are not validated again, and the key digests ``variants`` as
    they are. A reading of AT Gold's 40 against 40 has 140 states; this spared its first call about half its
    time (0.4 s in the browser).
    """
    made = None if validated is None else lambda: (list(validated), _key(w, variants, seed, pairing, rule, plain=True))
    return _kept_states(*variants, also=(w.id, seed, pairing, rule), make=made)


def figure_chunk(widget_id: str, variants: list[Any], seed: int, first: int, count: int,
                 pairing: str = "common", only: Sequence[int] | None = None, rule: str = "",
                 base: bool = True) -> dict[str, Any]:
    """One job: trials ``first`` … ``first + count - 1`` of each variant (a list of inputs), as a tally of
    per-trial figure values: ``k.name`` (variant *k*) and, for two variants, ``d.name`` (B − A of the same trial);
    for more, ``dk.name`` (variant *k* − variant 0 of the same trial).

    Trial *i* of every variant draws from ``trial_rng(seed, i)`` (common random numbers), or with
    ``pairing="independent"`` the second variant from index ``i + 2**62``. Plain data in and out (a
    process pool or a Dask worker runs it as it is); the answer is a function of the arguments alone.
    ``only`` (several variants) plays variant 0 and only the variants listed (the readings
    :mod:`engine.sensitivity` has not stopped); ``rule`` names the rule that chose them and goes into the key,
    so a tally of one rule never merges with another's. ``base=False`` plays variant 0 for the others' copies
    and differences but measures none of its figures (a slice of a reading after the first, which measured them).
    """
    w = widgets.get(widget_id)
    if w.trial is None:
        raise InputError("", f"{w.id} has no Monte Carlo estimate")
    vals, key = chunk_states(w, variants, seed, pairing, rule)
    playing = list(range(len(vals))) if only is None else [0] + sorted({k for k in only if 0 < k < len(vals)})
    out = Tally(key, w.confidence)
    out.ranges = out.covers(first, first + count)
    figs = w.figures
    rows: list[dict[str, Any]] = []  # variant 0's figures, trial by trial
    changes = _watched_changes(w, vals, playing, pairing)
    read: list[frozenset[str]] = []  # the watched inputs each of variant 0's trials read (when one may be copied)
    for k in playing:  # one variant's trials after another: a battle's setup is built once a variant, not a trial
        v = vals[k]
        for i in range(first, first + count):
            if k in changes and not changes[k] & read[i - first]:
                row = rows[i - first]  # the trial read none of the inputs this variant changes: it plays alike
            else:
                one = Tally("", w.confidence)
                one.ranges = ((i, i + 1),)
                index = one.at = i + INDEPENDENT_OFFSET if (k == 1 and pairing == "independent") else i
                if k == 0 and changes:
                    names: set[str] = set()
                    w.trial(v, trial_rng(seed, index), one, names)  # type: ignore[call-arg]
                    read.append(frozenset(w.watched + name for name in names))
                else:
                    w.trial(v, trial_rng(seed, index), one)
                row = {}
                for f in figs:
                    x = f.read(one)
                    if x is None:
                        raise ValueError(f"{w.id}: figure {f.name} read nothing from a trial")
                    row[f.name] = x
            if k == 0:
                rows.append(row)
                if base:
                    for f in figs:
                        out.measure(f"0.{f.name}", row[f.name])
                continue
            for f in figs:
                out.measure(f"{k}.{f.name}", row[f.name])
            got = rows[i - first]  # the same trial of variant 0
            for f in figs:  # two variants: d.name (B − A); more: dk.name against the first (engine.sensitivity)
                out.measure(f"d.{f.name}" if len(vals) == 2 else f"d{k}.{f.name}", row[f.name] - got[f.name])
    return out.to_json()


_last_changes: list[Any] = [None, {}]
"""The last job's states (held, so no other list takes their identity) and their :func:`_watched_changes`."""


def _watched_changes(w: widgets.Widget, vals: list[dict[str, Any]], playing: list[int],
                     pairing: str) -> dict[int, frozenset[str]]:
    """The variants that may copy variant 0's trials, each with the inputs it changes: those that differ from
    variant 0 only in inputs the widget's trial watches (``Widget.watched``), on the same dice (common pairing).
    Worked out once for a run's states (a reading comes in many calls with the same list)."""
    if not w.watched or pairing != "common" or len(playing) < 2:
        return {}
    if _last_changes[0] is not vals:
        out = {}
        for k in range(1, len(vals)):
            paths = frozenset(w.link_diff(vals[k], vals[0]))
            if paths and all(p.startswith(w.watched) for p in paths):
                out[k] = paths
        _last_changes[:] = [vals, out]
    return {k: c for k, c in _last_changes[1].items() if k in playing}


def _estimate(t: Tally, name: str, f: Figure) -> dict[str, Any] | None:
    """A figure's estimate from its sums in ``t`` (``0.name``, ``1.name``, …, or a paired difference
    ``d.name`` / ``d3.name``), with its interval.

    A probability's is Wilson's. A mean's is the normal one from the spread the
    trials show, except where they show none: that interval would be a single
    point, a certainty no run of trials gives. A difference of probabilities that
    was zero in every trial (A and B ended alike each time) gets the bound that
    holds for it: each trial's difference is -1, 0 or 1, so the mean's size is at
    most the share of trials in which A and B differ, none of ``n`` so far, whose
    upper bound is Wilson's for 0 of ``n``. Any other figure without spread keeps
    its value as both ends and says so (``"spread": "none"``), and reads "in
    every one of the n trials", not as an interval.
    """
    s = t.sums.get(name)
    if s is None or not s.n:
        return None
    difference = name.split(".", 1)[0].startswith("d")
    flat = s.variance == 0
    if f.probability and not difference and Fraction(s.total).denominator == 1:
        iv = tally_wilson(int(s.total), s.n, t.confidence)
    elif f.probability and difference and flat and s.total == 0:
        bound = wilson(0, s.n, t.confidence).high
        iv = Interval(0.0, -bound, bound)
    else:
        half = z_score(t.confidence) * s.sd / math.sqrt(s.n)
        m = float(s.mean)
        iv = Interval(m, m - half, m + half)
        if flat:
            return {**_value_json(s.mean, iv, s.n), "spread": "none"}  # type: ignore[dict-item]
    return _value_json(s.mean, iv, s.n)


def _run_jobs(w: widgets.Widget, jobs: list[tuple[int, list[Any], int, int]], seed: int, pairing: str,
              mapper: Mapper, tallies: list[Tally | None], only: Sequence[int] | None = None,
              rule: str = "") -> list[Tally | None]:
    """Run ``(slot, variants, first, count)`` jobs through ``mapper`` and merge each answer into its slot
    (``only`` and ``rule`` as :func:`figure_chunk` takes them)."""
    extra: tuple[Any, ...] = () if only is None and not rule else (None if only is None else list(only), rule)
    answers = mapper(figure_chunk, [(w.id, variants, seed, first, count, pairing, *extra)
                                    for _, variants, first, count in jobs])
    out = list(tallies)
    for (slot, *_), answer in zip(jobs, answers):
        t = Tally.from_json(answer)
        try:
            out[slot] = t if out[slot] is None else out[slot].merged(t)
        except ValueError as exc:
            raise InputError("first", f"{exc}; each trial is counted once", "trials not yet in the tally") from None
    return out


def _chunks(first: int, count: int, size: int) -> list[tuple[int, int]]:
    """Trials ``first`` … ``first + count - 1`` in jobs of ``size``; none for a count of 0 (a call that only
    merges and renders what it carries)."""
    return [(a, min(size, first + count - a)) for a in range(first, first + count, max(size, 1))]


_PREPARED_SIZE = 8
_PREPARED = Kept(_PREPARED_SIZE)
"""The last few sweeps' validated inputs and points (:func:`_prepared`), by request text."""


def _prepared(w: widgets.Widget, inputs: Any, vary: Any) -> tuple[Any, ...]:
    """A sweep's (or a target's) validated inputs, varied path, raw values and their labels, each point's validated
    inputs (or InputError), the input's label, each point's tally key by seed (``key(i, seed)``) and each point's
    inputs as plain data (a job's argument: an estimator's; None for a calculator).

    A battle's sweep comes as many calls with the same inputs and range, to one engine or two: for AT Gold's
    40 against 40 validating the ten points took 27 ms of a 39 ms call of one battle (CPython). They are
    validated once per distinct request text; the values returned are shared and never changed (every
    use copies them: :func:`_with`, ``jsonable``).
    """
    try:  # a calculator's sweep is one call: nothing to share
        text = None if w.trial is None else json.dumps([w.id, inputs, vary], separators=(",", ":"))
    except (TypeError, ValueError):  # not JSON data (a caller in Python): nothing to share
        text = None

    def make() -> tuple[Any, ...]:
        values = w.validate(inputs)
        path, raw = vary_points(w, values, vary)
        states = _point_values(w, values, path, raw)
        label = next(v["label"] for v in varies(w, values) if v["input"] == path)
        names = [value_label(_field_at(w.inputs, path, values), v) for v in raw]
        # Each point's inputs as a job's argument (an estimator's; a calculator runs no jobs).
        data = None if w.trial is None else [None if isinstance(st, InputError) else jsonable(st) for st in states]
        keys: dict[tuple[int, int], str] = {}

        def key(i: int, seed: int) -> str:
            if (i, seed) not in keys:
                keys[i, seed] = _key(w, [states[i]], seed, "common")
            return keys[i, seed]
        return values, path, raw, names, states, label, key, data
    return make() if text is None else _PREPARED.keep(text, make)


def _read_tally(raw: Any, what: str) -> Tally | None:
    if raw is None:
        return None
    try:
        return Tally.from_json(raw)
    except InputError as exc:
        raise InputError(what, exc.message, exc.allowed) from None


def merged_state(carried: Any, parts: Any, per_point: bool) -> Any:
    """A scenario's carried state with the partial states of other engines sharing the run merged in, exactly.

    Two engines may share one compare, sweep, sensitivity, luck or target run: each adds its own trial
    ranges to a state of its own, and a request's ``parts`` brings the others' in. ``carried`` and each part
    are one tally (``per_point`` false: compare, sensitivity, luck) or a list with a tally or null per point
    (sweep, target); all of one run (the same key), over disjoint trials: a trial counted twice or a state of
    other inputs is an :class:`InputError` on ``parts``. The answer has the carried state's shape (JSON), the
    one a single engine gives after running every part's trials.

    >>> w = widgets.get("sgs.battle")
    >>> a = figure_chunk(w.id, [{}], 1, 0, 3)
    >>> b = figure_chunk(w.id, [{}], 1, 3, 2)
    >>> merged_state(a, [b], False) == figure_chunk(w.id, [{}], 1, 0, 5)
    True
    >>> merged_state(a, [a], False)
    Traceback (most recent call last):
    ...
    engine.schema.InputError: parts: part 1: trials 0 to 2 are counted twice; each trial is counted once
    """
    if not isinstance(parts, list) or not 1 <= len(parts) <= MAX_PARTS:
        raise InputError("parts", f"give a list of 1 to {MAX_PARTS} partial states of the run",
                         f"1..{MAX_PARTS} states")

    def read(raw: Any, i: int) -> Tally | None:
        try:
            return _read_tally(raw, "parts")
        except InputError as exc:
            raise InputError("parts", f"part {i}: {exc.message}", "partial states of this run") from None

    def merge(into: Tally | None, t: Tally | None, i: int) -> Tally | None:
        try:
            return t if into is None else into if t is None else into.merged(t)
        except (InputError, ValueError) as exc:
            why = exc.message if isinstance(exc, InputError) else str(exc)
            raise InputError("parts", f"part {i}: {why}; each trial is counted once",
                             "partial states of this run over disjoint trials") from None

    if not per_point:
        out = _read_tally(carried, "tally")
        states = [read(raw, i) for i, raw in enumerate(parts, 1)]
        montecarlo.check_merge_size([out, *states], "parts")
        for i, t in enumerate(states, 1):
            out = merge(out, t, i)
        return None if out is None else out.to_json()
    n = len(carried) if isinstance(carried, list) else len(parts[0]) if isinstance(parts[0], list) else -1
    if not 1 <= n <= MAX_POINTS:
        raise InputError("parts", "give each partial state as a list of tallies, one (or null) per point",
                         f"1..{MAX_POINTS} tallies")
    points = _tallies(carried, n)
    states = []
    for i, raw in enumerate(parts, 1):
        if not isinstance(raw, list) or len(raw) != n:
            raise InputError("parts", f"part {i}: give one tally (or null) per point: {n}", f"{n} tallies")
        states.append([read(r, i) for r in raw])
    montecarlo.check_merge_size([*points, *(t for part in states for t in part)], "parts")
    for i, part in enumerate(states, 1):
        points = [merge(t, r, i) for t, r in zip(points, part)]
    return [None if t is None else t.to_json() for t in points]


# Compare ---------------------------------------------------------------------------------------------------------------

def compare(widget_id: str, a: Mapping[str, Any] | None, b: Mapping[str, Any] | None, *, seed: int = 1,
            trials: int | None = None, first: int = 0, count: int | None = None, tally: Any = None,
            pairing: str = "common", figures: Sequence[str] | None = None, chunk: int = 0,
            mapper: Mapper = serial, render: bool = False) -> dict[str, Any]:
    """Every figure of A and B side by side with B − A.

    Calculators answer at once, exactly. Estimators run trials ``first`` …
    ``first + count - 1`` (default: all ``trials``, the widget's run size)
    of both, paired, added to ``tally`` (a previous chunk's, or None), cut
    into jobs of ``chunk`` trials for ``mapper`` (0: one job).
    """
    w = widgets.get(widget_id)
    figs = _figures(w, figures)
    va, vb = (w.validate(a), w.validate(b)) if w.trial is None else (w.run_inputs(a)[0], w.run_inputs(b)[0])
    if pairing not in ("common", "independent"):
        raise InputError("pairing", f"{shown(pairing)} is not a pairing", "common, independent")
    out: dict[str, Any] = {"widget": w.id, "kind": "estimate" if w.trial else "exact",
                           "a": jsonable(va), "b": jsonable(vb)}
    rows = []
    if w.trial is None:
        fa, fb = exact_figures(w, va), exact_figures(w, vb)
        for f in figs:
            x, y = fa[f.name], fb[f.name]
            rows.append({**f.describe(), "a": _value_json(x), "b": _value_json(y),
                         "diff": None if x is None or y is None else _value_json(y - x)})
    else:
        total = trials or w.trials
        count = total - first if count is None else count
        t = _read_tally(tally, "tally")
        if count < 0 or count == 0 and t is None:
            raise InputError("count", "no trials left to run", "1 or more")
        if t is not None and t.key != _chunk_key(w, [a, b], [va, vb], seed, pairing):
            raise InputError("tally", "the tally belongs to other inputs, another seed or another widget; "
                             "start again without one")
        jobs = [(0, [jsonable(va), jsonable(vb)], s, n) for s, n in _chunks(first, count, chunk or count)]
        t = _run_jobs(w, jobs, seed, pairing, mapper, [t])[0]
        assert t is not None
        for f in figs:
            rows.append({**f.describe(), "a": _estimate(t, f"0.{f.name}", f), "b": _estimate(t, f"1.{f.name}", f),
                         "diff": _estimate(t, f"d.{f.name}", f)})
        out.update(seed=seed, pairing=pairing, tally=t.to_json(), trials=t.trials, next=first + count,
                   done=t.trials >= total, confidence=fraction_text(w.confidence))
    out["figures"] = rows
    if render:
        out["html"] = compare_html(out)
    return out


def _shown_value(v: dict[str, Any] | None, unit: str, signed: bool = False) -> str:
    if v is None:
        return "—"
    x = v["float"]
    flat = f" in every one of the {v['trials']:,} trials" if v.get("spread") == "none" else ""
    if unit == "probability":
        text = f"{x * 100:+.2f} points" if signed else f"{x * 100:.2f}%"
        if flat:
            text += flat
        elif "low" in v:
            text += f" ({v['low'] * 100:.1f} to {v['high'] * 100:.1f})"
        elif v["exact"] not in ("0", "1") and not signed:
            text = f"{v['exact']} ({text})"
        return present.minus(text)
    text = f"{x:+.3g}" if signed else f"{x:.3g}"
    if "low" in v and not flat:
        text += f" ({v['low']:.3g} to {v['high']:.3g})"
    elif "low" not in v and Fraction(v["exact"]).denominator != 1:
        text = f"{v['exact']} ({text})"
    if unit and "exact" in v and "low" not in v and abs(Fraction(v["exact"])) == 1:  # exactly one: "1 step", "+1 RE"
        unit = SINGULAR.get(unit, unit)
    return present.minus(text) + (f" {unit}" if unit and unit != "probability" else "") + flat


SINGULAR: Final = {"rounds": "round", "individuals": "individual", "points": "point", "strength points": "strength point",
                   "hexes": "hex", "options": "option", "plans": "plan", "units": "unit", "REs": "RE", "hits": "hit",
                   "steps": "step"}
"""A figure's unit (plural, as figures declare it) for a value of exactly one."""


def compare_html(answer: Mapping[str, Any]) -> str:
    """A and B side by side: one row per figure, with B − A (and its interval for estimates)."""
    est = answer["kind"] == "estimate"
    rows = []
    for r in answer["figures"]:
        d = r["diff"]
        sign = "" if d is None else " up" if d["float"] > 0 else " down" if d["float"] < 0 else " same"
        rows.append(f'<tr><th scope="row">{escape(r["label"])}</th><td class="num">{escape(_shown_value(r["a"], r["unit"]))}'
                    f'</td><td class="num">{escape(_shown_value(r["b"], r["unit"]))}</td>'
                    f'<td class="num delta{sign}">{escape(_shown_value(d, r["unit"], True))}</td></tr>')
    note = ""
    if est:
        level = fraction_text(Fraction(answer["confidence"]) * 100)
        note = (f'<p class="note">{present.trials(answer["trials"])} each, seed {answer["seed"]}; in brackets the '
                f'{escape(level)}% interval; A and B share each trial\'s dice, so the difference is sharper than '
                f'either figure.</p>')
    return (f'<table class="compare"><caption>A (pinned) against B (now)</caption><thead><tr>'
            f'<th scope="col">Figure</th><th scope="col" class="num">A</th><th scope="col" class="num">B</th>'
            f'<th scope="col" class="num">B − A</th></tr></thead><tbody>{"".join(rows)}</tbody></table>{note}')


# Sweep -----------------------------------------------------------------------------------------------------------------

def _point_values(w: widgets.Widget, values: dict[str, Any], path: str, raw: list[Any]) -> list[Any]:
    """Validated inputs at each point, or the InputError that point's combination gives."""
    out: list[Any] = []
    plain = jsonable(values)
    for v in raw:
        try:
            out.append(_with(w, values, path, v, plain))
        except InputError as exc:
            out.append(exc)
    return out


def _label(v: Any) -> str:
    return "yes" if v is True else "no" if v is False else str(v)


def value_label(f: Field, v: Any) -> str:
    """A value of the input ``f`` as the form shows it: a choice by its label ("Very Close", not "very_close").

    >>> value_label(Choice("terrain", "", "open", choices=("open", "very_close"), labels={"very_close": "Very Close"}),
    ...             "very_close"), value_label(Boolean("river", "", False), True)
    ('Very Close', 'yes')
    """
    return f.label_for(v) if isinstance(f, Choice) else _label(v)


def sweep(widget_id: str, inputs: Mapping[str, Any] | None, vary: Any, *, seed: int = 1, trials: int | None = None,
          first: int = 0, count: int | None = None, tallies: Any = None, points: Sequence[int] | None = None,
          figures: Sequence[str] | None = None, chunk: int = 0, mapper: Mapper = serial,
          render: bool = False) -> dict[str, Any]:
    """Each figure at each value of one input.

    For estimators every point is its own run with the same seed (so the
    points share their dice and the curve is smooth): this call adds trials
    ``first`` … ``first + count - 1`` to the points listed in ``points``
    (default all) over ``tallies`` (one per point, or None), in jobs of
    ``chunk`` trials (0: one job per point).
    """
    w = widgets.get(widget_id)
    figs = _figures(w, figures)
    values, path, raw, names, states, label, key, data = _prepared(w, inputs, vary)
    out: dict[str, Any] = {"widget": w.id, "kind": "estimate" if w.trial else "exact", "input": path,
                           "label": label, "figures": [f.describe() for f in figs]}
    rows: list[dict[str, Any]] = []
    if w.trial is None:
        shown: dict[int, dict[str, Any]] = {}  # points that share a result share its figures (by the result's id)
        for v, name, got in zip(raw, names, _exact_points(w, states)):
            row: dict[str, Any] = {"value": v, "label": name}
            if isinstance(got, InputError):
                row["error"] = got.message
            else:
                if id(got) not in shown:
                    shown[id(got)] = {f.name: _value_json(got[f.name]) for f in figs}
                row["figures"] = shown[id(got)]
            rows.append(row)
    else:
        total = trials or w.trials
        count = total - first if count is None else count
        ts = _tallies(tallies, len(raw))
        todo = range(len(raw)) if points is None else _indices(points, len(raw))
        jobs = []
        for i in todo:
            if isinstance(states[i], InputError):
                continue
            if ts[i] is not None and ts[i].key != key(i, seed):
                raise InputError("tallies", f"tally {i + 1} belongs to other inputs or another seed", "")
            jobs += [(i, [data[i]], s, n) for s, n in _chunks(first, count, chunk or count)]
        ts = _run_jobs(w, jobs, seed, "common", mapper, ts)
        for v, name, st, t in zip(raw, names, states, ts):
            row = {"value": v, "label": name}
            if isinstance(st, InputError):
                row["error"] = st.message
            elif t is not None:
                row["figures"] = {f.name: _estimate(t, f"0.{f.name}", f) for f in figs}
                row["trials"] = t.trials
            rows.append(row)
        out.update(seed=seed, trials=total, confidence=fraction_text(w.confidence),
                   tallies=[None if t is None else t.to_json() for t in ts],
                   done=all(t is not None and t.trials >= total for t, st in zip(ts, states)
                            if not isinstance(st, InputError)))
    out["points"] = rows
    if render:
        out["html"] = sweep_html(out)
    return out


def _tallies(raw: Any, n: int) -> list[Tally | None]:
    if raw is None:
        return [None] * n
    if not isinstance(raw, list) or len(raw) != n:
        raise InputError("tallies", f"give one tally (or null) per point: {n}", f"{n} tallies")
    return [_read_tally(t, "tallies") for t in raw]


def _indices(points: Any, n: int) -> list[int]:
    if not isinstance(points, list) or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n
                                               for i in points) or len(set(points)) != len(points):
        raise InputError("points", f"give distinct point numbers from 0 to {n - 1}", f"0..{n - 1}")
    return sorted(points)


def sweep_html(answer: Mapping[str, Any], figures: Sequence[str] | None = None,
               threshold: Fraction | None = None) -> str:
    """One chart (SVG) per figure with its data table beside it."""
    parts = []
    for f in answer["figures"]:
        if figures is not None and f["name"] not in figures:
            continue
        pts = answer["points"]
        ys = [p.get("figures", {}).get(f["name"]) for p in pts]
        svg = chart_svg(f'{f["label"]} by {answer["label"]}', [p["value"] for p in pts], [p["label"] for p in pts],
                        ys, f["unit"], answer["label"], threshold)
        parts.append(f'<figure class="scenario-chart">{svg}<figcaption>{escape(f["label"])} by '
                     f'{escape(answer["label"])}</figcaption>{_data_table(answer, f)}</figure>')
    return f'<div class="scenario-charts">{"".join(parts)}</div>'


def _data_table(answer: Mapping[str, Any], f: Mapping[str, str]) -> str:
    est = answer["kind"] == "estimate"
    rows = []
    for p in answer["points"]:
        v = p.get("figures", {}).get(f["name"])
        cell = escape(p["error"]) if "error" in p else "…" if v is None else escape(_shown_value(v, f["unit"]))
        rows.append(f'<tr><th scope="row">{escape(p["label"])}</th><td class="num">{cell}</td></tr>')
    head = f["label"] + (" (interval)" if est else "")
    name = escape(f"{f['label']}: the chart's data", quote=True)
    # In a region that scrolls sideways on a narrow screen, named and reachable by keyboard, as the site's tables are.
    return (f'<div class="table-wrap" role="region" tabindex="0" aria-label="{name}">'
            f'<table class="chart-data"><caption>{escape(f["label"])}: the chart\'s data</caption><thead><tr>'
            f'<th scope="col">{escape(answer["label"])}</th><th scope="col" class="num">{escape(head)}</th></tr>'
            f'</thead><tbody>{"".join(rows)}</tbody></table></div>')


# Charts ---------------------------------------------------------------------------------------------------------------

def _nice(lo: float, hi: float) -> tuple[float, float, float]:
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / 5
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    return math.floor(lo / step) * step, math.ceil(hi / step) * step, step


def _num(x: float) -> str:
    """An axis's number as the site writes numbers: at most one decimal, thousands separated, millions in words.

    >>> [_num(x) for x in (0.75, 2.0, 1500.0, -12500.5, 2_000_000.0, 2_345_678.0, 3e12)]
    ['0.8', '2', '1,500', '-12,500.5', '2 million', '2.3 million', '3,000,000 million']
    """
    if abs(x) < 1e6:
        return f"{x:,.1f}".rstrip("0").rstrip(".")
    return f"{x / 1e6:,.1f}".rstrip("0").rstrip(".") + " million"


def chart_svg(title: str, xs: Sequence[Any], labels: Sequence[str], ys: Sequence[Mapping[str, Any] | None],
              unit: str, x_label: str, threshold: Fraction | None = None,
              reference: Sequence[float] | None = None) -> str:
    """A line chart of one figure along an input: points, the interval band of estimates, axes with units, and
    an optional threshold line, or a dashed ``reference`` line through a value at each point (an exact value
    an estimate is checked against). SVG with classes and presentation attributes only (no style attributes).

    >>> svg = chart_svg("P by x", [1, 2], ["1", "2"], [{"exact": "1/2", "float": 0.5}, None], "probability", "x")
    >>> svg.startswith('<svg class="chart"'), "style=" in svg, svg.count('<circle')
    (True, False, 1)
    """
    width, height, left, right, top, bottom = 480, 260, 56, 16, 28, 44
    pw, ph = width - left - right, height - top - bottom
    prob = unit == "probability"
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) or isinstance(x, str) and _is_num(x)
                  for x in xs) and len(xs) > 1
    xv = [float(x if isinstance(x, int) else Fraction(str(x))) for x in xs] if numeric else list(range(len(xs)))
    x0, x1 = (min(xv), max(xv)) if len(xv) > 1 and max(xv) > min(xv) else (xv[0] - 1, xv[0] + 1)

    def px(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * pw

    vals = [y for y in ys if y is not None]
    scale = 100.0 if prob else 1.0
    if prob:
        y0, y1, ystep = 0.0, 100.0, 20.0
    else:
        lows = [y.get("low", y["float"]) for y in vals] + ([float(threshold)] if threshold is not None else [])
        highs = [y.get("high", y["float"]) for y in vals] + ([float(threshold)] if threshold is not None else [])
        lows += list(reference or ())
        highs += list(reference or ())
        lo, hi = (min(lows), max(highs)) if lows else (0.0, 1.0)
        lo = min(lo, 0.0) if lo >= 0 else lo
        y0, y1, ystep = _nice(lo, hi)

    def py(v: float) -> float:
        return top + ph - (v * scale - y0) / (y1 - y0) * ph

    unit_text = "%" if prob else unit
    out = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" focusable="false">',
           f'<title>{escape(title)}</title>', '<g class="grid" stroke="currentColor" stroke-opacity="0.15">']
    ticks = []
    k = 0
    while y0 + k * ystep <= y1 + 1e-9 and k < 40:
        yy = y0 + k * ystep
        y = top + ph - (yy - y0) / (y1 - y0) * ph
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y:.1f}" y2="{y:.1f}"></line>')
        ticks.append(f'<text class="tick" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{_num(yy)}'
                     f'{"%" if prob else ""}</text>')
        k += 1
    out.append('</g><g class="axis" stroke="currentColor">'
               f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + ph}"></line>'
               f'<line x1="{left}" x2="{left + pw}" y1="{top + ph}" y2="{top + ph}"></line></g>')
    out.append('<g class="ticks" fill="currentColor" font-size="11">' + "".join(ticks))
    every = max(1, math.ceil(len(xs) / 12))
    for i, (x, lab) in enumerate(zip(xv, labels)):
        if i % every == 0 or i == len(xs) - 1:
            out.append(f'<text class="tick" x="{px(x):.1f}" y="{top + ph + 16}" text-anchor="middle">'
                       f'{escape(_tick(lab))}</text>')
    out.append(f'<text class="axis-label" x="{left + pw / 2:.1f}" y="{height - 6}" text-anchor="middle">'
               f'{escape(x_label)}</text>')
    if unit_text:
        out.append(f'<text class="axis-label" x="4" y="12" text-anchor="start">'
                   f'{escape(unit_text)}</text>')
    out.append('</g>')
    pairs = [(px(x), y) for x, y in zip(xv, ys) if y is not None]
    band = [(x, y) for x, y in pairs if "low" in y]
    if band:
        upper = " ".join(f"{x:.1f},{py(y['high']):.1f}" for x, y in band)
        lower = " ".join(f"{x:.1f},{py(y['low']):.1f}" for x, y in reversed(band))
        out.append(f'<polygon class="band" points="{upper} {lower}" fill="currentColor" fill-opacity="0.18">'
                   '</polygon>')
    if threshold is not None:
        ty = py(float(threshold))
        out.append(f'<line class="threshold" x1="{left}" x2="{left + pw}" y1="{ty:.1f}" y2="{ty:.1f}" '
                   f'stroke="currentColor" stroke-dasharray="4 3"></line>')
    if reference is not None and len(reference) == len(xv):
        line = " ".join(f"{px(x):.1f},{py(r):.1f}" for x, r in zip(xv, reference))
        out.append(f'<polyline class="reference" points="{line}" fill="none" stroke="currentColor" '
                   f'stroke-dasharray="4 3"></polyline>')
    if len(pairs) > 1:
        line = " ".join(f"{x:.1f},{py(y['float']):.1f}" for x, y in pairs)
        out.append(f'<polyline class="series" points="{line}" fill="none" stroke="currentColor" '
                   f'stroke-width="2"></polyline>')
    out += [f'<circle class="point" cx="{x:.1f}" cy="{py(y["float"]):.1f}" r="3" fill="currentColor"></circle>'
            for x, y in pairs]
    out.append("</svg>")
    return "".join(out)


def _tick(label: str, most: int = 14) -> str:
    """A point's label under a chart's axis, at most ``most`` characters: cut at a word with an ellipsis (the
    chart's table has it whole).

    >>> _tick("Very Close"), _tick("Loss becomes Panick; destroyed becomes the worst allowed result")
    ('Very Close', 'Loss becomes…')
    >>> _tick("Supercalifragilistic")
    'Supercalifrag…'
    """
    if len(label) <= most:
        return label
    cut = label[:most - 1]
    return (cut[:cut.rfind(" ")] if " " in cut else cut).rstrip(" ,;:") + "…"


def _is_num(text: str) -> bool:
    try:
        Fraction(text)
    except (ValueError, ZeroDivisionError):
        return False
    return True


# What it takes ---------------------------------------------------------------------------------------------------------

def _goal(goal: Any) -> str:
    if goal not in ("at_least", "at_most"):
        raise InputError("goal", f"{shown(goal)} is not a goal", "at_least, at_most")
    return goal


def target(widget_id: str, inputs: Mapping[str, Any] | None, figure: Any, threshold: Any, vary: Any, *,
           goal: str = "at_least", direction: str = "least", seed: int = 1, tallies: Any = None,
           count: int = 200, max_trials: int | None = None, chunk: int = 0, mapper: Mapper = serial,
           render: bool = False) -> dict[str, Any]:
    """The least (``direction="least"``) or most value of the varied input whose ``figure`` is ``goal``
    (``at_least`` or ``at_most``) ``threshold``.

    Exact figures: every point of the range is computed and compared
    exactly; ``monotone`` says whether the points reaching the threshold
    form one run at the end of the search order (if not, ``found`` is still
    the first that reaches it, and the message says so).

    Estimated figures: one call is one *round*: ``count`` more trials at each
    point still undecided (its interval straddles the threshold, its trials
    below ``max_trials``), over ``tallies`` (one per point, or None). A point
    is ``reaches``, ``short`` or ``unsure``; ``done`` once no point the answer
    depends on can still move. The answer is a value, or a pair of values it
    cannot tell between at this precision.
    """
    w = widgets.get(widget_id)
    f = figure_named(w, figure)
    goal = _goal(goal)
    if direction not in ("least", "most"):
        raise InputError("direction", f"{shown(direction)} is not a direction", "least, most")
    thr = _threshold(threshold, f)
    values, path, raw, names, states, label, key, data = _prepared(w, inputs, vary)
    order = list(range(len(raw))) if direction == "least" else list(range(len(raw)))[::-1]

    def meets(x: float | Fraction) -> bool:
        return x >= thr if goal == "at_least" else x <= thr

    out: dict[str, Any] = {"widget": w.id, "figure": f.describe(), "threshold": fraction_text(thr), "goal": goal,
                           "direction": direction, "input": path,
                           "label": label, "kind": "estimate" if w.trial else "exact"}
    status: list[str] = []
    figs: list[dict[str, Any] | None] = []
    if w.trial is None:
        for each in _exact_points(w, states):
            got = None if isinstance(each, InputError) else each[f.name]
            figs.append(_value_json(got))
            status.append("error" if got is None else "reaches" if meets(got) else "short")
        seq = [status[i] for i in order if status[i] != "error"]
        first_hit = next((i for i in order if status[i] == "reaches"), None)
        monotone = "reaches" not in seq or all(s == "reaches" for s in seq[seq.index("reaches"):])
        out.update(monotone=monotone, done=True)
        if first_hit is None:
            out.update(found=None, message=f"No value from {names[order[0]]} to {names[order[-1]]} "
                                           f"reaches it.")
        else:
            msg = f"{names[first_hit]} is the {direction} value that reaches it (exact)."
            if not monotone:
                after = [i for i in order[order.index(first_hit):] if status[i] != "error"]
                misses = [names[i] for i in after if status[i] == "short"]
                shown_misses = ", ".join(misses[:5]) + (f" and {len(misses) - 5} more" if len(misses) > 5 else "")
                back = after.index(next(i for i in after if status[i] == "short"))
                if "reaches" in [status[i] for i in after[back:]]:  # short, then reaching again: up and down
                    msg += (f" The figure is not monotone along {out['label']}: it falls short again at "
                            f"{shown_misses}.")
                else:  # one stretch that reaches, then short to the end: it may simply run the other way
                    msg += (f" The figure reaches it only as far as {names[after[back - 1]]}: past that it "
                            f"falls short, at {shown_misses}.")
            out.update(found=raw[first_hit], message=msg)
    else:
        cap = _bounded(max_trials if max_trials is not None else 4 * w.trials, "max_trials", 1, MAX_TARGET_TRIALS)
        count = _bounded(count, "count", 1, MAX_TARGET_TRIALS)
        ts = _tallies(tallies, len(raw))
        key_of = [None if isinstance(st, InputError) else key(i, seed) for i, st in enumerate(states)]
        for i, t in enumerate(ts):
            if t is not None and t.key != key_of[i]:
                raise InputError("tallies", f"tally {i + 1} belongs to other inputs or another seed", "")

        def classify(t: Tally | None) -> tuple[str, dict[str, Any] | None]:
            if t is None:
                return "unsure", None
            e = _estimate(t, f"0.{f.name}", f)
            if e is None:
                return "unsure", None
            low, high = e["low"], e["high"]
            if (low >= thr) if goal == "at_least" else (high <= thr):
                return "reaches", e
            if (high < thr) if goal == "at_least" else (low > thr):
                return "short", e
            return "unsure", e

        def relevant(stat: list[str]) -> list[int]:
            """Points whose status can still change the answer: up to the first point that surely reaches."""
            out_: list[int] = []
            for i in order:
                if isinstance(states[i], InputError):
                    continue
                out_.append(i)
                if stat[i] == "reaches":
                    break
            return out_

        stat = [classify(t)[0] for t in ts]
        jobs = []
        for i in relevant(stat):
            t = ts[i]
            n = 0 if t is None else t.trials
            if stat[i] == "unsure" and n < cap:
                todo = min(count, cap - n)
                jobs += [(i, [data[i]], s, m) for s, m in _chunks(n, todo, chunk or todo)]
        ts = _run_jobs(w, jobs, seed, "common", mapper, ts)
        for t in ts:
            s_, e = classify(t)
            status.append(s_)
            figs.append(e)
        for i, st in enumerate(states):
            if isinstance(st, InputError):
                status[i] = "error"
        rel = relevant(status)
        open_ = [i for i in rel if status[i] == "unsure" and (ts[i] is None or ts[i].trials < cap)]
        hit = next((i for i in rel if status[i] == "reaches"), None)
        unsure = [i for i in rel if status[i] == "unsure"]
        if hit is not None and not unsure:
            found, msg = raw[hit], f"{names[hit]} is the {direction} value that reaches it (estimated)."
        elif hit is None and not unsure:
            found, msg = None, f"No value from {names[order[0]]} to {names[order[-1]]} reaches it."
        elif hit is not None:
            found = None
            msg = (f"Cannot tell between {names[unsure[0]]} and {names[hit]} at this precision: "
                   f"{'run more trials' if open_ else 'allow more trials a point'} to decide.")
            out["between"] = [raw[unsure[0]], raw[hit]]
        else:
            found = None
            msg = (f"Cannot tell whether {names[unsure[0]]} or a value after it reaches it at this precision; "
                   f"{'run more trials' if open_ else 'allow more trials a point'}.")
            out["between"] = [raw[unsure[0]], None]
        out.update(found=found, message=msg, done=not open_, seed=seed, max_trials=cap,
                   confidence=fraction_text(w.confidence),
                   tallies=[None if t is None else t.to_json() for t in ts])
    out["points"] = [{"value": v, "label": name, "status": s, **({"figure": e} if e is not None else {}),
                      **({"error": st.message} if isinstance(st, InputError) else {})}
                     for v, name, s, e, st in zip(raw, names, status, figs, states)]
    if render:
        out["html"] = target_html(out)
    return out


def _bounded(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(name, f"{shown(value)} is not allowed; enter a whole number from {low} to {high}",
                         f"{low}..{high}")
    return value


def target_html(answer: Mapping[str, Any]) -> str:
    """The answer in words, then the figure along the range with the threshold drawn in."""
    f = answer["figure"]
    chart = sweep_html({"kind": answer["kind"], "label": answer["label"], "figures": [f],
                        "points": [{"value": p["value"], "label": p["label"],
                                    **({"figures": {f["name"]: p["figure"]}} if "figure" in p else {}),
                                    **({"error": p["error"]} if "error" in p else {})} for p in answer["points"]]},
                       threshold=Fraction(answer["threshold"]))
    return f'<p class="target-answer">{escape(answer["message"])}</p>{chart}'


# Link state ----------------------------------------------------------------------------------------------------------

def pin_state(w: widgets.Widget, pinned: Mapping[str, Any], base: Mapping[str, Any]) -> str:
    """The pinned A as a compact link state against the page's base (both validated)."""
    return w.state_text(pinned, base)


def read_pin_state(w: widgets.Widget, text: str, base: Mapping[str, Any]) -> tuple[dict[str, Any], list[InputError]]:
    """A pinned A from its link state over the page's validated base."""
    return linkstate.decode(w.inputs, text, base)


def scenario_state(w: widgets.Widget, base: Mapping[str, Any], *, pin: Mapping[str, Any] | None = None,
                   vary: Mapping[str, Any] | None = None, goal: Mapping[str, Any] | None = None,
                   luck: Any = None, assumptions: bool = False) -> str:
    """One compact link text (:func:`engine.linkstate.pack`) for a pinned A and what the panel shows: a sweep
    and a target, how rare a result is, or which assumptions matter.

    ``pin``: validated inputs; ``vary``: a sweep's spec (``input`` and ``values`` or ``from``/``to``/``step``);
    ``goal``: a target's ``figure``, ``threshold``, ``goal`` and ``direction`` (over the sweep's range);
    ``luck``: what happened, as :func:`engine.luck.luck` reads it (one entry: ``{"result": label}``,
    ``{"ending": label}`` or ``{name: count}``); ``assumptions``: the panel shows which assumptions matter.
    """
    data: dict[str, Any] = {}
    if pin is not None:
        data["a"] = linkstate.diff(w.inputs, pin, base)
    if vary is not None:
        data["s"] = {k: jsonable(vary[k]) for k in ("input", "values", "from", "to", "step") if k in vary}
    if goal is not None:
        data["t"] = {k: jsonable(goal[k]) for k in ("figure", "threshold", "goal", "direction") if k in goal}
    if luck is not None:
        data["h"] = _linked_luck(luck)
    if not isinstance(assumptions, bool):
        raise InputError("assumptions", f"{shown(assumptions)} is not true or false", "true or false")
    if assumptions:
        data["m"] = 1
    return linkstate.pack(data)


MAX_LUCK_TEXT: Final = 200
"""Longest name or label of what happened that a link keeps (the engine's longest is under 60)."""


def _linked_luck(observed: Any) -> dict[str, str | int]:
    """What happened, as a link keeps it: one name and its label or count; anything else is an InputError."""
    def fits(x: Any) -> bool:
        return isinstance(x, str) and 0 < len(x) <= MAX_LUCK_TEXT
    if isinstance(observed, Mapping) and len(observed) == 1:
        (name, value), = observed.items()
        counted = isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**9
        if fits(name) and (fits(value) or counted):
            return {name: value}
    raise InputError("luck", "what happened is not one result, ending or count", "such as {\"result\": \"DR\"}")


def read_scenario_state(w: widgets.Widget, text: str, base: Mapping[str, Any]) -> tuple[dict[str, Any], list[InputError]]:
    """The pinned A, sweep, target, luck and assumptions of :func:`scenario_state` text, each checked; rejected
    parts are reported (``pin.…``, ``sweep``, ``target``, ``luck``, ``assumptions``) and left out."""
    errors: list[InputError] = []
    try:
        data = linkstate.unpack(text)
    except InputError as exc:
        why = getattr(exc, "why", exc.message)
        return {}, [InputError("scenario", "the link's scenario (a pinned A, a sweep, a target, a result or the "
                               f"assumptions) could not be read ({why}); none is shown",
                               "a scenario written by this site")]
    if not isinstance(data, Mapping):
        return {}, [InputError("scenario", "the link's scenario could not be read (it is not one this site writes); "
                               "none is shown", "a scenario written by this site")]
    out: dict[str, Any] = {}
    if "a" in data:
        values, errs = linkstate.apply(w.inputs, data["a"], base)
        errors += [InputError(f"pin.{e.field}" if e.field else "pin", e.message, e.allowed) for e in errs]
        out["pin"] = jsonable(values)
    if "s" in data:
        try:
            path, _ = vary_points(w, base, data["s"])
            out["sweep"] = dict(data["s"])
        except InputError as exc:
            errors.append(InputError("sweep", exc.message, exc.allowed))
    if "t" in data:
        t = data["t"]
        ok = isinstance(t, Mapping) and isinstance(t.get("figure"), str) and t["figure"] in {f.name for f in w.figures}
        try:
            if ok:
                _threshold(t.get("threshold"), next(f for f in w.figures if f.name == t.get("figure")))
                _goal(t.get("goal", "at_least"))
                if t.get("direction", "least") not in ("least", "most"):
                    raise InputError("direction", "is not least or most")
        except InputError:
            ok = False
        if ok and "sweep" in out:
            out["target"] = dict(t)
        else:
            errors.append(InputError("target", "the target is not one this widget can search", ""))
    if "h" in data:
        try:
            out["luck"] = _linked_luck(data["h"])
        except InputError as exc:
            errors.append(InputError("luck", f"{exc.message}; how rare it is is not shown", exc.allowed))
    if "m" in data:
        if type(data["m"]) is int and data["m"] == 1:
            out["assumptions"] = True
        else:
            errors.append(InputError("assumptions", "the link's 'which assumptions matter' part is not one this "
                                     "site writes; it is not run", "1"))
    return out, errors
