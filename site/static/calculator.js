// One live widget (a calculator): its form read as data and sent to the
// engine, the result swapped in from the engine's own HTML, the sample roll,
// the Monte Carlo estimate (simulation.js), the share link and the settings panel.

import { ScenarioPanel } from "./scenario.js";
import { MAX_TRIALS, SimulationView } from "./simulation.js";
import * as table from "./table-editor.js";
import { addItem, alone, collect, controlName, fill, isPart, keyed, loadPartOf, partValue, renamed, renumber,
  updateListButtons } from "./forms.js";
import { DEFAULT_SEED, PRECISION_KEY, SAFE_LINK_LENGTH, SCENARIO_KEY, SEED_KEY, TRIALS_KEY, queryFor } from "./links.js";
import { embedCode } from "./embed.js";

const DEBOUNCE_MS = 150;
// The sentence under a calculator's result when an assumed setting moves it far is worked out this long
// after the last change, so it never holds a recompute up.
const NOTE_DELAY_MS = 400;

// A link's number of trials that the Monte Carlo box cannot run, quoted as the link has it (cut if long).
function trialsRefused(text) {
  const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return { field: TRIALS_KEY, message: `the number of trials "${shown}": enter a whole number from 1 to `
                                       + `${MAX_TRIALS.toLocaleString("en")} (no run was started)` };
}

function capitalised(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// What a screen reader is told of a new sample roll. A battle's, told round by round in disclosures (thousands of
// lines: AT Gold's largest was 70,000 characters, all of it read out as a live region on every change of the
// form), is said by its figures and outcome; it is there to read in full. Any other roll is said whole.
function rollSaid(roll) {
  const said = (el) => el.textContent.replace(/\s+/g, " ").trim();
  const sentence = (text) => (/[.:;!?]$/.test(text) ? text : `${text}.`);
  if (roll.querySelector("details")) {
    const parts = [];
    for (const el of roll.querySelectorAll(":scope > dl.figures > div, :scope > p.outcome")) {
      parts.push(el.matches("div") ? sentence(`${said(el.querySelector("dt"))}: ${said(el.querySelector("dd"))}`) : said(el));
    }
    return parts.join(" ");
  }
  return [...roll.querySelectorAll("li, p, dt, dd")].map((el) => sentence(said(el))).join(" ");
}

export class LiveWidget {
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
    // What a screen reader is told (role=status), on hidden lines made here (the page's bytes go to what it shows):
    // the status line's few messages, and a new sample roll in brief.
    const said = (after, name) => {
      let line = section.querySelector(`p.${name}`);
      if (!line) {
        line = document.createElement("p");
        line.className = `${name} visually-hidden`;
        line.setAttribute("role", "status");
        after?.after(line);
      }
      return line;
    };
    this.statusAnnounce = said(this.status, "widget-announce");
    this.rollAnnounce = said(this.rollResult, "roll-announce");
    // A battle's seeded sample placed among its run's battles (engine/luck.py): said once both are in.
    this.rollLuck = section.querySelector(".roll-luck");
    this.rollSeen = null; // the sample battle as its run counts it (its ending and numbers)
    this.runSeen = null; // the last finished run: {tally, trials}
    this.shareInput = section.querySelector(".share-link");
    this.shareNote = null;
    this.sim = section.querySelector(".widget-sim") ? new SimulationView(section, site?.pool ?? engine) : null;
    this.scenario = ScenarioPanel.placed(section) ? new ScenarioPanel(this) : null;
    section.addEventListener("widget-estimate", (e) => {
      this.runSeen = e.detail.tally ? e.detail : null;
      this.placeRoll();
    });
    this.note = section.querySelector(".sensitivity-note");
    this.noteTimer = null;
    this.state = ""; // the engine's compact form of the inputs (see queryFor)
    this.seq = 0;
    this.link = {};
    this.timer = null;
    this.bind();
  }

  bind() {
    this.form.addEventListener("submit", (e) => e.preventDefault());
    this.form.addEventListener("input", (e) => {
      if (e.target.matches("input[type=text]")) this.schedule();
    });
    this.form.addEventListener("change", (e) => {
      if (e.target.matches(".changed-only")) this.showChangedOnly(e.target);
      else this.recompute();
    });
    this.section.addEventListener("click", (e) => this.click(e));
    this.form.addEventListener("part-loaded", () => this.markChanged());
    this.seedInput?.addEventListener("change", () => this.seedChanged());
    // Typing a number of trials or a precision chooses that kind of run; a change runs it. Enter runs it at once,
    // and leaving the box afterwards (the browser's change event for the same text) does not start it again from
    // its first trial.
    for (const [box, mode] of [[this.sim?.trialsInput, "trials"], [this.sim?.precisionInput, "precision"]]) {
      if (!box) continue;
      let entered = null; // the text Enter has run, until the box is typed in again
      box.addEventListener("input", () => { entered = null; this.sim.setMode(mode); });
      box.addEventListener("change", () => {
        if (box.value !== entered) this.runSim();
        entered = null;
      });
      box.addEventListener("keydown", (e) => {
        if (e.key === "Enter") { e.preventDefault(); this.sim.setMode(mode); entered = box.value; this.runSim(); }
      });
    }
    for (const radio of this.sim?.modeInputs ?? []) radio.addEventListener("change", () => this.runSim());
    this.seedInput?.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); this.seedChanged(); }
    });
  }

  click(event) {
    const setting = event.target.closest("a.setting-link");
    if (setting && this.section.contains(setting)) {
      event.preventDefault();
      this.showSetting(setting.dataset.setting ?? "");
      return;
    }
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
    if (this.scenario?.click(action)) return;
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
    else if (action === "copy-embed") this.copyEmbed();
    else if (action === "sim-run") this.runSim();
    else if (action === "reset-section") this.resetSection(target.closest(".settings-section"));
    else if (action === "sim-stop") this.sim?.stop();
    else if (action === "reset") { fill(this.form, this.base); if (this.seedInput) this.seedInput.value = DEFAULT_SEED; this.recompute(); }
  }

  setStatus(state, text) {
    this.status.dataset.state = state;
    this.status.textContent = text;
    // Said only if the engine failed: each stage of its start, on every widget's line, was read out (twelve lines as
    // a page of three widgets went live), and the page reads the same before it is live.
    if (state === "failed") this.announce(text);
    const live = state === "live";
    for (const b of this.section.querySelectorAll("[data-action]")) {
      if (!b.matches(".add-item, .remove-item, [data-action=sim-stop]")) b.disabled = !live;
    }
    this.sim?.setLive(live);
    this.scenario?.setLive(live);
  }

  // Shows `text` on the widget's status line and says it to a screen reader.
  announce(text) {
    this.status.textContent = text;
    this.statusAnnounce.textContent = text;
  }

  schedule() {
    clearTimeout(this.timer);
    this.markPending();
    this.timer = setTimeout(() => this.recompute(), DEBOUNCE_MS);
  }

  markPending() {
    this.result.dataset.state = "pending";
    this.result.setAttribute("aria-busy", "true");
    this.markOutdated("pending");
  }

  // The sample roll and the estimate follow the form too: while they are for other inputs they say so
  // ("pending": being worked out; "stale": the inputs could not be computed). Each clears its own mark.
  markOutdated(how) {
    for (const el of [this.rollResult, this.sim?.result, this.rollLuck]) if (el) el.dataset.outdated = how;
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
    // The estimate follows the inputs too: a new run replaces the old (a long one once the reader says so).
    if (!answer.error && estimate) this.runSim({ ask: true });
    else if (!answer.error && this.sim) { // the page's own, pre-rendered
      delete this.sim.result.dataset.outdated;
      if (this.rollLuck) delete this.rollLuck.dataset.outdated;
    }
  }

  // How rare the seeded battle is among the finished run's battles (of its own seed), once both are for the
  // form's inputs (the engine refuses a run of other inputs: then nothing is said).
  async placeRoll() {
    if (!this.rollLuck || !this.rollSeen || !this.runSeen || this.engine.state !== "live") return;
    const seq = this.seq;
    const answer = await this.engine.call({ op: "luck", widget: this.widget, inputs: collect(this.form),
                                            seed: this.runSeen.seed, observed: this.rollSeen,
                                            tally: this.runSeen.tally, count: 0 });
    if (seq !== this.seq) return;
    this.rollLuck.hidden = Boolean(answer.error);
    if (!answer.error) {
      this.rollLuck.textContent = answer.result.note;
      delete this.rollLuck.dataset.outdated;
    }
  }

  // A row of a list table: duplicated just below, moved, or removed; focus
  // stays on the row (or goes to its neighbour) so keyboard use goes on.
  editRow(action, button) {
    const list = button.closest("fieldset.list");
    const row = button.closest("[data-item]");
    if (action === "duplicate-item") {
      const copy = table.duplicateRow(list, row, (from, to) => fill(to, collect(from)));
      // The copy's own Duplicate, or where the list is now full (every Duplicate disabled, the one pressed too, and
      // focus with it to the page's body) the copy's first control.
      const again = copy.querySelector("[data-action=duplicate-item]");
      (again.disabled ? copy.querySelector("input, select") : again).focus();
    } else if (action === "move-up" || action === "move-down") {
      table.moveRow(list, row, action === "move-up" ? -1 : 1);
      // A row moved to the top or bottom: its other move button, which moves it back (it went to Remove, and a
      // reader pressing Enter once more to move the row on deleted it).
      const back = row.querySelector(`[data-action=${action === "move-up" ? "move-down" : "move-up"}]`);
      (button.disabled ? back : button).focus();
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
      if (isPart(details)) { // not loaded yet: its values against the base's
        const values = partValue(details) ?? {};
        for (const [key, was] of Object.entries(base)) {
          if (typeof was !== "object" && String(values[key]).trim() !== String(was)) changed++;
        }
      }
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
  // Its promise: the run's last answer (null if none ran, or another replaced it).
  runSim(options = {}) {
    if (!this.sim || this.engine.state !== "live") return Promise.resolve(null);
    const seed = this.seedInput ? this.seedInput.value.trim() : DEFAULT_SEED;
    this.simSeed = seed;
    return this.sim.run(this.widget, collect(this.form), seed, options).then((answer) => {
      this.site.publishState();
      return answer;
    });
  }

  // A new seed: a new sample, and a new run, as the estimate shown is the old seed's (and the link
  // would give the new one's). A seed the run refused, once put right, runs.
  seedChanged() {
    this.roll(this.seedInput.value);
    if (this.sim && this.seedInput.value.trim() !== this.simSeed) this.runSim({ ask: true });
  }

  show(answer, rejected = []) {
    this.clearErrors();
    this.result.removeAttribute("aria-busy");
    if (answer.error) {
      this.result.dataset.state = "stale";
      this.markOutdated("stale");
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
    this.scenario?.follow();
    this.scheduleNote();
    this.reportRejected(rejected);
  }

  // A calculator's sentence under its result ("… depends on our reading of …"), from the engine.
  scheduleNote() {
    if (!this.note || this.sim) return;
    clearTimeout(this.noteTimer);
    const seq = this.seq;
    this.noteTimer = setTimeout(async () => {
      const answer = await this.engine.call({ op: "sensitivity", widget: this.widget, inputs: collect(this.form),
                                              instance: this.instance });
      if (seq !== this.seq || answer.error) return;
      if (this.note.innerHTML !== answer.result.note) this.note.innerHTML = answer.result.note;
      this.note.hidden = !answer.result.note;
    }, NOTE_DELAY_MS);
  }

  // A setting named by the note: its section and panel opened, the control in view and in focus.
  async showSetting(path) {
    // The settings may be a part of the page not loaded yet (forms.js): load it first.
    if (path) await loadPartOf(this.form, path).catch(() => false);
    const control = this.control(path);
    if (!control || !this.section.contains(control)) return;
    for (let d = control.closest("details"); d; d = d.parentElement?.closest("details")) d.open = true;
    // A panel showing only the settings changed hides this one if it is not: show them all (it could not take focus,
    // and the link seemed to do nothing).
    const panel = control.closest("details.settings.changed-only");
    if (panel && !control.closest(".field").classList.contains("changed")) {
      const box = panel.querySelector(".changed-only");
      box.checked = false;
      this.showChangedOnly(box);
    }
    control.scrollIntoView({ block: "center" });
    control.focus({ preventScroll: true });
  }

  // Parts of a link that were not applied, at the widget's top, the first refused field in focus; a seed
  // that could not roll (showRoll) keeps its line beside them.
  reportRejected(rejected) {
    if (rejected.length) {
      const roll = this.messages.querySelector("p.roll-error");
      this.messages.hidden = false;
      this.messages.innerHTML = "";
      const whole = rejected.find((r) => r.field === "state");
      const p = document.createElement("p");
      if (whole) { // the whole saved state was refused: say so in one sentence
        p.textContent = capitalised(whole.message.replace(/^state: /, "")) + ".";
        this.messages.append(p);
      } else {
        p.textContent = rejected.some((r) => r.whole) // values that do not fit together: the link undone whole
          ? "The link was not applied: its values do not fit together. The page's example is shown instead."
          : "Part of the link was not applied; the rest was. Not applied:";
        const ul = document.createElement("ul");
        for (const r of rejected) {
          const li = document.createElement("li");
          li.textContent = r.message.replace(/^scenario: /, "");
          ul.appendChild(li);
        }
        this.messages.append(p, ul);
      }
      if (roll) this.messages.append(roll);
      // Where the reader is looking: the message at the widget's top, and the first field refused in focus.
      const control = rejected.map((r) => this.control(r.field)).find(Boolean);
      (control || this.messages).focus({ preventScroll: true });
      const inPart = !control && rejected.find((r) => r.field && r.field !== "state");
      if (inPart) { // the first refused field is in a part not loaded yet: load it and focus the field
        const seq = this.seq;
        loadPartOf(this.form, inPart.field).then((loaded) => {
          if (loaded && seq === this.seq) this.control(inPart.field)?.focus({ preventScroll: true });
        }, () => {}); // not loaded: the message at the top keeps the focus
      }
      this.messages.scrollIntoView({ block: "nearest" });
    }
  }

  // The form control of a dotted input path, if the form has one.
  control(path) {
    return path ? document.getElementById(`${this.instance}--${path.replace(/\./g, "-")}`) : null;
  }

  clearErrors() {
    this.messages.hidden = true;
    this.messages.textContent = "";
    for (const el of this.section.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
    for (const el of this.section.querySelectorAll(".field-error")) { el.hidden = true; el.textContent = ""; }
  }

  // An engine's message as the page says it (forms.js renamed): the input called what the reader sees it called,
  // or `label` where the form has no control for it (yet).
  worded(error, label = null) {
    const control = this.control(error.field);
    const name = control ? controlName(control) : label;
    return { control, ...renamed(error.message || "the engine rejected this input", error.field, name) };
  }

  showError(error) {
    const { control, said, whole } = this.worded(error);
    this.messages.hidden = false;
    this.messages.textContent = `Not computed: ${whole}. The results below are for the last inputs that worked.`;
    if (!control && error.field) { // in a part not loaded yet: load it, then show the message there
      const seq = this.seq;
      loadPartOf(this.form, error.field).then((loaded) => { if (loaded && seq === this.seq) this.showError(error); }, () => {});
    }
    if (control) {
      control.setAttribute("aria-invalid", "true");
      const slot = document.getElementById(`${control.id}-error`);
      if (slot) { slot.hidden = false; slot.textContent = said; }
      // Take the reader to the field, unless they are typing in this form (focus stays where they type).
      if (!this.form.contains(document.activeElement)) control.focus({ preventScroll: true });
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
        // Beside what the messages already say (a link's other refusals), in place of an earlier seed's.
        if (this.messages.hidden) this.messages.textContent = "";
        let said = this.messages.querySelector("p.roll-error");
        if (!said) {
          said = document.createElement("p");
          said.className = "roll-error";
          this.messages.append(said);
        }
        // beside the Seed box, marked invalid: the message alone ("'abc' is not a seed; …")
        said.textContent = `Not rolled: ${alone(answer.error.message, "seed")}.`;
        this.messages.hidden = false;
      }
      return;
    }
    this.seedInput.removeAttribute("aria-invalid");
    const said = this.messages.querySelector("p.roll-error");
    if (said) { // the seed is good now: its message goes, and the messages with it if it was the only one
      said.remove();
      if (!this.messages.textContent.trim()) this.messages.hidden = true;
    }
    delete this.rollResult.dataset.outdated;
    this.rollSeen = answer.result.result?.observed ?? null;
    this.placeRoll();
    if (answer.result.digest !== this.rollResult.dataset.digest) {
      const first = Boolean(this.rollResult.querySelector(":scope > .part-link")); // the page's own, loading
      this.rollResult.innerHTML = answer.result.html;
      this.rollResult.dataset.digest = answer.result.digest;
      if (!first) this.rollAnnounce.textContent = rollSaid(this.rollResult);
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
    return queryFor(this.instance, this.link, this.state, this.seed(), this.trials(), this.scenario?.state ?? "",
                    this.sim?.precision() ?? null);
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
      this.announce("Link copied.");
    } catch {
      this.announce("Link selected: copy it with Ctrl+C or Cmd+C.");
    }
  }

  // The code of a frame that shows this widget (its embed page) in this state.
  async copyEmbed() {
    const code = embedCode(this.section, this.params().toString());
    this.section.dataset.embedCode = code; // what was copied (tests read it)
    try {
      await navigator.clipboard.writeText(code);
      this.announce("Embed code copied: paste it into your page's HTML.");
    } catch {
      this.shareInput.value = code;
      this.shareInput.select();
      this.announce("Embed code selected: copy it with Ctrl+C or Cmd+C.");
    }
  }

  async applyLink(pairs) {
    const seed = pairs[SEED_KEY];
    delete pairs[SEED_KEY];
    if (seed !== undefined && this.seedInput) this.seedInput.value = seed;
    const trials = pairs[TRIALS_KEY];
    delete pairs[TRIALS_KEY];
    if (trials !== undefined && this.sim) this.sim.trialsInput.value = trials;
    const precision = pairs[PRECISION_KEY];
    delete pairs[PRECISION_KEY];
    if (precision !== undefined && this.sim?.precisionInput) { // a run until this precision
      this.sim.precisionInput.value = precision;
      this.sim.setMode("precision");
    }
    // A number of trials the box cannot run is said with the engine's refusals, at the widget's top.
    const unrunnable = trials !== undefined && this.sim?.mode() === "trials" && this.sim.trials() === null
      ? [trialsRefused(trials)] : [];
    const scenario = pairs[SCENARIO_KEY];
    delete pairs[SCENARIO_KEY];
    const seq = ++this.seq;
    this.markPending();
    const answer = await this.engine.call({ op: "from_link", widget: this.widget, params: pairs, base: this.base });
    if (seq !== this.seq) return;
    if (!answer.error) fill(this.form, answer.result.inputs);
    const rejected = answer.error ? [] : [...answer.result.rejected, ...unrunnable];
    this.show(answer, rejected);
    if (!answer.error && this.seedInput) this.showRoll(await this.requestRoll(collect(this.form), this.seedInput.value), seq);
    // The pre-rendered estimate is the page's own state: run only for another. Before the link's scenario, whose
    // tools in a run to a precision take that run's trials (scenario.js trialsFor), and so find it going on.
    const ran = !answer.error && seq === this.seq && (Object.keys(this.link).length || this.seed() !== DEFAULT_SEED
      || this.trials() !== null || this.sim?.precision() != null) ? this.runSim() : null;
    let refusals = rejected;
    if (!answer.error && scenario !== undefined && this.scenario && seq === this.seq) {
      const refused = await this.scenario.apply(scenario);
      if (refused.length) this.reportRejected(refusals = [...rejected, ...refused]); // beside the link's other refusals
    }
    // A precision is the engine's to read: one it refuses is said with the link's other refusals once its run says
    // so (the run's own line says it too), as a number of trials the box cannot run is.
    if (ran && precision !== undefined) {
      ran.then((answer) => {
        if (seq === this.seq && answer?.error?.field === "precision") {
          this.reportRejected([...refusals, { field: PRECISION_KEY,
                                              message: `${alone(answer.error.message, "precision")} `
                                                       + "(no run was started)" }]);
        }
      });
    }
  }

  start(pairs) {
    return pairs ? this.applyLink({ ...pairs }) : this.recompute({ estimate: false });
  }
}
