"""One small driver layer over three browsers, so one test body runs in each.

* Chromium: Playwright with Debian's chromium (the browser fixture of pytest-playwright).
* Firefox: Debian's firefox-esr, headless, over WebDriver BiDi with npm's
  puppeteer-core, through ``tests/firefox_driver.mjs`` (JSON lines on its
  stdin and stdout).
* WebKit: WebKitGTK's ``WebKitWebDriver`` (Debian's webkit2gtk-driver) with
  selenium, on an Xvfb display that the driver starts (WebKitGTK has no
  headless mode).

A driver opens a URL as a first visit (a fresh context in Chromium and Firefox;
WebKit keeps one session), calls a JavaScript function's text in the page with
JSON arguments, and reports console errors where the browser tells them
(Chromium and Firefox; WebDriver classic has no log for WebKitGTK).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
FIREFOX = os.environ.get("FIREFOX_PATH", "/usr/bin/firefox-esr")
WEBKIT_DRIVER = os.environ.get("WEBKIT_DRIVER_PATH", "/usr/bin/WebKitWebDriver")
XVFB = "Xvfb"
WAIT_SLICE_S = 1.0
"""The longest a page polls within one driver call of ``Driver.wait``."""
SCRIPT_TIMEOUT_S = 60
"""The longest any call may take in Firefox and WebKit (WebDriver's script timeout; the Firefox driver's own)."""
WARM_UP_OFF = {"rulesExplorerWarmUp": False}
"""The engine worker skips its warm-up rounds (engine-worker.js): about 1.3 s of CPU a page load in Chromium and
3 s in WebKit."""
OFFLINE_OFF = {"rulesExplorerOffline": False}
"""The page does not register the service worker that saves the site for offline use (offline.js): on a first
visit it fetches and stores the whole site, 2-3 s of CPU a page load in Chromium and Firefox (session 15)."""
ONE_WORKER = {"rulesExplorerWorkers": 1}
"""The page's pool is its own engine alone (pool.js ``poolSize``): a Monte Carlo run or a battle's scenario that
goes on past half a second would otherwise start a second Python (about a second of CPU to boot) on the core the
other test's browser needs. The tests of the pool mark themselves ``pooled`` and keep a reader's pool."""
PAGE_SETTINGS = {**WARM_UP_OFF, **OFFLINE_OFF, **ONE_WORKER}
"""Set before a test page's own scripts, so that a test's first visit costs only the boot it tests: the CPU the
settings save is what the other test's browser needs on this 2-core machine. The tests of the warm-up and of
offline use, and the page tour in every browser, load pages as a reader's (``as_readers``). Chromium and Firefox
run ``settings_script`` before the page's own (each first visit in a fresh context); WebDriver classic (WebKit) has
no such script, so its driver keeps the settings in the tab's sessionStorage, where engine-start.js reads them."""


def settings_script(settings: dict[str, bool]) -> str:
    """The page settings as a script that sets them (engine-start.js and offline.js read the globals)."""
    return "".join(f"globalThis.{name} = {json.dumps(value)};" for name, value in settings.items())


SLICE_BOUND_S = 15.0
"""How long a slice's call may go unanswered before it counts as cut short (the page went away): a slice
polls for WAIT_SLICE_S; the rest is room for a loaded machine. Without it Firefox waited puppeteer's protocol
timeout, 180 s, for the slice that a navigation to a page served by the service worker had left unanswered."""


class Driver:
    """What a test needs of a browser."""

    name = ""
    page_settings = PAGE_SETTINGS
    """The settings of the pages opened next (see PAGE_SETTINGS)."""

    def open(self, url: str) -> None:
        raise NotImplementedError

    def call(self, fn: str, *args: Any) -> Any:
        """The page's value of ``(fn)(...args)``; ``fn`` is a JavaScript function's text."""
        raise NotImplementedError

    def call_within(self, seconds: float, fn: str, *args: Any) -> Any:
        """``call``, failing if the page has not answered within ``seconds`` (where the driver can bound it)."""
        return self.call(fn, *args)

    def errors(self) -> list[str]:
        return []

    def quit(self) -> None:
        pass

    @contextmanager
    def opening_with(self, settings: dict[str, Any]) -> Iterator[None]:
        """Pages opened within have these page settings; the driver's own come back after."""
        self.page_settings, kept = settings, self.page_settings
        try:
            yield
        finally:
            self.page_settings = kept

    def pooled(self) -> AbstractContextManager[None]:
        """Pages opened within keep the pool a reader's page has (no ONE_WORKER); the other settings stay."""
        return self.opening_with({k: v for k, v in self.page_settings.items() if k not in ONE_WORKER})

    def as_readers(self, warm_up: bool = True) -> AbstractContextManager[None]:
        """Pages opened within load as a reader's do: the site is saved for offline use and (unless ``warm_up``
        is False) the worker warms up; no PAGE_SETTINGS."""
        return self.opening_with({} if warm_up else WARM_UP_OFF)

    def wait(self, fn: str, *args: Any, timeout: float = 60, interval: float = 0.05) -> Any:
        """Poll ``fn`` until it returns a truthy value; return that value.

        The page polls, in slices of up to WAIT_SLICE_S: one driver call a slice, not one every ``interval``
        (a call through WebDriver costs the browser about 10 ms of CPU, which the engine under test shares on
        this 2-core machine). A slice cut short by the page going away is asked once more as a plain call; so is
        one the browser never answers (Firefox over BiDi, when the page went away: SLICE_BOUND_S).
        """
        deadline = time.monotonic() + timeout
        poll = (f"async (ms, every, ...args) => {{ const f = ({fn}); const end = performance.now() + ms;"
                " for (;;) { const v = await f(...args); if (v || performance.now() >= end) return v;"
                " await new Promise((r) => setTimeout(r, every)); } }")
        while True:
            left = max(0.0, deadline - time.monotonic())
            try:
                value = self.call_within(SLICE_BOUND_S, poll, round(min(WAIT_SLICE_S, left) * 1000),
                                         round(interval * 1000), *args)
            except Exception:  # noqa: BLE001 (a navigation ends the page's script; the old question, asked plainly)
                value = self.call(fn, *args)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name}: timed out after {timeout:.0f} s waiting for {fn}")
            time.sleep(interval)

    def wait_run_done(self, sim: str, timeout: float, trials: int | None = None) -> None:
        """Wait for the Monte Carlo run of the widget-sim ``sim`` to end done (with ``trials``: all of them, as its
        progress bar says); if it does not, fail saying where the run, the page's engine and the pool stood (a run
        that never ends must say why, not only that)."""
        done = ("(s, n) => { const e = document.querySelector(s); return e.dataset.state === 'done' "
                "&& (n === null || Number(e.querySelector('progress').value) === n); }")
        self.wait_or_say(done, sim, trials, timeout=timeout, state=RUN_STATE, state_args=(sim,))

    def wait_or_say(self, fn: str, *args: Any, timeout: float, state: str, state_args: tuple[Any, ...] = ()) -> Any:
        """``wait``; on a timeout, fail with what the page's ``state`` function answers (where things stood) and the
        console: a wait that never ends must say why, not only that."""
        try:
            return self.wait(fn, *args, timeout=timeout)
        except TimeoutError as error:
            raise TimeoutError(f"{error}; {self.call(state, *state_args)}; console: {self.errors()}") from None


BOOT_STATE = """() => { const d = document.documentElement.dataset, g = window.rulesExplorer?.engine;
    return {path: location.pathname, live: d.widgetsLive ?? null, boot: d.boot ?? null, offline: d.offline ?? null,
            engine: g && {state: g.state, restarts: g.bootRestarts, pending: g.pending?.size},
            status: document.querySelector('.engine-status')?.textContent ?? null}; }"""
"""Where a page's boot stands (the engine as RUN_STATE says it), for a test's failure message."""
RUN_STATE = """(s) => { const e = document.querySelector(s), x = window.rulesExplorer ?? {}, p = x.pool, g = x.engine;
    return {state: e?.dataset.state, progress: e?.querySelector('.sim-progress-text')?.textContent,
            announce: e?.querySelector('.sim-announce')?.textContent,
            engine: g && {state: g.state, restarts: g.bootRestarts, pending: g.pending?.size},
            pool: p && {helpers: (p.helpers ?? []).map((h) => [h.state, h.pending?.size]), replaced: p.replaced,
                        limit: String(p.limit), quietFor: Math.round(p.now() - p.main.askedAt),
                        runs: [...(p.active ?? [])].map((r) => ({slow: r.slow, long: r.long, queue: r.queue?.length,
                          workers: r.workers.map((w) => [w.link === p.main ? 'main' : w.link.state, w.done,
                                                         w.block?.count ?? 0])}))}}; }"""
"""Where a widget's run, the page's engine and the pool stand (each run's workers: state, trials done, block), for
a test's failure message."""


class Chromium(Driver):
    name = "chromium"

    def __init__(self, browser) -> None:
        self.browser = browser
        self.context = None
        self.page = None
        self._errors: list[str] = []

    def open(self, url: str) -> None:
        self.quit()
        self._errors = []
        self.context = self.browser.new_context()
        if self.page_settings:
            self.context.add_init_script(settings_script(self.page_settings))
        self.page = self.context.new_page()
        self.page.on("console", lambda m: m.type == "error" and self._errors.append(f"console error: {m.text}"))
        self.page.on("pageerror", lambda exc: self._errors.append(f"page error: {exc}"))
        self.page.goto(url)

    def call(self, fn: str, *args: Any) -> Any:
        return self.page.evaluate(f"({fn})(...{json.dumps(list(args))})")

    def errors(self) -> list[str]:
        return list(self._errors)

    def quit(self) -> None:
        if self.context and self.browser.is_connected():
            self.context.close()
        self.context = self.page = None


class Firefox(Driver):
    name = "firefox"

    def __init__(self) -> None:
        if not Path(FIREFOX).exists():
            raise RuntimeError(f"Firefox is missing at {FIREFOX}: run the tests with ./dev test, which installs it")
        self.process = subprocess.Popen(
            ["node", str(ROOT / "tests" / "firefox_driver.mjs"), FIREFOX], cwd=ROOT,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.version = self._answer()

    def _answer(self) -> Any:
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the Firefox driver stopped (exit status {self.process.poll()})")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"firefox: {answer['error']}")
        return answer["ok"]

    def _send(self, **request: Any) -> Any:
        self.process.stdin.write(json.dumps(request) + "\n")
        return self._answer()

    def open(self, url: str) -> None:
        self._send(op="open", url=url, settings=settings_script(self.page_settings))

    def call(self, fn: str, *args: Any) -> Any:
        return self._send(op="call", fn=fn, args=list(args))

    def call_within(self, seconds: float, fn: str, *args: Any) -> Any:
        return self._send(op="call", fn=fn, args=list(args), timeoutMs=round(seconds * 1000))

    def errors(self) -> list[str]:
        return self._send(op="errors")

    def quit(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class WebKit(Driver):
    name = "webkit"
    page_settings = {**WARM_UP_OFF, **ONE_WORKER}
    """Not OFFLINE_OFF: the module's one session keeps the site saved, so a repeat visit boots from the kept
    inflated snapshot, about 1 s of CPU cheaper than inflating it again (session 15)."""

    def __init__(self) -> None:
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service

        for program in (WEBKIT_DRIVER, XVFB):
            if not shutil.which(program):
                raise RuntimeError(f"{program} is missing: run the tests with ./dev test, which installs it")
        # Xvfb picks a free display and writes its number to the pipe it is given.
        read, write = os.pipe()
        self.xvfb = subprocess.Popen([XVFB, "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                                     pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as pipe:
            display = pipe.readline().strip()
        if not display:
            self.xvfb.kill()
            raise RuntimeError("Xvfb did not start")
        # Without accelerated compositing: under Xvfb it is Mesa's software GL (llvmpipe), about a second of
        # CPU a page load that the tests' other browser needs; pages lay out and paint the same.
        env = {**os.environ, "DISPLAY": f":{display}", "WEBKIT_DISABLE_COMPOSITING_MODE": "1"}
        options = Options()
        options.add_argument("--automation")
        try:
            self.driver = webdriver.WebKitGTK(options=options, service=Service(WEBKIT_DRIVER, env=env))
        except Exception:
            self.xvfb.kill()
            raise
        self.driver.set_script_timeout(SCRIPT_TIMEOUT_S)
        self.kept: dict[str, str] = {}
        """The settings kept in each origin's sessionStorage of the tab."""

    def open(self, url: str) -> None:
        # No script runs before a page's own here: the settings wait in the tab's sessionStorage for the
        # origin, set from a document of that origin (a missing one is as good as any) when they change.
        origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
        settings = json.dumps(self.page_settings)
        if self.kept.get(origin) != settings:
            self.driver.get(origin + "/rules-explorer-test-settings")
            self.driver.execute_script("sessionStorage.setItem('rulesExplorerTestSettings', arguments[0]);", settings)
            self.kept[origin] = settings
        self.driver.get(url)

    def call(self, fn: str, *args: Any) -> Any:
        return self.driver.execute_script(f"return ({fn})(...arguments);", *args)

    def call_within(self, seconds: float, fn: str, *args: Any) -> Any:
        self.driver.set_script_timeout(seconds)
        try:
            return self.call(fn, *args)
        finally:
            self.driver.set_script_timeout(SCRIPT_TIMEOUT_S)

    def quit(self) -> None:
        try:
            self.driver.quit()
        finally:
            self.xvfb.terminate()
            self.xvfb.wait()
