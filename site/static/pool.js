// One Monte Carlo run shared by several engine workers.
//
// A run of N trials is cut into blocks of consecutive trial indices. Each
// worker takes a block at a time as a `partial` job of its own scheduler
// (scheduler.js), adding into its own tally; a free worker takes the next
// block, so a worker that is still booting, or slower, simply takes fewer.
// A few times a second, and once at the end, the page sends every worker's
// tally to the main worker's `merge` op, which renders them as one. Trial i is
// seeded from (seed, i) and tallies merge exactly, so the answer is the one a
// single worker gives for the same (inputs, seed, N), whichever worker ran
// which block.
//
// The main worker (the page's engine, which answers every calculator) comes
// to the reader first. It runs trials in chunks of MAIN_SLICE_MS, and once
// an extra worker is live, only while the reader is quiet: a call of the
// reader's (a recompute) hands its block back at once, minus what it has
// done, and it takes another only once the reader has asked nothing for
// READER_ACTIVE_MS, as a scenario's share of a run does (WorkerLink's
// readerActive, for both). So a reader who changes things has it to themselves, and one who
// watches a run has every core on it (on a 2-core machine, about twice as
// fast). Trials measured slower than SLOW_TRIAL_MS start the extra workers at
// once and, while one may still come, run there only while the reader is
// quiet too; trials slower than QUIET_TRIAL_MS do not run there at all while
// an extra worker is live or may come (a change after a pause would wait
// behind one). So a recompute never waits behind a battle: at most behind
// one short chunk or trial, the first change after a pause.
//
// The extra workers boot from the same snapshot as the main one, once a run
// has gone on for SPAWN_AFTER_MS (at once for slow trials): a short run never
// pays for a second Python (about a second of a core and 100 MB), a long one
// gets help within about a second and a half, and every later run has it
// from the start. An extra worker whose boot stalls (the page engine's rule,
// engine-client.js `stall`) or runs past BOOT_TIMEOUT_MS is given up: its
// `ready` says false, so whatever waits for it (a run of slow trials, a
// scenario's calls) goes on without it, and another starts in its place, up
// to RESTARTS times a page. The pool grows by measurement, not only by the core count a
// browser reports (WebKit says 4 on a 2-core machine): once a run has
// measured its speed with the helpers it has, one more starts, and it stays
// only if the run then goes at least GROWTH times as fast (`judge`). With no
// extra worker (one core, little memory, or `size` 1) a run goes to the main
// worker's scheduler as one job, unchanged.
//
// Nothing here knows Pyodide or the DOM: `main` is the page's engine client
// (job, call), `spawn()` starts a worker, and the tests drive both as fakes.

import { BOOT_TIMEOUT_MS, RESTARTS, WATCH_EVERY_MS, WorkerLink } from "./engine-client.js";

export { WorkerLink };

export const BLOCKS_PER_WORKER = 4; // blocks a run is cut into, per worker
export const MIN_BLOCK = 25; // trials in a block at least
const PROGRESS_MS = 250;
export const SPAWN_AFTER_MS = 500;
// A trial that takes longer than this (ms) does not run on the main worker
// while an extra worker can take it and the reader is changing things: a
// recompute would wait behind it.
export const SLOW_TRIAL_MS = 5;
// Nor one longer than this (ms) while the reader is quiet: their next change
// would wait behind it (AT Gold 40 v 40 takes about 4.5 ms in a browser here).
export const QUIET_TRIAL_MS = 12;
// Slow trials are timed again over this many, warm, before the main worker takes more of them.
const WARM_TRIALS = 3;
// The main worker's chunks, while it runs trials, are this short (ms; other
// workers' are the scheduler's 10): a recompute waits behind one at most.
export const MAIN_SLICE_MS = 4;
// The pool's speed is measured over windows of a run this long (ms), the
// first after each change of workers left out ...
export const MEASURE_MS = 1500;
// ... and an extra worker beyond the first stays only if the run went at
// least this many times as fast once it had joined.
export const GROWTH = 1.2;
const MAX_HELPERS = 3;
// While the reader is changing things (a call to the main worker within the last READER_ACTIVE_MS,
// engine-client.js), a run's progress is merged at most every MERGE_DEFER_MS: a merge and render of a big
// battle's estimate holds the main worker 20-30 ms in Pyodide (and its paint the page a frame), and a change
// made meanwhile waits for it. Once the reader pauses, the next tick merges; the run's end is merged at once.
export const MERGE_DEFER_MS = 2000;

// How many workers a run may use here at most: one per core, at most
// 1 + MAX_HELPERS, and one alone where memory is tight (each worker holds its
// own Python, about 100 MB). A run has an extra worker for every core but
// one: that core is the page's engine's, which plays trials only while the
// reader is not changing anything. On this 2-core machine a second extra
// worker made the card game's run twice as fast but doubled a calculator's
// recompute p95 during it (bench/simulation.py: 21 against 44 ms), and a
// reader's change comes first. Within this bound the pool keeps an extra
// worker beyond the first only if it made a run faster (Pool.judge): a
// browser may report more cores than it gets. A page may fix the size (tests
// and the benchmark) with globalThis.rulesExplorerWorkers; a fixed pool starts
// all its workers at once and judges none.
export function poolSize(nav = globalThis.navigator, fixed = globalThis.rulesExplorerWorkers) {
  if (Number.isSafeInteger(fixed) && fixed >= 1) return Math.min(fixed, 1 + MAX_HELPERS);
  const cores = nav?.hardwareConcurrency ?? 1;
  if (nav?.deviceMemory !== undefined && nav.deviceMemory < 4) return 1;
  // A touch device that does not say its memory (Safari on iOS and iPadOS, Firefox on Android): a tab
  // there is killed near 384 MB, and a page with its engine live holds about 300 (bench/memory.py), each
  // extra worker 70-120 more. One worker.
  if (nav?.deviceMemory === undefined && (nav?.maxTouchPoints ?? 0) > 1) return 1;
  return Math.max(1, Math.min(cores, 1 + MAX_HELPERS));
}

export class Pool {
  constructor(main, spawn, { size = poolSize(), fixed = Number.isSafeInteger(globalThis.rulesExplorerWorkers),
                             progressMs = PROGRESS_MS, spawnAfterMs = SPAWN_AFTER_MS,
                             now = () => performance.now(), later = (task, ms) => setTimeout(task, ms),
                             every = (task, ms) => setInterval(task, ms), stop = (timer) => clearInterval(timer) } = {}) {
    this.main = main;
    this.spawn = spawn;
    this.size = Math.max(1, size);
    this.fixed = fixed; // the size was set by the page: start every worker at once, judge none
    this.progressMs = progressMs;
    this.spawnAfterMs = spawnAfterMs;
    this.later = later;
    this.now = now;
    this.every = every;
    this.stop = stop;
    this.helpers = null; // WorkerLinks, started once a run goes on long enough (startHelpers)
    this.limit = Infinity; // extra workers at most, lowered when one made no run faster
    this.probation = null; // the newest extra worker, until a run has measured what it adds
    this.replaced = 0; // extra workers given up at boot and started again
    this.bootWatch = null; // the timer that watches extra workers' boots, while any boots
    this.sizing = []; // each judgement: {extra, rate, before, kept} (rates in trials a ms)
    this.runs = new Map(); // slot -> the run using it
    this.active = new Set(); // runs going on, which extra workers join once ready
    // A call of the reader's takes the main worker's blocks back at once (see the top of this file).
    main.onAsk = () => { for (const run of this.active) run.freeMain(); };
  }

  // Whether the reader has asked the main worker something within READER_ACTIVE_MS (the one judgement a
  // scenario's share makes too).
  readerActive() {
    return this.main.readerActive?.() ?? false;
  }

  // Extra workers this pool may still have.
  get room() {
    return Math.min(this.size - 1, this.limit) - (this.helpers?.length ?? 0);
  }

  // Starts the extra workers: the first one (a fixed pool: all of them) once;
  // every run going on takes them in as they get ready.
  startHelpers() {
    if (this.helpers || this.size === 1 || !this.spawn) return;
    this.helpers = [];
    do this.addHelper(); while (this.fixed && this.room > 0);
  }

  addHelper() {
    if (!this.spawn || this.room <= 0) return;
    const link = new WorkerLink(this.spawn(), { now: this.now });
    this.helpers.push(link);
    if (!this.fixed && this.helpers.length > 1) this.probation = link;
    for (const run of this.active) run.join([link]);
    this.bootWatch ??= this.every(() => this.watchBoots(), WATCH_EVERY_MS);
  }

  // Gives up an extra worker whose boot has stalled or run too long, and drops one that failed, starting
  // another in its place while restarts are left. It runs while an extra worker boots.
  watchBoots() {
    const now = this.now();
    for (const link of this.helpers) {
      const stuck = link.state === "loading" && (link.stall(now) || now - link.started >= BOOT_TIMEOUT_MS);
      if (!stuck && link.state !== "failed") continue;
      link.fail(); // its `ready` says false: what waited for it goes on without it
      this.helpers = this.helpers.filter((h) => h !== link);
      if (this.probation === link) this.probation = null;
      if (this.replaced < RESTARTS) {
        this.replaced++;
        this.addHelper();
      } else {
        this.limit = Math.min(this.limit, this.helpers.length); // no more: a run waiting for one goes on
      }
    }
    if (!this.helpers.some((h) => h.state === "loading")) {
      this.stop(this.bootWatch);
      this.bootWatch = null;
    }
  }

  // A run measured `rate` (trials a ms) with `working` extra workers, and
  // `before` with one fewer (or null). Grows the pool by one while it pays.
  judge(working, rate, before) {
    if (this.fixed || !this.helpers) return;
    const newest = this.helpers[this.helpers.length - 1];
    if (this.probation === newest && working === this.helpers.length && before !== null) {
      this.probation = null;
      const kept = rate >= before * GROWTH;
      this.sizing.push({ extra: working, rate, before, kept });
      if (!kept) { // it made the run no faster: this machine has no core for it
        this.limit = this.helpers.length - 1;
        this.helpers.pop();
        newest.fail(); // its block goes back to the others
        return;
      }
    }
    if (!this.probation && working === this.helpers.length && this.helpers.every((h) => h.state === "live")) this.addHelper();
  }

  // Same contract as the engine client's job(): {done: Promise<answer>, cancel()}.
  job(request, onProgress) {
    if (this.size === 1 || !this.spawn) return this.main.job(request, onProgress);
    if (request.slot !== undefined) this.runs.get(request.slot)?.end("replaced");
    const run = new SharedRun(this, request, onProgress);
    if (request.slot !== undefined) this.runs.set(request.slot, run);
    this.active.add(run);
    if (!this.helpers) {
      if (this.spawnAfterMs <= 0) this.startHelpers();
      else this.later(() => { if (!run.ended) this.startHelpers(); }, this.spawnAfterMs);
    }
    run.done.then(() => {
      this.active.delete(run);
      if (this.runs.get(request.slot) === run) this.runs.delete(request.slot);
    });
    return { done: run.done, cancel: () => run.end("cancelled") };
  }
}

// The run's blocks in trial order. The first is small, so the main worker has
// an estimate to show by the first progress tick while the rest start.
function blocksOf(trials, workers) {
  const size = Math.max(MIN_BLOCK, Math.ceil(trials / (workers * BLOCKS_PER_WORKER)));
  const blocks = [{ first: 0, count: Math.min(MIN_BLOCK, trials) }];
  for (let first = blocks[0].count; first < trials; first += size) blocks.push({ first, count: Math.min(size, trials - first) });
  return blocks;
}

class SharedRun {
  constructor(pool, request, onProgress) {
    this.pool = pool;
    this.onProgress = onProgress;
    const { widget, inputs, seed } = request;
    // A stage of a run to a precision (simulation.js) carries its target, and starts from the stages
    // before it: trials `first` on, over their `tally`, which every merge adds in.
    this.base = { widget, inputs, seed, ...(request.precision !== undefined ? { precision: request.precision } : {}) };
    this.first = Number(request.first ?? 0);
    this.before = request.tally ?? null;
    this.trials = Number(request.trials);
    this.started = pool.now();
    this.ended = false;
    this.done = new Promise((resolve) => { this.resolve = resolve; });
    if (!Number.isSafeInteger(this.trials) || this.trials < 1 || !Number.isSafeInteger(this.first) || this.first < 0) {
      // The main worker's scheduler words the refusal, as for a run of one worker.
      this.ended = true;
      pool.main.job(request, () => {}).done.then(this.resolve);
      return;
    }
    this.queue = blocksOf(this.trials, pool.size).map((b) => ({ first: this.first + b.first, count: b.count }));
    this.workers = [];
    this.merging = false;
    this.finishing = false;
    this.slow = false; // a trial was measured slower than SLOW_TRIAL_MS
    this.long = false; // trials were measured slower than QUIET_TRIAL_MS (or the engine gave the probe up)
    this.probed = false; // the main worker has run its first trial (alone, to time it)
    this.warm = false; // ... and, its trials slow, a few more (WARM_TRIALS) to time them again
    this.window = null; // the speed being measured: {working, at, counted}
    this.rates = new Map(); // extra workers working -> trials a ms, as measured in this run
    this.shown = -1; // trials in the last estimate shown
    this.mergedAt = -Infinity; // when the last progress merge was asked
    this.timer = pool.every(() => this.tick(), pool.progressMs);
    // A worker on probation joins once the run has measured its speed without it.
    if (pool.helpers) this.join(pool.helpers.filter((h) => h !== pool.probation));
    this.join([pool.main]); // last: with an extra worker live it takes no block
  }

  // Workers take blocks from the moment they are ready.
  join(links) {
    for (const link of links) {
      const w = { link, tally: null, chunk: 1, done: 0, block: null, finished: [] };
      this.workers.push(w);
      if (link === this.pool.main) this.next(w);
      else {
        link.ready.then((ok) => {
          if (!ok) { // it never came: the others (the main worker too, if it was waiting for it) go on
            this.workers = this.workers.filter((x) => x !== w);
            for (const x of this.workers) this.next(x);
            return;
          }
          this.next(w);
          this.freeMain();
        });
      }
    }
  }

  // Whether the main worker runs none of this run's trials now: long trials
  // while an extra worker is live or may still come; others while the reader
  // is busy with the page and an extra worker is live (slow ones: or coming).
  mainKeptFree() {
    const helpers = this.workers.filter((w) => w.link !== this.pool.main);
    const live = helpers.some((w) => w.link.state === "live");
    const coming = helpers.some((w) => w.link.state === "loading") || this.pool.room > 0;
    if (this.long) return live || coming;
    return (live || (this.slow && coming)) && this.pool.readerActive();
  }

  // Hands the main worker's block back, but for the trials it has reported.
  freeMain() {
    const w = this.workers.find((x) => x.link === this.pool.main);
    if (!w?.block || w.block.reclaimed || !this.mainKeptFree()) return;
    w.block.reclaimed = true;
    w.block.job.cancel();
  }

  // A block's progress: how far it came and what a trial costs.
  heard(w, p) {
    if (!w.block) return;
    Object.assign(w.block, { progress: p.done, tally: p.tally });
    if (w.link === this.pool.main && p.done > 0) this.timed(p.elapsed / p.done, w.block.cold || p.done < 2);
  }

  // Trials of the main worker took `ms` each: a slow one starts the extra workers at once. The run's first
  // trial may carry its set-up, and any one trial may be slow by chance, so a `cold` measure (the first, or
  // of one trial) calls trials slow, never long.
  timed(ms, cold) {
    const long = !cold && ms > QUIET_TRIAL_MS;
    if (ms <= SLOW_TRIAL_MS || this.long || (this.slow && !long)) return;
    this.slow = true;
    this.long = long;
    this.pool.startHelpers(); // at once: a slow run should not wait on the main worker
    this.freeMain();
  }

  // Trials in every worker's tally, finished blocks and running ones.
  get counted() {
    return this.workers.reduce((n, w) => n + w.done + (w.block?.progress ?? 0), 0);
  }

  next(w) {
    if (this.ended || w.block) return;
    // A worker that may take no block now (a helper: until it is ready) still ends the run if it was the last.
    const free = w.link === this.pool.main ? !this.mainKeptFree() : w.link.state === "live";
    let block = free ? this.queue.shift() : undefined;
    let probe = false;
    const cold = !this.probed;
    if (block && w.link === this.pool.main && (cold || (this.slow && !this.long && !this.warm))) {
      // The main worker's first block is one trial, as a probe: what it costs decides whether it takes
      // more, and a trial that would take long is abandoned by the engine at once (error "Slow") rather
      // than holding up the reader's changes; it goes to an extra worker instead. Slow ones are timed
      // again, a few, before the main worker takes more of them.
      this.probed = true;
      this.warm = !cold;
      probe = true;
      const count = cold ? 1 : WARM_TRIALS;
      if (block.count > count) this.queue.unshift({ first: block.first + count, count: block.count - count });
      block = { first: block.first, count: Math.min(count, block.count) };
    }
    if (!block) {
      if (!this.queue.length && !this.finishing && this.workers.every((x) => !x.block)) this.finish();
      return;
    }
    w.block = { ...block, progress: 0, tally: null, timing: probe, cold: probe && cold };
    const slice = w.link === this.pool.main ? { slice: MAIN_SLICE_MS } : {};
    w.block.job = w.link.job({ ...this.base, first: block.first, trials: block.count, tally: w.tally, chunk: w.chunk,
                               partial: true, ...slice, ...(probe ? { probe } : {}) }, (p) => this.heard(w, p));
    const started = w.block;
    w.block.job.done.then((answer) => this.blockDone(w, block, answer, started));
  }

  blockDone(w, block, answer, started) {
    w.block = null;
    if (this.ended) return;
    if (answer.error) {
      if (answer.error.type === "WorkerLost") { // the others take its blocks over, finished ones too
        this.queue.unshift(...w.finished, block);
        this.workers = this.workers.filter((x) => x !== w);
        for (const x of this.workers) this.next(x);
        return;
      }
      if (answer.error.type === "Slow") { // the probe: its trial goes to an extra worker, which starts now
        this.queue.unshift(block);
        this.slow = this.long = true; // how slow is not known: never on the main worker beside a helper
        this.pool.startHelpers();
        for (const x of this.workers) this.next(x);
        return;
      }
      if (answer.error.type === "Cancelled" && started.reclaimed) { // the main worker's, given back
        const kept = started.tally ? started.progress : 0;
        if (kept) { w.tally = started.tally; w.done += kept; w.finished.push({ first: block.first, count: kept }); }
        if (kept < block.count) this.queue.unshift({ first: block.first + kept, count: block.count - kept });
        if (started.timing && kept < block.count) { // a timing cut short times again: its trials' cost is not known
          if (started.cold) this.probed = false;
          else this.warm = false;
        }
        for (const x of this.workers) this.next(x);
        return;
      }
      return this.end(null, answer);
    }
    if (w.link === this.pool.main) this.timed(answer.result.elapsed / block.count, started.cold || block.count < 2);
    w.tally = answer.result.tally;
    w.chunk = answer.result.chunk ?? w.chunk;
    w.done += block.count;
    w.finished.push(block);
    this.next(w);
  }

  // Every worker's latest tally: a finished block's, or a running block's so far.
  tallies() {
    return [this.before, ...this.workers.map((w) => w.block?.tally ?? w.tally)].filter(Boolean);
  }

  // The merge is the page's own work, not the reader's: it is asked only once no call of the reader's is in
  // flight on the main worker (after MERGE_DEFER_MS of calls without a gap: once those in flight then are
  // answered), and goes there behind any the reader makes meanwhile (`background`).
  async merge() {
    const { main } = this.pool;
    await main.settled?.(MERGE_DEFER_MS);
    if (this.ended) return { error: { type: "Cancelled" } };
    const answer = await main.call({ op: "merge", ...this.base, tallies: this.tallies(), trials: this.trials, render: true },
                                   { background: true });
    // A recompute asked while it was worked out is shown first: the estimate's HTML (a long layout on a
    // big page) is put in only after.
    await main.settled?.(MERGE_DEFER_MS);
    return answer;
  }

  // The run's speed over windows of MEASURE_MS with the same extra workers
  // working; the pool grows (or not) from it.
  measure() {
    const now = this.pool.now();
    const working = this.workers.filter((w) => w.link !== this.pool.main && w.link.state === "live").length;
    const counted = this.counted;
    if (!this.window || this.window.working !== working) {
      // The first window after a change is not counted: a worker that has
      // just joined runs its first trials before the browser has optimised them.
      this.window = { working, at: now, counted, settling: true };
      return;
    }
    if (now - this.window.at < MEASURE_MS || counted - this.window.counted < 4 * Math.max(1, working)) return;
    if (this.window.settling) {
      this.window = { working, at: now, counted, settling: false };
      return;
    }
    const rate = (counted - this.window.counted) / (now - this.window.at);
    this.rates.set(working, rate);
    this.window = { working, at: now, counted };
    if (working === 0) return;
    const { probation } = this.pool;
    if (probation && !this.workers.some((w) => w.link === probation)) return this.join([probation]);
    this.pool.judge(working, rate, this.rates.get(working - 1) ?? null);
  }

  async tick() {
    if (!this.ended && !this.finishing) {
      this.measure();
      const main = this.workers.find((w) => w.link === this.pool.main);
      if (main) this.next(main); // the reader has paused: the main worker takes a block again
    }
    const counted = this.counted;
    if (this.ended || this.merging || counted === this.shown || counted === 0) return;
    const now = this.pool.now();
    if (this.pool.readerActive() && now - this.mergedAt < MERGE_DEFER_MS) return;
    this.mergedAt = now;
    this.merging = true;
    const answer = await this.merge();
    this.merging = false;
    if (this.ended || answer.error) return;
    this.shown = answer.result.trials - this.first;
    this.onProgress({ done: this.shown, trials: this.trials, elapsed: Math.round(this.pool.now() - this.started),
                      html: answer.result.html, digest: answer.result.digest, precision: answer.result.precision });
  }
  async finish() {
    this.finishing = true;
    this.pool.stop(this.timer);
    const answer = await this.merge();
    if (this.ended) return;
    this.ended = true;
    if (answer.error) return this.resolve(answer);
    // Trials of this run (or stage), as one worker's scheduler counts them; the tally holds the stages before too.
    this.resolve({ ...answer, result: { ...answer.result, trials: answer.result.trials - this.first,
                                        elapsed: Math.round(this.pool.now() - this.started),
                                        workers: this.workers.filter((w) => w.done > 0).length } });
  }

  // Stops every block; `why` words a cancel, `answer` is an error that ends the run.
  end(why, answer = null) {
    if (this.ended) return;
    this.ended = true;
    this.pool.stop(this.timer);
    for (const w of this.workers) w.block?.job.cancel();
    this.resolve(answer ?? { error: { type: "Cancelled", field: "", allowed: "", message: `the run was ${why}`,
                                      done: this.shown > 0 ? this.shown : 0 } });
  }
}
