// Search over the index the build writes (search-index.json): every rules
// section's text and every calculator's name. Runs in the browser; the index
// text is placed with textContent only, never parsed as HTML.

const INDEX_URL = new URL("../search-index.json", import.meta.url);
let index = null;

function words(text) {
  return text.toLowerCase().normalize("NFKD").match(/[\p{L}\p{N}#:]+/gu) || [];
}

async function load() {
  if (!index) {
    const entries = await (await fetch(INDEX_URL)).json();
    index = entries.map((e) => ({ ...e, hay: `${e.heading} ${e.page} ${e.system} ${e.text}`.toLowerCase(), head: `${e.heading} ${e.page}`.toLowerCase() }));
  }
  return index;
}

function score(entry, terms) {
  let total = 0;
  for (const t of terms) {
    if (!entry.hay.includes(t)) return 0;
    total += 1 + (entry.head.includes(t) ? 5 : 0) + (entry.kind === "widget" ? 2 : 0);
  }
  return total;
}

function snippet(text, terms) {
  const lower = text.toLowerCase();
  const at = Math.max(0, Math.min(...terms.map((t) => lower.indexOf(t)).filter((i) => i >= 0)));
  const start = Math.max(0, at - 60);
  return (start > 0 ? "…" : "") + text.slice(start, start + 220) + (start + 220 < text.length ? "…" : "");
}

function highlight(el, text, terms) {
  const lower = text.toLowerCase();
  let i = 0;
  while (i < text.length) {
    let next = -1;
    let len = 0;
    for (const t of terms) {
      const j = lower.indexOf(t, i);
      if (j >= 0 && (next < 0 || j < next)) { next = j; len = t.length; }
    }
    if (next < 0) { el.append(text.slice(i)); break; }
    el.append(text.slice(i, next));
    const mark = document.createElement("mark");
    mark.textContent = text.slice(next, next + len);
    el.append(mark);
    i = next + len;
  }
}

async function run(query, list, status) {
  const terms = words(query);
  list.textContent = "";
  if (!terms.length) { status.textContent = "Type a word to search the rules and calculators."; return; }
  const entries = await load();
  const hits = entries.map((e) => [score(e, terms), e]).filter(([s]) => s > 0).sort((a, b) => b[0] - a[0]).slice(0, 40);
  status.textContent = hits.length ? `${hits.length} ${hits.length === 1 ? "place" : "places"} found for “${query}”.` : `Nothing found for “${query}”.`;
  for (const [, e] of hits) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = new URL(`../${e.url}`, import.meta.url).href;
    a.textContent = e.kind === "widget" ? `Calculator: ${e.heading}` : e.heading || e.page;
    const where = document.createElement("span");
    where.className = "where";
    where.textContent = [e.system, e.page].filter(Boolean).join(" · ");
    const text = document.createElement("span");
    text.className = "snippet";
    highlight(text, snippet(e.text, terms), terms);
    li.append(a, where, text);
    list.append(li);
  }
}

export function mountSearch() {
  const input = document.getElementById("search-query");
  const list = document.getElementById("search-results");
  const status = document.getElementById("search-status");
  if (!input || !list) return;
  const query = new URLSearchParams(location.search).get("q") || "";
  input.value = query;
  let timer;
  const update = () => {
    const q = input.value.trim();
    history.replaceState(history.state, "", q ? `?q=${encodeURIComponent(q)}` : location.pathname);
    run(q, list, status);
  };
  input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(update, 120); });
  input.form.addEventListener("submit", (e) => { e.preventDefault(); clearTimeout(timer); update(); });
  run(query, list, status);
  if (!query) input.focus();
}
