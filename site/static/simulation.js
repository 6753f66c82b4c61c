// Page side of a Monte Carlo widget: Run and Stop, the number of trials, a
// progress bar with trials done and time taken, and the estimate as it
// streams in from the engine worker's scheduler (scheduler.js).
//
// The estimate is the engine's own HTML (intervals on the outcome chart, ±
// on means), pre-rendered by the build for the page's inputs, seed and
// trial count; a run over the same three gives the same HTML, since trial i
// is seeded from (seed, i) whatever the chunks.
//
// A run may instead go on until the headline figure is known to a stated
// precision ("until within ±1 %"). The engine looks at the figure only at fixed
// trial counts, the checkpoints the build writes on the widget
// (engine/precision.py): the run goes from one checkpoint to the next as a
// stage, a job of its own that starts from the stages' tally so far, and the
// engine's answer at the end of each stage says whether to stop. No trial past
// the checkpoint where it stops is run, so the figures are CPython's for
// (inputs, seed, target) with one worker or several.
//
// Progress lives in its own element and is not a live region: a screen reader
// hears "Running" when a run starts and the outcome once it ends, not every
// tick. The estimate's region is marked busy while it streams.

import { alone, disableKeepingFocus } from "./forms.js";

export const DEFAULT_TRIALS = 1000;
export const MAX_TRIALS = 100_000;

// "1 trial", "1,000 trials".
export const trialCount = (n) => `${n.toLocaleString("en")} ${n === 1 ? "trial" : "trials"}`;
// After this long a run says its speed and the time left, and a change of
// the inputs asks before it replaces the run (ms).
export const RATE_AFTER_MS = 1000;
export const LONG_RUN_MS = 2000;

// What a run is of, as the Scenarios panel asks: the widget, inputs and seed, and its size (a number of trials, or
// a precision as typed). Two runs of one key give the same figures.
export const runKey = (widget, inputs, seed, size) => JSON.stringify([widget, inputs, seed, size]);

function formatMs(ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

// A run's progress line: "1,200 of 5,000 trials, 3.1 s".
const trialsSoFar = (done, trials, ms) => `${done.toLocaleString("en")} of ${trials.toLocaleString("en")} trials, ${formatMs(ms)}`;

function formatLeft(seconds) {
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export class SimulationView {
  // `engine.job(request, onProgress)` returns {done: Promise<answer>, cancel()}.
  constructor(section, engine) {
    this.section = section;
    this.engine = engine;
    this.root = section.querySelector(".widget-sim");
    this.trialsInput = this.root.querySelector("input.sim-trials");
    this.runButton = this.root.querySelector("[data-action=sim-run]");
    this.stopButton = this.root.querySelector("[data-action=sim-stop]");
    this.bar = this.root.querySelector("progress.sim-progress");
    this.progressText = this.root.querySelector(".sim-progress-text");
    this.announce = this.root.querySelector(".sim-announce");
    this.result = this.root.querySelector(".sim-result");
    this.modeInputs = [...this.root.querySelectorAll("input.sim-mode")];
    this.precisionInput = this.root.querySelector("input.sim-precision");
    this.checkpoints = (this.root.dataset.checkpoints ?? "").split(" ").filter(Boolean).map(Number);
    this.current = null;
    this.running = null; // the key of the run going on (runKey)
    this.settled = null; // the last run that ended with its trials all run: {key, trials}
    this.notRun = null; // why the trials box stopped the run going on (run): said when it has stopped
    this.seq = 0;
    this.elapsed = 0; // how long the run going on has run (ms)
    this.asked = null; // the run a change of inputs is waiting to start, while the reader decides
    this.ask = this.root.querySelector(".sim-ask");
    this.ask?.addEventListener("click", (e) => {
      const button = e.target.closest("button");
      if (button) this.answerAsk(button.classList.contains("sim-replace"));
    });
  }

  trials() {
    const text = this.trialsInput.value.trim();
    if (!/^[0-9]{1,7}$/.test(text)) return null;
    const n = Number(text);
    return n >= 1 && n <= MAX_TRIALS ? n : null;
  }

  // "precision" when the reader chose a run until a precision, else "trials".
  mode() {
    return this.modeInputs.find((i) => i.checked)?.value === "precision" && this.checkpoints.length ? "precision" : "trials";
  }

  setMode(mode) {
    for (const i of this.modeInputs) i.checked = i.value === mode;
  }

  // The key of a run of these inputs and seed as the form now asks for it (trials or a precision).
  key(widget, inputs, seed) {
    return runKey(widget, inputs, seed, this.mode() === "precision" ? `±${this.precisionInput.value.trim()}` : this.trials());
  }

  // The precision asked for, as typed less its own ± and % ("1" for "±1 %").
  targetSaid() {
    return this.precisionInput.value.trim().replace(/^±\s*/, "").replace(/\s*%$/, "");
  }

  // Says on the widget's section that a run of `key` started (`trials` undefined) or ended: with the trials it
  // ran if it ran them all, null if it stopped or failed. A run replaced by a newer one ends unsaid; the newer's
  // start says it. The Scenarios panel listens (a run to a precision sets its tools' trials).
  told(key, trials) {
    if (trials === undefined) this.running = key;
    else {
      this.running = null;
      if (trials !== null) this.settled = { key, trials };
    }
    this.section.dispatchEvent(new CustomEvent("sim-run", { detail: { key, started: trials === undefined, trials } }));
  }

  // The precision as the reader typed it, for the link: null in a fixed run.
  precision() {
    return this.mode() === "precision" ? this.precisionInput.value.trim() : null;
  }

  setLive(live) {
    this.runButton.disabled = !live;
    this.stopButton.disabled = !this.current;
  }

  // Runs the estimate for these inputs and seed; a run already going is replaced,
  // but with `ask` (the inputs changed) a long one only once the reader says so.
  async run(widget, inputs, seed, { ask = false } = {}) {
    const key = this.key(widget, inputs, seed);
    if (ask && this.current && this.running === key) { // the run going on is of these inputs already: it goes on
      this.closeAsk();
      delete this.result.dataset.outdated;
      return null;
    }
    if (ask && this.current && this.elapsed >= LONG_RUN_MS && this.ask) {
      this.asked = { widget, inputs, seed }; // the latest inputs
      this.result.dataset.outdated = "stale"; // the estimate shown is for the inputs before the change
      if (this.root.dataset.asking !== "after") { // not once told to let it finish
        this.ask.hidden = false;
        this.root.dataset.asking = "true";
        this.announce.textContent = "The inputs changed while a long run goes on: replace it, or let it finish first?";
      }
      return null;
    }
    this.closeAsk();
    if (this.mode() === "precision") return this.runToPrecision(widget, inputs, seed, key);
    const trials = this.trials();
    if (trials === null) {
      this.trialsInput.setAttribute("aria-invalid", "true");
      this.notRun = `Not run: enter a whole number of trials from 1 to ${MAX_TRIALS.toLocaleString("en")}.`;
      this.announce.textContent = this.notRun;
      this.result.dataset.outdated = "stale"; // the estimate shown is not for what the form now says
      // A count that cannot run stops the run going on, as a count that can would replace it: that run is no
      // longer what the form asks for, and its end must not say "Done" under the box's message.
      this.current?.cancel();
      return null;
    }
    this.trialsInput.removeAttribute("aria-invalid");
    this.notRun = null;
    this.current?.cancel();
    const seq = ++this.seq;
    const job = this.engine.job({ widget, inputs, seed, trials }, (p) => {
      if (seq === this.seq) this.progress(p);
    });
    this.current = job;
    this.told(key);
    const before = this.result.dataset.outdated; // the estimate shown was for other inputs (a change marked it)
    delete this.result.dataset.outdated; // the run for the inputs shown starts now
    this.elapsed = 0;
    this.stopButton.disabled = false;
    this.bar.max = trials;
    this.bar.value = 0;
    this.progressText.textContent = `0 of ${trials.toLocaleString("en")} trials`;
    this.announce.textContent = `Running ${trialCount(trials)}.`;
    this.result.setAttribute("aria-busy", "true");
    this.root.dataset.state = "running";
    const answer = await job.done;
    if (seq !== this.seq) return null; // replaced by a newer run
    this.current = null;
    this.told(key, answer.error ? null : answer.result.trials);
    const waiting = this.asked; // a change of inputs that waited for this run: its run follows
    this.closeAsk();
    this.idleStop();
    this.result.removeAttribute("aria-busy");
    if (answer.error) {
      const cancelled = answer.error.type === "Cancelled";
      // A stopped run is said by the trials of the estimate shown (the bar's): one worker's scheduler has run
      // more than its last progress showed (up to PROGRESS_MS more), and a run stopped before its first
      // progress shows the estimate from before it.
      const done = cancelled ? Number(this.bar.value) : answer.error.done ?? Number(this.bar.value);
      this.root.dataset.state = cancelled ? "stopped" : "failed";
      // The last progress said the speed and the time left: neither holds for a run that has ended.
      this.progressText.textContent = `${trialsSoFar(done, trials, this.elapsed)}${cancelled ? "; stopped" : ""}`;
      this.announce.textContent = cancelled ? this.notRun ?? this.stoppedSentence(done, before) : `Not run: ${answer.error.message}.`;
      if (answer.error.type !== "Cancelled") this.result.dataset.outdated = "stale"; // not the form's estimate
      return answer;
    }
    const { html, digest, trials: done, elapsed, workers = 1 } = answer.result;
    this.bar.value = done;
    this.showHtml(html, digest);
    this.root.dataset.workers = String(workers);
    const shared = workers > 1 ? ` on ${workers} workers` : "";
    this.progressText.textContent = `${done.toLocaleString("en")} of ${trials.toLocaleString("en")} trials in ${formatMs(elapsed)}${shared}`;
    this.announce.textContent = `Done: ${trialCount(done)}.`;
    this.root.dataset.state = "done";
    this.section.dispatchEvent(new CustomEvent("widget-estimate", { bubbles: true,
                                                                   detail: { trials: done, tally: answer.result.tally, seed } }));
    if (waiting) this.run(waiting.widget, waiting.inputs, waiting.seed);
    return answer;
  }

  // A run that stops once the engine says its headline is within the target,
  // one stage (checkpoint to checkpoint) at a time.
  async runToPrecision(widget, inputs, seed, key) {
    const target = this.precisionInput.value.trim();
    this.precisionInput.removeAttribute("aria-invalid");
    this.trialsInput.removeAttribute("aria-invalid");
    this.notRun = null;
    this.current?.cancel();
    const seq = ++this.seq;
    const started = performance.now();
    const before = this.result.dataset.outdated; // as in run()
    delete this.result.dataset.outdated;
    this.elapsed = 0;
    this.stopButton.disabled = false;
    let first = 0;
    let next = this.checkpoints[0];
    let tally = null;
    let status = null; // the engine's word on the last stage
    const shown = [this.progressText.textContent, this.bar.max, this.bar.value]; // what a refused precision leaves
    this.bar.max = next;
    this.bar.value = 0;
    const said = this.targetSaid();
    this.progressText.textContent = `0 trials; running until within ±${said}%`;
    this.announce.textContent = `Running until the figure is within ±${said}%.`;
    this.result.setAttribute("aria-busy", "true");
    this.root.dataset.state = "running";
    let answer;
    for (;;) {
      const stage = { first, next };
      const job = this.engine.job({ widget, inputs, seed, first, trials: next - first, tally, precision: target }, (p) => {
        if (seq === this.seq) this.stageProgress(stage, p, performance.now() - started);
      });
      if (first === 0) this.told(key);
      this.current = job;
      answer = await job.done;
      if (seq !== this.seq) return null; // replaced by a newer run
      if (answer.error) break;
      ({ tally, precision: status } = answer.result);
      if (status.stop || status.next === null) break;
      this.showHtml(answer.result.html, answer.result.digest);
      first = next;
      next = status.next;
      this.bar.max = next;
      // The line says where the stage ended, as the bar and the estimate do (until the next stage's first progress
      // it said the last progress of this one, some trials short of the checkpoint).
      this.stageProgress({ first, next }, { done: 0, precision: status }, performance.now() - started);
    }
    this.current = null;
    this.told(key, answer.error ? null : status.trials);
    const waiting = this.asked;
    this.closeAsk();
    this.idleStop();
    this.result.removeAttribute("aria-busy");
    const elapsed = performance.now() - started;
    if (answer.error) {
      const cancelled = answer.error.type === "Cancelled";
      const done = cancelled ? Number(this.bar.value) : first + (answer.error.done ?? 0); // as in run()
      this.root.dataset.state = cancelled ? "stopped" : "failed";
      if (answer.error.field === "precision") { // no run: the bar and its line stay as they were, as for a bad count
        this.precisionInput.setAttribute("aria-invalid", "true");
        [this.progressText.textContent, this.bar.max, this.bar.value] = shown;
      } else { // the last progress said where the run would look next: it will not
        this.progressText.textContent = `${done.toLocaleString("en")} trials, ${formatMs(elapsed)}`
          + `${cancelled ? "; stopped" : ""}`;
      }
      // A refused precision is said beside its box, marked invalid: the message alone ("'abc' is not a precision").
      const said = answer.error.field === "precision" ? alone(answer.error.message, "precision")
        : answer.error.message;
      this.announce.textContent = cancelled ? this.notRun ?? this.stoppedSentence(done, before) : `Not run: ${said}.`;
      if (!cancelled) this.result.dataset.outdated = "stale"; // not the form's estimate
      return answer;
    }
    this.bar.max = status.trials;
    this.bar.value = status.trials;
    this.showHtml(answer.result.html, answer.result.digest);
    this.root.dataset.trialsDone = String(status.trials);
    this.root.dataset.workers = String(answer.result.workers ?? 1); // of the last stage
    this.progressText.textContent = `${status.sentence} ${formatMs(elapsed)}.`;
    this.announce.textContent = `Done: ${trialCount(status.trials)}. ${status.sentence}`;
    this.root.dataset.state = "done";
    this.section.dispatchEvent(new CustomEvent("widget-estimate", { bubbles: true,
                                                                   detail: { trials: status.trials, tally, seed } }));
    if (waiting) this.run(waiting.widget, waiting.inputs, waiting.seed);
    return answer;
  }

  // What a stopped run leaves shown: the estimate of its `shown` trials, or, before its first progress, the
  // estimate from before the run, out of date if a change of inputs had marked it (`before`).
  stoppedSentence(shown, before) {
    if (shown > 0) return `Stopped after ${trialCount(shown)}; the estimate shown is from those.`;
    if (before) {
      this.result.dataset.outdated = "stale";
      return "Stopped before its first estimate; the estimate shown is for earlier inputs.";
    }
    return "Stopped before its first estimate; the estimate shown is from before the run.";
  }

  // A stage's progress: trials so far over the whole run, and the figure's half-width now against the target.
  stageProgress({ first, next }, { done, html, digest, precision }, elapsed) {
    this.bar.value = first + done;
    this.elapsed = elapsed;
    const now = precision ? `, ${precision.half_text} now (target ${precision.target_text})` : "";
    this.progressText.textContent = `${(first + done).toLocaleString("en")} trials${now}; next look at `
      + `${next.toLocaleString("en")}, ${formatMs(elapsed)}`;
    if (html) this.showHtml(html, digest);
  }

  progress({ done, trials, elapsed, html, digest }) {
    this.bar.value = done;
    this.elapsed = elapsed;
    let text = trialsSoFar(done, trials, elapsed);
    if (elapsed >= RATE_AFTER_MS && done > 0) { // the speed so far, and the time left at that speed
      const rate = done / (elapsed / 1000);
      const shown = rate >= 10 ? Math.round(rate).toLocaleString("en") : rate.toFixed(1);
      text += `; ${shown} trials a second, about ${formatLeft((trials - done) / rate)} left`;
    }
    this.progressText.textContent = text;
    if (html) this.showHtml(html, digest);
  }

  // The reader's answer to "replace the run going on?": yes runs the new
  // inputs now; no lets the run finish, and the new inputs' run follows it.
  answerAsk(replace) {
    const asked = this.asked;
    if (!asked) return;
    const focused = this.ask.contains(document.activeElement);
    if (replace) this.run(asked.widget, asked.inputs, asked.seed);
    else {
      this.ask.hidden = true;
      this.root.dataset.asking = "after";
    }
    // The button pressed went with the question: keyboard focus goes to the run's Stop (a run goes on either way),
    // not to the top of the page.
    if (focused) (this.stopButton.disabled ? this.runButton : this.stopButton).focus();
  }

  closeAsk() {
    this.asked = null;
    if (this.ask) this.ask.hidden = true;
    delete this.root.dataset.asking;
  }

  // The result's HTML, unless the digest says it is the one shown. HTML that comes without its digest
  // forgets the one kept: that digest no longer names what is shown, and the run's last answer must go in.
  showHtml(html, digest) {
    if (digest && digest === this.result.dataset.digest) return;
    this.result.innerHTML = html;
    if (digest) this.result.dataset.digest = digest;
    else delete this.result.dataset.digest;
  }

  stop() {
    this.current?.cancel();
  }

  // Stop is there only while a run goes on: a keyboard reader on it when the run ends (or who pressed it) goes to Run.
  idleStop() {
    disableKeepingFocus(this.stopButton, this.runButton);
  }
}
