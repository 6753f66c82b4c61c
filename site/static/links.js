// A widget's state in the page's link: reading the query string, and writing
// one widget's parameters.

export const SEED_KEY = "seed";
export const TRIALS_KEY = "trials";
export const PRECISION_KEY = "precision"; // a run until the headline is within ± this many percent (simulation.js)
export const SCENARIO_KEY = "scenario"; // a pinned A, a sweep and a target (scenario.js), one compact state
// A query longer than this goes into the link as the engine's compact state
// (?instance=~1.…) instead of one parameter per input.
export const COMPACT_OVER = 600;
// Many servers and CDNs refuse a request line past 8 KB: the share box says so.
export const SAFE_LINK_LENGTH = 8000;
export const DEFAULT_SEED = "1";

// Characters of a link's "#" part quoted in its notice, at most.
export const HASH_SHOWN = 120;

// What a link carried after its "#" that looks like settings ("sg-combat.terrain=forest"), decoded and cut to
// HASH_SHOWN characters, or null for a plain anchor. The site reads settings from the query alone, so the page
// says these were not applied. A text fragment (":~:text=…", which some browsers leave in the hash) is not settings.
export function hashSettings(hash) {
  const part = hash.replace(/^#/, "").split(":~:")[0];
  if (!part.includes("=")) return null;
  let text = part;
  try { text = decodeURIComponent(part); } catch { /* quoted as it came */ }
  return text.length > HASH_SHOWN ? `${text.slice(0, HASH_SHOWN)}…` : text;
}

// Keys given more than once in a link's query, each once, in the order they first came (at most REPEATS_SHOWN):
// the page applies the last value of each (linkParams) and says so.
export const REPEATS_SHOWN = 5;
export function repeatedKeys(search = location.search) {
  const seen = new Set();
  const repeated = new Set();
  for (const key of new URLSearchParams(search).keys()) (seen.has(key) ? repeated : seen).add(key);
  return [...repeated].slice(0, REPEATS_SHOWN);
}

export function linkParams(search = location.search) {
  // instance -> {path: text} from the query string, the last value of a key given twice. A Map, and objects with
  // no prototype: a link's keys (`__proto__`, `constructor`) are data, never a way onto the page's own objects.
  const groups = new Map();
  for (const [key, value] of new URLSearchParams(search)) {
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
// state; then the seed and the number of trials when not the defaults, the scenario, and the
// precision of a run to a precision.
export function queryFor(instance, link, state, seed, trials, scenario = "", precision = null) {
  const params = new URLSearchParams();
  for (const [path, text] of Object.entries(link)) params.append(`${instance}.${path}`, text);
  if (state && params.toString().length > COMPACT_OVER) {
    params.forEach((_, key) => params.delete(key));
    params.append(instance, state);
  }
  if (seed !== null && seed !== DEFAULT_SEED) params.append(`${instance}.${SEED_KEY}`, seed);
  if (trials !== null) params.append(`${instance}.${TRIALS_KEY}`, trials);
  if (scenario) params.append(`${instance}.${SCENARIO_KEY}`, scenario);
  if (precision !== null) params.append(`${instance}.${PRECISION_KEY}`, precision);
  return params;
}
