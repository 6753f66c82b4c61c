"""The widget registry: every interactive calculator the site can show.

A widget has an id (``small_general.combat``), a declared input schema and
up to three capabilities, each declared by the functions it supplies:

* **calculator** (always): ``compute`` (validated inputs to a JSON result)
  and ``render`` (result to HTML);
* **sampler**: ``sample`` plays one seeded combat and records what happened
  as structured data (events, rolls), and ``render_sample`` narrates it: a
  pure step from that data to HTML, so a sample can be stored, replayed or
  told again without playing it again;
* **estimator**: ``trial`` plays one Monte Carlo trial from (inputs, its own
  generator) into a :class:`~engine.montecarlo.Tally`, ``render_tally``
  shows a tally, and ``trials`` is the run's default size. See
  :mod:`engine.montecarlo`: the estimate depends on (inputs, seed, N) only.

The same registry serves the command line, the site build and the browser worker.

>>> from engine import widgets
>>> "small_general.combat" in widgets.ids()
True
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from html import escape
from typing import Any

from . import linkstate, montecarlo
from .figures import Figure
from .montecarlo import Tally
from .schema import WHOLE_TEXT, Group, InputError, flatten, fraction_text, jsonable, shown, to_text, unflatten

__all__ = ["Widget", "CAPABILITIES", "MAX_SEED", "register", "get", "ids", "all_widgets", "SYSTEM_MODULES", "UnknownWidgetError",
           "check_seed"]

Result = dict[str, Any]
"""A widget result: plain JSON data (probabilities as ``{"p": "5/18", "float": …}``)."""

SYSTEM_MODULES = (
    "engine.small_general",
    "engine.ocs",
    "engine.europa",
    "engine.atg",
    "engine.sgs",
)
"""Game-system packages; importing one registers its widgets."""


CAPABILITIES = ("calculator", "sampler", "estimator")
"""What a widget can do, in the order :meth:`Widget.describe` lists them."""

MAX_SEED = 2**53
"""Largest seed a link or a request may carry (a JavaScript number holds it exactly)."""


def check_seed(seed: Any) -> int:
    """A seed from a request (a whole number or its text), or :class:`InputError`.

    >>> check_seed("42"), check_seed(7)
    (42, 7)
    """
    if isinstance(seed, str) and WHOLE_TEXT.fullmatch(seed.strip()) and len(seed.strip()) <= 20:
        seed = int(seed.strip())
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise InputError("seed", f"{shown(seed)} is not a seed; enter a whole number from 0 to {MAX_SEED:,}", "0..2**53")
    return seed


class UnknownWidgetError(LookupError):
    """No widget has that id."""

    def __init__(self, widget_id: str) -> None:
        self.widget_id = widget_id
        super().__init__(f"no widget named {widget_id!r}; known widgets: {', '.join(ids())}")

    def to_json(self) -> dict[str, str]:
        return {"type": "UnknownWidgetError", "field": "", "message": str(self), "allowed": ", ".join(ids())}


@dataclass(frozen=True)
class Widget:
    """One interactive calculator."""

    id: str
    """Registry key, ``system.name``."""
    title: str
    """Heading shown above the widget."""
    inputs: Group
    """Declared inputs: names, types, allowed values, defaults, help."""
    compute: Callable[[dict[str, Any]], Result]
    """Pure function from validated inputs to a JSON result."""
    render: Callable[[Result], str]
    """Result to HTML; runs in the build and in the browser alike."""
    sample: Callable[[dict[str, Any], int], Result] | None = None
    """Seeded sampler: (inputs, seed) to one played-out combat."""
    render_sample: Callable[[Result], str] | None = None
    """Sample to HTML."""
    check: Callable[[dict[str, Any]], None] | None = None
    """Cross-field validation; raises InputError for impossible combinations.

    Contract: cheap. It runs on every request (and on every link part read),
    before ``compute``; it may build what it needs to decide, but it must not
    compute the result (no enumeration, no play). A widget whose compute can
    also fail raises the same InputError there.
    """
    description: str = ""
    """One sentence for listings."""
    extras: Mapping[str, Any] = field(default_factory=dict)
    """Free-form data a page template may use (e.g. tables the reader can view)."""
    trial: Callable[[Mapping[str, Any], random.Random, Tally], None] | None = None
    """Estimator: one Monte Carlo trial, (validated inputs, its own generator, tally to add into)."""
    watched: str = ""
    """Estimator, optional: the prefix of the inputs its trial watches (``"rules."``). Such a trial takes a
    fourth argument, a set, and puts in it the name (the path after the prefix) of each of those inputs it
    read. With the same generator a trial plays alike under any other value of an input it did not read, so
    :func:`engine.scenarios.figure_chunk` copies it for a variant that differs only in such inputs."""
    render_tally: Callable[[Tally, Mapping[str, Any]], str] | None = None
    """Estimator: a tally (and the validated inputs) to HTML."""
    trials: int = 0
    """Estimator: the default number of trials of a run."""
    confidence: Fraction = montecarlo.DEFAULT_CONFIDENCE
    """Estimator: the confidence level of its intervals."""
    endings: Mapping[str, str] = field(default_factory=dict)
    """Estimator: every way its trial can end, as its tally counts them (variable ``ending``), with the
    words the page uses: a reader says which one happened (:mod:`engine.luck`)."""
    figures: tuple[Figure, ...] = ()
    """Headline quantities (:mod:`engine.figures`): read from the result (exact), or, for an estimator,
    from its tally (estimates); :mod:`engine.scenarios` compares, sweeps and searches through them."""
    result_key: Callable[[dict[str, Any]], Any] | None = None
    """Calculator, optional: validated inputs to a hashable key of what ``compute`` depends on. Inputs with
    equal keys must give equal results (the inputs echoed by :meth:`result` aside), so a sweep or a target
    computes each distinct key once (an input that changes nothing, such as a unit's strength when no
    strength rule reads it, costs one result, not one a point). Cheap, like ``check``."""

    def __post_init__(self) -> None:
        if (self.sample is None) != (self.render_sample is None):
            raise ValueError(f"{self.id}: a sampler needs both sample and render_sample")
        if (self.trial is None) != (self.render_tally is None) or (self.trial is not None) != (self.trials > 0):
            raise ValueError(f"{self.id}: an estimator needs trial, render_tally and trials > 0")
        if self.watched and self.trial is None:
            raise ValueError(f"{self.id}: only an estimator's trial can watch its inputs")
        names = [f.name for f in self.figures]
        if len(names) != len(set(names)):
            raise ValueError(f"{self.id}: two figures share a name")
        if self.render_sample is not None and self.trial is None:
            # Every system's sample says how rare its result is (play() attaches the sentence): one place,
            # so the build's pre-rendered roll and the live one (and the tests) render it alike.
            narrate = self.render_sample

            def render_sample(sample: Result) -> str:
                line = sample.get("luck")
                return narrate(sample) + (f'<p class="luck-sentence">How rare: {escape(line[:1].lower() + line[1:])}'
                                          '</p>' if line else "")

            object.__setattr__(self, "render_sample", render_sample)

    @property
    def capabilities(self) -> tuple[str, ...]:
        """Which of :data:`CAPABILITIES` this widget has.

        >>> get("atg.battle").capabilities
        ('calculator', 'sampler', 'estimator')
        """
        has = {"calculator": True, "sampler": self.sample is not None, "estimator": self.trial is not None}
        return tuple(c for c in CAPABILITIES if has[c])

    def validate(self, raw: Mapping[str, Any] | None) -> dict[str, Any]:
        """Complete and check inputs; raises :class:`InputError`."""
        values = self.inputs.validate(raw)
        if self.check is not None:
            self.check(values)
        return values

    def run(self, raw: Mapping[str, Any] | None) -> Result:
        """Validate and compute; the result echoes the normalised inputs."""
        return self.result(self.validate(raw))

    def result(self, values: dict[str, Any]) -> Result:
        """Compute from inputs that :meth:`validate` returned (not validated again)."""
        result = self.compute(values)
        result.setdefault("widget", self.id)
        result.setdefault("inputs", jsonable(values))
        return result

    def roll(self, raw: Mapping[str, Any] | None, seed: int) -> Result:
        """Play one combat with a seed that replays it exactly."""
        if self.sample is None:
            raise InputError("", f"{self.id} has no sample roll")
        seed = check_seed(seed)
        return self.play(self.validate(raw), seed)

    def play(self, values: dict[str, Any], seed: int) -> Result:
        """The sampler on validated inputs and a checked seed: structured data, no prose."""
        if self.sample is None:
            raise InputError("", f"{self.id} has no sample roll")
        result = self.sample(values, seed)
        result.setdefault("seed", seed)
        result.setdefault("widget", self.id)
        if self.trial is None:
            from .luck import sample_sentence  # luck imports this module
            line = sample_sentence(self, values, result)
            if line:
                result["luck"] = line
        return result

    def tally_key(self, values: Mapping[str, Any], seed: int) -> str:
        """What a tally of this widget estimates: a digest of the widget, inputs and seed.

        Tallies merge only with the same key, so chunks of different inputs
        or seeds are never mixed.
        """
        text = json.dumps([self.id, jsonable(values), seed], sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]

    def run_inputs(self, raw: Any) -> tuple[dict[str, Any], Callable[[int], str]]:
        """Validated inputs of a Monte Carlo chunk, and their tally key by seed, once per distinct inputs.

        A run sends the same inputs with every chunk of about 10 ms; validating
        them and digesting them for the key each time cost a battle of 40
        against 40 a third of each chunk in the browser. The values returned
        are shared by every chunk with these inputs: trials read them and
        never change them (a test holds every estimator to that).

        >>> w = get("atg.battle")
        >>> values, key = w.run_inputs({"river": True})
        >>> w.run_inputs({"river": True})[0] is values, key(3) == w.tally_key(values, 3)
        (True, True)
        """
        try:  # the chunks of one run send their inputs in one order: no need to sort them (a third of the cost)
            text = json.dumps(raw, separators=(",", ":"))
        except (TypeError, ValueError):  # not JSON data (a caller in Python): nothing to share
            values = self.validate(raw)
            return values, lambda seed: self.tally_key(values, seed)

        def make() -> tuple[dict[str, Any], Callable[[int], str]]:
            values = self.validate(raw)
            keys: dict[int, str] = {}

            def key(seed: int) -> str:
                if seed not in keys:
                    keys[seed] = self.tally_key(values, seed)
                return keys[seed]
            return values, key
        return _RUN_CACHE.setdefault(self.id, montecarlo.Kept(_RUN_CACHE_SIZE)).keep(_run_name(text), make)

    def run_inputs_name(self, raw: Any) -> str | None:
        """The name :meth:`run_inputs` holds these inputs by, with which a later chunk may send them
        (:meth:`named_run_inputs`); None for inputs that are not JSON data."""
        try:
            return _run_name(json.dumps(raw, separators=(",", ":")))
        except (TypeError, ValueError):
            return None

    def named_run_inputs(self, name: Any) -> tuple[dict[str, Any], Callable[[int], str]] | None:
        """:meth:`run_inputs` of the inputs so named, if they are still held (else None: send them again).

        A run's chunks send the same inputs each time (AT Gold's 40 against 40: 14 KB of JSON, whose parsing
        and checking cost a chunk in the browser about half a battle); once named, a chunk sends the name.
        """
        return _RUN_CACHE.get(self.id, {}).get(name) if isinstance(name, str) else None

    def owns(self, tally: Tally, key: str) -> bool:
        """Whether ``tally`` is a run of this widget's under ``key`` (:meth:`tally_key` of its inputs and seed), at
        this widget's confidence: the only tallies a chunk may add to or a merge may join."""
        return tally.key == key and tally.confidence == self.confidence

    def estimate(self, values: dict[str, Any], seed: int, first: int, count: int,
                 tally: Tally | None = None, key: str | None = None) -> Tally:
        """Trials ``first`` … ``first + count - 1`` on validated inputs, added to ``tally``.

        The answer depends on (inputs, seed, the trials covered) only. ``key``
        is :meth:`tally_key` of these inputs and seed when the caller has it
        (:meth:`run_inputs`).
        """
        if self.trial is None:
            raise InputError("", f"{self.id} has no Monte Carlo estimate")
        key = key or self.tally_key(values, seed)
        if tally is None:
            tally = Tally(key, self.confidence)
        elif not self.owns(tally, key):
            raise InputError("tally", "the tally belongs to other inputs, another seed or another widget; "
                             "start the run again without one")
        try:
            if count > 0:
                tally.covers(first, first + count)
        except ValueError as exc:
            raise InputError("first", f"{exc}; each trial is counted once", "trials not yet in the tally") from None
        return montecarlo.run_chunk(self.trial, values, seed, first, count, tally)

    def link_state(self, values: Mapping[str, Any], base: Mapping[str, Any] | None = None) -> dict[str, str]:
        """Dotted-path text of every input that differs from ``base``, for a shareable link."""
        return flatten(self.inputs, values, base)

    def base_values(self, base: Mapping[str, Any] | None) -> dict[str, Any]:
        """A page's base inputs, validated once and remembered (a page sends the same base every time).

        Returns a fresh copy each call, so callers may not spoil the cache.
        """
        text = json.dumps(jsonable(base or {}), sort_keys=True, separators=(",", ":"))
        kept = _BASE_CACHE.setdefault(self.id, montecarlo.Kept(_BASE_CACHE_SIZE))
        return copy.deepcopy(kept.keep(text, lambda: self.validate(base)))

    def link_diff(self, values: Mapping[str, Any], base_values: Mapping[str, Any]) -> dict[str, str]:
        """:meth:`link_state` against an already validated base (nothing validated again).

        >>> w = get("small_general.combat")
        >>> v = w.validate({"terrain": "forest"})
        >>> w.link_diff(v, w.base_values(None)) == w.link_state(v)
        True
        """
        out: dict[str, str] = {}
        _diff(self.inputs, values, base_values, "", out)
        return out

    def from_link(self, pairs: Mapping[str, str],
                  base: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], list[InputError]]:
        """Inputs from link text over ``base``; rejected parts are reported and left as in ``base``. If the
        widget's ``check`` refuses the values, all of them are left as in ``base``, its error marked ``whole``.

        ``pairs`` holds dotted paths (``{"terrain": "forest"}``); the key
        ``""`` (the instance's own parameter, ``?sg-combat=~1.…``) may carry a
        :mod:`engine.linkstate` state, which is read first, the dotted paths
        over it.
        """
        start = fallback = self.base_values(base)
        pairs = dict(pairs)
        errors: list[InputError] = []
        state = pairs.pop("", None)
        if state is not None:
            start, errors = linkstate.decode(self.inputs, state, start)
        values, more = unflatten(self.inputs, pairs, start)
        errors += more
        if self.check is not None:
            try:
                self.check(values)
            except InputError as exc:  # the values do not fit together: none of the link is applied
                exc.whole = True
                errors.append(exc)
                values = fallback
        return values, errors

    def state_text(self, values: Mapping[str, Any], base_values: Mapping[str, Any]) -> str:
        """The compact link state (:mod:`engine.linkstate`) of validated values against a validated base."""
        return linkstate.encode(self.inputs, values, base_values)

    def describe(self) -> dict[str, Any]:
        out = {"id": self.id, "title": self.title, "description": self.description,
               "inputs": [f.describe() for f in self.inputs.fields],
               "sample": self.sample is not None, "capabilities": list(self.capabilities)}
        if self.trial is not None:
            out["trials"] = self.trials
            out["confidence"] = fraction_text(self.confidence)
        if self.figures:
            out["figures"] = [f.describe() for f in self.figures]
        return out


_BASE_CACHE: dict[str, montecarlo.Kept] = {}
_RUN_CACHE: dict[str, montecarlo.Kept] = {}
"""Validated run inputs per widget, by the name of their JSON text (:meth:`Widget.run_inputs_name`)."""
_RUN_CACHE_SIZE = 64
"""Distinct inputs whose validation Monte Carlo chunks share, per widget: a page runs one or two at a time,
but a battle's sweep runs each of its points (up to 61, :data:`engine.scenarios.MAX_POINTS`) in every call."""
_BASE_CACHE_SIZE = 32


def _run_name(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


def _diff(group: Group, values: Mapping[str, Any], base: Mapping[str, Any], prefix: str, out: dict[str, str]) -> None:
    for f in group.fields:
        if f.name not in values:
            continue
        path = f"{prefix}.{f.name}" if prefix else f.name
        if isinstance(f, Group):
            if values[f.name] != base[f.name]:  # most of a large form's groups are as the base has them
                _diff(f, values[f.name], base[f.name], path, out)
        elif values[f.name] != base[f.name] and jsonable(values[f.name]) != jsonable(base[f.name]):
            out[path] = to_text(values[f.name])


_REGISTRY: dict[str, Widget] = {}
_loaded = False


def register(widget: Widget) -> Widget:
    """Add a widget to the registry (each id once)."""
    if widget.id in _REGISTRY and _REGISTRY[widget.id] is not widget:
        raise ValueError(f"widget {widget.id!r} is registered twice")
    _REGISTRY[widget.id] = widget
    return widget


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for name in SYSTEM_MODULES:
            importlib.import_module(name)


def get(widget_id: str) -> Widget:
    """The widget with this id, or :class:`UnknownWidgetError`."""
    _load()
    try:
        return _REGISTRY[widget_id]
    except KeyError:
        raise UnknownWidgetError(widget_id) from None


def ids() -> list[str]:
    """Every registered widget id, sorted."""
    _load()
    return sorted(_REGISTRY)


def all_widgets() -> list[Widget]:
    return [get(i) for i in ids()]
