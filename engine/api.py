"""The fixed entry points the browser worker and the site build call.

Messages are plain JSON data; nothing a reader types is ever turned into
Python source. Every answer is either ``{"result": …}`` or
``{"error": {"type", "message", "field", "allowed"}}``: errors come back
as data, never as exceptions across the JavaScript boundary.

>>> import json
>>> answer = json.loads(handle(json.dumps({"op": "run", "widget": "nope", "inputs": {}})))
>>> answer["error"]["type"]
'UnknownWidgetError'
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Final

from . import luck, montecarlo, precision, scenarios, sensitivity, widgets
from .montecarlo import Tally
from .schema import WHOLE_TEXT, InputError, json_depth_ok, jsonable, shown

__all__ = ["handle", "handle_message", "warm_up", "warm_up_requests", "OPS"]

SCENARIO_OPS: Final = ("compare", "sweep", "target", "sensitivity", "luck", "observable", "varies", "scenario_link",
                       "scenario_from_link")
"""Scenario operations (:mod:`engine.scenarios`, :mod:`engine.sensitivity`, :mod:`engine.luck`), which each
widget's Scenarios panel calls. The memory snapshot is taken after a calculator's answer to the cheap ones
(:func:`warm_up`); the browser worker's own warm-up after its start leaves them out (a reader opens the
panel far less often than a form changes)."""

OPS = ("run", "sample", "from_link", "describe", "estimate", "merge", *SCENARIO_OPS)
"""The only operations the browser may ask for."""

MAX_CHUNK = 100_000
"""Most trials one ``estimate`` request may run (the worker asks for ~10 ms of trials at a time)."""

MAX_TRIAL_INDEX = 2**53
"""Trial indices run from 0 to this (a JavaScript number holds them exactly)."""


def html_digest(html: str) -> str:
    """Short fingerprint of rendered HTML: the page compares it with the
    pre-rendered result's and leaves identical markup in place.

    >>> html_digest("<p>x</p>")
    '31d8e07ec305ac4e'
    """
    return hashlib.sha256(html.encode("utf-8")).hexdigest()[:16]


def _run(w: widgets.Widget, inputs: Mapping[str, Any] | None,
         base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return _answer(w, w.validate(inputs), base)


def _answer(w: widgets.Widget, values: dict[str, Any], base: Mapping[str, Any] | None) -> dict[str, Any]:
    """Compute, render and link validated inputs: nothing here validates them again."""
    result = w.result(values)
    html = w.render(result)
    start = w.base_values(base)
    return {"result": result, "html": html, "digest": html_digest(html), "link": w.link_diff(values, start),
            "state": w.state_text(values, start), "inputs": jsonable(values)}


def _sample(w: widgets.Widget, inputs: Mapping[str, Any] | None, seed: Any) -> dict[str, Any]:
    if w.sample is None or w.render_sample is None:
        raise InputError("", f"{w.id} has no sample roll")
    seed = widgets.check_seed(seed)
    sample = w.play(w.validate(inputs), seed)
    html = w.render_sample(sample)
    return {"result": sample, "html": html, "digest": html_digest(html)}


def _from_link(w: widgets.Widget, params: Any, base: Mapping[str, Any] | None) -> dict[str, Any]:
    if not isinstance(params, Mapping) or not all(isinstance(v, str) for v in params.values()):
        raise InputError("", "link parameters must be text")
    values, rejected = w.from_link(params, base)
    answer = _answer(w, values, base)
    answer["rejected"] = [e.to_json() for e in rejected]
    return answer


def _whole(value: Any, name: str, low: int, high: int, what: str) -> int:
    """A bounded whole number from a request (JSON number or text), or an InputError naming it."""
    if isinstance(value, str) and WHOLE_TEXT.fullmatch(value.strip()) and len(value.strip()) <= 20:
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(name, f"{shown(value)} is not {what}; enter a whole number from {low} to {high}",
                         f"{low}..{high}")
    return value


def _estimate(w: widgets.Widget, message: Mapping[str, Any]) -> dict[str, Any]:
    """One chunk of a Monte Carlo run. The answer is the request's alone: what Python keeps between chunks (the
    inputs by name, the tallies it last answered with) only spares it work.

    In: ``inputs`` (or ``inputs_name``, the name an earlier chunk's answer gave them; if they are no longer
    held, the error type ``InputsGone`` asks for them again), ``seed``, ``first`` (first trial index), ``count``,
    ``tally`` (the previous chunk's, or null; or ``tally_name``, the name its answer gave it: if the engine no
    longer holds it, the error type ``TallyGone`` asks for the tally itself), ``render`` (whether to return
    HTML), optionally ``tally_by_name`` (true: the answer names its tally instead of carrying it, as a run's
    chunks between two progresses want), ``trials`` (the run's size; default the widget's),
    ``probe`` (a chunk of one trial, abandoned with the error type ``Slow`` if
    it would take long: :func:`engine.montecarlo.probing`) and ``precision``
    (a run to a stated precision, ``"1%"``: :mod:`engine.precision`).
    Out: ``tally`` (unless asked ``tally_by_name``), ``tally_name``, ``trials`` (how many it holds), ``next``
    (the trial after this chunk), ``done`` (it holds at least the run's size), when asked
    ``html`` and ``digest``, with ``precision`` its :func:`engine.precision.status`
    (whether the run stops at this tally, and the checkpoint it goes on to), and for ``inputs`` sent their
    ``inputs_name``.
    """
    if w.trial is None or w.render_tally is None:
        raise InputError("", f"{w.id} has no Monte Carlo estimate")
    goal = _precision(w, message)
    seed = widgets.check_seed(message.get("seed"))
    first = _whole(message.get("first", 0), "first", 0, MAX_TRIAL_INDEX, "a trial index")
    count = _whole(message.get("count"), "count", 1, MAX_CHUNK, "a number of trials for one chunk")
    total = _whole(message.get("trials", w.trials), "trials", 1, MAX_TRIAL_INDEX, "a number of trials")
    if first + count > MAX_TRIAL_INDEX:
        raise InputError("count", f"trials past {MAX_TRIAL_INDEX} are not run", f"first + count up to {MAX_TRIAL_INDEX}")
    if "tally_name" in message:
        if message.get("tally") is not None:
            raise InputError("tally_name", "give the tally or its name, not both", "a tally or its name")
        tally = _named_tally(message["tally_name"])
        if tally is None:
            return {"error": {"type": "TallyGone", "field": "tally_name", "allowed": "",
                              "message": "the engine no longer holds this tally: send it again"}}
    else:
        raw = message.get("tally")
        tally = None if raw is None else _tally_back(raw)
    if "inputs" not in message and "inputs_name" in message:
        named = w.named_run_inputs(message["inputs_name"])
        if named is None:
            return {"error": {"type": "InputsGone", "field": "inputs_name", "allowed": "",
                              "message": "the engine no longer holds these inputs: send them again"}}
        values, key = named
    else:
        values, key = w.run_inputs(message.get("inputs"))
    probe = message.get("probe") is True
    if probe and count != 1:
        raise InputError("probe", "a probe is one trial", "count 1")
    try:
        with montecarlo.probing() if probe else contextlib.nullcontext():
            tally = w.estimate(values, seed, first, count, tally, key=key(seed))
    except montecarlo.TrialTooSlow:
        return {"error": {"type": "Slow", "field": "", "allowed": "",
                          "message": "this trial is too long for the page's own engine; run it on another"}}
    answer: dict[str, Any] = {"trials": tally.trials, "next": first + count, "done": tally.trials >= total}
    sent = None if message.get("tally_by_name") is True else tally.to_json()
    if sent is not None:
        answer["tally"] = sent
    answer["tally_name"] = _keep(tally, sent)
    if "inputs" in message and (name := w.run_inputs_name(message["inputs"])) is not None:
        answer["inputs_name"] = name  # the run's next chunks may send this instead of the inputs
    return _rendered(w, tally, values, goal, message, answer)


KEPT_TALLIES: Final = 8
"""How many of the tallies it last answered with the engine keeps (one run's chunks take turns with a few other
runs' in one worker)."""
_KEPT: list[tuple[str, Tally, dict[str, Any] | None]] = []
"""The tallies the last chunks answered with, newest first: each by the name its answer gave it, and as it was
sent when it was. A run's next chunk names its tally, or brings it back as it was: a tally's JSON written out,
parsed back and read again cost a chunk in the browser about a third of an AT Gold battle."""
_NAMES = itertools.count(1)


def _keep(tally: Tally, sent: dict[str, Any] | None) -> str:
    name = f"t{next(_NAMES)}"
    _KEPT.insert(0, (name, tally, sent))
    del _KEPT[KEPT_TALLIES:]
    return name


def _named_tally(name: Any) -> Tally | None:
    """The kept tally of this name, or None when the engine no longer holds it."""
    if not isinstance(name, str):
        raise InputError("tally_name", f"{shown(name)} is not a tally's name; send the tally itself",
                         "a name an answer gave")
    return next((tally for kept, tally, _ in _KEPT if kept == name), None)


def _tally_back(raw: Any) -> Tally:
    for _, tally, sent in _KEPT:
        if sent is not None and sent == raw:
            return tally
    return Tally.from_json(raw)


def _precision(w: widgets.Widget, message: Mapping[str, Any]) -> Fraction | None:
    """The target of a run to a precision (:func:`engine.precision.parse_target`), or None for a fixed run."""
    if message.get("precision") is None:
        return None
    precision.headline(w)
    return precision.parse_target(message["precision"])


def _rendered(w: widgets.Widget, tally: Tally, values: Mapping[str, Any], goal: Fraction | None,
              message: Mapping[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """An estimate's answer with its HTML when asked, and where a run to a precision stands."""
    if message.get("render"):
        html = w.render_tally(tally, values)
        answer["html"] = html
        answer["digest"] = html_digest(html)
    if goal is not None:
        answer["precision"] = precision.status(w, tally, goal)
    return answer


MAX_MERGED = 64
"""Most tallies one ``merge`` request may combine (one per engine worker of a page)."""


def _merge(w: widgets.Widget, message: Mapping[str, Any]) -> dict[str, Any]:
    """Several workers' tallies of one run as one: the page's pool asks this of one worker.

    In: ``inputs``, ``seed``, ``tallies`` (a list of tallies over disjoint trial ranges, each of these inputs
    and seed), ``render``, optionally ``trials`` and ``precision``. Out as :func:`_estimate`, without
    ``next``. Tallies merge exactly, so the answer equals one worker's over
    the same trials.
    """
    if w.trial is None or w.render_tally is None:
        raise InputError("", f"{w.id} has no Monte Carlo estimate")
    raw = message.get("tallies")
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_MERGED:
        raise InputError("tallies", f"give a list of 1 to {MAX_MERGED} tallies", f"1..{MAX_MERGED} tallies")
    total = _whole(message.get("trials", w.trials), "trials", 1, MAX_TRIAL_INDEX, "a number of trials")
    goal = _precision(w, message)
    seed = widgets.check_seed(message.get("seed"))
    values, key = w.run_inputs(message.get("inputs"))
    tallies = []
    for i, t in enumerate(raw, 1):
        try:
            tallies.append(_tally_back(t))  # one worker's: most often the tally this engine answered with
        except InputError as exc:
            raise InputError("tallies", f"tally {i} {exc.message}", exc.allowed) from None
        if not w.owns(tallies[-1], key(seed)):
            raise InputError("tallies", f"tally {i} belongs to other inputs, another seed or another widget",
                             "tallies of this run")
    montecarlo.check_merge_size(tallies, "tallies")
    tally = tallies[0]
    try:
        for other in tallies[1:]:
            tally = tally.merged(other)
    except ValueError as exc:
        raise InputError("tallies", f"{exc}; each trial is counted once", "tallies over disjoint trials") from None
    answer: dict[str, Any] = {"tally": tally.to_json(), "trials": tally.trials, "done": tally.trials >= total}
    return _rendered(w, tally, values, goal, message, answer)


MAX_SCENARIO_TRIALS = 20_000
"""Most trials one compare, sweep or target request may play in all (points × count; a compare plays two per
trial): a battle costs milliseconds, so a request stays within seconds and the page sends many small ones."""
DEFAULT_SCENARIO_TRIALS = 2_000
"""Trials a request plays in all when it does not say (``count`` absent)."""


def _most_count(points: int) -> int:
    """The most ``count`` a Monte Carlo scenario request of ``points`` states may ask for."""
    return max(1, MAX_SCENARIO_TRIALS // max(points, 1))


def _spend(w: widgets.Widget, message: Mapping[str, Any], points: int) -> tuple[int, int | None]:
    """``first`` and ``count`` of a Monte Carlo scenario request, bounded: at most MAX_SCENARIO_TRIALS in all.
    A count of 0 runs nothing: the request only merges its ``parts`` into what it carries and renders it."""
    first = _whole(message.get("first", 0), "first", 0, MAX_TRIAL_INDEX, "a trial index")
    most = _most_count(points)
    count = message.get("count")
    if count is None:
        return first, None
    carries = any(message.get(k) is not None for k in ("tally", "tallies", "parts"))
    return first, _whole(count, "count", 0 if carries else 1, most, "a number of trials for one request")


def _trials(w: widgets.Widget, message: Mapping[str, Any], points: int) -> tuple[int, int, int]:
    """(trials, first, count) of a Monte Carlo scenario request: count defaults to what is left, bounded."""
    total = _whole(message.get("trials", w.trials or 1), "trials", 1, MAX_TRIAL_INDEX, "a number of trials")
    first, count = _spend(w, message, points)
    if count is None:
        left = total - first
        if left < 1:
            raise InputError("first", "the run already holds its trials", f"less than {total}")
        count = min(left, max(1, DEFAULT_SCENARIO_TRIALS // max(points, 1)))
    if first + count > MAX_TRIAL_INDEX:
        raise InputError("count", f"trials past {MAX_TRIAL_INDEX} are not run", f"first + count up to {MAX_TRIAL_INDEX}")
    return total, first, count


CARRIED: Final = {"compare": "tally", "sensitivity": "tally", "luck": "tally", "sweep": "tallies", "target": "tallies"}
"""The state each Monte Carlo scenario op carries from one call to the next: one tally, or one per point."""


def _with_parts(w: widgets.Widget, op: str, message: Mapping[str, Any]) -> Mapping[str, Any]:
    """The request with its ``parts`` (other engines' partial states of the same run) merged exactly into the
    state it carries (:func:`engine.scenarios.merged_state`), so the answer is the one a single engine gives."""
    if message.get("parts") is None:
        return message
    if w.trial is None or op not in CARRIED:
        raise InputError("parts", f"{op} on {w.id} carries no state to merge partial states into", "no parts")
    field = CARRIED[op]
    merged = scenarios.merged_state(message.get(field), message["parts"], per_point=field == "tallies")
    return {**{k: v for k, v in message.items() if k != "parts"}, field: merged}


def _scenario(w: widgets.Widget, op: str, message: Mapping[str, Any]) -> dict[str, Any]:
    """``compare``, ``sweep``, ``target``, ``scenario_link`` and ``scenario_from_link`` (see docs/ARCHITECTURE.md)."""
    if op != "sensitivity" or w.trial is None:  # a battle's sensitivity merges its parts itself, checking each
        message = _with_parts(w, op, message)
    render = bool(message.get("render"))
    seed = widgets.check_seed(message.get("seed", 1))
    if op == "compare":
        kw: dict[str, Any] = {}
        if w.trial is not None:
            total, first, count = _trials(w, message, 2)
            kw = {"seed": seed, "trials": total, "first": first, "count": count, "tally": message.get("tally"),
                  "pairing": message.get("pairing", "common")}
        return scenarios.compare(w.id, message.get("pinned"), message.get("inputs"), figures=message.get("figures"),
                                 render=render, **kw)
    if op == "sweep":
        kw = {}
        if w.trial is not None:
            points = message.get("points")
            n = len(points) if isinstance(points, list) else len(
                scenarios.vary_points(w, w.run_inputs(message.get("inputs"))[0], message.get("vary"))[1])
            total, first, count = _trials(w, message, n)
            kw = {"seed": seed, "trials": total, "first": first, "count": count, "tallies": message.get("tallies"),
                  "points": points}
        return scenarios.sweep(w.id, message.get("inputs"), message.get("vary"), figures=message.get("figures"),
                               render=render, **kw)
    if op == "target":
        kw = {}
        if w.trial is not None:
            count = _whole(message.get("count", 100), "count", 1, MAX_SCENARIO_TRIALS // scenarios.MAX_POINTS,
                           "a number of trials per point for one round")
            cap = _whole(message.get("max_trials", 4 * w.trials), "max_trials", 1, scenarios.MAX_TARGET_TRIALS,
                         "a number of trials")
            kw = {"seed": seed, "tallies": message.get("tallies"), "count": count, "max_trials": cap}
        return scenarios.target(w.id, message.get("inputs"), message.get("figure"), message.get("threshold"),
                                message.get("vary"), goal=message.get("goal", "at_least"),
                                direction=message.get("direction", "least"), render=render, **kw)
    if op == "sensitivity":
        kw = {}
        if w.trial is not None:
            states = sensitivity.readings(w.id, message.get("inputs"))
            total, first, count = _trials(w, message, states)
            full = message.get("full", False)
            if not isinstance(full, bool):
                raise InputError("full", f"{shown(full)} is not true or false", "true (every reading plays every "
                                 "trial) or false (a reading that changes almost no battle stops early)")
            kw = {"seed": seed, "trials": total, "first": first, "count": count, "tally": message.get("tally"),
                  "full": full, "stage": message.get("stage"), "parts": message.get("parts"),
                  "slice_": message.get("slice"), "slice_tally": message.get("slice_tally")}
        answer = sensitivity.sensitivity(w.id, message.get("inputs"), figure=message.get("figure"), render=render, **kw)
        if kw:  # the page's calls grow while readings stop and fewer states play a trial: this bounds them
            answer["most_count"] = _most_count(states)
        instance = message.get("instance")
        if isinstance(instance, str) and 0 < len(instance) <= 100 and "sentence" in answer:  # (a slice has none)
            answer["note"] = sensitivity.note_html(answer, instance)  # the sentence under the widget's result
        return answer
    if op == "luck":
        kw = {}
        if w.trial is not None:  # count 0 with a tally: among a finished run's battles, as they are
            total, first, count = _trials(w, message, 1)
            kw = {"seed": seed, "trials": total, "first": first, "count": count, "tally": message.get("tally")}
        return luck.luck(w.id, message.get("inputs"), message.get("observed"), render=render, **kw)
    if op == "observable":  # what a reader can say happened, as the luck form offers it
        return {"choices": luck.choices(w, w.validate(message.get("inputs")))}
    if op == "varies":
        focus = message.get("input")  # the input the reader has chosen: its suggested range is narrowed
        focus = focus if isinstance(focus, str) and len(focus) <= 200 else None
        return {"varies": scenarios.varies(w, w.validate(message.get("inputs")), focus),
                "figures": [f.describe() for f in w.figures]}
    base = w.base_values(message.get("base"))
    if op == "scenario_link":
        pin = message.get("pinned")
        vary, goal = message.get("vary"), message.get("target")
        if vary is not None:
            scenarios.vary_points(w, base, vary)
        if goal is not None and not isinstance(goal, Mapping):
            raise InputError("target", "give the target as an object", "figure, threshold, goal, direction")
        return {"state": scenarios.scenario_state(w, base, pin=None if pin is None else w.validate(pin),
                                                  vary=vary, goal=goal, luck=message.get("luck"),
                                                  assumptions=message.get("assumptions", False))}
    state = message.get("state")
    if not isinstance(state, str):
        raise InputError("state", "give the scenario's link text", "text such as ~1.j…")
    found, rejected = scenarios.read_scenario_state(w, state, base)
    return {**found, "rejected": [e.to_json() for e in rejected]}


def handle_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """Answer one request: ``{"op", "widget", "inputs", "base"?, "seed"?, "params"?}``.

    ``run`` and ``from_link`` answer the link both ways: ``link`` (dotted
    paths to text) and ``state`` (the compact :mod:`engine.linkstate` text);
    ``from_link`` reads ``params[""]`` as such a state.

    ``estimate`` takes ``seed``, ``first``, ``count``, ``tally`` and
    ``render`` as well (see :func:`_estimate`); ``merge`` combines the
    tallies of one run that several workers shared (:func:`_merge`). Each request validates its
    inputs once (and a page's base once, then remembers it).

    ``base`` is the widget instance's starting inputs on its page; links are
    written and read relative to it.
    """
    op = message.get("op")
    try:
        if op not in OPS:
            raise InputError("op", f"{shown(op)} is not an operation; use one of {', '.join(OPS)}", ", ".join(OPS))
        if op == "describe":
            return {"result": [w.describe() for w in widgets.all_widgets()]}
        w = widgets.get(str(message.get("widget")))
        base = message.get("base")
        if op == "run":
            return _run(w, message.get("inputs"), base)
        if op == "sample":
            return _sample(w, message.get("inputs"), message.get("seed"))
        if op == "estimate":
            return _estimate(w, message)
        if op == "merge":
            return _merge(w, message)
        if op in SCENARIO_OPS:
            return _scenario(w, op, message)
        return _from_link(w, message.get("params", {}), base)
    except (InputError, widgets.UnknownWidgetError) as exc:
        return {"error": exc.to_json()}
    except Exception as exc:  # a bug: report it as data, never as a crash of the page
        # A reader never sees Python's own text; `detail` is for developers
        # (the worker logs it to the console), never shown on the page.
        return {"error": {"type": "InternalError", "field": "", "allowed": "",
                          "message": "the engine could not compute these inputs (an error of ours, not of the input)",
                          "detail": f"{type(exc).__name__}: {str(exc)[:300]}"}}


MAX_REQUEST_TEXT = 2_000_000
"""Largest request the worker passes in (a Monte Carlo tally included)."""
MAX_REQUEST_DEPTH = 32
"""Deepest nesting of a request: inputs nest a few levels, a tally a few more."""


def handle(message_json: str) -> str:
    """JSON text in, JSON text out: the worker's single call into Python."""
    if len(message_json) > MAX_REQUEST_TEXT or not json_depth_ok(message_json, MAX_REQUEST_DEPTH):
        return json.dumps({"error": {"type": "InputError", "field": "", "allowed": "",
                                     "message": "the request is too large or nests too deep"}})
    try:
        message = json.loads(message_json)
    except (ValueError, RecursionError):
        return json.dumps({"error": {"type": "InputError", "field": "", "allowed": "",
                                     "message": "the request is not valid JSON"}})
    if not isinstance(message, Mapping):
        return json.dumps({"error": {"type": "InputError", "field": "", "allowed": "",
                                     "message": "the request must be a JSON object"}})
    return json.dumps(handle_message(message))


def warm_up_requests(scenario_ops: bool = False) -> list[dict[str, Any]]:
    """A request of every kind the pages make, for every widget, one rejected input included; with
    ``scenario_ops``, also each calculator's answer to the panel's cheap scenario ops.

    >>> sorted({r["op"] for r in warm_up_requests()})
    ['describe', 'estimate', 'from_link', 'merge', 'run', 'sample']
    >>> sorted({r["op"] for r in warm_up_requests(scenario_ops=True)} - {r["op"] for r in warm_up_requests()})
    ['compare', 'luck', 'observable', 'sensitivity', 'varies']
    """
    requests: list[dict[str, Any]] = [{"op": "describe"}]
    for w in widgets.all_widgets():
        requests += [{"op": "run", "widget": w.id, "inputs": {}},
                     {"op": "from_link", "widget": w.id, "params": {}},
                     {"op": "run", "widget": w.id, "inputs": {"": None}}]  # a rejected input
        if w.sample is not None:
            requests.append({"op": "sample", "widget": w.id, "inputs": {}, "seed": "1"})
        if w.trial is not None:
            requests.append({"op": "estimate", "widget": w.id, "inputs": {}, "seed": 1, "first": 0, "count": 4,
                             "tally": None, "render": True})
            one = w.estimate(w.validate({}), 1, 0, 1).to_json()  # one trial: a short task, even for a battle
            requests.append({"op": "merge", "widget": w.id, "inputs": {}, "seed": 1, "tallies": [one], "render": True})
        elif scenario_ops:
            requests += [{"op": op, "widget": w.id, "inputs": {}} for op in ("varies", "observable")]
            requests += [{"op": "compare", "widget": w.id, "inputs": {}, "pinned": {}, "render": True},
                         {"op": "sensitivity", "widget": w.id, "inputs": {}, "render": True}]
            said = luck.choices(w, w.validate({}))
            if said:
                requests.append({"op": "luck", "widget": w.id, "inputs": {}, "observed": {"result": said[0]["key"]},
                                 "render": True})
    return requests


def warm_up() -> int:
    """Answer every :func:`warm_up_requests` request once; returns how many.

    The build calls this before it takes the Pyodide memory snapshot, so a page
    restored from it starts with the interpreter's specialised bytecode and the
    engine's caches in place. (The browser worker also answers these requests
    itself while the page is quiet after its start: WebAssembly code starts in
    V8's baseline tier and is optimised once it has run a while.)

    >>> warm_up() == len(warm_up_requests(scenario_ops=True))
    True
    """
    requests = warm_up_requests(scenario_ops=True)
    for request in requests:
        answer = json.loads(handle(json.dumps(request)))
        if "error" in answer and answer["error"]["type"] == "InternalError":
            raise RuntimeError(f"warming up the engine failed on {request}: {answer['error']['message']}")
    return len(requests)
