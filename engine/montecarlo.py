"""Monte Carlo estimates that do not depend on how the trials were split.

An estimate is a function of ``(inputs, seed, N)`` alone. Trial ``i`` draws
from its own generator, :func:`trial_rng` ``(seed, i)``, so the trials can
run in chunks of any size, in any order, in any number of workers; each
chunk adds into a :class:`Tally`, and tallies merge exactly (integer counts
and exact rational sums), so every split gives the same tally, the same
figures and the same HTML, in CPython and in Pyodide alike.

>>> def trial(inputs, rng, tally):
...     roll = rng.randint(1, 6)
...     tally.count("roll", "six" if roll == 6 else "other")
...     tally.observe("pips", roll)
>>> whole = run_chunk(trial, {}, 7, 0, 300)
>>> parts = run_chunk(trial, {}, 7, 200, 100).merged(run_chunk(trial, {}, 7, 0, 200))
>>> whole == parts, whole.trials, whole.ranges
(True, 300, ((0, 300),))
>>> Tally.from_json(whole.to_json()) == whole
True
"""

from __future__ import annotations

import functools
import hashlib
import math
import random
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Any, Final

from . import present
from .schema import InputError, fraction_text

__all__ = ["TRIAL_SEED_DOMAIN", "trial_seed", "trial_rng", "Tally", "Interval", "wilson", "z_score", "run_chunk",
           "Trial", "Prepared", "tally_wilson", "probing", "is_probing", "TrialTooSlow", "outcome_table", "mean_text", "means_list", "histogram", "MAX_TALLY_ENTRIES", "DEFAULT_CONFIDENCE"]

TRIAL_SEED_DOMAIN: Final = b"rules-explorer/trial-seed/v1"
"""Prefix of the hashed text that seeds one trial; changing it changes every estimate."""

DEFAULT_CONFIDENCE: Final = Fraction(95, 100)
"""The confidence level of the intervals unless a widget states another."""

MAX_TALLY_ENTRIES: Final = 20000
"""Most variables, outcomes, histogram bins and covered ranges a tally read from JSON may hold; and the tallies
one request merges, together (a merge of many large tallies would otherwise run for seconds)."""


def check_merge_size(tallies: Iterable[Tally | None], field: str) -> None:
    """An InputError on ``field`` when ``tallies`` hold more than MAX_TALLY_ENTRIES together."""
    if sum(t.entries for t in tallies if t is not None) > MAX_TALLY_ENTRIES:
        raise InputError(field, f"the tallies hold more than {MAX_TALLY_ENTRIES:,} entries together; "
                         "merge fewer at a time", f"tallies of at most {MAX_TALLY_ENTRIES:,} entries in all")

Number = int | float | Fraction
Trial = Callable[[Mapping[str, Any], random.Random, "Tally"], None]
"""One trial: (validated inputs, its own generator, the tally to add into) -> None."""


def trial_seed(seed: int, index: int) -> int:
    """The integer seed of trial ``index`` of a run seeded ``seed``.

    The first 8 bytes (big-endian) of the SHA-256 of ``TRIAL_SEED_DOMAIN``, a
    zero byte, then ``seed`` and ``index`` each as 8 bytes big-endian
    (both are 0 … 2**63 - 1). Hashing, not ``seed + index``, keeps runs with
    nearby seeds from sharing trials.

    >>> trial_seed(1, 0)
    11281245185227976365
    """
    if not (0 <= seed < 2**63 and 0 <= index < 2**63):
        raise ValueError("seed and trial index must be whole numbers from 0 to 2**63 - 1")
    text = TRIAL_SEED_DOMAIN + b"\0" + seed.to_bytes(8, "big") + index.to_bytes(8, "big")
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big")


def trial_rng(seed: int, index: int) -> random.Random:
    """A generator for trial ``index`` alone.

    ``random.Random(n)`` for a non-negative integer ``n`` seeds the Mersenne
    Twister from ``n``'s 32-bit words (``init_by_array``), unchanged since
    Python 3.2 and the same in Pyodide, so ``random()``, ``randrange`` and
    ``choice`` give the same draws everywhere.

    >>> trial_rng(1, 0).random() == trial_rng(1, 0).random() != trial_rng(1, 1).random()
    True
    """
    return random.Random(trial_seed(seed, index))


@functools.lru_cache(maxsize=64)  # a run asks for the same one for every figure of every call
def z_score(confidence: Fraction) -> float:
    """The two-sided normal quantile of a confidence level, rounded to 12 decimals.

    The rounding keeps a last-bit difference between two builds of
    ``NormalDist.inv_cdf`` out of the figures.

    >>> z_score(Fraction(95, 100))
    1.95996398454
    """
    if not 0 < confidence < 1:
        raise ValueError("a confidence level lies strictly between 0 and 1")
    return round(NormalDist().inv_cdf(float(1 - (1 - confidence) / 2)), 12)


@dataclass(frozen=True)
class Interval:
    """An estimate with its confidence interval (floats, for display only)."""

    estimate: float
    low: float
    high: float


def wilson(successes: int, trials: int, confidence: Fraction = DEFAULT_CONFIDENCE) -> Interval:
    """Wilson score interval of a proportion ``successes / trials``.

    Unlike the normal approximation it stays inside [0, 1] and is not empty
    at 0 or ``trials`` successes.

    >>> i = wilson(8, 10)
    >>> round(i.low, 4), round(i.high, 4)
    (0.4902, 0.9433)
    >>> wilson(3, 3).high, wilson(0, 3).low
    (1.0, 0.0)
    >>> wilson(0, 0)
    Interval(estimate=0.0, low=0.0, high=1.0)
    """
    if not 0 <= successes <= trials:
        raise ValueError("successes must lie between 0 and the number of trials")
    if trials == 0:
        return Interval(0.0, 0.0, 1.0)
    z = z_score(confidence)
    n = trials
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    low = 0.0 if successes == 0 else min(p, max(0.0, centre - half))
    high = 1.0 if successes == n else max(p, min(1.0, centre + half))
    return Interval(p, low, high)


def _exact(value: Number) -> int | Fraction:
    """A number as an exact int or Fraction (a float is exact as a binary fraction)."""
    if isinstance(value, bool):
        raise TypeError("a tally takes numbers, not booleans")
    if isinstance(value, int):
        return value
    if value.__class__ is Fraction:  # a one-trial figure (a share of 0 or 1 trials in 1): no new Fraction
        return value.numerator if value.denominator == 1 else value
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{value} cannot be tallied")
    out = Fraction(value)
    return out.numerator if out.denominator == 1 else out


def _float_sums(xs: Sequence[float]) -> tuple[int | Fraction, int | Fraction]:
    """The exact sum and sum of squares of finite floats: each is an integer over a power of two, so over
    the largest of those powers the sums are sums of integers, made a fraction once.

    >>> _float_sums([0.5, 0.25, 3.0]) == (Fraction(15, 4), Fraction(149, 16))
    True
    """
    ratios = [x.as_integer_ratio() for x in xs]
    d = max((d for _, d in ratios), default=1)
    total = Fraction(sum(n * (d // k) for n, k in ratios), d)
    squares = Fraction(sum(n * n * (d // k) ** 2 for n, k in ratios), d * d)
    return (total.numerator if total.denominator == 1 else total,
            squares.numerator if squares.denominator == 1 else squares)


def tally_wilson(successes: int, trials: int, confidence: Fraction) -> Interval:
    """:func:`wilson` of two counts read from a tally. A tally comes back from the page, and one that counts more
    successes than trials (or fewer than none) is not one the engine made: an :class:`InputError` on ``tally``."""
    if not 0 <= successes <= trials:
        raise InputError("tally", "is not a tally from this engine (it counts more successes than trials)")
    return wilson(successes, trials, confidence)


@dataclass(frozen=True)
class Sums:
    """Count, sum and sum of squares of one quantity, exact.

    Exact power sums merge by addition, which is associative and commutative,
    so the order and grouping of trials cannot change them. (Welford's
    running mean with Chan's merge exists to avoid the cancellation of
    ``sum of squares - sum**2 / n`` in floating point; in exact arithmetic
    there is no cancellation, and both forms hold the same three numbers.)
    """

    n: int
    total: int | Fraction
    squares: int | Fraction

    def plus(self, other: Sums) -> Sums:
        return Sums(self.n + other.n, self.total + other.total, self.squares + other.squares)

    @property
    def mean(self) -> Fraction:
        return Fraction(self.total) / self.n if self.n else Fraction(0)

    @property
    def variance(self) -> Fraction:
        """Sample variance (n - 1 in the denominator); 0 below two values."""
        if self.n < 2:
            return Fraction(0)
        return (Fraction(self.squares) - Fraction(self.total) ** 2 / self.n) / (self.n - 1)

    @property
    def sd(self) -> float:
        return math.sqrt(float(self.variance))


_NOTHING: Final = Sums(0, 0, 0)


class Tally:
    """What a run of trials found: merges exactly, travels as JSON.

    * ``count(variable, outcome)``: categorical outcomes (one per trial per
      variable, e.g. the ending), shown with Wilson intervals;
    * ``measure(name, x)``: a number's mean and standard deviation;
    * ``observe(name, k)``: an integer's histogram (its mean and standard
      deviation come from the histogram).

    ``key`` names what was estimated (the API puts a digest of the widget,
    inputs and seed there); tallies merge only with the same key and
    confidence, and only over disjoint trials (``ranges``, half-open).
    """

    __slots__ = ("key", "confidence", "ranges", "counts", "_sums", "_floats", "hists", "at")

    def __init__(self, key: str = "", confidence: Fraction = DEFAULT_CONFIDENCE) -> None:
        self.key = key
        self.confidence = Fraction(confidence)
        self.ranges: tuple[tuple[int, int], ...] = ()
        self.counts: dict[str, dict[str, int]] = {}
        self._sums: dict[str, Sums] = {}
        self._floats: dict[str, list[float]] = {}
        """Floats measured and not yet added to ``sums`` (:meth:`measure`)."""
        self.hists: dict[str, dict[int, int]] = {}
        self.at: int | None = None
        """The index of the trial :func:`run_chunk` is running into this tally (None outside a run): for what a
        trial records by where it falls in the run (:func:`engine.exactcheck.record`). Not part of the tally."""

    # Recording, from a trial -----------------------------------------------------------------

    def count(self, variable: str, outcome: str, n: int = 1) -> None:
        """One trial's outcome of a categorical variable."""
        per = self.counts.setdefault(variable, {})
        per[outcome] = per.get(outcome, 0) + n

    def measure(self, name: str, value: Number) -> None:
        """One value of a quantity whose mean and spread are wanted."""
        if value.__class__ is float and math.isfinite(value):  # kept as it is, added exactly when read
            pending = self._floats.get(name)
            if pending is None:
                pending = self._floats[name] = []
                self._sums.setdefault(name, _NOTHING)  # the names keep the order they were first measured in
            pending.append(value)
            return
        x = _exact(value)
        old = self._sums.get(name)
        self._sums[name] = Sums(1, x, x * x) if old is None else Sums(old.n + 1, old.total + x, old.squares + x * x)

    @property
    def sums(self) -> dict[str, Sums]:
        """Exact sums of each measured quantity, by name."""
        if self._floats:
            for name, xs in self._floats.items():
                old = self._sums[name]
                total, squares = _float_sums(xs)
                self._sums[name] = Sums(old.n + len(xs), old.total + total, old.squares + squares)
            self._floats = {}
        return self._sums

    def observe(self, name: str, value: int) -> None:
        """One value of an integer quantity whose distribution is wanted."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name}: a histogram takes whole numbers, not {value!r}")
        h = self.hists.setdefault(name, {})
        h[value] = h.get(value, 0) + 1

    # Reading ---------------------------------------------------------------------------------

    @property
    def trials(self) -> int:
        """How many trials the tally holds."""
        return sum(b - a for a, b in self.ranges)

    @property
    def entries(self) -> int:
        """How much the tally holds, as :meth:`from_json` counts it against MAX_TALLY_ENTRIES: its ranges, and each
        variable, quantity and histogram with its outcomes or values."""
        return (len(self.ranges) + sum(1 + len(per) for per in self.counts.values()) + len(self._sums)
                + sum(1 + len(h) for h in self.hists.values()))

    def interval(self, variable: str, outcome: str) -> Interval:
        """The share of trials with this outcome, with its Wilson interval."""
        return wilson(self.counts.get(variable, {}).get(outcome, 0), self.trials, self.confidence)

    def quantity(self, name: str) -> Sums:
        """Exact sums of a measured or observed quantity."""
        if name in self.sums:
            return self.sums[name]
        h = self.hists.get(name, {})
        return Sums(sum(h.values()), sum(k * c for k, c in h.items()), sum(k * k * c for k, c in h.items()))

    # Merging ---------------------------------------------------------------------------------

    def covers(self, first: int, end: int) -> tuple[tuple[int, int], ...]:
        """The covered ranges with ``[first, end)`` added; raises ValueError on an overlap."""
        return _add_ranges(self.ranges, ((first, end),))

    def merged(self, other: Tally) -> Tally:
        """A new tally of both; exact, so ``a.merged(b) == b.merged(a)`` and grouping does not matter."""
        if other.key != self.key or other.confidence != self.confidence:
            raise ValueError("these tallies estimate different things (key or confidence differ)")
        out = Tally(self.key, self.confidence)
        out.ranges = _add_ranges(self.ranges, other.ranges)
        # A copy of this one, then the other added: a run's chunk merges its few trials into the whole run's tally.
        out.counts = {var: dict(per) for var, per in self.counts.items()}
        out._sums = dict(self.sums)
        out.hists = {name: dict(h) for name, h in self.hists.items()}
        for var, per in other.counts.items():
            for outcome, n in per.items():
                out.count(var, outcome, n)
        for name, s in other.sums.items():
            out._sums[name] = out._sums[name].plus(s) if name in out._sums else s
        for name, h in other.hists.items():
            dest = out.hists.setdefault(name, {})
            for k, n in h.items():
                dest[k] = dest.get(k, 0) + n
        return out

    def beside(self, other: Tally, key: str) -> Tally:
        """A new tally, under ``key``, of the same trials with the quantities of both: each measured other
        quantities of them (slices of one reading of every assumed setting, :mod:`engine.sensitivity`).
        Raises ValueError when the trials or the confidence differ, or a quantity is in both.

        >>> a, b = Tally("k"), Tally("k")
        >>> a.ranges = b.ranges = ((0, 2),)
        >>> a.measure("0.x", 1); b.measure("1.x", 3)
        >>> sorted(a.beside(b, "whole").sums), a.beside(b, "whole").trials
        (['0.x', '1.x'], 2)
        >>> a.beside(a, "whole")
        Traceback (most recent call last):
        ...
        ValueError: these tallies measured the same quantity of the same trials
        """
        if other.ranges != self.ranges or other.confidence != self.confidence:
            raise ValueError("these tallies hold other trials (or another confidence)")
        if (self.sums.keys() & other.sums.keys() or self.counts.keys() & other.counts.keys()
                or self.hists.keys() & other.hists.keys()):
            raise ValueError("these tallies measured the same quantity of the same trials")
        out = Tally(key, self.confidence)
        out.ranges = self.ranges
        for src in (self, other):
            out.counts.update({var: dict(per) for var, per in src.counts.items()})
            out.sums.update(src.sums)
            out.hists.update({name: dict(h) for name, h in src.hists.items()})
        return out

    def copy(self) -> Tally:
        return Tally(self.key, self.confidence).merged(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tally) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return f"Tally.from_json({self.to_json()!r})"

    # JSON ------------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """Plain JSON with sorted keys; exact numbers as text (``"5/2"``)."""
        return {
            "v": 1, "key": self.key, "confidence": fraction_text(self.confidence),
            "ranges": [[a, b] for a, b in self.ranges],
            "counts": {v: {o: n for o, n in sorted(per.items())} for v, per in sorted(self.counts.items())},
            "sums": {k: [s.n, _text(s.total), _text(s.squares)] for k, s in sorted(self.sums.items())},
            "hists": {k: {str(x): n for x, n in sorted(h.items())} for k, h in sorted(self.hists.items())},
        }

    @classmethod
    def from_json(cls, data: Any) -> Tally:
        """A tally from :meth:`to_json` data; anything else is an :class:`InputError` on ``tally``.

        A tally travels through the page and comes back, so it is read as a stranger's: its numbers in the
        engine's own spelling only, within the sizes the engine's trials give, and as consistent as every tally
        the engine makes (no more outcomes than trials, a quantity's sums those of real numbers)."""
        try:
            return _read_tally(cls, data)
        except NotATally as exc:
            raise InputError("tally", f"is not a tally from this engine ({exc})") from None
        except KeyError as exc:
            raise InputError("tally", f"is not a tally from this engine (it has no {exc.args[0]})") from None


class NotATally(ValueError):
    """What :meth:`Tally.from_json` found wrong with data that is not an engine's tally (plain words)."""


MAX_MEASURE: Final = 10**100
"""The largest size of a quantity a trial measures, as a tally read from a request may claim it (the mean, and
the root mean square): far beyond any the engine measures, and small enough that every figure made from the
sums is a finite float and every sum short text."""
_EXACT_TEXT = re.compile(r"-?[0-9]{1,4000}(?:/[0-9]{1,4000})?", re.ASCII)
_WHOLE_KEY = re.compile(r"-?[0-9]{1,30}", re.ASCII)


def _text(x: int | Fraction) -> str:
    return str(x) if type(x) is int else fraction_text(Fraction(x))


def _number(text: Any) -> int | Fraction:
    """An exact number as :func:`_text` writes it (``3``, ``-5/2``); any other text is refused, however Python
    would read it (an exponent of a billion, ``nan``, another script's digits)."""
    if not isinstance(text, str) or not _EXACT_TEXT.fullmatch(text):
        raise NotATally("an exact number is written as a whole number or a fraction such as 5/2")
    top, _, bottom = text.partition("/")
    if not bottom:
        return int(top)
    if int(bottom) == 0:
        raise NotATally("a fraction has a denominator of 0")
    return _exact(Fraction(int(top), int(bottom)))


def _count(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise NotATally("counts are whole numbers of at least 0")
    return n


def _mapping(x: Any, what: str) -> Mapping[Any, Any]:
    if not isinstance(x, Mapping):
        raise NotATally(f"{what} must be an object")
    return x


def _read_tally(cls: type[Tally], data: Any) -> Tally:
    if not isinstance(data, Mapping) or data.get("v") != 1:
        raise NotATally("expected an object with v = 1")
    key = data["key"]
    if not isinstance(key, str) or len(key) > 200:
        raise NotATally("key must be short text")
    t = cls(key, Fraction(_number(data["confidence"])))
    if not Fraction(1, 2) <= t.confidence <= Fraction(999, 1000):
        raise NotATally("its confidence must lie between 1/2 and 999/1000")
    entries = 0

    def budget(n: int) -> None:
        nonlocal entries
        entries += n
        if entries > MAX_TALLY_ENTRIES:
            raise NotATally(f"more than {MAX_TALLY_ENTRIES} entries")

    ranges = data["ranges"]
    if not isinstance(ranges, list):
        raise NotATally("ranges must be a list")
    budget(len(ranges))
    pairs = []
    for r in ranges:
        if not isinstance(r, list) or len(r) != 2:
            raise NotATally("a range is [first, end]")
        a, b = _count(r[0]), _count(r[1])
        if not a < b < 2**63:
            raise NotATally("a range is [first, end] with first < end")
        pairs.append((a, b))
    try:
        t.ranges = _add_ranges((), tuple(pairs))
    except ValueError as exc:
        raise NotATally(str(exc)) from None
    for var, per in _mapping(data["counts"], "counts").items():
        per = _mapping(per, "each variable's counts")
        budget(1 + len(per))
        t.counts[str(var)] = {str(o): _count(n) for o, n in per.items()}
    for name, s in _mapping(data["sums"], "sums").items():
        budget(1)
        if not isinstance(s, list) or len(s) != 3:
            raise NotATally("sums are [n, total, squares]")
        t.sums[str(name)] = Sums(_count(s[0]), _number(s[1]), _number(s[2]))
    for name, h in _mapping(data["hists"], "hists").items():
        h = _mapping(h, "each histogram")
        budget(1 + len(h))
        if not all(_WHOLE_KEY.fullmatch(str(k)) for k in h):
            raise NotATally("a histogram's values are whole numbers of at most 30 digits")
        t.hists[str(name)] = {int(str(k)): _count(n) for k, n in h.items()}
    n = t.trials
    if any(sum(per.values()) > n for per in t.counts.values()) or any(s.n > n for s in t.sums.values()) \
            or any(sum(h.values()) > n for h in t.hists.values()):
        raise NotATally("it counts more than the trials it covers")
    for s in t.sums.values():  # the sums of s.n real numbers, none larger than MAX_MEASURE
        if s.squares < 0 or s.total * s.total > s.n * s.squares or abs(s.total) > s.n * MAX_MEASURE \
                or s.squares > s.n * MAX_MEASURE**2:
            raise NotATally("its sums are not those of the numbers its trials measure")
    return t


def _add_ranges(a: Iterable[tuple[int, int]], b: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Union of half-open ranges, coalesced; raises ValueError if two overlap.

    >>> _add_ranges(((0, 5),), ((5, 9), (12, 13)))
    ((0, 9), (12, 13))
    """
    out: list[tuple[int, int]] = []
    for lo, hi in sorted([*a, *b]):
        if out and lo < out[-1][1]:
            raise ValueError(f"trials {lo} to {hi - 1} are counted twice")
        if out and lo == out[-1][1]:
            out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return tuple(out)


class TrialTooSlow(Exception):
    """A trial run while :func:`probing` went past its engine's probe budget and was abandoned."""


_PROBING: ContextVar[bool] = ContextVar("probing", default=False)


@contextmanager
def probing() -> Iterator[None]:
    """Trials run inside may raise :class:`TrialTooSlow` instead of doing much work.

    The page's own engine worker answers the reader's changes, and one long
    trial there would hold them up: it runs a run's first trial as a probe,
    and a trial that would take long goes to an extra worker instead. Each
    engine decides what "much" is, in a count of its own work rather than a
    clock (AT Gold: :data:`engine.atg.widgets.PROBE_WORK`), so the same trial
    is abandoned or not on every machine. An abandoned trial adds nothing to
    the tally: run again elsewhere, in full, it gives what it always gives.
    """
    token = _PROBING.set(True)
    try:
        yield
    finally:
        _PROBING.reset(token)


def is_probing() -> bool:
    """Whether trials now run as a probe (see :func:`probing`)."""
    return _PROBING.get()


class Kept(dict):
    """A dict of at most ``size`` entries: once full, a new one pushes out the oldest (first in, first out).

    The engine's small caches (validated inputs by their text, tally keys, a trial's setups) are kept so: a
    page repeats the same few requests, and a cache must not grow with a long visit.

    >>> k = Kept(2)
    >>> [k.keep(x, lambda: x * 10) for x in (1, 2, 1, 3)], sorted(k)
    ([10, 20, 10, 30], [2, 3])
    """

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def keep(self, key: Any, make: Callable[[], Any]) -> Any:
        """The value kept for ``key``, made and kept if there is none."""
        if key not in self:
            if len(self) >= self.size:
                self.pop(next(iter(self)))
            self[key] = make()
        return self[key]


class Prepared:
    """What a trial builds from its validated inputs (a battle's setup, its rules), kept for the last ``size``
    inputs objects by identity.

    A run comes as many short calls, and a sweep's or a reading's calls send the same few inputs objects again
    and again (:func:`engine.scenarios.chunk_states` keeps them): a setup built once per object, not once per
    call, is work a short call no longer does. Each object is held while its entry is, so no other object can
    take its identity; inputs are never changed once validated.
    """

    def __init__(self, make: Callable[..., Any], size: int = 64) -> None:
        self.make = make
        self.kept = Kept(size)  # by key: (the objects, held so no other takes their identity; what was made)

    def __call__(self, *objs: Any, also: tuple[Any, ...] = (), make: Callable[[], Any] | None = None) -> Any:
        """``make(*also, *objs)``, kept by the identity of ``objs`` and the value of ``also``; a caller that has
        what it makes another way passes ``make`` (called with nothing, and only if nothing is kept)."""
        made = make or (lambda: self.make(*also, *objs))
        return self.kept.keep((*also, *map(id, objs)), lambda: (objs, made()))[1]


def run_chunk(trial: Trial, inputs: Mapping[str, Any], seed: int, first: int, count: int,
              tally: Tally | None = None) -> Tally:
    """Trials ``first`` … ``first + count - 1`` added to (a copy of) ``tally``.

    >>> def coin(inputs, rng, tally):
    ...     tally.count("side", "heads" if rng.random() < 0.5 else "tails")
    >>> run_chunk(coin, {}, 1, 0, 10).counts
    {'side': {'heads': 8, 'tails': 2}}
    """
    base = Tally() if tally is None else tally
    ranges = base.covers(first, first + count) if count > 0 else base.ranges
    part = Tally(base.key, base.confidence)
    for i in range(first, first + count):
        part.at = i
        trial(inputs, trial_rng(seed, i), part)
    part.at = None
    out = base.merged(part)  # a new tally: the one given is left as it was
    out.ranges = ranges
    return out


# Presentation --------------------------------------------------------------------------------------------------

def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def whisker_bar(iv: Interval, scale: float = 1.0) -> str:
    """A bar of the estimate with the interval as a whisker, in SVG; ``scale`` is the share the full width
    stands for (1: a 0-100 % scale).

    >>> whisker_bar(Interval(0.5, 0.25, 0.75))[:40]
    '<svg class="bar ci" viewBox="0 0 100 10"'
    >>> 'width="100.0"' in whisker_bar(Interval(0.5, 0.25, 0.75), scale=0.5)
    True
    """
    w, lo, hi = (f"{min(1.0, x / scale) * 100:.1f}" for x in (iv.estimate, iv.low, iv.high))
    return (f'<svg class="bar ci" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" '
            f'focusable="false"><rect width="{w}" height="10"></rect>'
            f'<line class="whisker" x1="{lo}" x2="{hi}" y1="5" y2="5" stroke="currentColor"></line>'
            f'<line class="whisker" x1="{lo}" x2="{lo}" y1="2" y2="8" stroke="currentColor"></line>'
            f'<line class="whisker" x1="{hi}" x2="{hi}" y1="2" y2="8" stroke="currentColor"></line></svg>')


def outcome_table(tally: Tally, variable: str, caption: str, outcomes: Sequence[str] = (),
                  labels: Mapping[str, str] | None = None, sides: Mapping[str, str] | None = None,
                  label: str = "Result") -> str:
    """Each outcome's count, share and confidence interval, with a whisker bar.

    ``outcomes`` fixes the rows and their order (outcomes never seen show as
    0); others seen are added in sorted order.
    """
    labels = labels or {}
    sides = sides or {}
    seen = tally.counts.get(variable, {})
    order = list(outcomes) + sorted(o for o in seen if o not in outcomes)
    level = fraction_text(tally.confidence * 100)
    rows = []
    for o in order:
        iv = tally.interval(variable, o)
        rows.append(f'<tr class="side-{present.esc(sides.get(o, "neutral"))}">'
                    f'<th scope="row">{present.esc(labels.get(o, o))}</th>'
                    f'<td class="num">{seen.get(o, 0):,}</td><td class="num pct">{_pct(iv.estimate)}</td>'
                    f'<td class="num ci">{_pct(iv.low)} to {_pct(iv.high)}</td>'
                    f'<td class="bar">{whisker_bar(iv)}</td></tr>')
    return (f'<table class="dist estimate"><caption>{present.esc(caption)} ({present.trials(tally.trials)})</caption>'
            f'<thead><tr><th scope="col">{present.esc(label)}</th><th scope="col" class="num">Trials</th>'
            f'<th scope="col" class="num">Share</th><th scope="col" class="num">{level}% interval</th>'
            f'<th scope="col"><span class="visually-hidden">Bar</span></th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _g(x: float) -> str:
    """A mean or spread for reading: three significant figures, whole numbers grouped from 1,000.

    >>> _g(0.123456), _g(17762.4), _g(999.94)
    ('0.123', '17,762', '1,000')
    """
    return f"{x:.3g}" if abs(x) < 999.5 else f"{x:,.0f}"


def mean_text(s: Sums, confidence: Fraction = DEFAULT_CONFIDENCE) -> str:
    """A mean for reading: ± the half-width of its confidence interval, and the standard deviation.

    The interval is the normal one, from the spread the trials show. Where they
    show none (one trial, or every trial the same) it would read "± 0", a
    certainty no run of trials gives: the text then says what was seen instead.

    >>> mean_text(Sums(4, 10, 30)), mean_text(Sums(14, 0, 0)), mean_text(Sums(1, 5, 25)), mean_text(Sums(0, 0, 0))
    ('2.5 ± 1.27 (sd 1.29)', '0 in every one of the 14 trials (no spread seen yet)', '5 (one trial: no spread yet)', 'no trials yet')
    """
    if not s.n:
        return "no trials yet"
    if s.n == 1:
        return f"{_g(float(s.mean))} (one trial: no spread yet)"
    if not s.variance:
        return f"{_g(float(s.mean))} in every one of the {s.n:,} trials (no spread seen yet)"
    half = z_score(confidence) * s.sd / math.sqrt(s.n)
    return f"{_g(float(s.mean))} ± {_g(half)} (sd {_g(s.sd)})"


def means_list(tally: Tally, names: Iterable[tuple[str, str]]) -> str:
    """Figures: each quantity's :func:`mean_text`. ``names`` pairs a quantity's name with its label."""
    return present.figures([{"label": label, "value": mean_text(tally.quantity(name), tally.confidence)}
                            for name, label in names])


def histogram(tally: Tally, name: str, caption: str, label: str = "Value") -> str:
    """An integer quantity's distribution: one row per value from its least to its greatest, each share with
    its confidence interval (as the endings show theirs), bars scaled to the highest interval's top."""
    h = tally.hists.get(name, {})
    n = sum(h.values())
    if not n:
        return present.note(f"{caption}: no trials yet.")
    span = range(min(h), max(h) + 1) if max(h) - min(h) <= 200 else sorted(h)
    intervals = {k: wilson(h.get(k, 0), n, tally.confidence) for k in span}
    top = max(iv.high for iv in intervals.values())
    level = fraction_text(tally.confidence * 100)
    rows = []
    for k in span:
        c, iv = h.get(k, 0), intervals[k]
        rows.append(f'<tr><th scope="row">{k:,}</th><td class="num">{c:,}</td><td class="num pct">{_pct(c / n)}</td>'
                    f'<td class="num ci">{_pct(iv.low)} to {_pct(iv.high)}</td>'
                    f'<td class="bar">{whisker_bar(iv, top)}</td></tr>')
    return (f'<table class="dist histogram"><caption>{present.esc(caption)} ({present.trials(n)})</caption>'
            f'<thead><tr><th scope="col">{present.esc(label)}</th><th scope="col" class="num">Trials</th>'
            f'<th scope="col" class="num">Share</th><th scope="col" class="num">{level}% interval</th>'
            f'<th scope="col"><span class="visually-hidden">Bar</span></th>'
            f'</tr></thead><tbody>{"".join(rows)}</tbody></table>')
