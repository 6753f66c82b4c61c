// List fields as tables: one row per item, the columns' help once above the
// table, and per row: duplicate, move up, move down, remove. A list whose
// items hold only plain fields is rendered this way (templates/partials/form.html,
// `list_table`); a list with nested groups or lists keeps one fieldset per item.
//
// Controls are named and identified by their row's index (`units.3.count`,
// `inst--units-3-count`), as links and error messages name them. Filling a
// list builds its rows in one pass; an edit renumbers only the rows from the
// first one it moved, so neither costs a pass over every control per row.

// The element holding a list field's items: an <ol> of fieldsets or a table body.
export function itemsOf(list) {
  return list.querySelector(":scope > ol.items, :scope > .table-scroll > table > tbody.items");
}

export function isTable(list) {
  return list.classList.contains("list-table");
}

function pathOf(list) {
  return list.dataset.path;
}

// Gives row `row` the index `i` (it had another, or "__i__" as a new row):
// names, ids, label targets, descriptions and the visible number.
function renumberRow(list, row, i) {
  const path = pathOf(list);
  const idBase = list.id;
  const swapName = (name) => (name.startsWith(path + ".") ? path + "." + name.slice(path.length + 1).replace(/^(\d+|__i__)/, String(i)) : name);
  const swapId = (value) => value.split(" ").map((token) => (token.startsWith(idBase + "-")
    ? idBase + "-" + token.slice(idBase.length + 1).replace(/^(\d+|__i__)/, String(i)) : token)).join(" ");
  for (const el of row.querySelectorAll("[name]")) el.name = swapName(el.name);
  for (const el of row.querySelectorAll("[id]")) el.id = swapId(el.id);
  for (const el of row.querySelectorAll("label[for]")) el.htmlFor = swapId(el.htmlFor);
  for (const attr of ["aria-describedby", "aria-labelledby"]) {
    for (const el of row.querySelectorAll(`[${attr}]`)) el.setAttribute(attr, swapId(el.getAttribute(attr)));
  }
  for (const el of row.querySelectorAll(".item-number")) {
    if (el.closest("[data-item]") === row) el.textContent = String(i + 1);
  }
}

// Renumbers the rows of `list` from index `from` on.
export function renumberFrom(list, from = 0) {
  const rows = itemsOf(list).children;
  for (let i = from; i < rows.length; i++) renumberRow(list, rows[i], i);
}

export function updateButtons(list) {
  const items = itemsOf(list);
  const count = items.children.length;
  const max = Number(list.dataset.max);
  const min = Number(list.dataset.min);
  list.querySelector(":scope > .add-item").disabled = count >= max;
  for (const [i, row] of [...items.children].entries()) {
    for (const b of row.querySelectorAll(":scope [data-action]")) {
      if (b.closest("[data-item]") !== row) continue;
      const action = b.dataset.action;
      if (action === "remove-item") b.disabled = count <= min;
      else if (action === "duplicate-item") b.disabled = count >= max;
      else if (action === "move-up") b.disabled = i === 0;
      else if (action === "move-down") b.disabled = i === count - 1;
    }
  }
}

// A new row from the list's template, not yet in the document.
export function blankRow(list) {
  return list.querySelector(":scope > template").content.firstElementChild.cloneNode(true);
}

// Sets the list to exactly `count` rows, keeping the first ones as they are:
// new rows are built in one fragment and numbered as they are made.
export function resize(list, count) {
  const items = itemsOf(list);
  while (items.children.length > count) items.lastElementChild.remove();
  const fragment = document.createDocumentFragment();
  for (let i = items.children.length; i < count; i++) {
    const row = blankRow(list);
    renumberRow(list, row, i);
    fragment.appendChild(row);
  }
  items.appendChild(fragment);
  updateButtons(list);
}

export function addRow(list) {
  const items = itemsOf(list);
  const row = blankRow(list);
  renumberRow(list, row, items.children.length);
  items.appendChild(row);
  updateButtons(list);
  return row;
}

// Copies a row's values into a new row just below it.
export function duplicateRow(list, row, copyValues) {
  const copy = blankRow(list);
  row.after(copy);
  const index = [...itemsOf(list).children].indexOf(copy);
  renumberFrom(list, index);
  copyValues(row, copy);
  updateButtons(list);
  return copy;
}

export function moveRow(list, row, delta) {
  const sibling = delta < 0 ? row.previousElementSibling : row.nextElementSibling;
  if (!sibling) return false;
  if (delta < 0) sibling.before(row);
  else sibling.after(row);
  const index = [...itemsOf(list).children].indexOf(delta < 0 ? row : sibling);
  renumberFrom(list, index);
  updateButtons(list);
  return true;
}

export function removeRow(list, row) {
  const next = row.nextElementSibling || row.previousElementSibling;
  const index = [...itemsOf(list).children].indexOf(row);
  row.remove();
  renumberFrom(list, index);
  updateButtons(list);
  return next;
}
