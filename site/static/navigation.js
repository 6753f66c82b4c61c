// The site: one engine per visit, in-site links without reloads. Binds the
// widgets of each page it shows (calculator.js), keeps the address bar and the
// share boxes in step with them, and fetches and parses likely next pages ahead.

import { Engine } from "./engine-client.js";
import { Pool } from "./pool.js";
import { LiveWidget } from "./calculator.js";
import { updateListButtons } from "./forms.js";
import { hashSettings, linkParams, repeatedKeys } from "./links.js";

const PUBLISH_DELAY_MS = 150;
const PARSED_AHEAD_MAX = 4; // pages parsed ahead of a click, kept at most

// Runs `task` once the browser is idle; where it cannot tell, after `fallbackMs`.
function whenIdle(task, fallbackMs) {
  if (window.requestIdleCallback) window.requestIdleCallback(task);
  else setTimeout(task, fallbackMs);
}

export class Site {
  constructor() {
    this.engine = null;
    this.pool = null; // Monte Carlo runs, over one engine worker or several (pool.js)
    this.widgets = [];
    this.mountId = 0;
    this.pages = new Map(); // url -> Promise<html text>, so back and forward are instant
    this.parsed = new Map(); // url -> Document parsed ahead of a click (parseAhead), used once
    this.parsedUsed = 0; // how many navigations found their page parsed ahead (tests read it)
    this.pinned = false; // head links made absolute (pinHeadLinks)
    this.publishTimer = null; // a pending publishState
    this.path = location.pathname + location.search;
  }

  ensureEngine() {
    if (this.engine) return;
    this.engine = new Engine();
    // Monte Carlo runs go through the pool: one worker (the engine's own)
    // unless this machine has cores to spare (pool.js).
    this.pool = new Pool(this.engine, window.rulesExplorerSpawnEngine);
    this.engine.onState((state, detail) => this.engineState(state, detail));
  }

  // Bind the widgets of the document as it is now.
  mount() {
    const mountId = ++this.mountId;
    const sections = [...document.querySelectorAll("section.widget[data-widget]")];
    delete document.documentElement.dataset.widgetsLive;
    this.widgets = [];
    this.started = false;
    if (document.getElementById("search-page")) import("./search.js").then((m) => m.mountSearch());
    if (!sections.length) {
      this.prefetchNeighbours(mountId);
      return;
    }
    this.ensureEngine();
    this.widgets = sections.map((s) => new LiveWidget(s, this.engine, this));
    for (const w of this.widgets) {
      for (const list of w.form.querySelectorAll("fieldset.list")) updateListButtons(list);
    }
    this.links = linkParams();
    const known = new Set(this.widgets.map((w) => w.instance));
    const unknown = [...this.links.keys()].filter((k) => !known.has(k));
    if (unknown.length) this.reportUnknown(unknown, this.links);
    const hashed = hashSettings(location.hash);
    if (hashed !== null) this.reportHashState(hashed);
    const repeated = repeatedKeys();
    if (repeated.length) this.reportRepeated(repeated);
    this.engineState(this.engine.state, this.engine.stage, mountId);
  }

  engineState(state, detail, mountId = this.mountId) {
    for (const w of this.widgets) w.setStatus(state, state === "failed"
      ? `The live engine could not start (${detail}). The results shown were pre-rendered at build time.`
      : state === "loading" ? `${detail}… The result shown was pre-rendered by the same engine.` : detail);
    if (state === "failed") document.documentElement.dataset.engine = "failed";
    if (state !== "live" || this.started || !this.widgets.length) return;
    this.started = true;
    document.documentElement.dataset.engine = "live";
    const path = location.pathname;
    Promise.all(this.widgets.map((w) => w.start(this.links.get(w.instance)))).then(() => {
      // Every widget of this page shows a live result (benchmarks and tests wait on this).
      if (mountId !== this.mountId) return;
      performance.mark("widgets-live", { detail: path });
      document.documentElement.dataset.widgetsLiveMs = String(Math.round(performance.now()));
      document.documentElement.dataset.widgetsLive = path;
      this.prefetchNeighbours(mountId);
    });
  }

  // Readers go on to the next section: once the page is up and the browser is
  // idle, fetch the pager's pages, so that following them swaps them in at once.
  prefetchNeighbours(mountId) {
    if (navigator.connection?.saveData) return;
    whenIdle(() => {
      if (mountId !== this.mountId) return;
      for (const a of document.querySelectorAll("a[rel=next], a[rel=prev]")) {
        const url = this.inSite(a);
        if (url) this.parseAhead(url);
      }
    }, 500);
  }

  reportUnknown(unknown, links) {
    const parts = unknown.map((k) => Object.keys(links.get(k)).map((p) => (p ? `${k}.${p}` : k)).join(", ")).join("; ");
    const applied = links.size > unknown.length ? " The rest of the link was applied." : "";
    linkNotice(`Part of this link was not applied: ${parts} names no widget on this page.${applied}`);
  }

  // Settings written after the link's "#" (a hand-made link, or one whose "?" a tool turned into "#"): the site
  // reads a widget's state from the query alone, so say that they were not applied rather than drop them unseen.
  reportHashState(shown) {
    linkNotice(`Part of this link was not applied: "${shown}" comes after its "#", where the site reads no ` +
      `settings. A link copied from a widget puts them after "?".`);
  }

  // A key the link gives twice (a hand-edited link that added a value rather than changed one): the last counts.
  reportRepeated(keys) {
    const shown = keys.map((k) => (k.length > 80 ? `${k.slice(0, 80)}…` : k)).join(", ");
    linkNotice(`This link gives ${shown} more than once; the last value given was applied.`);
  }

  // The address bar and the share boxes follow the widgets' state once it has
  // settled for a moment: writing history on every answer would cost the page a
  // restyle each time (and Chromium refetches the page's icon).
  publishState() {
    clearTimeout(this.publishTimer);
    this.publishTimer = setTimeout(() => this.flushState(), PUBLISH_DELAY_MS);
  }

  flushState() {
    if (this.publishTimer === null) return;
    clearTimeout(this.publishTimer);
    this.publishTimer = null;
    this.updateUrl();
    for (const w of this.widgets) w.updateShare();
  }

  updateUrl() {
    const params = new URLSearchParams();
    for (const w of this.widgets) for (const [k, v] of w.params()) params.append(k, v);
    const query = params.toString();
    const url = `${location.pathname}${query ? "?" + query : ""}${location.hash}`;
    if (url !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(history.state, "", url);
    this.path = location.pathname + location.search;
  }

  // -- navigation --

  listen() {
    document.addEventListener("click", (event) => this.click(event));
    document.addEventListener("submit", (event) => {
      const form = event.target;
      if (event.defaultPrevented || !form.matches("form.site-search")) return;
      event.preventDefault();
      const url = new URL(form.action, location.href);
      url.search = new URLSearchParams(new FormData(form)).toString();
      this.navigate(url, true);
    });
    window.addEventListener("popstate", (event) => this.popstate(event));
    for (const type of ["pointerover", "focusin"]) {
      document.addEventListener(type, (event) => {
        const url = this.inSite(event.target.closest?.("a[href]"));
        if (url) this.parseAhead(url);
      }, { passive: true });
    }
    history.scrollRestoration = "manual";
    window.addEventListener("pagehide", () => { this.flushState(); this.saveScroll(); });
  }

  inSite(anchor) {
    if (!anchor || anchor.target || anchor.hasAttribute("download") || anchor.dataset.example !== undefined) return null;
    const url = new URL(anchor.href, location.href);
    if (url.origin !== location.origin || !/(\.html|\/)$/.test(url.pathname)) return null;
    if (url.pathname === location.pathname && url.search === location.search) return null; // same page: let the browser scroll
    return url;
  }

  click(event) {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = event.target.closest("a[href]");
    const url = this.inSite(anchor);
    if (!url) return;
    event.preventDefault();
    this.navigate(url, true, 0, anchor);
  }

  popstate(event) {
    const here = location.pathname + location.search;
    if (here === this.path) { // only the hash changed: the same widgets, so their state goes on
      this.flushState();
      return;
    }
    // Another entry: a state still to be written belonged to the one left.
    clearTimeout(this.publishTimer);
    this.publishTimer = null;
    this.navigate(new URL(location.href), false, event.state?.scrollY ?? 0);
  }

  // Parsing a page costs 10-20 ms, as much as the rest of a navigation: a page
  // likely to be followed (the pager's, one under the pointer or focus) is
  // fetched and then parsed while the browser is idle. A parsed copy serves
  // one navigation (its nodes move into this document); later ones parse the
  // fetched text again.
  parseAhead(url) {
    const key = url.pathname + url.search;
    this.fetchPage(url).then((html) => whenIdle(() => {
      if (this.parsed.has(key) || key === this.path) return;
      if (this.parsed.size >= PARSED_AHEAD_MAX) this.parsed.delete(this.parsed.keys().next().value);
      this.parsed.set(key, new DOMParser().parseFromString(html, "text/html"));
    }, 50), () => {}); // a failure is the click's to handle
  }

  parsedPage(url, html) {
    const key = url.pathname + url.search;
    const ahead = this.parsed.get(key);
    if (!ahead) return new DOMParser().parseFromString(html, "text/html");
    this.parsed.delete(key);
    this.parsedUsed++;
    return ahead;
  }

  fetchPage(url) {
    const key = url.pathname + url.search;
    if (!this.pages.has(key)) {
      const request = fetch(url.pathname + url.search, { credentials: "same-origin" }).then((r) => {
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
        return r.text();
      });
      request.catch(() => this.pages.delete(key));
      this.pages.set(key, request);
    }
    return this.pages.get(key);
  }

  // Head links are relative to the first page: pin them before the URL moves
  // away from it. (Not at load: rewriting the stylesheet's link costs a restyle.)
  pinHeadLinks() {
    if (this.pinned) return;
    this.pinned = true;
    for (const link of document.head.querySelectorAll("link[href]")) link.setAttribute("href", link.href);
  }

  saveScroll() {
    history.replaceState({ ...(history.state || {}), site: true, scrollY: window.scrollY }, "");
  }

  // `anchor`: the link followed (a reader's click), beside which a page the network could not bring is said.
  async navigate(url, push, scrollY = 0, anchor = null) {
    let html;
    try {
      html = await this.fetchPage(url);
    } catch (error) {
      // No answer at all (offline, before the site was saved for offline use): the page stays as it is, with its
      // widgets' state, and says so; the browser's own error page would leave the reader nothing to go back to.
      if (push && error instanceof TypeError) {
        unreachable(anchor, "That page could not be loaded: the network did not answer, and this device has no "
                            + "offline copy of it yet. This page stays as it was; try again once you are online.");
        return;
      }
      location.assign(url.href); // let the browser show whatever the server says
      return;
    }
    document.querySelector(".unreachable")?.remove();
    const next = this.parsedPage(url, html);
    const parts = ["header.site-header", "div.layout", "footer.site-footer"];
    if (!parts.every((sel) => next.querySelector(sel) && document.querySelector(sel))) {
      location.assign(url.href);
      return;
    }
    if (push) {
      this.flushState();
      this.pinHeadLinks();
      this.saveScroll();
      history.pushState({ site: true, scrollY: 0 }, "", url.href);
    }
    this.path = location.pathname + location.search;
    for (const sel of parts) document.querySelector(sel).replaceWith(document.adoptNode(next.querySelector(sel)));
    document.title = next.title;
    document.body.className = next.body.className;
    const description = next.querySelector('meta[name="description"]');
    document.querySelector('meta[name="description"]')?.remove();
    if (description) document.head.appendChild(document.adoptNode(description));
    document.documentElement.dataset.hasWidgets = next.documentElement.dataset.hasWidgets ?? "";
    this.mount();
    const target = url.hash ? document.getElementById(decodeURIComponent(url.hash.slice(1))) : null;
    if (target) target.scrollIntoView();
    else window.scrollTo(0, push ? 0 : scrollY);
    // Move focus to the new content so keyboard and screen reader users start there.
    const main = document.getElementById("main");
    main?.focus({ preventScroll: true });
  }
}

// A page the network did not bring, said after the block of the page's main that holds the link followed (the
// pager, a paragraph, a list), else at the top of main (a link of the site's navigation), and given focus: it is
// where the reader is, and a keyboard reader goes on from there.
function unreachable(anchor, text) {
  document.querySelector(".unreachable")?.remove();
  const note = document.createElement("p");
  note.className = "unreachable link-notice";
  note.setAttribute("role", "alert");
  note.tabIndex = -1;
  note.textContent = text;
  const block = anchor?.closest("main p, main nav, main ul, main ol");
  if (block) block.after(note);
  else document.querySelector("main")?.prepend(note);
  note.focus();
}

// A notice about the page's link, at the top of the article (of an embed page, which has none, its main), as text
// (a link's words are never markup).
function linkNotice(text) {
  const note = document.createElement("div");
  note.className = "link-notice";
  note.setAttribute("role", "alert");
  note.textContent = text;
  (document.querySelector("main article") ?? document.querySelector("main"))?.prepend(note);
}
