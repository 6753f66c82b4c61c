"""A widget embedded in another site's page, in Chromium, Firefox and WebKit.

The Small General page's first widget is changed, its "Copy embed code" is
taken, and that code is put in a page served from another origin
(127.0.0.2, plain http.server, no policy of its own). The framed widget goes
live with the state of its link, shows the same result as the page did, tells
the host its size, and static/embed-host.js sizes the frame by it. The embed
pages' HTML and headers are tests/test_offline_build.py's.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from test_browser import SG_PAGE, WIDGETS, wait_live
from test_browsers import BOOT_S, browsers, change_one_input, driver, drivers  # noqa: F401 (fixtures)
from test_offline import Tab

pytestmark = pytest.mark.browser

INSTANCE = next(inst for url, _, inst in WIDGETS if url == SG_PAGE)
RECORD = """window.embedMessages = [];
window.addEventListener("message", (e) => window.embedMessages.push({origin: e.origin, data: e.data}));
"""


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def copied(browser, site_url) -> tuple[str, str]:
    """(the embed code, the result's digest) of the page's first widget after an input change."""
    tab = Tab(browser, site_url.rstrip("/"))
    try:
        tab.go(site_url + SG_PAGE)
        change_one_input(tab, SG_PAGE)  # the page then shows CPython's result for a state of its link
        tab.wait("(i) => new URLSearchParams(location.search).toString().includes(i + '.')", INSTANCE, timeout=5)
        tab.call("(i) => document.querySelector('#' + i + ' [data-action=copy-embed]').click()", INSTANCE)
        code = tab.wait("(i) => document.getElementById(i).dataset.embedCode", INSTANCE, timeout=5)
        digest = tab.call("(i) => document.querySelector('#' + i + ' .widget-result').dataset.digest", INSTANCE)
        assert tab.errors() == []
    finally:
        tab.quit()
    return code, digest


@pytest.fixture(scope="module")
def host_url(copied, tmp_path_factory) -> Iterator[str]:
    code, _ = copied
    folder: Path = tmp_path_factory.mktemp("host")
    (folder / "record.js").write_text(RECORD)
    (folder / "index.html").write_text(
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>A teacher's page</title><link rel=icon href=\"data:,\">"
        "<script src=record.js></script></head>"
        f"<body><h1>Combat odds for the class</h1>\n{code}\n</body></html>")
    server = http.server.ThreadingHTTPServer(("127.0.0.2", 0), partial(Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.2:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()
        server.server_close()


def test_the_embed_code_frames_the_widget_in_the_state_it_was_copied_in(copied, site_url):
    code, _ = copied
    assert code.startswith(f'<iframe src="{site_url}embed/{SG_PAGE.removesuffix(".html")}/{INSTANCE}.html?')
    assert f"{INSTANCE}." in code.split('"')[1]  # the changed input, in the frame's link
    assert f'<script src="{site_url}static/embed-host.js" async></script>' in code


@browsers("chromium", "firefox", "webkit")
def test_the_widget_goes_live_in_a_frame_on_another_origin(driver, copied, host_url, site_url):
    _, digest = copied
    driver.open(host_url)
    said = driver.wait("""(d) => { const m = window.embedMessages.filter((m) => m.data.live && m.data.digest === d);
        return m.length && m[m.length - 1]; }""", digest, timeout=BOOT_S)
    assert said["origin"] == site_url.rstrip("/")
    assert said["data"]["instance"] == INSTANCE
    # embed-host.js sizes the frame to the widget, as the embed page measures itself.
    last = driver.wait("""() => { const m = window.embedMessages.at(-1).data.height;
        const f = document.querySelector('iframe[data-rules-explorer-embed]');
        return f.getAttribute('height') === String(m) && m; }""", timeout=10)
    assert last > 300
    assert driver.errors() == []


def test_an_embed_says_what_its_link_did_not_apply(guarded_page, site_url):
    """The notices a page gives about its link (a widget it does not have, a key given twice, settings after the
    "#") went to the page's article, which an embed page has none of: a hand-edited embed link whose widget name had
    a typo showed the example's state without a word."""
    page = guarded_page
    embed = f"embed/{SG_PAGE.removesuffix('.html')}/{INSTANCE}.html"
    page.goto(f"{site_url}{embed}?sg-comabt.terrain=forest&{INSTANCE}.hex_sides=2&{INSTANCE}.hex_sides=3"
              f"#{INSTANCE}.terrain=town")
    wait_live(page)
    notices = page.locator("main > .link-notice").all_text_contents()
    assert notices == [
        f"This link gives {INSTANCE}.hex_sides more than once; the last value given was applied.",
        f'Part of this link was not applied: "{INSTANCE}.terrain=town" comes after its "#", where the site reads no '
        'settings. A link copied from a widget puts them after "?".',
        "Part of this link was not applied: sg-comabt.terrain names no widget on this page. The rest of the link was "
        "applied.",
    ], notices
    assert page.input_value(f"#{INSTANCE}--hex_sides") == "3"
