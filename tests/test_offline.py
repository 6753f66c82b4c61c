"""The site offline (site/service-worker.js, site/static/offline.js), in a subpath.

One visit online; then, with the network off, one page per system goes live
from the cache, agrees with CPython before and after an input change, a
Monte Carlo run shares two workers (the extra one started offline), and an
in-site link works. A new build is noticed, offered, and replaces the old
cache whole. The build's side is tests/test_offline_build.py.

Other Playwright tests block the service worker (conftest.py
``browser_context_args``): they route or spoil files on purpose, and a cache
would answer in their place.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import brotli
import pytest
from browsers import Chromium
from conftest import PageGuard, estimate_html, serving
from test_browser import PAGES, SG_PAGE, WIDGETS
from test_browsers import (BOOT_S, _replace, _symlinked_copy, base_inputs, browsers, change_one_input, driver,  # noqa: F401
                           drivers, open_live, shows, widgets_match_cpython)
from test_simulation import INSTANCE, PAGE as SIM_PAGE, SET_TRIALS, SIM, expected

import build
from engine import widgets

pytestmark = pytest.mark.browser

SUBPATH = "games/rules/"
LIVE = "() => document.documentElement.dataset.widgetsLive === location.pathname"
OFFLINE = "() => document.documentElement.dataset.offline"
BATTLE_PAGE, BATTLE = "atg/end-of-battle.html", "atg-airfield-battle"
BATTLE_SIM = f"#{BATTLE} .widget-sim"
BATTLE_TRIALS = 30
SETTLED = """() => !document.querySelector('[data-state=running]')
    && (window.rulesExplorer.pool?.helpers ?? []).every((h) => h.state !== 'loading')"""


def one_page_per_system() -> list[str]:
    pages: dict[str, str] = {}
    for url in PAGES:
        if any(w[0] == url for w in WIDGETS):
            pages.setdefault(url.split("/")[0], url)
    return list(pages.values())


@pytest.fixture(scope="module")
def offline_site(built_site, tmp_path_factory) -> Iterator[tuple[Path, str]]:
    """The built site in a subpath of its server (links, scope and the manifest must all be relative)."""
    top = tmp_path_factory.mktemp("offline")
    copy = _symlinked_copy(built_site, top / SUBPATH)
    with serving(top) as url:
        yield copy, url + SUBPATH


class Tab(Chromium):
    """The test_browsers driver over one page of a context that keeps its service worker."""

    def __init__(self, browser, origin: str) -> None:
        super().__init__(browser)
        self.context = browser.new_context(service_workers="allow")
        self.page = self.context.new_page()
        self.guard = PageGuard(self.page, origin)
        self.page.set_default_timeout(BOOT_S * 1000)
        self.failed: list[str] = []

    def go(self, url: str) -> None:
        self.page.goto(url)
        self.wait(LIVE, timeout=BOOT_S)

    def request_failed(self, request) -> None:
        # A fetch the page itself gave up (the pager's neighbours, read ahead when idle, and then
        # the test went on to the next page) is aborted, not missed by the cache: not counted.
        if request.failure != "net::ERR_ABORTED":
            self.failed.append(f"{request.url} ({request.failure})")

    def errors(self) -> list[str]:
        return (self.guard.errors + [f"left the site: {u}" for u in self.guard.foreign]
                + [f"failed: {u}" for u in self.failed])


@pytest.fixture
def tab(browser, offline_site) -> Iterator[Tab]:
    _, url = offline_site
    tab = Tab(browser, url.split("/" + SUBPATH)[0])
    try:
        yield tab
    finally:
        tab.quit()


def test_after_one_visit_every_system_works_offline(tab, offline_site):
    _, site = offline_site
    first = one_page_per_system()
    tab.go(site + first[0])
    tab.wait("() => document.documentElement.dataset.offline === 'ready'", timeout=120)
    assert tab.call("() => document.querySelector('.offline-status').textContent").startswith("Available offline")
    assert tab.call("() => Boolean(navigator.serviceWorker.controller)")  # claimed at once: no reload needed

    tab.context.set_offline(True)
    assert tab.call("() => fetch('../build.json').then((r) => r.json()).then((b) => b.engine)")  # from the cache
    tab.page.on("requestfailed", tab.request_failed)
    for url in first:
        tab.go(site + url)
        booted = tab.call("() => document.documentElement.dataset.boot")
        assert booted == "snapshot", (url, booted)  # the runtime and snapshot came from the cache, whole
        widgets_match_cpython(tab, url)
        change_one_input(tab, url)
        assert tab.call(OFFLINE) == "ready"

    # An in-site link (the pager's next page), offline.
    tab.call("() => document.querySelector('a[rel=next]').click()")
    tab.wait("(p) => document.documentElement.dataset.widgetsLive && location.pathname !== p", "/" + first[-1],
             timeout=BOOT_S)
    assert tab.call("() => window.rulesExplorer.engine.state") == "live"

    # Monte Carlo on two extra workers (and the page's own, while the reader is quiet): both boot offline
    # from the same cache.
    tab.go(site + SIM_PAGE)
    tab.call("() => { const p = window.rulesExplorer.pool; p.size = 3; p.fixed = true; p.spawnAfterMs = 0; }")
    tab.call(SET_TRIALS, SIM, "100")
    tab.wait("() => window.rulesExplorer.pool.helpers?.every((h) => h.state === 'live')", timeout=BOOT_S)
    tab.call(SET_TRIALS, SIM, "1200")
    tab.wait("(s) => document.querySelector(s).dataset.state === 'done'", SIM, timeout=120)
    shows(tab, f"{SIM} .sim-result", expected(tab, 1, 1200), "the estimate merged from two workers, offline")
    assert tab.call("(s) => document.querySelector(s).dataset.workers", SIM) in ("2", "3")  # shared
    assert tab.errors() == []


def rebuild(copy: Path, page: str, marker: str) -> str:
    """A new build in place: one page changed and the service worker the build makes for it."""
    _replace(copy / page, (copy / page).read_text(encoding="utf-8").replace("</main>", f"<p>{marker}</p></main>"))
    files = {p.relative_to(copy).as_posix(): p.read_bytes() for p in sorted(copy.rglob("*"))
             if p.is_file() and not p.name.endswith((".gz", ".br")) or p.name == build.SNAPSHOT_NAME}
    files.pop(build.SERVICE_WORKER)
    _replace(copy / build.SERVICE_WORKER, build.service_worker(build.Config(), files))
    return build.build_id(files)


def test_a_new_build_is_offered_and_replaces_the_old_cache_whole(tab, offline_site):
    copy, site = offline_site
    tab.go(site + SG_PAGE)
    tab.wait("() => document.documentElement.dataset.offline === 'ready'", timeout=120)
    tab.wait("(u, d) => (" + KEPT_FROM_JS + ")(u).then((m) => m === d)", site + SNAPSHOT, brotli_digest(copy),
             timeout=BOOT_S)
    old = [name for name in tab.call("() => caches.keys()") if name != KEPT_CACHE]
    assert len(old) == 1 and old[0].startswith("rules-explorer-")

    new_id = rebuild(copy, SG_PAGE, "A sentence of the new build.")
    tab.go(site + SG_PAGE)
    tab.wait("() => document.documentElement.dataset.offline === 'update'", timeout=120)
    # Until the reader takes it, the page and its engine are the old build's, whole.
    assert "A sentence of the new build." not in tab.page.content()
    assert tab.call("() => document.querySelector('.offline-status').textContent").startswith(
        "A new version of the site is available.")
    with tab.page.expect_navigation():
        tab.call("() => document.querySelector('.offline-status button').click()")
    tab.wait(LIVE, timeout=BOOT_S)
    assert "A sentence of the new build." in tab.page.content()
    # The old build's cache is gone; beside the new one, only the inflated snapshot kept from the brotli
    # file, which this build ships unchanged (a kept copy of another file would have been deleted).
    assert sorted(tab.call("() => caches.keys()")) == sorted([f"rules-explorer-{new_id}", KEPT_CACHE])
    assert tab.call(KEPT_FROM_JS, site + SNAPSHOT) == brotli_digest(copy)

    tab.context.set_offline(True)
    tab.go(site + SG_PAGE)
    assert "A sentence of the new build." in tab.page.content()
    widgets_match_cpython(tab, SG_PAGE)
    assert tab.errors() == []


def test_a_file_the_host_changed_after_the_build_is_never_saved(browser, built_site, tmp_path):
    """A host that serves another file than the build listed (changed after the build, or an upload half
    done): the service worker's digest check fails that download, and no part of the build is saved for offline
    use; the page says so and still works online."""
    top = tmp_path / "tampered"
    copy = _symlinked_copy(built_site, top / SUBPATH)
    other = copy / "europa" / "heavy-armour.html"  # a page the visit does not open
    _replace(other, other.read_bytes() + b"\n<!-- changed on the host -->\n")
    for suffix in (".br", ".gz"):
        (other.parent / (other.name + suffix)).unlink(missing_ok=True)
    with serving(top) as url:
        tab = Tab(browser, url.rstrip("/"))
        try:
            tab.go(url + SUBPATH + SG_PAGE)
            tab.wait("() => document.documentElement.dataset.offline === 'failed'", timeout=120)
            assert [name for name in tab.call("() => caches.keys()") if name.startswith("rules-explorer-")] == []
            widgets_match_cpython(tab, SG_PAGE)
            assert tab.errors() == []
        finally:
            tab.quit()


KEPT_CACHE = "rules-explorer:inflated"  # site/static/snapshot.js, site/service-worker.js
SNAPSHOT = "pyodide/" + build.SNAPSHOT_NAME
KEPT_FROM_JS = """async (url) => {
    const copy = await caches.match(url, { cacheName: 'rules-explorer:inflated' });
    return copy ? copy.headers.get('X-Inflated-From') : null;
}"""
KEPT_LENGTH_JS = """async (url) => {
    const copy = await caches.match(url, { cacheName: 'rules-explorer:inflated' });
    return copy ? (await copy.arrayBuffer()).byteLength : 0;
}"""
STAGES = "() => window.rulesExplorer.engine.bootStages"


def brotli_digest(site: Path) -> str:
    return hashlib.sha256((site / SNAPSHOT).read_bytes()).hexdigest()


def visit(driver, site: str, url: str) -> dict:
    """Go to ``url`` from the page open (a repeat visit: same browser, same storage); its boot's stages."""
    driver.call("(u) => { location.href = u; }", site + url)
    path = "/" + SUBPATH + url
    for tries in range(3, 0, -1):
        try:
            driver.wait("(p) => location.pathname === p && document.documentElement?.dataset.widgetsLive === p", path,
                        timeout=BOOT_S)
            break
        except TimeoutError:
            raise
        except Exception:  # noqa: BLE001 (Chromium: asked while the page was being left)
            if tries == 1:
                raise
            time.sleep(0.5)
    assert driver.call("() => document.documentElement.dataset.boot") == "snapshot", (driver.name, url)
    return driver.call(STAGES)


@pytest.fixture
def saving(driver) -> Iterator[None]:
    """The driver's pages register the offline service worker, as a reader's do (the tests' pages do not:
    browsers.OFFLINE_OFF); the worker's warm-up rounds stay off."""
    with driver.as_readers(warm_up=False):
        yield


@browsers("chromium", "firefox", "webkit")
def test_repeat_and_offline_visits_boot_from_the_kept_inflated_snapshot(driver, saving, built_site, tmp_path):
    """The first visit inflates the brotli file and keeps the inflated bytes; a repeat visit, online and
    then with the server gone, boots from that copy, which the service worker serves: the brotli decoder
    is neither loaded nor run (issue 23: it cost 0.5-2.5 s a boot)."""
    copy = _symlinked_copy(built_site, tmp_path / SUBPATH)
    pages = one_page_per_system()
    digest = brotli_digest(copy)
    server = serving(tmp_path)
    site = server.__enter__() + SUBPATH
    try:
        open_live(driver, site + pages[0])
        stages = driver.call(STAGES)
        assert "brotli_decoder" in stages and "snapshot_kept" not in stages, (driver.name, stages)
        driver.wait("() => document.documentElement.dataset.offline === 'ready'", timeout=120)
        driver.wait("(u, d) => (" + KEPT_FROM_JS + ")(u).then((m) => m === d)", site + SNAPSHOT, digest,
                    timeout=BOOT_S)
        sparse = brotli.decompress((copy / SNAPSHOT).read_bytes())
        assert driver.call(KEPT_LENGTH_JS, site + SNAPSHOT) == len(sparse)

        stages = visit(driver, site, pages[1])
        assert "snapshot_kept" in stages and "brotli_decoder" not in stages, (driver.name, "repeat", stages)
        widgets_match_cpython(driver, pages[1])
    finally:
        server.__exit__(None, None, None)
    stages = visit(driver, site, pages[0])
    assert "snapshot_kept" in stages and "brotli_decoder" not in stages, (driver.name, "offline", stages)
    widgets_match_cpython(driver, pages[0])
    change_one_input(driver, pages[0])
    assert driver.errors() == [], driver.name


SPOIL_JS = """async (url, how) => {
    const cache = await caches.open('rules-explorer:inflated');
    const copy = await cache.match(url);
    const mark = copy.headers.get('X-Inflated-From');
    let bytes = new Uint8Array(await copy.arrayBuffer());
    if (how === 'cut') bytes = bytes.slice(0, bytes.length >> 1);
    else if (how === 'garbage') bytes = new TextEncoder().encode('garbage');
    else {  // a checksum of a page the runtime holds: the restore refuses it
        const view = new DataView(bytes.buffer);
        const at = 28 + 4 * (view.getUint32(20, true) + view.getUint32(24, true));
        view.setUint32(at, view.getUint32(at, true) ^ 1, true);
    }
    await cache.put(url, new Response(bytes, { headers: { 'X-Inflated-From': mark } }));
}"""


@pytest.mark.parametrize("spoil", ["cut", "garbage", "refused"])
def test_a_spoilt_kept_snapshot_is_dropped_and_inflated_again(tab, offline_site, spoil):
    """A kept copy the boot cannot read (cut, or not a snapshot at all) is dropped and the brotli file
    asked for again, in the same boot; one the restore refuses makes that boot plain, as any refused
    snapshot does, and is dropped: the next boot inflates the brotli file and keeps it again."""
    copy, site = offline_site
    digest = brotli_digest(copy)
    kept = "(u, d) => (" + KEPT_FROM_JS + ")(u).then((m) => m === d)"
    tab.go(site + SG_PAGE)
    tab.wait("() => document.documentElement.dataset.offline === 'ready'", timeout=120)
    tab.wait(kept, site + SNAPSHOT, digest, timeout=BOOT_S)
    tab.call(SPOIL_JS, site + SNAPSHOT, spoil)

    tab.go(site + SG_PAGE)
    stages = tab.call(STAGES)
    if spoil == "refused":
        assert tab.call("() => document.documentElement.dataset.boot") == "plain"
        assert "the snapshot does not fit this runtime" in tab.call(
            "() => document.querySelector('.engine-status').textContent")
        assert "snapshot_kept" in stages, stages
        tab.wait("(u) => (" + KEPT_FROM_JS + ")(u).then((m) => m === null)", site + SNAPSHOT, timeout=BOOT_S)
        tab.go(site + SG_PAGE)
        stages = tab.call(STAGES)
    else:
        assert {"snapshot_kept_refused", "brotli_decoder"} <= set(stages) and "snapshot_kept" not in stages, stages
    assert tab.call("() => document.documentElement.dataset.boot") == "snapshot"
    assert "brotli_decoder" in stages, stages
    widgets_match_cpython(tab, SG_PAGE)
    tab.wait(kept, site + SNAPSHOT, digest, timeout=BOOT_S)  # kept again, whole
    assert tab.call(KEPT_LENGTH_JS, site + SNAPSHOT) == len(brotli.decompress((copy / SNAPSHOT).read_bytes()))
    assert tab.errors() == []


def test_chromium_can_install_the_site(browser_type, browser_type_launch_args, offline_site, tmp_path):
    """In a profile of its own (a test context is incognito, where Chromium installs nothing)."""
    _, site = offline_site
    context = browser_type.launch_persistent_context(tmp_path / "profile", **browser_type_launch_args)
    try:
        page = context.new_page()
        page.goto(site + SG_PAGE)
        page.wait_for_selector("html[data-offline=ready]", state="attached", timeout=120_000)
        cdp = context.new_cdp_session(page)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["url"] == site + build.MANIFEST and manifest["errors"] == [], manifest["errors"]
        assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    finally:
        context.close()


@browsers("firefox", "webkit")
def test_with_the_server_gone_a_visited_site_still_works(driver, saving, built_site, tmp_path):
    """Firefox's and WebKit's drivers have no offline switch: the server stops instead (a phone with no signal).
    Offline, a battle's Monte Carlo run and an in-site link work too; with the server back, a new build is offered
    and its button gives the new build whole (test_a_new_build_is_offered_and_replaces_the_old_cache_whole is
    Chromium's)."""
    copy = _symlinked_copy(built_site, tmp_path / SUBPATH)
    server = serving(tmp_path)
    origin = server.__enter__()
    site = origin + SUBPATH
    try:
        open_live(driver, site + SG_PAGE)
        driver.wait("() => document.documentElement.dataset.offline === 'ready'", timeout=120)
    finally:
        server.__exit__(None, None, None)
    assert copy.exists()
    pages = one_page_per_system()[:2]
    assert pages[0] == BATTLE_PAGE
    for url in pages:
        driver.call("(u) => { location.href = u; }", site + url)
        path = "/" + SUBPATH + url
        driver.wait("(p) => location.pathname === p && document.documentElement?.dataset.widgetsLive === p", path,
                    timeout=BOOT_S)
        widgets_match_cpython(driver, url)
        if url == BATTLE_PAGE:  # a short run, on the reader's pool
            driver.call(SET_TRIALS, BATTLE_SIM, str(BATTLE_TRIALS))
            driver.wait_run_done(BATTLE_SIM, timeout=120, trials=BATTLE_TRIALS)
            w = widgets.get("atg.battle")
            shows(driver, f"{BATTLE_SIM} .sim-result",
                  estimate_html(w.id, w.validate(base_inputs(driver, BATTLE)), 1, BATTLE_TRIALS), "a run offline")
        change_one_input(driver, url)
        # Leaving a page while one of its workers is still starting makes Firefox log the cancelled loads
        # of the page being left (its service worker's answers included); a reader sees none of it, and
        # this test is about the next page working offline: it leaves once the page's runs have ended.
        driver.wait(SETTLED, timeout=BOOT_S)
    # An in-site link (the pager's next page), offline.
    driver.call("() => document.querySelector('a[rel=next]').click()")
    driver.wait("(p) => document.documentElement.dataset.widgetsLive && location.pathname !== p",
                "/" + SUBPATH + pages[-1], timeout=BOOT_S)
    assert driver.call("() => window.rulesExplorer.engine.state") == "live"
    driver.wait(SETTLED, timeout=BOOT_S)

    # The server back at the same address with a new build: the browser's check (as on a visit) finds it, the
    # page offers it and stays the old build's until the reader takes it.
    rebuild(copy, SG_PAGE, "A sentence of the new build.")
    with serving(tmp_path, port=urlsplit(origin).port):
        driver.call("() => navigator.serviceWorker.getRegistration().then((r) => r.update()).then(() => true)")
        said = driver.wait("() => document.documentElement.dataset.offline === 'update' && "
                           "document.querySelector('.offline-status').textContent", timeout=120)
        assert said == "A new version of the site is available. Reload to update", said
        # Each page is left only once its loads have settled: Firefox logs the loads a page being left cancels, its
        # service worker's answers among them ("A ServiceWorker intercepted the request and encountered an
        # unexpected error", seen once in a whole run), which no reader sees (as in the loop above).
        driver.wait(SETTLED, timeout=BOOT_S)
        driver.call("() => { window.oldBuildsPage = true; document.querySelector('.offline-status button').click(); }")
        time.sleep(1.5)  # the reload's (a call across it goes unanswered in Firefox until its bound)
        driver.wait("() => !window.oldBuildsPage && document.documentElement.dataset.widgetsLive === location.pathname",
                    timeout=BOOT_S)
        driver.wait(SETTLED, timeout=BOOT_S)
        driver.call("(u) => { location.href = u; }", site + SG_PAGE)
        driver.wait("(p) => location.pathname === p && document.documentElement?.dataset.widgetsLive === p && "
                    "document.documentElement.dataset.offline === 'ready'", "/" + SUBPATH + SG_PAGE, timeout=BOOT_S)
        assert "A sentence of the new build." in driver.call("() => document.body.textContent")
        widgets_match_cpython(driver, SG_PAGE)
    assert driver.errors() == []


def test_chromium_gets_the_precompressed_files_and_the_snapshot_as_it_is(guarded_page, site_url, built_site):
    """build.py serve as a compressing static host: brotli where accepted; the snapshot never re-encoded."""
    response = guarded_page.goto(site_url + SG_PAGE)
    assert response.header_value("content-encoding") == "br" and response.header_value("vary") == "Accept-Encoding"
    got = guarded_page.evaluate("""async () => {
        const wasm = await fetch('../pyodide/pyodide.asm.wasm');
        const head = [wasm.headers.get('content-encoding'), wasm.headers.get('content-type')];
        const compiled = await WebAssembly.compileStreaming(wasm).then(() => true);
        const snap = await fetch('../pyodide/snapshot.bin.br');
        const bytes = new Uint8Array(await snap.arrayBuffer());
        return {head, compiled, snapshot: [snap.headers.get('content-encoding'), bytes[0], bytes[1], bytes.length]};
    }""")
    assert got["head"] == ["br", "application/wasm"] and got["compiled"]
    shipped = (built_site / "pyodide" / "snapshot.bin.br").read_bytes()  # brotli, inflated by the worker itself
    assert got["snapshot"] == [None, shipped[0], shipped[1], len(shipped)]
    guarded_page.wait_for_selector(f"html[data-widgets-live='/{SG_PAGE}']", state="attached")
