"""Which assumption matters: every figure under each other reading of every setting marked assumed.

Where a source is silent or contradicts itself the engine makes the value a
setting marked *assumed* (:mod:`engine.settings`). This module asks, for the
inputs at hand, how far each of those readings moves the widget's figures:
each other choice of a choice, the other answer of a yes/no, and for a number
half and one and a half times its value (a whole number: its value minus and
plus half of it, at least 1), inside the setting's own bounds. Settings are
ranked by how far they move the headline figure (the widget's first), and a
large spread gets one sentence ("Depends on our reading of …: 40-56 %").

Calculators answer exactly. For battles every variant plays trials 0 … N−1
with the same per-trial seeds (common random numbers, as
:func:`engine.scenarios.compare` does), in one job per chunk of trials whose
tally holds each variant's figures and each variant's per-trial difference
from the inputs as they are (``d{k}.name``), so the differences' intervals are
sharp; a call adds ``count`` trials to ``tally``, as the other scenario
operations do, and the ranking is there from the first call.

Most readings of a battle change no battle at all (40 against 40 in AT Gold:
112 of 133 readings changed none of the first 200), so a battle whose headline is
a share stops such a reading early. The rule is looked at only at fixed trial
counts, :data:`STOP_CHECKPOINTS`, each time on the reading's trials 0 … n−1
exactly, as :mod:`engine.precision` does: a reading stops at a checkpoint when
the share of battles whose headline it changes is, by Wilson's upper bound, at
most :data:`NEGLIGIBLE_SHARE`; the inputs as they are and every other reading
play the whole run. The answer is a function of (inputs, seed, trials, rule)
however the calls and workers cut the trials. ``full=True`` plays every reading
to the end (the rule of earlier versions). A battle that never read a setting
(AT Gold's battles note what they read: ``Widget.watched``) plays alike under its
other readings, so those copy it instead of playing it: the same tally, fewer
battles (40 against 40: 36,298 in a run of 1,000 instead of 45,900).

>>> a = sensitivity("small_general.combat", {})
>>> top = a["settings"][0]
>>> top["input"], top["low"]["exact"], top["high"]["exact"]
('settings.retreat_direction', '1/216', '7/144')
"""

from __future__ import annotations

import hashlib
import json

from collections.abc import Mapping, Sequence
from fractions import Fraction
from html import escape
from typing import Any, Final

from . import widgets
from .montecarlo import Tally, tally_wilson
from .scenarios import (Mapper, _chunks, _estimate, _figures, _read_tally, _replaced, _run_jobs,
                        _shown_value, _value_json, chunk_states, exact_figures, figure_chunk, figure_named,
                        merged_state, serial, value_label)
from .schema import Boolean, Choice, Field, InputError, Integer, Number, fraction_text, jsonable, shown

__all__ = ["alternatives", "sensitivity", "sensitivity_html", "note_html", "tornado_svg", "readings",
           "LARGE_PROBABILITY_SPREAD", "LARGE_RELATIVE_SPREAD", "STOP_CHECKPOINTS", "NEGLIGIBLE_SHARE", "STOP_RULE"]

LARGE_PROBABILITY_SPREAD = Fraction(5, 100)
"""A spread of a probability this wide (5 points) or wider earns the sentence under the headline."""
LARGE_RELATIVE_SPREAD = Fraction(1, 10)
"""For other figures: a spread of a tenth of the figure's value or more."""

STOP_CHECKPOINTS: Final = (200, 500)
"""The trial counts at which a battle's reading may stop early (those below the run's size).

200 is the least round count at which a reading that changed no battle can pass the rule: Wilson's
upper bound at 95 % for 0 of n is about 3.84 / (n + 3.84), 1.9 % at 200 but 3.7 % at 100 (at 150 it sits
on the line). At 500 a reading that changed up to 5 battles passes (1.75 % for 5 of 500). Fixed counts,
not whatever a call happens to have finished, so one call and many give the same answer."""

NEGLIGIBLE_SHARE: Final = LARGE_PROBABILITY_SPREAD / 2
"""A reading stops when the share of battles whose headline it changes is at most this (2.5 %), by
Wilson's upper bound at the run's confidence. A headline that is a share is 0 or 1 in each battle, so a
reading moves it by at most the share of battles it changes; a setting whose readings all stopped moves
the headline by less than 2.5 points either way, so its spread stays under the 5 points
(:data:`LARGE_PROBABILITY_SPREAD`) that earn the sentence under the headline."""

STOP_RULE: Final = "negligible"
"""The rule's name in a run's tally key: a tally of the early stop never merges with one of the full run."""


def _number_alternatives(f: Field, value: Fraction) -> list[Any]:
    lo = None if getattr(f, "minimum", None) is None else Fraction(f.minimum)  # type: ignore[attr-defined]
    hi = None if getattr(f, "maximum", None) is None else Fraction(f.maximum)  # type: ignore[attr-defined]
    if isinstance(f, Integer):
        step = max(1, abs(int(value)) // 2)
        raw = [value - step, value + step]
    elif value:
        raw = [value / 2, value * 3 / 2]
    else:
        raw = [Fraction(1, 10) if hi is None else hi / 4]
    out = []
    for x in raw:
        x = x if lo is None else max(lo, x)
        x = x if hi is None else min(hi, x)
        if x != value and x not in out:
            out.append(int(x) if isinstance(f, Integer) else x)
    return out


def alternatives(w: widgets.Widget, values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every assumed setting of ``w`` that can take another value, with those values.

    >>> [a["input"] for a in alternatives(widgets.get("small_general.combat"), widgets.get("small_general.combat").validate({}))][:2]
    ['settings.artillery_limit', 'settings.defending_artillery']
    """
    out = []
    for path, f in w.inputs.assumed_fields():
        if f.assumed_range_only:  # only the form's bounds are ours: the value is the reader's, from the game
            continue
        current = _at(values, path.split("."))
        if isinstance(f, Choice):
            alts: list[Any] = [c for c in f.choices if c != current]
        elif isinstance(f, Boolean):
            alts = [not current]
        elif isinstance(f, (Integer, Number)):
            alts = _number_alternatives(f, Fraction(current))
        else:
            continue
        if alts:
            out.append({"input": path, "label": f.title, "value": jsonable(current), "values": jsonable(alts),
                        "value_label": value_label(f, current), "labels": [value_label(f, a) for a in alts]})
    return out


def _variants(w: widgets.Widget, values: dict[str, Any]) -> tuple[list[dict[str, Any]], list[tuple[int, Any, Any]]]:
    """The inputs of every variant that validates, and for each: (setting's index, its value, its inputs)."""
    settings = alternatives(w, values)
    fields = dict(w.inputs.assumed_fields())
    out = []
    for i, s in enumerate(settings):
        for alt in s["values"]:
            try:
                out.append((i, alt, _read_as(w, values, s["input"], fields[s["input"]], alt)))
            except InputError:
                continue  # a combination the inputs do not allow: that reading cannot apply here
    return settings, out


def _read_as(w: widgets.Widget, values: dict[str, Any], path: str, f: Field, alt: Any) -> dict[str, Any]:
    """Validated ``values`` with the assumed setting at ``path`` (the field ``f``) read as ``alt``: what validating
    the whole inputs so changed gives, since a group checks its fields one by one and the widget's own check then
    reads the whole; only the setting and that check are run again (AT Gold's 140 readings of a table of 37
    columns took most of a reading's first call). Only the objects along the path are new; the rest is shared."""
    v = _replaced(values, path.split("."), f.coerce(alt, path))
    if w.check is not None:
        w.check(v)
    return v


_last_prepared: list[tuple[Any, ...]] = []
"""The last inputs' readings: (widget id, inputs as text, values, settings, variants, every state as data)."""


def _prepared(w: widgets.Widget, inputs: Mapping[str, Any] | None) -> tuple[Any, ...]:
    """The validated inputs, the settings read otherwise and every variant's inputs (also as data); a battle's
    are kept for the next request with the same inputs: its reading in the browser comes in many short calls,
    and building a hundred variants took most of each."""
    text = None  # a calculator answers in one call: nothing to keep (and the memory snapshot keeps no readings)
    if w.trial is not None:
        try:
            text = json.dumps(inputs, sort_keys=True, separators=(",", ":"))
        except (TypeError, ValueError):  # not JSON data (a caller in Python): nothing to keep
            pass
    if text is not None and _last_prepared and _last_prepared[0][:2] == (w.id, text):
        return _last_prepared[0][2:]
    values = w.validate(inputs)
    settings, variants = _variants(w, values)
    plain = jsonable(values)
    data = [plain]
    for i, _, v in variants:  # each the inputs' data with its setting's value changed, the rest shared
        path = settings[i]["input"].split(".")
        data.append(_replaced(plain, path, jsonable(_at(v, path))))
    if text is not None:
        _last_prepared[:] = [(w.id, text, values, settings, variants, data)]
    return values, settings, variants, data


def _at(values: Mapping[str, Any], path: Sequence[str]) -> Any:
    """The value at a dotted path's parts (assumed settings are in groups, never in a list's rows)."""
    for part in path:
        values = values[part]
    return values


def readings(widget_id: str, inputs: Mapping[str, Any] | None) -> int:
    """How many states a reading of ``inputs`` plays: the inputs as they are and each other reading."""
    return 1 + len(_prepared(widgets.get(widget_id), inputs)[2])


def _stops(head: Any, total: int, full: bool) -> tuple[int, ...]:
    """The checkpoints at which readings of a run of ``total`` trials may stop (none: every reading plays all)."""
    if full or not head.probability:
        return ()
    return tuple(c for c in STOP_CHECKPOINTS if c < total)


def _changed(t: Tally, k: int, head: Any) -> tuple[int, int]:
    """(battles whose headline reading ``k`` changed, battles it played): a share's headline is 0 or 1 in each
    battle, so the squares of the per-battle differences count the changed ones."""
    s = t.sums.get(f"d{k}.{head.name}")
    return (0, 0) if s is None else (int(s.squares), s.n)  # none: a tally without the reading plays it no more


def _stage(a: int, stops: tuple[int, ...], total: int) -> tuple[int, int]:
    """The stage trial ``a`` falls in: trials c … e−1 between two checkpoints (0 and the run's size at the ends)."""
    return max((c for c in stops if c <= a), default=0), min((c for c in stops if c > a), default=total)


def _span(ranges: Sequence[tuple[int, int]]) -> str:
    return ", ".join(f"{a:,} to {b - 1:,}" for a, b in ranges)


def _covers_prefix(t: Tally | None, c: int) -> bool:
    return t is not None and bool(t.ranges) and t.ranges[0][0] == 0 and t.ranges[0][1] >= c


def _playing(t: Tally | None, stage: Any, a: int, n_states: int, head: Any, stops: tuple[int, ...], total: int,
             key: str) -> list[int] | None:
    """The readings that play the stage trial ``a`` falls in (None: all of them, the first stage).

    Which readings play trials c … e−1 of a stage is fixed by trials 0 … c−1, so a stage's trials may come in
    any order and from several engines. ``t`` covers trials 0 … c−1 and any trials of the stage: exactly
    0 … c−1, the rule decides at c; with trials of the stage too, the readings that played them (those with
    every trial in ``t``) go on. An engine holding only some trials of the stage (``t`` without 0 … c−1)
    brings ``stage``, the set an answer that had those trials gave (:func:`stage_of`). A call never crosses
    into the next stage before ``t`` holds every trial of this one.
    """
    if not stops:
        return None
    c, e = _stage(a, stops, total)
    if t is not None and t.ranges and t.ranges[-1][1] > e:
        raise InputError("first", f"the tally holds trials past {e - 1:,} ({_span(t.ranges)}), and a reading that "
                         f"stops early decides at trial {e:,} which readings play on: send trials {c:,} to "
                         f"{e - 1:,} first", f"trials up to {e - 1:,}")
    if a < stops[0]:
        return None
    if _covers_prefix(t, c):
        assert t is not None
        if t.ranges == ((0, c),):
            out = []
            for k in range(1, n_states):
                m, n = _changed(t, k, head)
                if n == c and not (c in stops and tally_wilson(m, n, t.confidence).high <= NEGLIGIBLE_SHARE):
                    out.append(k)
            return out
        out = []
        for k in range(1, n_states):  # the readings that played the stage's trials held here play the rest
            n = _changed(t, k, head)[1]
            if n == t.trials:
                out.append(k)
            elif n > c:
                raise InputError("parts", f"reading {k} played {n - c:,} of this stage's {t.trials - c:,} trials: "
                                 "the partial states were played with another set of readings",
                                 "partial states of this run, each played with the set of its stage")
        return out
    if isinstance(stage, dict) and stage.get("from") == c:
        ok = (stage.get("key") == key and isinstance(stage.get("playing"), list) and len(stage["playing"]) < n_states
              and all(type(k) is int and 0 < k < n_states for k in stage["playing"]))
        if not ok:
            raise InputError("stage", f"give the stage of trials {c:,} to {e - 1:,} of this run as an answer "
                             "of it gave it", "the answer's stage, as it is")
        return sorted(set(stage["playing"]))
    held = f"the tally holds trials {_span(t.ranges)}" if t is not None and t.ranges else "no tally came"
    raise InputError("first", f"a reading that stops early decides at trial {c:,} which readings play trials "
                     f"{c:,} to {e - 1:,}: send the tally of trials 0 to {c - 1:,} with them, or the stage an "
                     f"answer gave ({held})", "the tally of every trial before the stage, or its stage")


def _check_part(carried: Tally | None, part: Tally | None, i: int, n_states: int, head: Any,
                stops: tuple[int, ...], total: int, key: str) -> None:
    """Another engine's partial state of one stage, played with the readings the carried tally says play it."""
    if not stops or part is None or not part.ranges or part.key != key:
        return  # another run's part: the merge refuses it
    c, e = _stage(part.ranges[0][0], stops, total)
    if part.ranges[-1][1] > e:
        raise InputError("parts", f"part {i}: trials {_span(part.ranges)} lie in two stages, split at {e:,}",
                         "each partial state within one stage")
    if c and not _covers_prefix(carried, c):
        raise InputError("parts", f"part {i}: trials {c:,} on are merged only into a tally of every trial "
                         f"before {c:,}", "the tally of every trial before the part's stage")
    playing = set(range(1, n_states)) if not c else set(_playing(carried, None, c, n_states, head, stops, total,
                                                                  key) or ())
    for k in range(1, n_states):
        n, want = _changed(part, k, head)[1], part.trials if k in playing else 0
        if n != want:
            raise InputError("parts", f"part {i}: reading {k} played {n:,} of its {part.trials:,} trials where this "
                             f"stage plays {want:,}: it was played with another set of readings",
                             "partial states of this run, each played with the set of its stage")


MAX_SLICES: Final = 64
"""The most slices a call's trials may be played in (a trial over 6 s in the browser is not sliced)."""


def _slice_of(raw: Any, count: int, stages: int) -> tuple[int, int]:
    """``[k, P]``: the k-th of P slices (from 0) of ``count`` trials that lie in ``stages`` stages (one)."""
    ok = (isinstance(raw, list) and len(raw) == 2 and all(type(x) is int for x in raw)
          and 1 <= raw[1] <= MAX_SLICES and 0 <= raw[0] < raw[1])
    if not ok:
        raise InputError("slice", f"{shown(raw)} is not a slice of the readings",
                         f"[k, P]: P from 1 to {MAX_SLICES}, k from 0 to P - 1")
    if count < 1 or stages > 1:
        raise InputError("slice", "a slice plays one or more trials within one stage", "trials between checkpoints")
    return raw[0], raw[1]


def stage_of(t: Tally, n_states: int, head: Any, stops: tuple[int, ...], total: int,
             key: str) -> dict[str, Any] | None:
    """The stage of the first trial ``t`` lacks and the readings that play it, when ``t`` tells (it holds every
    trial before the stage): another engine playing some of the stage's trials on a tally of its own brings it."""
    at = t.ranges[0][1] if t.ranges and t.ranges[0][0] == 0 else 0
    if not stops or at < stops[0] or at >= total or not _covers_prefix(t, _stage(at, stops, total)[0]):
        return None
    try:
        playing = _playing(t, None, at, n_states, head, stops, total, key)
    except InputError:
        return None
    return {"from": _stage(at, stops, total)[0], "key": key, "playing": playing}


def _reading(t: Tally, k: int, head: Any, base: dict[str, Any],
             stops: tuple[int, ...]) -> tuple[dict[str, Any] | None, dict[str, Any] | None, dict[str, Any]]:
    """Reading ``k``'s figure, its change and how far it played. A reading that stopped early gives the
    figure as it is moved by its change, with both intervals' half-widths (its own trials are fewer)."""
    diff = _estimate(t, f"d{k}.{head.name}", head)
    if not stops or diff is None:
        return _estimate(t, f"{k}.{head.name}", head), diff, {}
    m, n = _changed(t, k, head)
    played: dict[str, Any] = {"trials": n, "changed": m, "stopped": n < t.trials}
    if n == t.trials:
        return _estimate(t, f"{k}.{head.name}", head), diff, played
    x = Fraction(base["exact"]) + Fraction(diff["exact"])
    low = max(0.0, base["low"] + diff["low"])
    high = min(1.0, base["high"] + diff["high"])
    played["bound"] = tally_wilson(m, n, t.confidence).high
    return {"exact": fraction_text(x), "float": float(x), "low": low, "high": high, "trials": n}, diff, played


def sensitivity(widget_id: str, inputs: Mapping[str, Any] | None, *, figure: str | None = None, seed: int = 1,
                trials: int | None = None, first: int = 0, count: int | None = None, tally: Any = None,
                chunk: int = 0, mapper: Mapper = serial, render: bool = False, full: bool = False,
                stage: Any = None, parts: Any = None, slice_: Any = None, slice_tally: Any = None) -> dict[str, Any]:
    """Each assumed setting's other readings, ranked by how far they move ``figure`` (the headline by default).

    Estimators run trials ``first`` … ``first + count − 1`` (default: all ``trials``, the widget's run size)
    of the inputs and of every variant not yet stopped (see the module's note; ``full``: every variant
    plays every trial), added to ``tally``. Past the first checkpoint ``tally`` holds every trial before the
    call's stage, or only trials of that stage and ``stage`` says which readings play it (another engine's
    answer gave it); a call goes into the next stage only with every trial of this one. ``parts``, other
    engines' partial states of the run (:func:`engine.scenarios.merged_state`), are merged into ``tally``
    first, each checked against the readings its stage plays.

    ``slice_=[k, P]`` plays the k-th of P slices of the readings that play these trials (every P-th, from the
    k+1-th; the inputs as they are in each, for the copies and differences, measured in the first), so an
    engine that must answer a reader soon can play a trial too long for it in P short calls. Slices come in
    order, each with the ``slice_tally`` the one before answered (its key names the slice, so no other call
    takes it for the run's); the last joins them into an ordinary tally of the trials, added to ``tally``:
    the sums of one call, as every (trial, reading) is measured once.
    """
    w = widgets.get(widget_id)
    head = _figures(w, None)[0] if figure is None else figure_named(w, figure)
    values, settings, variants, data = _prepared(w, inputs)
    out: dict[str, Any] = {"widget": w.id, "kind": "estimate" if w.trial else "exact", "figure": head.describe(),
                           "variants": len(variants),
                           "rule": "each other choice; yes for no and no for yes; a number at half and one and a "
                                   "half times its value (a whole number: minus and plus half of it, at least 1), "
                                   "within the setting's bounds"}
    base: dict[str, Any] | None
    got: list[dict[str, Any] | None] = []
    diffs: list[dict[str, Any] | None] = []
    played: list[dict[str, Any]] = [{} for _ in variants]
    if w.trial is None:
        b = exact_figures(w, values)[head.name]
        base = _value_json(b)
        for _, _, v in variants:
            try:
                x = exact_figures(w, v)[head.name]
            except InputError:
                x = None
            got.append(_value_json(x))
            diffs.append(None if x is None or b is None else _value_json(x - b))
    else:
        total = trials or w.trials
        count = total - first if count is None else count
        t = _read_tally(tally, "tally")
        stops = _stops(head, total, full)
        rule = f"{STOP_RULE}:{head.name}" if stops else ""
        key = chunk_states(w, data, seed, "common", rule, validated=[values] + [v for _, _, v in variants])[1]
        if t is not None and t.key != key:
            raise InputError("tally", "the tally belongs to other inputs, another seed, another widget or the "
                             "other way of stopping readings; start again without one")
        if parts is not None:
            merged = _read_tally(merged_state(tally, parts, False), "tally")
            for i, raw in enumerate(parts, 1):
                _check_part(t, _read_tally(raw, "parts"), i, len(data), head, stops, total, key)
            t = merged
            if t is not None and t.key != key:
                raise InputError("parts", "a partial state belongs to other inputs, another seed or another run",
                                 "partial states of this run")
        if count < 0 or count == 0 and t is None:  # 0 with a tally: only merge (the request's parts) and render
            raise InputError("count", "no trials left to run", "1 or more")
        cuts = [first] + [c for c in stops if first < c < first + count] + [first + count]
        if slice_ is not None:  # one slice of these trials' readings: the last joins the others into a tally
            k, pieces = _slice_of(slice_, count, len(cuts) - 1)
            only = _playing(t, stage, first, len(data), head, stops, total, key)
            listed = list(range(1, len(data))) if only is None else only
            earlier = _read_tally(slice_tally, "slice_tally")
            # A slice's state names the slices played and the readings they were cut from (which the tally or
            # stage sent with each slice decides), so every slice of a trial cuts the same readings.
            cut_from = hashlib.sha256(repr(listed).encode("utf-8")).hexdigest()[:12]
            want = f"{key} slice {k} of {pieces} of {cut_from}"
            if k and (earlier is None or earlier.key != want or earlier.ranges != ((first, first + count),)):
                raise InputError("slice_tally", f"slice {k + 1} of {pieces} of trials {first:,} to "
                                 f"{first + count - 1:,} adds to the state the slice before it gave, as it is",
                                 "the answer's slice_tally of the slice before")
            if not k and earlier is not None:
                raise InputError("slice_tally", "a first slice starts afresh", "none")
            played_now = Tally.from_json(figure_chunk(w.id, data, seed, first, count, "common", listed[k::pieces],
                                                      rule, base=not k))
            done = k + 1 == pieces
            name = key if done else f"{key} slice {k + 1} of {pieces} of {cut_from}"
            try:
                joined = played_now if earlier is None else earlier.beside(played_now, name)
            except ValueError as exc:
                raise InputError("slice_tally", str(exc), "the answer's slice_tally of the slice before") from None
            joined.key = name
            if not done:  # nothing to say yet: the trials are not whole
                return {**out, "seed": seed, "tally": None if t is None else t.to_json(), "slice": [k + 1, pieces],
                        "slice_tally": joined.to_json(), "trials": 0 if t is None else t.trials, "next": first,
                        "done": False}
            try:
                t = joined if t is None else t.merged(joined)
            except ValueError as exc:
                raise InputError("first", f"{exc}; each trial is counted once", "trials not yet in the tally") from None
            cuts = []
        if count == 0 and t is not None and t.ranges and _covers_prefix(t, _stage(t.ranges[-1][1] - 1, stops, total)[0]):
            _playing(t, None, t.ranges[-1][1] - 1, len(data), head, stops, total, key)  # a merge's parts, checked
        for a, b in zip(cuts, cuts[1:]):  # a stage ends at each checkpoint: the rule looks at trials 0 … c−1
            only = _playing(t, stage, a, len(data), head, stops, total, key)
            jobs = [(0, data, s0, n) for s0, n in _chunks(a, b - a, chunk or (b - a))]
            t = _run_jobs(w, jobs, seed, "common", mapper, [t], only, rule)[0]
        assert t is not None
        base = _estimate(t, f"0.{head.name}", head)
        assert base is not None
        for k in range(1, len(data)):
            g, d, played[k - 1] = _reading(t, k, head, base, stops)
            got.append(g)
            diffs.append(d)
        out.update(seed=seed, tally=t.to_json(), trials=t.trials, next=first + count, done=t.trials >= total,
                   confidence=fraction_text(w.confidence),
                   stopping={"checkpoints": list(stops), "negligible": fraction_text(NEGLIGIBLE_SHARE)} if stops
                   else None)
        at = stage_of(t, len(data), head, stops, total, key)
        if at is not None:
            out["stage"] = at
    rows = []
    for i, s in enumerate(settings):
        named = dict(zip(s["values"], s["labels"]))
        alts = [{"value": alt, "label": named[alt], "figure": g, "diff": d, **p}
                for (j, alt, _), g, d, p in zip(variants, got, diffs, played) if j == i]
        seen = [a["figure"] for a in alts if a["figure"] is not None] + ([base] if base else [])
        if not alts or not seen:
            continue
        low = min(seen, key=lambda v: v["float"])
        high = max(seen, key=lambda v: v["float"])
        rows.append({**s, "alternatives": alts, "low": low, "high": high, "spread": high["float"] - low["float"]})
    rows.sort(key=lambda r: -r["spread"])
    out.update(base=base, settings=rows, sentence=_sentence(head, base, rows))
    if render:
        out["html"] = sensitivity_html(out)
    return out


def _sentence(head: Any, base: dict[str, Any] | None, rows: Sequence[Mapping[str, Any]]) -> str:
    """One sentence for the headline when a reading moves it far; empty otherwise."""
    if not rows or base is None:
        return ""
    top = rows[0]
    spread = Fraction(top["high"]["exact"]) - Fraction(top["low"]["exact"])
    large = (spread >= LARGE_PROBABILITY_SPREAD if head.probability
             else abs(Fraction(base["exact"])) and spread >= LARGE_RELATIVE_SPREAD * abs(Fraction(base["exact"])))
    if not large:
        return ""
    lo, hi = _plain(top["low"], head.unit), _plain(top["high"], head.unit)
    return f"{head.label} depends on our reading of “{top['label']}”: {lo} to {hi}."


def _plain(v: Mapping[str, Any], unit: str) -> str:
    """A figure for a sentence: a percentage to one decimal under 10 %, whole above; else three digits.

    >>> _plain({"float": 1 / 216}, "probability"), _plain({"float": 0.545}, "probability"), _plain({"float": 2.345}, "")
    ('0.5 %', '55 %', '2.35')
    """
    if unit != "probability":
        return f"{v['float']:.3g}"
    x = v["float"] * 100
    return f"{x:.1f} %" if 0 < x < 10 else f"{x:.0f} %"


def tornado_svg(answer: Mapping[str, Any], most: int = 12) -> str:
    """Bars from each setting's lowest to highest headline figure around the figure as it is, widest first.

    SVG with classes and presentation attributes only, as :func:`engine.scenarios.chart_svg`.
    """
    rows = [r for r in answer["settings"] if r["spread"] > 0][:most]
    head = answer["figure"]
    prob = head["unit"] == "probability"
    scale = 100.0 if prob else 1.0
    width, left, right, top, row_h = 480, 170, 16, 24, 22
    height = top + max(1, len(rows)) * row_h + 30
    pw = width - left - right
    base = answer["base"]["float"] if answer.get("base") else 0.0
    lows = [r["low"]["float"] for r in rows] + [base]
    highs = [r["high"]["float"] for r in rows] + [base]
    x0, x1 = (0.0, 1.0) if prob else (min(lows), max(highs))
    if x1 <= x0:
        x0, x1 = x0 - 1, x1 + 1

    def px(v: float) -> float:
        return left + (v - x0) / (x1 - x0) * pw

    title = f"How far each assumed setting moves {head['label']}"
    out = [f'<svg class="chart tornado" viewBox="0 0 {width} {height}" role="img" focusable="false">',
           f"<title>{escape(title)}</title>", '<g class="ticks" fill="currentColor" font-size="11">']
    for k in range(6):
        v = x0 + (x1 - x0) * k / 5
        out.append(f'<text class="tick" x="{px(v):.1f}" y="{height - 10}" text-anchor="middle">'
                   f'{v * scale:.3g}{"%" if prob else ""}</text>')
    for i, r in enumerate(rows):
        y = top + i * row_h
        out.append(f'<text class="tick" x="{left - 6}" y="{y + 14}" text-anchor="end">{escape(r["label"][:26])}</text>')
    out.append("</g>")
    for i, r in enumerate(rows):
        y = top + i * row_h
        a, b = px(r["low"]["float"]), px(r["high"]["float"])
        out.append(f'<rect class="bar" x="{a:.1f}" y="{y + 4}" width="{max(1.0, b - a):.1f}" height="{row_h - 8}" '
                   f'fill="currentColor" fill-opacity="0.55"></rect>')
    out.append(f'<line class="threshold" x1="{px(base):.1f}" x2="{px(base):.1f}" y1="{top - 6}" '
               f'y2="{top + max(1, len(rows)) * row_h}" stroke="currentColor" stroke-dasharray="4 3"></line>')
    out.append("</svg>")
    return "".join(out)


def sensitivity_html(answer: Mapping[str, Any]) -> str:
    """The sentence (if any), the tornado chart and a table of every reading tried, widest spread first."""
    head = answer["figure"]
    unit = head["unit"]
    stopping = answer.get("stopping")
    body = []
    for r in answer["settings"]:
        for j, alt in enumerate(r["alternatives"]):
            name = f'<th scope="row" rowspan="{len(r["alternatives"])}">{escape(r["label"])} '\
                   f'<code>{escape(r["input"])}</code> (now {escape(r["value_label"])})</th>' if j == 0 else ""
            played = f'<td class="num played">{escape(_played(alt))}</td>' if stopping else ""
            body.append(f"<tr>{name}<td>{escape(alt['label'])}</td>"
                        f'<td class="num">{escape(_shown_value(alt["figure"], unit))}</td>'
                        f'<td class="num">{escape(_shown_value(alt["diff"], unit, True))}</td>{played}</tr>')
    base = escape(_shown_value(answer.get("base"), unit))
    if answer["kind"] != "estimate":
        trials = ""
    elif stopping:
        looks = " or ".join(f"{c:,}" for c in stopping["checkpoints"])
        trials = (f" The figure as it is played {answer['trials']:,} battles, and each reading the same ones; a "
                  f"reading stopped after {looks} when it changed the outcome of so few that, at "
                  f"{_percent(answer['confidence'])} confidence, it changes at most "
                  f"{_percent(stopping['negligible'])} of battles, and so cannot move the figure further: its "
                  "figure is the figure as it is with its change.")
    else:
        trials = f" Each reading played the same {answer['trials']:,} battles."
    played_head = '<th scope="col" class="num">Battles</th>' if stopping else ""
    table = ('<div class="table-wrap" role="region" tabindex="0" aria-label="Every assumed reading tried">'
             f'<table class="sensitivity"><caption>{escape(head["label"])} under every other reading of the '
             f'assumed settings (as it is: {base})</caption><thead><tr><th scope="col">Setting</th>'
             '<th scope="col">Other reading</th><th scope="col" class="num">Figure</th>'
             f'<th scope="col" class="num">Change</th>{played_head}</tr></thead><tbody>' + "".join(body) +
             "</tbody></table></div>")
    said = answer["sentence"]
    if not said and not answer["settings"]:
        said = "None of our assumed settings applies to these inputs, so there is no other reading to try."
    elif not said and all(r["spread"] == 0 for r in answer["settings"]):
        said = f"No other reading of our assumed settings moves {head['label']} with these inputs."
    sentence = f'<p class="sensitivity-sentence">{escape(said)}</p>' if said else ""
    tried = f'Tried: {escape(answer["rule"])}.{escape(trials)}'
    if answer["kind"] != "estimate" and not any(r["spread"] for r in answer["settings"]):
        # no reading moves an exact figure: a chart of no bars read as a broken one
        return (f'<div class="sensitivity-answer">{sentence}<p class="sensitivity-tried">{tried}</p>'
                f'{table if answer["settings"] else ""}</div>')
    return (f'<div class="sensitivity-answer">{sentence}<figure class="scenario-chart">{tornado_svg(answer)}'
            f'<figcaption>How far each assumed setting moves {escape(head["label"])}: its lowest to highest, the '
            f'dashed line at the figure as it is. {tried}</figcaption></figure>{table}</div>')


def _percent(share: Any) -> str:
    """A share as a percentage for prose: ``'1/40'`` -> ``'2.5 %'``, ``'19/20'`` -> ``'95 %'``."""
    return f"{float(Fraction(share)) * 100:.3g} %"


def _played(alt: Mapping[str, Any]) -> str:
    """How many battles a reading played and why it stopped, for the table's last column."""
    if "trials" not in alt:
        return "—"
    n = f"{alt['trials']:,}"
    if not alt.get("stopped"):
        return n
    changed = "changed none" if alt["changed"] == 0 else f"changed {alt['changed']:,}"
    return f"{n}: {changed}, stopped (at most {alt['bound'] * 100:.1f} % of battles)"


def note_html(answer: Mapping[str, Any], instance: str) -> str:
    """The sentence under a widget's result, with a link to the setting's control; empty when the spread is
    narrow. The control's id is the form's (``instance--path``, dots as hyphens)."""
    if not answer["sentence"]:
        return ""
    path = answer["settings"][0]["input"]
    return (f'{escape(answer["sentence"])} <a class="setting-link" href="#{escape(instance)}--'
            f'{escape(path.replace(".", "-"))}" data-setting="{escape(path)}">See the setting</a>.')
