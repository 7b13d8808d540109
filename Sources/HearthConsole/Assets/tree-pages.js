// The tree's data: each expanded node's children as a list loaded a page at a time (shallow reads:
// no request downloads a large subtree), and pages followed live by the admin's shallow stream
// (`shallow=true` on an event stream: each child by its leaf value or `true`, never its subtree).
import { api, stream, url } from "./api.js";

export const pageSize = 50;
/// The largest page loaded while scrolling on and on (well under a live stream's bound).
const largestPage = 400;
/// The most children one live page follows (the server's bound for a shallow stream).
const streamLimit = 1000;
let changed = () => {};

/// `listener` runs after every change to a list (a page loaded, a child live in, out or changed).
export function onListChange(listener) { changed = listener; }

// Firebase's key order: keys that are 32-bit integers first, by value, then the others by
// UTF-16 code units.
function integerKey(key) {
  if (!/^(0|-?[1-9][0-9]{0,9})$/.test(key)) return null;
  const value = Number(key);
  return value >= -2147483648 && value <= 2147483647 ? value : null;
}
export function compareKeys(a, b) {
  if (a === b) return 0;
  const x = integerKey(a), y = integerKey(b);
  if (x !== null && y !== null) return x - y || a.length - b.length;
  if (x !== null) return -1;
  if (y !== null) return 1;
  return a < b ? -1 : 1;
}

function childPath(path, key) { return (path === "/" ? "" : path) + "/" + key; }

export function makeNode(key, path, depth, value, list, page) {
  return { kind: "node", key, path, depth, value, list: null, parent: list, page, flash: false };
}

/// Starts listing `node`'s children: the list (pages, children in key order) and its first page.
export function openList(node, onError) {
  const list = {
    owner: node, children: [], pages: [], hasMore: false, loading: false, stalled: false, note: null, closed: false,
    size: pageSize, loadedAt: undefined, onError,
  };
  list.moreRow = { kind: "more", list, depth: node.depth + 1 };
  list.noteRow = { kind: "note", list, depth: node.depth + 1 };
  node.list = list;
  loadPage(list);
  return list;
}

/// Stops a list, its pages' streams and its children's lists.
export function closeList(list) {
  list.closed = true;
  for (const page of list.pages) stopPage(page);
  for (const child of list.children) if (child.list) closeList(child.list);
  list.owner.list = null;
}

/// Loads the list's next page: the children after the last page's end, `pageSize` of them (one
/// more is asked for, to know whether more follow); loaded by scrolling (`scrolled`) within a
/// second of the one before, twice as many as that one, up to `largestPage`, so that
/// scrolling far takes few requests. Each page covers the keys from the end of the one before
/// to its own last key (the last page, when nothing follows: to the end), so every key
/// belongs to one page and a key written later shows in the page that covers it.
export async function loadPage(list, scrolled = false) {
  if (list.loading || list.closed) return;
  list.stalled = false;
  const after = list.pages.at(-1)?.endAt;
  if (list.pages.length > 0 && after === undefined) return;
  list.loading = true;
  changed();
  const soon = scrolled && performance.now() - (list.loadedAt ?? -Infinity) < 1000;
  const size = soon ? Math.min(largestPage, list.size * 2) : pageSize;
  list.size = size;
  const params = { shallow: "true", limitToFirst: String(size + 1) };
  if (after !== undefined) params.startAfter = JSON.stringify(after);
  let value;
  try {
    value = await api(list.owner.path, { params });
  } catch (error) {
    // Not tried again until asked ("more…" clicked, or the node expanded again).
    list.onError(error);
    list.stalled = true;
    if (list.pages.length === 0) list.note = "(not loaded: " + error.message + ")";
  }
  list.loading = false;
  if (list.closed) return;
  list.loadedAt = performance.now();
  if (!list.stalled) addPage(list, after, value, size);
  changed();
}

function addPage(list, after, value, size) {
  if (value !== null && typeof value !== "object") {
    list.note = JSON.stringify(value);
    return;
  }
  const keys = value === null ? [] : Object.keys(value).sort(compareKeys);
  const shown = keys.slice(0, size);
  list.hasMore = keys.length > size;
  const page = { list, startAfter: after, endAt: list.hasMore ? shown.at(-1) : undefined, stream: null };
  list.pages.push(page);
  const { path, depth } = list.owner;
  for (const key of shown) list.children.push(makeNode(key, childPath(path, key), depth + 1, value[key], list, page));
  if (list.children.length === 0) list.note = "(empty)";
}

/// Follows `page` live: its key range as one shallow stream; the first event is the whole page
/// (children gone since are removed), then one merge per change.
export function followPage(page) {
  if (page.stream || page.failed || page.list.closed) return;
  const params = { shallow: "true", limitToFirst: String(streamLimit) };
  if (page.startAfter !== undefined) params.startAfter = JSON.stringify(page.startAfter);
  if (page.endAt !== undefined) params.endAt = JSON.stringify(page.endAt);
  page.stream = stream(url(page.list.owner.path, params), (event, change) => {
    const keys = change.path.split("/").filter(Boolean);
    if (keys.length === 0) {
      const data = change.data !== null && typeof change.data === "object" ? change.data : {};
      if (event === "put") {
        for (const node of page.list.children.filter((n) => n.page === page && !Object.hasOwn(data, n.key))) remove(page.list, node);
      }
      for (const [key, value] of Object.entries(data)) upsert(page, key, value);
    } else if (keys.length === 1) {
      upsert(page, keys[0], change.data);
    }
    changed();
  }, (status) => {
    // A stream that ended or was refused is not tried again for this page.
    if (status !== "live") { page.stream = null; page.failed = true; }
  });
}

export function stopPage(page) {
  page.stream?.abort();
  page.stream = null;
}

function position(children, key) {
  let low = 0, high = children.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (compareKeys(children[middle].key, key) < 0) low = middle + 1; else high = middle;
  }
  return low;
}

/// A child of the page is now `value` (null: gone): its row is added, changed or removed.
function upsert(page, key, value) {
  const list = page.list;
  if (list.closed) return;
  const at = position(list.children, key);
  const node = list.children[at];
  if (node && node.key === key) {
    if (value === null || value === undefined) return remove(list, node);
    if (JSON.stringify(node.value) === JSON.stringify(value)) return;
    if (value !== true && node.list) closeList(node.list);
    node.value = value;
    node.flash = true;
    return;
  }
  if (value === null || value === undefined) return;
  const added = makeNode(key, childPath(list.owner.path, key), list.owner.depth + 1, value, list, page);
  added.flash = true;
  list.children.splice(at, 0, added);
  list.note = null;
}

function remove(list, node) {
  if (node.list) closeList(node.list);
  list.children.splice(list.children.indexOf(node), 1);
  if (list.children.length === 0 && !list.hasMore) list.note = "(empty)";
}
