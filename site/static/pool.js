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
// The extra workers boot from the same snapshot as the main one, once a run
// has gone on for SPAWN_AFTER_MS: a short run never pays for a second Python
// (about a second of a core and 100 MB), a long one gets help within about a
// second and a half, and every later run has it from the start. With no
// extra worker (one core, little memory, or `size` 1) a run goes to the main
// worker's scheduler as one job, unchanged.
//
// Nothing here knows Pyodide or the DOM: `main` is the page's engine client
// (job, call), `spawn()` starts a worker, and the tests drive both as fakes.

export const BLOCKS_PER_WORKER = 4; // blocks a run is cut into, per worker
export const MIN_BLOCK = 25; // trials in a block at least
const PROGRESS_MS = 250;
export const SPAWN_AFTER_MS = 500;
const MAX_HELPERS = 3;

// How many workers a run may use here: one per core, at most 1 + MAX_HELPERS,
// and one alone where memory is tight (each worker holds its own Python, about
// 100 MB). One per core, not one fewer: while a run streams, the page's own
// thread is nearly idle, and on a 2-core machine two workers ran battles about
// 1.7 times as fast as one, with other widgets' recompute p95 still under 20 ms
// (bench/simulation.py; README). A page may fix the size (tests and the
// benchmark) with globalThis.rulesExplorerWorkers.
export function poolSize(nav = globalThis.navigator, fixed = globalThis.rulesExplorerWorkers) {
  if (Number.isSafeInteger(fixed) && fixed >= 1) return Math.min(fixed, 1 + MAX_HELPERS);
  const cores = nav?.hardwareConcurrency ?? 1;
  if (nav?.deviceMemory !== undefined && nav.deviceMemory < 4) return 1;
  return Math.max(1, Math.min(cores, 1 + MAX_HELPERS));
}

// The page's side of one extra worker: requests by id, progress by job id.
export class WorkerLink {
  constructor(worker) {
    this.worker = worker;
    this.nextId = 1;
    this.pending = new Map();
    this.progress = new Map();
    this.state = "loading";
    this.ready = new Promise((resolve) => { this.becameReady = resolve; });
    worker.onmessage = (event) => this.receive(event.data);
    worker.onerror = (event) => { event.preventDefault?.(); this.fail(); };
  }

  receive(data) {
    if (data.type === "ready") {
      this.state = "live";
      this.becameReady(true);
    } else if (data.type === "failed") {
      this.fail();
    } else if (data.progress) {
      this.progress.get(data.id)?.(data.progress);
    } else if (data.id !== undefined) {
      const waiting = this.pending.get(data.id);
      this.pending.delete(data.id);
      this.progress.delete(data.id);
      waiting?.(data);
    }
  }

  // A worker that fails answers everything still waiting with an error, once.
  fail() {
    if (this.state === "failed") return;
    this.state = "failed";
    this.becameReady(false);
    this.worker.terminate();
    for (const [id, waiting] of this.pending) {
      waiting({ id, error: { type: "WorkerLost", field: "", allowed: "", message: "an engine worker stopped" } });
    }
    this.pending.clear();
    this.progress.clear();
  }

  call(request) {
    const id = this.nextId++;
    if (this.state === "failed") {
      return Promise.resolve({ id, error: { type: "WorkerLost", field: "", allowed: "", message: "an engine worker stopped" } });
    }
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ id, ...request });
    });
  }

  job(request, onProgress) {
    const id = this.nextId++;
    if (this.state === "failed") {
      const error = { type: "WorkerLost", field: "", allowed: "", message: "an engine worker stopped" };
      return { done: Promise.resolve({ id, error }), cancel: () => {} };
    }
    this.progress.set(id, onProgress);
    const done = new Promise((resolve) => this.pending.set(id, resolve));
    this.worker.postMessage({ id, op: "job", ...request });
    return { done, cancel: () => this.state !== "failed" && this.worker.postMessage({ op: "cancel", job: id }) };
  }
}

export class Pool {
  constructor(main, spawn, { size = poolSize(), progressMs = PROGRESS_MS, spawnAfterMs = SPAWN_AFTER_MS,
                             now = () => performance.now(), later = (task, ms) => setTimeout(task, ms),
                             every = (task, ms) => setInterval(task, ms), stop = (timer) => clearInterval(timer) } = {}) {
    this.main = main;
    this.spawn = spawn;
    this.size = Math.max(1, size);
    this.progressMs = progressMs;
    this.spawnAfterMs = spawnAfterMs;
    this.later = later;
    this.now = now;
    this.every = every;
    this.stop = stop;
    this.helpers = null; // WorkerLinks, started once a run goes on long enough (startHelpers)
    this.runs = new Map(); // slot -> the run using it
    this.active = new Set(); // runs going on, which extra workers join once ready
  }

  // Starts the extra workers (once); every run going on takes them in as they get ready.
  startHelpers() {
    if (this.helpers || this.size === 1 || !this.spawn) return;
    this.helpers = Array.from({ length: this.size - 1 }, () => new WorkerLink(this.spawn()));
    for (const run of this.active) run.join(this.helpers);
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
    this.base = { widget, inputs, seed };
    this.trials = Number(request.trials);
    this.started = pool.now();
    this.ended = false;
    this.done = new Promise((resolve) => { this.resolve = resolve; });
    if (!Number.isSafeInteger(this.trials) || this.trials < 1) {
      // The main worker's scheduler words the refusal, as for a run of one worker.
      this.ended = true;
      pool.main.job(request, () => {}).done.then(this.resolve);
      return;
    }
    this.queue = blocksOf(this.trials, pool.size);
    this.workers = [];
    this.merging = false;
    this.finishing = false;
    this.shown = -1; // trials in the last estimate shown
    this.timer = pool.every(() => this.tick(), pool.progressMs);
    this.join([pool.main]);
    if (pool.helpers) this.join(pool.helpers);
  }

  // Workers take blocks from the moment they are ready.
  join(links) {
    for (const link of links) {
      const w = { link, tally: null, chunk: 1, done: 0, block: null };
      this.workers.push(w);
      if (link === this.pool.main) this.next(w);
      else link.ready.then((ok) => { if (ok) this.next(w); else this.workers = this.workers.filter((x) => x !== w); });
    }
  }

  // Trials in every worker's tally, finished blocks and running ones.
  get counted() {
    return this.workers.reduce((n, w) => n + w.done + (w.block?.progress ?? 0), 0);
  }

  next(w) {
    if (this.ended || w.block) return;
    const block = this.queue.shift();
    if (!block) {
      if (!this.finishing && this.workers.every((x) => !x.block)) this.finish();
      return;
    }
    w.block = { ...block, progress: 0, tally: null };
    w.block.job = w.link.job({ ...this.base, first: block.first, trials: block.count, tally: w.tally, chunk: w.chunk,
                               partial: true }, (p) => { if (w.block) Object.assign(w.block, { progress: p.done, tally: p.tally }); });
    w.block.job.done.then((answer) => this.blockDone(w, block, answer));
  }

  blockDone(w, block, answer) {
    w.block = null;
    if (this.ended) return;
    if (answer.error) {
      if (answer.error.type === "WorkerLost") { // another worker takes the block over
        this.queue.unshift(block);
        this.workers = this.workers.filter((x) => x !== w);
        for (const x of this.workers) this.next(x);
        return;
      }
      return this.end(null, answer);
    }
    w.tally = answer.result.tally;
    w.chunk = answer.result.chunk ?? w.chunk;
    w.done += block.count;
    this.next(w);
  }

  // Every worker's latest tally: a finished block's, or a running block's so far.
  tallies() {
    return this.workers.map((w) => w.block?.tally ?? w.tally).filter(Boolean);
  }

  merge() {
    return this.pool.main.call({ op: "merge", ...this.base, tallies: this.tallies(), trials: this.trials, render: true });
  }

  async tick() {
    const counted = this.counted;
    if (this.ended || this.merging || counted === this.shown || counted === 0) return;
    this.merging = true;
    const answer = await this.merge();
    this.merging = false;
    if (this.ended || answer.error) return;
    this.shown = answer.result.trials;
    this.onProgress({ done: answer.result.trials, trials: this.trials, elapsed: Math.round(this.pool.now() - this.started),
                      html: answer.result.html, digest: answer.result.digest });
  }

  async finish() {
    this.finishing = true;
    this.pool.stop(this.timer);
    const answer = await this.merge();
    if (this.ended) return;
    this.ended = true;
    if (answer.error) return this.resolve(answer);
    this.resolve({ ...answer, result: { ...answer.result, elapsed: Math.round(this.pool.now() - this.started),
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
