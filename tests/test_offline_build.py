"""Offline, installable and precompressed: what the build writes and how ``serve`` sends it.

The fixture site (tests/fixtures/site) is built without the runtime; the
service worker is made from its files by the build's own function. The browser
side is in tests/test_offline.py.
"""

from __future__ import annotations

import email.utils
import gzip
import hashlib
import json
import re
import struct
import sys
import urllib.error
import urllib.request
from pathlib import Path

import brotli
import pytest

import build
from conftest import serving
from fixtures.demo_widget import ensure_registered

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "fixtures" / "site"
sys.path.insert(0, str(ROOT / "tools"))


@pytest.fixture(scope="module")
def fixture_site(tmp_path_factory):
    ensure_registered()
    out = tmp_path_factory.mktemp("offline_fixture")
    files = build.build(build.Config(content=FIXTURE / "content", output=out, runtime=False))
    return out, files


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_the_manifest_names_the_site_and_its_icons_relative_to_itself(fixture_site):
    out, files = fixture_site
    manifest = json.loads(files[build.MANIFEST])
    assert manifest["name"] == build.Config.site_name and manifest["short_name"]
    assert manifest["display"] == "standalone"
    assert manifest["start_url"] == "./index.html" and manifest["scope"] == "./"  # any subpath
    sizes = {}
    for icon in manifest["icons"]:
        assert not icon["src"].startswith(("/", "http")), icon
        data = files[icon["src"]]
        if icon["type"] == "image/png":
            w, h = png_size(data)
            assert icon["sizes"] == f"{w}x{h}"
            sizes[icon.get("purpose", "any")] = sizes.get(icon.get("purpose", "any"), set()) | {w}
    assert {192, 512} <= sizes["any"] and 512 in sizes["maskable"]  # what Chromium's install asks


def test_every_page_links_the_manifest_and_the_ios_icon_from_its_folder(fixture_site):
    out, files = fixture_site
    for page in ("index.html", "demo/dice.html", "search.html"):
        html = files[page].decode()
        root = "../" * page.count("/")
        assert f'<link rel="manifest" href="{root}manifest.webmanifest">' in html
        assert f'<link rel="apple-touch-icon" href="{root}static/apple-touch-icon.png">' in html
        assert '<meta name="apple-mobile-web-app-capable" content="yes">' in html
    assert png_size(files["static/apple-touch-icon.png"]) == (180, 180)


def test_the_committed_icons_are_what_the_script_draws():
    import make_icons
    for name, data in make_icons.icons().items():
        assert (ROOT / "site" / "static" / name).read_bytes() == data, f"run python tools/make_icons.py ({name})"
    corners = make_icons.draw(180, True)  # the iOS icon is full bleed: iOS blackens transparency
    assert corners == (ROOT / "site" / "static" / "apple-touch-icon.png").read_bytes()


def test_text_and_webassembly_files_have_gzip_and_brotli_copies(fixture_site):
    out, files = fixture_site
    texts = [p for p in files if p.endswith(build.PRECOMPRESSED) and not p.endswith((".gz", ".br"))]
    assert "index.html" in texts and "static/site.css" in texts and build.MANIFEST in texts
    for path in texts:
        data = files[path]
        if len(data) < 100:
            continue  # a tiny file may not shrink
        assert gzip.decompress((out / (path + ".gz")).read_bytes()) == data, path
        assert brotli.decompress((out / (path + ".br")).read_bytes()) == data, path
    assert not [p for p in files if p.endswith((".png.gz", ".png.br"))]


def test_the_snapshot_and_archives_are_not_compressed_again():
    snapshot = brotli.compress(b"\0" * 50_000)
    wasm = b"\0asm" + bytes(range(256)) * 400
    copies = build.precompressed({f"pyodide/{build.SNAPSHOT_NAME}": snapshot, "pyodide/python_stdlib.zip": b"PK" * 5000,
                                  "pyodide/x.whl": b"PK" * 5000, "pyodide/pyodide.asm.wasm": wasm})
    assert set(copies) == {"pyodide/pyodide.asm.wasm.gz", "pyodide/pyodide.asm.wasm.br"}
    assert brotli.decompress(copies["pyodide/pyodide.asm.wasm.br"]) == wasm
    assert build.precompressed({"a.js": b"x" * 5000}) == build.precompressed({"a.js": b"x" * 5000})  # no timestamp


def test_the_service_worker_lists_every_file_of_the_build_with_its_digest(fixture_site):
    out, files = fixture_site
    original = {p: d for p, d in files.items() if not p.endswith((".gz", ".br"))}
    sw = build.service_worker(build.Config(), original).decode()
    head = re.match(r'const BUILD = "([0-9a-f]{16})";\nconst FILES = (\{.*?\});\n', sw, re.S)
    listed = json.loads(head.group(2))
    assert set(listed) == set(original) - {build.HEADERS_FILE} and build.SERVICE_WORKER not in listed
    for path, digest in listed.items():
        assert digest == hashlib.sha256(original[path]).hexdigest()[:16]
    assert (ROOT / "site" / "service-worker.js").read_text() in sw
    # A change to any one file is a new build (and so a new cache, whole).
    changed = dict(original, **{"demo/dice.html": original["demo/dice.html"] + b" "})
    assert build.build_id(changed) != head.group(1) == build.build_id(original)


def get(url: str, encoding: str | None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers={"Accept-Encoding": encoding} if encoding is not None else {})
    with urllib.request.urlopen(request) as response:
        return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()


@pytest.mark.parametrize("accept, coding", [
    ("gzip, deflate, br, zstd", "br"), ("gzip", "gzip"), ("br;q=0, gzip;q=0.5", "gzip"),
    ("identity", None), (None, None), ("gzip;q=0", None)])
def test_serve_sends_the_precompressed_copy_the_request_accepts(fixture_site, accept, coding):
    out, files = fixture_site
    with serving(out) as url:
        for path, file in (("demo/dice.html", "demo/dice.html"), ("static/site.css", "static/site.css"),
                           ("", "index.html"), ("?x=1", "index.html")):
            status, headers, body = get(url + path, accept)
            assert status == 200
            assert headers.get("content-encoding") == coding, (path, accept)
            assert headers["vary"] == "Accept-Encoding"
            assert headers["content-type"] == build.MIME_TYPES["." + file.rsplit(".", 1)[1]]
            plain = {"br": brotli.decompress, "gzip": gzip.decompress, None: bytes}[coding](body)
            assert plain == files[file]
            assert int(headers["content-length"]) == len(body)


def test_serve_answers_a_revalidation_of_a_precompressed_copy_with_304(fixture_site):
    """As for a plain file: a browser's cached copy (Cache-Control: no-cache) is not sent again."""
    out, _ = fixture_site
    with serving(out) as url:
        status, headers, _ = get(url + "static/site.css", "gzip, br")
        assert status == 200 and headers["content-encoding"] == "br"
        request = urllib.request.Request(url + "static/site.css", headers={
            "Accept-Encoding": "gzip, br", "If-Modified-Since": headers["last-modified"]})
        with pytest.raises(urllib.error.HTTPError) as answer:  # urllib treats a 304 as an error
            urllib.request.urlopen(request)
        assert answer.value.code == 304 and answer.value.headers["Vary"] == "Accept-Encoding"
        assert answer.value.read() == b""
        older = email.utils.formatdate(0, usegmt=True)
        request = urllib.request.Request(url + "static/site.css", headers={
            "Accept-Encoding": "gzip, br", "If-Modified-Since": older})
        with urllib.request.urlopen(request) as response:
            assert response.status == 200 and response.headers["Content-Encoding"] == "br"


def test_serve_sends_the_compressed_snapshot_as_it_is(tmp_path):
    snapshot = brotli.compress(b"snapshot" * 1000)
    wasm = b"\0asm" + bytes(range(256)) * 400
    build.write(tmp_path, {f"pyodide/{build.SNAPSHOT_NAME}": snapshot, "pyodide/pyodide.asm.wasm": wasm,
                           **build.precompressed({"pyodide/pyodide.asm.wasm": wasm})})
    with serving(tmp_path) as url:
        status, headers, body = get(url + f"pyodide/{build.SNAPSHOT_NAME}", "gzip, br")
        assert "content-encoding" not in headers and body == snapshot  # the worker inflates it itself
        assert headers["content-type"] == "application/octet-stream"
        status, headers, body = get(url + "pyodide/pyodide.asm.wasm", "gzip, br")
        assert headers["content-encoding"] == "br" and headers["content-type"] == "application/wasm"
        assert brotli.decompress(body) == wasm


def test_serve_never_sends_a_copy_older_than_its_file(tmp_path):
    build.write(tmp_path, {"a.js": b"old();" * 100, **build.precompressed({"a.js": b"old();" * 100})})
    import os
    import time
    time.sleep(0.01)
    (tmp_path / "a.js").write_bytes(b"new();" * 100)  # changed after the build, as tests and editors do
    os.utime(tmp_path / "a.js", (time.time() + 5, time.time() + 5))
    with serving(tmp_path) as url:
        status, headers, body = get(url + "a.js", "gzip, br")
        assert "content-encoding" not in headers and body == b"new();" * 100


# Embed pages -------------------------------------------------------------------

def test_every_widget_has_an_embed_page_with_the_widget_and_a_link_back(fixture_site):
    out, files = fixture_site
    for page, instance in (("demo/dice.html", "dice"), ("demo/more.html", "again")):
        path = f"embed/{page.removesuffix('.html')}/{instance}.html"
        embed = files[path].decode()
        section = files[page].decode()
        start = section.index(f'<section class="widget" id="{instance}"')
        widget = section[start:section.index("</section>", start) + len("</section>")]
        # the very widget of the page, pre-rendered result and all (its links to parts of the page relative to
        # each page's own folder)
        same = lambda html: re.sub(r'href="(?:\.\./)*parts/', 'href="parts/', html)  # noqa: E731
        assert same(widget) in same(embed)
        assert embed.count('<section class="widget"') == 1
        assert f'<a href="../../../{page}#{instance}" target="_blank" rel="noopener" data-embed-source>' in embed
        assert 'data-embed="1"' in embed and '<meta name="robots" content="noindex">' in embed
        meta = re.search(r'<meta http-equiv="Content-Security-Policy"[^>]*>', section).group(0)
        assert meta in embed and "script-src &#39;self&#39;" in meta  # the site's policy, as every page has it
        assert "site-header" not in embed and "site-footer" not in embed  # just the widget
        assert 'data-action="copy-embed"' in embed and 'data-action="copy-embed"' in section
    assert sorted(p for p in files if p.startswith("embed/") and p.endswith(".html")) == [
        "embed/demo/dice/dice.html", "embed/demo/more/again.html"]


def test_serve_lets_any_site_frame_embed_pages_and_only_the_site_its_other_pages(fixture_site):
    out, _ = fixture_site
    with serving(out) as url:
        _, headers, _ = get(url + "embed/demo/dice/dice.html?dice.count=2", None)
        assert headers["content-security-policy"] == build.CONTENT_SECURITY_POLICY + "; frame-ancestors *"
        _, headers, _ = get(url + "demo/dice.html", None)
        assert headers["content-security-policy"] == build.CONTENT_SECURITY_POLICY + "; frame-ancestors 'self'"
    assert "frame-ancestors" not in build.CONTENT_SECURITY_POLICY  # the meta tag's would be ignored (and warned of)


def test_serve_can_be_an_uncompressing_host(fixture_site):
    out, files = fixture_site

    class Plain(build.SiteHandler):
        precompressed = False

        def log_message(self, format: str, *args: object) -> None:
            pass

    import threading
    from functools import partial
    from http.server import ThreadingHTTPServer
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Plain, directory=str(out)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        _, headers, body = get(f"http://127.0.0.1:{server.server_address[1]}/demo/dice.html", "gzip, br")
    finally:
        server.shutdown()
        server.server_close()
    assert "content-encoding" not in headers and body == files["demo/dice.html"]


def header_rules(text: str) -> dict[str, dict[str, str]]:
    """A ``_headers`` file read as Netlify and Cloudflare Pages read it: pattern -> headers."""
    rules: dict[str, dict[str, str]] = {}
    pattern = None
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("/"):
            pattern = line.strip()
            assert pattern not in rules, f"{pattern} twice"
            rules[pattern] = {}
        else:
            name, _, value = line.strip().partition(": ")
            rules[pattern][name.lower()] = value
    return rules


def matching(rules: dict[str, dict[str, str]], url_path: str) -> list[str]:
    return [p for p in rules if (url_path.startswith(p[:-1]) if p.endswith("/*") else url_path == p)]


def test_static_hosts_get_the_headers_serve_sends_one_rule_per_file(fixture_site):
    """Hosts join the values of a header two matching rules set: one rule must match each file, and give
    exactly the policy and type guard that ``serve`` sends for it (embed pages framable, the rest not)."""
    out, files = fixture_site
    rules = header_rules(files[build.HEADERS_FILE].decode())
    assert (out / build.HEADERS_FILE).read_bytes() == files[build.HEADERS_FILE]
    served = [p for p in files if not p.endswith((".gz", ".br")) and p != build.HEADERS_FILE]
    assert any(p.startswith("embed/") for p in served) and any(p.startswith("static/") for p in served)
    with serving(out) as url:
        for path in served + [""]:
            found = matching(rules, "/" + path)
            assert len(found) == 1, (path, found)
            _, headers, _ = get(url + path, None)
            for name in ("content-security-policy", "x-content-type-options"):
                assert rules[found[0]][name] == headers[name], (path, name)
    sw = build.service_worker(build.Config(), {p: d for p, d in files.items() if p in served or p == build.HEADERS_FILE})
    assert f'"{build.HEADERS_FILE}"' not in sw.decode()  # hosts read it and never serve it: offline install would fail
