"""A Monte Carlo run that stops by itself once its headline figure is known well enough.

Beside a fixed number of trials a run may ask for a precision: "until the
headline figure (the widget's first) is within ±1 % at 95 %". The half-width
of the figure's interval shrinks as trials come in, but a rule checked on
whatever a worker happens to have finished would stop at a trial count that
depends on the number of workers and the sizes of their chunks. So the rule
is checked only at fixed trial counts, the **checkpoints** (the widget's run
size, then doubling, up to :data:`MAX_PRECISION_TRIALS`), each time on the
tally of trials ``0 … checkpoint − 1`` exactly. The run stops at the first
checkpoint where the half-width is within the target, or at the last one;
its result is then the fixed run of that many trials, a function of
(inputs, seed, target) alone, however the trials were shared out.

Whoever runs the trials (the page's pool of workers, the command line's
processes) cuts them at the checkpoints: a stage runs the trials from one
checkpoint to the next and nothing beyond it, and :func:`status` of the
merged tally says whether to go on.

>>> from engine import widgets
>>> w = widgets.get("sgs.battle")
>>> checkpoints(w)
(1000, 2000, 4000, 8000, 16000, 32000, 64000, 100000)
>>> parse_target("1%")
Fraction(1, 100)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Final

from . import widgets
from .figures import Figure
from .montecarlo import Tally, tally_wilson
from .scenarios import Mapper, serial
from .schema import InputError, fraction_text, jsonable, shown

__all__ = ["MAX_PRECISION_TRIALS", "MAX_TARGET", "parse_target", "available", "checkpoints", "headline", "half_width", "status",
           "run", "stage_chunk", "figure_values"]

MAX_PRECISION_TRIALS: Final = 100_000
"""The most trials a run to a precision takes: its last checkpoint (the page's largest fixed run too,
``MAX_TRIALS`` in ``site/static/simulation.js``; a test holds the two equal)."""

MAX_TARGET: Final = Fraction(50, 100)
"""The widest target a run accepts (±50 points: any estimate of a probability is that close after one trial)."""

_TARGET_TEXT = re.compile(r"±?\s*([0-9]{1,3}(?:\.[0-9]{1,6})?|\.[0-9]{1,6})\s*%?")


def parse_target(raw: Any) -> Fraction:
    """A target half-width from a request or a link: a percentage (``1``, ``1%``, ``0.5 %``, ``±2``) as a share.

    Anything else, 0 or more than 50 % is an :class:`InputError` on ``precision`` that says what to enter.

    >>> parse_target("0.5 %"), parse_target(2)
    (Fraction(1, 200), Fraction(1, 50))
    >>> parse_target("abc")
    Traceback (most recent call last):
    engine.schema.InputError: precision: 'abc' is not a precision; enter a percentage above 0 and up to 50, such as 1%
    """
    text = None
    if isinstance(raw, str) and len(raw) <= 40:
        text = raw.strip()
    elif isinstance(raw, int) and not isinstance(raw, bool) and abs(raw) <= 10**6:
        text = str(raw)
    elif isinstance(raw, float) and raw == raw and abs(raw) < 1e6:
        text = repr(raw)
    match = _TARGET_TEXT.fullmatch(text) if text is not None else None
    allowed = "above 0 % up to 50 %"
    if match is None:
        said = "nothing entered" if text == "" else f"{shown(raw)} is not a precision"  # not "'' is not a precision"
        raise InputError("precision", f"{said}; enter a percentage above 0 and up to 50, such as 1%", allowed)
    target = Fraction(match.group(1)) / 100
    if not 0 < target <= MAX_TARGET:
        raise InputError("precision", f"±{match.group(1)}% is not a precision a run can aim at; enter a percentage "
                         "above 0 and up to 50, such as 1%", allowed)
    return target


def checkpoints(w: widgets.Widget) -> tuple[int, ...]:
    """The trial counts at which a run to a precision looks at its figure: the widget's run size, doubling, and
    :data:`MAX_PRECISION_TRIALS` last."""
    if w.trial is None:
        raise InputError("", f"{w.id} has no Monte Carlo estimate")
    out = []
    n = min(w.trials, MAX_PRECISION_TRIALS)
    while n < MAX_PRECISION_TRIALS:
        out.append(n)
        n *= 2
    return (*out, MAX_PRECISION_TRIALS)


def available(w: widgets.Widget) -> bool:
    """Whether ``w`` can run to a precision: an estimator whose headline figure is a probability.

    >>> available(widgets.get("atg.battle")), available(widgets.get("sgs.panic_rout"))
    (True, False)
    """
    return w.trial is not None and bool(w.figures) and w.figures[0].probability


def headline(w: widgets.Widget) -> Figure:
    """The figure a run to a precision watches: the widget's first (as :mod:`engine.sensitivity` ranks by).

    Only a share of trials is supported (both battles' headline is who won): its interval is Wilson's.
    A mean would need the spread of its per-trial value, which a figure summed over several quantities
    does not keep.
    """
    if not available(w):
        raise InputError("precision", f"{w.id} has no probability as its headline figure to run to a precision",
                         "a fixed number of trials")
    return w.figures[0]


def half_width(w: widgets.Widget, tally: Tally) -> float:
    """Half the width of the headline's interval (Wilson's, at the tally's confidence) as a share; 0.5 with no
    trials (the interval is then 0 to 1)."""
    head = headline(w)
    n = tally.trials
    value = head.read(tally)
    if not n or value is None:
        return 0.5
    successes = value * n
    if Fraction(successes).denominator != 1:
        raise InputError("precision", f"{head.label} is not a share of trials", "a fixed number of trials")
    iv = tally_wilson(int(successes), n, tally.confidence)
    return (iv.high - iv.low) / 2


def _pct(share: Fraction | float) -> str:
    """A half-width or target as a reader reads it: ``1%``, ``0.25%``, ``1.32%`` (at most two decimals, or the
    target's own digits)."""
    x = Fraction(share) * 100
    if isinstance(share, Fraction) and (x * 10**6).denominator == 1:
        text = f"{float(x):.6f}".rstrip("0").rstrip(".")
    else:
        text = f"{float(x):.2f}"
    return text + "%"


def status(w: widgets.Widget, tally: Tally, target: Fraction) -> dict[str, Any]:
    """Where a run to ``target`` stands with this tally, and whether it stops here.

    ``half`` is the headline's half-width now; the rule is looked at only when the tally covers trials
    ``0 … n − 1`` exactly and ``n`` is a checkpoint (``checkpoint``): ``met`` if the half-width is within the
    target, ``stop`` if met or ``n`` is the last checkpoint. ``next`` is the checkpoint a run not stopping
    goes on to. ``sentence`` says it for a reader.
    """
    points = checkpoints(w)
    n = tally.trials
    half = half_width(w, tally)
    at = tally.ranges == ((0, n),) and n in points
    met = at and Fraction(half) <= target
    stop = at and (met or n == points[-1])
    after = [c for c in points if c > n]
    level = fraction_text(tally.confidence * 100)
    head = headline(w)
    where = f"{head.label} within ±{_pct(half)} ({level}% interval) after {n:,} trials"
    if met:
        sentence = f"{where}: the target ±{_pct(target)} is met."
    elif stop:
        sentence = f"{where}, the most a run takes: the target ±{_pct(target)} is not reached."
    else:
        sentence = f"{where}; the target is ±{_pct(target)}."
    return {"target": float(target), "target_text": f"±{_pct(target)}", "half": half, "half_text": f"±{_pct(half)}",
            "trials": n, "checkpoint": at, "met": met, "stop": stop, "next": None if stop or not after else after[0],
            "cap": points[-1], "checkpoints": list(points), "sentence": sentence}


def figure_values(w: widgets.Widget, tally: Tally) -> list[dict[str, Any]]:
    """Every figure of an estimator's tally: exact and as a float, a probability with its Wilson interval."""
    out = []
    for f in w.figures:
        x = f.read(tally)
        row: dict[str, Any] = {"name": f.name, "label": f.label, "unit": f.unit,
                               "exact": None if x is None else fraction_text(Fraction(x)),
                               "float": None if x is None else float(x)}
        if x is not None and f.probability and Fraction(x * tally.trials).denominator == 1:
            iv = tally_wilson(int(x * tally.trials), tally.trials, tally.confidence)
            row.update(low=iv.low, high=iv.high)
        out.append(row)
    return out


def stage_chunk(widget_id: str, inputs: Any, seed: int, first: int, count: int) -> dict[str, Any]:
    """Trials ``first`` … ``first + count − 1`` as a tally's JSON: one job of a stage, for a process pool."""
    w = widgets.get(widget_id)
    values, key = w.run_inputs(inputs)
    return w.estimate(values, seed, first, count, key=key(seed)).to_json()


def run(widget_id: str, inputs: Mapping[str, Any] | None, seed: int, target: Any, *, chunk: int = 0,
        mapper: Mapper = serial) -> tuple[Tally, dict[str, Any]]:
    """A whole run to ``target``: the tally it stops with and its :func:`status`.

    Each stage, from one checkpoint to the next, is cut into jobs of ``chunk`` trials (0: one job) for
    ``mapper``; the answer is the same for every ``chunk`` and mapper.
    """
    w = widgets.get(widget_id)
    goal = target if isinstance(target, Fraction) and 0 < target <= MAX_TARGET else parse_target(target)
    headline(w)
    seed = widgets.check_seed(seed)
    values = w.validate(inputs)
    raw = jsonable(values)
    tally = Tally(w.tally_key(values, seed), w.confidence)
    start = 0
    for c in checkpoints(w):
        size = chunk or c - start
        jobs = [(w.id, raw, seed, a, min(size, c - a)) for a in range(start, c, size)]
        for part in mapper(stage_chunk, jobs):
            tally = tally.merged(Tally.from_json(part))
        state = status(w, tally, goal)
        if state["stop"]:
            return tally, state
        start = c
    raise AssertionError("the last checkpoint always stops a run")  # pragma: no cover
