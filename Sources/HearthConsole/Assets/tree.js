// The data tree as one virtualised list: the expanded nodes flattened into rows of one height,
// of which only those in and near the viewport are in the DOM (a fixed number, however many
// children are loaded). Scrolling near the end of a list loads its next page; the pages in view
// are followed live. Keyboard: arrows move, → expands, ← collapses, Enter opens in the editor,
// Backspace opens the parent of the node in the editor. An empty database shows what to do.
import { $ } from "./api.js";
import { closeList, followPage, loadPage, makeNode, onListChange, openList, stopPage } from "./tree-pages.js";

const rowHeight = 22;   // px, as `.node`, `.more` and `.note` in the stylesheet
const overscan = { above: 100, below: 150 };   // rows kept in the DOM around the viewport (more below, where lists grow)
const lookahead = 10;   // a "more…" row this close below the viewport loads its page
const livePages = 3;    // pages followed live at once: each stream holds one of the browser's connections
const tree = { root: null, rows: [], range: [-1, -1], elements: new Map(), focus: null, selected: "/", live: new Set() };
let onSelect = () => {};
let onError = () => {};
let liveTimer = 0;

function box() { return $("tree"); }

/// Shows the tree from the root; `select(path, isObject)` opens a node in the editor.
export function showTree(select, showError) {
  stopTree();
  onSelect = select;
  onError = showError;
  const element = box();
  element.textContent = "";
  const spacer = document.createElement("div");
  spacer.className = "tree-spacer";
  const rows = document.createElement("div");
  rows.className = "tree-rows";
  spacer.append(rows);
  element.append(spacer);
  element.scrollTop = 0;
  tree.root = makeNode("/", "/", 0, true, null, null);
  tree.focus = tree.root;
  tree.elements = new Map();
  tree.range = [-1, -1];
  activate(tree.root, false);
}

/// Stops every page's stream (signing out, another database).
export function stopTree() {
  if (tree.root?.list) closeList(tree.root.list);
  clearTimeout(liveTimer);
  tree.live = new Set();
  tree.rows = [];
}

onListChange(() => relayout());

function relayout() {
  const rows = [];
  const walk = (node) => {
    rows.push(node);
    const list = node.list;
    if (!list) return;
    if (list.note !== null && list.children.length === 0) rows.push(list.noteRow);
    for (const child of list.children) walk(child);
    if (list.hasMore || list.loading) rows.push(list.moreRow);
  };
  if (tree.root) walk(tree.root);
  tree.rows = rows;
  const top = tree.root?.list;
  const empty = Boolean(top && !top.loading && !top.hasMore && top.children.length === 0 && top.note === "(empty)");
  $("data-empty").hidden = !empty;
  box().parentElement.classList.toggle("no-data", empty);
  render(true);
}

/// Opens the node at `path` in the editor (from the breadcrumb: it has children), its row focused
/// when the tree shows it.
export function selectPath(path) {
  const index = tree.rows.findIndex((row) => row.kind === "node" && row.path === path);
  if (index < 0) {
    tree.selected = path;
    onSelect(path, true);
    relayout();
    return;
  }
  tree.focus = tree.rows[index];
  activate(tree.focus, false);
  scrollToRow(tree.rows.indexOf(tree.focus));
  render(true);
}

function render(force) {
  const element = box();
  const spacer = element.querySelector(".tree-spacer");
  if (!spacer) return;
  const count = tree.rows.length;
  const first = Math.floor(element.scrollTop / rowHeight);
  const visible = Math.ceil(element.clientHeight / rowHeight) + 1;
  // Rendered in steps of 50 rows, so that scrolling a little changes nothing in the DOM.
  const start = Math.max(0, Math.floor((first - overscan.above) / 50) * 50);
  const end = Math.min(count, Math.ceil((first + visible + overscan.below) / 50) * 50);
  spacer.style.height = count * rowHeight + "px";
  if (force || start !== tree.range[0] || end !== tree.range[1]) {
    tree.range = [start, end];
    const elements = new Map();
    const shown = [];
    for (let index = start; index < end; index++) {
      const row = tree.rows[index];
      const rowElement = tree.elements.get(row) ?? create(row);
      paint(rowElement, row, index);
      elements.set(row, rowElement);
      shown.push(rowElement);
    }
    tree.elements = elements;
    const rows = spacer.firstChild;
    rows.style.transform = `translateY(${start * rowHeight}px)`;
    rows.replaceChildren(...shown);
  }
  const due = tree.rows.slice(first, first + visible + lookahead).filter((row) => row.kind === "more" && !row.list.loading && !row.list.stalled);
  for (const row of due) loadPage(row.list, true);
  clearTimeout(liveTimer);
  liveTimer = setTimeout(followVisiblePages, 150);
}

function create(row) {
  const element = document.createElement("div");
  if (row.kind === "node") {
    element.className = "node";
    element.setAttribute("role", "treeitem");
    element.dataset.path = row.path;
    const toggle = document.createElement("span");
    toggle.className = "toggle";
    const label = document.createElement("span");
    label.className = "key";
    label.textContent = row.key;
    element.append(toggle, label);
  } else {
    element.className = row.kind;
  }
  element.style.paddingLeft = row.depth * 1.1 + "rem";
  element.addEventListener("click", (event) => {
    event.stopPropagation();
    tree.focus = row;
    activate(row, true);
  });
  return element;
}

function paint(element, row, index) {
  element.id = "tree-row-" + index;
  element.classList.toggle("focused", row === tree.focus);
  if (row.kind === "more") {
    element.textContent = row.list.loading ? "loading…" : row.list.stalled ? "more… (not loaded: click to try again)" : "more…";
    return;
  }
  if (row.kind === "note") {
    element.textContent = row.list.note;
    return;
  }
  const isObject = row.value === true;
  element.setAttribute("aria-level", String(row.depth + 1));
  if (isObject) element.setAttribute("aria-expanded", String(!!row.list));
  else element.removeAttribute("aria-expanded");
  element.classList.toggle("selected", row.path === tree.selected);
  element.querySelector(".toggle").textContent = isObject ? (row.list ? "▾" : "▸") : "";
  let leaf = element.querySelector(".leaf");
  if (isObject) {
    leaf?.remove();
  } else {
    if (!leaf) {
      leaf = document.createElement("span");
      leaf.className = "leaf";
      element.append(leaf);
    }
    leaf.textContent = JSON.stringify(row.value);
  }
  if (row.flash) {
    row.flash = false;
    element.classList.remove("flash");
    void element.offsetWidth;
    element.classList.add("flash");
  }
}

/// A click or Enter: a node opens in the editor and, when it has children, expands or
/// collapses (`toggle`); a "more…" row loads its page.
function activate(row, toggle) {
  if (row.kind === "more") return loadPage(row.list);
  if (row.kind !== "node") return;
  tree.selected = row.path;
  onSelect(row.path, row.value === true);
  if (row.value === true && (toggle || !row.list)) {
    if (row.list) closeList(row.list); else openList(row, onError);
  }
  relayout();
}

// The pages with the most rows in the DOM (the nearest to the middle of the view first) are
// followed live; the others stop. A page followed again starts with its whole range.
function followVisiblePages() {
  const element = box();
  const middle = (element.scrollTop + element.clientHeight / 2) / rowHeight;
  const seen = new Map();
  for (let index = Math.max(0, tree.range[0]); index < Math.min(tree.range[1], tree.rows.length); index++) {
    const row = tree.rows[index];
    const page = row.kind === "node" ? row.page : row.kind === "note" ? row.list.pages.at(-1) : null;
    if (!page) continue;
    const figures = seen.get(page) ?? { rows: 0, distance: Infinity };
    figures.rows += 1;
    figures.distance = Math.min(figures.distance, Math.abs(index - middle));
    seen.set(page, figures);
  }
  const ranked = [...seen].sort((a, b) => b[1].rows - a[1].rows || a[1].distance - b[1].distance);
  const chosen = new Set(ranked.slice(0, livePages).map(([page]) => page));
  for (const page of tree.live) if (!chosen.has(page)) stopPage(page);
  for (const page of chosen) followPage(page);
  tree.live = chosen;
}

function scrollToRow(index) {
  const element = box();
  const top = index * rowHeight;
  if (top < element.scrollTop) element.scrollTop = top;
  else if (top + rowHeight > element.scrollTop + element.clientHeight) element.scrollTop = top + rowHeight - element.clientHeight;
}

box().addEventListener("scroll", () => render(false));

box().addEventListener("keydown", (event) => {
  const rows = tree.rows;
  let index = Math.max(0, rows.indexOf(tree.focus));
  const row = rows[index];
  const page = Math.max(1, Math.floor(box().clientHeight / rowHeight) - 1);
  switch (event.key) {
    case "ArrowDown": index = Math.min(rows.length - 1, index + 1); break;
    case "ArrowUp": index = Math.max(0, index - 1); break;
    case "PageDown": index = Math.min(rows.length - 1, index + page); break;
    case "PageUp": index = Math.max(0, index - page); break;
    case "Home": index = 0; break;
    case "End": index = rows.length - 1; break;
    case "ArrowRight":
      if (row?.kind === "node" && row.value === true && !row.list) { openList(row, onError); relayout(); }
      else if (row?.list) index = Math.min(rows.length - 1, index + 1);
      break;
    case "ArrowLeft": {
      if (row?.kind === "node" && row.list && row !== tree.root) { closeList(row.list); relayout(); break; }
      const owner = row?.kind === "node" ? row.parent?.owner : row?.list.owner;
      if (owner) index = rows.indexOf(owner);
      break;
    }
    case "Enter": case " ": if (row) activate(row, false); break;
    case "Backspace":
      if (tree.selected !== "/") selectPath(tree.selected.slice(0, tree.selected.lastIndexOf("/")) || "/");
      index = Math.max(0, tree.rows.indexOf(tree.focus));
      break;
    default: return;
  }
  event.preventDefault();
  tree.focus = tree.rows[index] ?? tree.focus;
  scrollToRow(tree.rows.indexOf(tree.focus));
  render(true);
  box().setAttribute("aria-activedescendant", "tree-row-" + tree.rows.indexOf(tree.focus));
});
