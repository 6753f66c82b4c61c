#!/usr/bin/env python3
"""Benchmark the built site in headless Chromium against a plain Pyodide boot.

    .venv/bin/python bench/benchmark.py [--profile fast|realistic|both] [--runs N] [--out bench/results.json]

One run of this script (both profiles unless ``--profile`` says one):

1. builds the whole site into a temporary folder (timed: "build time");
2. adds a control page to that output only: ``bench-control.html`` starts a
   module worker (as the site does) that does nothing but a plain
   ``loadPyodide({indexURL: "./pyodide/"})`` from the site's own runtime
   files, then the page records ``performance.now()``;
3. serves the output on 127.0.0.1 (``build.SiteHandler``, a free port: the
   precompressed .br/.gz copies by Accept-Encoding, as ``build.py serve`` and
   static hosts send them, the control page's files too), counting the bytes
   the server writes for every response;
4. fast profile (127.0.0.1 as it is): drives Debian's Chromium with
   Playwright, headless, and for each game system's main widget page measures, N times, cold (a fresh browser
   profile) and warm (a second load in the same profile): first contentful
   paint, widget live, the next page live after following ``a[rel=next]``,
   recompute latency on input changes (a few changes at once after live, then,
   once the worker has warmed its code up in the pause, the measured ones) and
   bytes transferred, each load interleaved with a control-page load under the
   same condition;
5. realistic profile: the same pages and control on Chromium's network
   emulation (20 Mbit/s down, 5 up, 40 ms round trip, set on each tab over CDP;
   it reaches the page's workers) for three visits in one fresh profile: the
   first (timed to widgets live, then kept open until the service worker has
   saved the site), a repeat visit online (a new tab: the service worker
   answers) and one offline; bytes until live and with the offline copy;
   the control's first and repeat visit (it has no service worker);
6. prints a table per profile (medians and ratios to the control's median)
   with the targets, and writes every raw sample to JSON.

This is a benchmark, not a test: it fails only when something cannot be
measured (the engine never goes live, a page is missing).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from copy import deepcopy
from dataclasses import dataclass, field
from functools import partial
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import build  # noqa: E402
from engine import schema, widgets  # noqa: E402
from engine.schema import InputError  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
TIMEOUT_MS = 90_000
"""Longest wait for one boot or navigation (a loaded machine boots slowly)."""
RECOMPUTE_CHANGES = 200
"""Input changes per system and condition, spread over the runs."""
EARLY_CHANGES = 40
"""Input changes per load made right after the widgets go live, before the engine's warm-up."""

MAIN_WIDGETS = {"small_general": "small_general.combat", "ocs": "ocs.combat", "europa": "europa.aec"}
"""Each table system's main widget; its first page is the one measured."""

TARGETS = {
    "live_ratio": 0.35,  # widget live <= 0.35x the plain Pyodide boot (cold and warm)
    "nav_ms": 100.0,     # after an in-site link, the next page's widgets live in < 100 ms
    "recompute_p95_ms": 20.0,  # recompute p95 < 20 ms per table system
}

NETWORKS: dict[str, dict[str, Any] | None] = {
    "fast": None,
    "realistic": {"offline": False, "latency": 40, "downloadThroughput": 20e6 / 8, "uploadThroughput": 5e6 / 8},
}
"""Each profile's network: none (127.0.0.1 as it is), or Chromium's network emulation (CDP
``Network.emulateNetworkConditions`` on each tab: 20 Mbit/s down, 5 Mbit/s up, 40 ms round trip; bytes per
second). A tab's emulation reaches its dedicated workers' downloads too (checked in Chromium 156: a plain
Pyodide boot's 5.5 MB took 2.0 s longer throttled, inside the worker; NOTES.md)."""

REALISTIC_TARGETS = {
    "live_ratio": 0.30,          # widgets live <= 0.30x a plain Pyodide boot, same network (first and repeat visit)
    "bytes_ratio": 1.2,          # a first visit's bytes on the wire <= 1.2x the plain boot's
    "offline_live_ratio": 0.25,  # the offline visit (service worker cache) live <= 0.25x the plain boot's repeat visit
}

CONTROL_HTML = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Benchmark control: a plain Pyodide boot</title>
<link rel="icon" href="data:,">
<script type="module" src="bench-control.js"></script>
</head>
<body>
<h1>Benchmark control</h1>
<p>A module worker boots Pyodide from this site's own runtime files with a plain
<code>loadPyodide({indexURL: "./pyodide/"})</code> and nothing else.</p>
</body>
</html>
"""

CONTROL_PAGE_JS = """// Benchmark control, page side: start the worker, note when Pyodide is up.
const worker = new Worker(new URL("./bench-control-worker.js", import.meta.url), { type: "module" });
worker.onmessage = (event) => {
  const at = performance.now();
  const root = document.documentElement;
  if (event.data.type === "ready") {
    root.dataset.controlMs = String(at);
    root.dataset.controlWorkerMs = String(event.data.ms);
    root.dataset.controlReady = "1";
  } else {
    root.dataset.controlFailed = event.data.message;
  }
};
worker.onerror = (event) => {
  document.documentElement.dataset.controlFailed = event.message || "the control worker could not start";
};
"""

CONTROL_WORKER_JS = """// Benchmark control, worker side: a plain Pyodide boot, nothing more.
import { loadPyodide } from "./pyodide/pyodide.mjs";

const started = performance.now();
try {
  await loadPyodide({ indexURL: "./pyodide/" });
  self.postMessage({ type: "ready", ms: performance.now() - started });
} catch (err) {
  self.postMessage({ type: "failed", message: String(err && err.message ? err.message : err) });
}
"""

INIT_SCRIPT = """
// Benchmark probe: when <html data-widgets-live> takes a value, note the time
// (performance.now() for this document, and an epoch time that survives a reload).
(() => {
  const probe = window.__bench = { live: [] };
  const note = () => {
    const value = document.documentElement && document.documentElement.dataset.widgetsLive;
    const last = probe.live[probe.live.length - 1];
    if (value && (!last || last.path !== value || last.gone)) {
      const now = performance.now();
      probe.live.push({ path: value, perf: now, epoch: performance.timeOrigin + now });
    } else if (!value && last) {
      last.gone = true;
    }
  };
  new MutationObserver(note).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-widgets-live"] });
})();
"""

FORCE_RELOAD_SCRIPT = """
// --reload-nav: stop in-site navigation from seeing link clicks, so they load the page anew.
window.addEventListener("click", (e) => { if (e.target.closest && e.target.closest("a[href]")) e.stopPropagation(); }, true);
"""

BOOT_STAGES_JS = """() => {
  // The engine worker's boot stages, in ms since this page's time origin (not a figure: for reading the JSON).
  const engine = window.rulesExplorer?.engine;
  if (!engine?.bootStages || !engine.bootOrigin) return null;
  const shift = engine.bootOrigin - performance.timeOrigin;
  const marks = Object.fromEntries(["engine-start", "engine-ready", "widgets-live"]
    .map((n) => [n, performance.getEntriesByName(n)[0]?.startTime]).filter(([, t]) => t !== undefined));
  const stages = Object.fromEntries(Object.entries(engine.bootStages).map(([k, v]) => [k, v + shift]));
  return Object.fromEntries(Object.entries({ ...marks, ...stages }).map(([k, v]) => [k, Math.round(v)]).sort((a, b) => a[1] - b[1]));
}"""

RECOMPUTE_JS = """
async ({ instance, selector, values, count, timeoutMs }) => {
  const section = document.getElementById(instance);
  const control = document.querySelector(selector);
  if (!section || !control) throw new Error(`no ${selector} in #${instance}`);
  // Wait until the engine has answered everything (the sample roll that follows
  // each result), so one change is not queued behind the previous one's roll.
  const idle = async () => {
    const engine = window.rulesExplorer && window.rulesExplorer.engine;
    if (!engine || typeof engine.idle !== "function") { await new Promise((r) => setTimeout(r, 50)); return false; }
    let timer;
    const limit = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error("the engine did not go idle")), timeoutMs); });
    await Promise.race([engine.idle(), limit]).finally(() => clearTimeout(timer));
    return true;
  };
  const samples = [];
  let idleKnown = true;
  for (let i = 0; i < count; i++) {
    idleKnown = (await idle()) && idleKnown;
    const value = values[(i + 1) % 2];
    const shown = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no widget-result within ${timeoutMs} ms after ${selector} = ${value}`)), timeoutMs);
      section.addEventListener("widget-result", () => { clearTimeout(timer); resolve(performance.now()); }, { once: true });
    });
    const start = performance.now();
    control.value = value;
    control.dispatchEvent(new Event("input", { bubbles: true }));
    control.dispatchEvent(new Event("change", { bubbles: true }));
    samples.push((await shown) - start);
  }
  await idle();
  return { samples, idleKnown };
}
"""


# Statistics -----------------------------------------------------------------

def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def ratio(value: float | None, base: float | None) -> float | None:
    return value / base if value is not None and base else None


# The site and its server ------------------------------------------------------

@dataclass
class Target:
    """One system's measured page: its main widget and the page its pager leads to."""

    system: str
    url: str
    widget: str
    instance: str
    next_url: str | None = None
    change: dict[str, Any] = field(default_factory=dict)


def find_targets(out: Path) -> list[Target]:
    """The first page of each table system that has its main widget."""
    targets: dict[str, Target] = {}
    for page in build.collect_pages(build.Config()):
        for m in re.finditer(r"^::: *widget +(\S+) +#([a-z][a-z0-9-]*)", page.text, re.M):
            widget_id, instance = m.groups()
            system = widget_id.split(".")[0]
            if system not in MAIN_WIDGETS:
                continue
            current = targets.get(system)
            main = widget_id == MAIN_WIDGETS[system]
            if current is None or (main and current.widget != widget_id):
                targets[system] = Target(system, page.url, widget_id, instance)
    missing = sorted(set(MAIN_WIDGETS) - set(targets))
    if missing:
        raise SystemExit(f"no page with a widget for {', '.join(missing)}")
    for t in targets.values():
        html = (out / t.url).read_text(encoding="utf-8")
        m = re.search(r'<a rel="next" href="([^"]+)"', html)
        if m:
            nxt = urljoin("/" + t.url, m.group(1)).lstrip("/")
            if "data-widget=" in (out / nxt).read_text(encoding="utf-8"):
                t.next_url = nxt
    return [targets[s] for s in MAIN_WIDGETS]


def add_control(out: Path) -> None:
    """The control page's three files, with their .br/.gz copies as the build writes the site's (the server sends
    the control and the site the same way)."""
    files = {"bench-control.html": CONTROL_HTML.encode(), "bench-control.js": CONTROL_PAGE_JS.encode(),
             "bench-control-worker.js": CONTROL_WORKER_JS.encode()}
    files.update(build.precompressed(files))  # after their files: a copy older than its file is never sent
    for path, data in files.items():
        (out / path).write_bytes(data)


class _CountingWriter:
    """The handler's socket writer, counting what goes through it."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.count = 0

    def write(self, data: bytes) -> int:
        self.count += len(data)
        return self.raw.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


class Server:
    """build.SiteHandler on 127.0.0.1 in a thread, with a log of (path, status, bytes) per response."""

    def __init__(self, directory: Path) -> None:
        self.log: list[dict[str, Any]] = []
        lock = threading.Lock()
        log = self.log

        class Handler(build.SiteHandler):
            def setup(self) -> None:
                super().setup()
                self.wfile = _CountingWriter(self.wfile)  # type: ignore[assignment]

            def handle_one_request(self) -> None:
                self.wfile.count = 0  # type: ignore[attr-defined]
                self._status: int | None = None
                super().handle_one_request()
                if self._status is not None:
                    with lock:
                        log.append({"path": urlsplit(self.path).path, "status": self._status,
                                    "bytes": self.wfile.count})  # type: ignore[attr-defined]

            def log_request(self, code: Any = "-", size: Any = "-") -> None:
                self._status = int(code) if str(code).isdigit() else 0

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(directory)))
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def mark(self) -> int:
        return len(self.log)

    def since(self, mark: int, quiet_s: float = 0.3, limit_s: float = 3.0) -> list[dict[str, Any]]:
        """Responses logged after ``mark``, once no new one has come for ``quiet_s``."""
        end = time.monotonic() + limit_s
        seen = len(self.log)
        quiet_until = time.monotonic() + quiet_s
        while time.monotonic() < end:
            time.sleep(0.05)
            if len(self.log) != seen:
                seen = len(self.log)
                quiet_until = time.monotonic() + quiet_s
            elif time.monotonic() >= quiet_until:
                break
        return list(self.log[mark:])

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def served_site(site: Path | None = None, prefix: str = "bench-site-") -> Iterator[tuple[Path, Server, float | None]]:
    """The site served on 127.0.0.1 as ``build.py serve`` serves it: ``site`` if given, else a fresh
    build of the whole site into a temporary folder (timed). Yields (folder, server, build seconds or None)."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        build_s = None
        if site is None:
            site = Path(tmp) / "site"
            print("building the site...", flush=True)
            t0 = time.perf_counter()
            quietly(lambda: build.build(build.Config(output=site, runtime=True)))
            build_s = time.perf_counter() - t0
            print(f"built in {build_s:.1f} s", flush=True)
        server = Server(site)
        try:
            yield site, server, build_s
        finally:
            server.close()


# Picking an input to change ----------------------------------------------------

def scalar_fields(group: schema.Group, values: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, schema.Field, Any]]:
    """Choice and Integer fields, top level first (lists are skipped)."""
    nested = []
    for f in group.fields:
        path = f"{prefix}.{f.name}" if prefix else f.name
        if isinstance(f, schema.Group):
            nested.append((f, values[f.name], path))
        elif isinstance(f, (schema.Choice, schema.Integer)) and not isinstance(f, schema.Boolean):
            yield path, f, values[f.name]
    for f, v, path in nested:
        yield from scalar_fields(f, v, path)


def set_path(values: dict[str, Any], path: str, value: Any) -> None:
    *head, last = path.split(".")
    for part in head:
        values = values[part]
    values[last] = value


def pick_change(page: Any, target: Target) -> dict[str, Any]:
    """A select or number input of the widget and two valid values to alternate between.

    Prefers a change that alters the result (checked with the CPython engine)."""
    w = widgets.get(target.widget)
    base = json.loads(page.eval_on_selector(f"#{target.instance} script.widget-base", "e => e.textContent"))
    values = w.validate(base)
    base_html = w.render(w.run(base))
    fallback = None
    for path, f, current in scalar_fields(w.inputs, values):
        selector = f"#{target.instance}--{path.replace('.', '-')}"
        kind = page.evaluate("s => { const e = document.querySelector(s); return e ? e.tagName.toLowerCase() + ':' + (e.type || '') : null; }", selector)
        if kind not in ("select:select-one", "input:number"):
            continue
        if isinstance(f, schema.Choice):
            others = [c for c in f.choices if c != current]
        else:
            others = [v for v in (current + 1, current - 1)
                      if (f.minimum is None or v >= f.minimum) and (f.maximum is None or v <= f.maximum)]
        for other in others:
            trial = deepcopy(schema.jsonable(values))
            set_path(trial, path, other)
            try:
                html = w.render(w.run(trial))
            except InputError:
                continue
            choice = {"path": path, "selector": selector, "values": [schema.to_text(current), schema.to_text(other)],
                      "changes_result": html != base_html}
            if html != base_html:
                return choice
            fallback = fallback or choice
    if fallback is None:
        raise SystemExit(f"#{target.instance} ({target.widget}): no select or number input with two valid values")
    return fallback


# Browser ------------------------------------------------------------------------

class Browsers:
    """Fresh browser contexts: a new on-disk profile each (default) or an incognito context."""

    def __init__(self, pw: Any, incognito: bool, extra_init: str = "", network: dict[str, Any] | None = None) -> None:
        self.pw = pw
        self.incognito = incognito
        self.network = network
        self.init = INIT_SCRIPT + extra_init
        self.shared = None
        if incognito:
            self.shared = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)

    def context(self) -> tuple[Any, Callable[[], None]]:
        if self.incognito:
            ctx = self.shared.new_context()

            def close() -> None:
                ctx.close()
        else:
            profile = tempfile.mkdtemp(prefix="bench-profile-")
            ctx = self.pw.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                                             headless=True)

            def close() -> None:
                ctx.close()
                shutil.rmtree(profile, ignore_errors=True)
        ctx.add_init_script(self.init)
        ctx.set_default_timeout(TIMEOUT_MS)
        return ctx, close

    def page(self, ctx: Any, old: Any = None) -> Any:
        """``fresh_page``, on this profile's network."""
        page = fresh_page(ctx, old)
        if self.network is not None:
            throttle(ctx, page, self.network)
        return page

    def close(self) -> None:
        if self.shared is not None:
            self.shared.close()


def fresh_page(ctx: Any, old: Any = None) -> Any:
    """A new tab in the context (the old one closed after), like a visitor coming back."""
    if old is None and ctx.pages:
        return ctx.pages[0]
    page = ctx.new_page()
    if old is not None:
        old.close()
    return page


def throttle(ctx: Any, page: Any, conditions: dict[str, Any]) -> None:
    """Chromium's network emulation for this tab (and its dedicated workers), before it loads anything."""
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", conditions)


class Loads:
    """Collects Playwright's own view of each response (for comparison with the server's count)."""

    def __init__(self, page: Any) -> None:
        self.responses: list[Any] = []
        page.on("response", lambda r: self.responses.append(r))

    def playwright_bytes(self) -> dict[str, int]:
        body = headers = 0
        for r in self.responses:
            try:
                sizes = r.request.sizes()
            except Exception:
                continue
            body += sizes["responseBodySize"]
            headers += sizes["responseHeadersSize"]
        return {"body": body, "headers": headers, "responses": len(self.responses)}


def fcp(page: Any) -> float | None:
    try:
        page.wait_for_function("() => performance.getEntriesByName('first-contentful-paint').length > 0", timeout=10_000)
    except Exception:
        return None
    return page.evaluate("() => performance.getEntriesByName('first-contentful-paint')[0].startTime")


def transfer(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"bytes": sum(e["bytes"] for e in entries), "responses": len(entries),
            "by_path": [[e["path"], e["status"], e["bytes"]] for e in entries]}


def load_control(page: Any, server: Server) -> dict[str, Any]:
    loads = Loads(page)
    mark = server.mark()
    page.goto(server.origin + "/bench-control.html", wait_until="commit")
    page.wait_for_function("() => document.documentElement.dataset.controlReady === '1' || document.documentElement.dataset.controlFailed",
                           timeout=TIMEOUT_MS)
    state = page.evaluate("() => ({...document.documentElement.dataset})")
    if state.get("controlFailed"):
        raise SystemExit(f"the control page failed: {state['controlFailed']}")
    sample = {"boot_ms": float(state["controlMs"]), "worker_ms": float(state["controlWorkerMs"]), "fcp_ms": fcp(page)}
    sample["transfer"] = transfer(server.since(mark))
    sample["playwright_transfer"] = loads.playwright_bytes()
    return sample


def wait_widgets_live(page: Any, path: str) -> None:
    page.wait_for_function(
        "p => document.documentElement.dataset.widgetsLive === p || document.documentElement.dataset.engine === 'failed'",
        arg=path, timeout=TIMEOUT_MS)
    if page.evaluate("() => document.documentElement.dataset.engine") == "failed":
        status = page.evaluate("() => document.querySelector('.engine-status')?.textContent")
        raise SystemExit(f"the engine failed on {path}: {status}")


def load_site(page: Any, server: Server, target: Target, until_saved: bool = False) -> dict[str, Any]:
    """One visit to the target's page. ``transfer_to_live``: the responses the server had finished by the time
    the widgets were live; ``transfer``: those and what followed in a quiet moment (or, ``until_saved``, until
    the site is saved for offline use: the service worker's downloads)."""
    loads = Loads(page)
    path = "/" + target.url
    mark = server.mark()
    page.goto(server.origin + path, wait_until="commit")
    wait_widgets_live(page, path)
    live_mark = server.mark()
    probe = page.evaluate("p => (window.__bench.live.find(e => e.path === p) || {}).perf ?? null", path)
    sample = {"live_ms": probe, "fcp_ms": fcp(page), "boot": page.evaluate("() => document.documentElement.dataset.boot ?? null"),
              # parsing had finished (the pre-rendered results were in the DOM) by first paint if this is <= fcp_ms
              "dom_interactive_ms": page.evaluate("() => performance.getEntriesByType('navigation')[0]?.domInteractive ?? null"),
              "boot_stages": page.evaluate(BOOT_STAGES_JS)}
    if until_saved:
        sample["offline"] = wait_saved(page)
    entries = server.since(mark)
    sample["transfer"] = transfer(entries)
    sample["transfer_to_live"] = transfer(entries[:live_mark - mark])
    sample["playwright_transfer"] = loads.playwright_bytes()
    return sample


def follow_next(page: Any, server: Server, target: Target) -> dict[str, Any]:
    """Click a[rel=next] on a live page; time from the click to the next page's widgets live."""
    path = "/" + target.next_url
    mark = server.mark()
    before = page.evaluate("() => performance.timeOrigin")
    clicked = page.evaluate("""() => {
        const a = document.querySelector('a[rel=next]');
        const at = performance.timeOrigin + performance.now();
        sessionStorage.setItem('bench.clickAt', String(at));
        a.click();
        return at;
    }""")
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while True:  # a full reload may destroy the context the wait runs in: wait again
        try:
            wait_widgets_live(page, path)
            live = page.evaluate("p => (window.__bench.live.filter(e => e.path === p).pop() || {}).epoch ?? null", path)
            reloaded = page.evaluate("() => performance.timeOrigin") != before
            break
        except SystemExit:
            raise
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    return {"nav_ms": live - clicked if live is not None else None, "reloaded": reloaded,
            "transfer": transfer(server.since(mark))}


def wait_saved(page: Any) -> dict[str, Any]:
    """Wait until the service worker has saved the site (``<html data-offline>`` ready, or failed)."""
    try:
        page.wait_for_function("() => ['ready', 'failed', 'unavailable'].includes(document.documentElement.dataset.offline)",
                               timeout=TIMEOUT_MS * 2)
    except Exception:
        pass
    return page.evaluate("() => ({state: document.documentElement.dataset.offline ?? null, ms: performance.now()})")


def wait_engine_warm(page: Any) -> float | None:
    """The page's time when the worker said it had warmed up (it does so in quiet time after the start)."""
    try:
        page.wait_for_function("() => document.documentElement.dataset.engineWarmMs", timeout=TIMEOUT_MS)
    except Exception:
        return None
    return float(page.evaluate("() => document.documentElement.dataset.engineWarmMs"))


def recompute(page: Any, target: Target, count: int) -> dict[str, Any]:
    change = target.change
    result = page.evaluate(RECOMPUTE_JS, {"instance": target.instance, "selector": change["selector"],
                                          "values": change["values"], "count": count, "timeoutMs": 15_000})
    return result


# One benchmark run -------------------------------------------------------------------

def run_control_pair(browsers: Browsers, server: Server) -> dict[str, dict[str, Any]]:
    ctx, close = browsers.context()
    try:
        page = browsers.page(ctx)
        cold = load_control(page, server)
        page = browsers.page(ctx, page)
        warm = load_control(page, server)
    finally:
        close()
    return {"cold": cold, "warm": warm}


def run_site_pair(browsers: Browsers, server: Server, target: Target, changes: int) -> dict[str, dict[str, Any]]:
    ctx, close = browsers.context()
    out: dict[str, dict[str, Any]] = {}
    try:
        page = None
        for condition in ("cold", "warm"):
            page = browsers.page(ctx, page)
            sample = load_site(page, server, target)
            if not target.change:
                target.change = pick_change(page, target)
            # a reader who changes inputs at once, while the engine's code is still in its baseline tier
            sample["recompute_early_ms"] = recompute(page, target, EARLY_CHANGES)["samples"]
            # then the steady state, once the worker has warmed up in the pause after those changes
            sample["warm_ms"] = wait_engine_warm(page)
            r = recompute(page, target, changes)
            sample["recompute_ms"] = r["samples"]
            sample["recompute_waited_for_idle"] = r["idleKnown"]
            if target.next_url:
                sample["nav"] = follow_next(page, server, target)
            out[condition] = sample
    finally:
        close()
    return out


def run_site_visits(browsers: Browsers, server: Server, target: Target) -> dict[str, dict[str, Any]]:
    """The realistic profile's three visits in one fresh profile: the first (until the site is saved for offline
    use), a repeat visit online in a new tab (its files come from the service worker's cache) and one offline
    (``context.set_offline``: Playwright's own emulation, so the tab is not throttled; nothing goes out)."""
    ctx, close = browsers.context()
    out: dict[str, dict[str, Any]] = {}
    try:
        page = browsers.page(ctx)
        out["cold"] = load_site(page, server, target, until_saved=True)
        page = browsers.page(ctx, page)
        out["warm"] = load_site(page, server, target)
        ctx.set_offline(True)
        page = fresh_page(ctx, page)
        out["offline"] = load_site(page, server, target)
    finally:
        close()
    return out


# Report ---------------------------------------------------------------------------------

def machine(chromium_version: str) -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_kib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_kib = int(line.split()[1])
    except OSError:
        pass
    os_name = platform.platform()
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                os_name = f"{line.split('=', 1)[1].strip(chr(34))} (Linux {platform.release()})"
    except OSError:
        pass
    return {
        "cpu": cpu or platform.processor(), "cores": os.cpu_count(),
        "memory_gib": round(mem_kib / 1024 / 1024, 1) if mem_kib else None,
        "os": os_name, "chromium": chromium_version, "python": platform.python_version(),
        "pyodide": build.PYODIDE_VERSION, "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }


def chromium_version() -> str:
    try:
        out = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.strip().splitlines()[0] if out.strip() else "unknown"


def git_state() -> dict[str, Any]:
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    return {"commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain"))}


FAST_CONDITIONS = ("cold", "warm")
REALISTIC_CONDITIONS = ("cold", "warm", "offline")
Check = Callable[[float | None, float | None], bool]


def add_row(rows: list[dict[str, Any]], conditions: tuple[str, ...], figure: str, unit: str,
            samples: dict[str, list[float]], base: dict[str, float | None] | None,
            stat: Callable[[list[float]], float | None] = median, target: str = "",
            check: Check | dict[str, Check] | None = None, basis: str = "") -> None:
    """One figure: per condition the statistic of its samples, its ratio to ``base`` and, where ``check`` (one
    for every condition, or a dict of some) applies, whether the target is met."""
    entry: dict[str, Any] = {"figure": figure, "unit": unit, "target": target, "ratio_basis": basis}
    for c in conditions:
        value = stat([s for s in samples.get(c, []) if s is not None])
        entry[c] = {"value": value, "ratio": ratio(value, base.get(c)) if base else None, "samples": samples.get(c, [])}
        test = check.get(c) if isinstance(check, dict) else check
        if test is not None:
            entry[c]["met"] = test(value, entry[c]["ratio"]) if value is not None else False
    rows.append(entry)


def summarise(raw: dict[str, Any], targets: list[Target]) -> list[dict[str, Any]]:
    """Rows of figures: cold and warm medians, ratios to the control's medians, targets."""
    controls = {c: [p[c] for p in raw["control"]] for c in ("cold", "warm")}
    control_boot = {c: median([s["boot_ms"] for s in controls[c]]) for c in controls}
    control_bytes = {c: median([s["transfer"]["bytes"] for s in controls[c]]) for c in controls}
    rows: list[dict[str, Any]] = []
    row = partial(add_row, rows, FAST_CONDITIONS)
    boot_basis = "control boot"
    row("control: plain Pyodide boot", "ms", {c: [s["boot_ms"] for s in controls[c]] for c in controls}, control_boot,
        basis=boot_basis)
    row("control: first paint", "ms", {c: [s["fcp_ms"] for s in controls[c]] for c in controls}, control_boot,
        basis=boot_basis)
    row("control: bytes transferred", "bytes", {c: [s["transfer"]["bytes"] for s in controls[c]] for c in controls},
        control_bytes, basis="control bytes")
    for t in targets:
        pairs = raw["site"][t.system]
        cond = {c: [p[c] for p in pairs] for c in ("cold", "warm")}
        name = t.system
        row(f"{name}: first paint (pre-rendered)", "ms", {c: [s["fcp_ms"] for s in cond[c]] for c in cond}, control_boot,
            basis=boot_basis)
        row(f"{name}: widget live", "ms", {c: [s["live_ms"] for s in cond[c]] for c in cond}, control_boot,
            target=f"<= {TARGETS['live_ratio']}x control", check=lambda v, r: r is not None and r <= TARGETS["live_ratio"],
            basis=boot_basis)
        if t.next_url:
            reloads = {s["nav"]["reloaded"] for c in cond for s in cond[c] if "nav" in s}
            how = "in-site" if reloads == {False} else "full reload" if reloads == {True} else "mixed"
            row(f"{name}: next page live after link ({how})", "ms",
                {c: [s["nav"]["nav_ms"] for s in cond[c] if "nav" in s] for c in cond}, control_boot,
                target=f"< {TARGETS['nav_ms']:.0f} ms", check=lambda v, r: v < TARGETS["nav_ms"], basis=boot_basis)
        row(f"{name}: engine warmed up (pause after first changes)", "ms", {c: [s.get("warm_ms") for s in cond[c]] for c in cond},
            control_boot, basis=boot_basis)
        early = {c: [x for s in cond[c] for x in s.get("recompute_early_ms", [])] for c in cond}
        row(f"{name}: recompute p95, first {EARLY_CHANGES} changes", "ms", early, control_boot,
            stat=partial(percentile, q=95), basis=boot_basis)
        pooled = {c: [x for s in cond[c] for x in s["recompute_ms"]] for c in cond}
        row(f"{name}: recompute p50", "ms", pooled, control_boot, stat=partial(percentile, q=50), basis=boot_basis)
        row(f"{name}: recompute p95", "ms", pooled, control_boot, stat=partial(percentile, q=95),
            target=f"< {TARGETS['recompute_p95_ms']:.0f} ms", check=lambda v, r: v < TARGETS["recompute_p95_ms"],
            basis=boot_basis)
        row(f"{name}: bytes (first / repeat visit)", "bytes",
            {c: [s["transfer"]["bytes"] for s in cond[c]] for c in cond}, control_bytes, basis="control bytes")
    return rows


def summarise_realistic(raw: dict[str, Any], targets: list[Target]) -> list[dict[str, Any]]:
    """The realistic profile's rows: first, repeat and offline visit, ratios to the control under the same network.
    The control has no offline visit (no service worker): the offline visit's ratio is to its repeat visit."""
    controls = {c: [p[c] for p in raw["control"]] for c in FAST_CONDITIONS}
    boot = {c: median([s["boot_ms"] for s in controls[c]]) for c in controls}
    sent = {c: median([s["transfer"]["bytes"] for s in controls[c]]) for c in controls}
    boot["offline"], sent["offline"] = boot["warm"], sent["warm"]
    goals = REALISTIC_TARGETS
    rows: list[dict[str, Any]] = []
    row = partial(add_row, rows, REALISTIC_CONDITIONS)
    row("control: plain Pyodide boot", "ms", {c: [s["boot_ms"] for s in controls[c]] for c in controls}, boot,
        basis="control boot")
    row("control: first paint", "ms", {c: [s["fcp_ms"] for s in controls[c]] for c in controls}, boot,
        basis="control boot")
    row("control: bytes on the wire", "bytes", {c: [s["transfer"]["bytes"] for s in controls[c]] for c in controls},
        sent, basis="control bytes")
    for t in targets:
        cond = {c: [p[c] for p in raw["site"][t.system]] for c in REALISTIC_CONDITIONS}
        name = t.system
        row(f"{name}: first paint (pre-rendered)", "ms", {c: [s["fcp_ms"] for s in cond[c]] for c in cond}, boot,
            basis="control boot")
        live_ok = lambda v, r: r is not None and r <= goals["live_ratio"]  # noqa: E731
        row(f"{name}: widgets live", "ms", {c: [s["live_ms"] for s in cond[c]] for c in cond}, boot,
            target=f"<= {goals['live_ratio']}x (offline <= {goals['offline_live_ratio']}x)",
            check={"cold": live_ok, "warm": live_ok,
                   "offline": lambda v, r: r is not None and r <= goals["offline_live_ratio"]},
            basis="control boot (offline: its repeat visit)")
        row(f"{name}: bytes on the wire until live", "bytes",
            {c: [s["transfer_to_live"]["bytes"] for s in cond[c]] for c in cond}, sent,
            target=f"first visit <= {goals['bytes_ratio']}x",
            check={"cold": lambda v, r: r is not None and r <= goals["bytes_ratio"]}, basis="control bytes")
        row(f"{name}: bytes with the offline copy", "bytes", {"cold": [s["transfer"]["bytes"] for s in cond["cold"]]},
            sent, basis="control bytes")
        row(f"{name}: saved for offline use at", "ms", {"cold": [s["offline"]["ms"] for s in cond["cold"]
                                                                 if s["offline"]["state"] == "ready"]},
            boot, basis="control boot")
    return rows


FAST_NOTES = ["Medians over the runs (recompute: percentiles over all changes). Ratios: times to the control's",
              "plain-boot median, bytes to the control's bytes median, same condition. Cold: fresh browser",
              "profile; warm: a second load in it. Bytes: first visit (cold) and repeat visit (warm)."]
REALISTIC_NOTES = ["Network: Chromium's emulation, 20 Mbit/s down, 5 Mbit/s up, 40 ms round trip; the server sends",
                   "precompressed .br/.gz copies. Medians over the runs; ratios to the control's median, same network",
                   "and visit (offline: to its repeat visit). First visit: fresh profile, until the service worker",
                   "has saved the site; repeat: a new tab, online (files from the service worker's cache); offline:",
                   "a new tab with the network off. Bytes: counted by the server, compressed, headers included."]


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "bytes":
        return f"{value / 1_000_000:.2f} MB" if value >= 100_000 else f"{value / 1000:.1f} kB"
    if unit == "s":
        return f"{value:.1f} s"
    return f"{value:.0f} ms" if value >= 100 else f"{value:.1f} ms"


def fmt_ratio(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}x" if value >= 0.01 else f"{value:.4f}x"


def table(rows: list[dict[str, Any]], build_s: float | None, conditions: tuple[str, ...] = FAST_CONDITIONS,
          labels: tuple[str, ...] = FAST_CONDITIONS, notes: list[str] = FAST_NOTES) -> str:
    header = ["figure", *(x for label in labels for x in (label, f"{label.split()[0]}/control")), "target"]
    lines = [header]
    for r in rows:
        verdict = ""
        if r["target"]:
            marks = [f"{label.split()[0]} {'met' if r[c]['met'] else 'NOT met'}"
                     for c, label in zip(conditions, labels) if "met" in r[c]]
            verdict = f"{r['target']}: " + ", ".join(marks)
        cells = [x for c in conditions for x in (fmt(r[c]["value"], r["unit"]), fmt_ratio(r[c]["ratio"]))]
        lines.append([r["figure"], *cells, verdict])
    if build_s is not None:
        lines.append(["build time (whole site)", fmt(build_s, "s"), *[""] * (len(header) - 2)])
    notes = ["", *notes]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = []
    last = len(header) - 1
    for n, line in enumerate(lines):
        out.append("  ".join(cell.ljust(widths[i]) if i in (0, last) else cell.rjust(widths[i]) for i, cell in enumerate(line)).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out + [n for n in notes])


def quietly(action: Callable[[], Any]) -> Any:
    """Run ``action`` with file descriptor 2 captured (the wheel build chats there); show it if it fails."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as err:
        os.dup2(err.fileno(), 2)
        try:
            return action()
        except BaseException:
            os.dup2(saved, 2)
            err.seek(0)
            sys.stderr.write(err.read().decode(errors="replace"))
            raise
        finally:
            os.dup2(saved, 2)
            os.close(saved)


# Main ---------------------------------------------------------------------------------------

def run_profile(profile: str, pw: Any, server: Server, targets: list[Target], args: argparse.Namespace,
                started: float) -> dict[str, Any]:
    """Every run of one profile: each system's visits interleaved with the control's, on the profile's network."""
    changes_per_run = math.ceil(args.changes / args.runs)
    raw: dict[str, Any] = {"control": [], "site": {t.system: [] for t in targets}}
    browsers = Browsers(pw, args.incognito, FORCE_RELOAD_SCRIPT if args.reload_nav else "", NETWORKS[profile])
    try:
        for run in range(args.runs):
            for i, t in enumerate(targets):
                # control and site alternate which goes first, run to run and system to system
                control_first = (run + i) % 2 == 0
                if control_first:
                    raw["control"].append(run_control_pair(browsers, server))
                if profile == "fast":
                    raw["site"][t.system].append(run_site_pair(browsers, server, t, changes_per_run))
                else:
                    raw["site"][t.system].append(run_site_visits(browsers, server, t))
                if not control_first:
                    raw["control"].append(run_control_pair(browsers, server))
                s = raw["site"][t.system][-1]
                c = raw["control"][-1]
                visits = "/".join(f"{s[k]['live_ms']:.0f}" for k in s)
                print(f"[{time.monotonic() - started:4.0f} s] {profile} run {run + 1}/{args.runs} {t.system}: live "
                      f"{visits} ms ({'/'.join(s)}; control {c['cold']['boot_ms']:.0f}/{c['warm']['boot_ms']:.0f} ms, "
                      f"bytes {s['cold']['transfer_to_live']['bytes'] / 1e6:.2f} MB until live, control "
                      f"{c['cold']['transfer']['bytes'] / 1e6:.2f} MB)", flush=True)
    finally:
        browsers.close()
    raw["settings"] = {"changes_per_system_and_condition": changes_per_run * args.runs if profile == "fast" else 0}
    return raw


def results_path(out: Path, profile: str) -> Path:
    """The fast profile's results go to ``--out``; the realistic profile's beside it (results-realistic.json)."""
    return out if profile == "fast" else out.with_name(f"{out.stem}-{profile}{out.suffix}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", choices=("fast", "realistic", "both"), default="both",
                        help="fast: 127.0.0.1 as it is (with recompute and navigation figures); realistic: "
                             "20 Mbit/s down, 5 up, 40 ms round trip (first, repeat and offline visits); default both")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure and condition (default 5)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results.json",
                        help="JSON results file of the fast profile; the realistic one's is beside it, "
                             "with -realistic before the suffix")
    parser.add_argument("--changes", type=int, default=RECOMPUTE_CHANGES,
                        help=f"input changes per system and condition, over all runs (default {RECOMPUTE_CHANGES})")
    parser.add_argument("--incognito", action="store_true",
                        help="fresh incognito contexts (memory-only HTTP cache) instead of fresh on-disk profiles")
    parser.add_argument("--reload-nav", action="store_true",
                        help="make pager clicks full page loads (bypass in-site navigation), to compare")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.incognito and args.profile != "fast":
        parser.error("--incognito has no service worker to keep: use it with --profile fast")
    if not Path(CHROMIUM).exists():
        print(f"Chromium is missing at {CHROMIUM} (./dev test installs it; or set CHROMIUM_PATH)", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    profiles = ["fast", "realistic"] if args.profile == "both" else [args.profile]
    started = time.monotonic()
    raws: dict[str, dict[str, Any]] = {}
    with served_site(None, "bench-site-") as (out, server, build_s):
        add_control(out)
        targets = find_targets(out)
        with sync_playwright() as pw:
            for profile in profiles:
                raws[profile] = run_profile(profile, pw, server, targets, args, started)
    for profile, raw in raws.items():
        settings = raw.pop("settings")
        if profile == "fast":
            rows = summarise(raw, targets)
            text = table(rows, build_s)
        else:
            rows = summarise_realistic(raw, targets)
            text = table(rows, build_s, REALISTIC_CONDITIONS, ("first visit", "repeat visit", "offline visit"),
                         REALISTIC_NOTES)
        print(f"\n{profile} profile\n")
        print(text)
        result = {
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "profile": profile,
            "machine": machine(chromium_version()),
            "git": git_state(),
            "settings": {"runs": args.runs, **settings,
                         "network": NETWORKS[profile] or "none: 127.0.0.1 as it is",
                         "server": "build.SiteHandler as build.py serve: .br/.gz copies by Accept-Encoding, "
                                   "Cache-Control: no-cache",
                         "contexts": "incognito" if args.incognito else "fresh on-disk profile per context",
                         "nav_mode": "forced full reload" if args.reload_nav else "as the site does it",
                         "chromium_args": CHROMIUM_ARGS, "targets": TARGETS if profile == "fast" else REALISTIC_TARGETS,
                         "control": "bench-control.html: a module worker runs a plain loadPyodide({indexURL: './pyodide/'}); "
                                    "boot_ms is performance.now() in the page when the worker reports it",
                         "bytes": "counted by the server: status line, headers and body written for every response "
                                  "(page, worker and its imports); transfer_to_live: the responses finished by the "
                                  "time the widgets were live; playwright_transfer is request.sizes() for comparison",
                         "visits": "cold: fresh profile; warm: a second tab in it" if profile == "fast" else
                                   "cold: fresh profile, until the service worker has saved the site; warm: a second "
                                   "tab, online; offline: a third tab with context.set_offline(True)",
                         "nav": "a[rel=next].click() from page script (no hover, so no hover prefetch); from the click "
                                "to <html data-widgets-live> = the new path, in epoch ms (performance.timeOrigin + now)",
                         "recompute": "select/number value set and input+change dispatched in the page; to the widget's "
                                      "widget-result event; the next change waits until the engine has no pending request. "
                                      f"Per load: {EARLY_CHANGES} changes at once after live (recompute_early_ms), then, "
                                      "once the worker has warmed up in the pause (warm_ms), the measured changes"},
            "pages": [{"system": t.system, "url": t.url, "widget": t.widget, "instance": t.instance,
                       "next_url": t.next_url, "change": t.change} for t in targets],
            "build_s": build_s,
            "figures": rows,
            "raw": raw,
            "wall_s": time.monotonic() - started,
        }
        path = results_path(args.out, profile)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, indent=1), encoding="utf-8")
        print(f"\nwrote {path} ({result['wall_s']:.0f} s since the start)")
    return 0

if __name__ == "__main__":
    sys.exit(main())
