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

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from . import widgets
from .schema import InputError, jsonable

__all__ = ["handle", "handle_message", "warm_up", "warm_up_requests", "OPS"]

OPS = ("run", "sample", "from_link", "describe")
"""The only operations the browser may ask for."""


def html_digest(html: str) -> str:
    """Short fingerprint of rendered HTML: the page compares it with the
    pre-rendered result's and leaves identical markup in place.

    >>> html_digest("<p>x</p>")
    '31d8e07ec305ac4e'
    """
    return hashlib.sha256(html.encode("utf-8")).hexdigest()[:16]


def _run(w: widgets.Widget, inputs: Mapping[str, Any] | None,
         base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    values = w.validate(inputs)
    result = w.run(values)
    html = w.render(result)
    return {"result": result, "html": html, "digest": html_digest(html), "link": w.link_state(values, base),
            "inputs": jsonable(values)}


def _sample(w: widgets.Widget, inputs: Mapping[str, Any] | None, seed: Any) -> dict[str, Any]:
    if isinstance(seed, str) and seed.strip().isdigit():
        seed = int(seed.strip())
    sample = w.roll(inputs, seed)
    html = w.render_sample(sample) if w.render_sample is not None else ""
    return {"result": sample, "html": html, "digest": html_digest(html)}


def _from_link(w: widgets.Widget, params: Any, base: Mapping[str, Any] | None) -> dict[str, Any]:
    if not isinstance(params, Mapping) or not all(isinstance(v, str) for v in params.values()):
        raise InputError("", "link parameters must be text")
    values, rejected = w.from_link(params, base)
    answer = _run(w, values, base)
    answer["rejected"] = [e.to_json() for e in rejected]
    return answer


def handle_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """Answer one request: ``{"op", "widget", "inputs", "base"?, "seed"?, "params"?}``.

    ``base`` is the widget instance's starting inputs on its page; links are
    written and read relative to it.
    """
    op = message.get("op")
    try:
        if op not in OPS:
            raise InputError("op", f"{op!r} is not an operation; use one of {', '.join(OPS)}", ", ".join(OPS))
        if op == "describe":
            return {"result": [w.describe() for w in widgets.all_widgets()]}
        w = widgets.get(str(message.get("widget")))
        base = message.get("base")
        if op == "run":
            return _run(w, message.get("inputs"), base)
        if op == "sample":
            return _sample(w, message.get("inputs"), message.get("seed"))
        return _from_link(w, message.get("params", {}), base)
    except (InputError, widgets.UnknownWidgetError) as exc:
        return {"error": exc.to_json()}
    except Exception as exc:  # a bug: report it as data, never as a crash of the page
        return {"error": {"type": "InternalError", "field": "", "allowed": "",
                          "message": f"the engine failed on these inputs ({type(exc).__name__}: {exc})"}}


def handle(message_json: str) -> str:
    """JSON text in, JSON text out: the worker's single call into Python."""
    try:
        message = json.loads(message_json)
    except ValueError:
        return json.dumps({"error": {"type": "InputError", "field": "", "allowed": "",
                                     "message": "the request is not valid JSON"}})
    if not isinstance(message, Mapping):
        return json.dumps({"error": {"type": "InputError", "field": "", "allowed": "",
                                     "message": "the request must be a JSON object"}})
    return json.dumps(handle_message(message))


def warm_up_requests() -> list[dict[str, Any]]:
    """A request of every kind for every widget, one rejected input included.

    >>> ops = {r["op"] for r in warm_up_requests()}
    >>> sorted(ops)
    ['describe', 'from_link', 'run', 'sample']
    """
    requests: list[dict[str, Any]] = [{"op": "describe"}]
    for w in widgets.all_widgets():
        requests += [{"op": "run", "widget": w.id, "inputs": {}},
                     {"op": "from_link", "widget": w.id, "params": {}},
                     {"op": "run", "widget": w.id, "inputs": {"": None}}]  # a rejected input
        if w.sample is not None:
            requests.append({"op": "sample", "widget": w.id, "inputs": {}, "seed": "1"})
    return requests


def warm_up() -> int:
    """Answer every :func:`warm_up_requests` request once; returns how many.

    The build calls this before it takes the Pyodide memory snapshot, so a page
    restored from it starts with the interpreter's specialised bytecode and the
    engine's caches in place. (The browser worker also answers these requests
    itself while the page is quiet after its start: WebAssembly code starts in
    V8's baseline tier and is optimised once it has run a while.)

    >>> warm_up() == len(warm_up_requests())
    True
    """
    requests = warm_up_requests()
    for request in requests:
        answer = json.loads(handle(json.dumps(request)))
        if "error" in answer and answer["error"]["type"] == "InternalError":
            raise RuntimeError(f"warming up the engine failed on {request}: {answer['error']['message']}")
    return len(requests)
