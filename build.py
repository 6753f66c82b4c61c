#!/usr/bin/env python3
"""Build the rules explorer into a static site, or serve it.

    python build.py                 # build into _site/
    python build.py serve           # build, then serve on http://127.0.0.1:8000
    python build.py --no-runtime    # pages only (no Pyodide runtime or wheel)

The build reads like a recipe: load the config, collect every page, render
Markdown (placing widgets and exhibits with the same engine that runs in the
browser), render templates, gather the static files and the Python runtime,
and only then write everything out.
"""

from __future__ import annotations

import argparse
import datetime
import email.utils
import gzip
import hashlib
import http.server
from html import escape
from html.parser import HTMLParser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as etree
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

import jinja2
import markdown
from markdown.blockprocessors import BlockProcessor
from markdown.extensions import Extension
from markdown.extensions.toc import TocExtension
from markdown.treeprocessors import Treeprocessor

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from engine import __version__ as ENGINE_VERSION  # noqa: E402
from engine import exhibits, luck, precision, scenarios, schema, sensitivity, widgets  # noqa: E402
from engine.settings import sections as settings_sections  # noqa: E402
from engine.api import html_digest  # noqa: E402

PYODIDE_VERSION = "314.0.7"
"""The pinned Pyodide release (npm package ``pyodide``; runs Python 3.14.2)."""
PYODIDE_INTEGRITY = ("sha512-0YvXxEhfEdpLfb/XkM2BFAeMROq0iMUX2bzzH9pOttyMcWkwq+HbE5uyuGD82LN7y2q+"
                     "SNvi/6V5JEsOlD2R1A==")
"""The npm registry's integrity for that release; ``npm ci`` checks the tarball against the lock file, we check the lock file against this."""
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")
"""The only runtime files a page needs to boot (plus the lock file we write)."""
WHEEL_NAME = f"wargame_engine-{ENGINE_VERSION}-py3-none-any.whl"
DEFAULT_SEED = 1
"""Seed of the pre-rendered sample roll."""
COMPACT_LINK_OVER = 600
PART_OVER = 4_000
"""A widget's keyed form element whose HTML is longer than this many characters (a unit table, a
settings group) is left out of the page: a placeholder opens it, from its own file (`part_path`),
so that the first paint of every page stays under `PAGE_BUDGET`."""
PAGE_BUDGET = 150_000
"""Bytes of HTML a page (or an embed page) may weigh at first paint (issue 23, "Phone-sized")."""
"""A link query longer than this is written as the engine's compact state (links.js COMPACT_OVER)."""

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'"
)
"""Only the site itself, plus compiling WebAssembly for Pyodide. Sent as a header by
``serve`` (a worker takes its policy from its own response) and repeated in each
page's meta tag for hosts that cannot set headers."""
FRAME_ANCESTORS = {"embed/": "frame-ancestors *"}
"""``frame-ancestors`` by path: embed pages may be framed by any site, the rest only by the
site itself. Only a header can say it (a meta tag's is ignored), so ``serve`` adds it; a host
that sends no headers lets any site frame any page."""

HEADERS_FILE = "_headers"
"""The headers ``serve`` sends, for static hosts that read such a file (Netlify, Cloudflare Pages)."""


def frame_ancestors(path: str) -> str:
    """The ``frame-ancestors`` rule for a file of the site (its path relative to the site's root).

    >>> frame_ancestors("embed/ocs/combat/crt.html"), frame_ancestors("ocs/combat.html")
    ('frame-ancestors *', "frame-ancestors 'self'")
    """
    return next((rule for prefix, rule in FRAME_ANCESTORS.items() if path.startswith(prefix)),
                "frame-ancestors 'self'")


def static_host_headers(files: Iterable[str]) -> bytes:
    """``_headers``: for each of the site's top-level files and folders, the headers ``serve`` sends.

    One rule per top-level name and none for ``/*``: hosts join the values of a header that
    several matching rules set, and two policies joined are both enforced (the stricter
    ``frame-ancestors`` would then refuse every embed).

    >>> [line for line in static_host_headers(["index.html", "embed/a.html", "embed/b/c.html"]).decode().splitlines()
    ...  if not line.startswith(("#", "  X"))]  # doctest: +ELLIPSIS
    ['/embed/*', "  Content-Security-Policy: default-src 'self'; ...; frame-ancestors *", '/index.html', \
"  Content-Security-Policy: ...; frame-ancestors 'self'", '/', "  Content-Security-Policy: ...; frame-ancestors 'self'"]
    """
    tops = sorted({path.split("/", 1)[0] + ("/*" if "/" in path else "") for path in files})
    lines = ["# What `build.py serve` sends, for static hosts that read this file (Netlify, Cloudflare Pages).",
             "# One rule per top-level name, none for /*: a host joins a header two matching rules set."]
    for top in tops:
        for pattern in (["/" + top, "/"] if top == "index.html" else ["/" + top]):
            policy = f"{CONTENT_SECURITY_POLICY}; {frame_ancestors(top.removesuffix('*'))}"
            lines += [pattern, f"  Content-Security-Policy: {policy}", "  X-Content-Type-Options: nosniff"]
    return ("\n".join(lines) + "\n").encode()


MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".whl": "application/zip",
    ".gz": "application/octet-stream",
    ".br": "application/octet-stream",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".webmanifest": "application/manifest+json",
    ".txt": "text/plain; charset=utf-8",
}

PRECOMPRESSED = (".html", ".css", ".js", ".mjs", ".json", ".svg", ".txt", ".webmanifest", ".wasm")
"""Files the build writes gzip (``.gz``) and brotli (``.br``) copies of, for hosts that serve them.
Not the snapshot: it is brotli-compressed already, and the worker inflates it itself (NOTES.md: a
Content-Encoding for it was measured slower). Not the zip and wheel: compressed already."""
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))
"""Content codings ``serve`` offers, best first (brotli only where the ``brotli`` package is installed)."""
SERVICE_WORKER = "sw.js"
"""The offline service worker, at the root so that its scope is the whole site (in any subpath)."""
MANIFEST = "manifest.webmanifest"


class BuildError(Exception):
    """A problem in the site's sources, reported with its file."""


# Configuration ------------------------------------------------------------

@dataclass(frozen=True)
class Config:
    """Where the sources are and where the site goes."""

    content: Path = ROOT / "site" / "content"
    """Markdown pages: ``<system>/NN-slug.md`` and an optional ``index.md``."""
    static: Path = ROOT / "site" / "static"
    """CSS and JavaScript copied as they are."""
    templates: Path = ROOT / "templates"
    output: Path = ROOT / "_site"
    runtime: bool = True
    """Include Pyodide and the engine wheel (off for quick fixture builds)."""
    node_modules: Path = ROOT / "node_modules"
    pyodide_cli: str = os.environ.get("PYODIDE_CLI", str(ROOT / ".venv-pyodide" / "bin" / "pyodide"))
    site_name: str = "Wargame Combat Rules Explorer"


# Pages --------------------------------------------------------------------

@dataclass
class Page:
    """One Markdown source and everything rendered from it."""

    source: Path
    system_slug: str
    slug: str
    meta: dict[str, str]
    text: str
    html: str = ""
    toc: list[dict[str, Any]] = field(default_factory=list)
    widgets: list[dict[str, Any]] = field(default_factory=list)
    sweeps: list[dict[str, Any]] = field(default_factory=list)
    """The teaching charts (::: sweep) as built: widget, caption, inputs, vary, figures (tests read them)."""

    @property
    def url(self) -> str:
        """Path of the page relative to the site root."""
        if not self.system_slug:
            return f"{self.slug}.html"
        return f"{self.system_slug}/{self.slug}.html"

    @property
    def title(self) -> str:
        return self.meta.get("title", self.slug.replace("-", " ").capitalize())

    @property
    def summary(self) -> str:
        return self.meta.get("summary", "")

    @property
    def system(self) -> str:
        return self.meta.get("system", "")

    @property
    def root(self) -> str:
        """Relative path from this page back to the site root."""
        return "../" * self.url.count("/")


META_LINE = re.compile(r"^([A-Za-z_]+):\s*(.*)$")


def read_page(path: Path, content: Path) -> Page:
    """Split a page into its meta lines and its Markdown body."""
    text = path.read_text(encoding="utf-8")
    meta: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines) and (m := META_LINE.match(lines[i])):
        meta[m.group(1).lower()] = m.group(2).strip()
        i += 1
    rel = path.relative_to(content)
    system_slug = rel.parts[0] if len(rel.parts) > 1 else ""
    slug = re.sub(r"^\d+-", "", path.stem)
    return Page(path, system_slug, slug, meta, "\n".join(lines[i:]))


def collect_pages(config: Config) -> list[Page]:
    """Every page, home first, then systems in folder order, pages by number."""
    pages = [read_page(p, config.content) for p in sorted(config.content.rglob("*.md"))]
    for page in pages:
        if page.system_slug and not page.system:
            raise BuildError(f"{page.source}: a rules page needs a 'system:' line")
    pages.sort(key=lambda p: (p.system_slug != "", p.slug != "index", p.system_slug, p.source.name))
    return pages


# Widgets in Markdown ------------------------------------------------------

BLOCK_START = re.compile(r"^::: *(widget|exhibit|sweep|sensitivity) +(\S+)(?: +#([a-z][a-z0-9-]*))?(?: +(\S.*?))? *$")
EXAMPLE_START = re.compile(r"^::: *example +(.+?) *$")
PAIR = re.compile(r"^([A-Za-z0-9_.]+) *: *(.*)$")


SWEEP_KEYS = ("vary", "from", "to", "step", "values", "figures", "trials", "seed")
"""Lines of a ``::: sweep`` block that describe the sweep; the rest are inputs."""


def parse_block(lines: list[str], where: str) -> tuple[str, str, str, str, dict[str, str], list[tuple[str, dict[str, str]]]]:
    """Parse the lines of one block (without the closing ``:::``).

    The first line is ``::: widget ID #instance Optional title``, ``::: exhibit ID`` or
    ``::: sweep ID Caption`` (a teaching chart: :meth:`WidgetRenderer.render_sweep`).
    """
    m = BLOCK_START.match(lines[0])
    if not m:
        raise BuildError(f"{where}: cannot read block start {lines[0]!r}")
    kind, ident, instance, title = m.group(1), m.group(2), m.group(3) or "", m.group(4) or ""
    pairs: dict[str, str] = {}
    examples: list[tuple[str, dict[str, str]]] = []
    current = pairs
    for line in lines[1:]:
        if not line.strip():
            continue
        if em := EXAMPLE_START.match(line):
            current = {}
            examples.append((em.group(1), current))
        elif pm := PAIR.match(line.strip()):
            current[pm.group(1)] = pm.group(2).strip()
        else:
            raise BuildError(f"{where}: cannot read line {line!r} in a {kind} block; write 'path: value'")
    return kind, ident, instance, title, pairs, examples


CAPTION = re.compile(r"<caption[^>]*>(.*?)</caption>", re.S)


def exhibit_label(ident: str, html: str) -> str:
    """An exhibit's accessible name: its table caption, else its id in words."""
    m = CAPTION.search(html)
    text = re.sub(r"<[^>]+>", "", m.group(1)).strip() if m else ""
    return text or ident.split(".")[-1].replace("_", " ").capitalize()


def scroll_wrap(html: str, label: str) -> str:
    """A wide table in a region that scrolls sideways on a narrow screen.

    The region takes keyboard focus (so it can be scrolled without a mouse)
    and is named after the table.
    """
    return (f'<div class="table-wrap" role="region" tabindex="0" aria-label="{escape(label, quote=True)}">'
            f"{html}</div>")


class TableWrapTreeprocessor(Treeprocessor):
    """Wrap each Markdown table in a scrollable region named by its header row."""

    def run(self, root: etree.Element) -> None:
        for parent in list(root.iter()):
            for i, child in enumerate(list(parent)):
                if child.tag != "table":
                    continue
                header = " · ".join("".join(th.itertext()).strip() for th in child.iter("th"))[:80]
                wrap = etree.Element("div", {"class": "table-wrap", "role": "region", "tabindex": "0",
                                             "aria-label": f"Table: {header}" if header else "Table"})
                parent.remove(child)
                wrap.append(child)
                parent.insert(i, wrap)


def page_blocks(text: str, where: str = "page") -> list[tuple[str, str, str, str, dict[str, str], list[tuple[str, dict[str, str]]]]]:
    """Every widget and exhibit block of a page's Markdown, parsed as the build reads it.

    Each is ``(kind, id, instance, title, pairs, examples)``; tests use this to
    walk a page's widgets without rendering it.
    """
    found = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if not BLOCK_START.match(lines[i]):
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end].strip() != ":::":
            end += 1
        if end == len(lines):
            raise BuildError(f"{where}: block {lines[i]!r} has no closing ':::'")
        found.append(parse_block(lines[i:end], where))
        i = end + 1
    return found


class WidgetBlockProcessor(BlockProcessor):
    """Replace ``::: widget`` / ``::: exhibit`` blocks with rendered HTML."""

    def __init__(self, parser: Any, renderer: WidgetRenderer) -> None:
        super().__init__(parser)
        self.renderer = renderer

    def test(self, parent: etree.Element, block: str) -> bool:
        return bool(BLOCK_START.match(block.split("\n", 1)[0]))

    def run(self, parent: etree.Element, blocks: list[str]) -> bool:
        collected: list[str] = []
        while blocks:
            part = blocks.pop(0)
            lines = part.split("\n")
            if lines and lines[-1].strip() == ":::":
                collected.extend(lines[:-1])
                break
            collected.extend(lines)
            collected.append("")
        else:
            raise BuildError(f"{self.renderer.page.source}: block {collected[0]!r} has no closing ':::'")
        html = self.renderer.render_block(collected)
        placeholder = self.parser.md.htmlStash.store(html)
        p = etree.SubElement(parent, "p")
        p.text = placeholder
        return True


class WidgetExtension(Extension):
    def __init__(self, renderer: WidgetRenderer) -> None:
        super().__init__()
        self.renderer = renderer

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.parser.blockprocessors.register(WidgetBlockProcessor(md.parser, self.renderer), "wargame_widget", 105)
        md.treeprocessors.register(TableWrapTreeprocessor(md), "table_wrap", 4)


class WidgetRenderer:
    """Runs the engine for each block and renders the widget partial."""

    def __init__(self, env: jinja2.Environment, page: Page) -> None:
        self.env = env
        self.page = page

    def render_block(self, lines: list[str]) -> str:
        where = str(self.page.source)
        kind, ident, instance, title, pairs, examples = parse_block(lines, where)
        if kind == "exhibit":
            try:
                html = exhibits.get_exhibit(ident)()
            except LookupError as exc:
                raise BuildError(f"{where}: {exc}") from None
            return scroll_wrap(html, exhibit_label(ident, html))
        if kind == "sweep":
            if instance or examples:
                raise BuildError(f"{where}: a sweep takes no #instance and no examples: '::: sweep WIDGET Caption'")
            return self.render_sweep(ident, title, pairs)
        if kind == "sensitivity":
            if instance or examples:
                raise BuildError(f"{where}: a sensitivity block takes no #instance and no examples")
            return self.render_sensitivity(ident, title, pairs)
        return self.render_widget(ident, instance, title, pairs, examples)

    def render_sensitivity(self, widget_id: str, caption: str, pairs: dict[str, str]) -> str:
        """``::: sensitivity WIDGET Caption``: how far each assumed setting moves the headline figure for the
        inputs the block states (``figure``, and for a battle ``trials`` and ``seed``, as a sweep's)."""
        where = str(self.page.source)
        w = self._widget(widget_id)
        if not caption:
            raise BuildError(f"{where}: a sensitivity block needs a caption")
        spec = {k: pairs.pop(k) for k in ("figure", "trials", "seed") if k in pairs}
        inputs = self._state(w, pairs, None, f"sensitivity {caption!r}")
        kw = self._battle_run(w, spec, f"sensitivity {caption!r}")
        try:
            answer = sensitivity.sensitivity(w.id, inputs, figure=spec.get("figure"), render=True, **kw)
        except schema.InputError as exc:
            raise BuildError(f"{where}: sensitivity {caption!r}: {exc}") from None
        self.page.sweeps.append({"kind": "sensitivity", "widget": w.id, "caption": caption, "inputs": inputs,
                                 "figure": spec.get("figure"), **kw})
        return self._teaching(caption, answer["html"])

    def render_sweep(self, widget_id: str, caption: str, pairs: dict[str, str]) -> str:
        """A teaching chart: each figure of a widget along one input, computed here by the engine's sweep
        (engine.scenarios) and drawn as its SVG with the data table, so it reads with JavaScript off.

        The block's lines: ``vary: PATH`` and either ``from``/``to`` (``step``) or ``values: [JSON list]``
        (a choice alone sweeps every choice); ``figures: name, name`` (default all); for a battle ``trials``
        and ``seed``; every other line is an input, ``path: value``, as in a widget block.
        """
        where = str(self.page.source)
        w = self._widget(widget_id)
        if not caption:
            raise BuildError(f"{where}: a sweep needs a caption ('::: sweep {widget_id} What it shows')")
        spec = {k: pairs.pop(k) for k in SWEEP_KEYS if k in pairs}
        if "vary" not in spec:
            raise BuildError(f"{where}: sweep {caption!r}: name the input to vary ('vary: path')")
        vary: dict[str, Any] = {"input": spec["vary"]}
        for key in ("from", "to", "step"):
            if key in spec:
                vary[key] = spec[key]
        if "values" in spec:
            try:
                vary["values"] = json.loads(spec["values"])
            except ValueError:
                raise BuildError(f"{where}: sweep {caption!r}: values must be a JSON list") from None
        figures = [f.strip() for f in spec["figures"].split(",")] if "figures" in spec else None
        inputs = self._state(w, pairs, None, f"sweep {caption!r}")
        kw = self._battle_run(w, spec, f"sweep {caption!r}")
        try:
            answer = scenarios.sweep(w.id, inputs, vary, figures=figures, **kw)
        except schema.InputError as exc:
            raise BuildError(f"{where}: sweep {caption!r}: {exc}") from None
        bad = [p for p in answer["points"] if "error" in p]
        if bad:
            raise BuildError(f"{where}: sweep {caption!r}: at {bad[0]['label']}: {bad[0]['error']}")
        how = ("Worked out exactly by the engine when this page was built." if w.trial is None else
               f"{kw['trials']:,} battles at each point, seed {kw['seed']}, played by the engine when this page "
               "was built; the band is each estimate's 95 % interval.")
        self.page.sweeps.append({"widget": w.id, "caption": caption, "inputs": inputs, "vary": vary,
                                 "figures": figures, **kw})
        return self._teaching(caption, f'{scenarios.sweep_html(answer)}<p class="help">{escape(how)}</p>')

    def _widget(self, widget_id: str) -> widgets.Widget:
        try:
            return widgets.get(widget_id)
        except widgets.UnknownWidgetError as exc:
            raise BuildError(f"{self.page.source}: {exc}") from None

    def _battle_run(self, w: widgets.Widget, spec: Mapping[str, str], what: str) -> dict[str, Any]:
        """A teaching block's ``trials`` and ``seed`` (a battle's: defaults the widget's run and seed 1); none for
        a calculator, which is exact."""
        if w.trial is None:
            if "trials" in spec or "seed" in spec:
                raise BuildError(f"{self.page.source}: {what}: {w.id} is exact; it takes no trials or seed")
            return {}
        try:
            return {"trials": int(spec.get("trials", w.trials)), "seed": int(spec.get("seed", DEFAULT_SEED))}
        except ValueError:
            raise BuildError(f"{self.page.source}: {what}: trials and seed are whole numbers") from None

    @staticmethod
    def _teaching(caption: str, body: str) -> str:
        return (f'<div class="teaching-sweep" role="group" aria-label="{escape(caption, quote=True)}">'
                f'<p class="sweep-caption">{escape(caption)}</p>{body}</div>')

    def _state(self, w: widgets.Widget, pairs: Mapping[str, str], base: Mapping[str, Any] | None,
               what: str) -> dict[str, Any]:
        values, rejected = w.from_link(pairs, base)
        if rejected:
            raise BuildError(f"{self.page.source}: {what}: " + "; ".join(str(e) for e in rejected))
        return values

    def render_widget(self, widget_id: str, instance: str, title: str, pairs: dict[str, str],
                      examples: list[tuple[str, dict[str, str]]]) -> str:
        where = str(self.page.source)
        w = self._widget(widget_id)
        if not instance:
            raise BuildError(f"{where}: widget {widget_id} needs an instance id ('::: widget {widget_id} #name')")
        if any(x["instance"] == instance for x in self.page.widgets):
            raise BuildError(f"{where}: widget instance #{instance} is used twice on the page")
        title = title or w.title
        if any(x["title"] == title for x in self.page.widgets):
            raise BuildError(f"{where}: two widgets on the page are titled {title!r}; "
                             f"give #{instance} its own title ('::: widget {widget_id} #{instance} Title')")
        if any(f.name in ("seed", "trials", "precision") for f in w.inputs.fields):
            raise BuildError(f"{widget_id}: 'seed', 'trials' and 'precision' are reserved for the sample and the "
                             "estimate in links")
        base = self._state(w, pairs, None, f"#{instance}")
        result = w.run(base)
        sample_html = ""
        sample = None
        if w.sample is not None and w.render_sample is not None:
            sample = w.roll(base, DEFAULT_SEED)
            sample_html = w.render_sample(sample)
        estimate_html = None
        roll_luck = ""
        if "estimator" in w.capabilities:
            # The same (inputs, seed, trials) live gives this same HTML: trial i is seeded from (seed, i).
            tally = w.estimate(base, DEFAULT_SEED, 0, w.trials)
            estimate_html = w.render_tally(tally, base)
            if sample is not None and "observed" in sample:
                # How rare the seeded battle is among the run's battles (calculator.js says it again after a run).
                roll_luck = luck.luck(w.id, base, sample["observed"], seed=DEFAULT_SEED, count=0,
                                      tally=tally.to_json())["note"]
        rendered_examples = []
        for ex_title, ex_pairs in examples:
            values = self._state(w, ex_pairs, base, f"#{instance} example {ex_title!r}")
            link = w.link_state(values, base)
            query = "&".join(f"{instance}.{k}={_quote(v)}" for k, v in link.items())
            if len(query) > COMPACT_LINK_OVER:  # as links.js writes links: the engine's compact state
                query = f"{instance}={_quote(w.state_text(values, base))}"
            rendered_examples.append({"title": ex_title, "query": query,
                                      "html": w.render(w.run(values))})
        note = ""
        if w.trial is None and w.figures and w.inputs.assumed_fields():
            # The sentence a wide spread earns under the result (calculator.js keeps it up to date live).
            note = sensitivity.note_html(sensitivity.sensitivity(w.id, base), instance)
        info: dict[str, Any] = {"instance": instance, "widget": widget_id, "title": title}
        self.page.widgets.append(info)
        template = self.env.get_template("partials/widget.html")
        result_html = w.render(result)
        # Outputs too long for the first paint (a battle told round by round, a worked example's
        # result) go to parts of their own too; the live engine replaces the sample at once.
        views = []
        if len(sample_html) > PART_OVER:
            views.append({"path": "result-sample", "title": f"Sample roll (seed {DEFAULT_SEED})", "html": sample_html})
        for k, ex in enumerate(rendered_examples, 1):
            if len(ex["html"]) > PART_OVER:
                views.append({"path": f"result-example-{k}", "title": f"Result of “{ex['title']}”", "html": ex["html"]})
        heavy = {v["path"] for v in views}

        def render(root: str, parts: list[dict[str, str]]) -> str:
            """The widget on a page whose root is ``root``, its form parts put in ``parts``."""
            href = self.part_href(root)
            shown_sample = (view_link(href(instance, "result-sample"), f"The sample roll (seed {DEFAULT_SEED})",
                                      "shown here once the engine is live") if "result-sample" in heavy else sample_html)
            shown_examples = [{**ex, "html": view_link(href(instance, f"result-example-{k}"), f"The result of “{ex['title']}”")}
                              if f"result-example-{k}" in heavy else ex for k, ex in enumerate(rendered_examples, 1)]
            return template.render(
                parts=parts, part_over=PART_OVER, part_href=href,
                result_digest=html_digest(result_html), sample_digest=html_digest(shown_sample),
                w=w, title=title, instance=instance, values=base, result_html=result_html,
                sample_html=shown_sample, seed=DEFAULT_SEED, examples=shown_examples,
                estimate_html=estimate_html, estimate_digest=html_digest(estimate_html or ""),
                checkpoints=precision.checkpoints(w) if precision.available(w) else (),
                base_json=json.dumps(schema.jsonable(base), separators=(",", ":")).replace("<", "\\u003c"),
                assumed=w.inputs.assumed_fields(), sensitivity_note=note, roll_luck=roll_luck,
            )

        if note:
            # The note links to its setting's control; where the settings went to a part (PART_OVER), to the part's
            # placeholder on the page instead (the link's data-setting lets the live page load it and go on).
            plain_render = render
            setting = re.search(r'data-setting="([^"]+)"', note)

            def render(root: str, parts: list[dict[str, str]]) -> str:
                out = plain_render(root, parts)
                path = setting.group(1) if setting else ""
                holder = next((p["path"] for p in parts if path == p["path"] or path.startswith(p["path"] + ".")), None)
                if holder is not None:
                    out = out.replace(f'href="#{instance}--{path.replace(".", "-")}"',
                                      f'href="#{instance}--{holder.replace(".", "-")}-part"')
                return out

        info["render"] = render
        info["parts"] = parts = []
        info["html"] = html = render(self.page.root, parts)
        parts.extend({**v, "kind": "view"} for v in views)
        return html

    def part_href(self, root: str) -> Callable[[str, str], str]:
        """Links to the page's parts from a page whose root is ``root``."""
        return lambda instance, path: root + part_path(self.page, instance, path)


def _quote(text: str) -> str:
    from urllib.parse import quote
    return quote(text, safe="")


def render_markdown(page: Page, env: jinja2.Environment, terms: list[Term] | None = None) -> None:
    """Markdown to HTML with widgets and exhibits placed and glossary terms linked; fills the toc."""
    extensions: list[Any] = [
        "tables", "attr_list", "admonition", "def_list",
        TocExtension(permalink="#", permalink_title="Link to this section", toc_depth="2-3"),
        WidgetExtension(WidgetRenderer(env, page)),
    ]
    if terms and page.slug != "index":
        extensions.append(TermExtension(terms, f"{page.root}{GLOSSARY_SLUG}.html", page.slug == GLOSSARY_SLUG
                                        and not page.system_slug))
    md = markdown.Markdown(extensions=extensions)
    page.html = md.convert(page.text)
    page.toc = md.toc_tokens  # type: ignore[attr-defined]


# Glossary -----------------------------------------------------------------

GLOSSARY_SLUG = "glossary"
TERM_LINE = re.compile(r"^(?![:\s#!])(\S.*?)\s*$")
SKIP_TAGS = {"a", "code", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "abbr", "summary", "th"}


@dataclass(frozen=True)
class Term:
    """One glossary entry and the words that link to it."""

    name: str
    """As written in the glossary, e.g. ``Action rating (AR)``."""
    anchor: str
    """Fragment id on the glossary page."""
    pattern: re.Pattern[str]
    """Matches any of its forms as whole words (abbreviations case-sensitively)."""


SYSTEM_SECTION = re.compile(r'^## .*\{:[^}]*\bdata-system="([a-z0-9-]+)"[^}]*\}\s*$')
"""A glossary heading that belongs to one system: ``## Name {: data-system="folder" }``."""


def keep_built_systems(text: str, built: set[str]) -> str:
    r"""The glossary without the sections of systems that have no pages yet.

    A ``##`` section whose heading names a system folder (``data-system``)
    is kept only if that folder has pages, so the glossary grows as systems
    land and never defines (or links) terms of a system the site lacks.

    >>> text = "## All\nA\n## X {: data-system=\"x\" }\nB\n## Y {: data-system=\"y\" }\nC"
    >>> keep_built_systems(text, {"y"}).split("\n")
    ['## All', 'A', '## Y {: data-system="y" }', 'C']
    """
    out: list[str] = []
    skipping = False
    for line in text.split("\n"):
        if line.startswith("## "):
            m = SYSTEM_SECTION.match(line)
            skipping = bool(m) and m.group(1) not in built
        if not skipping:
            out.append(line)
    return "\n".join(out)


def glossary_terms(page: Page) -> list[Term]:
    """The terms of the glossary page: each definition-list term line.

    ``Action rating (AR)`` links both "action rating" (any case) and "AR"
    (exact case).
    """
    lines = page.text.split("\n")
    terms = []
    for line, following in zip(lines, lines[1:]):
        if not following.startswith(":") or not (m := TERM_LINE.match(line)):
            continue
        name = m.group(1)
        forms = [f.strip() for f in re.split(r"[()]", name) if f.strip()]
        parts = []
        for form in forms:
            exact = any(c.isupper() for c in form[1:]) or form.isupper()
            words = re.escape(form).replace("\\ ", r"\s+")
            parts.append(rf"(?<![\w-]){words}(?![\w-])" if exact else rf"(?i:(?<![\w-]){words}(?![\w-]))")
        anchor = "term-" + re.sub(r"[^a-z0-9]+", "-", forms[0].lower()).strip("-")
        terms.append(Term(name, anchor, re.compile("|".join(parts))))
    return terms


class TermTreeprocessor(Treeprocessor):
    """Link the first use of each glossary term on a page to its entry."""

    def __init__(self, md: markdown.Markdown, terms: list[Term], href: str, glossary: bool) -> None:
        super().__init__(md)
        self.terms = terms
        self.href = href
        self.glossary = glossary

    def run(self, root: etree.Element) -> None:
        if self.glossary:  # the glossary page itself: give each term its anchor
            names = {t.name: t.anchor for t in self.terms}
            for dt in root.iter("dt"):
                if (dt.text or "").strip() in names:
                    dt.set("id", names[(dt.text or "").strip()])
            return
        self.pending = list(self.terms)
        self._walk(root)

    def _walk(self, el: etree.Element) -> None:
        if el.tag in SKIP_TAGS or "admonition-title" in el.get("class", ""):
            return
        if el.text:
            el.text = self._link(el.text, el, 0)
        for child in list(el):
            self._walk(child)
            if child.tail:
                child.tail = self._link(child.tail, el, list(el).index(child) + 1)

    def _link(self, text: str, parent: etree.Element, index: int) -> str:
        """Wrap the earliest pending term in ``text``; later text is searched again."""
        best = None
        for term in self.pending:
            m = term.pattern.search(text)
            if m and (best is None or m.start() < best[1].start()):
                best = (term, m)
        if best is None:
            return text
        term, m = best
        self.pending.remove(term)
        a = etree.Element("a", {"class": "term", "href": f"{self.href}#{term.anchor}"})
        a.text = m.group(0)
        a.tail = self._link(text[m.end():], parent, index + 1)
        parent.insert(index, a)
        return text[:m.start()]


class TermExtension(Extension):
    def __init__(self, terms: list[Term], href: str, glossary: bool) -> None:
        super().__init__()
        self.args = (terms, href, glossary)

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        # after inline patterns (priority 20), before the widget HTML comes back from the stash
        md.treeprocessors.register(TermTreeprocessor(md, *self.args), "glossary_terms", 5)


# Search -------------------------------------------------------------------

class _TextCollector(HTMLParser):
    """Plain text of rendered page HTML, split at h2/h3 headings, skipping widgets."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[dict[str, Any]] = [{"id": "", "heading": "", "text": []}]
        self.skip = 0
        self.heading: dict[str, Any] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if self.skip or (tag == "section" and "widget" in (a.get("class") or "")) or tag in ("table", "form"):
            self.skip += 1 if tag in ("section", "table", "form") else 0
            return
        if tag in ("h2", "h3"):
            self.heading = {"id": a.get("id") or "", "heading": "", "text": []}
            self.sections.append(self.heading)

    def handle_endtag(self, tag: str) -> None:
        if self.skip and tag in ("section", "table", "form"):
            self.skip -= 1
        elif tag in ("h2", "h3"):
            self.heading = None

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.heading is not None:
            if data.strip() != "#":  # the permalink
                self.heading["heading"] += data
        else:
            self.sections[-1]["text"].append(data)


def search_index(pages: list[Page]) -> list[dict[str, Any]]:
    """What the browser searches: every section's text, every widget's name."""
    entries: list[dict[str, Any]] = []
    for page in pages:
        if page.slug == "search":
            continue
        collector = _TextCollector()
        collector.feed(page.html)
        for sec in collector.sections:
            text = re.sub(r"\s+", " ", "".join(sec["text"])).strip()
            if not text and not sec["heading"]:
                continue
            entries.append({"kind": "section", "page": page.title, "system": page.system,
                            "heading": sec["heading"].strip(), "url": page.url + (f"#{sec['id']}" if sec["id"] else ""),
                            "text": text})
        for w in page.widgets:
            entries.append({"kind": "widget", "page": page.title, "system": page.system,
                            "heading": w["title"], "url": f"{page.url}#{w['instance']}",
                            "text": f"{w['widget']} calculator"})
    return entries


# Site assembly --------------------------------------------------------------

NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def number_word(n: int) -> str:
    """A small count in words, for prose built from data (``number_word(3) == "three"``).

    >>> number_word(3), number_word(12)
    ('three', '12')
    """
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


def flat_list(f: schema.ListOf) -> bool:
    """Whether a list's items hold only plain fields: such a list is edited as a table."""
    return not any(isinstance(sub, (schema.Group, schema.ListOf)) for sub in f.item.fields)


def make_env(config: Config) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(config.templates)),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["number_word"] = number_word
    env.globals.update(schema=schema, to_text=schema.to_text, isinstance=isinstance, settings_sections=settings_sections, flat_list=flat_list,
                       may_be_part=may_be_part, part_size=part_size,
                       Choice=schema.Choice, Text=schema.Text, Integer=schema.Integer, Number=schema.Number,
                       Boolean=schema.Boolean, Group=schema.Group, ListOf=schema.ListOf,
                       Fraction=Fraction)
    return env


def navigation(pages: list[Page]) -> list[dict[str, Any]]:
    """Systems in order, each with its pages."""
    systems: dict[str, dict[str, Any]] = {}
    for page in pages:
        if not page.system_slug:
            continue
        entry = systems.setdefault(page.system_slug, {"slug": page.system_slug, "name": page.system, "pages": []})
        if page.system != entry["name"]:
            raise BuildError(f"{page.source}: system {page.system!r} differs from {entry['name']!r} on its other pages")
        entry["pages"].append(page)
    return list(systems.values())


def render_pages(config: Config, env: jinja2.Environment, pages: list[Page],
                 snapshot_bytes: int | None = None) -> dict[str, str]:
    """Every output HTML file by its path. Nothing is written yet.

    ``snapshot_bytes`` is the memory snapshot's size, which Pyodide sizes its
    memory by: pages hand it to the engine worker, which then starts Pyodide
    while the snapshot downloads.
    """
    nav = navigation(pages)
    glossary = next((p for p in pages if p.slug == GLOSSARY_SLUG and not p.system_slug), None)
    if glossary:
        glossary.text = keep_built_systems(glossary.text, {system["slug"] for system in nav})
    terms = glossary_terms(glossary) if glossary else []
    for page in pages:
        render_markdown(page, env, terms)
    ordered = [p for p in pages if p.system_slug]
    common = {"config": config, "nav": nav, "runtime": config.runtime, "snapshot_bytes": snapshot_bytes,
              "engine_version": ENGINE_VERSION, "pyodide_version": PYODIDE_VERSION, "csp": CONTENT_SECURITY_POLICY,
              "has_glossary": glossary is not None}
    files: dict[str, str] = {}
    for page in pages:
        i = ordered.index(page) if page in ordered else -1
        template = env.get_template("page.html" if page.system_slug else
                                    "home.html" if page.slug == "index" else "plain.html")
        files[page.url] = template.render(
            **common, page=page, root=page.root, has_widgets=bool(page.widgets),
            prev=ordered[i - 1] if i > 0 else None,
            next=ordered[i + 1] if 0 <= i < len(ordered) - 1 else None)
        for info in page.widgets:
            root = "../" * embed_path(page, info["instance"]).count("/")
            embedded = info["render"](root, [])
            files[embed_path(page, info["instance"])] = env.get_template("embed.html").render(
                **common, page=page, root=root, widget={**info, "html": embedded}, has_widgets=True)
            for part in info["parts"]:
                path = part_path(page, info["instance"], part["path"])
                files[path] = env.get_template("part.html").render(
                    **common, page=page, root="../" * path.count("/"), widget=info, part=part, has_widgets=False)
    search_page = Page(config.content / "search", "", "search", {"title": "Search"}, "")
    files[search_page.url] = env.get_template("search.html").render(
        **common, page=search_page, root="", prev=None, next=None, has_widgets=False)
    files["search-index.json"] = json.dumps(search_index(pages), separators=(",", ":"), ensure_ascii=False)
    if "index.html" not in files:
        raise BuildError(f"{config.content}: there is no index.md for the home page")
    return files


def part_path(page: Page, instance: str, path: str) -> str:
    """The file of a widget's form part (a keyed element left out of the page: ``PART_OVER``).

    >>> part_path(Page(Path("atg/loop.md"), "atg", "loop", {}, ""), "atg-battle", "attacker.units")
    'parts/atg/loop/atg-battle--attacker.units.html'
    """
    return f"parts/{page.url.removesuffix('.html')}/{instance}--{path}.html"


def view_link(href: str, what: str, note: str = "") -> str:
    """What stands for an output left out of the page (``PART_OVER``): a link to its own page,
    which static/forms.js follows to show it in place when its ``details`` is opened."""
    return (f'<p class="part-link"><a href="{escape(href)}" data-part-src>{escape(what)}, on a page of its own</a>'
            f'{" (" + escape(note) + ")" if note else ""}</p>')


def may_be_part(path: str) -> bool:
    """Whether a form element at ``path`` may be a part: not inside a list's items (they are
    copied from the list's template and renumbered).

    >>> may_be_part("rules"), may_be_part("attacker.units"), may_be_part("units.0.types"), may_be_part("units.__i__.x")
    (True, True, False, False)
    """
    return not any(piece.isdigit() or piece == "__i__" for piece in path.split("."))


def part_size(f: schema.Field) -> str:
    """What a part's placeholder says it holds."""
    if isinstance(f, schema.ListOf):
        return f"a table of {len(f.item.fields)} columns" if flat_list(f) else f"a list of {f.item.title.lower()}s"
    if isinstance(f, schema.Group):
        return f"{len(f.fields)} {'group' if len(f.fields) == 1 else 'groups'}" if all(
            isinstance(sub, schema.Group) for sub in f.fields) else f"{count_fields(f)} settings"
    return "one field"


def count_fields(f: schema.Field) -> int:
    """How many plain fields a group holds, its groups' included."""
    return sum(count_fields(sub) for sub in f.fields) if isinstance(f, schema.Group) else 1


def embed_path(page: Page, instance: str) -> str:
    """A widget's embed page: just the widget, its result and a link back to its section."""
    return f"embed/{page.url.removesuffix('.html')}/{instance}.html"


def build_wheel(workdir: Path) -> Path:
    """The engine as a pure-Python ``py3-none-any`` wheel (pypa build, hatchling)."""
    made = subprocess.run([sys.executable, "-P", "-m", "build", "--wheel", "--no-isolation", "--outdir", str(workdir),
                           str(ROOT)], cwd=ROOT, capture_output=True, text=True)
    if made.returncode:
        raise BuildError(f"the wheel build failed:\n{made.stdout[-1500:]}{made.stderr[-1500:]}")
    wheel = workdir / WHEEL_NAME
    if not wheel.exists():
        raise BuildError(f"the wheel build did not produce {WHEEL_NAME}")
    return wheel


def check_pyodide(config: Config) -> Path:
    """The npm package's folder, after checking its version and recorded integrity."""
    package = config.node_modules / "pyodide"
    manifest = package / "package.json"
    if not manifest.exists():
        raise BuildError("node_modules/pyodide is missing: run 'npm ci' (./dev does it)")
    version = json.loads(manifest.read_text())["version"]
    if version != PYODIDE_VERSION:
        raise BuildError(f"node_modules has pyodide {version}; this site pins {PYODIDE_VERSION}")
    lock = json.loads((ROOT / "package-lock.json").read_text())
    recorded = lock["packages"]["node_modules/pyodide"]["integrity"]
    if recorded != PYODIDE_INTEGRITY:
        raise BuildError(f"package-lock.json records {recorded} for pyodide, expected {PYODIDE_INTEGRITY}")
    return package


# -- memory snapshot (tools/make_snapshot.mjs) -------------------------------
SNAPSHOT_NAME = "snapshot.bin.br"
"""Pyodide's memory after starting Python and importing the engine; the worker boots from it.
Brotli-compressed (3.4 MB, where gzip -9 makes 4.8 MB of the same 16.3 MB), and inflated by the
worker itself with a small WebAssembly decoder the site ships (`BROTLI_DECODER`): browsers'
DecompressionStream takes gzip and deflate only, and a static host sends the file as it is."""
SPARSE_MAGIC = 0x70737200  # "\0rsp", little-endian: a snapshot without the pages a fresh runtime has
SPARSE_VERSION = 2
SNAPSHOT_BROTLI = {"quality": 11, "lgwin": 22}
"""Brotli's best quality with a 4 MB window. The decoder keeps a ring buffer as large as the window in
its WebAssembly memory, which never shrinks: each worker that inflates the snapshot holds 8 MB with
this window and 22 MB with brotli's largest standard one (16 MB), which ships only 31 kB less of
3.3 MB (NOTES.md "Session 21"). About 45 s of one core once per new snapshot (kept in
SNAPSHOT_CACHE); quality 9 takes 4 s and ships 0.5 MB more (NOTES.md)."""
SNAPSHOT_CACHE = ROOT / ".build-cache" / "snapshot"
"""Made snapshots, sparse and compressed, by a digest of what they are made from (`snapshot_key`).
Two snapshots made from the same files are not byte-identical (hash seeds, clocks: NOTES.md
"Session 16"), so a build reuses the one made before rather than making an equal one: a build that
changed only pages skips the ~50 s of Node and brotli, and a reader's kept copy stays valid."""
SNAPSHOT_CACHE_KEEP = 3
"""Snapshots the cache keeps (the newest by use); older ones are deleted."""
BROTLI_DECODER = ("brotli-dec-wasm", "2.3.2", "sha512-5H+k8eVLIJY6B4olN2HP9QzJAxcplf0jV7mWnkpxvOSeUE9Np"
                  "g3dQ2pgLn30a9MUFHNro1iSmtdu6VNdlb+TIw==")
"""The npm package (MIT OR Apache-2.0: Rust's brotli-decompressor as WebAssembly, 208 KB, 99 KB
gzipped), its pinned version and the registry's integrity, as for Pyodide."""
BROTLI_DECODER_FILES = {"pkg/brotli_dec_wasm.js": "brotli_dec_wasm.js",
                        "pkg/brotli_dec_wasm_bg.wasm": "brotli_dec_wasm_bg.wasm",
                        "LICENSE-MIT.txt": "brotli_dec_wasm.LICENSE-MIT.txt"}
"""Its files the site ships, beside Pyodide's (``pyodide/``), by their name there."""


def make_snapshot(package: Path, wheel: Path, out: Path) -> bytes:
    """Boot Pyodide in Node from the shipped files, import the engine, snapshot: the sparse file, uncompressed."""
    node = os.environ.get("NODE", "node")
    if not shutil.which(node):
        raise BuildError(f"node is missing ({node}): the Pyodide memory snapshot is made with Node")
    made = subprocess.run([node, str(ROOT / "tools" / "make_snapshot.mjs"), str(package), str(wheel), str(out)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        raise BuildError(f"the Pyodide memory snapshot failed: ...{made.stderr[-1500:]}")
    return out.read_bytes()


def brotli_decoder(config: Config) -> dict[str, bytes]:
    """The decoder's files from node_modules, after checking its version and recorded integrity."""
    name, version, integrity = BROTLI_DECODER
    package = config.node_modules / name
    manifest = package / "package.json"
    if not manifest.exists():
        raise BuildError(f"node_modules/{name} is missing: run 'npm ci' (./dev does it)")
    found = json.loads(manifest.read_text())["version"]
    if found != version:
        raise BuildError(f"node_modules has {name} {found}; this site pins {version}")
    recorded = json.loads((ROOT / "package-lock.json").read_text())["packages"][f"node_modules/{name}"]["integrity"]
    if recorded != integrity:
        raise BuildError(f"package-lock.json records {recorded} for {name}, expected {integrity}")
    return {f"pyodide/{shipped}": (package / source).read_bytes() for source, shipped in BROTLI_DECODER_FILES.items()}


def compress_snapshot(sparse: bytes) -> bytes:
    """The sparse snapshot brotli-compressed (``SNAPSHOT_BROTLI``)."""
    brotli = _brotli()
    if brotli is None:
        raise BuildError("the snapshot ships brotli-compressed: the brotli package is missing (requirements-dev.txt)")
    return brotli.compress(sparse, **SNAPSHOT_BROTLI)


def snapshot_key(package: Path, wheel: Path) -> str:
    """A digest of everything a snapshot is made from: the engine wheel, Pyodide's files, the scripts
    that make and read it, Node's version and the compression's settings."""
    node = subprocess.run([os.environ.get("NODE", "node"), "--version"], capture_output=True, text=True).stdout
    digest = hashlib.sha256(f"{node.strip()}\0{sorted(SNAPSHOT_BROTLI.items())}".encode())
    for path in (wheel, *(package / name for name in PYODIDE_FILES), ROOT / "tools" / "make_snapshot.mjs",
                 ROOT / "site" / "static" / "snapshot.js"):
        digest.update(b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def cached_snapshot(key: str, make: Callable[[], tuple[bytes, bytes]]) -> tuple[bytes, bytes]:
    """The ``(sparse, compressed)`` snapshot for ``key`` from SNAPSHOT_CACHE, or made by ``make`` and kept."""
    sparse, packed = SNAPSHOT_CACHE / f"{key}.bin", SNAPSHOT_CACHE / f"{key}.br"
    if sparse.exists() and packed.exists():
        os.utime(sparse)
        return sparse.read_bytes(), packed.read_bytes()
    made = make()
    SNAPSHOT_CACHE.mkdir(parents=True, exist_ok=True)
    for path, data in ((packed, made[1]), (sparse, made[0])):  # the sparse file last: it marks the pair whole
        part = path.with_suffix(f".{os.getpid()}.tmp")
        part.write_bytes(data)
        part.replace(path)
    kept = sorted(SNAPSHOT_CACHE.glob("*.bin"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in kept[SNAPSHOT_CACHE_KEEP:]:
        old.unlink(missing_ok=True)
        old.with_suffix(".br").unlink(missing_ok=True)
    return made


def check_snapshot_decodes(packed: Path, sparse: Path, decoder: Path) -> None:
    """The shipped file, inflated in Node the worker's way (snapshot.js with the shipped decoder), must be the snapshot."""
    made = subprocess.run([os.environ.get("NODE", "node"), str(ROOT / "tools" / "check_snapshot.mjs"),
                           str(packed), str(sparse), str(decoder)], capture_output=True, text=True)
    if made.returncode != 0:
        raise BuildError(f"the compressed snapshot does not inflate to the snapshot: ...{made.stderr[-1500:]}")


def snapshot_size(sparse: bytes) -> int:
    """The plain snapshot's size, which Pyodide sizes its memory by.

    The shipped snapshot is sparse (site/static/snapshot.js has the layout);
    its fixed header says the size of the plain snapshot it stands for.
    """
    magic, version, size = struct.unpack_from("<3I", sparse)
    if (magic, version) != (SPARSE_MAGIC, SPARSE_VERSION):
        raise BuildError("the memory snapshot is not in the sparse layout site/static/snapshot.js reads")
    return size
# -- end of memory snapshot ---------------------------------------------------


def shipped_packages_only(lock: bytes, shipped: set[str]) -> bytes:
    """The lock file without the packages whose files the site does not ship.

    Pyodide's lock lists its whole distribution (358 packages, 119 KB); the
    site ships only the engine wheel, so the rest could never load and the
    worker would only download and parse them on every boot.
    """
    data = json.loads(lock)
    data["packages"] = {name: entry for name, entry in data["packages"].items() if entry["file_name"] in shipped}
    return json.dumps(data, separators=(",", ":"), sort_keys=True).encode()


def runtime_files(config: Config, workdir: Path) -> tuple[dict[str, bytes], int]:
    """Pyodide's boot files, the engine wheel, a lock file that lists it, the memory snapshot and its
    decoder; and the plain snapshot's size (what the pages tell the worker)."""
    package = check_pyodide(config)
    wheel = build_wheel(workdir)
    stage = workdir / "pyodide"
    stage.mkdir()
    shutil.copy(wheel, stage / wheel.name)
    cli = config.pyodide_cli
    if not Path(cli).exists() and not shutil.which(cli):
        raise BuildError(f"pyodide-build's CLI is missing at {cli}: ./dev sets it up (Python 3.12+)")
    subprocess.run([cli, "lockfile", "add-wheels", "--input", str(package / "pyodide-lock.json"),
                    "--output", str(stage / "pyodide-lock.json"), "--base-path", str(stage), str(stage / wheel.name)],
                   check=True, stdout=subprocess.DEVNULL)
    files = {f"pyodide/{name}": (package / name).read_bytes() for name in PYODIDE_FILES}
    files[f"pyodide/{wheel.name}"] = wheel.read_bytes()
    files["pyodide/pyodide-lock.json"] = shipped_packages_only(
        (stage / "pyodide-lock.json").read_bytes(), {name.removeprefix("pyodide/") for name in files})
    decoder = brotli_decoder(config)
    files.update(decoder)

    def make() -> tuple[bytes, bytes]:
        sparse = make_snapshot(package, wheel, stage / "snapshot.bin")  # memory snapshot
        packed = compress_snapshot(sparse)
        (stage / SNAPSHOT_NAME).write_bytes(packed)
        check_snapshot_decodes(stage / SNAPSHOT_NAME, stage / "snapshot.bin", config.node_modules / BROTLI_DECODER[0])
        return sparse, packed

    sparse, packed = cached_snapshot(snapshot_key(package, wheel), make)
    files[f"pyodide/{SNAPSHOT_NAME}"] = packed
    return files, snapshot_size(sparse)


def static_files(config: Config) -> dict[str, bytes]:
    return {f"static/{p.relative_to(config.static).as_posix()}": p.read_bytes()
            for p in sorted(config.static.rglob("*")) if p.is_file()}


def build(config: Config) -> dict[str, bytes]:
    """Build the whole site and write it to ``config.output``; returns the files."""
    env = make_env(config)
    pages = collect_pages(config)
    runtime: dict[str, bytes] = {}
    snapshot_bytes = None
    if config.runtime:
        with tempfile.TemporaryDirectory() as tmp:
            runtime, snapshot_bytes = runtime_files(config, Path(tmp))
    rendered = render_pages(config, env, pages, snapshot_bytes)
    files: dict[str, bytes] = {path: html.encode() for path, html in rendered.items()}
    files.update(static_files(config))
    files.update(runtime)
    files[MANIFEST] = web_manifest(config)
    if config.runtime:
        files["build.json"] = json.dumps({
            "engine": ENGINE_VERSION, "pyodide": PYODIDE_VERSION, "wheel": WHEEL_NAME,
            "wheel_sha256": hashlib.sha256(files[f"pyodide/{WHEEL_NAME}"]).hexdigest(),
        }, indent=1).encode()
        files[SERVICE_WORKER] = service_worker(config, files)
    files[HEADERS_FILE] = static_host_headers(files)
    broken = broken_links(files)
    if broken:
        raise BuildError("broken links in the built site:\n  " + "\n  ".join(broken))
    files.update(precompressed(files))
    write(config.output, files)
    return files


class _Anchors(HTMLParser):
    """The ids a page holds and the links it makes (``href`` of ``a`` and ``link``, ``src``)."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"] or "")
        if tag in ("a", "link") and a.get("href"):
            self.links.append(a["href"] or "")
        elif tag in ("script", "img", "iframe") and a.get("src"):
            self.links.append(a["src"] or "")


def broken_links(files: Mapping[str, bytes]) -> list[str]:
    """Every link of every built page to a file the site does not have, or to an anchor its page lacks.

    Links off the site (a scheme or ``//``) are not followed; ``?query`` is ignored (widget state).

    >>> broken_links({"a.html": b'<a href="b.html#x">b</a><a href="#top">t</a>', "b.html": b'<h2 id="x">X</h2>'})
    ['a.html: #top (no such anchor on a.html)']
    >>> broken_links({"s/a.html": b'<a href="../c.html">c</a>'})
    ['s/a.html: ../c.html (no such file)']
    """
    pages: dict[str, _Anchors] = {}
    for path, data in files.items():
        if path.endswith(".html"):
            parser = _Anchors()
            parser.feed(data.decode("utf-8"))
            pages[path] = parser
    broken = []
    for path, page in sorted(pages.items()):
        base = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
        for link in page.links:
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//", link):
                continue
            target, _, anchor = link.partition("#")
            target = target.partition("?")[0]
            if target:
                parts: list[str] = []
                outside = False
                for piece in (base + target).split("/"):
                    if piece == "..":
                        outside = outside or not parts
                        parts = parts[:-1]
                    elif piece not in ("", "."):
                        parts.append(piece)
                if outside:
                    broken.append(f"{path}: {link} (outside the site)")
                    continue
                resolved = "/".join(parts + (["index.html"] if target.endswith("/") or not parts else []))
            else:
                resolved = path
            if resolved not in files:
                broken.append(f"{path}: {link} (no such file)")
            elif anchor and resolved in pages and anchor not in pages[resolved].ids:
                broken.append(f"{path}: {link} (no such anchor on {resolved})")
    return broken


# Offline, installable, precompressed ----------------------------------------

def web_manifest(config: Config) -> bytes:
    """The web app manifest (installable from Chromium); every URL relative to it, so any subpath works."""
    icon = "static/"
    return json.dumps({
        "name": config.site_name, "short_name": "Rules Explorer",
        "description": "Wargame combat rules in plain words, each with a live calculator that works offline.",
        "id": "./", "start_url": "./index.html", "scope": "./", "display": "standalone",
        "background_color": "#ffffff", "theme_color": "#1f5f9e",
        "icons": [
            {"src": icon + "favicon.svg", "sizes": "any", "type": "image/svg+xml"},
            {"src": icon + "icon-192.png", "sizes": "192x192", "type": "image/png"},
            {"src": icon + "icon-512.png", "sizes": "512x512", "type": "image/png"},
            {"src": icon + "icon-maskable-512.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
        ],
    }, indent=1).encode()


def build_id(files: Mapping[str, bytes]) -> str:
    """A digest of every file of a build (path and content): a new build is a new id."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.encode() + b"\0" + hashlib.sha256(files[path]).digest())
    return digest.hexdigest()[:16]


def service_worker(config: Config, files: Mapping[str, bytes]) -> bytes:
    """``sw.js``: site/service-worker.js after the build's id and its files' digests.

    Every file of the build is kept offline (``files`` is the whole build so far:
    pages, static files, runtime, snapshot, wheel); the digests are the first 16
    hex digits of each file's SHA-256, which the worker checks every download against.
    """
    listed = {path: hashlib.sha256(data).hexdigest()[:16] for path, data in sorted(files.items())
              if path not in (SERVICE_WORKER, HEADERS_FILE)}  # a host reads _headers and never serves it
    head = (f"const BUILD = {json.dumps(build_id(files))};\n"
            f"const FILES = {json.dumps(listed, indent=0, sort_keys=True)};\n")
    return head.encode() + (config.static.parent / "service-worker.js").read_bytes()


def _brotli() -> Any:
    try:
        import brotli
    except ImportError:  # gzip copies only (requirements-dev.txt lists brotli)
        return None
    return brotli


PRECOMPRESS_CACHE = ROOT / ".build-cache" / "precompressed"
"""Brotli at its best quality takes ~30 s for the 9.6 MB WebAssembly and ~8 s for the pages: copies
over 10 KB are kept here by content digest, so a build compresses only what changed."""


def compressed(data: bytes, coding: str) -> bytes:
    """``data`` in ``coding`` (``gzip`` with no timestamp, or ``br`` at quality 11), the same bytes every build."""
    if coding == "gzip":
        return gzip.compress(data, 9, mtime=0)
    key = PRECOMPRESS_CACHE / (hashlib.sha256(data).hexdigest() + ".br")
    if len(data) > 10_000 and key.exists():
        return key.read_bytes()
    packed = _brotli().compress(data, quality=11)
    if len(data) > 10_000:
        key.parent.mkdir(parents=True, exist_ok=True)
        part = key.with_suffix(f".{os.getpid()}.tmp")
        part.write_bytes(packed)
        part.replace(key)
    return packed


def precompressed(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """``path.gz`` and ``path.br`` beside every text and WebAssembly file, where smaller."""
    codings = [(coding, suffix) for coding, suffix in ENCODINGS if coding != "br" or _brotli()]
    out: dict[str, bytes] = {}
    for path, data in files.items():
        if not path.endswith(PRECOMPRESSED):
            continue
        for coding, suffix in codings:
            packed = compressed(data, coding)
            if len(packed) < len(data):
                out[path + suffix] = packed
    return out


def write(output: Path, files: Mapping[str, bytes]) -> None:
    if output.exists():
        shutil.rmtree(output)
    for path, data in files.items():
        target = output / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


# Serving ------------------------------------------------------------------

class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with the types Pyodide needs (``.wasm`` as application/wasm)."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}
    precompressed = True
    """Serve ``.br`` / ``.gz`` copies where accepted (a benchmark of an uncompressing host sets it False)."""

    def end_headers(self) -> None:
        # The .br snapshot goes out as it is, as static hosts send it, and the
        # worker inflates it: with Content-Encoding the browser's network thread
        # inflates it instead and holds up the runtime's other files meanwhile.
        self.send_header("Cache-Control", "no-cache")
        if getattr(self, "_vary", False):
            self.send_header("Vary", "Accept-Encoding")
            self._vary = False
        self.send_header("Content-Security-Policy", f"{CONTENT_SECURITY_POLICY}; {self._frame_ancestors()}")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def send_head(self) -> Any:
        """The file, or its precompressed copy where the request accepts that coding.

        As static hosts do (Netlify, Cloudflare Pages, nginx's ``gzip_static``):
        ``path.br`` or ``path.gz`` beside the file goes out with ``Content-Encoding``
        and the file's own type; every file that has copies says ``Vary: Accept-Encoding``.
        """
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            if not self.path.split("?", 1)[0].endswith("/"):
                return super().send_head()  # the redirect to the folder
            path = os.path.join(path, "index.html")
        if not self.precompressed or not path.endswith(PRECOMPRESSED) or not os.path.isfile(path):
            return super().send_head()
        accepted = self._accepted_codings()
        # A copy older than its file is stale (the file was changed after the build): never sent.
        changed = os.path.getmtime(path)
        copies = [c for c, suffix in ENCODINGS
                  if os.path.isfile(path + suffix) and os.path.getmtime(path + suffix) >= changed]
        coding = next((c for c in copies if c in accepted), None)
        self._vary = bool(copies)
        if coding is None:
            return super().send_head()
        f = open(path + dict(ENCODINGS)[coding], "rb")
        stat = os.fstat(f.fileno())
        if self._not_modified_since(stat.st_mtime):  # a revalidation, as http.server answers for the plain file
            f.close()
            self.send_response(304)
            self.end_headers()
            return None
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", coding)
        self.send_header("Content-Length", str(stat.st_size))
        self.send_header("Last-Modified", self.date_time_string(int(stat.st_mtime)))
        self.end_headers()
        return f

    def _not_modified_since(self, mtime: float) -> bool:
        """``If-Modified-Since`` (without ``If-None-Match``) at or after ``mtime``, to the second."""
        since = self.headers.get("If-Modified-Since")
        if since is None or "If-None-Match" in self.headers:
            return False
        try:
            when = email.utils.parsedate_to_datetime(since)
        except (TypeError, IndexError, OverflowError, ValueError):
            return False
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.timezone.utc)
        return int(mtime) <= when.timestamp()

    def _accepted_codings(self) -> set[str]:
        """The codings ``Accept-Encoding`` accepts (a ``q=0`` refuses one)."""
        accepted = set()
        for part in self.headers.get("Accept-Encoding", "").split(","):
            name, _, params = part.strip().partition(";")
            q = params.strip().removeprefix("q=") if params.strip().startswith("q=") else "1"
            try:
                if float(q) > 0:
                    accepted.add(name.strip().lower())
            except ValueError:
                pass
        return accepted

    def _frame_ancestors(self) -> str:
        if not getattr(self, "path", ""):  # an error before the request line was read (414)
            return frame_ancestors("")
        path = self.translate_path(self.path)
        return frame_ancestors(os.path.relpath(path, self.directory).replace(os.sep, "/"))

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        if code == 414:  # a request line past http.server's 64 KB
            message = "Link too long"
            explain = ("This link is longer than the server accepts. The site writes short links; a link this "
                       "long was probably edited by hand or pasted twice. Open the page without it.")
        super().send_error(code, message, explain)

    def handle(self) -> None:
        # A browser that drops a download it no longer needs (a page left, an
        # extra engine worker stopped) is not an error of the server's.
        try:
            super().handle()
        except (ConnectionResetError, BrokenPipeError):
            pass

    def log_message(self, format: str, *args: Any) -> None:
        if os.environ.get("SITE_QUIET") != "1":
            super().log_message(format, *args)


def serve(directory: Path, host: str = "127.0.0.1", port: int = 8000) -> None:
    handler = partial(SiteHandler, directory=str(directory))
    with http.server.ThreadingHTTPServer((host, port), handler) as httpd:
        print(f"Serving {directory} at http://{host}:{port}/ (Ctrl-C stops)", flush=True)
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", choices=("build", "serve"), default="build")
    parser.add_argument("--output", type=Path, default=Config.output)
    parser.add_argument("--content", type=Path, default=Config.content)
    parser.add_argument("--no-runtime", action="store_true", help="skip Pyodide and the wheel")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    config = Config(content=args.content, output=args.output, runtime=not args.no_runtime)
    try:
        files = build(config)
    except BuildError as exc:
        print(f"build failed: {exc}", file=sys.stderr)
        return 1
    print(f"built {len(files)} files into {config.output}")
    if args.command == "serve":
        serve(config.output, port=args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
