// Scenarios on one widget (issue 21): pin the inputs as A and see B (the
// form as it is) beside it with the differences; sweep one input and see each
// figure along it as a chart; find what it takes (the least or most value of
// that input whose figure reaches a threshold); say what happened at the
// table and see how rare it is (issue 22: engine/luck.py).
//
// Every figure, chart, table and answer is the engine's (engine/scenarios.py,
// API ops compare, sweep, target, luck, varies, observable, scenario_link, scenario_from_link):
// this module reads its controls, sends them to Python as data and shows the
// HTML that comes back. Calculators answer in one exact call. Battles run in
// short calls, each adding trials to what the last one returned, on an extra
// engine worker when the page has one, so the figures stream in and Stop ends
// the run; the same (inputs, seed, trials) give the same chart whatever the
// calls' sizes.
//
// With an extra worker, a battle's sweep, compare or luck is shared by two
// engines (`shared`): the extra worker takes calls of about
// CALL_MS from the first trial on, and the page's own engine, which answers
// the form, takes calls of about SHARE_SLICE_MS from the last trial
// back (a sweep: one point at a time, the point with most left), so a
// recompute waits behind one short call at most. Each engine carries its own
// state; the extra worker's next call brings the page engine's in (`parts`:
// engine/scenarios.py merged_state merges them exactly, refusing a trial
// counted twice) and renders the whole. "What it takes" stays on one engine:
// each round decides where the next looks. "Which assumptions matter" is
// shared stage by stage: which readings go on past each checkpoint depends on
// every trial before it (engine/sensitivity.py, the early stop), so the two
// engines split the trials between two checkpoints, the page engine's calls
// bring the stage's readings (`stage`) from the extra worker's answer, and
// the extra worker crosses a checkpoint only with the whole stage merged. A
// trial too long for the page engine (AT Gold's first stage) it plays in
// slices of the readings, one call each (`slice`).

import { collect, disableKeepingFocus } from "./forms.js";
import { SLOW_TRIAL_MS } from "./pool.js";
import { DEFAULT_SEED } from "./links.js";
import { MAX_TRIALS, trialCount } from "./simulation.js";

// A battle call aims at this long at first, so Stop and the page's other requests never wait for more.
const CALL_MS = 200;
// A long run's calls grow to this (an eighth of the time run so far, at least CALL_MS): each call also reads
// back the tally and draws the chart, a cost that does not grow with its trials and took most of a 200 ms
// call of AT Gold's "Which assumptions matter", so Stop may wait up to a second there.
const LONG_CALL_MS = 1000;
const FIRST_COUNT = 4; // trials per point in a battle's first call, before its cost is known
// Scenario ops whose trials two engines may share (each merges the other's partial state), and the state each carries.
const SHARED = { sweep: "tallies", compare: "tally", luck: "tally", sensitivity: "tally" };
// The page engine's share of a run steps aside while the reader is changing things (a call of theirs to that
// engine within READER_ACTIVE_MS, engine-client.js readerActive, as a Monte Carlo run's share judges it): it
// sends no call until they pause, looking this often (ms). Its own calls are shares, not the reader's.
const QUIET_POLL_MS = 50;
// The page engine's calls in a shared run aim at this long: longer than a Monte Carlo run's slices on it
// (pool.js MAIN_SLICE_MS), since it only runs once the reader has paused, so a reader's next one
// waits for one such call at most; a longer call spreads its fixed cost (about an AT Gold battle's) wider.
const SHARE_SLICE_MS = 12;
// A trial of "Which assumptions matter" plays every reading still on (AT Gold 40 v 40 before its first
// checkpoint: some 92 battles, about 0.3 s in the browser). In a stage whose trial is measured longer than
// this, the page engine plays one trial at a time in slices of its readings (engine/sensitivity.py `slice`),
// each about this long, so a reader's next request waits at most about this long.
const SHARE_TRIAL_MAX_MS = 100;
const MAX_SLICES = 64; // the engine's (engine/sensitivity.py MAX_SLICES): a longer trial is left to the helper
// A battle's answers stream in every call or two (several a second); each is a chart per figure and its
// table, and drawing every one took the page's main thread and its compositor much of the CPU the two
// engines needed (the card game's sweep: 4.3 s drawing each, 2.2 s drawing at most every 600 ms; NOTES.md).
// So a running answer is drawn at most every DRAW_MS, the latest one that came; the first and the last at once.
export const DRAW_MS = 500;
// Tests on a loaded machine: rulesExplorerScenarioShare = "always" lets the page engine take part whatever a
// trial costs.
const always = () => globalThis.rulesExplorerScenarioShare === "always";

// A step of about `x` that reads well: 1, 2 or 5 times a power of ten (a range of 0 to 6 goes by halves,
// not by 0.6, whose points read 3/5, 6/5, ...).
export function roundStep(x) {
  if (!(x > 0) || !Number.isFinite(x)) return 0;
  const power = 10 ** Math.floor(Math.log10(x));
  const f = x / power;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * power;
}

function option(value, text, selected) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text;
  o.selected = selected;
  return o;
}

export class ScenarioPanel {
  // Puts the page's one copy of the panel (a <template> the build writes once a page) into the widget's
  // slot, its ids made the widget's own; whether the widget now has a panel.
  static placed(section) {
    if (section.querySelector(".widget-scenario")) return true;
    const template = document.getElementById("scenario-panel");
    const slot = section.querySelector(".scenario-slot");
    if (!template || !slot) return false;
    const panel = template.content.firstElementChild.cloneNode(true);
    const own = (text) => text.replaceAll("__I__", section.dataset.instance);
    for (const el of panel.querySelectorAll("[id]")) el.id = own(el.id);
    for (const el of panel.querySelectorAll("label[for]")) el.htmlFor = own(el.htmlFor);
    slot.replaceWith(panel);
    return true;
  }

  // `widget`: the LiveWidget whose form, engine and link this panel shares.
  constructor(widget) {
    this.w = widget;
    this.root = widget.section.querySelector(".widget-scenario");
    const q = (s) => this.root.querySelector(s);
    this.pinButton = q("[data-action=pin]");
    this.unpinButton = q("[data-action=unpin]");
    this.compareOut = q(".scenario-compare");
    this.inputSelect = q("select.vary-input");
    this.from = q("input.vary-from");
    this.to = q("input.vary-to");
    this.step = q("input.vary-step");
    this.rangeFields = q(".vary-range");
    this.figureSelect = q("select.target-figure");
    this.goalSelect = q("select.target-goal");
    this.threshold = q("input.target-threshold");
    this.directionSelect = q("select.target-direction");
    this.luckSelect = q("select.luck-what");
    this.luckNumber = q(".luck-number");
    this.luckValue = q("input.luck-value");
    this.choices = null; // what a reader can say happened (engine: observable), for the form's inputs
    this.stopButton = q("[data-action=scenario-stop]");
    this.status = q(".scenario-status"); // the sweep's, target's, luck's or reading's
    this.compareStatus = q(".compare-status"); // the comparison's, which follows the form beside them
    // What a screen reader is told of each (role=status): not every progress line, which came twice a second.
    this.announce = new Map([[this.status, q(".scenario-announce")], [this.compareStatus, q(".compare-announce")]]);
    this.out = q(".scenario-result");
    this.estimator = Boolean(widget.sim);
    this.pinned = null; // the inputs pinned as A
    this.varies = null; // the engine's list of inputs that can vary (and the widget's figures)
    this.shown = null; // what the result area shows: {kind: "sweep" | "target" | "luck" | "sensitivity", vary?, goal?, observed?}
    this.runs = { compare: null, result: null }; // runs going on, each {stopped}
    this.state = ""; // the scenario's compact link text (engine: scenario_link)
    this.root.addEventListener("toggle", () => { if (this.root.open && !this.varies) this.loadVaries(); });
    this.inputSelect.addEventListener("change", () => { this.chooseInput(); this.loadVaries(); });
    this.luckSelect.addEventListener("change", () => this.showLuckNumber());
    // Enter in a field runs its part's button (Sweep, Find, How rare), as a form's submit would.
    this.root.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || event.target.tagName !== "INPUT") return;
      const button = event.target.closest("fieldset")?.querySelector("button[data-action]");
      if (!button || button.disabled) return;
      event.preventDefault();
      button.click();
    });
  }

  setLive(live) {
    if (live) this.root.hidden = false; // it needs the live engine: until that is up (or with no script), it is hidden
    for (const el of this.root.querySelectorAll("button, select, input")) el.disabled = !live;
    this.idleStop();
    this.unpinButton.hidden = !this.pinned;
  }

  // Where scenario requests go: a calculator's to the page's engine; a battle's to the pool's first extra
  // worker once it is ready. One the pool gives up as it boots (pool.js watchBoots) hands over to the one
  // started in its place; with none, the page's own engine takes them.
  async worker() {
    const pool = this.w.site?.pool;
    if (!this.estimator || !pool || pool.size === 1 || !pool.spawn) return this.w.engine;
    pool.startHelpers();
    for (const tried = new Set(); pool.helpers?.[0] && !tried.has(pool.helpers[0]);) {
      const helper = pool.helpers[0];
      tried.add(helper);
      if (await helper.ready) return helper;
    }
    return this.w.engine;
  }

  // Stop is there only while a run goes on: a keyboard reader on it when the runs end (or who pressed it) goes to the
  // button that started the last run.
  idleStop() {
    if (this.runs.result || this.runs.compare) this.stopButton.disabled = false;
    else disableKeepingFocus(this.stopButton, this.started ?? this.root.querySelector("summary"));
  }

  click(action) {
    const button = action === "scenario-stop" ? null : this.root.querySelector(`button[data-action="${action}"]`);
    if (button) this.started = button;
    if (action === "pin") this.pin();
    else if (action === "unpin") this.unpin();
    else if (action === "sweep") this.runSweep();
    else if (action === "target") this.runTarget();
    else if (action === "assumptions") this.runAssumptions();
    else if (action === "luck") this.runLuck();
    else if (action === "scenario-stop") this.stop();
    else return false;
    return true;
  }

  // -- the inputs that can vary --

  // `wanted`: the input to select (a link's); otherwise the one selected when the answer comes, whose
  // range the reader may have set meanwhile is kept as it is. A range still as suggested follows the
  // engine's suggestion, which the answer narrows for the selected input (`input`) to what fits the form.
  async loadVaries(wanted = null) {
    const asked = wanted ?? (this.inputSelect.value || null);
    const answer = await this.w.engine.call({ op: "varies", widget: this.w.widget, inputs: collect(this.w.form),
                                              ...(asked ? { input: asked } : {}) });
    if (answer.error) return;
    this.varies = answer.result;
    const keep = wanted ?? this.inputSelect.value;
    const untouched = this.suggested === this.rangeText();
    this.inputSelect.replaceChildren(...this.varies.varies.map((v) => option(v.input, v.label, v.input === keep)));
    if (!this.figureSelect.options.length) {
      this.figureSelect.replaceChildren(...this.varies.figures.map((f) => option(f.name, f.label, false)));
    }
    if (keep !== this.inputSelect.value || (untouched && wanted === null && asked === keep)) this.chooseInput();
    else this.showRange();
    this.loadChoices();
  }

  rangeText() {
    return `${this.from.value}|${this.to.value}|${this.step.value}`;
  }

  // What a reader can say happened: a calculator's outcomes, a battle's endings and the numbers it counts.
  // A battle plays one trial to list them: on the worker scenario runs use, so the form never waits.
  async loadChoices() {
    const inputs = collect(this.w.form);
    const key = JSON.stringify(inputs);
    if (this.choices?.key === key || (this.estimator && this.choices)) return; // a battle's list stays as it is
    const engine = this.estimator ? await this.worker() : this.w.engine;
    const answer = await engine.call({ op: "observable", widget: this.w.widget, inputs });
    if (answer.error) return;
    this.choices = { key, list: answer.result.choices };
    this.luckSelect.closest("fieldset").hidden = !this.choices.list.length; // nothing to place a result among
    const keep = this.luckSelect.value;
    this.luckSelect.replaceChildren(...this.choices.list.map((c) => option(`${c.kind}:${c.key}`, c.label,
                                                                           `${c.kind}:${c.key}` === keep)));
    this.showLuckNumber();
  }

  showLuckNumber() {
    this.luckNumber.hidden = !this.luckSelect.value.startsWith("number:");
  }

  // What happened, as the engine reads it: a result or an ending by its key; a number as typed (Python checks it).
  observed() {
    const value = this.luckSelect.value;
    const at = value.indexOf(":");
    if (at < 0) return null;
    const kind = value.slice(0, at);
    const key = value.slice(at + 1);
    if (kind === "number") {
      const text = this.luckValue.value.trim();
      return { [key]: /^\d{1,9}$/.test(text) ? Number(text) : text };
    }
    return { [kind]: key };
  }

  entry() {
    return this.varies?.varies.find((v) => v.input === this.inputSelect.value) ?? null;
  }

  // A new input to vary: a range around its value (a choice or yes/no: all its values). A whole number's is
  // the engine's (`range`: around what its value stands for, only values the widget takes with the rest).
  chooseInput() {
    const v = this.entry();
    if (v?.range) {
      this.from.value = String(v.range.from);
      this.to.value = String(v.range.to);
      this.step.value = "1";
    } else if (v && (v.type === "integer" || v.type === "number")) {
      // The engine gives a number's value and bounds as text, a fraction as such ("1/10"), which Number() reads
      // as NaN: the range once read "0 to NaN".
      const num = (x) => {
        const m = /^\s*(-?\d+)\s*\/\s*(\d+)\s*$/.exec(String(x));
        return m ? Number(m[1]) / Number(m[2]) : Number(x);
      };
      const text = (x) => String(Number(x.toPrecision(12))); // 0.11, not 0.11000000000000001
      const value = num(v.value);
      const low = v.minimum !== undefined && v.minimum !== null ? num(v.minimum) : (value >= 0 ? 0 : value - 10);
      const high = v.maximum !== undefined && v.maximum !== null ? num(v.maximum) : value + 10;
      const from = Math.max(low, 0);
      const to = Math.min(high, value + Math.max(1, Math.abs(value)));
      this.from.value = text(from);
      this.to.value = text(to);
      this.step.value = text(roundStep((to - from) / 10) || 1);
    }
    this.suggested = this.rangeText();
    this.showRange();
  }

  showRange() {
    const v = this.entry();
    this.rangeFields.hidden = !v || !(v.type === "integer" || v.type === "number");
  }

  // The sweep's spec as the engine reads it: text as typed, Python checks it.
  vary() {
    const v = this.entry();
    if (!v) return null;
    if (this.rangeFields.hidden) return { input: v.input };
    return { input: v.input, from: this.from.value.trim(), to: this.to.value.trim(), step: this.step.value.trim() || "1" };
  }

  goal() {
    return { figure: this.figureSelect.value, threshold: this.threshold.value.trim(), goal: this.goalSelect.value,
             direction: this.directionSelect.value };
  }

  // -- Pin as A --

  // Inputs the engine refuses are not pinned: an A with an error would refuse every comparison after the form
  // is mended, naming a value the form no longer shows.
  async pin() {
    const inputs = collect(this.w.form);
    const answer = await this.w.engine.call({ op: "scenario_link", widget: this.w.widget, base: this.w.base,
                                              pinned: inputs });
    if (answer.error) {
      this.say(this.compareOut, `Not pinned: ${this.worded(answer.error).whole}.`, true);
      return;
    }
    this.say(this.compareOut, "");
    this.pinned = inputs;
    this.unpinButton.hidden = false;
    this.pinButton.textContent = "Pin these inputs as A instead";
    this.compare();
    this.publish();
  }

  unpin() {
    this.pinned = null;
    this.end("compare");
    this.unpinButton.hidden = true;
    this.pinButton.textContent = "Pin as A";
    this.compareOut.replaceChildren();
    this.compareOut.hidden = true;
    this.say(this.compareOut, "");
    this.publish();
    this.pinButton.focus();
  }

  // After every recompute of the widget: B (the form) against the pinned A.
  compare() {
    if (!this.pinned) return;
    const inputs = collect(this.w.form);
    this.compareOut.hidden = false;
    this.stream("compare", this.compareOut, { op: "compare", pinned: this.pinned, inputs });
  }

  // After every recompute of the widget: the comparison follows the form; a sweep or an answer shown for
  // other inputs is marked out of date (run it again to follow); the inputs that can vary follow its rows.
  follow() {
    this.compare();
    if (this.shown) {
      if (JSON.stringify(collect(this.w.form)) !== this.shown.inputs) this.out.dataset.outdated = "stale";
      else delete this.out.dataset.outdated;
    }
    if (this.root.open && this.varies) this.loadVaries();
  }

  // -- Sweep and What it takes --

  runSweep() {
    const vary = this.vary();
    if (!vary) return;
    const inputs = collect(this.w.form);
    this.shown = { kind: "sweep", vary, inputs: JSON.stringify(inputs) };
    delete this.out.dataset.outdated;
    this.stream("result", this.out, { op: "sweep", inputs, vary });
    this.publish();
  }

  runTarget() {
    const vary = this.vary();
    if (!vary) return;
    const goal = this.goal();
    const inputs = collect(this.w.form);
    this.shown = { kind: "target", vary, goal, inputs: JSON.stringify(inputs) };
    delete this.out.dataset.outdated;
    this.stream("result", this.out, { op: "target", inputs, vary, ...goal });
    this.publish();
  }

  // How rare what happened is, among the results these inputs give (exact) or the run's battles. A battle's
  // answer comes from the same trials (inputs, seed, number) as the page's run.
  runLuck(observed = this.observed()) {
    if (!observed) return;
    const inputs = collect(this.w.form);
    this.shown = { kind: "luck", observed, inputs: JSON.stringify(inputs) };
    delete this.out.dataset.outdated;
    this.stream("result", this.out, { op: "luck", inputs, observed });
    this.publish();
  }

  // A link's "what happened" back in the form: a result or ending among the choices, or a number's count.
  showObserved(observed) {
    const [[name, value]] = Object.entries(observed);
    const list = this.choices?.list ?? [];
    const chosen = list.find((c) => c.kind === name && c.key === String(value))
      ?? list.find((c) => c.kind === "number" && c.key === name);
    if (!chosen) return;
    this.luckSelect.value = `${chosen.kind}:${chosen.key}`;
    if (chosen.kind === "number") this.luckValue.value = String(value);
    this.showLuckNumber();
  }

  // How far each assumed setting moves the headline figure (engine.sensitivity).
  runAssumptions() {
    const inputs = collect(this.w.form);
    this.shown = { kind: "sensitivity", inputs: JSON.stringify(inputs) };
    delete this.out.dataset.outdated;
    this.stream("result", this.out, { op: "sensitivity", inputs });
    this.publish();
  }

  // Ends the runs going on (both, or one).
  stop() {
    this.end("compare");
    this.end("result");
  }

  end(which) {
    const run = this.runs[which];
    if (run) run.stopped = true;
    run?.onStop?.();
    this.runs[which] = null;
    this.idleStop();
  }

  // How many trials a battle's tools run (`inputs` and `seed`: the run's): as many as the Trials box says; in a
  // run to a precision, as many as the page's run to it ends at for the same inputs and seed, so that How rare
  // places a result among the estimate's own battles and every tool's figures share its trials. A run to it that
  // goes on is waited for, and one not yet asked for is started (a change of inputs that would replace a long
  // run still asks the reader first). {trials}, or {refused: why none}.
  async trialsFor(run, out, inputs, seed) {
    const sim = this.w.sim;
    if (sim.mode() !== "precision") {
      const trials = sim.trials();
      return trials !== null ? { trials } : { refused: "Not run: enter a whole number of trials from 1 to "
                                                       + `${MAX_TRIALS.toLocaleString("en")} in the Trials box.` };
    }
    const key = sim.key(this.w.widget, inputs, seed);
    const target = `±${sim.targetSaid()}%`;
    if (sim.settled?.key === key) return { trials: sim.settled.trials };
    // What the output shows is another run's (other inputs or another tool): not left up while this one waits.
    out.replaceChildren();
    this.say(out, `Waiting for the estimate's run to within ${target}: these figures use as many trials as it takes.`);
    const section = this.w.section;
    const ended = await new Promise((resolve) => {
      const done = (value) => {
        section.removeEventListener("sim-run", hear);
        run.onStop = null;
        resolve(value);
      };
      // The run of these inputs ending, or a run of others starting (the form changed meanwhile).
      const hear = ({ detail }) => {
        if (detail.started !== (detail.key === key)) done(detail);
      };
      section.addEventListener("sim-run", hear);
      run.onStop = () => done(null);
      this.w.runSim({ ask: true }); // nothing new when that run is going on
    });
    if (ended?.trials) return { trials: ended.trials };
    return { refused: ended?.started
      ? `Not run: the inputs changed before the estimate's run to within ${target} ended. Run this again.`
      : `Not run: the estimate's run to within ${target} did not finish, and these figures use as many trials as `
        + "it takes. Run it again, or choose a number of trials." };
  }

  // One scenario request to its end: a calculator's in one call; a battle's in calls of about CALL_MS,
  // each sending back what the last returned (tally, tallies) and showing the figures so far.
  async stream(which, out, request) {
    this.end(which);
    const run = { stopped: false };
    this.runs[which] = run;
    const message = { widget: this.w.widget, seed: this.w.seed() ?? DEFAULT_SEED, render: true, ...request };
    out.setAttribute("aria-busy", "true");
    out.dataset.state = "running";
    if (this.estimator) this.stopButton.disabled = false;
    // A battle runs as many trials as the box or the page's run says: never a number it did not.
    const { trials = null, refused } = this.w.sim ? await this.trialsFor(run, out, request.inputs, message.seed) : {};
    if (run.stopped) return this.stopped(which, run, out);
    if (refused) {
      this.finish(which, run, out);
      this.failed(out, refused, true);
      return;
    }
    this.say(out, this.estimator ? "Running…" : "");
    delete out.dataset.engines;
    delete out.dataset.sliced;
    const engine = this.estimator ? await this.worker() : this.w.engine;
    // A page may keep a battle's scenario on one engine (the benchmark compares both): rulesExplorerScenarioShare =
    // false; "always" lets the page engine take part whatever a trial costs (a test's, on a loaded machine).
    const share = globalThis.rulesExplorerScenarioShare !== false;
    if (share && engine !== this.w.engine && SHARED[request.op] && Number.isSafeInteger(Number(trials))) {
      return this.shared(which, run, out, message, Number(trials), engine);
    }
    let count = FIRST_COUNT;
    let first = 0;
    let carried = {};
    let drawn = false; // whether this run has shown figures of its own yet
    const began = performance.now();
    for (;;) {
      if (run.stopped) break;
      const sent = Math.max(1, Math.min(count, Number(trials) - first));
      const batch = this.estimator ? (request.op === "target" ? { count, max_trials: Number(trials) }
                                                               : { trials: Number(trials), first, count: sent }) : {};
      const started = performance.now();
      const answer = await engine.call({ ...message, ...carried, ...batch });
      if (run.stopped) break;
      if (answer.error) {
        this.runFailed(which, run, out, answer.error, !drawn);
        return;
      }
      const r = answer.result;
      drawn = true;
      if (!this.estimator || r.done) {
        this.draw(run, out, r.html, this.estimator ? `Done: ${this.trialsText(r)}.` : "", true);
        this.finish(which, run, out);
        out.dataset.state = "done";
        this.w.section.dispatchEvent(new CustomEvent("widget-scenario", { bubbles: true, detail: { which } }));
        return;
      }
      this.draw(run, out, r.html, `Running: ${this.trialsText(r, request.op === "target" ? null : Number(trials))} so far.`);
      carried = r.tallies !== undefined ? { tallies: r.tallies } : { tally: r.tally };
      first = r.next ?? first + sent;
      const now = performance.now();
      const took = Math.max(1, now - started);
      const aim = Math.min(LONG_CALL_MS, Math.max(CALL_MS, (now - began) / 8));
      count = Math.max(1, Math.min(count * 4, Math.floor(count * aim / took), r.most_count ?? Infinity));
    }
    this.stopped(which, run, out);
  }

  // A battle's run shared by the extra worker `helper` and the page's own engine (see the top of this file).
  // Trials are claimed before they are asked for: the helper's from `front` on (every point still open at
  // once), the page engine's from each point's `end` back; so no trial is asked of both.
  async shared(which, run, out, message, trials, helper) {
    const main = this.w.engine;
    const field = SHARED[message.op];
    const sweep = message.op === "sweep";
    // "Which assumptions matter": its checkpoints cut the run into stages (the first answer says them). The
    // helper crosses one only with every trial before it; the page engine plays a later stage's trials only
    // with the readings that play it (`stage`, from the helper's answer).
    const staged = message.op === "sensitivity";
    let limits = [trials]; // each stage's end
    let stage = null; // the current stage's readings, once the helper's answer has given them
    const began = performance.now();
    let front = 0;
    let ends = [trials]; // per point: trials below this are the helper's to take; from it on, claimed by the page engine
    let count = FIRST_COUNT; // the helper's trials (a point) a call
    let last = null; // the helper's last answer
    let failed = null;
    // The page engine's part: its state (a sweep's: a tally or null a point, kept here and sent one point at a
    // time, so a call reads one tally), the state it has given up for the helper's next call (`outbox`, filled
    // at its first answer after the helper asks: the helper never waits for it), and its call size.
    const own = { state: null, outbox: null, wanted: false, count: 1, on: false, ran: false, flight: null, running: null,
                  sliced: 0 };

    const open = () => ends.map((e, i) => (e > front ? i : -1)).filter((i) => i >= 0);
    const stageStart = () => limits.filter((c) => c <= front && c < trials).at(-1) ?? 0;
    let trialMs = Infinity; // a trial's cost in the helper's last call (a stage's: every reading it plays)
    // The calls the page engine plays one trial in: 1, or a stage's readings in slices of about SHARE_TRIAL_MAX_MS
    // (a test sets rulesExplorerShareSliceMs lower, to slice a small battle's short trials).
    const sliceMs = globalThis.rulesExplorerShareSliceMs ?? SHARE_TRIAL_MAX_MS;
    const slices = () => (staged ? Math.max(1, Math.ceil(trialMs / sliceMs)) : 1);
    const fits = () => always() || slices() <= MAX_SLICES;
    // The page engine's next claim: the point with the most left, from its end back (a trial in slices: one).
    const pick = () => {
      if (!own.on || run.stopped || failed) return null;
      if (staged && stageStart() > 0 && stage?.from !== stageStart()) return null; // wait for the stage's readings
      if (!fits()) return null; // this stage's trials are too long for the reader's engine, even sliced
      let best = -1;
      for (let i = 0; i < ends.length; i++) if (ends[i] - front > (best < 0 ? 0 : ends[best] - front)) best = i;
      if (best < 0) return null;
      const cut = Math.min(slices(), MAX_SLICES);
      const n = cut > 1 ? 1 : Math.min(own.count, ends[best] - front);
      ends[best] -= n;
      return { point: best, first: ends[best], count: n, slices: cut };
    };
    // The reader's calls made before the run began (the click that started it, the panel's own link) do not
    // hold the page engine back: only those made while it runs.
    const begun = main.now?.() ?? performance.now();
    const busy = () => main.readerActive() && main.askedAt > begun;
    // One claim's calls: its trials in one, or (a trial too long for the reader's engine) each slice of its
    // readings in one, pausing between slices while the reader is busy. The last carries the page engine's
    // state (which the helper does not take while a claim is in flight) and answers with it, the trials added.
    const play = async (claim) => {
      const carried = sweep ? ends.map((_, i) => (i === claim.point ? (own.state?.[i] ?? null) : null)) : own.state;
      const common = { ...message, trials, render: false, first: claim.first, count: claim.count,
                       ...(sweep ? { points: [claim.point] } : {}), ...(staged && stageStart() > 0 ? { stage } : {}) };
      let partial = null;
      for (let k = 0; ; k++) {
        const last = k === claim.slices - 1;
        const sliced = claim.slices > 1 ? { slice: [k, claim.slices], slice_tally: partial } : {};
        const answer = await main.call({ ...common, [field]: last ? carried : null, ...sliced }, { share: true });
        if (answer.error) return answer;
        if (last) {
          if (claim.slices > 1) own.sliced += 1;
          return answer;
        }
        partial = answer.result.slice_tally;
        while (busy() && !run.stopped && !failed) await new Promise((resolve) => setTimeout(resolve, QUIET_POLL_MS));
        if (run.stopped || failed) return null;
      }
    };
    const mainLoop = async () => {
      for (;;) {
        while (busy() && !run.stopped && !failed && open().length) {
          await new Promise((resolve) => setTimeout(resolve, QUIET_POLL_MS));
        }
        const claim = pick();
        if (!claim) break;
        const started = performance.now();
        own.flight = play(claim);
        const answer = await own.flight;
        own.flight = null;
        if (!answer) break; // stopped between two slices: the trial is not played
        if (answer.error) { failed ??= answer; break; }
        if (sweep) {
          own.state ??= ends.map(() => null);
          own.state[claim.point] = answer.result.tallies[claim.point];
        } else {
          own.state = answer.result.tally;
        }
        own.ran = true;
        if (own.wanted) { // the helper asked: its next call takes this, and the next call here starts afresh
          own.outbox = own.state;
          own.state = null;
          own.wanted = false;
        }
        const perTrial = Math.max(0.01, (performance.now() - started) / claim.count);
        own.count = Math.max(1, Math.min(own.count * 2, Math.floor(SHARE_SLICE_MS / perTrial)));
        if (run.stopped) break;
      }
    };
    // What the page engine has given up, and all it holds when no call of its is in flight (its answer would
    // hold that state again), for the helper's next call.
    const takeOwn = () => {
      const parts = [own.outbox, own.flight ? null : own.state].filter((x) => x !== null);
      own.outbox = null;
      if (!own.flight) own.state = null;
      own.wanted = Boolean(own.flight);
      return parts.length ? parts : null;
    };

    for (;;) {
      if (run.stopped || failed) break;
      if (last && !open().length && own.flight) { // every trial is claimed: wait for the page engine's last call
        await own.flight;
        continue;
      }
      if (staged && last && !open().length && ends[0] < trials) { // the stage is whole: on to the next
        front = limits.find((c) => c >= front) ?? trials; // (the page engine may have claimed none of it)
        ends = [limits.find((c) => c > front) ?? trials];
      }
      const parts = last ? takeOwn() : null;
      const points = last ? open() : [];
      let claim = 0;
      if (!last) claim = Math.min(count, trials);
      else if (points.length) {
        const room = Math.min(...points.map((i) => ends[i])) - front;
        // Half of what is left while the page engine works, or (a stage) waits for the stage's readings.
        const halve = own.flight || (staged && own.on && fits() && !run.stopped);
        claim = Math.max(1, Math.min(count, room, halve ? Math.ceil(room / 2) : room));
      }
      if (!claim && !parts) break; // nothing left to run or to merge (the last answer was the whole run)
      const started = performance.now();
      const asked = helper.call({ ...message, trials, [field]: last?.[field] ?? null, first: front, count: claim,
                                  ...(parts ? { parts } : {}),
                                  ...(sweep && last && points.length < ends.length ? { points } : {}) });
      front += claim; // claimed: the page engine's calls stop short of it
      const answer = await asked;
      if (run.stopped) break;
      if (answer.error) { failed = answer; break; }
      const r = answer.result;
      if (!last && sweep && r.points) ends = r.points.map((p) => (p.error !== undefined ? 0 : trials)); // none at a refused point
      if (!last && staged && r.stopping) {
        limits = [...r.stopping.checkpoints.filter((c) => c < trials), trials];
        ends = [limits.find((c) => c > front) ?? trials];
      }
      if (staged && r.stage) stage = r.stage;
      last = r;
      if (own.ran) out.dataset.engines = "2";
      if (own.sliced) out.dataset.sliced = String(own.sliced); // the page engine's trials played in slices
      if (r.done) {
        this.draw(run, out, r.html, `Done: ${this.trialsText(r)}.`, true);
        this.finish(which, run, out);
        out.dataset.state = "done";
        this.w.section.dispatchEvent(new CustomEvent("widget-scenario", { bubbles: true, detail: { which } }));
        return;
      }
      this.draw(run, out, r.html, `Running: ${this.trialsText(r, trials)} so far.`);
      if (claim > 0) {
        const took = Math.max(1, performance.now() - started);
        // What a trial costs (a sweep's: at one point): the page engine takes part only where one is short.
        const perTrial = took / (claim * (sweep ? (points.length || r.points.length) : 1));
        // A reading of every assumed setting plays each trial once per reading: a battle is what must be short.
        const perBattle = perTrial / (staged ? 1 + (r.variants ?? 0) : 1);
        trialMs = perTrial;
        if (!own.on && (perBattle <= SLOW_TRIAL_MS || always())) {
          own.on = true;
          own.count = Math.max(1, Math.floor(SHARE_SLICE_MS / perTrial));
        }
        // Its calls grow as the one-engine run's do (see `stream`): each reads back and draws every reading.
        const aim = staged ? Math.min(LONG_CALL_MS, Math.max(CALL_MS, (performance.now() - began) / 8)) : CALL_MS;
        count = Math.max(1, Math.min(count * 4, Math.floor(claim * aim / took), r.most_count ?? Infinity));
      }
      if (own.on && !own.running) { // it ends when nothing is left to claim for now (a stage waits for the next)
        own.running = mainLoop().then(() => { own.running = null; });
      }
    }
    await own.running;
    if (failed && !run.stopped) {
      this.runFailed(which, run, out, failed.error, !last);
      return;
    }
    this.stopped(which, run, out);
  }

  // Trials done (`of`: out of the run's size): a sweep's points each say theirs (its `trials` is the run's
  // size, not what is done). "What it takes" has no size to say: it runs until its answer is clear.
  // Its points run only as far as each needs (most stop after the first round), so it says the most any ran.
  trialsText(r, of = null) {
    const done = (r.points ?? []).map((p) => p.trials ?? p.figure?.trials).filter((n) => n !== undefined);
    const target = r.max_trials !== undefined;
    const n = done.length ? (target ? Math.max(...done) : Math.min(...done)) : (r.trials ?? 0);
    const size = of === null ? "" : ` of ${Number(of).toLocaleString("en")}`;
    const count = size ? `${Number(n).toLocaleString("en")}${size} trials` : trialCount(Number(n)); // "1 of 20 trials"
    return `${target ? "up to " : ""}${count}${r.points ? " a point" : ""}`;
  }

  // A run the engine refused part way: the figures it had are drawn (`clear`: it had none), then the error.
  runFailed(which, run, out, error, clear) {
    this.draw(run, out, null, null, true);
    this.finish(which, run, out);
    this.failed(out, `Not run: ${this.worded(error).whole}.`, clear, error.detail);
  }

  // A run refused or failed: said in the status; `clear`: it showed nothing of its own, so what an earlier run
  // left there (another range, target or input) goes, and is not read as this one's answer. An error of ours
  // keeps its `detail` (never shown to a reader) on the output, for developers and tests to read.
  failed(out, text, clear, detail = undefined) {
    if (clear) out.replaceChildren();
    if (detail) out.dataset.detail = String(detail).slice(0, 500);
    else delete out.dataset.detail;
    out.dataset.state = "failed";
    this.say(out, text, true);
  }

  // Shows a running answer's figures (`html`) and status line (`text`; null: as they are): at once if `now`
  // (the run's last) or if the last were drawn DRAW_MS ago, else when they will have been, then the latest.
  draw(run, out, html, text, now = false) {
    if (html !== null) {
      run.html = html;
      run.answered = true; // figures of its own: a Stop from now on leaves them shown
    }
    if (text !== null) {
      run.text = text;
      run.progress = !now; // a line of progress, shown but not said
    }
    const wait = DRAW_MS - (performance.now() - (run.drawnAt ?? -Infinity));
    if (!now && wait > 0) {
      run.timer ??= setTimeout(() => {
        run.timer = null;
        if (!run.stopped) this.draw(run, out, null, null, true);
      }, wait);
      return;
    }
    clearTimeout(run.timer);
    run.timer = null;
    if (run.html !== undefined) out.innerHTML = run.html;
    if (run.text !== undefined) this.say(out, run.text, false, run.progress);
    delete run.html;
    delete run.text;
    run.drawnAt = performance.now();
  }

  // A run ended by Stop shows the figures of its last answer. One ended because a new run of the same output
  // began leaves the output to that run. One stopped before its first answer has no figures: what an earlier
  // run left there (another tool's, range's or inputs') goes, as a refused run's does, and is not read as its.
  stopped(which, run, out) {
    clearTimeout(run.timer);
    const owner = this.runs[which];
    if (owner && owner !== run) return;
    if (which === "compare" && !this.pinned) { // ended by Unpin A, which took the comparison away: nothing to say
      out.removeAttribute("aria-busy");
      return;
    }
    this.draw(run, out, null, null, true);
    this.finish(which, run, out);
    out.dataset.state = "stopped";
    if (!run.answered) {
      out.replaceChildren();
      this.say(out, "Stopped before its first figures: none are shown.");
      return;
    }
    this.say(out, "Stopped: the figures shown are from the trials run so far.");
  }

  finish(which, run, out) {
    if (this.runs[which] === run) this.runs[which] = null;
    out.removeAttribute("aria-busy");
    this.idleStop();
  }

  // Says `text` on the status line of the output `out` (the comparison has its own), and to a screen reader unless
  // it is a line of `progress` (said once, however often the same text is shown again).
  say(out, text, alert = false, progress = false) {
    const line = out === this.compareOut ? this.compareStatus : this.status;
    line.textContent = text;
    line.dataset.kind = alert ? "error" : "";
    const heard = this.announce.get(line);
    if (!progress && heard.textContent !== text) heard.textContent = text;
  }

  // An error as the page names things (`LiveWidget.worded`). An input in a part of the form not loaded yet, or
  // a number a battle counts ("How lucky was that"), has no control there to name it by: the panel's own lists
  // give its label. So does the input varied, which a range's refusal quotes by its path ("step:
  // 'attackers.0.count' is a whole number"). Without them the reader was shown the path.
  worded(error) {
    const labels = new Map([
      ...(this.varies?.varies ?? []).map((v) => [v.input, v.label]),
      ...(this.choices?.list ?? []).filter((c) => c.kind === "number").map((c) => [c.key, c.label]),
    ]);
    const worded = this.w.worded(error, labels.get(error.field) ?? null);
    const varied = this.entry();
    if (!varied || !["step", "input"].includes(error.field)) return worded;
    return { ...worded, whole: worded.whole.replaceAll(`'${varied.input}'`, varied.label) };
  }

  // -- the link --

  // The scenario's part of the widget's link, from the engine (one compact state, as the inputs').
  async publish() {
    const vary = this.shown?.vary;
    const request = { op: "scenario_link", widget: this.w.widget, base: this.w.base };
    if (this.pinned) request.pinned = this.pinned;
    if (vary) request.vary = vary;
    if (this.shown?.kind === "target") request.target = this.shown.goal;
    if (this.shown?.kind === "luck") request.luck = this.shown.observed;
    if (this.shown?.kind === "sensitivity") request.assumptions = true;
    const shown = vary || request.luck || request.assumptions;
    if (!this.pinned && !shown) this.state = "";
    else {
      let answer = await this.w.engine.call(request);
      if (answer.error && this.pinned && shown) { // a range, target or result the engine refuses is left out; the pinned A stays
        answer = await this.w.engine.call({ op: "scenario_link", widget: this.w.widget, base: this.w.base,
                                            pinned: this.pinned });
      }
      this.state = answer.error ? "" : answer.result.state;
    }
    this.w.site?.publishState();
  }

  // A link's scenario: what the engine could read of it is applied, and what it could not is said.
  async apply(text) {
    const answer = await this.w.engine.call({ op: "scenario_from_link", widget: this.w.widget, base: this.w.base,
                                              state: text });
    if (answer.error) return [answer.error];
    const { pin, sweep, target, luck, assumptions, rejected } = answer.result;
    this.root.open = true;
    await this.loadVaries(sweep?.input);
    if (luck) {
      await this.loadChoices();
      this.showObserved(luck);
    }
    if (sweep) {
      if (![...this.inputSelect.options].some((o) => o.value === sweep.input)) {
        this.inputSelect.append(option(sweep.input, sweep.input, true));
      }
      this.inputSelect.value = sweep.input;
      if (sweep.from !== undefined) {
        this.from.value = String(sweep.from);
        this.to.value = String(sweep.to);
        this.step.value = String(sweep.step ?? 1);
      }
      this.showRange();
    }
    if (target) {
      this.figureSelect.value = target.figure;
      this.threshold.value = String(target.threshold);
      this.goalSelect.value = target.goal ?? "at_least";
      this.directionSelect.value = target.direction ?? "least";
    }
    if (pin) {
      this.pinned = pin;
      this.unpinButton.hidden = false;
      this.pinButton.textContent = "Pin these inputs as A instead";
      this.compare();
    }
    // The panel shows one result: a hand-made link asking for several gets the first of these.
    if (target && sweep) this.runTarget();
    else if (sweep) this.runSweep();
    else if (luck) this.runLuck(luck);
    else if (assumptions) this.runAssumptions();
    else this.publish();
    return rejected;
  }
}
