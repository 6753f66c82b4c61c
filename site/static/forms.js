// Reading and filling the widgets' forms. A form's structure is in the DOM
// (templates/partials/form.html): an element with data-key is a field (.field),
// a list (.list, items in an <ol> or a table: table-editor.js) or a group of
// keyed elements; collect and fill walk it as data.

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

export function collect(container) {
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

export function fill(container, values) {
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
