// Page side of the live widgets: one engine worker per page, forms read as
// data, results swapped in from the engine's own HTML, state kept in the URL.
//
// The page is complete without this script: every widget carries its result
// pre-rendered at build time by the same engine.

import { SimulationView } from "./simulation.js";
import * as table from "./table-editor.js";

const SEED_KEY = "seed";
const TRIALS_KEY = "trials";
// A query longer than this goes into the link as the engine's compact state
// (?instance=~1.…) instead of one parameter per input.
const COMPACT_OVER = 600;
// Many servers and CDNs refuse a request line past 8 KB: the share box says so.
const SAFE_LINK_LENGTH = 8000;
const DEBOUNCE_MS = 150;
const DEFAULT_SEED = "1";
const PUBLISH_DELAY_MS = 150;
const PARSED_AHEAD_MAX = 4; // pages parsed ahead of a click, kept at most

// Runs `task` once the browser is idle; where it cannot tell, after `fallbackMs`.
function whenIdle(task, fallbackMs) {
  if (window.requestIdleCallback) window.requestIdleCallback(task);
  else setTimeout(task, fallbackMs);
}
// Pyodide hangs rather than fails on some broken set-ups (a .wasm served with
// the wrong type, a dropped download): after this long, say so.
const BOOT_TIMEOUT_MS = globalThis.rulesExplorerBootTimeoutMs ?? 90_000;
// A boot that stalls is started again in a fresh worker. The booting worker
// sends a heartbeat every second with how far it has come: no message at all
// for STALL_MS means its thread is stuck (Firefox did this now and then,
// NOTES.md); heartbeats that show no progress for STUCK_MS mean it waits for
// something that will not come. The last restart boots without the snapshot.
// A plain boot is never restarted: Python's own start then runs for seconds
// without a heartbeat (over 10 s in WebKit on a busy machine), and there is
// no better boot to restart to; BOOT_TIMEOUT_MS still bounds it. Tests
// shorten the bounds through these globals.
const STALL_MS = globalThis.rulesExplorerStallMs ?? 10_000;
const STUCK_MS = globalThis.rulesExplorerStuckMs ?? 30_000;
const RESTARTS = 2;
const WATCH_EVERY_MS = 500;
const ORDINAL = ["first", "second", "third"];

// ---- engine client ----------------------------------------------------

class Engine {
  constructor() {
    this.pending = new Map();
    this.jobProgress = new Map(); // job id -> progress listener
    this.nextId = 1;
    this.listeners = new Set();
    this.state = "loading";
    this.stage = "Starting the engine";
    this.restarts = 0;
    this.plainBoot = false; // the worker said it boots without the snapshot
    this.restartNote = ""; // says why the engine was started again, from then on
    this.started = performance.now();
    // engine-start.js starts the worker, the one place that does (it may have
    // done so while the page was parsed).
    if (!this.adopt(window.rulesExplorerWorker ?? window.rulesExplorerStartEngine?.())) {
      this.setState("failed", typeof Worker === "undefined"
        ? "this browser cannot run it (no Web Workers)" : "its start-up script did not load");
      return;
    }
    this.watchdog = setInterval(() => this.watch(), WATCH_EVERY_MS);
  }

  // Takes over a worker from engine-start.js and replays what it said so far.
  adopt(worker) {
    delete window.rulesExplorerWorker;
    if (!worker) return false;
    this.worker = worker;
    this.heard = this.moved = performance.now();
    this.progress = "";
    worker.onmessage = (event) => { if (this.worker === worker) this.receive(event.data); };
    worker.onerror = (event) => {
      event.preventDefault();
      if (this.worker === worker) this.setState("failed", event.message || "the engine worker could not start");
    };
    for (const item of worker.early ?? []) {
      if (item.type === "message") this.receive(item.data);
      else this.setState("failed", item.message || "the engine worker could not start");
    }
    return true;
  }

  watch() {
    if (this.state !== "loading") return;
    const now = performance.now();
    if (now - this.started >= BOOT_TIMEOUT_MS) {
      this.setState("failed", `it did not start within ${Math.round(BOOT_TIMEOUT_MS / 1000)} s`);
      this.worker.terminate();
    } else if (document.hidden || this.plainBoot || this.restarts >= RESTARTS) {
      // Browsers run a hidden page's timers late, and may a worker's: a
      // stall is judged only while the page is seen, from then on. The
      // plain boot, and the last restart, are left to BOOT_TIMEOUT_MS.
      this.heard = this.moved = now;
    } else if (now - this.heard >= STALL_MS) {
      this.restart("stopped answering");
    } else if (now - this.moved >= STUCK_MS) {
      this.restart("stopped making progress");
    }
  }

  // Replaces a stalled worker with a fresh one; the last one boots plainly.
  restart(why) {
    this.worker.terminate();
    this.restarts++;
    const plain = this.restarts === RESTARTS;
    this.restartNote = `, on its ${ORDINAL[this.restarts]} start (the ${ORDINAL[this.restarts - 1]} ${why})`;
    this.setState("loading", `Starting the engine again${plain ? " without the snapshot" : ""}`);
    if (!this.adopt(window.rulesExplorerStartEngine?.({ plain }))) this.setState("failed", "it could not be started again");
  }

  receive(data) {
    this.heard = performance.now();
    if (data.type === "alive") { // the booting worker's heartbeat
      const progress = `${data.stages}/${data.bytes}`;
      if (progress !== this.progress) this.moved = this.heard;
      this.progress = progress;
      return;
    }
    if (data.type === "status") {
      this.moved = this.heard;
      if (data.plain) this.plainBoot = true;
      return this.setState("loading", data.detail + this.restartNote);
    }
    if (data.type === "ready") {
      document.documentElement.dataset.boot = data.boot; // "snapshot", or "plain" when the snapshot failed
      this.bootStages = data.stages;
      this.bootOrigin = data.timeOrigin; // the worker's performance.timeOrigin, which its stages count from
      this.bootSmallModules = data.smallModules; // {asked, compiled}: see compileSmallModulesOnce
      this.bootRestarts = this.restarts;
      performance.mark("engine-ready");
      const fallback = data.fallback ? `, started without the snapshot (${data.fallback})` : "";
      return this.setState("live", `Live: the engine answered after ${data.ms} ms${fallback}${this.restartNote}.`);
    }
    if (data.type === "failed") return this.setState("failed", data.message);
    if (data.type === "warm") { // the worker has warmed its WebAssembly up: answers are at full speed
      this.bootStages = data.stages;
      document.documentElement.dataset.engineWarmMs = String(Math.round(performance.now()));
      return;
    }
    if (data.progress) {
      this.jobProgress.get(data.id)?.(data.progress);
      return;
    }
    const waiting = this.pending.get(data.id);
    if (!waiting) return;
    this.pending.delete(data.id);
    waiting(data);
  }

  setState(state, detail) {
    if (this.state === "failed") return; // a failed engine stays failed (the watchdog may have fired)
    if (state !== "loading") clearInterval(this.watchdog);
    this.state = state;
    this.stage = detail;
    for (const listener of this.listeners) listener(state, detail);
  }

  onState(listener) {
    this.listeners.add(listener);
    listener(this.state, this.stage);
  }

  call(request) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ id, ...request });
    });
  }

  // A Monte Carlo run in the worker's scheduler: `onProgress` hears how far it
  // has come a few times a second; `done` resolves with the last answer (or an
  // error, type "Cancelled" when stopped or replaced).
  job(request, onProgress) {
    const id = this.nextId++;
    this.jobProgress.set(id, onProgress);
    const done = new Promise((resolve) => {
      this.pending.set(id, (answer) => {
        this.jobProgress.delete(id);
        resolve(answer);
      });
      this.worker.postMessage({ id, op: "job", ...request });
    });
    return { done, cancel: () => this.worker.postMessage({ op: "cancel", job: id }) };
  }

  // Resolves once every request sent so far has been answered (benchmarks use it).
  async idle() {
    while (this.pending.size) {
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }
}

// ---- reading and filling forms -----------------------------------------

function keyed(container) {
  // Direct data-key descendants of container (not those inside a nested keyed element).
  const out = [];
  for (const child of container.children) {
    if (child.dataset.key !== undefined) out.push(child);
    else if (child.tagName !== "TEMPLATE") out.push(...keyed(child));
  }
  return out;
}

function collect(container) {
  const data = {};
  for (const el of keyed(container)) {
    const key = el.dataset.key;
    if (el.classList.contains("list")) {
      data[key] = [...table.itemsOf(el).children].map((item) => collect(item));
    } else if (el.classList.contains("field")) {
      const control = el.querySelector("input, select");
      data[key] = control.type === "checkbox" ? control.checked : control.value;
    } else {
      data[key] = collect(el);
    }
  }
  return data;
}

function fill(container, values) {
  for (const el of keyed(container)) {
    const key = el.dataset.key;
    if (!Object.hasOwn(values, key)) continue;
    const value = values[key];
    if (el.classList.contains("list") && table.isTable(el)) {
      table.resize(el, value.length); // rows built in one pass; none renumbered
      [...table.itemsOf(el).children].forEach((row, i) => fill(row, value[i]));
    } else if (el.classList.contains("list")) {
      const items = el.querySelector(":scope > ol.items");
      while (items.children.length > value.length) items.lastElementChild.remove();
      while (items.children.length < value.length) addItem(el, false);
      renumber(el);
      [...items.children].forEach((li, i) => fill(li, value[i]));
      updateListButtons(el);
    } else if (el.classList.contains("field")) {
      const control = el.querySelector("input, select");
      if (control.type === "checkbox") control.checked = value === true;
      else control.value = String(value);
    } else {
      fill(el, value);
    }
  }
}

function listPath(list) {
  return list.querySelector(":scope > template").content.querySelector("[name]")?.name.replace(/\.__i__\..*$/, "") ?? "";
}

function addItem(list, focus) {
  if (table.isTable(list)) {
    const row = table.addRow(list);
    if (focus) row.querySelector("input, select")?.focus();
    return row;
  }
  const template = list.querySelector(":scope > template");
  const items = list.querySelector(":scope > ol.items");
  const li = template.content.firstElementChild.cloneNode(true);
  items.appendChild(li);
  renumber(list);
  updateListButtons(list);
  if (focus) li.querySelector("input, select")?.focus();
  return li;
}

function renumber(list) {
  const path = listPath(list);
  const idBase = list.id;
  const items = list.querySelector(":scope > ol.items").children;
  [...items].forEach((li, i) => {
    const swapName = (v) => v.replace(new RegExp("^" + escapeRe(path + ".") + "(\\d+|__i__)"), `${path}.${i}`);
    const swapId = (v) => v.split(" ").map((t) => t.replace(new RegExp("^" + escapeRe(idBase + "-") + "(\\d+|__i__)"), `${idBase}-${i}`)).join(" ");
    for (const el of li.querySelectorAll("[name]")) el.name = swapName(el.name);
    for (const el of li.querySelectorAll("[id]")) el.id = swapId(el.id);
    for (const el of li.querySelectorAll("label[for]")) el.htmlFor = swapId(el.htmlFor);
    for (const el of li.querySelectorAll("[aria-describedby]")) el.setAttribute("aria-describedby", swapId(el.getAttribute("aria-describedby")));
    for (const el of li.querySelectorAll(":scope > fieldset > legend .item-number, :scope > fieldset > .remove-item .item-number")) el.textContent = String(i + 1);
  });
}

function updateListButtons(list) {
  if (table.isTable(list)) return table.updateButtons(list);
  const count = list.querySelector(":scope > ol.items").children.length;
  const max = Number(list.dataset.max);
  const min = Number(list.dataset.min);
  list.querySelector(":scope > .add-item").disabled = count >= max;
  for (const button of list.querySelectorAll(":scope > ol.items > li > fieldset > .remove-item")) button.disabled = count <= min;
}

function escapeRe(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// ---- links -------------------------------------------------------------

function linkParams() {
  // instance -> {path: text} from the query string. A Map, and objects with no
  // prototype: a link's keys (`__proto__`, `constructor`) are data, never a
  // way onto the page's own objects.
  const groups = new Map();
  for (const [key, value] of new URLSearchParams(location.search)) {
    const dot = key.indexOf(".");
    const instance = dot < 0 ? key : key.slice(0, dot);
    const path = dot < 0 ? "" : key.slice(dot + 1);
    if (!groups.has(instance)) groups.set(instance, Object.create(null));
    groups.get(instance)[path] = value;
  }
  return groups;
}

// The link parameters of one widget: its inputs that differ from the page's,
// one parameter each, or, past COMPACT_OVER characters, the engine's compact
// state; then the seed and the number of trials when not the defaults.
function queryFor(instance, link, state, seed, trials) {
  const params = new URLSearchParams();
  for (const [path, text] of Object.entries(link)) params.append(`${instance}.${path}`, text);
  if (state && params.toString().length > COMPACT_OVER) {
    params.forEach((_, key) => params.delete(key));
    params.append(instance, state);
  }
  if (seed !== null && seed !== DEFAULT_SEED) params.append(`${instance}.${SEED_KEY}`, seed);
  if (trials !== null) params.append(`${instance}.${TRIALS_KEY}`, trials);
  return params;
}

// ---- one widget --------------------------------------------------------

class LiveWidget {
  constructor(section, engine, site) {
    this.section = section;
    this.engine = engine;
    this.site = site;
    this.instance = section.dataset.instance;
    this.widget = section.dataset.widget;
    this.base = JSON.parse(section.querySelector(".widget-base").textContent);
    this.form = section.querySelector(".widget-form");
    this.result = section.querySelector(".widget-result");
    this.messages = section.querySelector(".widget-messages");
    this.status = section.querySelector(".engine-status");
    this.seedInput = section.querySelector("input.seed");
    this.rollResult = section.querySelector(".roll-result");
    this.shareInput = section.querySelector(".share-link");
    this.shareNote = null;
    this.sim = section.querySelector(".widget-sim") ? new SimulationView(section, engine) : null;
    this.state = ""; // the engine's compact form of the inputs (see queryFor)
    this.seq = 0;
    this.link = {};
    this.timer = null;
    this.bind();
  }

  bind() {
    this.form.addEventListener("submit", (e) => e.preventDefault());
    this.form.addEventListener("input", (e) => {
      if (e.target.matches("input[type=text], input[type=number]")) this.schedule();
    });
    this.form.addEventListener("change", (e) => {
      if (e.target.matches(".changed-only")) this.showChangedOnly(e.target);
      else this.recompute();
    });
    this.section.addEventListener("click", (e) => this.click(e));
    this.seedInput?.addEventListener("change", () => this.roll(this.seedInput.value));
    this.sim?.trialsInput.addEventListener("change", () => this.runSim());
    this.sim?.trialsInput.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); this.runSim(); }
    });
    this.seedInput?.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); this.roll(this.seedInput.value); }
    });
  }

  click(event) {
    const target = event.target.closest("[data-action], a[data-example]");
    if (!target || !this.section.contains(target)) return;
    if (target.matches("a[data-example]")) {
      if (this.engine.state !== "live") return; // a normal page load applies it
      event.preventDefault();
      const pairs = Object.create(null);
      for (const [key, value] of new URLSearchParams(target.dataset.example)) pairs[key.slice(this.instance.length + 1)] = value;
      this.applyLink(pairs).then(() => this.section.scrollIntoView({ block: "start" }));
      return;
    }
    const action = target.dataset.action;
    if (action === "add-item") { addItem(target.closest("fieldset.list"), true); this.recompute(); }
    else if (["remove-item", "duplicate-item", "move-up", "move-down"].includes(action) && table.isTable(target.closest("fieldset.list"))) {
      this.editRow(action, target);
    }
    else if (action === "remove-item") {
      const list = target.closest("fieldset.list");
      const li = target.closest("li[data-item]");
      const next = li.nextElementSibling || li.previousElementSibling;
      li.remove();
      renumber(list);
      updateListButtons(list);
      (next?.querySelector("input, select") || list.querySelector(".add-item")).focus();
      this.recompute();
    }
    else if (action === "roll") this.roll(String(Math.floor(Math.random() * 1_000_000)));
    else if (action === "replay") this.roll(this.seedInput.value);
    else if (action === "copy-link") this.copyLink();
    else if (action === "sim-run") this.runSim();
    else if (action === "reset-section") this.resetSection(target.closest(".settings-section"));
    else if (action === "sim-stop") this.sim?.stop();
    else if (action === "reset") { fill(this.form, this.base); if (this.seedInput) this.seedInput.value = DEFAULT_SEED; this.recompute(); }
  }

  setStatus(state, text) {
    this.status.dataset.state = state;
    this.status.textContent = text;
    const live = state === "live";
    for (const b of this.section.querySelectorAll("[data-action]")) {
      if (!b.matches(".add-item, .remove-item, [data-action=sim-stop]")) b.disabled = !live;
    }
    this.sim?.setLive(live);
  }

  schedule() {
    clearTimeout(this.timer);
    this.markPending();
    this.timer = setTimeout(() => this.recompute(), DEBOUNCE_MS);
  }

  markPending() {
    this.result.dataset.state = "pending";
    this.result.setAttribute("aria-busy", "true");
  }

  // `estimate`: whether the Monte Carlo estimate follows (not at the page's
  // start, where the pre-rendered one is the page's own state).
  async recompute({ estimate = true } = {}) {
    clearTimeout(this.timer);
    if (this.engine.state !== "live") return;
    const seq = ++this.seq;
    const inputs = collect(this.form);
    this.markPending();
    // The sample roll follows the same inputs: ask for both at once.
    const ran = this.engine.call({ op: "run", widget: this.widget, inputs, base: this.base });
    const rolled = this.seedInput ? this.requestRoll(inputs, this.seedInput.value) : null;
    const answer = await ran;
    if (seq !== this.seq) return; // a newer request is on its way; never show an older answer
    this.show(answer);
    if (!answer.error && rolled) this.showRoll(await rolled, seq);
    if (!answer.error && estimate) this.runSim(); // the estimate follows the inputs too (a new run replaces the old)
  }

  // A row of a list table: duplicated just below, moved, or removed; focus
  // stays on the row (or goes to its neighbour) so keyboard use goes on.
  editRow(action, button) {
    const list = button.closest("fieldset.list");
    const row = button.closest("[data-item]");
    if (action === "duplicate-item") {
      const copy = table.duplicateRow(list, row, (from, to) => fill(to, collect(from)));
      copy.querySelector("[data-action=duplicate-item]")?.focus();
    } else if (action === "move-up" || action === "move-down") {
      table.moveRow(list, row, action === "move-up" ? -1 : 1);
      (button.disabled ? row.querySelector("[data-action=remove-item]") : button).focus();
    } else {
      const next = table.removeRow(list, row);
      (next?.querySelector("input, select") || list.querySelector(".add-item")).focus();
    }
    this.recompute();
  }

  // The settings panel: which settings differ from the page's own, their
  // count in the summary, and (when asked) only those shown.
  markChanged() {
    for (const details of this.form.querySelectorAll("details.settings")) {
      const base = this.base[details.dataset.key] ?? {};
      let changed = 0;
      for (const el of keyed(details)) {
        if (!el.classList.contains("field")) continue;
        const control = el.querySelector("input, select");
        const was = Object.hasOwn(base, el.dataset.key) ? base[el.dataset.key] : undefined;
        const differs = control.type === "checkbox" ? control.checked !== (was === true) : control.value.trim() !== String(was);
        el.classList.toggle("changed", differs);
        if (differs) changed++;
      }
      for (const section of details.querySelectorAll(".settings-section")) {
        section.classList.toggle("has-changed", Boolean(section.querySelector(".field.changed")));
      }
      details.querySelector(".settings-changed").textContent = changed ? `(${changed} changed)` : "";
    }
  }

  showChangedOnly(box) {
    box.closest("details.settings").classList.toggle("changed-only", box.checked);
  }

  resetSection(section) {
    const base = this.base[section.closest("details.settings").dataset.key] ?? {};
    const values = Object.create(null);
    for (const el of keyed(section)) if (Object.hasOwn(base, el.dataset.key)) values[el.dataset.key] = base[el.dataset.key];
    fill(section, values);
    this.recompute();
  }

  // Runs the Monte Carlo estimate for the form's inputs, the seed and the trials.
  runSim() {
    if (!this.sim || this.engine.state !== "live") return;
    const seed = this.seedInput ? this.seedInput.value.trim() : DEFAULT_SEED;
    this.sim.run(this.widget, collect(this.form), seed).then(() => this.site.publishState());
  }

  show(answer, rejected = []) {
    this.clearErrors();
    this.result.removeAttribute("aria-busy");
    if (answer.error) {
      this.result.dataset.state = "stale";
      this.showError(answer.error);
      return;
    }
    const { html, link, digest, state } = answer.result;
    // Identical to what is shown (the pre-rendered result, the first time): leave the DOM be.
    if (digest !== this.result.dataset.digest) {
      this.result.innerHTML = html;
      this.result.dataset.digest = digest;
    }
    this.result.dataset.state = "live";
    this.section.dispatchEvent(new CustomEvent("widget-result", { bubbles: true, detail: { instance: this.instance } }));
    this.link = link;
    this.state = state ?? "";
    this.markChanged();
    this.site.publishState();
    if (rejected.length) {
      this.messages.hidden = false;
      this.messages.innerHTML = "";
      const p = document.createElement("p");
      p.textContent = "Part of the link was not applied; the rest was. Not applied:";
      const ul = document.createElement("ul");
      for (const r of rejected) {
        const li = document.createElement("li");
        li.textContent = r.message;
        ul.appendChild(li);
      }
      this.messages.append(p, ul);
    }
  }

  clearErrors() {
    this.messages.hidden = true;
    this.messages.textContent = "";
    for (const el of this.section.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
    for (const el of this.section.querySelectorAll(".field-error")) { el.hidden = true; el.textContent = ""; }
  }

  showError(error) {
    const message = error.message || "the engine rejected this input";
    this.messages.hidden = false;
    this.messages.textContent = `Not computed: ${message}. The result below is the last valid one.`;
    if (error.field) {
      const cid = `${this.instance}--${error.field.replace(/\./g, "-")}`;
      const control = document.getElementById(cid);
      control?.setAttribute("aria-invalid", "true");
      const slot = document.getElementById(`${cid}-error`);
      if (slot) { slot.hidden = false; slot.textContent = message; }
    }
  }

  async roll(seedText) {
    if (!this.seedInput || this.engine.state !== "live") return;
    this.seedInput.value = seedText;
    this.showRoll(await this.requestRoll(collect(this.form), seedText), null);
  }

  requestRoll(inputs, seedText) {
    return this.engine.call({ op: "sample", widget: this.widget, inputs, seed: seedText.trim() });
  }

  // `seq`: the recompute this roll belongs to; it is dropped if a newer one started.
  showRoll(answer, seq) {
    if (seq !== null && seq !== this.seq) return;
    if (answer.error) {
      if (answer.error.field === "seed") {
        this.seedInput.setAttribute("aria-invalid", "true");
        this.messages.hidden = false;
        this.messages.textContent = `Not rolled: ${answer.error.message}.`;
      }
      return;
    }
    this.seedInput.removeAttribute("aria-invalid");
    if (answer.result.digest !== this.rollResult.dataset.digest) {
      this.rollResult.innerHTML = answer.result.html;
      this.rollResult.dataset.digest = answer.result.digest;
    }
    this.site.publishState();
  }

  seed() {
    return this.seedInput ? this.seedInput.value.trim() : null;
  }

  trials() {
    if (!this.sim) return null;
    const text = this.sim.trialsInput.value.trim();
    return text === this.sim.root.dataset.trials ? null : text;
  }

  params() {
    return queryFor(this.instance, this.link, this.state, this.seed(), this.trials());
  }

  updateShare() {
    const query = this.params().toString();
    this.shareInput.value = `${location.origin}${location.pathname}${query ? "?" + query : ""}#${this.instance}`;
    const long = this.shareInput.value.length > SAFE_LINK_LENGTH;
    if (long && !this.shareNote) {
      this.shareNote = document.createElement("p");
      this.shareNote.className = "share-note";
      this.shareInput.closest(".widget-share").after(this.shareNote);
    }
    if (this.shareNote) {
      this.shareNote.hidden = !long;
      this.shareNote.textContent = long ? `This link is ${this.shareInput.value.length.toLocaleString("en")} characters long; `
        + "many servers refuse links over 8,000 characters, so it may not open elsewhere. Fewer changes make it shorter." : "";
    }
  }

  async copyLink() {
    this.updateShare();
    this.shareInput.select();
    try {
      await navigator.clipboard.writeText(this.shareInput.value);
      this.status.textContent = "Link copied.";
    } catch {
      this.status.textContent = "Link selected: copy it with Ctrl+C or Cmd+C.";
    }
  }

  async applyLink(pairs) {
    const seed = pairs[SEED_KEY];
    delete pairs[SEED_KEY];
    if (seed !== undefined && this.seedInput) this.seedInput.value = seed;
    const trials = pairs[TRIALS_KEY];
    delete pairs[TRIALS_KEY];
    if (trials !== undefined && this.sim) this.sim.trialsInput.value = trials;
    const seq = ++this.seq;
    this.markPending();
    const answer = await this.engine.call({ op: "from_link", widget: this.widget, params: pairs, base: this.base });
    if (seq !== this.seq) return;
    if (!answer.error) fill(this.form, answer.result.inputs);
    this.show(answer, answer.error ? [] : answer.result.rejected);
    if (!answer.error && this.seedInput) this.showRoll(await this.requestRoll(collect(this.form), this.seedInput.value), seq);
    // The pre-rendered estimate is the page's own state: run only for another.
    if (!answer.error && seq === this.seq && (Object.keys(this.link).length || this.seed() !== DEFAULT_SEED || this.trials() !== null)) {
      this.runSim();
    }
  }

  start(pairs) {
    return pairs ? this.applyLink({ ...pairs }) : this.recompute({ estimate: false });
  }
}

// ---- the site: one engine per visit, in-site links without reloads -------

class Site {
  constructor() {
    this.engine = null;
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
    const note = document.createElement("div");
    note.className = "link-notice";
    note.setAttribute("role", "alert");
    const parts = unknown.map((k) => Object.keys(links.get(k)).map((p) => (p ? `${k}.${p}` : k)).join(", ")).join("; ");
    const applied = links.size > unknown.length ? " The rest of the link was applied." : "";
    note.textContent = `Part of this link was not applied: ${parts} names no widget on this page.${applied}`;
    document.querySelector("main article")?.prepend(note);
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
    const url = this.inSite(event.target.closest("a[href]"));
    if (!url) return;
    event.preventDefault();
    this.navigate(url, true);
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

  async navigate(url, push, scrollY = 0) {
    let html;
    try {
      html = await this.fetchPage(url);
    } catch {
      location.assign(url.href); // let the browser show whatever the server says
      return;
    }
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

const site = new Site();
window.rulesExplorer = site;
if (document.documentElement.dataset.hasWidgets === "1") site.ensureEngine(); // start Python while the page still loads
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => { site.mount(); site.listen(); });
} else {
  site.mount();
  site.listen();
}
