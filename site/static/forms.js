// Reading and filling the widgets' forms. A form's structure is in the DOM
// (templates/partials/form.html): an element with data-key is a field (.field),
// a list (.list, items in an <ol> or a table: table-editor.js) or a group of
// keyed elements; collect and fill walk it as data.
//
// A part (details.part, data-part: its dotted path) stands for a keyed element
// the build left out of the page to keep it light: until it is opened (loadPart),
// collect gives its value (the widget's base, or what fill last gave it) and
// fill only keeps the value. Opening it fetches the element from the part's own
// page (the placeholder's link), puts it in the placeholder's place and fills it.

import * as table from "./table-editor.js";

export function keyed(container) {
  // Direct data-key descendants of container (not those inside a nested keyed element).
  const out = [];
  for (const child of container.children) {
    if (child.dataset.key !== undefined) out.push(child);
    else if (child.tagName !== "TEMPLATE") out.push(...keyed(child));
  }
  return out;
}

// What a reader sees a control called: its label, or in a table its row and column, after the legend of the
// group or list it is in ("Attacker, Attack value"; "Unit types, row 3, Attack hard"), without the "assumed"
// marks. For messages that the engine words by the input's path ("attacker.attack_value: …").
export function controlName(control) {
  const text = (el) => {
    const copy = el.cloneNode(true);
    for (const mark of copy.querySelectorAll(".assumed, .visually-hidden")) mark.remove();
    return copy.textContent.replace(/\s+/g, " ").trim();
  };
  const ids = control.getAttribute("aria-labelledby"); // a table's cell: its column's header and its row's number
  const names = ids ? ids.split(/\s+/).map((id) => control.ownerDocument.getElementById(id)).filter(Boolean).map(text)
    : [...control.labels].map(text);
  const own = ids && names.length === 2 ? `row ${names[1]}, ${names[0]}` : names.join(" ");
  const legend = control.closest("fieldset.group, fieldset.list")?.querySelector(":scope > legend");
  return [legend ? text(legend) : "", own].filter(Boolean).join(", ");
}

// An engine's message, which names its input by the input's path ("attacker.attack_value: -1 is out of range…"),
// with no name at all, for beside the field or after a name the page gives; a message of another field as it came.
export function alone(message, field) {
  return field && message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message;
}

// The same message with the input called `name` instead (`whole`), and with no name (`said`). A message of
// another field, or no name to give, leaves it as it came.
export function renamed(message, field, name) {
  const said = name ? alone(message, field) : message;
  return { said, whole: said === message ? message : `${name}: ${said}` };
}

// Disables `button`; if it had keyboard focus, focus goes to `next`: a disabled button loses it to the page's body,
// and a keyboard reader would start again from the top.
export function disableKeepingFocus(button, next) {
  const focused = document.activeElement === button;
  button.disabled = true;
  if (focused) next?.focus();
}

export function isPart(el) {
  return el.classList.contains("part");
}

// The value a part not yet loaded stands for: the widget's base at its path until fill gives it one.
export function partValue(part) {
  if (!Object.hasOwn(part, "partValue")) {
    let value = JSON.parse(part.closest(".widget").querySelector(":scope > .widget-base").textContent);
    for (const key of part.dataset.part.split(".")) value = value?.[key];
    part.partValue = value;
  }
  return part.partValue;
}

const loading = new WeakMap();

// What keyboard focus can go to in a form.
const FOCUSABLE = "summary, a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select:not([disabled]), [tabindex]:not([tabindex='-1'])";

// Loads a part in its placeholder's place, filled with its value; resolves to the loaded element
// (at once if `el` is not a part). Dispatches "part-loaded" (bubbling) from the new element.
export function loadPart(part) {
  if (!isPart(part)) return Promise.resolve(part);
  if (!loading.has(part)) {
    loading.set(part, (async () => {
      const response = await fetch(part.querySelector("a[data-part-src]").href).catch(() => null);
      if (!response?.ok) { // offline with no copy, say: the link in the placeholder stays, and a later opening tries again
        loading.delete(part);
        throw new Error(`part ${part.dataset.part} could not be loaded (${response ? response.status : "no answer"})`);
      }
      const doc = new DOMParser().parseFromString(await response.text(), "text/html");
      const element = document.adoptNode(doc.querySelector("[data-part-body] > [data-key]"));
      const value = partValue(part);
      const holder = part.parentElement;
      const focused = part.contains(document.activeElement); // its summary, opened from the keyboard
      part.replaceWith(element);
      fill(holder, { [element.dataset.key]: value });
      if (element.matches("details")) element.open = true;
      // The summary that had keyboard focus went with the placeholder, and focus with it to the page's body (a
      // keyboard reader started again from the top): it goes to the loaded part's first control (a settings
      // panel's own summary, a table's "What the columns mean").
      if (focused) element.querySelector(FOCUSABLE)?.focus();
      element.dispatchEvent(new CustomEvent("part-loaded", { bubbles: true }));
      return element;
    })());
  }
  return loading.get(part);
}

// Loads the part holding the form control of dotted `path` in `form`, if one does; resolves to
// whether one was loaded.
export async function loadPartOf(form, path) {
  for (const part of form.querySelectorAll("details.part")) {
    const prefix = part.dataset.part;
    if (path === prefix || path.startsWith(prefix + ".")) { await loadPart(part); return true; }
  }
  return false;
}

// An output left out of the page (a worked example's result): opening its details shows it in
// place of the link to its own page.
const viewing = new WeakSet();
async function loadView(details) {
  const link = details.querySelector(":scope > .part-link > a[data-part-src]");
  if (!link || viewing.has(details)) return;
  viewing.add(details);
  const response = await fetch(link.href).catch(() => null);
  if (!response?.ok) { viewing.delete(details); return; } // the link stays, for the reader to follow
  const doc = new DOMParser().parseFromString(await response.text(), "text/html");
  const body = doc.querySelector("[data-part-body]");
  if (details.contains(link)) link.parentElement.replaceWith(...[...body.childNodes].map((n) => document.adoptNode(n)));
}

// A part opened by its reader loads (the link inside is for readers without scripts).
document.addEventListener("toggle", (event) => {
  if (!event.target.open || !event.target.matches?.("details")) return;
  if (event.target.matches("details.part")) loadPart(event.target).catch(() => {}); // its link stays to follow
  else loadView(event.target);
}, true);

export function collect(container) {
  const data = {};
  for (const el of keyed(container)) {
    const key = el.dataset.key;
    if (isPart(el)) {
      data[key] = partValue(el);
    } else if (el.classList.contains("list")) {
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

export function fill(container, values) {
  for (const el of keyed(container)) {
    const key = el.dataset.key;
    if (!Object.hasOwn(values, key)) continue;
    const value = values[key];
    if (isPart(el)) {
      el.partValue = value;
    } else if (el.classList.contains("list") && table.isTable(el)) {
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

export function addItem(list, focus) {
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

export function renumber(list) {
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

export function updateListButtons(list) {
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
